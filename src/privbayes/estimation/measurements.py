"""Paid-for measurements as estimation sees them: noisy count tables kept raw with their noise scale.

A measurement is the noisy count table over a few encoded attributes, each at a generalisation level (a
PrivBayes family Π_i ∪ {X_i}, TODS 2017 Alg. 1/3, or an adaptive round's marginal), so the table is a linear
query on the leaf domain of its attributes.  The discrete Laplace scale the plan priced travels with it, so
every consumer weighs it by its noise variance (ICML 2019, Eq. 3).  Everything here is post-processing of
released values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.privacy.mechanisms import discrete_gaussian_variance, discrete_laplace_variance

Variable = tuple[int, int]
"""An axis of a measured table: an encoded attribute and the generalisation level it is counted at."""


@dataclass(frozen=True)
class NoisyTable:
    """Noisy counts over ``variables`` and the discrete Laplace scale Δ/ε of their noise (``None``: exact
    counts, only in the §6.4 BestMarginal analysis, NOT private); with ``sigma2``, discrete Gaussian noise of
    that variance parameter (a zCDP fit) and ``scale`` its standard deviation σ.  ``pair`` is the measurement's
    index: the AP pair's in a PrivBayes fit (its parents, then the child at level 0), the order of measurement in
    an adaptive one."""

    pair: int
    variables: tuple[Variable, ...]
    counts: np.ndarray
    scale: Fraction | None
    sigma2: Fraction | None = None

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        if counts.ndim != len(self.variables):
            raise ValueError(f"the table of pair {self.pair + 1} needs one axis per variable")
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)

    @property
    def variance(self) -> float:
        """Variance of the noise in one cell, in counts (0 for exact counts)."""
        if self.sigma2 is not None:
            return discrete_gaussian_variance(self.sigma2)
        return 0.0 if self.scale is None else discrete_laplace_variance(self.scale)


def estimated_total(measurements: Sequence[NoisyTable], count: int, count_scale: Fraction | None,
                    count_variance: float | None = None) -> float:
    """n estimated from a noisy count (discrete Laplace of ``count_scale``, or with ``count_variance`` noise of that
    variance: a zCDP fit's discrete Gaussian) and every noisy table's sum, each weighted by the inverse of its noise
    variance: all are unbiased for the same n with independent noise, so this is the minimum-variance linear
    combination (post-processing, for add/remove neighbours where n is private).  At least 1."""
    values = [float(count)] + [float(m.counts.sum()) for m in measurements]
    if count_variance is None:
        if count_scale is None:
            raise ValueError("the noisy count needs its discrete Laplace scale or its noise variance")
        count_variance = discrete_laplace_variance(count_scale)
    variances = [count_variance] + [m.counts.size * m.variance for m in measurements]
    if any(v == 0 for v in variances):  # an exact table (analysis mode) knows n
        return max(1.0, values[variances.index(0)])
    weights = 1.0 / np.array(variances)
    return max(1.0, float(np.dot(weights, values) / weights.sum()))
