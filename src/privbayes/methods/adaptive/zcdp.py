"""The adaptive method's mechanisms under zero-concentrated DP (``privacy="zcdp"``; docs/decisions.md, "zCDP mode").

The plan (:func:`privbayes.methods.adaptive.settings.zcdp_plan`) has the same releases in the same order as under
pure ε (:func:`~privbayes.methods.adaptive.settings.adaptive_plan`), priced in ρ (Bun & Steinke 2016: sequential
composition adds ρ), from public inputs only:

1. under add/remove neighbours a noisy count, discrete Gaussian at ``COUNT_SHARE`` (1/100) of ρ;
2. the first measurements (the 1-way marginals, small attributes jointly) with the first share of the rest,
   split in proportion to √|Ω_g| (the split that minimises the summed noise variance Σ_g |Ω_g|·Δ²/(2ρ_g) for a
   fixed Σ ρ_g), each a discrete Gaussian with σ² = Δ²/(2ρ_g);
3. T rounds with linearly rising budgets (the ``ramp``), each an exponential-mechanism selection with
   ``select_share`` of the round's ρ (charged ε²/8: Cesar & Rogers 2021) and a discrete-Gaussian measurement with
   the rest.

Δ: a count table's L2 sensitivity, 1 under add/remove and √2 under replace-one, for which the rational
:data:`REPLACE_ONE_L2` above it is used; the selection's score moves by the L1 sensitivity (1 or 2) as under
pure ε.  The automatic first share and T are the pure rules with each Gaussian matched to the discrete Laplace
of the same standard deviation, ε ≡ 2√ρ (:func:`laplace_equivalent`): AIM's T = 16·d rounds rely on annealing
that reads measured values, which this plan does not do.
"""

from __future__ import annotations

import math
from fractions import Fraction

from privbayes.privacy.mechanisms import DiscreteGaussian, Exponential
from privbayes.privacy.neighbours import Neighbours

REPLACE_ONE_L2 = Fraction(99, 70)
"""A rational above √2, the L2 sensitivity of a count table under replace-one (docs/decisions.md, "zCDP
accounting": sensitivities are rounded up)."""
SELECT_DIGITS = 10**12
"""A selection's ε = √(8ρ) is rounded down to this many parts of its leading unit (exact: ρ = ε²/8 then)."""


def l2_sensitivity(relation: Neighbours) -> Fraction:
    """The L2 sensitivity of a count table under ``relation``: 1 (add/remove) or 99/70 ≥ √2 (replace-one)."""
    return Fraction(1) if not relation.n_public else REPLACE_ONE_L2


def laplace_equivalent(rho: Fraction) -> float:
    """The ε whose discrete Laplace noise (std √2·Δ/ε) has the standard deviation of a Gaussian at ρ
    (σ = Δ/√(2ρ)): 2√ρ.  Only the automatic choices read it (a public function of the budget)."""
    return 2 * math.sqrt(float(rho))


def selection_epsilon(rho: Fraction) -> Fraction:
    """The exponential mechanism's ε for a planned selection ρ = ε²/8 (exact: the plan makes ρ so)."""
    square = 8 * rho
    top, bottom = math.isqrt(square.numerator), math.isqrt(square.denominator)
    if Fraction(top, bottom) ** 2 != square:
        raise ValueError(f"a selection's rho ({float(rho):.6g}) is not the square of a rational over 8")
    return Fraction(top, bottom)


def selection_rho(budget: Fraction) -> Fraction:
    """The largest ρ ≤ ``budget`` of the form ε²/8 with ε a rational of :data:`SELECT_DIGITS` parts: the rest of
    the round's budget goes to its measurement, so the plan spends exactly its total."""
    root = math.sqrt(8 * float(budget))
    unit = Fraction(1, SELECT_DIGITS) * Fraction(2) ** math.frexp(root)[1]
    epsilon = math.floor(Fraction(root) / unit) * unit
    while epsilon > 0 and epsilon**2 / 8 > budget:
        epsilon -= unit
    if epsilon <= 0:
        raise ValueError(f"a selection's rho ({float(budget):.3g}) is too small")
    return epsilon**2 / 8


def gaussian(rho: Fraction, sensitivity: Fraction) -> DiscreteGaussian:
    """The discrete Gaussian whose zCDP cost is exactly ``rho``: σ² = Δ²/(2ρ)."""
    return DiscreteGaussian(sensitivity**2 / (2 * rho), sensitivity)


def selector(rho: Fraction, sensitivity: Fraction) -> Exponential:
    """The exponential mechanism whose zCDP cost ε²/8 is exactly ``rho``."""
    return Exponential(selection_epsilon(rho), sensitivity)
