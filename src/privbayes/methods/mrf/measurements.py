"""Noisy sufficient statistics: discrete Laplace on every cell of every clique table.

ICML 2017, Prop. 3 and Eq. 3: the clique tables n have L1 sensitivity |C| (the number of
cliques) when one individual is added or removed, so y_C = n_C + Lap(|C|/ε) is ε-DP.
We release each table with ε/|C| through a :class:`~privbayes.privacy.mechanisms.DiscreteLaplace`
mechanism, so the ledger holds |C| entries summing to ε exactly (sequential composition):

* ``relation="replace-one"`` (the library's; n public): one table moves by ≤ 2 in L1, so
  each table gets sensitivity 2, scale 2|C|/ε per cell; N = n is the public row count.
* ``relation="add-remove"`` (the paper's; N private): sensitivity 1 per table, scale
  |C|/ε; N is *derived from the noisy tables* (the mean of their totals, post-processing
  at no cost) so that all of ε goes to the tables, as in Eq. 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import discrete_laplace_variance, laplace_counts
from privbayes.privacy.neighbours import RELATIONS as NEIGHBOURS
from privbayes.privacy.neighbours import neighbours
from privbayes.privacy.samplers import RandomSource

Relation = Literal["replace-one", "add-remove"]
RELATIONS = tuple(NEIGHBOURS)
"""The neighbouring relations (their facts live in :mod:`privbayes.privacy.neighbours`)."""


@dataclass(frozen=True)
class NoisyStatistics:
    """Released tables y_C (integers), the Laplace scale b of every cell, and N (public or estimated)."""

    cliques: tuple[tuple[int, ...], ...]
    tables: tuple[np.ndarray, ...]
    scale: float
    n: float
    relation: Relation

    def __post_init__(self) -> None:
        if len(self.tables) != len(self.cliques):
            raise ValueError(f"expected {len(self.cliques)} noisy tables, got {len(self.tables)}")
        if not self.scale > 0 or not self.n > 0:
            raise ValueError(f"scale ({self.scale!r}) and n ({self.n!r}) must be positive")
        if self.relation not in RELATIONS:
            raise ValueError(f"relation ({self.relation!r}) must be one of {', '.join(RELATIONS)}")

    @property
    def variance(self) -> float:
        """Variance of the noise in one cell, in counts: the released tables' mechanism's
        (:func:`~privbayes.privacy.mechanisms.discrete_laplace_variance`, as PrivBayes's ``NoisyTable``)."""
        return discrete_laplace_variance(self.scale)

    def pseudo_marginals(self) -> list[np.ndarray]:
        """µ̄_C = y_C / N (ICML 2017, Prop. 4): unbiased, may be negative or inconsistent."""
        return [t / self.n for t in self.tables]


def per_cell_scale(epsilon: float | Fraction, n_cliques: int, relation: Relation) -> Fraction:
    """The Laplace scale of each cell: 2|C|/ε (replace-one) or |C|/ε (add-remove)."""
    return neighbours(relation).count_sensitivity * n_cliques / Fraction(epsilon)


def measure(counts: Sequence[np.ndarray], public_n: int, cliques: Sequence[tuple[int, ...]],
            names: Sequence[str], epsilon: float | Fraction, relation: Relation, accountant: Accountant,
            rng: RandomSource) -> NoisyStatistics:
    """Release every clique table ``counts[i]`` with ``ε/|C|`` of discrete Laplace noise.

    ``counts`` must be the exact tables the counting layer returned; ``names[i]`` labels
    clique i in the ledger.  ``public_n`` is used only under ``replace-one``.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation ({relation!r}) must be one of {', '.join(RELATIONS)}")
    share = Fraction(epsilon) / len(cliques)
    tables = []
    for table, name in zip(counts, names):
        tables.append(laplace_counts(table, share, accountant, rng, step=f"clique table {name}",
                                     measured=f"counts over ({name}), {relation}",
                                     sensitivity=neighbours(relation).count_sensitivity))
    if relation == "replace-one":
        n = float(public_n)
    else:
        n = max(float(np.mean([t.sum() for t in tables])), 1.0)
    scale = float(per_cell_scale(epsilon, len(cliques), relation))
    return NoisyStatistics(tuple(tuple(c) for c in cliques), tuple(tables), scale, n, relation)
