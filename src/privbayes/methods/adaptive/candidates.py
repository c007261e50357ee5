"""Candidate marginals: attribute sets, their cells and their workload weights.

A candidate is the marginal over a set of up to ``degree`` attributes at their leaves (a level is kept
per attribute, always 0 here: candidates at taxonomy levels were measured and not adopted,
docs/decisions.md).  Its answer on the data is a count table, whose L1 sensitivity is the relation's
(1 under add/remove, 2 under replace-one).

Weights follow AIM (VLDB 2022, §4.1): a candidate r scores w_r = Σ_{q ∈ W} |r ∩ q| over the
workload W of all ``degree``-way attribute sets, normalised so that the largest weight is 1 (the
selection's sensitivity is then the count table's).  Over a complete workload w_r depends only on
the number of attributes of r.
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
