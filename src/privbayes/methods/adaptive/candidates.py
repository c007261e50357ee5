"""Candidate marginals: attribute sets, their cells and their workload weights.

A candidate is the marginal over a set of up to ``degree`` attributes at their leaves (a level is kept
per attribute, always 0 here: candidates at taxonomy levels were measured and not adopted,
docs/decisions.md).  Its answer on the data is a count table, whose L1 sensitivity is the relation's
(1 under add/remove, 2 under replace-one).

Weights follow AIM (VLDB 2022, §4.1): a candidate r scores w_r = Σ_{q ∈ W} |r ∩ q| over the
workload W of all ``degree``-way attribute sets, normalised so that the largest weight is 1 (the
selection's sensitivity is then the count table's).  Over a complete workload w_r depends only on
the number of attributes of r.

With a steward's workload (:mod:`privbayes.methods.adaptive.workload`) the candidates are AIM's: the workload's
sets and all their subsets (its downward closure), and w_r = Σ_{q ∈ W} c_q·|r ∩ q| with the workload's weights
c_q, again scaled so that the largest is 1 (:func:`workload_candidates`, :func:`set_weights`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from privbayes.core.limits import limits
from privbayes.schema.encoding import Encoding


@dataclass(frozen=True)
class Candidate:
    """A marginal over ``attributes`` (increasing) at ``levels`` (one per attribute)."""

    attributes: tuple[int, ...]
    levels: tuple[int, ...]

    @property
    def variables(self) -> tuple[tuple[int, int], ...]:
        """(attribute, level) per axis, the form :class:`~privbayes.estimation.measurements.NoisyTable` keeps."""
        return tuple(zip(self.attributes, self.levels))

    def shape(self, encoding: Encoding) -> tuple[int, ...]:
        return tuple(encoding.attributes[a].level_size(lvl) for a, lvl in self.variables)

    def cells(self, encoding: Encoding) -> int:
        return math.prod(self.shape(encoding))

    def label(self, encoding: Encoding) -> str:
        names = encoding.attributes
        return " × ".join(names[a].name + (f"@{lvl}" if lvl else "") for a, lvl in self.variables)


def leaf_candidates(encoding: Encoding, degree: int) -> tuple[Candidate, ...]:
    """AIM's candidates: every set of 1..``degree`` attributes, at the leaves, that fits the table cell
    limit, in a fixed order (by size, then lexicographically): a function of the public domain only."""
    return tuple(iter_leaf_candidates(encoding, degree))


def iter_leaf_candidates(encoding: Encoding, degree: int) -> Iterator[Candidate]:
    """The candidates of :func:`leaf_candidates`, one at a time (for a reader that may stop early)."""
    attrs = encoding.attributes
    cap = limits().max_table_cells
    return (Candidate(subset, (0,) * size) for size in range(1, degree + 1)
            for subset in itertools.combinations(range(len(attrs)), size)
            if math.prod(attrs[a].size for a in subset) <= cap)


def workload_weights(candidates: Sequence[Candidate], d: int, degree: int) -> dict[int, Fraction]:
    """AIM's weight per number of attributes, Σ over all ``degree``-sets q of |r ∩ q|, largest = 1."""
    degree = min(degree, d)
    raw = {}
    for size in {len(c.attributes) for c in candidates}:
        # q shares j of r's `size` attributes: C(size, j) · C(d − size, degree − j) such sets
        raw[size] = sum(j * math.comb(size, j) * math.comb(d - size, degree - j)
                        for j in range(1, min(size, degree) + 1))
    top = max(raw.values())
    return {size: Fraction(w, top) for size, w in raw.items()}


WorkloadSets = Sequence[tuple[tuple[int, ...], Fraction]]
"""A resolved workload: (attribute positions, increasing; weight) per set (:meth:`Workload.resolve`)."""


def workload_candidates(sets: WorkloadSets) -> tuple[Candidate, ...]:
    """AIM's candidates for a workload (VLDB 2022, §4: "the downward closure of the workload"): every non-empty
    subset of its sets, at the leaves, by size then lexicographically: a function of public inputs only."""
    closure = {sub for s, _ in sets for k in range(1, len(s) + 1) for sub in itertools.combinations(s, k)}
    return tuple(Candidate(s, (0,) * len(s)) for s in sorted(closure, key=lambda s: (len(s), s)))


def set_weights(candidates: Sequence[Candidate], sets: WorkloadSets) -> list[Fraction]:
    """AIM's weight of each candidate r (VLDB 2022, §4): w_r = Σ_{q ∈ W} c_q·|r ∩ q|, scaled so that the largest
    is 1 (the selection's sensitivity is then the count table's).  Computed as Σ_{a ∈ r} C_a, C_a the summed
    weight of the sets holding a (|r ∩ q| counts r's attributes in q): linear in the candidates."""
    held: dict[int, Fraction] = {}
    for s, weight in sets:
        for a in s:
            held[a] = held.get(a, Fraction(0)) + weight
    raw = [sum((held.get(a, Fraction(0)) for a in c.attributes), Fraction(0)) for c in candidates]
    top = max(raw)
    return [w / top for w in raw]
