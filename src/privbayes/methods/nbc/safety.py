"""SafetyTransform (Mozafari & Zaniolo, VLDB 2009, §6.2, Figs. 2-5), in exact arithmetic.

Given integer NBC views and an amplification γ > 1, returns integer views that

* are NBC-equivalent to the input (Def. 2: every domain tuple ranks the classes identically,
  ties going to the later class), and
* satisfy Corollary 4 exactly: 0 < P_{c'}/P_c ≤ γ^{1/n} and 0 < N^i_{t,c}/N^i_{t,c'} ≤ γ^{1/n}
  (by default the stricter γ^{1/(2n−1)}, which also bounds Bob's large-count posterior ratio),
* are realistic: Σ_t N^i_{t,c} = P_c, so a table with these views exists (§6.2.4).

Steps, all on logarithms (see :mod:`privbayes.methods.nbc.approx` for the bounds):

1. zeros become e^{−Λ_c} (Fig. 3, with a corrected bound);
2. every log is multiplied by κ = 1/k with k ≥ e(2n+3)·(W + ½)/ln γ, e = n (Fig. 4's
   k ≥ n·log w / log γ' with γ' = γ^{1/(2n+3)} as Fig. 2 prescribes; W is the largest
   log-ratio between the classes' counts of one value, ≤ log w) or e = 2n−1 for the
   "posterior" condition (see :data:`privbayes.methods.nbc.parameters.CONDITIONS`), then rounded to rationals
   biased by class: class c's N up by c·δ and its P down by c·δ in the log, so a tie of the
   original goes to the later class (the "preserving ties" device of §6.2.2); δ = 5h and the
   rounding error h = κ·g / (2(2n−1)(5|C|−1)) keep every strict inequality (Statements 7-8);
3. Step 3 (Fig. 5) restores Σ_t N = P without changing any score;
4. one common scale turns the rationals into integers (rounding inside the error budget).

If the input is realistic, has no zero and already meets the bound, it is returned unchanged (§6.3:
"it is the original database if it was safe in the first place").  Otherwise the result is
checked exactly against Corollary 4 and k is doubled in the (unexpected) case it fails.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from privbayes.core.errors import InputError
from privbayes.methods.nbc.approx import (
    exp_approx,
    gap_lower_bound,
    ln_float,
    log_count,
    realise,
    zero_logs,
)
from privbayes.methods.nbc.breach import (
    amplification,
    exponent,
)
from privbayes.methods.nbc.parameters import CONDITIONS
from privbayes.methods.nbc.views import NBCViews

MAX_DOUBLINGS = 6


@dataclass(frozen=True)
class Offset:
    """A per-class addition to the logs: ``offset + log_factor · ln(factor)``."""

    offset: Fraction = Fraction(0)
    log_factor: Fraction = Fraction(0)
    factor: Fraction = Fraction(1)


@dataclass(frozen=True)
class SafeViews:
    """Published views and how they were made.  ``achieved`` is the exact smallest γ (or r,
    with a prior) for which Corollary 4 (or Statement 11 through it) holds on the output."""

    views: NBCViews
    method: str
    achieved: Fraction
    condition: str = "posterior"
    gamma: Fraction | None = None
    r: Fraction | None = None
    prior: tuple[Fraction, ...] | None = None
    k: int | None = None
    kappa: Fraction | None = None

    def __post_init__(self) -> None:
        if self.method not in ("identity", "safety-transform", "est"):
            raise ValueError(f"unknown method {self.method!r}")
        if self.condition not in CONDITIONS:
            raise ValueError(f"unknown condition {self.condition!r}")


def as_integers(views: NBCViews) -> NBCViews:
    """The views scaled by the common denominator of their counts (a uniform scaling keeps
    every ranking, §6.2.4)."""
    scale = math.lcm(*(Fraction(v).denominator for v in views.all_counts()))
    if scale == 1 and all(isinstance(v, int) for v in views.all_counts()):
        return views
    return views.with_counts([int(Fraction(p) * scale) for p in views.prior],
                             [[[int(Fraction(v) * scale) for v in row] for row in a.counts] for a in views.attributes])


def spread(views: NBCViews, lam: Sequence[Fraction]) -> float:
    """W: the largest log-ratio between two classes' Step-1 counts of one value, or of P."""
    rows = [list(views.prior)] + [list(row) for a in views.attributes for row in a.counts]
    widest = 0.0
    for row in rows:
        logs = [log_count(int(v), lam[c]) for c, v in enumerate(row)]
        widest = max(widest, max(logs) - min(logs))
    return widest


def transform_logs(views: NBCViews, kappa: Fraction, n_offsets: Sequence[Offset], p_offsets: Sequence[Offset],
                   h: Fraction) -> NBCViews:
    """The integer views whose logs are κ·(Step-1 logs) + per-class offsets, within the
    error budget h per count (Step 2, Line 4) plus Steps 3 and 4 (≤ h per score)."""
    lam = zero_logs(views)
    class_major = []
    prior = []
    for c in range(views.classes):
        a = n_offsets[c]
        class_major.append([exp_approx(kappa, [row[c] for row in attr.counts], lam[c], a.offset, a.log_factor,
                                       a.factor, h) for attr in views.attributes])
        b = p_offsets[c]
        prior.append(exp_approx(kappa, [views.prior[c]], lam[c], b.offset, b.log_factor, b.factor, h)[0])
    new_prior, new_counts = realise(prior, class_major, h)
    per_attribute = [[[new_counts[c][i][t] for c in range(views.classes)] for t in range(len(attr.values))]
                     for i, attr in enumerate(views.attributes)]
    return views.with_counts(new_prior, per_attribute)


def safety_transform(views: NBCViews, gamma: Fraction, condition: str = "posterior") -> SafeViews:
    """SafetyTransform(V, γ) of Fig. 2 (see the module docstring).  ``condition`` says how γ
    bounds the count ratios ρ: ρ^(2n−1) ≤ γ ("posterior", the default, which bounds Bob's
    large-count posterior ratio by γ) or ρ^n ≤ γ ("corollary4", the paper's (10))."""
    gamma = Fraction(gamma)
    if not gamma > 1:
        raise InputError(f"--gamma: the amplification γ must be > 1, got {float(gamma):g}")
    views = as_integers(views)
    e = exponent(condition, views.n)
    current = amplification(views, condition=condition)
    if current is not None and current <= gamma and views.is_realistic():
        return SafeViews(views, "identity", current, condition, gamma=gamma)
    n, classes = views.n, views.classes
    g = gap_lower_bound(views)
    width = spread(views, zero_logs(views))
    k = max(1, math.ceil(e * (2 * n + 3) * (width + 0.5) / ln_float(gamma) * (1 + 1e-9)))
    for _ in range(MAX_DOUBLINGS):
        kappa = Fraction(1, k)
        h = kappa * g / (2 * (2 * n - 1) * (5 * classes - 1))
        delta = 5 * h
        out = transform_logs(views, kappa, [Offset(c * delta) for c in range(classes)],
                             [Offset(-c * delta) for c in range(classes)], h)
        achieved = amplification(out, condition=condition)
        if achieved is not None and achieved <= gamma:  # Corollary 4's condition (10), as satisfies_corollary4
            return SafeViews(out, "safety-transform", achieved, condition, gamma=gamma, k=k, kappa=kappa)
        k *= 2
    raise RuntimeError("SafetyTransform did not meet Corollary 4; please report this as a bug")


def normalised(views: NBCViews) -> NBCViews:
    """Step 4's other option: every count divided by Σ_c P_c (exact fractions; hides ``|T|``)."""
    total = Fraction(sum(views.prior))
    return views.with_counts([Fraction(p) / total for p in views.prior],
                             [[[Fraction(v) / total for v in row] for row in a.counts] for a in views.attributes])
