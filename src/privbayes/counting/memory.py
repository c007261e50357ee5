"""In-memory counting back-end on integer codes (numpy)."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from privbayes.codes import distinct_rows
from privbayes.counting.base import PrivateTable, Request, check_request
from privbayes.counting.families import HAVE_NUMBA, binary_family_counts, contingency_tables, kernels_loaded
from privbayes.encoding import Encoding
from privbayes.errors import InputError

_CACHE_CELLS = 2**23
"""Cells of exact leaf-level tables kept for reuse (≈ 64 MB of int64)."""
_NUMPY_VISITS = 2 * 10**7
"""Row × column visits that a table counts with numpy's bincount before it imports numba and
loads its kernels (≈ 0.6 s): small fits never pay that, and a large one wastes at most about
as long on numpy as the load takes (the ski-rental rule)."""


class InMemoryTable(PrivateTable):
    """Encoded rows held as distinct rows with multiplicities; counts by (weighted) bincount
    or, with numba, many tables per compiled pass.

    Tables over the same attributes at other generalisation levels are derived from
    one cached leaf-level table (GreedyBayes asks for many such variants, Alg. 6).
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

    def _setup(self, rows: np.ndarray, multiplicity: np.ndarray, encoding: Encoding) -> None:
        self.schema, self.encoding = encoding.schema, encoding
        self._rows, self._multiplicity = rows, multiplicity
        self._n = int(multiplicity.sum())
        self._weights = multiplicity.astype(np.float64) if len(multiplicity) < self._n else None
        self._generalised: dict[tuple[int, int], np.ndarray] = {}
        self._generalisers: dict[tuple[int, int], np.ndarray] = {}
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
        return InMemoryTable._from_distinct(encoding.encode(leaves), self._multiplicity, encoding)

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
        return binary_family_counts(self._binary_columns, weights, parents, children)

    def _column(self, attribute: int, level: int) -> np.ndarray:
        key = (attribute, level)
        if key not in self._generalised:
            mapping = self.encoding.attributes[attribute].levels[level]
            self._generalised[key] = mapping[self._rows[:, attribute]].astype(np.int32)
        return self._generalised[key]

    def _generaliser(self, attribute: int, level: int) -> np.ndarray:
        key = (attribute, level)
        if key not in self._generalisers:
            attr = self.encoding.attributes[attribute]
            self._generalisers[key] = _generaliser(attr.levels[level], attr.level_size(level))
        return self._generalisers[key]

    def _bincount(self, attributes: Sequence[int], levels: Sequence[int]) -> np.ndarray:
        shape = tuple(self.encoding.attributes[a].level_size(l) for a, l in zip(attributes, levels))
        cells = math.prod(shape)
        index = self._column(attributes[0], levels[0]).astype(np.int32 if cells < 2**31 else np.int64)
        for a, l, size in zip(attributes[1:], levels[1:], shape[1:]):
            index *= size  # type: ignore[misc]
            index += self._column(a, l)  # type: ignore[misc]
        if self._weights is None:
            return np.bincount(index, minlength=cells).reshape(shape)
        return np.bincount(index, weights=self._weights, minlength=cells).astype(np.int64).reshape(shape)

    def counts(self, attributes: Sequence[int], levels: Sequence[int] | None = None) -> np.ndarray:
        return self.counts_many([(attributes, levels)])[0]

    def counts_many(self, requests: Sequence[Request]) -> list[np.ndarray]:
        """:meth:`counts` of many (attributes, levels) requests; with numba the tables not
        derivable from cached ones are counted together in one parallel pass."""
        normal = [check_request(self.encoding, attributes, levels) for attributes, levels in requests]
        leaves: dict[tuple[int, ...], np.ndarray | None] = {}
        direct: list[int] = []
        for i, (attributes, _levels) in enumerate(normal):
            if attributes:
                key = tuple(sorted(attributes))
                if key not in leaves:
                    leaves[key] = self._leaf_tables.get(key)
                    if leaves[key] is not None:
                        self._leaf_tables.move_to_end(key)
                if leaves[key] is None and not self._cacheable(key):
                    direct.append(i)
        todo = [key for key, table in leaves.items() if table is None and self._cacheable(key)]
        specs = [(list(key), [0] * len(key)) for key in todo] + [normal[i] for i in direct]
        computed = self._count_batch(specs)
        for key, table in zip(todo, computed):
            leaves[key] = self._remember(key, table)
        answers: list[np.ndarray] = []
        direct_tables = dict(zip(direct, computed[len(todo):]))
        for i, (attributes, levels) in enumerate(normal):
            if not attributes:
                answers.append(np.array(self.n, dtype=np.int64))
            elif i in direct_tables:
                answers.append(direct_tables[i])
            else:
                answers.append(self._from_leaf(leaves[tuple(sorted(attributes))], attributes, levels))  # type: ignore[arg-type]
        return answers


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
        if not specs:
            return []
        visits = sum(len(attributes) for attributes, _ in specs) * len(self._multiplicity)
        if self._numpy_pays(visits):
            self._numpy_visits += visits
            return [self._bincount(attributes, levels) for attributes, levels in specs]
        variants = sorted({(a, l) for attributes, levels in specs for a, l in zip(attributes, levels)})
        row_of = {variant: i for i, variant in enumerate(variants)}
        columns = np.stack([self._column(a, l) for a, l in variants])
        weights = self._multiplicity.astype(np.int64)
        tables = [([row_of[v] for v in zip(attributes, levels)],
                   tuple(self.encoding.attributes[a].level_size(l) for a, l in zip(attributes, levels)))
                  for attributes, levels in specs]
        return contingency_tables(columns, weights, tables)

    def _from_leaf(self, leaf: np.ndarray, attributes: list[int], levels: list[int]) -> np.ndarray:
        """The table over ``attributes`` at ``levels`` from the leaf table over the sorted attributes."""
        order = sorted(range(len(attributes)), key=lambda i: attributes[i])
        attrs = self.encoding.attributes
        # Sums are exact in any order: the axis that shrinks most goes first, so each later pass
        # reads a smaller table (GreedyBayes derives tens of thousands of these per fit, Alg. 6).
        shrink = sorted((axis for axis, i in enumerate(order) if levels[i]),
                        key=lambda axis: -attrs[attributes[order[axis]]].size
                        / attrs[attributes[order[axis]]].level_size(levels[order[axis]]))
        table = leaf
        for axis in shrink:
            i = order[axis]
            table = _generalise_axis(table, axis, self._generaliser(attributes[i], levels[i]))
        return np.transpose(table, np.argsort(order))


def _generaliser(mapping: np.ndarray, size: int) -> np.ndarray:
    """How to sum leaf cells into nodes: reduceat starts when nodes hold consecutive leaves,
    else a one-hot matrix (leaves × nodes)."""
    if np.all(np.diff(mapping) >= 0):
        return np.flatnonzero(np.r_[True, np.diff(mapping) > 0])
    onehot = np.zeros((len(mapping), size), dtype=np.int64)
    onehot[np.arange(len(mapping)), mapping] = 1
    return onehot


def _generalise_axis(table: np.ndarray, axis: int, how: np.ndarray) -> np.ndarray:
    """Sum the cells of ``axis`` into taxonomy nodes."""
    if how.ndim == 1:
        return np.add.reduceat(table, how, axis=axis)
    return np.moveaxis(np.moveaxis(table, axis, -1) @ how, -1, axis)
