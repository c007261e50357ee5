"""The privacy budget accountant and its ledger.

One accountant per release.  Every mechanism is charged *before* it touches data
(``charge``), from the cost it declares (its privacy map, :mod:`privacy.mechanisms`);
the accountant refuses with :class:`BudgetExceededError` when the charge would exceed
the total.  Budgets are exact rationals, so Σ ε over many steps never drifts above
the total by floating-point error, and the ledger keeps the exact values.

Under zero-concentrated DP (:mod:`privbayes.privacy.zcdp`) a :class:`ZCDPAccountant` does the same in ρ:
each mechanism declares its zCDP cost (``zcdp_cost()``), sequential composition adds ρ, and its ledger
entries carry ρ (their pure ε is 0: a Gaussian release has none).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol


class BudgetExceededError(RuntimeError):
    """A mechanism asked for more ε (or δ) than the accountant has left."""


@dataclass(frozen=True)
class Cost:
    """What a release costs under the neighbouring relation of its declared sensitivity: (ε, δ)-DP, exact."""

    epsilon: Fraction
    delta: Fraction = Fraction(0)


class Measurement(Protocol):
    """A mechanism as a value: what it adds, at which sensitivity, and what it costs."""

    name: str

    @property
    def sensitivity(self) -> Fraction:
        ...

    def cost(self) -> Cost:
        """The privacy map at the declared sensitivity, known before any data is read."""
        ...


class ZCDPMeasurement(Protocol):
    """A mechanism that states its cost in zCDP: ρ at its declared sensitivity, known before any data is read."""

    name: str

    @property
    def sensitivity(self) -> Fraction:
        ...

    def zcdp_cost(self) -> Fraction:
        """ρ such that the release is ρ-zCDP."""
        ...


@dataclass(frozen=True)
class LedgerEntry:
    """One paid-for release: what was measured, how, and what it cost (exact rationals)."""

    step: str
    mechanism: str
    epsilon: Fraction
    sensitivity: Fraction
    measured: str
    delta: Fraction = Fraction(0)
    rho: Fraction | None = None
    """The zCDP cost of an entry of a :class:`ZCDPAccountant` (None under pure ε)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "mechanism": self.mechanism, "epsilon": float(self.epsilon),
                               "sensitivity": float(self.sensitivity), "measured": self.measured,
                               "epsilon_exact": str(self.epsilon), "sensitivity_exact": str(self.sensitivity)}
        if self.delta:
            out["delta"] = float(self.delta)
            out["delta_exact"] = str(self.delta)
        if self.rho is not None:
            out["rho"] = float(self.rho)
            out["rho_exact"] = str(self.rho)
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> LedgerEntry:
        """An entry from :meth:`to_dict` (exact values when present, else the floats' exact values)."""
        def exact(key: str) -> Fraction:
            shown, text = raw.get(key, 0), raw.get(f"{key}_exact")
            value = as_fraction(shown)
            if text is not None:
                if not isinstance(text, str) or Fraction(text) != value and float(Fraction(text)) != shown:
                    raise ValueError(f"ledger {key} and {key}_exact disagree")
                value = Fraction(text)
            return value
        allowed = {"step", "mechanism", "epsilon", "sensitivity", "measured", "delta",
                   "epsilon_exact", "sensitivity_exact", "delta_exact", "rho", "rho_exact"}
        if set(raw) - allowed:
            raise ValueError(f"unknown ledger keys {sorted(set(raw) - allowed)}")
        if not all(isinstance(raw.get(k), str) for k in ("step", "mechanism", "measured")):
            raise ValueError("ledger step, mechanism and measured must be text")
        rho = exact("rho") if "rho" in raw or "rho_exact" in raw else None
        return cls(raw["step"], raw["mechanism"], exact("epsilon"), exact("sensitivity"), raw["measured"],
                   exact("delta"), rho)


def as_fraction(value: float | Fraction | int) -> Fraction:
    """The exact rational value of a float, int or Fraction."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    return value if isinstance(value, Fraction) else Fraction(value)


class _Budget:
    """A budget kept as an exact rational, what has been charged against it, and the ledger of the charges:
    the part the pure-ε and the zCDP accountants share (each says what its unit is and how a charge is priced)."""

    def __init__(self, total: float | Fraction, unit: str) -> None:
        exact_total = as_fraction(total)
        if exact_total <= 0:
            raise ValueError(f"{unit} ({float(exact_total)}) must be positive")
        self.total = exact_total
        self._spent = Fraction(0)
        self._ledger: list[LedgerEntry] = []

    @property
    def spent(self) -> Fraction:
        """The budget charged so far (exact)."""
        return self._spent

    @property
    def remaining(self) -> Fraction:
        """The budget left: total minus spent (exact)."""
        return self.total - self._spent

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """Every charge in order, one :class:`LedgerEntry` each."""
        return tuple(self._ledger)


class Accountant(_Budget):
    """Tracks (ε, δ) spent under sequential composition and refuses to overspend.

    One accountant per release: every mechanism charges it before it touches data, and its ledger is
    checked against the plan computed before the fit (docs/decisions.md, "Privacy").

    Parameters
    ----------
    total_epsilon : float or Fraction
        The budget ε > 0, kept as the exact rational of the value given (``as_fraction``).
    total_delta : float or Fraction, default 0
        The budget δ ≥ 0 (only the (ε, δ) mechanisms spend it).

    Raises
    ------
    ValueError
        ε is not positive.
    """

    def __init__(self, total_epsilon: float | Fraction, total_delta: float | Fraction = 0) -> None:
        super().__init__(total_epsilon, "epsilon")
        self.total_delta = as_fraction(total_delta)
        self._spent_delta = Fraction(0)

    @property
    def spent_delta(self) -> Fraction:
        """The δ charged so far (exact)."""
        return self._spent_delta

    def charge(self, measurement: Measurement, *, step: str, measured: str) -> Cost:
        """Debit what ``measurement`` declares and record it; raise before anything is spent if it does not fit.

        Parameters
        ----------
        measurement : Measurement
            The mechanism about to run: its name, declared sensitivity and privacy map (``cost()``).
        step : str
            Which step of the algorithm pays (the plan's name for it).
        measured : str
            What is measured (e.g. the attributes of a noisy table), for the ledger.

        Returns
        -------
        Cost
            The (ε, δ) debited.

        Raises
        ------
        BudgetExceededError
            The charge would exceed the total ε or δ; nothing is debited.
        ValueError
            The declared cost is not positive.
        """
        cost = measurement.cost()
        if cost.epsilon <= 0 or cost.delta < 0:
            raise ValueError(f"step {step!r}: a charge needs epsilon > 0 and delta >= 0")
        if self._spent + cost.epsilon > self.total or self._spent_delta + cost.delta > self.total_delta:
            raise BudgetExceededError(
                f"step {step!r} needs ε = {float(cost.epsilon):.6g} but only {float(self.remaining):.6g} "
                f"of {float(self.total):.6g} is left"
                + (f" (δ: needs {float(cost.delta):.3g}, {float(self.total_delta - self._spent_delta):.3g} left)"
                   if cost.delta else ""))
        self._spent += cost.epsilon
        self._spent_delta += cost.delta
        self._ledger.append(LedgerEntry(step, measurement.name, cost.epsilon, Fraction(measurement.sensitivity),
                                        measured, cost.delta))
        return cost


class ZCDPAccountant(_Budget):
    """Tracks ρ spent under zero-concentrated DP and refuses to overspend: sequential composition adds ρ
    (Bun & Steinke, TCC 2016, Lemma 2.3), kept as an exact rational.

    The ledger has the :class:`LedgerEntry` type of the pure-ε accountant, with ``rho`` set and ``epsilon``
    0, so a plan is checked against it the same way (:meth:`~privbayes.privacy.plan.BudgetPlan.check`).  The
    (ε, δ) a total ρ implies is :func:`privbayes.privacy.zcdp.epsilon_for`.

    Parameters
    ----------
    total_rho : float or Fraction
        The budget ρ > 0, kept as the exact rational of the value given.

    Raises
    ------
    ValueError
        ρ is not positive.
    """

    def __init__(self, total_rho: float | Fraction) -> None:
        super().__init__(total_rho, "rho")

    def charge(self, measurement: ZCDPMeasurement, *, step: str, measured: str) -> Fraction:
        """Debit the ρ ``measurement`` declares and record it; raise before anything is spent if it does not fit.

        Raises
        ------
        BudgetExceededError
            The charge would exceed the total ρ; nothing is debited.
        ValueError
            The declared ρ is not positive.
        """
        rho = measurement.zcdp_cost()
        if rho <= 0:
            raise ValueError(f"step {step!r}: a charge needs rho > 0")
        if self._spent + rho > self.total:
            raise BudgetExceededError(f"step {step!r} needs ρ = {float(rho):.6g} but only "
                                      f"{float(self.remaining):.6g} of {float(self.total):.6g} is left")
        self._spent += rho
        self._ledger.append(LedgerEntry(step, measurement.name, Fraction(0), Fraction(measurement.sensitivity),
                                        measured, Fraction(0), rho))
        return rho
