"""Issue 42: Spark on a cluster — separate executor processes count, the driver does not hold the rows, the model
is the one numpy and DuckDB fit for the same seed, and a fit prints nothing of Spark's.

``local-cluster[2,1,1024]`` is Spark's standalone cluster in one machine: a master and two workers, each
launching its executor in its own JVM (with its own Python workers), as on a real cluster.  One session for the
module (starting it takes seconds).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from privbayes import AdaptiveMarginals, PrivBayes, counting
from privbayes.counting.spark import SparkTable, _jobs, driver_may_hold_rows, on_cluster
from privbayes.schema import Attribute, Schema
from privbayes.schema.encoding import Encoding

SRC = Path(__file__).resolve().parents[2] / "src"
METHODS = {"adaptive": lambda: AdaptiveMarginals(1.0, random_state=11),
           "privbayes": lambda: PrivBayes(1.0, random_state=11)}


# --- the rule, without a JVM ---------------------------------------------------------------------------------------

def _session(master: str) -> SimpleNamespace:
    return SimpleNamespace(sparkContext=SimpleNamespace(master=master))


def test_every_master_but_local_is_a_cluster():
    assert not any(on_cluster(_session(m)) for m in ["local", "local[*]", "local[2]", "local[4,3]"])
    assert all(on_cluster(_session(m)) for m in ["local-cluster[2,1,1024]", "spark://h:7077", "yarn", "k8s://h"])


def test_the_driver_holds_rows_only_when_the_schemas_whole_domain_fits():
    """A public bound: a row per cell of the domain, whatever the data and n."""
    from release_pins import adult

    small = Encoding.build(Schema(tuple(Attribute(f"b{j}", "binary") for j in range(10))), "hierarchical")
    assert driver_may_hold_rows(small) and not driver_may_hold_rows(small, share=0.0)
    assert not driver_may_hold_rows(Encoding.build(adult()[1], "hierarchical"), share=1.0)


def test_a_table_on_a_cluster_does_not_look_at_its_rows_to_decide():
    """Adult's domain does not fit any driver: the table stays in the executors without a query (the number of
    distinct rows, private, is never asked)."""
    from release_pins import adult

    table = SparkTable(_session("spark://h:7077"), None, "rows", adult()[1], 10)
    table._fetch = lambda sql: pytest.fail(f"queried the rows: {sql}")
    assert table.localise(share=1.0) is table and table.local is None


def test_executors_on_other_machines_get_the_files_own_path(tmp_path):
    """Not a link in the driver's temporary folder (other machines cannot see it): the resolved path as a file: URI
    (a cluster's default file system may be HDFS); a path Hadoop would read as a pattern is refused in one line."""
    from privbayes.core.errors import InputError
    from privbayes.counting.spark import _OwnPath

    (tmp_path / "plain.parquet").write_bytes(b"")
    (tmp_path / "link.parquet").symlink_to(tmp_path / "plain.parquet")
    assert _OwnPath(tmp_path / "link.parquet", "data").path == f"file:{(tmp_path / 'plain.parquet').resolve()}"
    (tmp_path / "d{1,2}.parquet").write_bytes(b"")
    with pytest.raises(InputError, match=r"^d\{1,2\}: Spark on a cluster .* pattern character"):
        _OwnPath(tmp_path / "d{1,2}.parquet", "d{1,2}")


def test_a_pass_is_cut_into_jobs_of_bounded_cells_by_the_plan_alone():
    """Tables in order, none of a job's cells beyond the budget; a table beyond it in row-major slices of it."""
    jobs = _jobs([3, 4, 10, 2, 5], budget=4)
    assert jobs == [[(0, 0, 3)], [(1, 0, 4)], [(2, 0, 4)], [(2, 4, 8)], [(2, 8, 10), (3, 0, 2)], [(4, 0, 4)],
                    [(4, 4, 5)]]
    assert all(sum(hi - lo for _, lo, hi in job) <= 4 for job in jobs)


def test_integer_columns_are_coded_by_direct_addressing_as_by_arrows_look_up():
    """The same code for every value (nulls included) as ``index_in`` gives; a sparse value set, text and a value
    without a code keep to the look-up or fail loudly."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from privbayes.counting.spark import _direct_codes, _direct_table

    keys = pa.array([7, -3, 12, 5, None], pa.int32())
    codes = pa.array([4, 0, 1, 3, 2], pa.int16())
    chunk = pa.chunked_array([pa.array([5, None, -3, 12, 7, 7], pa.int32()), pa.array([None, 12], pa.int32())])
    direct = _direct_table(keys, codes)
    assert direct is not None and direct.low == -3
    got = _direct_codes(chunk, direct, 0)
    assert got.type == pa.int16()
    assert got.to_pylist() == pc.take(codes, pc.index_in(chunk, value_set=keys, skip_nulls=False)).to_pylist()
    assert _direct_table(pa.array([0, 2**40]), codes[:2]) is None  # sparse: Arrow's look-up
    assert _direct_table(pa.array(["a", "b"]), codes[:2]) is None
    with pytest.raises(RuntimeError, match="column 3: a value without a code"):
        _direct_codes(pa.chunked_array([pa.array([6], pa.int32())]), direct, 3)
    with pytest.raises(RuntimeError, match="column 3: a value without a code"):
        _direct_codes(pa.chunked_array([pa.array([13], pa.int32())]), direct, 3)


def test_a_pass_is_counted_job_by_job_as_its_tables_are_read():
    """The driver holds about one job's answer: a table is counted when first read (its slices joined), no sooner,
    and let go once read."""
    from privbayes.counting.spark import _Answers

    read = []

    def slices():
        for got in [(0, 0, np.array([1]), np.array([5])), (1, 0, np.array([0]), np.array([2])),
                    (1, 4, np.array([2]), np.array([3])), (2, 0, np.array([], np.int64), np.array([], np.int64))]:
            read.append(got[:2])
            yield got

    answers = _Answers([(0,), (1, 2), (3,)], [1, 2, 1], slices())
    assert [a.tolist() for a in answers[(0,)]] == [[1], [5]] and read == [(0, 0)]
    assert [a.tolist() for a in answers[(1, 2)]] == [[0, 6], [2, 3]] and read == [(0, 0), (1, 0), (1, 4)]
    assert [len(a) for a in answers[(3,)]] == [0, 0]
    with pytest.raises(KeyError):
        answers[(1, 2)]


# --- a two-worker cluster ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java 17+ (Debian: openjdk-17-jre-headless)")
    from privbayes.counting.spark import start_session

    session = start_session("local-cluster[2,1,1024]", {"spark.executor.memory": "512m",
                                                         "spark.sql.shuffle.partitions": "2"})
    app = session.sparkContext.applicationId
    yield session
    session.stop()
    _remove_worker_logs(app)


def _remove_worker_logs(app: str) -> None:
    """The workers keep each application's executor logs in ``$SPARK_HOME/work/<app>``: remove this one's."""
    from pyspark.find_spark_home import _find_spark_home

    work = Path(_find_spark_home()) / "work"
    shutil.rmtree(work / app, ignore_errors=True)
    if work.is_dir() and not any(work.iterdir()):
        work.rmdir()


@pytest.fixture(scope="module")
def adult_parquet(tmp_path_factory):
    from release_pins import adult

    frame, schema = adult()
    path = tmp_path_factory.mktemp("cluster") / "adult.parquet"
    frame.to_parquet(path, index=False)
    return path, schema


def _file(model, path: Path) -> str:
    from release_pins import file_digest

    model.save(path)
    return file_digest(path)


@pytest.fixture(scope="module")
def adult_on_cluster(cluster, adult_parquet):
    """The Adult sample opened on the cluster, once for the module (opening takes seconds)."""
    path, schema = adult_parquet
    return counting.open(path, schema, backend=cluster)


def test_two_workers_fit_the_models_numpy_and_duckdb_fit(tmp_path, cluster, adult_parquet, adult_on_cluster):
    pytest.importorskip("duckdb")
    path, schema = adult_parquet
    assert cluster.sparkContext.master == "local-cluster[2,1,1024]"
    table = adult_on_cluster
    assert table.local is None  # counted in the executors: the driver never held the rows
    for name, make in METHODS.items():
        passes = table.passes
        spark = _file(make().fit(table).released_, tmp_path / f"{name}-spark.json")
        assert table.passes > passes  # its tables were counted by jobs on the cluster
        assert spark == _file(make().fit(path, schema).released_, tmp_path / f"{name}-numpy.json"), name
        assert spark == _file(make().fit(path, schema, backend="duckdb").released_, tmp_path / f"{name}-duckdb.json")


def test_a_fit_on_spark_prints_only_its_own_lines(tmp_path, adult_parquet):
    """``privbayes fit --backend spark`` in a fresh process: no JVM, log4j or Spark line on stderr."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java 17+")
    import os

    path, _ = adult_parquet
    done = subprocess.run([sys.executable, "-m", "privbayes.cli", "fit", str(path), "--schema",
                           str(SRC / "privbayes" / "data" / "adult.yaml"), "--backend", "spark", "--seed", "1",
                           "-o", str(tmp_path / "m.json")], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(SRC)})
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.startswith(f"wrote {tmp_path / 'm.json'}")


def test_large_tables_are_counted_at_their_levels_in_slices_equal_numpy(adult_parquet, adult_on_cluster,
                                                                        monkeypatch):
    """Tables beyond the dense limit are counted at their requested levels (the driver never receives a leaf table
    of up to n cells), and a pass beyond a job's cells is cut into jobs, a table into slices of its cells: here
    2,048 + 574 + 140 cells in jobs of 1,000 — three jobs (the first table, asked in two orders, counted once) —
    and one job for the small tables."""
    from privbayes.counting import spark

    monkeypatch.setattr(spark, "_DENSE_CELLS", 64)
    monkeypatch.setattr(spark, "_WORKER_CELLS", 1000)
    path, schema = adult_parquet
    workload = [([0, 2, 3], [1, 0, 0]), ([13, 6], [0, 0]), ([6, 13], [0, 1]), ([9, 14], None), ([0], [3]),
                ([2, 0, 3], [0, 1, 0])]
    table = adult_on_cluster
    passes = table.passes
    got = table.counts_many(workload)
    assert table.passes - passes == 4
    for want, have in zip(counting.open(path, schema).counts_many(workload), got):
        assert have.dtype == want.dtype and have.shape == want.shape
        np.testing.assert_array_equal(have, want)
