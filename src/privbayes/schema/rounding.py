"""Bounds rounded outward on a round grid, for schema drafts: public arithmetic on two numbers
(docs/decisions.md, "Schema drafts: exact spelling, outward rounding, point masses").

Rounding to a fixed number of significant digits leaves small integers as they are (ages 19..91
stay 19..91), so a draft that said "rounded outward" published the data's exact extremes.  Here
the grid follows the spread, and a bound lands on an extreme only when the extreme is round.
"""

from __future__ import annotations

import math
from decimal import Decimal

MIN_STEP_EXPONENT = -300
"""The finest grid step is 10^-300: narrower bins would be subnormal floats."""


def outward_bounds(low: float, high: float, integer: bool = False) -> tuple[float, float]:
    """Bounds around a range [low, high] on a round grid.

    The grid's step is the first number of the 1-2-5 × 10^k series at least a tenth of the spread
    (at least 1 for whole numbers, at least 10^-300 so that bins stay normal floats); each bound is
    the grid point at or beyond its extreme.  A bound may equal the extreme only when the extreme is
    *round*: 0 or a multiple of the first 1-2-5 × 10^k number at least the spread (ages 19..91
    give 10..100, ages 10..90 give 0..100); otherwise it moves out one more step.  A constant
    column gets one step above its value.  Each bound is the float of a short decimal spelling."""
    spread = high - low if high > low else (abs(high) or 1.0)
    mantissa, exponent = _grid_step(spread / 10)
    if integer and exponent < 0:
        mantissa, exponent = 1, 0
    lower, upper = _grid(low, mantissa, exponent, -1, 0), _grid(high, mantissa, exponent, +1, 0)
    coarse = _grid_step(spread)
    if lower == low and not _round(low, *coarse):
        lower = _grid(low, mantissa, exponent, -1, 1)
    if upper == high and not _round(high, *coarse):
        upper = _grid(high, mantissa, exponent, +1, 1)
    if not lower < upper:
        upper = _grid(high, mantissa, exponent, +1, 1)
    return lower, upper


def _grid_step(least: float) -> tuple[int, int]:
    """The first step m × 10^e (m in 1, 2, 5; e ≥ −300) at least ``least``, as (m, e)."""
    exponent = max(MIN_STEP_EXPONENT, math.floor(math.log10(least)) if least > 0 else MIN_STEP_EXPONENT)
    for e in (exponent - 1, exponent, exponent + 1):
        for m in (1, 2, 5):
            if e >= MIN_STEP_EXPONENT and float(f"{m}e{e}") >= least:
                return m, e
    return 1, exponent + 2  # pragma: no cover  (log10 is off by at most one)


def _grid(x: float, mantissa: int, exponent: int, direction: int, beyond: int) -> float:
    """The grid point q·m·10^e at or below x (direction −1) or at or above it (+1), then ``beyond``
    steps further out, as the float of its decimal spelling (float division may miss by a step, so
    the point is checked against x)."""
    q = (math.floor if direction < 0 else math.ceil)(x / float(f"{mantissa}e{exponent}"))
    while (float(f"{q * mantissa}e{exponent}") > x) if direction < 0 else (float(f"{q * mantissa}e{exponent}") < x):
        q += direction
    return float(f"{(q + direction * beyond) * mantissa}e{exponent}")


def _round(x: float, mantissa: int, exponent: int) -> bool:
    """Whether x is 0 or a multiple of m·10^e, exactly, on its shortest decimal spelling."""
    return x == 0 or Decimal(repr(x)) % Decimal(f"{mantissa}e{exponent}") == 0
