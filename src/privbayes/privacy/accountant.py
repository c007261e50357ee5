"""The privacy budget accountant and its ledger.

One accountant per release.  Every mechanism asks it for permission *before*
touching data (``charge``); it refuses with :class:`BudgetExceededError` when the
request would exceed the total ε.  Budgets are kept as exact rationals so that
Σ ε over many steps never drifts above the total by floating-point error.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction

NEIGHBOURING_RELATION = "replace one tuple; the number of tuples n is public (TODS 2017, Def. 2.1)"


class BudgetExceededError(RuntimeError):
    """A mechanism asked for more ε than the accountant has left."""


@dataclass(frozen=True)
class LedgerEntry:
    """One paid-for release: what was measured, how, and what it cost."""

    step: str
    mechanism: str
    epsilon: float
    sensitivity: float
    measured: str

    def to_dict(self) -> dict:
        return asdict(self)


def as_fraction(value: float | Fraction | int) -> Fraction:
    """The exact rational value of a float, int or Fraction."""
    return value if isinstance(value, Fraction) else Fraction(value)


class Accountant:
    """Tracks ε spent under sequential composition and refuses to overspend."""

    def __init__(self, total_epsilon: float | Fraction) -> None:
        total = as_fraction(total_epsilon)
        if total <= 0:
            raise ValueError(f"epsilon ({float(total)}) must be positive")
        self.total = total
        self._spent = Fraction(0)
        self._ledger: list[LedgerEntry] = []

    @property
    def spent(self) -> Fraction:
        return self._spent

    @property
    def remaining(self) -> Fraction:
        return self.total - self._spent

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        return tuple(self._ledger)

    def charge(self, epsilon: float | Fraction, *, step: str, mechanism: str, sensitivity: float, measured: str) -> None:
        """Debit ``epsilon`` and record it; raise before anything is spent if it does not fit."""
        cost = as_fraction(epsilon)
        if cost <= 0:
            raise ValueError(f"epsilon of step {step!r} ({float(cost)}) must be positive")
        if self._spent + cost > self.total:
            raise BudgetExceededError(
                f"step {step!r} needs ε = {float(cost):.6g} but only {float(self.remaining):.6g} "
                f"of {float(self.total):.6g} is left"
            )
        self._spent += cost
        self._ledger.append(LedgerEntry(step, mechanism, float(cost), float(sensitivity), measured))
