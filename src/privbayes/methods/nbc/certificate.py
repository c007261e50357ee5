"""A certificate that two NBCs rank one class pair alike on a whole box, without enumerating it.

On a box D where no count of classes c < d is zero in either classifier, each ranks d first
exactly when its additive score S_k(τ) = Σ_i s_k^i(t_i) + s_k^0 is ≥ 0
(:mod:`privbayes.methods.nbc.pairscore`).  They disagree on τ in one of two ways:

    (A) S_1(τ) < 0 ≤ S_2(τ)          (B) S_2(τ) < 0 ≤ S_1(τ).

Let g_k = 1/max_D max(A_k, B_k), so that S_k(τ) ≠ 0 ⇒ |S_k(τ)| ≥ g_k (Statement 8's integer
argument), and, for a slope λ > 0, Hi = max_D (S_2 − λS_1) and Lo = min_D (S_2 − λS_1), which
are separable: Σ_i max_t (s_2^i(t) − λ s_1^i(t)) + s_2^0 − λ s_1^0.

* (A) is impossible when Hi < λ·g_1:  S_1 < 0 ⇒ S_1 ≤ −g_1, so S_2 ≥ 0 would give S_2 − λS_1 ≥ λg_1.
* (B) is impossible when Lo > −g_2:   S_2 < 0 ⇒ S_2 ≤ −g_2, so S_1 ≥ 0 would give S_2 − λS_1 ≤ −g_2.

That is: the second score stays in a tube around λ times the first, narrower than the gaps.
SafetyTransform and EST publish exactly such views (their scores are κ·S_1 + a class offset
+ an error, all smaller than κ times the gap bound they used, §6.2 and §7), so λ = κ, which we
fit from the views themselves, certifies them.  Any λ > 0 gives a valid certificate, so the
fit needs no proof; only the bounds do.

Arithmetic: logs in fixed point with ``digits`` decimals (:class:`~privbayes.methods.nbc.pairscore.FixedLogs`,
each within 2 units), λ = p/q exact, everything else in integers.  A score is a sum of 2n log
differences, so q·S_2 − p·S_1 is known within E = (p + q)·2·(4n − 2) units, and each
inequality is decided only when it holds (or fails) by more than E; otherwise the precision
doubles, up to ``max_digits``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

from privbayes.methods.nbc.pairscore import Box, FixedLogs, PairScores

MAX_DIGITS = 512
"""Largest number of decimals the certificate computes logarithms to (``decimal``'s ln takes
about 5 ms per value at 512 digits, 3 s at 4000)."""

START_DIGITS = 32


class LogTables:
    """:class:`FixedLogs` per precision, shared by every box of a search (each log is computed once)."""

    def __init__(self) -> None:
        self._tables: dict[int, FixedLogs] = {}

    def at(self, digits: int) -> FixedLogs:
        if digits not in self._tables:
            self._tables[digits] = FixedLogs(digits)
        return self._tables[digits]


def _terms(scores: PairScores, box: Box, logs: FixedLogs) -> tuple[list[list[int]], int]:
    """Fixed-point s^i(t) = ln N_d − ln N_c per value of the box, and s^0 = (n−1)(ln P_c − ln P_d)."""
    terms = [[logs(scores.nd[i][t]) - logs(scores.nc[i][t]) for t in values] for i, values in enumerate(box)]
    return terms, (scores.n - 1) * (logs(scores.pc) - logs(scores.pd))


def slopes(a: list[list[int]], b: list[list[int]]) -> Iterator[Fraction]:
    """Candidate λ > 0: the least-squares slope of b on a (centred per attribute), then the
    slope between the two extreme values of the attribute where a varies most."""
    num, den = Fraction(0), Fraction(0)
    for xs, ys in zip(a, b):
        if len(xs) > 1:
            m = len(xs)
            cx = [m * x - sum(xs) for x in xs]
            cy = [m * y - sum(ys) for y in ys]
            num += Fraction(sum(x * y for x, y in zip(cx, cy)), m * m)
            den += Fraction(sum(x * x for x in cx), m * m)
    if den > 0 and num > 0:
        yield num / den
    widest = max(range(len(a)), key=lambda i: max(a[i]) - min(a[i]))
    xs, ys = a[widest], b[widest]
    hi, lo = xs.index(max(xs)), xs.index(min(xs))
    if xs[hi] != xs[lo] and ys[hi] > ys[lo]:
        yield Fraction(ys[hi] - ys[lo], xs[hi] - xs[lo])


def certify(first: PairScores, second: PairScores, box: Box, directions: frozenset[str],
            tables: LogTables | None = None, max_digits: int = MAX_DIGITS) -> frozenset[str]:
    """The directions among ``directions`` ("A", "B" above) proven impossible on ``box``.

    The box must be zero-free for both classes in both classifiers (the caller's job).  The
    precision starts at :data:`START_DIGITS` decimals and doubles while an inequality is
    undecided (SafetyTransform's outputs on Adult need about 135).
    """
    n = first.n
    tables = tables or LogTables()
    m1, m2 = first.largest_side(box), second.largest_side(box)
    digits = min(START_DIGITS, max_digits)
    proven: set[str] = set()
    while True:
        logs = tables.at(digits)
        a, a0 = _terms(first, box, logs)
        b, b0 = _terms(second, box, logs)
        unit = 10**digits
        wanted: list[float] = []  # decimals that would resolve each undecided inequality at its bound
        for lam in slopes(a, b):
            p, q = lam.numerator, lam.denominator
            error = (p + q) * FixedLogs.ERROR * (4 * n - 2)
            mixed = [[q * y - p * x for x, y in zip(xs, ys)] for xs, ys in zip(a, b)]
            constant = q * b0 - p * a0
            if "A" in directions and "A" not in proven:
                high = sum(max(row) for row in mixed) + constant
                if (high + error) * m1 < p * unit:
                    proven.add("A")
                elif (high - error) * m1 < p * unit:
                    wanted.append(_digits(error * m1, p))
            if "B" in directions and "B" not in proven:
                low = sum(min(row) for row in mixed) + constant
                if (low - error) * m2 > -q * unit:
                    proven.add("B")
                elif (low + error) * m2 > -q * unit:
                    wanted.append(_digits(error * m2, q))
            if directions <= proven:
                return frozenset(proven)
        if not wanted or digits >= max_digits:
            return frozenset(proven)
        # double, or go straight to the precision at which the error is below the bound itself
        # (a guess that saves a round: correctness never depends on it)
        target = min(wanted)
        digits = min(max_digits, math.ceil(target) + 4 if digits < target < 2 * digits else 2 * digits)


def _digits(scaled_error: int, scale: int) -> float:
    """log10(scaled_error / scale): the decimals D at which an inequality's rounding error
    (error·m, against p·10^D or q·10^D) falls below its bound."""
    return (scaled_error.bit_length() - scale.bit_length()) * math.log10(2)
