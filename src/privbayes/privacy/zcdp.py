"""Zero-concentrated DP (zCDP) and its conversion to (ε, δ)-DP.

A mechanism is ρ-zCDP when every Rényi divergence of order α > 1 between its outputs on neighbours is at
most ρα (Bun & Steinke, "Concentrated Differential Privacy", TCC 2016).  Sequential composition adds ρ, so the
accountant and the plan keep ρ as an exact rational (:class:`~privbayes.privacy.accountant.ZCDPAccountant`).
What a user reads is (ε, δ): Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy"
(NeurIPS 2020), Cor. 13 — a ρ-zCDP mechanism is (ε, δ)-DP for every α > 1 with

    δ = exp((α − 1)(αρ − ε)) / (α − 1) · (1 − 1/α)^α,   i.e.   ε = αρ + log(1/(αδ))/(α − 1) + log(1 − 1/α),

tighter than Bun-Steinke's ε = ρ + 2√(ρ log(1/δ)).  Any α gives a valid bound, so the infimum is searched
numerically (golden section on log(α − 1)); OpenDP's ``make_zCDP_to_approxDP`` uses the same statement.  The
inverse, :func:`rho_for`, is rounded *down* to a rational whose ε is below the target with a margin that
covers floating-point error, so a ρ it returns never claims more than the (ε, δ) asked for.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

_LOG_ALPHA_RANGE = (-40.0, 60.0)
"""The search range of log(α − 1): from α = 1 + 4e-18 to α = 1 + 1e26, far beyond every optimum for ρ in
[1e-20, 1e6] and δ in [1e-300, 1)."""
_GOLDEN_STEPS = 200
"""Golden-section steps: the bracket shrinks by 0.618^200 (≈ 1e-42 of its width)."""
_SAFETY = 1e-9
"""Relative margin by which :func:`rho_for`'s ρ undershoots the target ε, far above the few ulps of error
of the float formula."""
_RHO_BITS = 40
"""Significant bits kept when :func:`rho_for` rounds ρ down to a dyadic rational."""


def _minimise(f: Callable[[float], float]) -> float:
    """min of a unimodal f over log(α − 1) in :data:`_LOG_ALPHA_RANGE` (golden-section search)."""
    ratio = (math.sqrt(5) - 1) / 2
    lo, hi = _LOG_ALPHA_RANGE
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(_GOLDEN_STEPS):
        if f1 <= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = f(x2)
    return min(f1, f2)


def _check(rho: float | Fraction, name: str, value: float | Fraction) -> None:
    if rho < 0:
        raise ValueError(f"rho ({float(rho)}) must be non-negative")
    if not 0 < value:
        raise ValueError(f"{name} ({float(value)}) must be positive")


def epsilon_for(rho: float | Fraction, delta: float | Fraction) -> float:
    """The ε of a ρ-zCDP mechanism at δ (CKS 2020, Cor. 13): inf over α > 1 of
    αρ + log(1/(αδ))/(α − 1) + log(1 − 1/α), at least 0."""
    _check(rho, "delta", delta)
    r, d = float(rho), float(delta)
    if r == 0 or d >= 1:
        return 0.0

    def at(u: float) -> float:
        alpha_minus_1 = math.exp(u)
        alpha = 1 + alpha_minus_1
        return alpha * r + (math.log(1 / d) - math.log(alpha)) / alpha_minus_1 + math.log(alpha_minus_1 / alpha)

    return max(0.0, _minimise(at))


def delta_for(rho: float | Fraction, epsilon: float | Fraction) -> float:
    """The δ of a ρ-zCDP mechanism at ε (CKS 2020, Cor. 13): inf over α > 1 of
    exp((α − 1)(αρ − ε)) / (α − 1) · (1 − 1/α)^α, at most 1."""
    _check(rho, "epsilon", epsilon)
    r, e = float(rho), float(epsilon)
    if r == 0:
        return 0.0

    def log_delta(u: float) -> float:
        alpha_minus_1 = math.exp(u)
        alpha = 1 + alpha_minus_1
        return alpha_minus_1 * (alpha * r - e) - u + alpha * math.log(alpha_minus_1 / alpha)

    return min(1.0, math.exp(_minimise(log_delta)))


def rho_for(epsilon: float | Fraction, delta: float | Fraction) -> Fraction:
    """The largest ρ (rounded down to a dyadic rational of 40 significant bits) whose :func:`epsilon_for` at
    ``delta`` is at most ``epsilon`` (1 − 1e-9 of it, a margin for floating-point error): bisection, as ε
    grows with ρ."""
    _check(0, "epsilon", epsilon)
    _check(0, "delta", delta)
    if delta >= 1:
        raise ValueError(f"delta ({float(delta)}) must be below 1")
    target = float(epsilon) * (1 - _SAFETY)
    lo, hi = 0.0, 1.0
    while epsilon_for(hi, delta) <= target:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if epsilon_for(mid, delta) <= target:
            lo = mid
        else:
            hi = mid
    if lo <= 0:
        raise ValueError(f"no positive rho gives epsilon {float(epsilon):g} at delta {float(delta):g}")
    shift = _RHO_BITS - math.frexp(lo)[1]
    rho = Fraction(math.floor(Fraction(lo) * 2**shift), 2**shift) if shift >= 0 else Fraction(math.floor(lo))
    if rho <= 0 or epsilon_for(rho, delta) > target:  # pragma: no cover - bisection keeps lo feasible
        raise AssertionError("rho_for: the rounded rho is not feasible")
    return rho


REPORT_DELTA = Fraction(1, 10**9)
"""The δ at which a zCDP release given only ρ states the ε it implies (the guarantee is ρ-zCDP, which implies
(ε(δ), δ)-DP for every δ; docs/decisions.md, "zCDP mode")."""
