"""The privacy side of an evaluation, in a few lines that sit beside the verdict
(docs/decisions.md, "The evaluation report for a data steward").

A verdict says how useful the synthetic table is; a data steward must read in the same glance
what protects it: the model's guarantee and ε, whether the domain was read from the data (an
unreviewed ``schema infer`` draft, not covered by ε; a draft released by ``schema infer --epsilon`` is
covered, and the total ε of draft and fit is stated), whether the noise was seeded, every other
caveat of the model's privacy report, and that the evaluation itself is not private.  The
text output and the HTML report both print :func:`privacy_summary`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privbayes.evaluation.results import NOT_PRIVATE
from privbayes.privacy.report import DRAFT_CAVEAT, SEEDED_CAVEAT
from privbayes.schema import Schema

DRAFT_LINE = ("the schema is an unreviewed draft read from the private data ('inferred: true'): its categories, "
              "bounds and special values are NOT covered by ε; review it and delete that line before a release")
NO_MODEL = "not shown: give the model file (--model) to see the guarantee and its caveats"


@dataclass(frozen=True)
class PrivacySummary:
    """The guarantee in one line, and the caveats, each with a level (``ok``, ``warn`` or ``bad``)."""

    guarantee: str
    level: str
    caveats: tuple[tuple[str, str], ...]
    audit: tuple[str, str] | None = None
    """A cited ``privbayes audit`` run: (level, line); ``bad`` when it refuted its claim."""


def privacy_summary(model: Any, schema: Schema, audit: str | None = None) -> PrivacySummary:
    """What protects the synthetic table (from ``model``'s privacy report when given) and what does not;
    ``audit``: a ``privbayes audit --json`` file whose result is cited among the lines."""
    caveats: list[tuple[str, str]] = []
    cited = None
    if audit is not None:
        from privbayes.audit.result import cite_audit

        line, refuted = cite_audit(audit)
        cited = ("bad" if refuted else "ok", line)
    inferred = schema.inferred or bool(getattr(getattr(model, "schema", None), "inferred", False))
    if inferred:
        caveats.append(("bad", DRAFT_LINE))
    if model is None:
        guarantee, level = NO_MODEL, "warn"
    else:
        report = model.privacy_report()
        guarantee = str(report["guarantee"])
        if report["differentially_private"] and report["epsilon"] is not None:
            guarantee += f"; ε = {report['epsilon_spent']:g} spent of {report['epsilon']:g}"
            if report["delta_spent"]:
                guarantee += f", δ = {report['delta_spent']:.3g}"
            if report.get("total_epsilon") is not None:  # a privately released schema draft composes with the fit
                guarantee += f"; with the private schema draft, total ε = {report['total_epsilon']:g}"
        level = "ok" if report["differentially_private"] else "bad"
        if not report["differentially_private"] and "NOT" not in guarantee:
            guarantee = f"NOT differentially private; {guarantee}"
        for caveat in report["caveats"]:
            if inferred and (caveat == DRAFT_CAVEAT or "inferred: true" in caveat):
                continue  # said once, above
            severe = caveat == SEEDED_CAVEAT or "NOT" in caveat
            caveats.append(("bad" if severe else "warn", caveat))
        if any(lvl == "bad" for lvl, _ in caveats) and level == "ok":
            level = "warn"
    caveats.append(("warn", NOT_PRIVATE))
    return PrivacySummary(guarantee, level, tuple(caveats), cited)


def privacy_text(summary: PrivacySummary) -> list[str]:
    """The summary as lines of the text output (printed right under the verdict)."""
    audit = [f"  {summary.audit[1]}"] if summary.audit is not None else []
    return [f"privacy: {summary.guarantee}"] + audit + [f"  caveat: {text}" for _, text in summary.caveats]
