"""Issue 17: the DuckDB and Spark back-ends count exactly what the numpy back-end counts.

Same tables on random schemas and data (empty cells, missing values, generalised
levels, CSV text quirks), the same fitted model with a fixed seed, the same refusals
with the same message and the same row numbers, the same size cap.  Spark starts once
per module (a JVM: seconds); its workload is batched into few queries.
"""

from __future__ import annotations

import itertools
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from privbayes import PrivBayes, counting
from privbayes.core.errors import InputError
from privbayes.core.limits import configure, limits
from privbayes.counting import InvalidValuesError
from privbayes.schema import Attribute, Schema

duckdb = pytest.importorskip("duckdb")

@pytest.fixture(autouse=True)
def count_in_the_engine(monkeypatch):
    """Engine tables count in the engine here (they move small coded rows into memory otherwise;
    that path is checked by test_small_coded_rows_are_counted_in_memory_alike)."""
    from privbayes.counting import engine

    monkeypatch.setattr(engine, "LOCAL_MEMORY_SHARE", 0.0)


WORDS = ["NA", "null", "a,b", ' "q" ', "x y", "1.0", "2", "é"]


def random_case(seed: int, n: int = 400) -> tuple[Schema, pd.DataFrame]:
    """A random schema (categorical with and without taxonomy, numeric, binary; missing as a
    category or absent) and rows that leave some cells empty and some values missing."""
    rng = np.random.default_rng(seed)
    attrs, columns = [], {}
    for j in range(int(rng.integers(3, 6))):
        kind = ["categorical", "numeric", "binary"][j % 3]
        missing = "category" if rng.random() < 0.6 else "refuse"
        name = f"v{j}"
        if kind == "categorical":
            cats = tuple(rng.choice(WORDS, size=int(rng.integers(3, 7)), replace=False))
            taxonomy = (cats[:2], cats[2:]) if rng.random() < 0.5 else None
            attrs.append(Attribute(name, kind, categories=cats, taxonomy=taxonomy, missing=missing))
            used = list(cats[:-1])  # the last category never occurs: empty cells
            values = rng.choice(used, n).astype(object)
        elif kind == "numeric":
            attrs.append(Attribute(name, kind, lower=0, upper=10, bins=int(rng.integers(2, 9)), missing=missing))
            values = np.round(rng.uniform(0, 6, n), 2).astype(object)  # bins above 6 stay empty
        else:
            attrs.append(Attribute(name, kind, missing=missing))
            values = rng.integers(0, 2, n).astype(object)
        if missing == "category":
            values[rng.random(n) < 0.1] = None
        columns[name] = values
    return Schema(tuple(attrs)), pd.DataFrame(columns)


def write(frame: pd.DataFrame, path) -> str:
    """The rows as CSV (None → empty field) or as Parquet (typed, None → null)."""
    if str(path).endswith(".csv"):
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return str(path)


def requests(table, rng, count: int = 40) -> list:
    """Random 1- to 3-way requests at random generalisation levels, and the empty request."""
    attrs = table.encoding.attributes
    out = [([], None)]
    for _ in range(count):
        chosen = list(rng.choice(len(attrs), size=int(rng.integers(1, min(3, len(attrs)) + 1)), replace=False))
        out.append((chosen, [int(rng.integers(0, attrs[a].height)) for a in chosen]))
    return out


def assert_same_counts(expected, got, workload) -> None:
    assert got.n == expected.n
    for want, have in zip(expected.counts_many(workload), got.counts_many(workload)):
        assert have.dtype == np.int64 and have.shape == want.shape
        np.testing.assert_array_equal(have, want)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("form", ["csv", "parquet", "frame"])
def test_duckdb_counts_equal_numpy(tmp_path, seed, form):
    schema, frame = random_case(seed)
    source = frame if form == "frame" else write(frame, tmp_path / f"data.{form}")
    expected = counting.open(source, schema)
    got = counting.open(source, schema, backend="duckdb")
    workload = requests(expected, np.random.default_rng(seed))
    assert_same_counts(expected, got, workload)
    for attributes, levels in workload[1:4]:  # the single-table form too
        np.testing.assert_array_equal(got.counts(attributes, levels), expected.counts(attributes, levels))


@pytest.mark.parametrize("form", ["parquet", "frame"])
def test_small_coded_rows_are_counted_in_memory_alike(tmp_path, monkeypatch, form):
    from privbayes.counting import engine

    monkeypatch.setattr(engine, "LOCAL_MEMORY_SHARE", 1.0)
    schema, frame = random_case(7)
    source = frame if form == "frame" else write(frame, tmp_path / "data.parquet")
    expected, got = counting.open(source, schema), counting.open(source, schema, backend="duckdb")
    assert got.local is not None
    assert_same_counts(expected, got, requests(expected, np.random.default_rng(7)))


def test_many_rows_go_undeduplicated_to_a_compressed_file_and_count_alike(tmp_path, monkeypatch):
    """Above ``STORED_ROWS`` rows the coded rows are kept one by one (weight 1) in a database file of a temporary
    directory, which is removed with the connection; the counts are numpy's (streamed or in memory)."""
    import gc
    import os

    from privbayes.counting import duckdb as module
    from privbayes.counting import engine

    monkeypatch.setattr(module, "STORED_ROWS", 50)
    monkeypatch.setattr(engine, "_BLOCK_ROWS", 64)  # streamed blocks that split the engine's batches
    schema, frame = random_case(11)
    source = write(frame, tmp_path / "data.parquet")
    expected, got = counting.open(source, schema), counting.open(source, schema, backend="duckdb")
    assert got.local is None and "_db." in got.rows_name and got.unit_weights
    stored = got.connection.sql(f"SELECT COUNT(*), MIN(w), MAX(w) FROM {got.rows_name}").fetchall()
    assert stored == [(len(frame), 1, 1)]
    folder = got.connection.sql("SELECT path FROM duckdb_databases() WHERE path IS NOT NULL").fetchall()[0][0]
    assert os.path.exists(folder)
    assert_same_counts(expected, got, requests(expected, np.random.default_rng(11)))
    del got
    gc.collect()
    assert not os.path.exists(os.path.dirname(folder))


def test_a_connection_the_library_opens_is_bounded_by_the_fit_cap_and_spills_apart():
    """DuckDB's memory_limit is ENGINE_SHARE of PRIVBAYES_MAX_FIT_GB; its temporary files go to a directory of
    its own (not the working directory), reported to the cost estimate with the share counted in memory."""
    from privbayes.counting.base import counting_place
    from privbayes.counting.duckdb import ENGINE_SHARE, _connect, _memory_limit

    configure(max_fit_bytes=8 * 2**30)
    try:
        con, _ = _connect(None)
        assert _memory_limit(con) == int(8 * 2**30 * ENGINE_SHARE)
        assert "privbayes-duckdb-" in con.sql("SELECT current_setting('temp_directory')").fetchall()[0][0]
    finally:
        configure()
    schema, frame = random_case(3)
    place = counting_place(counting.open(frame, schema, backend="duckdb"))
    assert place.in_engine and place.engine_bytes == int(limits().max_fit_bytes * ENGINE_SHARE)
    assert not counting_place(counting.open(frame, schema)).in_engine


def test_duckdb_reads_csv_text_like_the_numpy_reader(tmp_path):
    """Quoted separators and quotes, blanks, NA words and quoted empty fields: text, as pandas reads it."""
    path = tmp_path / "quirks.csv"
    path.write_text('c,d\n"a,b",1\n" x ",2\nNA,\n"",3\nnull,""\n\n"say ""hi""",4\n', encoding="utf-8")
    schema = Schema((Attribute("c", "categorical", categories=("a,b", "x", "NA", "null", 'say "hi"'),
                               missing="category"),
                     Attribute("d", "numeric", lower=0, upper=4, bins=4, missing="category")))
    assert_same_counts(counting.open(path, schema), counting.open(path, schema, backend="duckdb"),
                       [([0, 1], None), ([1], None)])


@pytest.mark.parametrize("params", [{}, {"degree": 2}, {"score": "I", "encoding": "hierarchical"}])
def test_the_same_seed_fits_the_same_model_on_duckdb(tmp_path, params):
    schema, frame = random_case(11, n=2000)
    path = write(frame, tmp_path / "data.parquet")
    a = PrivBayes(1.0, random_state=3, **params).fit(path, schema).model_
    b = PrivBayes(1.0, random_state=3, **params).fit(path, schema, backend="duckdb").model_
    assert a.network == b.network
    assert all(np.array_equal(x, y) for x, y in zip(a.conditionals, b.conditionals))
    assert a.ledger == b.ledger


REFUSALS = [  # (attribute, column values): each refused by the schema in its own way
    (Attribute("x", "categorical", categories=("a", "b")), ["a", "b", "zz", "a", "zz", "b"]),
    (Attribute("x", "numeric", lower=0, upper=5, bins=5), ["1", "2", "9", "3", "-4", "2"]),
    (Attribute("x", "numeric", lower=0, upper=5, bins=5), ["1", "x", "2", "x", "3", "4"]),
    (Attribute("x", "categorical", categories=(1, "1.0")), ["1.0", "01", "1.0", "01", "1.0", "1.0"]),
    (Attribute("x", "categorical", categories=("a", "b"), missing="refuse"), ["a", "", "b", "a", "", "a"]),
]


@pytest.mark.parametrize("form", ["csv", "parquet"])
@pytest.mark.parametrize("case", range(len(REFUSALS)))
def test_refusals_are_the_same_on_duckdb(tmp_path, form, case):
    """Same error class, same value-free message, same row numbers for --show-invalid."""
    attr, values = REFUSALS[case]
    frame = pd.DataFrame({"x": [None if v == "" and form == "parquet" else v for v in values],
                          "y": ["0"] * len(values)})
    schema = Schema((attr, Attribute("y", "categorical", categories=("0",))))
    path = write(frame, tmp_path / f"bad.{form}")
    with pytest.raises(InvalidValuesError) as numpy_error:
        counting.open(path, schema)
    with pytest.raises(InvalidValuesError) as duckdb_error:
        counting.open(path, schema, backend="duckdb")
    assert str(duckdb_error.value) == str(numpy_error.value)
    assert duckdb_error.value.rows == numpy_error.value.rows
    shown = str(duckdb_error.value).replace(str(tmp_path), "")  # the path may hold any digits
    assert "zz" not in shown and "-4" not in shown


def test_clip_and_category_policies_agree(tmp_path):
    schema = Schema((Attribute("x", "numeric", lower=0, upper=5, bins=5, invalid="clip"),
                     Attribute("y", "categorical", categories=("a", "b"), invalid="category", missing="category")))
    path = write(pd.DataFrame({"x": ["-3", "2", "9", "4.5"], "y": ["a", "zz", "b", "q"]}), tmp_path / "p.csv")
    assert_same_counts(counting.open(path, schema), counting.open(path, schema, backend="duckdb"), [([0, 1], None)])


def test_column_and_file_errors_match(tmp_path):
    schema = Schema((Attribute("a", "binary"), Attribute("b", "binary")))
    for text in ["a,a\n0,1\n", "a\n0\n", "a,b\n", ""]:
        path = tmp_path / "cols.csv"
        path.write_text(text)
        with pytest.raises(InputError) as numpy_error:
            counting.open(path, schema)
        with pytest.raises(InputError) as duckdb_error:
            counting.open(path, schema, backend="duckdb")
        assert str(duckdb_error.value) == str(numpy_error.value)


def test_columns_outside_the_schema_are_left_out_alike(tmp_path):
    """An undeclared column is not read and is named in the same warning; a ';' file is split alike."""
    from privbayes.counting.reading import ColumnsLeftOut

    schema = Schema((Attribute("a", "binary"), Attribute("b", "binary")))
    path = tmp_path / "extra.csv"
    path.write_text("b;c;a\n0;x;1\n1;y;1\n")
    with pytest.warns(ColumnsLeftOut) as numpy_note:
        expected = counting.open(path, schema)
    with pytest.warns(ColumnsLeftOut) as duckdb_note:
        got = counting.open(path, schema, backend="duckdb")
    assert [str(w.message) for w in duckdb_note] == [str(w.message) for w in numpy_note]
    assert_same_counts(expected, got, [([0, 1], None)])


def test_the_size_cap_refuses_a_large_table_before_counting(tmp_path):
    schema, frame = random_case(2)
    table = counting.open(frame, schema, backend="duckdb")
    old = limits().max_table_cells
    try:
        configure(max_table_cells=4)
        with pytest.raises(InputError, match="cells, more than the limit of 4"):
            table.counts([0, 1])
    finally:
        configure(max_table_cells=old)


def test_backend_choice(tmp_path, monkeypatch):
    from privbayes.counting import source
    from privbayes.counting.duckdb import DuckDBTable

    schema, frame = random_case(3)
    path = write(frame, tmp_path / "d.parquet")
    assert not isinstance(counting.open(path, schema, backend="auto"), DuckDBTable)
    monkeypatch.setattr(source, "AUTO_MEMORY_SHARE", 0.0)
    assert isinstance(counting.open(path, schema, backend="auto"), DuckDBTable)
    connection = duckdb.connect()
    assert isinstance(counting.open(path, schema, backend=connection), DuckDBTable)
    with pytest.raises(InputError, match="backend"):
        counting.open(path, schema, backend="sqlite")


# --- Spark: which sessions are quieted (a stand-in pyspark: no JVM) ---------------------------------

class _Builder:
    def __init__(self, made):
        self.options, self.made = {}, made

    def master(self, value):
        return self.config("master", value)

    def appName(self, value):  # noqa: N802 - pyspark's spelling
        return self.config("appName", value)

    def config(self, key, value):
        self.options[key] = value
        return self

    def getOrCreate(self):  # noqa: N802
        self.made.append(dict(self.options))
        return "created"


def _fake_pyspark(monkeypatch, active):
    import sys
    import types

    made: list[dict] = []
    sql = types.ModuleType("pyspark.sql")
    sql.SparkSession = type("SparkSession", (), {"getActiveSession": staticmethod(lambda: active),
                                                  "builder": _Builder(made)})
    pyspark = types.ModuleType("pyspark")
    pyspark.SparkContext = type("SparkContext", (), {"_gateway": None})  # no JVM yet
    monkeypatch.setitem(sys.modules, "pyspark", pyspark)
    monkeypatch.setitem(sys.modules, "pyspark.sql", sql)
    return made


def test_a_session_privbayes_creates_is_quiet_and_a_users_session_is_left_as_it_is(monkeypatch):
    from privbayes.counting import spark
    from privbayes.counting.spark import QUIET_LOG_LEVEL, local_session

    launched: list[dict] = []
    monkeypatch.setattr(spark, "_launch_jvm", launched.append)  # the JVM's own output goes to a file
    made = _fake_pyspark(monkeypatch, active=None)
    assert local_session() == "created"
    assert made[0]["spark.log.level"] == QUIET_LOG_LEVEL == "ERROR"
    assert made[0]["spark.ui.showConsoleProgress"] == "false" and made[0]["spark.master"] == "local[*]"
    assert launched == made
    users = object()
    made = _fake_pyspark(monkeypatch, active=users)
    assert local_session() is users and made == []  # the active session: not rebuilt, not reconfigured
    assert local_session(users) is users and made == [] and len(launched) == 1


# --- Spark: one session for the module -------------------------------------------------------------

@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java 17+ (Debian: openjdk-17-jre-headless)")
    from privbayes.counting.spark import local_session

    session = local_session()
    session.conf.set("spark.sql.shuffle.partitions", "2")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_spark_counts_and_refusals_equal_numpy(tmp_path, spark):
    """A CSV file (missing values, empty cells, levels, text quirks; Parquet is read by the
    model test below); one refusal."""
    schema, frame = random_case(4)
    path = write(frame, tmp_path / "data.csv")
    expected = counting.open(path, schema)
    assert_same_counts(expected, counting.open(path, schema, backend=spark),
                       requests(expected, np.random.default_rng(4)))
    attr, values = REFUSALS[0]
    path = write(pd.DataFrame({"x": values, "y": ["0"] * len(values)}), tmp_path / "bad.csv")
    schema = Schema((attr, Attribute("y", "categorical", categories=("0",))))
    with pytest.raises(InvalidValuesError) as numpy_error:
        counting.open(path, schema)
    with pytest.raises(InvalidValuesError) as spark_error:
        counting.open(path, schema, backend=spark)
    assert str(spark_error.value) == str(numpy_error.value)
    assert spark_error.value.rows == numpy_error.value.rows


def test_spark_counts_a_parquet_file_equal_numpy(tmp_path, spark):
    """Parquet columns keep their types (floats, integers, text, with nulls; −0.0 beside 0.0, which
    Spark's distinct values merge and Arrow's look-up would not): the Arrow look-up in the workers
    must code each value as the numpy back-end does (counting in the executors, in jobs of bounded cells:
    tests/counting/test_spark_cluster.py)."""
    schema, frame = random_case(5)
    numeric = next(a.name for a in schema.attributes if a.kind == "numeric")
    values = frame[numeric].to_numpy(dtype=object, copy=True)
    values[:3] = [-0.0, 0.0, -0.0]
    frame[numeric] = values
    path = write(frame, tmp_path / "data.parquet")
    expected = counting.open(path, schema)
    assert_same_counts(expected, counting.open(path, schema, backend=spark),
                       requests(expected, np.random.default_rng(5)))


def test_the_same_seed_fits_the_same_model_on_spark(tmp_path, spark):
    schema, frame = random_case(11, n=2000)
    path = write(frame, tmp_path / "data.parquet")
    a = PrivBayes(1.0, random_state=3, degree=2).fit(path, schema).model_
    b = PrivBayes(1.0, random_state=3, degree=2).fit(path, schema, backend=spark).model_
    assert a.network == b.network
    assert all(np.array_equal(x, y) for x, y in zip(a.conditionals, b.conditionals))
    assert a.ledger == b.ledger


def test_the_guide_spark_snippet_runs_as_written(tmp_path, spark, monkeypatch):
    """The guide's Spark example (docs/guide/scale.md), executed with its file names pointed at a tiny table (its
    SparkSession.builder...getOrCreate() returns this module's session)."""
    import pathlib
    import re

    guide = (pathlib.Path(__file__).parents[2] / "docs" / "guide" / "scale.md").read_text(encoding="utf-8")
    snippet = next(block for block in re.findall(r"```python\n(.*?)```", guide, re.S) if "backend=spark" in block)
    assert spark.sparkContext.getConf().get("spark.ui.showConsoleProgress") == "false"
    assert spark.sparkContext.getConf().get("spark.log.level") == "ERROR"
    from helpers import categorical_schema, correlated_frame

    write(correlated_frame([3, 2, 4], 300, seed=12), tmp_path / "census.parquet")
    (tmp_path / "census.yaml").write_text(yaml.safe_dump(categorical_schema([3, 2, 4]).to_dict()))
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(snippet.replace("50_000_000", "50"), "scale.md", "exec"), namespace)  # noqa: S102
    assert namespace["model"].method == "adaptive"
    assert len(pd.read_parquet(tmp_path / "synthetic.parquet")) == 50


@pytest.mark.slow
def test_spark_counts_a_dataframe_labelled_in_memory(spark):
    schema, frame = random_case(6)
    expected = counting.open(frame, schema)
    workload = list(itertools.islice(requests(expected, np.random.default_rng(6)), 12))
    assert_same_counts(expected, counting.open(frame, schema, backend=spark), workload)
