"""Fewer passes over the rows: count shared supersets once and marginalise (docs/decisions.md, "Fewer counting passes").

A batch of requested tables often nests: GreedyBayes asks, in one step, for (X, Π) tables whose
attribute sets are subsets of one another or differ in one attribute (TODS 2017, Alg. 4: the
candidates of one step share parents), and each table over a set of variables is the sum of any
table over a superset of them, at the same or finer taxonomy levels.  Counting a table costs a
pass over every row; deriving it from a counted superset costs a pass over that superset's cells.
So a batch is covered by *bases*: tables over unions of the requested variables that stay within
a cell limit below the number of rows, each counted once; every requested table is then summed
out of its base, exactly (integer sums).

A *variable set* is a tuple of (attribute, level) pairs sorted by attribute, one per attribute;
level 0 is the leaf, higher levels coarser (taxonomy levels are nested: every node of a coarser
level is a union of nodes of each finer one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privbayes.schema.encoding import Encoding

Variables = tuple[tuple[int, int], ...]
"""(attribute, level) pairs sorted by attribute."""


@dataclass
class CountingStats:
    """What a table's counting cost so far: ``passes`` over the rows (a pass reads every row once;
    an engine query scanning the rows is one), ``counted`` tables added up from rows, ``derived``
    tables summed out of a counted superset (no pass), ``seconds`` spent in passes.  Shared by the
    views of one table (its other encodings), so a fit's total is read from the table it was given."""

    passes: int = 0
    counted: int = 0
    derived: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, float]:
        return {"passes": self.passes, "tables_counted": self.counted, "tables_derived": self.derived,
                "pass_seconds": round(self.seconds, 3)}


def cells(encoding: Encoding, variables: Variables) -> int:
    attrs = encoding.attributes
    return math.prod(attrs[a].level_size(l) for a, l in variables)


class Levels:
    """How codes of one attribute at a finer level map to a coarser one, for an encoding."""

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        self._maps: dict[tuple[int, int, int], np.ndarray | None] = {}
        self._summers: dict[tuple[int, int, int], np.ndarray] = {}

    def regroup(self, attribute: int, fine: int, coarse: int) -> np.ndarray | None:
        """Code at level ``coarse`` of each code at level ``fine`` (None: the levels do not nest)."""
        key = (attribute, fine, coarse)
        if key not in self._maps:
            levels = self.encoding.attributes[attribute].levels
            size = self.encoding.attributes[attribute].level_size(fine)
            mapping = np.full(size, -1, np.int64)
            mapping[levels[fine]] = levels[coarse]
            nested = bool(np.all(mapping[levels[fine]] == levels[coarse])) and bool(np.all(mapping >= 0))
            self._maps[key] = mapping if nested else None
        return self._maps[key]

    def covers(self, base: Variables, target: Variables) -> bool:
        """Whether ``target``'s table is a sum of ``base``'s."""
        have = dict(base)
        for a, l in target:
            fine = have.get(a)
            if fine is None or fine > l or (fine < l and self.regroup(a, fine, l) is None):
                return False
        return True

    def union(self, base: Variables, target: Variables) -> Variables | None:
        """The smallest variable set covering both (each attribute at the finer level), or None."""
        merged = dict(base)
        for a, l in target:
            if a in merged and merged[a] != l:
                fine, coarse = min(merged[a], l), max(merged[a], l)
                if self.regroup(a, fine, coarse) is None:
                    return None
                merged[a] = fine
            else:
                merged[a] = l
        return tuple(sorted(merged.items()))

    def summer(self, attribute: int, fine: int, coarse: int) -> np.ndarray:
        """How to sum an axis at level ``fine`` into level ``coarse``: reduceat starts when the coarse
        nodes hold consecutive fine codes, else a one-hot matrix (fine × coarse codes)."""
        key = (attribute, fine, coarse)
        if key not in self._summers:
            mapping = self.regroup(attribute, fine, coarse)
            assert mapping is not None
            size = self.encoding.attributes[attribute].level_size(coarse)
            if np.all(np.diff(mapping) >= 0):
                self._summers[key] = np.flatnonzero(np.r_[True, np.diff(mapping) > 0])
            else:
                onehot = np.zeros((len(mapping), size), dtype=np.int64)
                onehot[np.arange(len(mapping)), mapping] = 1
                self._summers[key] = onehot
        return self._summers[key]


_COST_POINTS = ((12, 4.5), (13, 7.0), (16, 10.0), (17, 13.0), (20, 28.0), (21, 34.0))
"""(log2 cells, ns per row) of counting one table by the blocked kernel on this project's 2-core
machine (uniform codes, 3.7·10⁶ rows, one thread): adding into a table costs more once it
outgrows the caches.  Only ratios matter to the plan."""
_SUM_NS_PER_CELL = 12.0
"""ns per cell of summing a table out of a counted base, level regroupings included (numpy's sum
over some axes plus reduceat: ≈ 4-12 ns a cell measured on the 4.5·10⁶ independent-columns fit;
the higher figure made fewer, cheaper sums and a faster fit there)."""


_SCAN_NS = 3000.0
"""ns of Python per base that a target is checked against (cover and union); a target whose own
pass costs less than checking it against every base is counted on its own."""


def pass_cost(size: int) -> float:
    """Estimated ns per row of counting a table of ``size`` cells (interpolated on log2 cells)."""
    x = math.log2(max(size, 1))
    if x <= _COST_POINTS[0][0]:
        return _COST_POINTS[0][1]
    for (x0, y0), (x1, y1) in zip(_COST_POINTS, _COST_POINTS[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    x0, y0 = _COST_POINTS[-1]
    return y0 + 6.0 * (x - x0)


def summing_pays(base_cells: int, target_cells: int, rows: int) -> bool:
    """Whether summing a table of ``target_cells`` out of a counted base of ``base_cells`` costs less than counting it
    in a pass over ``rows``."""
    return _SUM_NS_PER_CELL * base_cells < pass_cost(target_cells) * rows


def plan_bases(encoding: Encoding, levels: Levels, targets: Sequence[Variables], rows: int,
               max_cells: int | None = None) -> list[tuple[Variables, list[int]]]:
    """Bases covering ``targets`` and, for each, the indices of the targets summed out of it.

    Greedy, largest target first: a target covered by a base joins it (summing it out costs a
    pass over the base's cells, not over the ``rows``); else it widens the base that saves most
    estimated time (:func:`pass_cost` of both tables against that of their union and the sums
    out of it), if any saves; else it becomes a base of its own.  ``max_cells`` bounds a widened base (the
    engine's streamed passes hold their bases densely: their gain grows with the rows, their memory must not).
    Deterministic: the plan depends on the requests and the number of rows only, never on counts."""
    sizes = [cells(encoding, t) for t in targets]
    order = sorted(range(len(targets)), key=lambda i: (-sizes[i], targets[i]))
    attrs = encoding.attributes
    bases: list[list[Any]] = []  # [variables, cells, members, {attribute: level}]
    for i in order:
        target, size = targets[i], sizes[i]
        alone = pass_cost(size) * rows
        if alone < _SCAN_NS * len(bases):  # few rows: a pass costs less than looking for a base
            bases.append([target, size, [i], dict(target)])
            continue
        # Covered: summed out of the smallest base covering it, when that beats a pass of its own.
        home = min((b for b in bases if summing_pays(b[1], size, rows) and all(a in b[3] for a, _ in target)
                    and levels.covers(b[0], target)), key=lambda b: b[1], default=None)
        if home is None:
            best, best_gain = None, 0.0
            for b in bases:
                have = b[3]
                if all(have.get(a, l) == l for a, l in target):  # same levels where they meet
                    merged, union = None, b[1] * math.prod(attrs[a].level_size(l) for a, l in target if a not in have)
                else:
                    merged = levels.union(b[0], target)
                    if merged is None:
                        continue
                    union = cells(encoding, merged)
                if max_cells is not None and union > max_cells:
                    continue
                gain = (pass_cost(b[1]) + pass_cost(size) - pass_cost(union)) * rows \
                    - _SUM_NS_PER_CELL * (union * (len(b[2]) + 1) - b[1] * len(b[2]))
                if gain > best_gain and gain > 0.05 * alone:
                    best, best_gain = (b, merged, union), gain
            if best is not None:
                home, merged, union = best
                home[0] = merged if merged is not None else levels.union(home[0], target)
                home[1], home[3] = union, dict(home[0])
        if home is None:
            home = [target, size, [], dict(target)]
            bases.append(home)
        home[2].append(i)
    return [(variables, members) for variables, _, members, _ in bases]


def derive(table: np.ndarray, base: Variables, target: Variables, levels: Levels) -> np.ndarray:
    """``target``'s table (axes in ``target``'s order) summed out of ``base``'s (axes in its order)."""
    wanted = {a for a, _ in target}
    drop = tuple(i for i, (a, _) in enumerate(base) if a not in wanted)
    if drop:
        table = table.sum(axis=drop, dtype=table.dtype)  # int32 tables hold every sum (total weight < 2³¹)
    kept = [v for v in base if v[0] in wanted]
    encoding_attrs = levels.encoding.attributes
    # Regroup the axis that shrinks most first: each later sum reads a smaller table.
    work = sorted(((axis, a, fine, coarse) for axis, ((a, fine), (_, coarse)) in enumerate(zip(kept, target))
                   if fine != coarse),
                  key=lambda w: -encoding_attrs[w[1]].level_size(w[2]) / encoding_attrs[w[1]].level_size(w[3]))
    for axis, a, fine, coarse in work:
        table = sum_axis(table, axis, levels.summer(a, fine, coarse))
    return table


def sum_axis(table: np.ndarray, axis: int, how: np.ndarray) -> np.ndarray:
    """Sum the cells of ``axis`` into groups (``how`` from :meth:`Levels.summer`)."""
    if how.ndim == 1:
        return np.add.reduceat(table, how, axis=axis)
    return np.moveaxis(np.moveaxis(table, axis, -1) @ how, -1, axis)
