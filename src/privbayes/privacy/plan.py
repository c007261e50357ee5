"""A budget plan: every paid release of a fit, named and priced before any data is read.

A synthesizer computes its plan from public inputs only (parameters, the schema and
its encoding, n), stores it in the released model, shows it on ``fit --dry-run``, and
after fitting checks that the accountant's ledger holds exactly the planned releases.
A model file whose ledger differs from the plan its parameters imply is refused.

Some budgets are fixed as a set but not per release: SA-PrivBayes knows before the data
the multiset of its per-table budgets (from the public number of tables and q) but not
which table gets which (that follows from noisy scores).  Releases that share a ``group``
are checked by step name and mechanism in order, and by ε as a multiset.

A zCDP plan (``total_rho`` set) prices its releases in ρ (:mod:`privbayes.privacy.zcdp`): each planned release
carries ``rho``, the ledger of a :class:`~privbayes.privacy.accountant.ZCDPAccountant` must match it exactly, and
Σ ρ may not exceed ``total_rho``.  Pure-ε plans are unchanged (no ρ anywhere, not even in their JSON).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from privbayes.privacy.accountant import LedgerEntry


class PlanMismatchError(RuntimeError):
    """The ledger of a run differs from its plan (a bug, or a tampered model file)."""


@dataclass(frozen=True)
class PlannedRelease:
    """One planned release: its step name (as the ledger writes it), mechanism and exact ε.

    ``kind`` and ``index`` say what is released in typed form, so that a fit reads its budgets
    from the plan without parsing step names (e.g. kind "table", index i: the noisy table of the
    i-th AP pair or clique).  ``sensitivity``, when the relation fixes it before any data (count
    tables, counts), is checked against the ledger too: a ledger that claims a smaller Δ claims
    less noise than the plan pays for.  With a ``group``, ε is one element of the group's multiset.  ``rho`` is
    the zCDP cost of a release of a zCDP plan (its ε is then 0), None under pure ε."""

    step: str
    mechanism: str
    epsilon: Fraction
    group: str | None = None
    kind: str = ""
    index: int | None = None
    sensitivity: Fraction | None = None
    delta: Fraction = Fraction(0)
    rho: Fraction | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "mechanism": self.mechanism, "epsilon": float(self.epsilon),
                               "epsilon_exact": str(self.epsilon)}
        if self.kind:
            out["kind"] = self.kind
        if self.index is not None:
            out["index"] = self.index
        if self.sensitivity is not None:
            out["sensitivity_exact"] = str(self.sensitivity)
        if self.delta:
            out["delta_exact"] = str(self.delta)
        if self.rho is not None:
            out["rho_exact"] = str(self.rho)
        return out | ({"group": self.group} if self.group is not None else {})


@dataclass(frozen=True)
class BudgetPlan:
    """The releases of one fit in order, their exact ε (or ρ), and the public settings that fixed them.

    Under zCDP, ``total_rho`` is the budget in ρ and ``total`` the ε it implies at the user's δ (what the
    report shows); under pure ε ``total_rho`` is None."""

    total: Fraction
    releases: tuple[PlannedRelease, ...]
    settings: tuple[tuple[str, Any], ...] = ()
    total_rho: Fraction | None = None

    def __post_init__(self) -> None:
        if self.spent > self.total:
            raise ValueError(f"the plan spends {float(self.spent)}, more than its total {float(self.total)}")
        priced_in_rho = [r.rho is not None for r in self.releases]
        if any(priced_in_rho) if self.total_rho is None else not all(priced_in_rho):
            raise ValueError("a zCDP plan prices every release in rho, a pure-epsilon plan none")
        if self.total_rho is not None and self.rho_spent > self.total_rho:
            raise ValueError(f"the plan spends rho = {float(self.rho_spent)}, more than its total "
                             f"{float(self.total_rho)}")

    @property
    def spent(self) -> Fraction:
        return sum((r.epsilon for r in self.releases), Fraction(0))

    @property
    def rho_spent(self) -> Fraction:
        """Σ ρ of a zCDP plan (sequential composition), 0 under pure ε."""
        return sum((r.rho for r in self.releases if r.rho is not None), Fraction(0))

    @property
    def delta_spent(self) -> Fraction:
        return sum((r.delta for r in self.releases), Fraction(0))

    def setting(self, name: str) -> Any:
        return dict(self.settings).get(name)

    def budgets(self, kind: str) -> dict[int, Fraction]:
        """index → ε of the releases of one ``kind`` (e.g. the noisy tables of a fit)."""
        return {r.index: r.epsilon for r in self.releases if r.kind == kind and r.index is not None}

    def check(self, ledger: Sequence[LedgerEntry]) -> None:
        """Raise :class:`PlanMismatchError` unless ``ledger`` holds exactly the planned releases
        (grouped releases: the same steps and mechanisms, and the same multiset of ε)."""
        if len(ledger) != len(self.releases):
            raise PlanMismatchError(f"the ledger has {len(ledger)} releases, the plan {len(self.releases)}")
        groups: dict[str, tuple[list[tuple[Fraction, Fraction]], list[tuple[Fraction, Fraction]]]] = {}
        for planned, entry in zip(self.releases, ledger):
            if planned.group is not None and (planned.step, planned.mechanism) == (entry.step, entry.mechanism):
                groups.setdefault(planned.group, ([], []))
                groups[planned.group][0].append((planned.epsilon, planned.rho or Fraction(0)))
                groups[planned.group][1].append((entry.epsilon, entry.rho or Fraction(0)))
                if (planned.rho is None) != (entry.rho is None):
                    raise PlanMismatchError(f"ledger step {entry.step!r} and the plan disagree on zCDP")
            elif (planned.step, planned.mechanism, planned.epsilon) != (entry.step, entry.mechanism, entry.epsilon):
                raise PlanMismatchError(f"ledger step {entry.step!r} "
                                        f"({entry.mechanism}, ε = {float(entry.epsilon):.6g}) "
                                        f"differs from the plan's {planned.step!r} ({planned.mechanism}, "
                                        f"ε = {float(planned.epsilon):.6g})")
            if planned.sensitivity is not None and entry.sensitivity != planned.sensitivity:
                raise PlanMismatchError(f"ledger step {entry.step!r} claims sensitivity "
                                        f"{float(entry.sensitivity):.6g}, "
                                        f"the plan's is {float(planned.sensitivity):.6g}")
            if planned.group is None and entry.rho != planned.rho:
                raise PlanMismatchError(f"ledger step {entry.step!r} spends ρ = "
                                        f"{'none' if entry.rho is None else f'{float(entry.rho):.6g}'}, the plan "
                                        f"{'none' if planned.rho is None else f'{float(planned.rho):.6g}'}")
            if entry.delta != planned.delta:
                raise PlanMismatchError(f"ledger step {entry.step!r} spends δ = {float(entry.delta):.3g}, the plan "
                                        f"{float(planned.delta):.3g}")
        for group, (planned_budgets, spent) in groups.items():
            if sorted(planned_budgets) != sorted(spent):
                raise PlanMismatchError(f"the ledger's budgets for {group!r} differ from the plan's (compared as a "
                                        "multiset)")

    def describe(self) -> list[str]:
        """Readable lines: settings, then releases grouped by mechanism and ε."""
        lines = [f"{name} = {'(per child, by θ-usefulness)' if value is None else value}"
                 for name, value in self.settings]
        groups: dict[tuple[str, Fraction, Fraction | None], list[str]] = {}
        for r in self.releases:
            groups.setdefault((r.mechanism, r.epsilon, r.rho), []).append(r.step)
        for (mechanism, epsilon, rho), steps in groups.items():
            span = steps[0] if len(steps) == 1 else f"{steps[0]} … {steps[-1]}"
            price = f"ε = {float(epsilon):.6g}" if rho is None else f"ρ = {float(rho):.6g}"
            lines.append(f"{len(steps)} × {mechanism} at {price} ({span})")
        if self.total_rho is not None:
            lines.append(f"total ρ = {float(self.rho_spent):.6g} of {float(self.total_rho):.6g} (zCDP; ε = "
                         f"{float(self.total):.6g} at the plan's δ)")
        elif self.releases:
            lines.append(f"total ε = {float(self.spent):.6g} of {float(self.total):.6g}")
        else:
            lines.append("no differentially private release: nothing is paid for")
        return lines

    def to_dict(self) -> dict[str, Any]:
        out = {"total": float(self.total), "total_exact": str(self.total),
               "settings": {name: value for name, value in self.settings},
               "releases": [r.to_dict() for r in self.releases]}
        if self.total_rho is not None:
            out["total_rho_exact"] = str(self.total_rho)
        return out
