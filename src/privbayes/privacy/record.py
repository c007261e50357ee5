"""The release record: the facts of a release that every released value carries, and the privacy
report's common fields, written once.

A fit (:meth:`privbayes.synthesizers.contract.PrivateEstimator.fit`) ends by writing one
:class:`ReleaseRecord` — the plan and the ledger that paid for it, n (public, or the noisy count under
add/remove neighbours), whether the noise was seeded, where the domain came from and the caveats —
and hands it to the method's released value (a Bayesian network, a private MRF); a model-file
loader rebuilds it from the file's ``fitted`` block.  The record is an in-memory structure: each
model file keeps writing its own keys.  :meth:`ReleaseRecord.report` assembles the core of
:class:`~privbayes.privacy.report.PrivacyReport` (:data:`~privbayes.privacy.report.CORE`) so that a
released type writes only its own fields (encoding and score, cliques, the NBC bound).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from privbayes._version import __version__
from privbayes.privacy.accountant import LedgerEntry
from privbayes.privacy.neighbours import Neighbours
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.report import PrivacyReport, domain_caveats, draft_total, zcdp_fields
from privbayes.schema import Schema

NOT_PRIVATE_GUARANTEE = "none: NOT differentially private (see the caveats)"


@dataclass(frozen=True)
class ReleaseRecord:
    """What was paid and what is known of one release: ``plan`` and the ``ledger`` that matches it,
    ``n`` (the public n; under add/remove neighbours the noisy count or N estimated from the noisy
    tables; None where no count is released), ``seeded`` noise, the ``domain_source`` line and the
    ``caveats`` of the fit (the report adds those of the schema and the relation)."""

    plan: BudgetPlan
    ledger: tuple[LedgerEntry, ...]
    n: float | None
    seeded: bool
    domain_source: str
    caveats: tuple[str, ...] = ()
    library_version: str = __version__

    def __post_init__(self) -> None:
        object.__setattr__(self, "ledger", tuple(self.ledger))
        object.__setattr__(self, "caveats", tuple(self.caveats))

    @property
    def epsilon_spent(self) -> float:
        return float(sum(entry.epsilon for entry in self.ledger))

    @property
    def delta_spent(self) -> float:
        return float(sum(entry.delta for entry in self.ledger))

    def report(self, *, method: str, mechanism: str, algorithm: str, schema: Schema | None,
               relation: Neighbours | None, differentially_private: bool, approximate: bool = False,
               guarantee: str | None = None, caveats: Sequence[str] = (), settings: Mapping[str, Any] | None = None,
               extra: Mapping[str, Any] | None = None) -> PrivacyReport:
        """The privacy report: the core fields from this record, then the method's public ``settings``
        (before the caveats) and ``extra`` fields (at the end; a key of the core is not overridden).

        ``relation`` None: a release under no neighbouring relation (NBC views, not differential
        privacy): no ε, δ or n is reported, and ``domain_source`` and the caveats are taken as the
        method wrote them.  Otherwise the method's ``caveats`` follow the record's, and the schema adds
        its own (an inferred or private draft, quoted newlines: :func:`~privbayes.privacy.report.domain_caveats`).
        ``approximate``: an (ε, δ) release; ``guarantee`` replaces the line derived from the relation.  A plan priced
        in ρ adds :func:`~privbayes.privacy.report.zcdp_fields` (ρ, and the (ε, δ) it implies at the plan's
        ``delta`` setting)."""
        shown = list(self.caveats) + list(caveats)
        domain = self.domain_source
        if relation is not None and schema is not None:
            domain, shown = domain_caveats(domain, schema, shown, relation=relation, epsilon=self.plan.total)
        zcdp = self.plan.total_rho is not None and relation is not None
        if guarantee is None:
            kind = "(ε, δ)" if approximate else "ε"
            guarantee = (f"{kind}-differential privacy ({relation.name} neighbours)"
                         if differentially_private and relation is not None else NOT_PRIVATE_GUARANTEE)
            if zcdp and differentially_private and relation is not None and self.plan.total_rho is not None:
                guarantee = (f"ρ-zCDP with ρ = {float(self.plan.total_rho):.6g} ({relation.name} neighbours), hence "
                             f"(ε, δ)-differential privacy at δ = {float(self.plan.setting('delta')):g}")
        private = relation is not None
        fields: dict[str, Any] = {
            "method": method,
            "mechanism": mechanism,
            "guarantee": guarantee,
            "differentially_private": differentially_private,
            "epsilon": float(self.plan.total) if private else None,
            "epsilon_spent": self.epsilon_spent if private else None,
            "delta_spent": self.delta_spent if private else None,
            "neighbouring_relation": relation.description if relation is not None else None,
            "n": self.n,
            "n_public": relation.n_public if relation is not None else False,
            "domain_source": domain,
            **(draft_total(schema, self.plan.total, relation) if relation is not None and schema is not None else {}),
            "seeded": self.seeded,
            "algorithm": algorithm,
            **(settings or {}),
            "caveats": shown,
            "plan": self.plan.to_dict(),
            "ledger": [entry.to_dict() for entry in self.ledger],
            "library_version": self.library_version,
        }
        if zcdp and self.plan.total_rho is not None:  # ρ and the (ε, δ) it implies at the plan's δ
            fields |= zcdp_fields(self.plan.total_rho, self.plan.rho_spent, Fraction(self.plan.setting("delta")))
        return PrivacyReport({**fields, **{key: value for key, value in (extra or {}).items() if key not in fields}})


class RecordViews:
    """The facts of the :class:`ReleaseRecord` a released value carries (its ``record``), read as the value's own
    attributes: ``model.ledger``, ``model.seeded``… (n stays each value's: an integer count or an estimated N)."""

    record: ReleaseRecord

    @property
    def plan(self) -> BudgetPlan:
        return self.record.plan

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        return self.record.ledger

    @property
    def seeded(self) -> bool:
        return self.record.seeded

    @property
    def domain_source(self) -> str:
        return self.record.domain_source

    @property
    def caveats(self) -> tuple[str, ...]:
        return self.record.caveats

    @property
    def library_version(self) -> str:
        return self.record.library_version

    @property
    def epsilon_spent(self) -> float:
        return self.record.epsilon_spent

    @property
    def delta_spent(self) -> float:
        return self.record.delta_spent
