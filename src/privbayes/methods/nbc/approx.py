"""The exact numerics behind SafetyTransform and EST (Mozafari & Zaniolo, VLDB 2009, §6.2).

Everything happens on logarithms of counts.  The ranking of eq. (2) depends only on

    ln X_{τ,c} = Σ_i ln N^i_{t_i,c} − (n−1) ln P_c,

so a view whose logs are κ·(original logs) + a per-class offset β_c, up to an error E per
score, ranks every tuple as the original does provided the offsets break the ties the right
way and κ·g exceeds the offsets' spread plus 2E, where g is the smallest non-zero gap
|ln X_{τ,c} − ln X_{τ,c'}| (Statement 7's ε, Statement 8's bound).  This module supplies the
pieces with proven bounds:

* :func:`gap_lower_bound`: g, exactly by enumeration of the domain when it is small, else
  Statement 8's integer argument (|A − B| ≥ 1 for integers A ≠ B ≤ U gives g ≥ 1/(U+1));
* :func:`zero_logs`: Step 1 (Fig. 3) on the log scale: a zero count of class c becomes
  e^{−Λ_c}, with Λ decreasing in c so that tuples with zeros keep their order with margin ≥ 1;
* :func:`exp_approx`: rationals within relative error h of e^z (Step 2, Line 4), using the
  correctly rounded ``decimal`` ln/exp (Python docs: "correctly rounded using ROUND_HALF_EVEN");
* :func:`realise` (Steps 3 and 4): integers with Σ_t N^i_{t,c} = P_c exactly whose scores are
  within a relative error bound of Step 3's exact rational scores.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from privbayes.methods.nbc.equivalence import DEFAULT_LIMIT, integer_scores
from privbayes.methods.nbc.views import Count, NBCViews

LN2_UPPER = Fraction(7, 10)


def ln_upper(value: int) -> Fraction:
    """A rational upper bound on ln(value) for an integer ≥ 1 (ln 2 < 0.7)."""
    return LN2_UPPER * value.bit_length()


def gap_lower_bound(views: NBCViews, limit: int = DEFAULT_LIMIT) -> Fraction:
    """A lower bound g ≤ 1 on |ln X_{τ,c} − ln X_{τ,c'}| over tuples where both are positive and differ.

    Uses ln(A/B) ≥ (A−B)/A for A > B on the exact integer scores of the whole domain when
    it has at most ``limit`` cells; otherwise 1/(U+1) with U = M^(2n−1) ≥ every cross product.
    """
    if views.domain_size * views.classes <= limit:
        scores = integer_scores(views, limit)
        best = Fraction(1)
        for c in range(views.classes):
            for d in range(c + 1, views.classes):
                a, b = scores[:, c], scores[:, d]
                mask = (a != 0) & (b != 0) & (a != b)
                if mask.any():
                    high, low = np.maximum(a[mask], b[mask]), np.minimum(a[mask], b[mask])
                    # int / int is correctly rounded for integers of any size: the exact minimum is
                    # among the candidates within a relative 1e-6 of the float minimum
                    relative = np.array([float(x) for x in (high - low) / high])
                    near = np.flatnonzero(relative <= relative.min() * (1 + 1e-6) + 1e-300)
                    best = min(best, *(Fraction(int(high[j] - low[j]), int(high[j])) for j in near))
        return best
    biggest = max(int(v) for v in views.all_counts())
    return min(Fraction(1), Fraction(1, biggest ** (2 * views.n - 1) + 1))


def zero_logs(views: NBCViews) -> list[Fraction]:
    """Λ_c of Step 1: a zero N^i_{t,c} stands for e^{−Λ_c} (only conceptually; we never exponentiate it alone).

    With L ≥ ln M (M the largest count, every count ≥ 1 otherwise) and
    Λ_{|C|−1} = 2(n−1)L + 1, Λ_c = n·Λ_{c+1} + 2(n−1)L + 1:
    (a) a score with a zero factor is below every zero-free score by ≥ 1 in log
        (≤ (n−1)L − Λ_c versus ≥ −(n−1)L);
    (b) two scores with zeros, c < c', keep c' first by ≥ 1 in log
        (≤ (n−1)L − Λ_c versus ≥ −n·Λ_{c'} − (n−1)L),
    which is the tie-break the original all-zero tie had.  This replaces Fig. 3's bound
    S^i_{t,c}, which omits the P_c^(n−1) denominators of eq. (2).
    """
    n = views.n
    bound = ln_upper(max(int(v) for v in views.all_counts()))
    lam = [Fraction(0)] * views.classes
    lam[-1] = 2 * (n - 1) * bound + 1
    for c in range(views.classes - 2, -1, -1):
        lam[c] = n * lam[c + 1] + 2 * (n - 1) * bound + 1
    return lam


def ln_float(value: int | Fraction) -> float:
    """ln of a positive rational of any size as a float (float(value) overflows beyond 1e308)."""
    value = Fraction(value)
    return math.log(value.numerator) - math.log(value.denominator)


def log_count(value: int, lam: Fraction) -> float:
    """ln of a Step-1 count as a float (zeros are −Λ_c), for sizing k only."""
    return math.log(value) if value > 0 else -float(lam)


def exp_approx(kappa: Fraction, counts: Sequence[Count], lam: Fraction, offset: Fraction,
               log_factor: Fraction, factor: Fraction, h: Fraction) -> list[Fraction]:
    """Rationals r with |ln r − z| ≤ h/2 for z = κ·ℓ(count) + offset + log_factor·ln(factor).

    ℓ(count) = ln count, or −Λ_c for a zero.  Each of the ≤ 8 decimal operations (ln of the
    count, ln of the factor, conversions of κ, offset and log_factor, products, sums, exp)
    is correctly rounded to p digits, i.e. within ½·10^{1−p} relative; on magnitudes ≤ B
    their sum is ≤ 8·10^{1−p}·(B + 1) in the log, and p is chosen to make that ≤ h/2.
    """
    magnitude = max(abs(log_count(int(v), lam)) for v in counts) * float(kappa) + abs(float(offset)) \
        + abs(float(log_factor)) * abs(math.log(float(factor))) + 2.0
    digits = math.ceil(math.log10(16 * (magnitude + 1) / float(h))) + 3
    context = decimal.Context(prec=max(digits, 20), rounding=decimal.ROUND_HALF_EVEN, Emin=-999999, Emax=999999)

    def dec(q: Fraction) -> decimal.Decimal:
        return context.divide(decimal.Decimal(q.numerator), decimal.Decimal(q.denominator))

    base = context.add(dec(offset), context.multiply(dec(log_factor), context.ln(dec(factor))))
    k = dec(kappa)
    out = []
    cache: dict[int, Fraction] = {}
    for v in counts:
        v = int(v)
        if v not in cache:
            ell = context.ln(decimal.Decimal(v)) if v > 0 else dec(-lam)
            cache[v] = Fraction(context.exp(context.add(context.multiply(k, ell), base)))
        out.append(cache[v])
    return out


def largest_remainder(targets: Sequence[Fraction], total: int) -> list[int]:
    """Integers u_t with Σ u_t = total and |u_t − v_t| < 1, for rationals v_t summing to total."""
    floors = [math.floor(v) for v in targets]
    short = total - sum(floors)
    order = sorted(range(len(targets)), key=lambda t: targets[t] - floors[t], reverse=True)
    for t in order[:short]:
        floors[t] += 1
    return floors


def realise(prior: Sequence[Fraction], counts: Sequence[Sequence[Sequence[Fraction]]], h: Fraction
            ) -> tuple[list[int], list[list[list[int]]]]:
    """Steps 3 and 4 on class-major counts ``counts[c][i][t]`` (Fig. 5, §6.2.4): integer counts with
    Σ_t N^i_{t,c} = P_c.

    Step 3 keeps every score: P_c ← Π_i S^c_i / P_c^(n−1), N^i_{t,c} ← P_c·N^i_{t,c}/S^c_i with
    S^c_i = Σ_t N^i_{t,c} (Statement 9b).  Step 4 scales all classes by one λ (a uniform
    scaling keeps the ranking) so the smallest target count is ≥ V = ⌈(2n+2)/h⌉ + 2, rounds P_c
    to the nearest integer and each N^i_{·,c} by largest remainder to sum to P_c.  Each count
    then moves by < 1, i.e. ≤ 2/(V−1) in the log, and a score by ≤ (2n+1)/(V−1) < h: the caller
    counts h in its error budget.  (Multiplying out all denominators instead gives exact but
    astronomically large integers.)
    """
    n = len(counts[0])
    classes = len(prior)
    step3 = []
    for c in range(classes):
        s = [sum(attr) for attr in counts[c]]
        p3 = math.prod(s) / prior[c] ** (n - 1)
        step3.append((p3, [[p3 * v / s_i for v in attr] for attr, s_i in zip(counts[c], s)]))
    smallest = min(min(v for attr in rows for v in attr) for _, rows in step3)
    target = math.ceil((2 * n + 2) / h) + 2
    scale = Fraction(target) / smallest
    new_prior = [max(1, round(scale * p3)) for p3, _ in step3]
    new_counts = []
    for c, (p3, rows) in enumerate(step3):
        new_counts.append([largest_remainder([new_prior[c] * v / p3 for v in attr], new_prior[c]) for attr in rows])
    return new_prior, new_counts
