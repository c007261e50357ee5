"""NBC-equivalence (Mozafari & Zaniolo, VLDB 2009, Def. 2): exact, without enumerating the domain.

Two classifiers f, f' over the same attributes and labels are NBC-equivalent when for every
tuple τ of the domain and every pair of classes c < c'

    f(τ,c) ≤ f(τ,c')  ⇔  f'(τ,c) ≤ f'(τ,c')      (11)
    f(τ,c) > f(τ,c')  ⇔  f'(τ,c) > f'(τ,c')      (12)

i.e. both rank the classes of every tuple identically once ties go to the later class ((12) is
the negation of (11), so checking (11) suffices; a tie may become a win of the later class).

:func:`check_equivalence` decides this per class pair by branch and bound over boxes of the
domain (products of value subsets), starting from the whole domain:

1. exact witnesses (:meth:`PairScores.witness`): if one classifier ranks the pair the same way
   on the whole box, the box is decided at once, with a real counterexample if the other does not;
2. a box with at most ``leaf_tuples`` tuples is enumerated exactly;
3. on a box without zero counts the tube certificate (:mod:`privbayes.methods.nbc.certificate`) may
   prove that no tuple of it disagrees (this is what decides SafetyTransform's and EST's outputs
   at the root);
4. otherwise the box is split: by zero pattern of the values, else halving the attribute whose
   score terms spread most.

Every decision is exact (integer products, or logarithm bounds with proven error), so the
verdict is exact; a counterexample is checked against the definition before it is returned.
The work is capped by ``max_nodes`` (:data:`DEFAULT_MAX_NODES`): beyond it the check is
refused, never guessed.  :func:`exhaustive_equivalence` is the brute-force twin that
enumerates the domain (tests, and small domains).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.core.errors import InputError
from privbayes.methods.nbc.certificate import MAX_DIGITS, LogTables, certify
from privbayes.methods.nbc.pairscore import Box, PairScores, same_scores
from privbayes.methods.nbc.views import NBCViews

DEFAULT_LIMIT = 1 << 22
"""Largest number of (tuple, class) cells the exhaustive check enumerates."""

DEFAULT_MAX_NODES = 20_000
"""Largest number of boxes :func:`check_equivalence` examines (over all class pairs) before it refuses."""

LEAF_TUPLES = 64
"""Boxes with at most this many tuples are enumerated."""

BOTH = frozenset("AB")
"""Ways to disagree on a pair c < d: "A" = only the second ranks d first, "B" = only the first does."""


@dataclass(frozen=True)
class Equivalence:
    """The verdict: ``tuples`` domain tuples were covered, ``nodes`` boxes examined (0 when
    enumerated); the counterexample is a domain tuple (codes) and the class pair c < d."""

    equivalent: bool
    tuples: int
    counterexample: tuple[tuple[int, ...], int, int] | None = None
    nodes: int = 0


def _same_domain(first: NBCViews, second: NBCViews) -> list[int]:
    shape = [len(a.values) for a in first.attributes]
    if first.labels != second.labels or shape != [len(a.values) for a in second.attributes]:
        raise InputError("the two views have different class labels or attribute domains")
    return shape


def check_equivalence(first: NBCViews, second: NBCViews, max_nodes: int = DEFAULT_MAX_NODES,
                      leaf_tuples: int = LEAF_TUPLES, max_digits: int = MAX_DIGITS) -> Equivalence:
    """Def. 2 over every domain tuple and class pair c < c' (ties included), by branch and
    bound (module docstring).  Raises InputError when more than ``max_nodes`` boxes are needed."""
    shape = _same_domain(first, second)
    root: Box = tuple(tuple(range(size)) for size in shape)
    used = 0
    for c in range(first.classes):
        for d in range(c + 1, first.classes):
            search = _PairSearch(PairScores.of(first, c, d), PairScores.of(second, c, d), leaf_tuples, max_digits)
            try:
                found = search.run(root, max_nodes - used)
            except _OverBudget:
                raise InputError(f"the NBC-equivalence check needs more than {max_nodes} boxes (max_nodes) for labels "
                                 f"{first.labels[c]!r}/{first.labels[d]!r}; it is refused, not guessed") from None
            used += search.nodes
            if found is not None:
                if first.ranking(found) == second.ranking(found):  # a bug, never a verdict
                    raise RuntimeError("the equivalence check produced a false counterexample; please report it")
                return Equivalence(False, first.domain_size, (found, c, d), used)
    return Equivalence(True, first.domain_size, None, used)


class _OverBudget(Exception):
    """More boxes than allowed."""


class _PairSearch:
    """Branch and bound for one class pair: find τ where exactly one classifier ranks d first."""

    def __init__(self, first: PairScores, second: PairScores, leaf_tuples: int, max_digits: int) -> None:
        self.first, self.second = first, second
        self.leaf_tuples, self.max_digits = max(1, leaf_tuples), max_digits
        self.nodes = 0
        self.tables = LogTables()

    def run(self, root: Box, budget: int) -> tuple[int, ...] | None:
        stack = [(root, BOTH)]
        while stack:
            box, directions = stack.pop()
            self.nodes += 1
            if self.nodes > budget:
                raise _OverBudget
            found, children = self._visit(box, directions)
            if found is not None:
                return found
            stack.extend(children)
        return None

    def _visit(self, box: Box,
               directions: frozenset[str]) -> tuple[tuple[int, ...] | None, list[tuple[Box, frozenset[str]]]]:
        first, second = self.first, self.second
        t1, f1 = first.witness(box, True), first.witness(box, False)
        if t1 is None or f1 is None:  # the first ranks the pair one way on the whole box
            way = "A" if t1 is None else "B"
            other = second.witness(box, way == "A")
            return (other if way in directions else None), []
        t2, f2 = second.witness(box, True), second.witness(box, False)
        if t2 is None:  # the second never ranks d first: t1 disagrees (B)
            return (t1 if "B" in directions else None), []
        if f2 is None:  # the second always ranks d first: f1 disagrees (A)
            return (f1 if "A" in directions else None), []
        if math.prod(len(v) for v in box) <= self.leaf_tuples:
            return self._enumerate(box, directions), []
        if self._zero_free(box):
            if same_scores(first, second, box):
                return None, []
            directions = directions - certify(first, second, box, directions, self.tables, self.max_digits)
            if not directions:
                return None, []
            return None, [(child, directions) for child in self._halve(box)]
        return None, [(child, directions) for child in self._by_zeros(box)]

    def _enumerate(self, box: Box, directions: frozenset[str]) -> tuple[int, ...] | None:
        for tup in itertools.product(*box):
            one, two = self.first.later_first(tup), self.second.later_first(tup)
            if one != two and ("B" if one else "A") in directions:
                return tup
        return None

    def _zero_free(self, box: Box) -> bool:
        return all(self.first.zero_free(i, t) and self.second.zero_free(i, t)
                   for i, values in enumerate(box) for t in values)

    def _pattern(self, i: int, t: int) -> tuple[bool, ...]:
        s1, s2 = self.first, self.second
        return (s1.nc[i][t] == 0, s1.nd[i][t] == 0, s2.nc[i][t] == 0, s2.nd[i][t] == 0)

    def _by_zeros(self, box: Box) -> list[Box]:
        """Split the first attribute whose values differ in which counts are zero, by that pattern."""
        for i, values in enumerate(box):
            groups: dict[tuple[bool, ...], list[int]] = {}
            for t in values:
                groups.setdefault(self._pattern(i, t), []).append(t)
            if len(groups) > 1:
                return [box[:i] + (tuple(g),) + box[i + 1:] for g in groups.values()]
        return self._halve(box)  # unreachable when one classifier is not constant on the box (see docs)

    def _halve(self, box: Box) -> list[Box]:
        """Halve the attribute whose first-classifier score terms spread most, split at their median."""
        def spread(i: int) -> tuple[float, int]:
            values = box[i]
            if len(values) < 2:
                return (-1.0, 0)
            terms = [self._term(i, t) for t in values]
            return (max(terms) - min(terms), len(values))
        i = max(range(len(box)), key=spread)
        ordered = sorted(box[i], key=lambda t: self._term(i, t))
        half = len(ordered) // 2
        return [box[:i] + (tuple(sorted(part)),) + box[i + 1:] for part in (ordered[:half], ordered[half:])]

    def _term(self, i: int, t: int) -> float:
        s1 = self.first
        if s1.zero_free(i, t):
            return s1.float_terms(i, t)
        return 0.0


def integer_scores(views: NBCViews, limit: int = DEFAULT_LIMIT) -> np.ndarray:
    """Y[τ, c] = X_{τ,c} · Π_{c'} P_{c'}^(n−1) · λ^(…) as exact Python integers (object array).

    All counts are first scaled by the common denominator λ (a uniform scaling multiplies every
    X by the same factor, so the ranking is unchanged); the domain is in C order of the attributes.
    """
    cells = views.domain_size * views.classes
    if cells > limit:
        raise InputError(f"the domain has more than {limit} (tuple, class) cells; the exhaustive check is refused")
    scale = math.lcm(*(Fraction(v).denominator for v in views.all_counts()))
    n = views.n
    prior = [int(Fraction(p) * scale) for p in views.prior]
    columns = []
    for c in range(views.classes):
        product = np.array([1], dtype=object)
        for attr in views.attributes:
            values = np.array([int(Fraction(row[c]) * scale) for row in attr.counts], dtype=object)
            product = np.multiply.outer(product, values).reshape(-1)
        others = math.prod(prior[d] ** (n - 1) for d in range(views.classes) if d != c)
        columns.append(product * others)
    return np.stack(columns, axis=1)


def rankings(views: NBCViews, limit: int = DEFAULT_LIMIT) -> np.ndarray:
    """The tie-broken ranking of the classes of every domain tuple (tuples × classes)."""
    scores = integer_scores(views, limit)
    keys = [sorted(range(views.classes), key=lambda c: (row[c], c), reverse=True) for row in scores]
    return np.array(keys, dtype=np.int64)


def exhaustive_equivalence(first: NBCViews, second: NBCViews, limit: int = DEFAULT_LIMIT) -> Equivalence:
    """Def. 2 by enumerating all domain tuples and class pairs c < c' (ties included): the
    brute-force twin of :func:`check_equivalence`; the counterexample is the first in C order."""
    shape = _same_domain(first, second)
    a, b = integer_scores(first, limit), integer_scores(second, limit)
    for c in range(first.classes):
        for d in range(c + 1, first.classes):
            differ = (a[:, c] <= a[:, d]) != (b[:, c] <= b[:, d])
            if differ.any():
                index = int(np.flatnonzero(differ)[0])
                return Equivalence(False, len(a), (tuple(int(i) for i in np.unravel_index(index, shape)), c, d))
    return Equivalence(True, len(a))
