"""EST, the Extended Safety Transform for a known prior F (Mozafari & Zaniolo, VLDB 2009, §7, Fig. 7).

Fig. 7's four steps, carried out on logarithms as SafetyTransform is:

1. *resolve ties*: class c's scores gain ε_c = c·g/|C| in the log (its N's are multiplied by
   e^{ε_c/n}); the spread (|C|−1)·g/|C| is below the smallest gap g, so strict inequalities
   stay and ties go to the later class; afterwards every gap is ≥ g/|C|;
2. *split*: raise the counts to a power ψ and split label c into F_c sub-labels of counts
   V^ψ/F_c (Def. 6), so the sub-labels have a uniform prior;
3. *SafetyTransform* on the sub-labels: multiply the logs by 1/k;
4. *merge*: N_c = F_c · (sub-label count) (Def. 6).

The published log-scores are κ·(ln X_c + ε_c) + (1 − 1/k)·ln F_c with κ = ψ/k (Steps 3 and 4
of SafetyTransform then make the counts realistic integers).  The merge is NBC-preserving
(Lemma 12) when κ·g/|C| exceeds ln(max F / min F) plus twice the rounding error; we take the
smallest such κ (the flattest views, hence the best r) and k large enough that the (1/k)·ln F
term is negligible.  r-closeness follows from Statement 11 when the sub-label views (class c
divided by F(c)) satisfy Corollary 4 with γ = r; that is checked exactly on the output, and
``achieved`` is the smallest r it certifies.  When it fails — Statement 14's condition (21),
a sufficient condition, is then violated too — EST refuses with an InputError.  A quick
necessary test (:func:`contrast`) refuses hopeless cases before any arithmetic.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from fractions import Fraction

from privbayes.core.errors import InputError
from privbayes.methods.nbc.approx import gap_lower_bound, ln_float, log_count, zero_logs
from privbayes.methods.nbc.breach import amplification, exponent
from privbayes.methods.nbc.safety import (
    Offset,
    SafeViews,
    as_integers,
    safety_transform,
    transform_logs,
)
from privbayes.methods.nbc.views import NBCViews

MERGE_MARGIN = Fraction(1, 1000)
"""κ exceeds the merge bound C·ln(R_F)/g by this relative margin."""


def check_prior(prior: Sequence[Fraction], classes: int) -> tuple[Fraction, ...]:
    """F as exact positive fractions summing to 1 (one per class label, in the schema's order)."""
    values = tuple(Fraction(f) for f in prior)
    if len(values) != classes:
        raise InputError(f"--prior: one probability per class label is needed ({classes}), got {len(values)}")
    if any(f <= 0 for f in values):
        raise InputError("--prior: every class label needs a probability > 0 (§7 assumes a strictly positive F)")
    if sum(values) != 1:
        raise InputError(f"--prior: the probabilities must sum to 1, got {float(sum(values)):g}")
    return values


def ln_upper_ratio(q: Fraction) -> Fraction:
    """A rational upper bound on ln q for q ≥ 1: the 30-digit correctly rounded value plus 10⁻²⁵."""
    if q == 1:
        return Fraction(0)
    context = decimal.Context(prec=30)
    value = context.ln(context.divide(decimal.Decimal(q.numerator), decimal.Decimal(q.denominator)))
    return Fraction(value) + Fraction(1, 10**25)


def est(views: NBCViews, prior: Sequence[Fraction], r: Fraction, condition: str = "posterior") -> SafeViews:
    """EST(V, F, r) of Fig. 7: NBC-equivalent integer views with r-closeness w.r.t. F
    guaranteed through Statement 11 (checked exactly), or an InputError saying why not.
    ``condition`` as for :func:`~privbayes.methods.nbc.safety.safety_transform`."""
    r = Fraction(r)
    if not r > 1:
        raise InputError(f"--r: r-closeness needs r > 1, got {show(r)}")
    views = as_integers(views)
    f = check_prior(prior, views.classes)
    ratio = max(f) / min(f)
    if ratio == 1:  # a uniform prior: Split and Merge are the identity (F̃ = 1 in Statement 14)
        done = safety_transform(views, r, condition)
        uniform = amplification(done.views, f, condition)
        if uniform is None:  # pragma: no cover - the transform's views met condition (10), so no count is zero
            raise _infeasible(r)
        return SafeViews(done.views, "est", uniform, condition, r=r, prior=f, k=done.k, kappa=done.kappa)
    n, classes = views.n, views.classes
    g = gap_lower_bound(views)
    ratio_log = ln_upper_ratio(ratio)
    kappa = classes * ratio_log * (1 + MERGE_MARGIN) / g
    slack = kappa * g / classes - ratio_log
    h = slack / (8 * (2 * n - 1))
    e = exponent(condition, n)
    if e * float(kappa) * contrast(views) / 2 > ln_float(r) * (1 + 1e-9):
        raise _infeasible(r)
    k = math.ceil(1000 * e * (2 * n + 3) * float(ratio_log) / ln_float(r)) + 1
    keep = 1 - Fraction(1, k)
    eps = [c * g / classes for c in range(classes)]
    n_offsets = [Offset(kappa * eps[c] / n, keep, f[c]) for c in range(classes)]
    p_offsets = [Offset(Fraction(0), keep, f[c]) for c in range(classes)]
    out = transform_logs(views, kappa, n_offsets, p_offsets, h)
    achieved = amplification(out, f, condition)
    if achieved is None or achieved > r:
        raise _infeasible(r)
    return SafeViews(out, "est", achieved, condition, r=r, prior=f, k=k, kappa=kappa)


def contrast(views: NBCViews) -> float:
    """D = max over attributes and class pairs of max_t d_t − min_t d_t, d_t = ln N_{t,c} − ln N_{t,c'}.

    Step 3 rescales each (class, attribute) by one factor, which leaves N_{t,c}N_{t',c'}/(N_{t,c'}N_{t',c})
    unchanged; so after multiplying the logs by κ some ratio N_{t,c}/N_{t,c'} is ≥ e^{κD/2} and the
    output cannot satisfy Corollary 4 for any γ < e^{nκD/2} (e^{(2n−1)κD/2} for the posterior
    condition): a quick necessary test.
    """
    lam = zero_logs(views)
    widest = 0.0
    for attr in views.attributes:
        logs = [[log_count(int(v), lam[c]) for c, v in enumerate(row)] for row in attr.counts]
        for c in range(views.classes):
            for d in range(c + 1, views.classes):
                diffs = [row[c] - row[d] for row in logs]
                widest = max(widest, max(diffs) - min(diffs))
    return widest


def show(value: Fraction) -> str:
    """A rational for messages: %g, or a power of ten when a float cannot hold it."""
    exponent = ln_float(value) / math.log(10) if value > 0 else 0.0
    return f"{float(value):g}" if abs(exponent) < 300 else f"1e{exponent:.0f}"


def _infeasible(r: Fraction) -> InputError:
    return InputError(f"EST: r-closeness r = {show(r)} cannot be guaranteed for this data and --prior: keeping the "
                      "classifier's ranking through the merge (Lemma 12) needs count ratios beyond r^(1/n) once "
                      "divided by F (Statement 14's condition fails); raise --r, or use --gamma (uniform prior)")
