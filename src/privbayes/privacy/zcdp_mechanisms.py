"""The mechanisms of a plan priced in ρ, whatever the method (docs/decisions.md, "zCDP accounting").

A zCDP plan fixes each release's ρ exactly; these helpers give the mechanism that costs exactly that ρ:

* a count table under the discrete Gaussian with σ² = Δ²/(2ρ) (CKS 2020, Thm. 4), Δ the table's L2 sensitivity:
  1 under add/remove, √2 under replace-one, for which the rational :data:`REPLACE_ONE_L2` above it is used
  (sensitivities are rounded up);
* a selection by the exponential mechanism at ρ = ε²/8 (ε-bounded range: Cesar & Rogers 2021), with ε a
  rational of :data:`SELECT_DIGITS` parts so that ε²/8 is exact; :func:`selection_rho` rounds a budget down to
  such a ρ, and the caller gives the rest to a measurement, so a plan spends its total exactly;
* :func:`laplace_equivalent`: the ε of the discrete Laplace with a Gaussian's standard deviation, which the
  automatic choices tuned under pure ε read (a public function of the budget).

Used by the adaptive method and PrivBayes under ``privacy="zcdp"``.
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
    the budget goes to a measurement, so the plan spends exactly its total."""
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
