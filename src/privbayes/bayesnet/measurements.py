"""The paid-for measurements of a PrivBayes fit, kept raw for estimation (TODS 2017, Alg. 1 and Alg. 3).

Each measurement is the noisy count table of one AP pair's (Π_i, X_i) — parents possibly
generalised, so the table is a linear query on the leaf domain of the pair's attributes —
with the scale of the discrete Laplace noise that the plan priced.  The releases are the
same, in the same order, under the same step names and from the same random source as
:func:`privbayes.bayesnet.conditionals.noisy_conditionals`, so a seeded fit measures the
same numbers whichever estimation follows, and the ledger matches the same plan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.bayesnet.network import Network, Parent
from privbayes.counting import PrivateTable
from privbayes.counting.base import count_batch
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import (
    COUNT_TABLE_SENSITIVITY,
    DiscreteLaplace,
    discrete_laplace_variance,
    laplace_counts,
)
from privbayes.privacy.samplers import RandomSource


@dataclass(frozen=True)
class NoisyTable:
    """Noisy counts over ``variables`` (the pair's parents at their levels, then the child at
    level 0) and the discrete Laplace scale Δ/ε of their noise (``None``: exact counts, only in
    the §6.4 BestMarginal analysis, NOT private)."""

    pair: int
    variables: tuple[Parent, ...]
    counts: np.ndarray
    scale: Fraction | None

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        if counts.ndim != len(self.variables):
            raise ValueError(f"the table of pair {self.pair + 1} needs one axis per variable")
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)

    @property
    def variance(self) -> float:
        """Variance of the noise in one cell, in counts (0 for exact counts)."""
        return 0.0 if self.scale is None else discrete_laplace_variance(self.scale)


def family_variables(network: Network, i: int) -> tuple[Parent, ...]:
    """Axes of pair i's joint table: its parents, then the child at level 0."""
    pair = network.pairs[i]
    return tuple(pair.parents) + ((pair.child, 0),)


def measure_tables(table: PrivateTable, network: Network, budgets: Mapping[int, Fraction | None],
                   accountant: Accountant | None, rng: RandomSource,
                   sensitivity: Fraction = COUNT_TABLE_SENSITIVITY) -> tuple[NoisyTable, ...]:
    """The noisy table of every measured pair (``budgets``: pair index → ε from the plan, or
    ``None`` for exact counts), each release charged to ``accountant`` by its mechanism at the
    neighbouring relation's count ``sensitivity``."""
    d = len(network.pairs)
    out = []
    pairs = sorted(budgets)
    # Every pair's table in one counting batch (the back-end counts shared supersets once); the
    # releases then follow in the plan's order, so the noise drawn is the same as table by table.
    axes_of = [family_variables(network, i) for i in pairs]
    tables = count_batch(table, [([a for a, _ in axes], [lvl for _, lvl in axes]) for axes in axes_of])
    for i, axes, exact in zip(pairs, axes_of, tables):
        share = budgets[i]
        if share is None:
            out.append(NoisyTable(i, axes, exact, None))
            continue
        if accountant is None:
            raise ValueError("a measured table needs an accountant")
        noisy = laplace_counts(exact, share, accountant, rng, step=f"conditional {i + 1}/{d}",
                               measured=f"{exact.size}-cell table of AP pair {i + 1}", sensitivity=sensitivity)
        out.append(NoisyTable(i, axes, noisy, DiscreteLaplace(share, sensitivity).scale))
    return tuple(out)


def estimated_total(measurements: Sequence[NoisyTable], count: int, count_scale: Fraction) -> float:
    """n estimated from a noisy count (discrete Laplace of ``count_scale``) and every noisy
    table's sum, each weighted by the inverse of its noise variance: all are unbiased for the
    same n with independent noise, so this is the minimum-variance linear combination
    (post-processing, for add/remove neighbours where n is private).  At least 1."""
    values = [float(count)] + [float(m.counts.sum()) for m in measurements]
    variances = [discrete_laplace_variance(count_scale)] + [m.counts.size * m.variance for m in measurements]
    if any(v == 0 for v in variances):  # an exact table (analysis mode) knows n
        return max(1.0, values[variances.index(0)])
    weights = 1.0 / np.array(variances)
    return max(1.0, float(np.dot(weights, values) / weights.sum()))
