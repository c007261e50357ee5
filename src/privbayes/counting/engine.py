"""The engine-neutral base of the counting back-ends on SQL engines (DuckDB in
:mod:`privbayes.counting.duckdb`, Spark in :mod:`privbayes.counting.spark`; docs/scale.md, "How counting scales
out").

Both follow one recipe, so results are identical to the numpy back-end's by construction:

1. the engine reads the file in place — CSV as text only (every column VARCHAR, no NA
   words; an empty field is the empty text, as in :mod:`privbayes.counting.reading`),
   Parquet in its own types;
2. each column's *distinct* values come back to Python and are labelled by
   :func:`privbayes.counting.labels.label_column` — the same per-value rule and the same
   value-free errors as in memory (a value's code depends on that value only, so
   labelling the distinct values is labelling every row) (:func:`label_distinct`);
3. the value → leaf-code maps go back into the engine and a JOIN codes every row; the
   coded rows are kept as distinct rows with multiplicities ``w``;
4. counts are ``GROUP BY`` over leaf codes packed into one integer key, many tables in
   one pass with ``GROUPING SETS``; the sparse answer is spread over the full domain
   (empty cells present) and generalised to taxonomy levels in numpy (:class:`EngineTable`).

The size cap (:func:`privbayes.core.limits.check_cells`) is checked before a query runs.
"""

from __future__ import annotations

import math
import os
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, Self

import numpy as np

from privbayes.core.errors import InputError
from privbayes.core.limits import check_cells
from privbayes.counting.base import CountingPlace, EncodedView, PrivateTable, Request, all_answered, check_request
from privbayes.counting.cover import CountingStats, Levels, Variables, cells, derive, plan_bases, summing_pays
from privbayes.counting.labels import InvalidValuesError, label_column
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding

_KEY_LIMIT = 2**62
"""Packed leaf keys must stay below this (BIGINT arithmetic)."""
_SETS_PER_QUERY = 64
"""Tables counted by one GROUPING SETS query."""
_KEEP_ENGINE_ROWS = 2**28
"""Bytes of in-memory codes above which the engine's copy of the coded rows is dropped once they are
in memory (then the table counts in memory only)."""
_DENSE_CELLS = 2**22
"""Leaf tables of at most this many cells are held densely, so that smaller ones can be summed
out of them (≈ 32 MB of int64)."""
_STREAM_CELLS = 2**25
"""Cells of the tables counted by one pass over streamed rows (int64 totals and the kernel's int32 copies, one a
thread: ≈ 512 MB on two threads)."""
_BLOCK_ROWS = 2**22
"""Streamed rows gathered for one kernel call (≈ 4 MB of codes a column and 32 MB of weights)."""
_KEPT_CELLS = 2**24
"""Cells of the bases counted from streamed rows that are kept for later batches (≈ 128 MB of int64)."""


LOCAL_MEMORY_SHARE = 1 / 8
"""Coded distinct rows (with the numpy back-end's working columns) smaller than this share of physical memory are
counted in memory by the numpy back-end (same counts, faster for GreedyBayes's many small tables);
larger ones are counted by the engine."""


class EngineTable(PrivateTable):
    """A :class:`PrivateTable` over an engine table ``rows(c0, …, c{d-1}, w)`` of distinct
    leaf-code rows and their multiplicities.  Subclasses provide :meth:`_fetch`.

    After :meth:`localise`, counting happens in memory on those distinct rows when they fit
    (reading, labelling and coding — the memory-hungry part — stayed in the engine)."""

    rows_name: str
    engine_bytes = 0
    """Memory the engine may use inside this process (DuckDB's limit; 0 for an engine in other processes)."""
    unit_weights = False
    """Whether every coded row has weight 1 (rows kept one by one, not deduplicated): streamed passes then read no
    weights."""

    def __init__(self, schema: Schema, n: int) -> None:
        self.schema, self.encoding, self._n = schema, Encoding.build(schema, "hierarchical"), n
        self.local: PrivateTable | None = None
        self.stats = CountingStats()
        self._levels = Levels(self.encoding)
        self._kept: OrderedDict[Variables, tuple[np.ndarray, frozenset[int]]] = OrderedDict()
        """Bases counted from streamed rows and their attributes, kept for later batches (least recently used
        first)."""

    def counting_place(self) -> CountingPlace:
        """Public facts for the cost estimate: the engine's memory and the size below which coded rows are counted
        in memory (:meth:`localise`)."""
        return CountingPlace(True, self.engine_bytes, int(LOCAL_MEMORY_SHARE * physical_memory()))

    @property
    def n(self) -> int:
        return self._n

    def _fetch(self, sql: str) -> Any:
        """The result of ``sql`` as a pyarrow Table."""
        raise NotImplementedError

    def localise(self, share: float | None = None) -> Self:
        """Count in memory from now on if the coded distinct rows take less than ``share``
        (default :data:`LOCAL_MEMORY_SHARE`) of physical memory.  They are streamed into one
        narrow code matrix (:func:`~privbayes.counting.memory.code_matrix`: a byte a code for
        domains up to 256 values) and their multiplicities; the engine's copy is dropped."""
        from privbayes.counting.memory import InMemoryTable, code_matrix

        share = LOCAL_MEMORY_SHARE if share is None else share
        d = len(self.schema.attributes)
        distinct = self._fetch(f"SELECT COUNT(*) AS m FROM {self.rows_name}").column("m")[0].as_py()
        if local_bytes(self.encoding, distinct) > share * physical_memory():
            return self
        matrix = code_matrix(self.encoding, distinct)
        weights = np.empty(distinct, np.int64)
        first = 0
        for batch in self._batches(f"SELECT * FROM {self.rows_name}"):  # one scan: one row order for all columns
            rows = batch.num_rows
            for j in range(d):
                matrix[j, first:first + rows] = batch.column(j).to_numpy()
            weights[first:first + rows] = batch.column(d).to_numpy()
            first += rows
        if first != distinct:  # pragma: no cover - the engine changed the table under us
            raise RuntimeError("the coded rows changed while they were read")
        local = InMemoryTable._from_matrix(matrix, weights, self.encoding)
        local.stats = self.stats  # one account for the table, wherever it counts
        self.local = local
        if matrix.nbytes > _KEEP_ENGINE_ROWS:  # large: do not hold the coded rows twice
            self._release_rows()
        return self

    def _batches(self, sql: str) -> Any:
        """The result of ``sql`` as pyarrow record batches (bounded memory)."""
        yield from self._fetch(sql).to_batches()

    def _release_rows(self) -> None:
        """Drop the engine's coded rows once they are held in memory (engines may keep them)."""

    def binary_families(self, parents: np.ndarray, children: np.ndarray) -> np.ndarray | None:
        return None if self.local is None else self.local.binary_families(parents, children)

    def counts(self, attributes: Sequence[int], levels: Sequence[int] | None = None) -> np.ndarray:
        return self.counts_many([(attributes, levels)])[0]

    def counts_many(self, requests: Sequence[Request]) -> list[np.ndarray]:
        """Every request's table from few engine passes (docs/decisions.md, "Fewer counting passes"): from streamed
        rows, tables small enough to hold densely at their own levels (:meth:`_streamed_counts`); the rest, or every
        table on an engine that does not stream, by ``GROUPING SETS`` (:meth:`_grouped_counts`)."""
        if self.local is not None:
            return self.local.counts_many(requests)
        normal = [check_request(self.encoding, attributes, levels) for attributes, levels in requests]
        answers: list[np.ndarray | None] = [None if a else np.array(self.n, dtype=np.int64) for a, _ in normal]
        if self._streams_rows():
            attrs = self.encoding.attributes
            dense = [i for i, (a, lv) in enumerate(normal)
                     if a and math.prod(attrs[x].level_size(y) for x, y in zip(a, lv)) <= _DENSE_CELLS]
            for i, table in zip(dense, self._streamed_counts([normal[i] for i in dense])):
                answers[i] = table
        rest = [i for i, (a, _) in enumerate(normal) if answers[i] is None]
        for i, table in zip(rest, self._grouped_counts([normal[i] for i in rest])):
            answers[i] = table
        return all_answered(answers)

    def _grouped_counts(self, normal: list[tuple[list[int], list[int]]]) -> list[np.ndarray]:
        """Tables of checked, non-empty requests by ``GROUPING SETS``: each distinct attribute set is counted once at
        leaf level (its level variants and orders are derived in numpy); sets whose leaf table is small enough to
        hold densely are covered by bases (:func:`~privbayes.counting.cover.plan_bases`), each counted once and
        summed out; up to 64 sets per engine pass."""
        keys = list(dict.fromkeys(tuple(sorted(a)) for a, _ in normal))
        attrs = self.encoding.attributes
        dense = [k for k in keys if math.prod(attrs[a].size for a in k) <= _DENSE_CELLS]
        levels = Levels(self.encoding)
        plan = plan_bases(self.encoding, levels, [tuple((a, 0) for a in k) for k in dense], self.n)
        queries = [tuple(a for a, _ in variables) for variables, _ in plan]
        members = {query: [dense[m] for m in chosen] for query, (_, chosen) in zip(queries, plan)}
        queries += [k for k in keys if k not in set(dense)]
        asked: dict[tuple[int, ...], list[int]] = {}
        for i, (a, _) in enumerate(normal):
            asked.setdefault(tuple(sorted(a)), []).append(i)
        answers: list[np.ndarray | None] = [None] * len(normal)

        def answer(query: tuple[int, ...], base: np.ndarray) -> None:
            """Every request covered by ``query``'s dense leaf table ``base``."""
            variables = tuple((a, 0) for a in query)
            for key in members[query]:
                own_leaf = tuple((a, 0) for a in key)
                leaf = base if own_leaf == variables else derive(base, variables, own_leaf, levels)
                self.stats.derived += int(own_leaf != variables)
                for i in asked[key]:
                    attributes, lv = normal[i]
                    own = tuple(sorted(zip(attributes, lv)))
                    out = leaf if own == own_leaf else derive(leaf, own_leaf, own, levels)
                    answers[i] = np.transpose(out, [list(key).index(a) for a in attributes])

        for first in range(0, len(queries), _SETS_PER_QUERY):
            chunk = queries[first:first + _SETS_PER_QUERY]
            start = time.perf_counter()
            sparse = self._leaf_counts(chunk)
            self.stats.passes += 1
            self.stats.counted += len(chunk)
            self.stats.seconds += time.perf_counter() - start
            for query in chunk:
                if query not in members:  # too large to hold densely at leaf level: spread per request
                    for i in asked[query]:
                        answers[i] = spread(self.encoding, query, *sparse[query], *normal[i])
                    continue
                answer(query, spread(self.encoding, query, *sparse[query], list(query), [0] * len(query)))
        return all_answered(answers)

    def _streams_rows(self) -> bool:
        """Whether dense tables are counted from the coded rows streamed into the compiled kernels (an engine
        that streams its rows in bounded batches, with numba) rather than by ``GROUPING SETS``."""
        return False

    def _streamed_counts(self, normal: list[tuple[list[int], list[int]]]) -> list[np.ndarray]:
        """Tables of checked, non-empty requests, each at most :data:`_DENSE_CELLS` cells at its own levels, from
        streamed rows (docs/decisions.md, "PrivBayes at a billion rows").

        A streamed pass costs a read of every row and, per base, an addition a row: so the bases are planned over the
        requested (attribute, level) variables, not over leaf attribute sets (GreedyBayes asks for parents at coarse
        taxonomy levels, whose leaf tables are far larger: ≈ 5× fewer row visits at 10⁹ × 20), and bases counted for
        an earlier batch are kept (up to :data:`_KEPT_CELLS`) and summed out when they cover a later request
        (GreedyBayes's next step asks again for parent sets among the attributes placed before)."""
        levels = self._levels
        asked: dict[Variables, list[int]] = {}
        for i, (attributes, lv) in enumerate(normal):
            asked.setdefault(tuple(sorted(zip(attributes, lv))), []).append(i)
        answers: list[np.ndarray | None] = [None] * len(normal)

        def answer(target: Variables, base: np.ndarray, variables: Variables) -> None:
            table = base if variables == target else derive(base, variables, target, levels)
            self.stats.derived += int(variables != target)
            for i in asked[target]:
                attributes = normal[i][0]
                order = sorted(attributes)
                answers[i] = np.transpose(table, [order.index(a) for a in attributes])

        missing = []
        for target in asked:
            kept = self._kept_cover(target)
            if kept is None:
                missing.append(target)
            else:
                self._kept.move_to_end(kept)
                answer(target, self._kept[kept][0], kept)
        plan = plan_bases(self.encoding, levels, missing, self.n, _DENSE_CELLS)
        for j, base in self._streamed_tables([variables for variables, _ in plan]):
            variables, members = plan[j]
            for m in members:
                answer(missing[m], base, variables)
            self._keep(variables, base)
        return all_answered(answers)

    def _kept_cover(self, target: Variables) -> Variables | None:
        """The smallest kept base covering ``target``, if summing the target out of it costs less than a pass."""
        wanted = {a for a, _ in target}
        best, best_size = None, 0
        for variables, (table, attributes) in self._kept.items():
            if wanted <= attributes and (best is None or table.size < best_size) \
                    and self._levels.covers(variables, target):
                best, best_size = variables, table.size
        return best if best is not None and summing_pays(best_size, cells(self.encoding, target), self.n) else None

    def _keep(self, variables: Variables, table: np.ndarray) -> None:
        """Keep a streamed base for later batches, the least recently used ones dropped beyond :data:`_KEPT_CELLS`."""
        kept = self._kept
        kept[variables] = (table, frozenset(a for a, _ in variables))
        kept.move_to_end(variables)
        while sum(t.size for t, _ in kept.values()) > _KEPT_CELLS:
            kept.popitem(last=False)

    def _streamed_tables(self, bases: list[Variables]) -> Iterator[tuple[int, np.ndarray]]:
        """(position, dense table) of each of ``bases`` (each at most :data:`_DENSE_CELLS` cells, at any levels),
        counted from the coded rows streamed batch by batch (bounded memory) into
        :func:`~privbayes.counting.families.contingency_tables`, a batch's generalised codes mapped from its leaf
        codes: one pass over the rows for up to :data:`_STREAM_CELLS` cells of tables, where ``GROUPING SETS``
        would take one per 64 tables at several times the cost a row (docs/decisions.md, "A billion rows")."""
        from privbayes.counting.families import contingency_tables

        attrs = self.encoding.attributes
        sizes = [cells(self.encoding, v) for v in bases]
        groups: list[list[int]] = [[]]
        total = 0
        for j in sorted(range(len(bases)), key=lambda j: (-sizes[j], bases[j])):
            if groups[-1] and total + sizes[j] > _STREAM_CELLS:
                groups.append([])
                total = 0
            groups[-1].append(j)
            total += sizes[j]
        for group in groups:
            if not group:
                continue
            start = time.perf_counter()
            columns = sorted({v for j in group for v in bases[j]})
            tables = [([columns.index(v) for v in bases[j]], tuple(attrs[a].level_size(lv) for a, lv in bases[j]))
                      for j in group]
            totals = [np.zeros(shape, np.int64) for _, shape in tables]
            for matrix, weights in self._code_blocks(columns):
                counted, _ = contingency_tables(matrix, weights, tables, total=int(weights.sum()))
                for table_total, table in zip(totals, counted):
                    table_total += table
            self.stats.passes += 1
            self.stats.counted += len(group)
            self.stats.seconds += time.perf_counter() - start
            yield from zip(group, totals)

    def _code_blocks(self, columns: list[tuple[int, int]]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The coded rows streamed from the engine as blocks of up to :data:`_BLOCK_ROWS` rows: a matrix with a row of
        codes per (attribute, level) of ``columns`` (generalised codes mapped from the leaf codes) and the rows'
        weights (ones, not read, when :attr:`unit_weights`).  One buffer, refilled: the engine's batches (≈ 10⁵
        rows) are gathered so that a kernel call's fixed costs (its tables zeroed and added up) are paid per block,
        not per batch."""
        from privbayes.counting.memory import code_matrix

        dtype = code_matrix(self.encoding, 0).dtype
        attrs = self.encoding.attributes
        leaves = sorted({a for a, _ in columns})
        maps = [None if lv == 0 else attrs[a].levels[lv].astype(dtype) for a, lv in columns]
        sources = [leaves.index(a) for a, _ in columns]
        matrix = np.empty((len(columns), _BLOCK_ROWS), dtype)
        unit = self.unit_weights
        weights = np.ones(_BLOCK_ROWS, np.int32) if unit else np.empty(_BLOCK_ROWS, np.int64)
        filled = 0
        select = ", ".join([f"c{a}" for a in leaves] + ([] if unit else ["w"]))
        for batch in self._batches(f"SELECT {select} FROM {self.rows_name}"):
            codes = [batch.column(i).to_numpy() for i in range(batch.num_columns)]
            first, rows = 0, batch.num_rows
            while first < rows:
                take = min(rows - first, _BLOCK_ROWS - filled)
                for row, (source, mapping) in enumerate(zip(sources, maps)):
                    part = codes[source][first:first + take]
                    if mapping is None:
                        matrix[row, filled:filled + take] = part
                    else:
                        np.take(mapping, part, out=matrix[row, filled:filled + take], mode="clip")  # codes in range
                if not unit:
                    weights[filled:filled + take] = codes[-1][first:first + take]
                filled, first = filled + take, first + take
                if filled == _BLOCK_ROWS:
                    yield matrix, weights
                    filled = 0
        if filled:
            yield matrix[:, :filled], weights[:filled]

    @property
    def passes(self) -> int:
        """Passes over the rows so far (engine queries, or in-memory passes once localised)."""
        return self.stats.passes

    def encoded(self, encoding: Encoding) -> PrivateTable:
        """This table for its own encoding; otherwise a view whose batches stay batched."""
        if encoding.schema != self.schema:
            raise ValueError("the encoding must be of the table's schema")
        if self.local is not None:
            return self.local.encoded(encoding)
        return self if encoding == self.encoding else BatchedEncodedView(self, encoding)

    def _leaf_counts(self, keys: list[tuple[int, ...]]) -> dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]:
        """Sparse leaf tables (packed key, count) of each attribute set, in one query."""
        packed = [pack_sql(self.encoding, key) for key in keys]
        inner = ", ".join(f"{expr} AS k{i}" for i, expr in enumerate(packed))
        outer = ", ".join(f"k{i}" for i in range(len(keys)))
        sets = ", ".join(f"(k{i})" for i in range(len(keys)))
        result = self._fetch(f"SELECT {outer}, CAST(SUM(w) AS BIGINT) AS cnt FROM "
                             f"(SELECT {inner}, w FROM {self.rows_name}) AS t GROUP BY GROUPING SETS ({sets})")
        counts = result.column("cnt").to_numpy()
        out = {}
        for i, key in enumerate(keys):
            column = result.column(f"k{i}")
            mine = column.is_valid().to_numpy(zero_copy_only=False)  # a set's rows have its key, NULL elsewhere
            out[key] = (column.fill_null(0).to_numpy()[mine].astype(np.int64), counts[mine])
        return out


class BatchedEncodedView(EncodedView):
    """:class:`EncodedView` whose ``counts_many`` asks the engine for every leaf table in one batch."""

    def counts_many(self, requests: Sequence[Request]) -> list[np.ndarray]:
        variables = self.encoding.attributes
        keys = [tuple(sorted({variables[v].source for v in attributes})) for attributes, _ in requests]
        unique = list(dict.fromkeys(k for k in keys if k))
        for key in unique:
            check_cells([self.schema.attributes[s].size for s in key], "the leaf table behind an encoded table")
        base = self.base
        self.base = _Prefetched(base, dict(zip(unique, base.counts_many([(list(k), None) for k in unique]))))
        try:
            return [self.counts(attributes, levels) for attributes, levels in requests]
        finally:
            self.base = base


class _Prefetched(PrivateTable):
    """Leaf tables of ``base`` already counted, served to :meth:`EncodedView.counts`."""

    def __init__(self, base: PrivateTable, tables: dict[tuple[int, ...], np.ndarray]) -> None:
        self.schema, self.encoding, self._n, self._tables = base.schema, base.encoding, base.n, tables

    @property
    def n(self) -> int:
        return self._n

    def counts(self, attributes: Sequence[int], levels: Sequence[int] | None = None) -> np.ndarray:
        return self._tables[tuple(attributes)]


def local_bytes(encoding: Encoding, rows: int) -> int:
    """Bytes that ``rows`` distinct coded rows take once counted in memory (:meth:`EngineTable.localise`): a code
    and a generalised code a column, at the code matrix's width, and an 8-byte weight and index."""
    from privbayes.counting.memory import code_matrix

    width = np.dtype(code_matrix(encoding, 0).dtype).itemsize
    return rows * (2 * width * len(encoding.schema.attributes) + 16)


def physical_memory() -> int:
    """Bytes of physical memory (a large default where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - systems without sysconf
        return 2**34


def pack_sql(encoding: Encoding, key: tuple[int, ...]) -> str:
    """SQL of the row-major index of the leaf cell of ``key``'s attributes (first most significant)."""
    sizes = [encoding.attributes[a].size for a in key]
    if math.prod(sizes) >= _KEY_LIMIT:
        raise InputError(f"a counted table over attributes {list(key)} has too many leaf cells for an engine key")
    expr = f"CAST(c{key[0]} AS BIGINT)"
    for a, size in zip(key[1:], sizes[1:]):
        expr = f"({expr} * {size} + c{a})"
    return expr


def spread(encoding: Encoding, key: tuple[int, ...], index: np.ndarray, count: np.ndarray,
           attributes: list[int], levels: list[int]) -> np.ndarray:
    """The dense table over ``attributes`` at ``levels`` from sparse leaf counts over ``key``.

    Weights are summed in float64: exact, every partial sum is at most n < 2^53."""
    attrs = encoding.attributes
    leaves = np.unravel_index(index, [attrs[a].size for a in key]) if len(index) else [index] * len(key)
    shape = tuple(attrs[a].level_size(l) for a, l in zip(attributes, levels))
    flat = np.zeros(len(index), np.int64)
    for a, l, size in zip(attributes, levels, shape):
        flat = flat * size + attrs[a].levels[l][leaves[key.index(a)]]
    return np.bincount(flat, weights=count, minlength=math.prod(shape)).astype(np.int64).reshape(shape)


def check_columns(columns: list[str], schema: Schema, where: str) -> None:
    """The column checks of :func:`privbayes.counting.reading.raw_columns` (duplicates, absent
    columns, a note on columns left out), run on the names alone."""
    from privbayes.counting.reading import check_names

    check_names(list(columns), [c for c in columns if c not in schema.names], schema, where)


def distinct_values(column: Any) -> tuple[np.ndarray, bool]:
    """A column of distinct engine values (pyarrow) as labelling sees it, and whether it has a null:
    the conversion of :mod:`privbayes.counting.reading` for Parquet (numbers stay exact numbers,
    other types become text)."""
    import pyarrow as pa

    from privbayes.counting.reading import is_binary, is_text

    has_null = column.null_count > 0
    column = column.drop_null()
    kind = column.type
    if pa.types.is_dictionary(kind):
        column, kind = column.cast(kind.value_type), kind.value_type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        values = np.array(column.to_pylist(), dtype=object) if has_null else column.to_numpy()
    elif is_text(kind) or is_binary(kind):  # binary: bytes, read as UTF-8 by labelling
        values = np.array(column.to_pylist(), dtype=object)
    else:
        values = np.array(column.cast(pa.string()).to_pylist(), dtype=object)
    return values, has_null


def label_distinct(schema: Schema, attribute: int, column: Any, where: str, *,
                   null_is_malformed: bool = False) -> tuple[Any, np.ndarray]:
    """Leaf codes of an engine column's distinct values, via :func:`label_column`.

    Returns the distinct values (nulls last, as one null) and their codes.  A null is a missing
    value, or a malformed row of a text table (``null_is_malformed``: every field of a
    well-formed row is text).  When the schema refuses the column, raises :class:`Refused` with
    the offending values, so that the caller re-raises the same error with row numbers from the
    engine."""
    import pyarrow as pa

    from privbayes.counting.reading import MALFORMED

    attr = schema.attributes[attribute]
    values, has_null = distinct_values(column)
    positions = np.arange(len(values) + has_null, dtype=np.int64)
    positions[len(values):] = MALFORMED if null_is_malformed else -1
    keys = pa.concat_arrays([column.drop_null().combine_chunks()] + ([pa.nulls(1, column.type)] if has_null else []))
    name = f"{where}: column {attr.name!r}"
    try:
        return keys, label_column(attr, positions, values, name)
    except InvalidValuesError as error:
        message = str(error)
    bad = []
    for i, position in enumerate(positions):  # error path only: which values fail the same way
        try:
            label_column(attr, np.array([position if position < 0 else 0]), values[i:i + 1], name)
        except InvalidValuesError as each:
            if str(each) == message:
                bad.append(i)
    bad = pa.array(bad, pa.int64())
    raise Refused(message, keys.take(bad), bad)


class Refused(Exception):
    """A column the schema refuses, and its offending distinct values and their positions among
    the column's distinct values (for row numbers)."""

    def __init__(self, message: str, values: Any, indices: Any) -> None:
        super().__init__(message)
        self.values, self.indices = values, indices


def code_type(size: int) -> Any:
    import pyarrow as pa

    return pa.int16() if size < 2**15 else pa.int32()


def unique_prefix() -> str:
    """A fresh prefix for one table's engine objects (several tables may share a connection)."""
    import uuid

    return f"privbayes_{uuid.uuid4().hex[:16]}"


def parquet_schema(path: str, schema: Schema, where: str) -> Any:
    """The Arrow schema of a Parquet file, after refusing column types no attribute reads."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privbayes.counting.reading import check_parquet_types

    try:
        arrow_schema = pq.read_schema(path)
    except (pa.ArrowException, OSError):
        raise InputError(f"{where}: not a readable Parquet file") from None
    check_parquet_types(arrow_schema, schema.names, where)
    return arrow_schema
