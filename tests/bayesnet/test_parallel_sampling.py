"""Issue 42: streamed sampling by worker processes gives the same file, byte for byte, as one process; the
guided inverse CDF gives exactly the count of cumulative probabilities at or below each draw."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pandas as pd
import pytest

from privbayes import PrivBayes
from privbayes.bayesnet import sampling
from privbayes.bayesnet.model import _Draw
from privbayes.bayesnet.sampling import guide_table, guided_count
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.files.parquet_parts import check_spliced
from privbayes.schema import Attribute, Schema

SCHEMA = Schema((Attribute("a", "categorical", categories=(0, 1, 2)), Attribute("b", "binary"),
                 Attribute("x", "numeric", lower=0, upper=10, bins=5),
                 Attribute("c", "categorical", categories=("p", "q", "r,s"))))


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(0)
    n = 2000
    a = rng.integers(0, 3, n)
    frame = pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.7, a % 2, rng.integers(0, 2, n)),
                          "x": np.round(rng.uniform(0, 10, n), 1), "c": rng.choice(["p", "q", "r,s"], n)})
    return PrivBayes(2.0, random_state=1).fit(frame, SCHEMA).model_


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 500 rows, so that a few thousand rows make several chunks for the workers."""
    monkeypatch.setattr(sampling, "BLOCK_ROWS", 500)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_two_workers_write_the_same_bytes_as_one(tmp_path, model, small_blocks, suffix):
    n = 7 * 500 + 123  # several chunks for two workers, the last block partial
    one, two = tmp_path / f"one{suffix}", tmp_path / f"two{suffix}"
    seen = []
    model.sample_to(one, n, chunk_rows=1000, random_state=4, progress=False, workers=1)
    sampling.sample_to(two, model._draw(None), model.schema, n, 4, chunk_rows=1000,
                       progress=lambda done, total: seen.append(done), workers=2)
    assert one.read_bytes() == two.read_bytes()
    assert seen == [1000, 2000, 3000, n]  # in order, one report per chunk written
    read = pd.read_csv if suffix == ".csv" else pd.read_parquet
    assert len(read(two)) == n
    model.sample_to(two, n, chunk_rows=1000, random_state=5, progress=False, workers=2)
    assert one.read_bytes() != two.read_bytes()  # another seed, other rows


def test_conditions_and_keys_reach_the_workers(tmp_path, model, small_blocks):
    """The finishing step (a condition's exact value, identifier keys numbered across chunks) pickles."""
    schema = Schema(model.schema.attributes, dropped=("id",), identifiers=(("id", "integer"),))
    keyed = dataclasses.replace(model, schema=schema)
    n = 4 * 500 + 7
    paths = [tmp_path / f"w{w}.csv" for w in (1, 2)]
    for workers, path in zip((1, 2), paths):
        keyed.sample_to(path, n, chunk_rows=500, random_state=1, progress=False, workers=workers,
                        conditions={"x": 3.5}, keep_ids=True)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    table = pd.read_csv(paths[1])
    assert table["id"].tolist() == list(range(1, n + 1)) and (table["x"] == 3.5).all()


def test_the_asked_for_draw_reaches_the_workers(tmp_path, model, small_blocks):
    """``draw`` travels with the pickled sampler: two workers write the one-process file of that draw, and an
    i.i.d. file differs from the model's own balanced one."""
    n = 5 * 500 + 11
    paths = {(w, d): tmp_path / f"w{w}-{d}.csv" for w in (1, 2) for d in ("iid", "own")}
    for (workers, draw), path in paths.items():
        model.sample_to(path, n, chunk_rows=500, random_state=2, progress=False, workers=workers,
                        draw=None if draw == "own" else draw)
    assert model.draw == "balanced"
    assert paths[(1, "iid")].read_bytes() == paths[(2, "iid")].read_bytes()
    assert paths[(1, "own")].read_bytes() == paths[(2, "own")].read_bytes()
    assert paths[(2, "iid")].read_bytes() != paths[(2, "own")].read_bytes()
    iid = dataclasses.replace(model, draw="iid")
    iid.sample_to(tmp_path / "recorded.csv", n, chunk_rows=500, random_state=2, progress=False, workers=1)
    assert (tmp_path / "recorded.csv").read_bytes() == paths[(2, "iid")].read_bytes()
    # where workers are spawned rather than forked the sampler travels pickled: the draw must travel with it
    travelled = pickle.loads(pickle.dumps(_Draw(model, None, "iid")))
    assert np.array_equal(travelled(300, np.random.default_rng(6)), iid._draw(None)(300, np.random.default_rng(6)))


def test_the_command_line_takes_workers(tmp_path, model, small_blocks, capsys):
    model.save(tmp_path / "m.json")
    outputs = []
    for workers in ("1", "2"):
        outputs.append(tmp_path / f"s{workers}.parquet")
        assert main(["sample", str(tmp_path / "m.json"), "-n", "2345", "--seed", "3", "--workers", workers,
                     "-o", str(outputs[-1])]) == 0
    assert outputs[0].read_bytes() == outputs[1].read_bytes()
    with pytest.raises(SystemExit):
        main(["sample", str(tmp_path / "m.json"), "--workers", "0", "-o", str(tmp_path / "x.csv")])
    assert "--workers" in capsys.readouterr().err and not (tmp_path / "x.csv").exists()
    with pytest.raises(InputError, match="workers"):
        model.sample_to(tmp_path / "y.csv", 10, progress=False, workers=0)


def test_the_guided_count_is_the_exact_count():
    """Rows with zeros, ties, an all-zero row and a sum rounding below 1: the count from the guide table and
    forward steps equals the number of entries at or below each draw."""
    rng = np.random.default_rng(7)
    for size in (1, 2, 5, 16, 41, 300):
        cond = rng.dirichlet(np.full(size, 0.3), 40)
        cond[rng.random(cond.shape) < 0.3] = 0.0
        cond[0] = 0.0
        cond[1] = np.r_[np.full(size - 1, 1e-12), 1.0][:size] if size > 1 else [1.0]
        cdf = np.cumsum(cond, axis=1)
        rows = rng.integers(0, 40, 20_000)
        draws = np.r_[rng.random(19_990), cdf[rows[19_990:], rng.integers(0, size, 10)]]  # draws on entries too
        exact = (cdf[rows] <= draws[:, None]).sum(axis=1)
        ended = np.concatenate([cdf, np.full((40, 1), np.inf)], axis=1).ravel()
        assert np.array_equal(guided_count(ended, guide_table(cdf), size, rows, draws), exact)


def test_a_failed_write_with_workers_leaves_nothing(tmp_path, model, small_blocks):
    """The writer fails after the first chunk: no output, no temporary file, no chunk left in the spool."""
    import glob
    import tempfile

    def spools():
        return {path for folder in ("/dev/shm", tempfile.gettempdir())
                for path in glob.glob(f"{folder}/privbayes-sample-*")}

    before = spools()

    def fail(done, total):
        raise RuntimeError("disk full")

    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(RuntimeError, match="disk full"):
        sampling.sample_to(out / "t.parquet", model._draw(None), model.schema, 6 * 500 + 1, 0, chunk_rows=500,
                           progress=fail, workers=2)
    assert list(out.iterdir()) == [] and spools() <= before


def test_chunks_in_flight_stay_bounded_and_come_in_order(model, small_blocks, monkeypatch):
    """With workers, at most IN_FLIGHT chunks per worker are submitted ahead of the one handed to the writer
    (memory bounded whatever n), and chunks come out in order (an executor that runs here records it)."""
    from concurrent.futures import Future

    submitted: list[int] = []

    class Here:
        def submit(self, function, i, folder):
            submitted.append(i)
            future: Future = Future()
            future.set_result(function(i, folder))
            return future

        def shutdown(self, wait, cancel_futures):
            pass

    chunks = sampling.Chunks(model._draw(None), None, model.schema, 10 * 500 + 3, np.random.SeedSequence(1), 500, 1,
                             False)
    sampling._install(chunks)
    monkeypatch.setattr(sampling, "_pool", lambda chunks, workers: Here())
    for i, text in enumerate(sampling.rendered(chunks, 2)):
        assert text == chunks.render(i)
        assert max(submitted) <= i + sampling.IN_FLIGHT * 2
    assert submitted == list(range(chunks.count)) and chunks.count == 11


def test_the_compiled_draw_gives_the_numpy_codes(model, monkeypatch):
    """The numba kernel counts on the same uniform draws as the numpy loop: the same codes for any block."""
    from privbayes.bayesnet import draw_kernel

    monkeypatch.setattr(draw_kernel, "_KERNEL", [])  # not loaded here: the numpy loop
    sampler = sampling.AncestralSampler(model.network, model.conditionals, model.encoding)
    numpy_codes = [sampler(rows, np.random.default_rng(seed)) for seed, rows in ((0, 1), (1, 777), (2, 5000))]
    assert draw_kernel.loaded() is None and draw_kernel.load() and draw_kernel.loaded() is not None
    for (seed, rows), expected in zip(((0, 1), (1, 777), (2, 5000)), numpy_codes):
        assert np.array_equal(sampler(rows, np.random.default_rng(seed)), expected)
    assert len(np.unique(numpy_codes[-1], axis=0)) > 10  # rows that vary: a real comparison


def test_spliced_parts_are_the_file_one_writer_writes(tmp_path):
    """Parts encoded apart and spliced are byte for byte what one ParquetWriter writes from the same tables,
    one row group each (nulls, text, 16 parts: the footer's long list header)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privbayes.files.parquet_parts import FooterError, PartsWriter, encode_part

    rng = np.random.default_rng(3)
    tables = [pa.table({"k": pa.array(rng.integers(0, 10**6, 300 + i)),
                        "t": pa.array(rng.choice(["x", "yy", None], 300 + i), pa.large_string()),
                        "f": pa.array(rng.random(300 + i), mask=rng.random(300 + i) < 0.2)}) for i in range(16)]
    with pq.ParquetWriter(tmp_path / "one.parquet", tables[0].schema) as writer:
        for table in tables:
            writer.write_table(table)
    with open(tmp_path / "parts.parquet", "wb") as sink:
        parts = PartsWriter(sink)
        for table in tables:
            parts.append(encode_part(table))
        parts.close()
    assert (tmp_path / "parts.parquet").read_bytes() == (tmp_path / "one.parquet").read_bytes()
    assert pq.read_table(tmp_path / "parts.parquet").equals(pa.concat_tables(tables))
    # a part of several row groups (a chunk longer than the writer's row-group size) moves them all
    with open(tmp_path / "grouped.parquet", "wb") as sink:
        parts = PartsWriter(sink)
        for first in range(0, 16, 5):
            buffer = pa.BufferOutputStream()
            with pq.ParquetWriter(buffer, tables[0].schema) as writer:
                for table in tables[first:first + 5]:
                    writer.write_table(table)
            parts.append(bytes(buffer.getvalue()))
        parts.close()
    assert (tmp_path / "grouped.parquet").read_bytes() == (tmp_path / "one.parquet").read_bytes()
    with open(tmp_path / "bad.parquet", "wb") as sink, pytest.raises(FooterError):
        PartsWriter(sink).append(b"PAR1" + b"\x00" * 8 + b"PAR1")


def test_a_spliced_file_whose_positions_were_not_moved_is_refused(tmp_path):
    """The read-back check finds column chunks out of place (here: the second part's positions not moved, as a
    footer field the scanner did not know would be) and a wrong row count; a good file passes."""
    import pyarrow as pa

    from privbayes.files.parquet_parts import FooterError, PartsWriter, check_spliced, encode_part

    tables = [pa.table({"k": pa.array(np.arange(500 * i, 500 * (i + 1)))}) for i in range(2)]

    def splice(path, unmoved=False):
        with open(path, "wb") as sink:
            parts = PartsWriter(sink)
            for table in tables:
                parts.append(encode_part(table))
                if unmoved:
                    parts.position = 4
            parts.close()

    splice(tmp_path / "good.parquet")
    check_spliced(tmp_path / "good.parquet", 1000)
    with pytest.raises(FooterError, match="row count"):
        check_spliced(tmp_path / "good.parquet", 999)
    splice(tmp_path / "bad.parquet", unmoved=True)
    with pytest.raises(FooterError, match="not where its footer says"):
        check_spliced(tmp_path / "bad.parquet", 1000)


def test_a_stored_schema_replaces_the_parts_arrow_schema(tmp_path):
    """Parts whose text was handed to the writer as a dictionary of categories, spliced under the plain schema:
    the file stores that schema (readers get text, not categories), holds the same values, and parts whose
    Parquet columns are not the schema's are refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privbayes.files.parquet_parts import FooterError, PartsWriter, encode_part

    plain = pa.schema([("t", pa.large_string()), ("k", pa.int64())], metadata={"origin": "test"})
    coded = pa.schema([("t", pa.dictionary(pa.int32(), pa.large_string())), ("k", pa.int64())],
                      metadata=plain.metadata)
    categories = pa.array(["north", "south", "east, west"], pa.large_string())
    rng = np.random.default_rng(2)
    parts = []
    for size in (300, 301, 7):
        codes = pa.array(rng.integers(0, 3, size).astype(np.int32), mask=rng.random(size) < 0.1)
        parts.append(pa.Table.from_arrays([pa.DictionaryArray.from_arrays(codes, categories),
                                           pa.array(rng.integers(0, 50, size))], schema=coded))
    with open(tmp_path / "t.parquet", "wb") as sink:
        writer = PartsWriter(sink, schema=plain)
        for table in parts:
            writer.append(encode_part(table, {"use_dictionary": ["t"]}))
        writer.close()
    check_spliced(tmp_path / "t.parquet", 608)
    assert pq.read_schema(tmp_path / "t.parquet").equals(plain, check_metadata=True)
    back = pq.read_table(tmp_path / "t.parquet")
    assert back.equals(pa.concat_tables(parts).cast(plain)) and back.column("t").null_count > 0
    assert pd.read_parquet(tmp_path / "t.parquet")["t"].dtype != "category"
    with open(tmp_path / "bad.parquet", "wb") as sink, pytest.raises(FooterError, match="stored schema"):
        PartsWriter(sink, schema=pa.schema([("t", pa.large_string()), ("k", pa.float64())])).append(
            encode_part(parts[0]))


def test_streamed_parquet_reads_back_as_pandas_and_one_writer_wrote_it(tmp_path, model, small_blocks, monkeypatch):
    """The rows decoded straight to Arrow (text as codes) and encoded by workers (the first chunks by the numpy
    loop, the others by the compiled kernel, loaded meanwhile for a large sample) read back as what the earlier
    route wrote: each chunk drawn by the numpy loop, decoded through pandas, converted, and written by one
    ParquetWriter — the same values, column types and
    stored schema, for pyarrow and pandas; the text column's pages are a dictionary of its categories, the
    continuous column is plain (docs/decisions.md, "Parallel sampling")."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privbayes.bayesnet import draw_kernel

    monkeypatch.setattr(draw_kernel, "_KERNEL", [])
    monkeypatch.setattr(sampling, "KERNEL_ROWS", 1000)  # a "large" sample: the kernel is loaded before the workers
    pools, pool = [], sampling._pool
    monkeypatch.setattr(sampling, "_pool", lambda chunks, workers: pools.append(workers) or pool(chunks, workers))
    n = 5 * 500 + 61
    model.sample_to(tmp_path / "new.parquet", n, chunk_rows=1000, random_state=8, progress=False, workers=2)
    assert draw_kernel.loaded() is not None
    assert pools == [1, 2]  # one process forked before the load drew the first chunks with the numpy loop
    monkeypatch.setattr(draw_kernel, "_KERNEL", [])
    kinds = pq.read_schema(tmp_path / "new.parquet")
    chunks = sampling.Chunks(model._draw(None), None, model.schema, n, np.random.SeedSequence(8), 500, 2, False)
    with pq.ParquetWriter(tmp_path / "old.parquet", kinds) as writer:
        for i in range(chunks.count):
            writer.write_table(pa.Table.from_pandas(chunks.frame(i), schema=kinds, preserve_index=False))
    new, old = pq.read_table(tmp_path / "new.parquet"), pq.read_table(tmp_path / "old.parquet")
    assert new.schema.equals(old.schema, check_metadata=True) and new.equals(old)
    assert pa.types.is_large_string(new.schema.field("c").type)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "new.parquet"), pd.read_parquet(tmp_path / "old.parquet"),
                                  check_exact=True)
    group = pq.read_metadata(tmp_path / "new.parquet").row_group(0)
    encodings = {group.column(j).path_in_schema: group.column(j).encodings for j in range(group.num_columns)}
    assert "RLE_DICTIONARY" in encodings["c"] and "RLE_DICTIONARY" not in encodings["x"]
    assert not group.column(3).is_stats_set and group.column(2).statistics.has_min_max  # "c" text, "x" a number


def test_the_writer_options_come_from_the_domain():
    """A dictionary for columns of few values (categories, whole numbers in a short range, bin labels), plain for
    numbers drawn continuously, whole numbers in a range past a dictionary page, and identifier keys; statistics
    for every column but text."""
    import pyarrow as pa

    schema = Schema((*SCHEMA.attributes, Attribute("w", "numeric", lower=0, upper=2e6, bins=8, integer=True),
                     Attribute("h", "numeric", lower=0, upper=99_999, bins=8, integer=True)))
    kinds = pa.schema([("a", pa.int64()), ("b", pa.int64()), ("x", pa.float64()),
                       ("c", pa.dictionary(pa.int32(), pa.large_string())), ("w", pa.int64()), ("h", pa.int64()),
                       ("id", pa.string())])
    assert sampling.parquet_options(schema, kinds, False) == {"use_dictionary": ["a", "b", "c", "h"],
                                                              "write_statistics": ["a", "b", "x", "w", "h"]}
    labels = kinds.set(2, pa.field("x", pa.large_string()))
    assert sampling.parquet_options(schema, labels, True) == {"use_dictionary": ["a", "b", "x", "c", "w", "h"],
                                                              "write_statistics": ["a", "b", "w", "h"]}
