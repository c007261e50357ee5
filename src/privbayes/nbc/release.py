"""Publishing NBC views in one call: bound parameters in, a released value with its report out.

    settings = NBCSettings(gamma="1.1")                       # or breach=(L1, L2), or prior={...} with r
    release = publish(table, "income", settings)              # table: a counting.PrivateTable
    release.views, release.privacy_report(), release.save("views.json")

:class:`NBCSettings` holds the parameters of SafetyTransform (§6, Figs. 2-5) or EST (§7, Fig. 7)
of Mozafari & Zaniolo (VLDB 2009), validated once on construction as exact rationals of the
decimals written ("1.1" and 1.1 are 11/10).  :func:`publish` reads the table only through
``table.counts`` (:func:`~privbayes.nbc.views.views_from_table`), so it is the shape the release
contract wraps (``fit(source, schema)`` opens the source with ``privbayes.counting.open`` and
calls it).  The guarantee is a privacy-breach bound against a possible-worlds attacker: the
transformation is deterministic, adds no noise and is NOT differential privacy, and the report
says so first.
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from privbayes._version import __version__
from privbayes.counting import PrivateTable
from privbayes.errors import InputError
from privbayes.nbc.breach import CONDITIONS, gamma_from_breach
from privbayes.nbc.est import check_prior, est
from privbayes.nbc.safety import SafeViews, safety_transform
from privbayes.nbc.views import NBCViews, views_from_table
from privbayes.nbc.viewsfile import parse_fraction, privacy_report, to_document
from privbayes.schema import Schema

METHOD = "nbc"
MECHANISMS = {"safety-transform": "SafetyTransform (Mozafari & Zaniolo, VLDB 2009, §6)",
              "identity": "SafetyTransform (Mozafari & Zaniolo, VLDB 2009, §6.3: the views were already safe)",
              "est": "EST (Mozafari & Zaniolo, VLDB 2009, §7)"}
GIVEN = "given by the user (public)"
DRAFT = "inferred from the private data (schema marked 'inferred: true'): the value names and bins are NOT protected"
NOT_DP = ("NOT differential privacy: the transformation is deterministic, adds no noise, and bounds only what the "
          "possible-worlds attacker of the paper learns about a class label")


def exact(value: Any, name: str) -> Fraction:
    """A finite positive number as an exact rational of what was written: an integer, a Fraction,
    decimal text ("1.1", "11/10") or a float read as its shortest decimal (1.1 → 11/10)."""
    given = value
    if isinstance(value, bool):
        raise InputError(f"{name} ({value!r}) must be a number")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{name} ({value!r}) must be a finite number")
        value = Fraction(repr(float(value)))
    elif isinstance(value, str):
        try:
            return parse_fraction(value.strip(), name)
        except InputError:
            raise InputError(f"{name} ({value!r}) must be a positive number such as 1.1 or 11/10") from None
    if not isinstance(value, numbers.Rational):
        raise InputError(f"{name} ({value!r}) must be a number")
    if value <= 0:
        raise InputError(f"{name} ({given!r}) must be > 0")
    return Fraction(int(value.numerator), int(value.denominator))


@dataclass(frozen=True)
class NBCSettings:
    """SafetyTransform's or EST's parameters, validated once (one-line :class:`InputError` naming
    the parameter).  Give exactly one of ``gamma`` (amplification γ > 1, Corollary 4),
    ``breach`` = (L1, L2) (block every L1-to-L2 breach: γ from Lemma 2's condition (7)) or
    ``prior`` = {label: F(label)} together with ``r`` > 1 (EST, r-closeness).  ``condition``:
    "posterior" (ρ^(2n−1) ≤ γ, the default) or "corollary4" (ρ^n ≤ γ, as printed)."""

    gamma: Fraction | None = None
    breach: tuple[Fraction, Fraction] | None = None
    prior: tuple[tuple[str, Fraction], ...] | None = None
    r: Fraction | None = None
    condition: str = "posterior"

    def __post_init__(self) -> None:
        given = [name for name in ("gamma", "breach", "prior") if getattr(self, name) is not None]
        if len(given) != 1:
            raise InputError("give exactly one of gamma, breach (L1, L2) or prior (with r); got "
                             + (", ".join(given) if given else "none"))
        if (self.prior is None) != (self.r is None):
            raise InputError("prior and r go together (EST)")
        if self.condition not in CONDITIONS:
            raise InputError(f"condition ({self.condition!r}) must be one of {', '.join(CONDITIONS)}")
        if self.gamma is not None:
            object.__setattr__(self, "gamma", _above_one(exact(self.gamma, "gamma"), "gamma", "amplification γ"))
        if self.breach is not None:
            object.__setattr__(self, "breach", self._breach(self.breach))
        if self.prior is not None:
            object.__setattr__(self, "prior", self._prior(self.prior))
            object.__setattr__(self, "r", _above_one(exact(self.r, "r"), "r", "r-closeness"))

    @staticmethod
    def _breach(raw: Any) -> tuple[Fraction, Fraction]:
        if isinstance(raw, (str, bytes)) or not hasattr(raw, "__len__") or len(raw) != 2:
            raise InputError(f"breach ({raw!r}) must be two numbers L1 < L2 in (0, 1)")
        pair = (exact(raw[0], "breach L1"), exact(raw[1], "breach L2"))
        if not pair[0] < pair[1] < 1:
            raise InputError(f"breach ({float(pair[0]):g}, {float(pair[1]):g}) must be two numbers L1 < L2 in (0, 1)")
        return pair

    @staticmethod
    def _prior(raw: Any) -> tuple[tuple[str, Fraction], ...]:
        items = list(raw.items()) if isinstance(raw, Mapping) else raw
        if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)) or \
                not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in items):
            raise InputError("prior must map each class label to its probability")
        pairs = tuple((str(label), exact(value, f"prior of label {str(label)!r}")) for label, value in items)
        if len({label for label, _ in pairs}) != len(pairs):
            raise InputError("prior names a class label twice")
        if sum(value for _, value in pairs) != 1:
            raise InputError(f"prior: the probabilities must sum to 1, got {float(sum(v for _, v in pairs)):g}")
        return pairs

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


def _above_one(value: Fraction, name: str, what: str) -> Fraction:
    if not value > 1:
        raise InputError(f"{name} ({float(value):g}) must be > 1 (the {what})")
    return value


@dataclass(frozen=True)
class NBCRelease:
    """What :func:`publish` releases: the safe views, how they were made, the parameters and the
    public schema.  Everything here is computed from the published counts and public inputs."""

    safe: SafeViews
    settings: NBCSettings
    schema: Schema

    @property
    def views(self) -> NBCViews:
        return self.safe.views

    @property
    def method(self) -> str:
        return METHOD

    def privacy_report(self) -> dict[str, Any]:
        """The report: the release contract's common fields (no ε, no ledger: nothing is spent,
        nothing is differentially private) and the views file's own fields (the bound, the
        condition, k-SIND, Bob's large-count posterior measured on the published counts)."""
        own = privacy_report(self.safe)
        caveats = [NOT_DP, CONDITION_CAVEATS[self.safe.condition], SMALL_COUNTS]
        if self.safe.method == "identity":
            caveats.append("the original counts were already within the bound and are published unchanged (§6.3)")
        domain = GIVEN
        if self.schema.inferred:
            domain = DRAFT
            caveats.append("the schema is an unreviewed draft read from the data ('inferred: true'): its categories, "
                           "bounds and special values are published as value names and are not protected")
        core = {"method": METHOD, "mechanism": MECHANISMS[self.safe.method], "guarantee": own["guarantee"],
                "differentially_private": False, "epsilon": None, "epsilon_spent": None, "delta_spent": None,
                "neighbouring_relation": None, "n": None, "n_public": False, "domain_source": domain,
                "seeded": False, "algorithm": self.safe.method, "caveats": caveats, "plan": [], "ledger": [],
                "library_version": __version__, "parameters": self.settings.to_parameters()}
        return {**core, **{key: value for key, value in own.items() if key not in core}}

    def document(self) -> dict[str, Any]:
        """The views file (format ``privbayes-nbc-views``) with this report."""
        return {**to_document(self.safe), "privacy_report": self.privacy_report()}

    def save(self, path: str | os.PathLike) -> None:
        """Write the views file (atomic); ``privbayes nbc check`` verifies it against the data."""
        import json

        from privbayes.io import atomic_write_text

        atomic_write_text(path, json.dumps(self.document(), indent=1) + "\n")


CONDITION_CAVEATS = {
    "posterior": "the bound holds for the attacker's posterior ratio when the counts are large (ρ^(2n−1) ≤ γ)",
    "corollary4": "condition corollary4 (Corollary 4 as printed, ρ^n ≤ γ) does not bound the attacker's posterior "
                  "ratio by γ: up to γ^((2n−1)/n) for large counts (docs/nbc.md)",
}
SMALL_COUNTS = ("neither condition is a proof for small counts: the exact possible-worlds posterior can exceed the "
                "large-count limit (docs/nbc.md, claim 3)")


def publish(table: PrivateTable, class_name: str, settings: NBCSettings) -> NBCRelease:
    """SafetyTransform or EST on the NBC views of ``table`` (a :class:`~privbayes.counting.PrivateTable`)
    with ``class_name`` as the class: NBC-equivalent views (Def. 2) within the settings' bound."""
    if not isinstance(settings, NBCSettings):
        raise InputError(f"settings must be NBCSettings, got {type(settings).__name__}")
    views = views_from_table(table, class_name)
    if settings.prior is not None:
        safe = est(views, settings.prior_for(views.labels), settings.r, settings.condition)
    else:
        safe = safety_transform(views, settings.gamma_for(views.classes), settings.condition)
    return NBCRelease(safe, settings, table.schema)
