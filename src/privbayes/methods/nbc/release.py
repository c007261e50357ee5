"""Publishing NBC views in one call: bound parameters in, a released value with its report out.

    settings = NBCSettings(gamma="1.1")                       # or breach=(L1, L2), or prior={...} with r
    release = publish(table, "income", settings)              # table: a counting.PrivateTable
    release.views, release.privacy_report(), release.save("views.json")

:class:`NBCSettings` holds the parameters of SafetyTransform (§6, Figs. 2-5) or EST (§7, Fig. 7)
of Mozafari & Zaniolo (VLDB 2009), validated once on construction as exact rationals of the
decimals written ("1.1" and 1.1 are 11/10).  :func:`publish` reads the table only through
``table.counts`` (:func:`~privbayes.methods.nbc.views.views_from_table`), so it is the shape the release
contract wraps (``fit(source, schema)`` opens the source with ``privbayes.counting.open`` and
calls it).  The guarantee is a privacy-breach bound against a possible-worlds attacker: the
transformation is deterministic, adds no noise and is NOT differential privacy, and the report
says so first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pandas as pd

from privbayes.core.errors import InputError
from privbayes.core.validation import check_seed
from privbayes.counting import PrivateTable
from privbayes.methods.nbc.breach import gamma_from_breach
from privbayes.methods.nbc.est import check_prior, est
from privbayes.methods.nbc.parameters import PARAMETERS
from privbayes.methods.nbc.safety import SafeViews, safety_transform
from privbayes.methods.nbc.views import Count, NBCViews, views_from_table
from privbayes.methods.nbc.viewsfile import from_document, privacy_report, to_document
from privbayes.privacy.accountant import LedgerEntry
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.record import ReleaseRecord
from privbayes.privacy.report import PrivacyReport
from privbayes.schema import Schema
from privbayes.synthesizers.contract import GIVEN
from privbayes.synthesizers.parameters import DeclaredSettings

METHOD = "nbc"
MECHANISMS = {"safety-transform": "SafetyTransform (Mozafari & Zaniolo, VLDB 2009, §6)",
              "identity": "SafetyTransform (Mozafari & Zaniolo, VLDB 2009, §6.3: the views were already safe)",
              "est": "EST (Mozafari & Zaniolo, VLDB 2009, §7)"}
DRAFT = "inferred from the private data (schema marked 'inferred: true'): the value names and bins are NOT protected"
NOT_DP = ("NOT differential privacy: the transformation is deterministic, adds no noise, and bounds only what the "
          "possible-worlds attacker of the paper learns about a class label")


class NBCSettings(DeclaredSettings):
    """SafetyTransform's or EST's parameters, validated once (one-line :class:`InputError` naming
    the parameter; declared in :mod:`privbayes.methods.nbc.parameters`).  Give exactly one of ``gamma``
    (amplification γ > 1, Corollary 4), ``breach`` = (L1, L2) (block every L1-to-L2 breach: γ from Lemma 2's
    condition (7)) or ``prior`` = {label: F(label)} together with ``r`` > 1 (EST, r-closeness).  ``condition``:
    "posterior" (ρ^(2n−1) ≤ γ, the default) or "corollary4" (ρ^n ≤ γ, as printed)."""

    parameters = PARAMETERS
    gamma: Fraction | None
    breach: tuple[Fraction, Fraction] | None
    prior: tuple[tuple[str, Fraction], ...] | None
    r: Fraction | None
    condition: str

    def check_given(self) -> None:
        given = [name for name in ("gamma", "breach", "prior") if getattr(self, name) is not None]
        if len(given) != 1:
            raise InputError("give exactly one of gamma, breach (L1, L2) or prior (with r); got "
                             + (", ".join(given) if given else "none"))
        if (self.prior is None) != (self.r is None):
            raise InputError("prior and r go together (EST)")

    @property
    def method(self) -> str:
        """"est" with a prior, else "safety-transform" (which may find the views already safe: "identity")."""
        return "est" if self.prior is not None else "safety-transform"

    def gamma_for(self, classes: int) -> Fraction:
        """γ: as given, or the largest j/10⁶ inside Lemma 2's condition (7) for ``breach``."""
        if self.gamma is not None:
            return self.gamma
        if self.breach is None:
            raise InputError("EST takes r, not gamma")
        return gamma_from_breach(*self.breach, classes)

    def prior_for(self, labels: tuple[str, ...]) -> tuple[Fraction, ...]:
        """F in the schema's label order; every label of the class, and only those."""
        if self.prior is None:
            raise InputError("no prior was given")
        given = dict(self.prior)
        if sorted(given) != sorted(labels):
            raise InputError("prior must give a probability to every class label of the schema, and only to those")
        return check_prior([given[label] for label in labels], len(labels))

    @classmethod
    def from_parameters(cls, raw: Mapping[str, Any]) -> NBCSettings:
        """Settings from :meth:`to_parameters`'s mapping (a views file's ``parameters``), validated."""
        known = {"method", "condition", "gamma", "breach", "prior", "r"}
        if set(raw) - known or raw.get("method") != METHOD:
            raise InputError(f"NBC parameters must be method {METHOD!r} with {', '.join(sorted(known - {'method'}))}")
        return cls(gamma=raw.get("gamma"), breach=raw.get("breach"), prior=raw.get("prior"), r=raw.get("r"),
                   condition=raw.get("condition", "posterior"))

    def to_parameters(self) -> dict[str, Any]:
        """The parameters as exact text (for files and reports)."""
        out: dict[str, Any] = {"method": METHOD, "condition": self.condition}
        if self.gamma is not None:
            out["gamma"] = str(self.gamma)
        if self.breach is not None:
            out["breach"] = [str(v) for v in self.breach]
        if self.prior is not None:
            out.update(prior={label: str(value) for label, value in self.prior}, r=str(self.r))
        return out


@dataclass(frozen=True)
class NBCRelease:
    """What :func:`publish` releases: the safe views, how they were made, the parameters and the
    public schema (None for a version 1 views file, which did not carry it).  Everything here is
    computed from the published counts and public inputs."""

    safe: SafeViews
    settings: NBCSettings
    schema: Schema | None

    @property
    def views(self) -> NBCViews:
        return self.safe.views

    @property
    def method(self) -> str:
        return METHOD

    @property
    def plan(self) -> BudgetPlan:
        """Nothing is paid for: the release is deterministic, not differentially private."""
        return nbc_plan()

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        return ()

    @property
    def n(self) -> int:
        """The number of rows the published counts describe (the synthetic table's size)."""
        return int(sum(self.views.prior))

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False, *,
               conditions: Mapping[str, Any] | None = None, keep_ids: bool = False,
               draw: str | None = None) -> pd.DataFrame:
        """A table whose NBC views are exactly the published counts (so exactly their ``n`` rows),
        arranged by ``random_state``; ``draw`` does not apply (the counts are exact, not drawn)."""
        import numpy as np

        from privbayes.methods.nbc.synthesis import synthetic_table

        if conditions is not None:
            raise InputError("conditions do not apply to NBC views: "
                             "the synthetic table has exactly the published counts")
        if self.schema is None:
            raise InputError("this views file (version 1) does not carry its schema: it cannot be sampled; "
                             "publish it again")
        if n is not None and n != self.n:
            raise InputError(f"n ({n}) must be the {self.n} rows the published counts describe (or left out)")
        if bin_labels:
            raise InputError("bin_labels does not apply to NBC views (values are drawn inside their bins)")
        if draw is not None:
            raise InputError("draw does not apply to NBC views: the synthetic table has exactly the published counts")
        rng = np.random.default_rng(check_seed(random_state, "random_state"))
        frame = synthetic_table(self.views, self.schema, rng)
        return self.schema.with_ids(frame) if keep_ids else frame

    def describe(self) -> list[str]:
        """The published counts in outline: the class, then each attribute's values."""
        views = self.views
        lines = [f"class {views.class_name!r}: labels {', '.join(views.labels)}; prior counts "
                 f"{', '.join(_short_count(p) for p in views.prior)}"]
        lines += [f"{a.name}: {len(a.values)} values" for a in views.attributes]
        return lines

    def summary(self) -> str:
        bound = "r" if self.safe.r is not None else "γ"
        return (f"NBC views of {self.views.class_name!r} over {self.views.n} attributes ({self.safe.method}, "
                f"{bound} achieved {float(self.safe.achieved):.6g}; NOT differential privacy)")

    @property
    def record(self) -> ReleaseRecord:
        """The release record, derived from the views (a views file carries no fit facts): nothing paid
        (empty plan and ledger), no count released, no noise; the caveats say first that this is NOT
        differential privacy."""
        caveats = [NOT_DP, CONDITION_CAVEATS[self.safe.condition], SMALL_COUNTS]
        if self.safe.method == "identity":
            caveats.append("the original counts were already within the bound and are published unchanged (§6.3)")
        domain = GIVEN if self.schema is not None else "not recorded (a version 1 views file)"
        if self.schema is not None and self.schema.inferred:
            domain = DRAFT
            caveats.append("the schema is an unreviewed draft read from the data ('inferred: true'): its categories, "
                           "bounds and special values are published as value names and are not protected")
        return ReleaseRecord(self.plan, self.ledger, None, False, domain, tuple(caveats))

    def privacy_report(self) -> PrivacyReport:
        """The report: the release contract's common fields (no ε, no ledger: nothing is spent,
        nothing is differentially private) and the views file's own fields (the bound, the
        condition, k-SIND, Bob's large-count posterior measured on the published counts)."""
        own = privacy_report(self.safe)
        return self.record.report(method=METHOD, mechanism=MECHANISMS[self.safe.method], algorithm=self.safe.method,
                                  schema=self.schema, relation=None, differentially_private=False,
                                  guarantee=own["guarantee"],
                                  extra={"parameters": self.settings.to_parameters(), **own})

    def to_document(self) -> dict[str, Any]:
        """The views file (format ``privbayes-nbc-views``, version 2) with the schema, the parameters
        and this report."""
        document = {**to_document(self.safe), "privacy_report": self.privacy_report().to_dict(),
                    "parameters": self.settings.to_parameters()}
        return document | ({"schema": self.schema.to_dict()} if self.schema is not None else {})

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the views file (atomic); ``privbayes nbc check`` verifies it against the data."""
        import json

        from privbayes.files.tables import atomic_write_text

        atomic_write_text(path, json.dumps(self.to_document(), indent=1) + "\n")


CONDITION_CAVEATS = {
    "posterior": "the bound holds for the attacker's posterior ratio when the counts are large (ρ^(2n−1) ≤ γ)",
    "corollary4": "condition corollary4 (Corollary 4 as printed, ρ^n ≤ γ) does not bound the attacker's posterior "
                  "ratio by γ: up to γ^((2n−1)/n) for large counts (docs/nbc.md)",
}
SMALL_COUNTS = ("neither condition is a proof for small counts: the exact possible-worlds posterior can exceed the "
                "large-count limit (docs/nbc.md, claim 3)")


def _short_count(count: Count) -> str:
    """A count as written, or in scientific notation past 12 digits (transformed counts are huge)."""
    digits = str(count)
    return digits if len(digits) <= 12 else f"{digits[0]}.{digits[1:4]}e{len(digits) - 1}"


def nbc_plan() -> BudgetPlan:
    """The (empty) budget plan of NBC publishing: no release is differentially private."""
    return BudgetPlan(Fraction(0), (), (("guarantee", "privacy breach bound, NOT differential privacy"),))


def release_from_document(document: Any, source: str) -> NBCRelease:
    """The release of a views file, verified: its counts must satisfy the bound it states (exactly,
    as ``nbc check`` does without the data), and its parameters (version 2) must be that bound."""
    from privbayes.methods.nbc.breach import amplification

    views, safety = from_document(document, source)
    prior = safety.get("prior")
    bound = safety.get("r_exact") if prior is not None else safety.get("gamma_exact")
    achieved = amplification(views, prior, safety["condition"])
    if bound is None or achieved is None or achieved > bound:
        raise InputError(f"{source}: the views do not satisfy the bound the file states")
    schema, settings = None, None
    if isinstance(document.get("schema"), dict):
        schema = Schema.from_dict(document["schema"], source=f"{source}: schema")
    raw = document.get("parameters")
    if isinstance(raw, dict):
        settings = NBCSettings.from_parameters(raw)
        if settings.condition != safety["condition"] or (settings.r if prior is not None else settings.gamma_for(
                views.classes)) != bound:
            raise InputError(f"{source}: the parameters contradict the stated bound")
    else:
        settings = NBCSettings(r=safety["r_exact"], prior=tuple(zip(views.labels, prior)),
                               condition=safety["condition"]) if prior is not None else \
            NBCSettings(gamma=safety["gamma_exact"], condition=safety["condition"])
    safe = SafeViews(views, safety["method"], achieved, safety["condition"],
                     gamma=None if prior is not None else bound, r=bound if prior is not None else None,
                     prior=tuple(prior) if prior is not None else None)
    return NBCRelease(safe, settings, schema)


def publish(table: PrivateTable, class_name: str, settings: NBCSettings) -> NBCRelease:
    """SafetyTransform or EST on the NBC views of ``table`` (a :class:`~privbayes.counting.PrivateTable`)
    with ``class_name`` as the class: NBC-equivalent views (Def. 2) within the settings' bound."""
    if not isinstance(settings, NBCSettings):
        raise InputError(f"settings must be NBCSettings, got {type(settings).__name__}")
    views = views_from_table(table, class_name)
    if settings.r is not None:  # r comes with a prior (EST; check_given)
        safe = est(views, settings.prior_for(views.labels), settings.r, settings.condition)
    else:
        safe = safety_transform(views, settings.gamma_for(views.classes), settings.condition)
    return NBCRelease(safe, settings, table.schema)
