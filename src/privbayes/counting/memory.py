"""In-memory counting back-end on integer codes (numpy)."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from privbayes.core.errors import InputError
from privbayes.counting.base import PrivateTable, Request, all_answered, check_request
from privbayes.counting.cover import CountingStats, Levels, Variables, cells, derive, plan_bases
from privbayes.counting.families import HAVE_NUMBA, binary_family_counts, contingency_tables, kernels_loaded
from privbayes.schema.codes import distinct_rows
from privbayes.schema.encoding import Encoding

_CACHE_CELLS = 2**23
"""Cells of exact leaf-level tables kept for reuse (≈ 64 MB of int64)."""
_NUMPY_VISITS = 2 * 10**7
"""Row × column visits that a table counts with numpy's bincount before it imports numba and
loads its kernels (≈ 0.6 s): small fits never pay that, and a large one wastes at most about
as long on numpy as the load takes (the ski-rental rule)."""
_CALL_CELLS = 2**24
"""Cells of the tables counted by one kernel call (≈ 128 MB of int64)."""
_COVER_SCAN = 256
"""Most recent cached leaf tables searched for a superset of a requested table."""
_COVER_ROWS = 2**17
"""Distinct rows from which a pass costs more than planning bases and searching the cache for a
superset (below, each table is counted on its own and only exact keys are looked up)."""


class InMemoryTable(PrivateTable):
    """Encoded rows held as distinct rows with multiplicities; counts by (weighted) bincount
    or, with numba, many tables per compiled pass.

    Tables over the same attributes at other generalisation levels are derived from
    one cached leaf-level table (GreedyBayes asks for many such variants, Alg. 6), and a
    batch's tables from few counted supersets (:mod:`privbayes.counting.cover`); ``stats``
    (also ``passes``) says how many passes over the rows the counting made.
    Built by :func:`privbayes.counting.open`; ``encoded`` re-encodes the rows themselves.
    """

    def __init__(self, encoded: np.ndarray, encoding: Encoding, *, allow_empty: bool = False) -> None:
        if encoded.ndim != 2 or encoded.shape[1] != len(encoding.attributes):
            raise ValueError(f"encoded rows have shape {encoded.shape}, expected (n, {len(encoding.attributes)})")
        if encoded.shape[0] == 0:
            if not allow_empty:
                raise InputError("the data has no rows")
            self._setup(encoded.astype(np.intp), np.zeros(0, np.int64), encoding)
            return
        # Distinct rows with multiplicities: every count is a weighted bincount over far fewer
        # rows when the data repeat (NLTCS: 21,574 rows, 3,152 distinct).
        rows, group = distinct_rows(encoded, np.array([a.size for a in encoding.attributes]))
        multiplicity = np.bincount(group, minlength=len(rows))
        self._setup(rows, multiplicity, encoding)

    @classmethod
    def _from_distinct(cls, rows: np.ndarray, multiplicity: np.ndarray, encoding: Encoding) -> InMemoryTable:
        table = cls.__new__(cls)
        table._setup(rows, multiplicity, encoding)
        return table

    @classmethod
    def _from_matrix(cls, matrix: np.ndarray, multiplicity: np.ndarray, encoding: Encoding) -> InMemoryTable:
        """A table over distinct rows given as :func:`code_matrix`'s matrix, its first d rows filled
        with the leaf codes (one row per attribute): the rows are that matrix's view, not a copy."""
        table = cls.__new__(cls)
        d = len(encoding.attributes)
        table._setup(matrix[:d].T, multiplicity, encoding)
        table._matrix = matrix
        table._matrix_rows = {(a, 0): a for a in range(d)}
        return table

    def _setup(self, rows: np.ndarray, multiplicity: np.ndarray, encoding: Encoding) -> None:
        self.schema, self.encoding = encoding.schema, encoding
        self._rows, self._multiplicity = rows, multiplicity
        self._n = int(multiplicity.sum())
        self._float_weights: np.ndarray | None = None
        self._kernel_weights: np.ndarray | None = None
        self._generalised: dict[tuple[int, int], np.ndarray] = {}
        self._levels = Levels(encoding)
        self._matrix: np.ndarray | None = None  # narrow codes of counted variables, one row each
        self._matrix_rows: dict[tuple[int, int], int] = {}
        self.stats = CountingStats()
        self._leaf_tables: OrderedDict[tuple[int, ...], np.ndarray] = OrderedDict()
        self._cached_cells = 0
        self._binary_columns: np.ndarray | None = None
        self._numpy_visits = 0

    @property
    def n(self) -> int:
        return self._n

    def encoded(self, encoding: Encoding) -> InMemoryTable:
        """The same rows re-encoded (distinct rows stay distinct: encodings are injective)."""
        if encoding.schema != self.schema:
            raise ValueError("the encoding must be of the table's schema")
        if encoding == self.encoding:
            return self
        leaves = self.encoding.decode(self._rows)
        table = InMemoryTable._from_distinct(encoding.encode(leaves), self._multiplicity, encoding)
        table.stats = self.stats  # one account per table of rows, whatever its encoding
        return table

    @property
    def passes(self) -> int:
        """Passes over the rows so far (see :class:`~privbayes.counting.cover.CountingStats`)."""
        return self.stats.passes

    def binary_families(self, parents: np.ndarray, children: np.ndarray) -> np.ndarray | None:
        """Exact tables of every (child, parent set) pair at level 0, ``out[p, c, x, π]``,
        when every encoded attribute is binary and numba is available (and worth loading:
        see ``_NUMPY_VISITS``); else None, and the caller counts the tables one by one."""
        visits = len(parents) * (np.shape(parents)[-1] + len(children)) * len(self._multiplicity)
        if not self.encoding.is_binary or self._numpy_pays(visits):
            return None
        if self._binary_columns is None:
            self._binary_columns = np.ascontiguousarray(self._rows.T, dtype=np.uint8)
        weights = self._multiplicity.astype(np.int64)
        start = time.perf_counter()
        out = binary_family_counts(self._binary_columns, weights, parents, children)
        self.stats.passes += len(parents)  # one pass per parent set, serving every child
        self.stats.counted += len(parents) * len(children)
        self.stats.seconds += time.perf_counter() - start
        return out

    def _column(self, attribute: int, level: int) -> np.ndarray:
        key = (attribute, level)
        if key not in self._generalised:
            mapping = self.encoding.attributes[attribute].levels[level]
            self._generalised[key] = mapping[self._rows[:, attribute]].astype(np.int32)
        return self._generalised[key]

    def _bincount(self, attributes: Sequence[int], levels: Sequence[int]) -> np.ndarray:
        shape = tuple(self.encoding.attributes[a].level_size(l) for a, l in zip(attributes, levels))
        cells = math.prod(shape)
        index: np.ndarray = self._column(attributes[0], levels[0]).astype(np.int32 if cells < 2**31 else np.int64)
        for a, l, size in zip(attributes[1:], levels[1:], shape[1:]):
            index *= size
            index += self._column(a, l)
        if len(self._multiplicity) == self._n:  # every row distinct: unit weights
            return np.bincount(index, minlength=cells).reshape(shape)
        if self._float_weights is None:
            self._float_weights = self._multiplicity.astype(np.float64)
        return np.bincount(index, weights=self._float_weights, minlength=cells).astype(np.int64).reshape(shape)

    def counts(self, attributes: Sequence[int], levels: Sequence[int] | None = None) -> np.ndarray:
        return self.counts_many([(attributes, levels)])[0]

    def counts_many(self, requests: Sequence[Request]) -> list[np.ndarray]:
        """:meth:`counts` of many (attributes, levels) requests with as few passes over the rows as
        the batch allows (docs/decisions.md, "Fewer counting passes"): each request's table is summed out of a counted
        superset — a cached leaf table, or a base of :func:`~privbayes.counting.cover.plan_bases` counted now —
        and the bases of a batch are counted together (with numba, one blocked pass per thread)."""
        normal = [check_request(self.encoding, attributes, levels) for attributes, levels in requests]
        # What each request is summed out of: its leaf table when that may be cached (its other
        # level variants follow from it), else the table at its own levels.
        targets: list[Variables | None] = []
        for attributes, levels in normal:
            if not attributes:
                targets.append(None)
            elif self._cacheable(tuple(sorted(attributes))):
                targets.append(tuple((a, 0) for a in sorted(attributes)))
            else:
                targets.append(tuple(sorted(zip(attributes, levels))))
        asked: dict[Variables, list[int]] = {}
        for i, target in enumerate(targets):
            if target is not None:
                asked.setdefault(target, []).append(i)
        answers: list[np.ndarray | None] = [np.array(self.n, dtype=np.int64) if t is None else None for t in targets]

        def answer(target: Variables, table: np.ndarray, variables: Variables) -> np.ndarray:
            """Answer the requests of ``target`` from a table over ``variables`` covering it."""
            if variables != target:
                table = derive(table, variables, target, self._levels)
                self.stats.derived += 1
            for i in asked[target]:  # the same attributes as the target, possibly coarser
                attributes, levels = normal[i]
                own = tuple(sorted(zip(attributes, levels)))
                out = table if own == target else derive(table, target, own, self._levels)
                order = sorted(attributes)
                answers[i] = np.transpose(out, [order.index(a) for a in attributes]).astype(np.int64, copy=False)
            return table

        missing = []
        for target in asked:
            found = self._cached_cover(target)
            if found is None:
                missing.append(target)
            else:
                answer(target, *found)
        # Bases are counted a call's worth at a time and dropped once their tables are summed out
        # (the cached ones stay, within the cache's bound), so memory is bounded per call.
        if len(self._multiplicity) >= _COVER_ROWS:
            bases = plan_bases(self.encoding, self._levels, missing, len(self._multiplicity))
        else:  # few rows: a pass per table costs less than planning (BR2000's 25 k small tables)
            bases = [(target, [m]) for m, target in enumerate(missing)]
        for chunk in self._chunks([b for b, _ in bases]):
            for (variables, members), table in zip([bases[j] for j in chunk], self._count_batch(
                    [([a for a, _ in bases[j][0]], [l for _, l in bases[j][0]]) for j in chunk])):
                if all(l == 0 for _, l in variables) and self._cacheable(tuple(a for a, _ in variables)):
                    self._remember(tuple(a for a, _ in variables), table)
                # Largest first, each target summed out of the smallest table at hand that covers it.
                at_hand: list[tuple[int, Variables, np.ndarray]] = [(table.size, variables, table)]
                for m in sorted(members, key=lambda m: -cells(self.encoding, missing[m])):
                    size, source, origin = min((c for c in at_hand if self._levels.covers(c[1], missing[m])),
                                               key=lambda c: c[0])
                    derived = answer(missing[m], origin, source)
                    at_hand.append((derived.size, missing[m], derived))
        return all_answered(answers)

    def _cached_cover(self, target: Variables) -> tuple[np.ndarray, Variables] | None:
        """A cached leaf table over the target's attributes or, among the :data:`_COVER_SCAN` most
        recent ones, over a superset of them."""
        key = tuple(a for a, _ in target)
        table = self._leaf_tables.get(key)
        if table is None and len(self._multiplicity) >= _COVER_ROWS:  # the smallest recent superset
            wanted = set(key)
            for i, other in enumerate(reversed(self._leaf_tables)):
                if i == _COVER_SCAN:
                    break
                if wanted.issubset(other) and (table is None or self._leaf_tables[other].size < table.size):
                    key, table = other, self._leaf_tables[other]
        if table is None:
            return None
        self._leaf_tables.move_to_end(key)
        return table, tuple((a, 0) for a in key)

    def _chunks(self, bases: list[Variables]) -> list[range]:
        """Consecutive runs of ``bases`` of at most :data:`_CALL_CELLS` cells (one base at least)."""
        runs, first, total = [], 0, 0
        for j, base in enumerate(bases):
            size = cells(self.encoding, base)
            if j > first and total + size > _CALL_CELLS:
                runs.append(range(first, j))
                first, total = j, 0
            total += size
        if first < len(bases):
            runs.append(range(first, len(bases)))
        return runs

    def _cacheable(self, key: tuple[int, ...]) -> bool:
        return math.prod(self.encoding.attributes[a].size for a in key) <= min(_CACHE_CELLS // 8, self.n // 2)

    def _remember(self, key: tuple[int, ...], table: np.ndarray) -> np.ndarray:
        self._leaf_tables[key] = table
        self._cached_cells += table.size
        while self._cached_cells > _CACHE_CELLS:
            _, old = self._leaf_tables.popitem(last=False)
            self._cached_cells -= old.size
        return table

    def _numpy_pays(self, visits: int) -> bool:
        """Count this work with numpy: numba is absent, or not loaded yet and this table's numpy
        work stays within ``_NUMPY_VISITS``."""
        return not HAVE_NUMBA or (not kernels_loaded() and self._numpy_visits + visits < _NUMPY_VISITS)

    def _count_batch(self, specs: list[tuple[list[int], list[int]]]) -> list[np.ndarray]:
        """Tables of ``specs`` counted from the rows: numpy's bincount (one pass each) while numba's
        load does not pay, else one blocked kernel call (one pass per thread)."""
        if not specs:
            return []
        start = time.perf_counter()
        visits = sum(len(attributes) for attributes, _ in specs) * len(self._multiplicity)
        if self._numpy_pays(visits):
            self._numpy_visits += visits
            out = [self._bincount(attributes, levels) for attributes, levels in specs]
            passes = len(specs)
        else:
            rows = [self._matrix_row(a, l) for attributes, levels in specs for a, l in zip(attributes, levels)]
            tables, first = [], 0
            for attributes, levels in specs:
                tables.append((rows[first:first + len(attributes)],
                               tuple(self.encoding.attributes[a].level_size(l) for a, l in zip(attributes, levels))))
                first += len(attributes)
            if self._kernel_weights is None:  # the cells' type: no conversion per call (10⁸ rows: 0.4 GB each)
                self._kernel_weights = self._multiplicity.astype(np.int32 if self._n < 2**31 else np.int64)
            out, passes = contingency_tables(self._code_matrix(), self._kernel_weights, tables, total=self._n)
        self.stats.passes += passes
        self.stats.counted += len(specs)
        self.stats.seconds += time.perf_counter() - start
        return out

    def _matrix_row(self, attribute: int, level: int) -> int:
        """Row of (attribute, level)'s codes in the narrow code matrix the kernels read: every leaf
        column, then generalised ones written on first use (the matrix has a row for every level
        from the start, untouched — so not resident — until used)."""
        matrix = self._code_matrix()
        key = (attribute, level)
        if key not in self._matrix_rows:
            row = len(self._matrix_rows)
            matrix[row] = self.encoding.attributes[attribute].levels[level][matrix[attribute]]
            self._matrix_rows[key] = row
        return self._matrix_rows[key]

    def _code_matrix(self) -> np.ndarray:
        """The narrow code matrix, its leaf rows filled on first use."""
        if self._matrix is None:
            self._matrix = code_matrix(self.encoding, len(self._multiplicity))
            d = len(self.encoding.attributes)
            self._matrix[:d] = self._rows.T
            self._matrix_rows = {(a, 0): a for a in range(d)}
        return self._matrix


def code_matrix(encoding: Encoding, rows: int) -> np.ndarray:
    """An unfilled matrix of codes, one row per (attribute, level) of ``encoding`` and one column per
    distinct row, of the narrowest type that holds every code (uint8 up to 256 values)."""
    largest = max(a.size for a in encoding.attributes)
    dtype = np.uint8 if largest <= 2**8 else np.uint16 if largest <= 2**16 else np.int32
    return np.empty((sum(a.height for a in encoding.attributes), rows), dtype)
