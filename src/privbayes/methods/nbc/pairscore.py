"""One class pair of one NBC, as exact integers (Mozafari & Zaniolo, VLDB 2009, eq. (2) and Def. 2).

For classes c < d the classifier ranks d first or ties them (ties go to the later class) when

    X_{τ,c} ≤ X_{τ,d}  ⇔  A(τ) ≤ B(τ),   A(τ) = Π_i N^i_{t_i,c} · P_d^(n−1),  B(τ) = Π_i N^i_{t_i,d} · P_c^(n−1),

an inequality between integers once the counts are integers (a uniform scaling of all counts
changes no ranking).  Zeros need no special case: a zero N_{t,c} makes A = 0 ≤ B (d ranks
first or ties); a zero N_{t,d} alone makes B = 0 < A.  On a sub-domain where no count of
either class is zero the comparison is the sign of the additive score

    S(τ) = ln B(τ) − ln A(τ) = Σ_i (ln N^i_{t_i,d} − ln N^i_{t_i,c}) + (n−1)(ln P_c − ln P_d).

The equivalence check (:mod:`privbayes.methods.nbc.equivalence`) works on *boxes*, products of value
subsets D = V_1 × … × V_n.  On a box this module answers exactly, in O(Σ_i |V_i|) products,
whether some τ ∈ D ranks d first (or not), and returns such a τ (the witness), because A and
B are products of one factor per attribute: the extreme ratio Π N_d/N_c is the product of
each attribute's extreme ratio.  It also gives max(A, B) over D, which bounds how close to
zero a non-zero S can come (Statement 8's integer argument: A ≠ B ⇒ |S| ≥ 1/max(A, B)).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from privbayes.methods.nbc.views import NBCViews

Box = tuple[tuple[int, ...], ...]
"""Value indices allowed for each attribute (non-empty, increasing)."""


def integer_counts(views: NBCViews) -> tuple[list[int], list[list[list[int]]]]:
    """The prior and ``counts[i][t][c]`` scaled by the common denominator (exact integers)."""
    scale = math.lcm(*(Fraction(v).denominator for v in views.all_counts()))
    prior = [int(Fraction(p) * scale) for p in views.prior]
    counts = [[[int(Fraction(v) * scale) for v in row] for row in a.counts] for a in views.attributes]
    return prior, counts


@dataclass(frozen=True)
class PairScores:
    """Classes c < d of one NBC: ``nc[i][t]`` = N^i_{t,c}, ``nd[i][t]`` = N^i_{t,d}, priors ``pc``, ``pd``
    (integers)."""

    nc: tuple[tuple[int, ...], ...]
    nd: tuple[tuple[int, ...], ...]
    pc: int
    pd: int

    @classmethod
    def of(cls, views: NBCViews, c: int, d: int) -> PairScores:
        prior, counts = integer_counts(views)
        return cls(tuple(tuple(row[c] for row in attr) for attr in counts),
                   tuple(tuple(row[d] for row in attr) for attr in counts), prior[c], prior[d])

    @property
    def n(self) -> int:
        return len(self.nc)

    def sides(self, tup: Sequence[int]) -> tuple[int, int]:
        """(A(τ), B(τ)) of the module docstring."""
        power = self.n - 1
        return (math.prod(self.nc[i][t] for i, t in enumerate(tup)) * self.pd ** power,
                math.prod(self.nd[i][t] for i, t in enumerate(tup)) * self.pc ** power)

    def later_first(self, tup: Sequence[int]) -> bool:
        """X_{τ,c} ≤ X_{τ,d}: class d ranks before c (ties go to the later class d)."""
        a, b = self.sides(tup)
        return a <= b

    def zero_free(self, i: int, t: int) -> bool:
        return self.nc[i][t] > 0 and self.nd[i][t] > 0

    def witness(self, box: Box, later: bool) -> tuple[int, ...] | None:
        """A tuple of ``box`` with ``later_first(τ) == later``, or None when there is none (exact)."""
        return self._later(box) if later else self._earlier(box)

    def _later(self, box: Box) -> tuple[int, ...] | None:
        for i, values in enumerate(box):  # a zero N_c gives A = 0 ≤ B whatever the other values
            zero = next((t for t in values if self.nc[i][t] == 0), None)
            if zero is not None:
                return tuple(zero if j == i else v[0] for j, v in enumerate(box))
        best = tuple(self._extreme(i, values, largest=True) for i, values in enumerate(box))
        return best if self.later_first(best) else None

    def _earlier(self, box: Box) -> tuple[int, ...] | None:
        allowed = [tuple(t for t in values if self.nc[i][t] > 0) for i, values in enumerate(box)]
        if not all(allowed):  # every tuple has a zero N_c, so A = 0 ≤ B
            return None
        # the smallest ratio N_d/N_c per attribute (a zero N_d is the smallest: then B = 0 < A)
        worst = tuple(self._extreme(i, values, largest=False) for i, values in enumerate(allowed))
        return None if self.later_first(worst) else worst

    def _extreme(self, i: int, values: Sequence[int], largest: bool) -> int:
        """The value of attribute i with the largest (smallest) ratio N_d/N_c, for N_c > 0."""
        nc, nd = self.nc[i], self.nd[i]
        best = values[0]
        for t in values[1:]:
            above = nd[t] * nc[best] > nd[best] * nc[t]
            if above if largest else nd[t] * nc[best] < nd[best] * nc[t]:
                best = t
        return best

    def largest_side(self, box: Box) -> int:
        """max over τ ∈ box of max(A(τ), B(τ)); a non-zero S(τ) has |S(τ)| ≥ 1/this (ln(1+x) ≥ x/(1+x))."""
        power = self.n - 1
        a: int = math.prod(max(self.nc[i][t] for t in values) for i, values in enumerate(box)) * self.pd ** power
        b: int = math.prod(max(self.nd[i][t] for t in values) for i, values in enumerate(box)) * self.pc ** power
        return max(a, b, 1)

    def float_terms(self, i: int, t: int) -> float:
        """ln N_d − ln N_c as a float (for choosing splits only; never for a decision)."""
        return math.log(self.nd[i][t]) - math.log(self.nc[i][t])


def same_scores(first: PairScores, second: PairScores, box: Box) -> bool:
    """S_2 ≡ S_1 on a zero-free box, exactly: each attribute's ratio (N_d/N_c)_2 / (N_d/N_c)_1 is one
    constant ρ_i over the box, and Π_i ρ_i times the priors' ratio to the power n−1 is 1 (as
    for views that differ by a uniform or a per-(class, attribute) scaling that keeps the scores)."""
    total = Fraction(second.pc * first.pd, second.pd * first.pc) ** (first.n - 1)
    for i, values in enumerate(box):
        rho = [(second.nd[i][t] * first.nc[i][t], second.nc[i][t] * first.nd[i][t]) for t in values]
        top, bottom = rho[0]
        if any(x * bottom != top * y for x, y in rho[1:]):
            return False
        total *= Fraction(top, bottom)
    return total == 1


class FixedLogs:
    """ln of positive integers in fixed point: ``L(v)`` = ⌊ln(v)·10^digits⌋, within 1 of ln(v)·10^digits.

    ``decimal``'s ln is correctly rounded (Python docs: "correctly rounded using the
    ROUND_HALF_EVEN rounding mode").  We ask for ``digits`` + 12 + w significant digits, where
    w ≥ the number of digits of ln(v)'s integer part (ln v < 0.7·bit_length), so the error is
    below 10^(−digits−10) before the (exact) scaling and the floor: L(v) is off by < 1 + 10^(−10).
    Callers use :data:`ERROR` = 2 units per logarithm.
    """

    ERROR = 2

    def __init__(self, digits: int) -> None:
        self.digits = digits
        self._cache: dict[int, int] = {}

    def __call__(self, value: int) -> int:
        out = self._cache.get(value)
        if out is None:
            if value < 1:
                raise ValueError("FixedLogs needs positive integers")
            width = len(str(value.bit_length())) + 1
            ctx = decimal.Context(prec=self.digits + 12 + width, rounding=decimal.ROUND_HALF_EVEN,
                                  Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
            scaled = ctx.scaleb(ctx.ln(decimal.Decimal(value)), self.digits)
            out = int(scaled.to_integral_value(rounding=decimal.ROUND_FLOOR))
            self._cache[value] = out
        return out
