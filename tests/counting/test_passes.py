"""Fewer counting passes (issue 32): shared supersets counted once and summed out, the blocked
many-table pass, the pass counter, and the engine's covered GROUPING SETS — every table still equal
to a direct count."""

import itertools
import math

import numpy as np
import pytest

from privbayes.counting import InMemoryTable, cover, memory
from privbayes.counting.cover import Levels, cells, derive, plan_bases
from privbayes.counting.families import HAVE_NUMBA, contingency_tables
from privbayes.schema import Attribute, Schema
from privbayes.schema.encoding import Encoding


def _schema() -> Schema:
    """Five attributes, two with nested taxonomies (one of them not in consecutive leaf runs)."""
    return Schema((
        Attribute("a", "categorical", categories=tuple("pqrstu"), taxonomy=(("p", "t"), ("q", "r", "s", "u"))),
        Attribute("b", "numeric", lower=0, upper=8, bins=8),
        Attribute("c", "categorical", categories=tuple("xyz")),
        Attribute("d", "numeric", lower=0, upper=4, bins=4),
        Attribute("e", "binary"),
    ))


def _direct(codes: np.ndarray, encoding: Encoding, attributes, levels) -> np.ndarray:
    """The table by np.add.at over every row: the yardstick."""
    shape = [encoding.attributes[a].level_size(l) for a, l in zip(attributes, levels)]
    out = np.zeros(shape, np.int64)
    np.add.at(out, tuple(encoding.attributes[a].levels[l][codes[:, a]] for a, l in zip(attributes, levels)), 1)
    return out


def _requests(encoding: Encoding) -> list[tuple[list[int], list[int]]]:
    """Every ordered 1-, 2- and 3-way request at every level combination, shuffled (seeded)."""
    out = []
    d = len(encoding.attributes)
    for k in (1, 2, 3):
        for attrs in itertools.permutations(range(d), k):
            for levels in itertools.product(*[range(encoding.attributes[a].height) for a in attrs]):
                out.append((list(attrs), list(levels)))
    order = np.random.default_rng(5).permutation(len(out))
    return [out[i] for i in order]


@pytest.mark.parametrize("repeats", [False, True])
def test_a_batch_of_nested_tables_equals_direct_counts_with_fewer_passes(counting_path, repeats, monkeypatch):
    """Every table of a batch (nested and overlapping sets, taxonomy levels, any axis order) equals a
    direct count, and the batch counts far fewer tables from rows than it was asked for (planning
    and the superset search forced on, as for many rows)."""
    monkeypatch.setattr(cover, "_SCAN_NS", 0.0)
    monkeypatch.setattr(memory, "_COVER_ROWS", 0)
    monkeypatch.setattr(cover, "_SUM_NS_PER_CELL", 1.0)  # sums cheap against a pass, as with millions of rows
    rng = np.random.default_rng(11)
    encoding = Encoding.build(_schema(), "hierarchical")
    sizes = [a.size for a in encoding.attributes]
    codes = np.column_stack([rng.integers(0, s, 4000) for s in sizes])
    if repeats:  # distinct rows with multiplicities (weights other than one)
        codes = codes[rng.integers(0, 300, 4000)]
    table = InMemoryTable(codes, encoding)
    requests = _requests(encoding)
    got = table.counts_many(requests)
    for (attributes, levels), counts in zip(requests, got):
        np.testing.assert_array_equal(counts, _direct(codes, encoding, attributes, levels))
        assert counts.dtype == np.int64
    distinct = len({tuple(sorted(a)) for a, _ in requests})
    assert table.stats.counted < distinct / 3
    assert table.passes >= 1 and table.stats.derived > 0


def test_the_counter_is_shared_by_reencoded_views():
    rng = np.random.default_rng(2)
    schema = _schema()
    codes = np.column_stack([rng.integers(0, a.size, 500) for a in schema.attributes])
    table = InMemoryTable(codes, Encoding.build(schema, "hierarchical"))
    binary = table.encoded(Encoding.build(schema, "binary"))
    binary.counts([0, 1])
    assert table.passes == binary.passes >= 1


def test_plan_covers_every_target_and_depends_on_the_requests_only():
    encoding = Encoding.build(_schema(), "hierarchical")
    levels = Levels(encoding)
    targets = list(dict.fromkeys(tuple(sorted(zip(a, l))) for a, l in _requests(encoding)))
    for rows in (10, 10**4, 10**7):
        plan = plan_bases(encoding, levels, targets, rows)
        assert plan == plan_bases(encoding, levels, targets, rows)
        assert sorted(m for _, members in plan for m in members) == list(range(len(targets)))
        for base, members in plan:
            assert all(levels.covers(base, targets[m]) for m in members)
    # Many rows: a pass costs more than summing small tables, so few bases serve many targets.
    assert len(plan_bases(encoding, levels, targets, 10**7)) < len(targets) / 10


def test_derive_sums_out_axes_and_regroups_levels():
    encoding = Encoding.build(_schema(), "hierarchical")
    levels = Levels(encoding)
    rng = np.random.default_rng(3)
    codes = np.column_stack([rng.integers(0, a.size, 2000) for a in encoding.attributes])
    base = ((0, 0), (1, 0), (2, 0), (3, 0))
    table = _direct(codes, encoding, [0, 1, 2, 3], [0, 0, 0, 0])
    for target in [((0, 1), (2, 0)), ((0, 1), (1, 2), (3, 1)), ((1, 1),), ((0, 0), (1, 0), (2, 0), (3, 0))]:
        expected = _direct(codes, encoding, [a for a, _ in target], [l for _, l in target])
        np.testing.assert_array_equal(derive(table, base, target, levels), expected)
    assert cells(encoding, base) == table.size


@pytest.mark.skipif(not HAVE_NUMBA, reason="no numba")
@pytest.mark.parametrize("unit", [True, False])
def test_the_blocked_pass_equals_bincount(unit):
    """Many tables from one blocked pass per thread (rows not a multiple of the block) equal bincount."""
    rng = np.random.default_rng(4)
    rows = 5000 + 17
    columns = rng.integers(0, 7, (6, rows)).astype(np.uint8)
    weights = np.ones(rows, np.int64) if unit else rng.integers(1, 5, rows)
    tables = [([0, 3], (7, 7)), ([5], (7,)), ([1, 2, 4], (7, 7, 7)), ([2, 0, 5, 1], (7, 7, 7, 7))] * 3
    got, passes = contingency_tables(columns, weights, tables)
    assert 1 <= passes <= len(tables)
    for (ids, shape), counts in zip(tables, got):
        index = np.zeros(rows, np.int64)
        for c in ids:
            index = index * 7 + columns[c]
        np.testing.assert_array_equal(counts.ravel(), np.bincount(index, weights=weights, minlength=math.prod(shape)))
        assert counts.dtype == np.int32  # the total weight is below 2³¹


@pytest.mark.parametrize("streams", [False, True])
def test_the_engine_counts_covered_sets_in_few_passes(monkeypatch, streams):
    """DuckDB counting in the engine (never in memory): every table equals numpy's; nested sets are
    summed out of counted bases, either up to 64 of them a GROUPING SETS query or, from rows streamed
    into the compiled kernels, all of a batch's bases in one pass (their cells being few here)."""
    pytest.importorskip("duckdb")
    from privbayes.counting.duckdb import DuckDBTable, duckdb_from_codes

    if streams and not HAVE_NUMBA:
        pytest.skip("streamed rows are counted by the compiled kernels")
    monkeypatch.setattr(DuckDBTable, "_streams_rows", lambda self: streams)
    rng = np.random.default_rng(6)
    schema = _schema()
    codes = np.column_stack([rng.integers(0, a.size, 3000) for a in schema.attributes])
    engine = duckdb_from_codes(codes, schema)
    engine.local = None  # count in DuckDB
    encoding = engine.encoding
    requests = _requests(encoding)
    got = engine.counts_many(requests)
    for (attributes, levels), counts in zip(requests, got):
        np.testing.assert_array_equal(counts, _direct(codes, encoding, attributes, levels))
    distinct = len({tuple(sorted(a)) for a, _ in requests})
    assert engine.stats.counted < distinct
    assert engine.passes == (1 if streams else math.ceil(engine.stats.counted / 64))


@pytest.mark.skipif(not HAVE_NUMBA, reason="streamed rows are counted by the compiled kernels")
def test_streamed_rows_count_bases_at_the_asked_levels_and_keep_them_for_later_batches(monkeypatch):
    """From streamed rows a table small at its asked levels is counted from rows at those levels, in the pass with
    the others, even when its leaf table is too large to hold densely (before, it went to GROUPING SETS at leaf
    level, a pass per 64 sets); bases stay kept, so a later batch covered by them makes no pass.  Rows stream in
    blocks smaller than the engine's batches (a block ends inside a batch).  Every table equals a direct count."""
    pytest.importorskip("duckdb")
    from privbayes.counting import engine as module
    from privbayes.counting.duckdb import DuckDBTable, duckdb_from_codes

    monkeypatch.setattr(DuckDBTable, "_streams_rows", lambda self: True)
    monkeypatch.setattr(module, "_DENSE_CELLS", 40)
    monkeypatch.setattr(module, "_BLOCK_ROWS", 1000)
    rng = np.random.default_rng(8)
    schema = _schema()
    codes = np.column_stack([rng.integers(0, a.size, 3000) for a in schema.attributes])
    engine = duckdb_from_codes(codes, schema)
    engine.local = None  # count in DuckDB
    encoding = engine.encoding
    attrs = encoding.attributes

    def size(attributes, levels):
        return math.prod(attrs[a].level_size(l) for a, l in zip(attributes, levels))

    requests = [r for r in _requests(encoding) if size(*r) <= 40]
    assert any(size(a, [0] * len(a)) > 40 for a, _ in requests)  # leaf tables beyond the dense bound
    got = engine.counts_many(requests)
    for (attributes, levels), counts in zip(requests, got):
        np.testing.assert_array_equal(counts, _direct(codes, encoding, attributes, levels))
    assert engine.passes == 1 and engine.stats.counted < len(requests)
    again = requests[::7]
    for (attributes, levels), counts in zip(again, engine.counts_many(again)):
        np.testing.assert_array_equal(counts, _direct(codes, encoding, attributes, levels))
    assert engine.passes == 1  # summed out of the kept bases


@pytest.mark.skipif(not HAVE_NUMBA, reason="no numba")
@pytest.mark.parametrize("n_tables", [1, 3])
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("n", [10_007, 301, 37])
def test_threads_that_share_the_rows_or_the_tables_add_up_to_the_exact_tables(monkeypatch, n_tables, unit, n):
    """Rows beyond the cache: when they far outnumber the cells, each thread counts a slice of the rows
    into its own copy and the copies are summed (one pass); else the threads share the tables.
    Either way equal to np.add.at over every row, also where blocks do not divide the rows evenly."""
    import numba

    from privbayes.counting import families

    monkeypatch.setattr(families, "_CACHE_BYTES", 0)  # the rows never count as cached
    monkeypatch.setattr(families, "_PARALLEL_WORK", 0)  # and any batch is worth both threads
    rng = np.random.default_rng(21)
    sizes = [7, 3, 5, 2]
    columns = np.stack([rng.integers(0, s, n) for s in sizes]).astype(np.uint8)
    weights = np.ones(n, np.int64) if unit else rng.integers(1, 9, n)
    tables = [([0, 2], (7, 5)), ([3, 1, 0], (2, 3, 7)), ([1], (3,))][:n_tables]
    got, passes = contingency_tables(columns, weights, tables)
    cells = sum(math.prod(shape) for _, shape in tables)
    assert passes == (1 if n >= 8 * cells else min(n_tables, numba.get_num_threads()))  # slices: no extra pass
    told, _ = contingency_tables(columns, weights.astype(np.int32), tables, total=int(weights.sum()))  # as callers
    for (ids, shape), table, table_told in zip(tables, got, told):
        want = np.zeros(shape, np.int64)
        np.add.at(want, tuple(columns[i].astype(np.int64) for i in ids), weights)
        np.testing.assert_array_equal(table, want)
        np.testing.assert_array_equal(table_told, want)


@pytest.mark.skipif(not HAVE_NUMBA, reason="no numba")
def test_serial_and_parallel_kernels_are_cached_apart():
    """numba's on-disk cache files a function by name and line, not by its flags: one function compiled
    both ways loaded the other's code, and the 'parallel' kernels ran on one core.  Each variant must
    have its own cache file (numba's private ``_cache_file._index_path``: if numba renames it, this test
    fails loudly rather than passing)."""
    from privbayes.counting import families

    kernels = families._kernels()
    for name in ("tables", "families", "joint"):
        serial, parallel = getattr(kernels, f"{name}_serial"), getattr(kernels, f"{name}_parallel")
        assert parallel.targetoptions.get("parallel") is True and not serial.targetoptions.get("parallel")
        assert serial._cache._cache_file._index_path != parallel._cache._cache_file._index_path
