"""The privacy report: one type for every released value (PrivBayes, SA-PrivBayes, private MRFs,
NBC views).

A read-only mapping with a guaranteed core — what was released by which method, under which
guarantee and neighbouring relation, what was spent (the plan and the ledger), what is not
covered (caveats) — and the method's own public settings beside it (encoding, score, cliques, …).
``str`` gives the readable summary that ``privbayes inspect`` prints, ``to_dict`` the JSON.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from html import escape
from typing import Any

from privbayes.core.errors import InputError
from privbayes.privacy.neighbours import Neighbours, draft_cost
from privbayes.privacy.zcdp import epsilon_for
from privbayes.schema import QUOTED_NEWLINES_CAVEAT, Schema

CORE = ("method", "mechanism", "guarantee", "differentially_private", "epsilon", "epsilon_spent", "delta_spent",
        "neighbouring_relation", "n", "n_public", "domain_source", "seeded", "algorithm", "caveats", "plan", "ledger",
        "library_version")
"""Keys every report has (``epsilon`` and ``n`` may be None for a release that spends no budget)."""

DRAFT_DOMAIN = "inferred from the private data (schema marked 'inferred: true'): NOT covered by epsilon"
DRAFT_CAVEAT = ("the schema is an unreviewed draft read from the data ('inferred: true'): its domain (categories, "
                "bounds, special values) is not covered by epsilon")
SEEDED_CAVEAT = "the DP noise was seeded (reproducible run): do not publish seeded releases"
READ_FROM_DATA_CAVEAT = "the domain (categories, bounds) was read from the data and is not covered by epsilon"
PRIVATE_DRAFT_DOMAIN = ("released by a differentially private schema draft (privbayes schema infer --epsilon) at "
                        "ε = {epsilon:g}, {neighbours} neighbours")
PRIVATE_DRAFT_TOTAL = "; total ε of draft + this release = {total:g} (sequential composition)"
DRAFT_RELATION_CAVEAT = ("the schema's private draft was released under replace-one neighbours, which does NOT cover "
                         "this add-remove release: its domain is not covered by epsilon")


class PrivacyReport(Mapping[str, Any]):
    """The privacy report of a released value: a read-only mapping (``report["epsilon"]``),
    :meth:`to_dict` for JSON, a readable ``str`` and ``_repr_html_`` for notebooks.

    Every report holds the keys of :data:`CORE`: ``method``, ``mechanism``, ``guarantee``,
    ``differentially_private``, ``epsilon`` and ``epsilon_spent`` (None for a release that spends no budget),
    ``delta_spent``, ``neighbouring_relation``, ``n`` and ``n_public`` (under add/remove, n is the noisy
    count), ``domain_source``, ``seeded``, ``algorithm``, ``caveats`` (what ε does not cover), ``plan`` and
    ``ledger`` (every paid release), ``library_version``; a method adds its own public settings beside them.

    Parameters
    ----------
    fields : Mapping
        The report's fields, the core keys included.

    Raises
    ------
    ValueError
        A core key is missing.
    """

    def __init__(self, fields: Mapping[str, Any]) -> None:
        missing = [key for key in CORE if key not in fields]
        if missing:
            raise ValueError(f"a privacy report needs {', '.join(missing)}")
        self._fields = dict(fields)

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __or__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        return self.to_dict() | dict(other)

    def to_dict(self) -> dict[str, Any]:
        """A plain (JSON-ready) copy.

        Returns
        -------
        dict
            Every field; ``privbayes inspect --json`` prints it.
        """
        return {key: (list(value) if isinstance(value, list) else value) for key, value in self._fields.items()}

    def summary(self) -> list[tuple[str, str]]:
        """(field, value) rows of the readable summary.

        Returns
        -------
        list of tuple of str
            The rows ``str(report)`` prints above the caveats and the ledger.
        """
        f = self._fields
        dp = f["differentially_private"]
        lines = [("mechanism", str(f["mechanism"])), ("guarantee", str(f["guarantee"])),
                 ("differentially private", "yes" if dp else "NO")]
        if f["epsilon"] is not None:
            spent = f"{f['epsilon_spent']:g} spent of {f['epsilon']:g}"
            lines.append(("epsilon", spent + (f" (δ = {f['delta_spent']:.3g})" if f["delta_spent"] else "")))
        if "rho" in f:
            lines.append(("zCDP", f"ρ = {f['rho_spent']:.6g} spent of {f['rho']:.6g}, i.e. (ε, δ) = "
                                  f"({f['epsilon_spent']:.6g}, {f['delta']:.3g})-DP"))
        if f["neighbouring_relation"]:
            lines.append(("neighbouring datasets", str(f["neighbouring_relation"])))
        lines.append(("domain", str(f["domain_source"])))
        if f.get("total_epsilon") is not None:
            lines.append(("total epsilon", f"{f['total_epsilon']:g} = schema draft {f['draft_epsilon']:g} + this "
                                           f"release {f['epsilon']:g} (sequential composition)"))
        lines.append(("algorithm", str(f["algorithm"])))
        if "encoding" in f:
            lines.append(("encoding, score", f"{f['encoding']}, {f.get('score')}"))
        if f["n"] is not None:
            lines.append(("rows (n, public)" if f["n_public"] else "rows (noisy count)", f"{f['n']:g}"))
        lines.append(("seeded noise", "yes" if f["seeded"] else "no"))
        return lines

    def __str__(self) -> str:
        width = max(len(k) for k, _ in self.summary())
        lines = ["privacy report"] + [f"  {k:<{width}}  {v}" for k, v in self.summary()]
        lines += [f"  caveat: {c}" for c in self._fields["caveats"]]
        lines.append(f"  ledger ({len(self._fields['ledger'])} releases):")
        lines += [f"    {e['step']:<24} {e['mechanism']:<17} {_price(e)}" for e in self._fields["ledger"]]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"PrivacyReport({self._fields!r})"

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{escape(k)}</th><td>{escape(v)}</td></tr>"
                       for k, v in self.summary())
        caveats = "".join(f"<li>{escape(c)}</li>" for c in self._fields["caveats"])
        ledger = "".join(f"<tr><td>{escape(e['step'])}</td><td>{escape(e['mechanism'])}</td>"
                         f"<td>{e.get('rho', e['epsilon']):.6g}</td></tr>" for e in self._fields["ledger"])
        unit = "ρ" if "rho" in self._fields else "ε"
        return (f"<div><b>privacy report</b><table>{rows}</table>"
                + (f"<ul>{caveats}</ul>" if caveats else "")
                + f"<table><tr><th>step</th><th>mechanism</th><th>{unit}</th></tr>{ledger}</table></div>")


def _price(entry: Mapping[str, Any]) -> str:
    """A ledger entry's cost as the report prints it: ρ under zCDP, else ε."""
    return f"ρ = {entry['rho']:.6g}" if "rho" in entry else f"ε = {entry['epsilon']:.6g}"


def zcdp_fields(total_rho: Fraction, rho_spent: Fraction, delta: Fraction) -> dict[str, Any]:
    """The report fields of a zCDP release: ``privacy_definition``, ``rho`` and ``rho_spent`` (with their exact
    rationals), ``delta``, and the core's ``epsilon``, ``epsilon_spent`` and ``delta_spent`` as the (ε, δ) they
    imply (:func:`~privbayes.privacy.zcdp.epsilon_for`, CKS 2020 Cor. 13).  Pure-ε reports have none of the
    new keys."""
    return {"privacy_definition": "zCDP", "rho": float(total_rho), "rho_exact": str(total_rho),
            "rho_spent": float(rho_spent), "rho_spent_exact": str(rho_spent), "delta": float(delta),
            "epsilon": epsilon_for(total_rho, delta), "epsilon_spent": epsilon_for(rho_spent, delta),
            "delta_spent": float(delta)}


def domain_caveats(domain_source: str, schema: Schema, caveats: list[str], *, relation: Neighbours | None = None,
                   epsilon: Fraction | None = None) -> tuple[str, list[str]]:
    """The report's domain line and caveats, as the schema makes them: the draft's warning when it
    still says 'inferred: true' (an unreviewed ``schema infer`` draft, not covered by ε), the private
    draft's line when ``schema infer --epsilon`` released it (covered, unless its relation does not
    compose with the release's ``relation``: :func:`~privbayes.privacy.neighbours.draft_cost`; with the
    release's ``epsilon``, the total of both), and the
    loss of row-locality when it lets quoted fields span lines."""
    caveats = list(caveats)
    if schema.inferred and "NOT covered" not in domain_source:
        domain_source = DRAFT_DOMAIN
        caveats.append(DRAFT_CAVEAT)
    draft = schema.private_draft
    if draft is not None:
        domain_source = PRIVATE_DRAFT_DOMAIN.format(epsilon=float(draft.epsilon), neighbours=draft.neighbours)
        if relation is not None:
            total = draft_total(schema, epsilon or Fraction(0), relation)
            if not total:
                caveats.append(DRAFT_RELATION_CAVEAT)
            elif epsilon is not None:
                domain_source += PRIVATE_DRAFT_TOTAL.format(total=total["total_epsilon"])
    if schema.quoted_newlines:
        caveats.append(QUOTED_NEWLINES_CAVEAT)
    return domain_source, caveats


def draft_total(schema: Schema, epsilon: Fraction, relation: Neighbours) -> dict[str, float]:
    """The report fields of a release at ``epsilon`` on a privately drafted schema: the draft's ε under
    the release's relation and the total by sequential composition (docs/decisions.md, "Private schema
    drafts"); empty without a private draft or when the relations do not compose."""
    if schema.private_draft is None:
        return {}
    try:
        cost = draft_cost(schema.private_draft, relation)
    except InputError:
        return {}
    return {"draft_epsilon": float(cost), "total_epsilon": float(cost + epsilon)}
