"""Privacy-breach parameters for NBC views (Mozafari & Zaniolo, VLDB 2009, §4-§6.3).

* :func:`gamma_from_breach`: the amplification γ that blocks every upward/downward
  L1-to-L2 breach, from Lemma 2's condition (7);
* :func:`amplification`: the smallest γ for which Corollary 4's condition (10) holds,
  computed exactly; :func:`satisfies_corollary4` checks (10) for a given γ;
  with a prior F it is the ratio that Statement 11 needs after dividing class c by F(c);
* :func:`k_sind`: the k of Lemma 10 (k-SIND).

This is a privacy-breach guarantee against an attacker who enumerates possible worlds; it is
not differential privacy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from privbayes.core.errors import InputError
from privbayes.methods.nbc.parameters import CONDITIONS
from privbayes.methods.nbc.views import NBCViews

GAMMA_DENOMINATOR = 10**6
"""γ from (L1, L2) is a rational with this denominator, strictly inside condition (7)."""


def breach_ratio(l1: Fraction, l2: Fraction) -> Fraction:
    """ρ = (L2/L1)·(1−L1)/(1−L2), the right-hand side of (6) and (7)."""
    if not 0 < l1 < l2 < 1:
        raise InputError(f"--breach: need 0 < L1 < L2 < 1, got L1 = {float(l1):g}, L2 = {float(l2):g}")
    return (l2 / l1) * (1 - l1) / (1 - l2)


def lemma2_lhs(gamma: Fraction, classes: int) -> Fraction:
    """(γ + γ²(|C|−1)) / (γ + |C| − 1), the left-hand side of (7) = m2/m1 of Lemma 2's proof."""
    return (gamma + gamma**2 * (classes - 1)) / (gamma + classes - 1)


def gamma_from_breach(l1: Fraction, l2: Fraction, classes: int) -> Fraction:
    """The largest γ = j/10⁶ > 1 with ``(γ + γ²(|C|−1))/(γ + |C|−1) < ρ`` (Lemma 2, condition (7)).

    The left side grows with γ from 1 at γ = 1, so the feasible γ form an interval (1, γ*),
    with γ* the positive root of ``(|C|−1)γ² + (1−ρ)γ − ρ(|C|−1) = 0`` (γ* = ρ for two classes).
    Condition (7) is strict and (8) asks for a ratio *below* γ while Corollary 4 bounds it by
    γ^{1/n}; choosing γ strictly inside (1, γ*) leaves room for both (any γ' in (γ, γ*) works
    in Lemma 2).
    """
    rho = breach_ratio(l1, l2)
    m = classes - 1
    root = ((rho - 1) + math.sqrt(float((1 - rho) ** 2 + 4 * m * m * rho))) / (2 * m)
    gamma = Fraction(math.floor(root * GAMMA_DENOMINATOR) + 2, GAMMA_DENOMINATOR)
    while gamma > 1 and lemma2_lhs(gamma, classes) >= rho:
        gamma -= Fraction(1, GAMMA_DENOMINATOR)
    if gamma <= 1:
        raise InputError(f"--breach: L1 = {float(l1):g} and L2 = {float(l2):g} are too close for any amplification "
                         f"γ = j/{GAMMA_DENOMINATOR} > 1")
    return gamma


def _extreme_ratio(values: Sequence[Fraction]) -> Fraction | None:
    """max/min of positive values; None when one is zero (Corollary 4 requires 0 < ratio)."""
    low = min(values)
    return None if low <= 0 else max(values) / low




def exponent(condition: str, n: int) -> int:
    """The power of the largest count ratio that ``condition`` compares with γ."""
    if condition not in CONDITIONS:
        raise InputError(f"condition must be one of {', '.join(CONDITIONS)}, got {condition!r}")
    return n if condition == "corollary4" else 2 * n - 1


def amplification(views: NBCViews, prior: Sequence[Fraction] | None = None,
                  condition: str = "corollary4") -> Fraction | None:
    """The smallest γ with P_{c'}/P_c ≤ γ^{1/n} and N^i_{t,c}/N^i_{t,c'} ≤ γ^{1/n} (Corollary 4),
    or with the exponent 2n−1 for ``condition="posterior"`` (see :data:`CONDITIONS`).

    With a prior F, class c's counts are first divided by F(c): the ratios then bound the
    posterior-to-prior ratio as Statement 11 requires (the sub-label view of EST, §7.2).
    Returns ``None`` when a count is zero (no γ satisfies (10)).  Exact.
    """
    weights = [Fraction(1)] * views.classes if prior is None else [Fraction(f) for f in prior]
    rows = [list(views.prior)] + [list(row) for a in views.attributes for row in a.counts]
    worst = Fraction(1)
    for row in rows:
        ratio = _extreme_ratio([Fraction(v) / w for v, w in zip(row, weights)])
        if ratio is None:
            return None
        worst = max(worst, ratio)
    return worst ** exponent(condition, views.n)


def satisfies_corollary4(views: NBCViews, gamma: Fraction, prior: Sequence[Fraction] | None = None,
                         condition: str = "corollary4") -> bool:
    """Condition (10) of Corollary 4 for amplification γ, exactly (ratio^n ≤ γ; ratio^(2n−1) ≤ γ
    for ``condition="posterior"``)."""
    worst = amplification(views, prior, condition)
    return worst is not None and worst <= gamma


def k_sind(views: NBCViews) -> int:
    """Lemma 10: SafetyTransform gives k-SIND with k = min_c P_c of the *original* table.

    Tuples of one class can swap their labels without changing any view, so each class is a
    SIND equivalence class.  The value is a count of the private table: compute it for the
    publisher, do not publish it.
    """
    return int(min(views.prior))
