"""``evaluate --json FILE``: every number ``evaluate`` prints, as one JSON document.

Keys are fixed (docs/guide/evaluation.md lists them) and written in a fixed order; values are unrounded (the
text output rounds them to 4 decimals).  Per-column and per-pair values come with their
references, sampling noise and flags (:mod:`privbayes.evaluation.pairs`), so a script can apply
its own rule.  Written atomically.  Like everything in ``evaluate``, NOT private: the numbers
describe the real table exactly.
"""

from __future__ import annotations

import json
import math
from typing import Any

from privbayes.evaluation.caveats import PrivacySummary
from privbayes.evaluation.pairs import FAR_ONE_WAY, NOISE_DELTA, Comparison
from privbayes.evaluation.results import Evaluation

FORMAT = "privbayes-evaluation"
VERSION = 1


def _pairs(comparison: Comparison | None) -> list[dict[str, Any]] | None:
    if comparison is None or comparison.pairs is None:
        return None
    return [{"columns": list(p.columns), "tvd": p.tvd, "uniform": p.uniform, "independent": p.independent,
             "noise": p.noise, "synthetic_noise": p.synthetic_noise, "lost": p.lost} for p in comparison.pairs]


def evaluation_document(ev: Evaluation, privacy: PrivacySummary, real_name: str = "REAL",
                        synth_name: str = "SYNTH") -> dict[str, Any]:
    """The JSON document of an :class:`Evaluation` (keys listed in docs/guide/evaluation.md)."""
    refs = ev.references
    comparison = ev.comparison
    columns = {c.name: c for c in comparison.columns} if comparison is not None else {}
    return {
        "format": FORMAT,
        "version": VERSION,
        "private": False,
        "real": {"file": real_name, "rows": ev.n_real},
        "synthetic": {"file": synth_name, "rows": ev.n_synth},
        "verdict": ev.verdict,
        "references": None if refs is None else {
            "one_way": dict(zip(("synthetic", "uniform", "independent"), refs.one_way, strict=True)),
            "two_way": None if refs.two_way is None else dict(
                zip(("synthetic", "uniform", "independent"), refs.two_way, strict=True))},
        "rules": {"far_one_way": FAR_ONE_WAY, "noise_delta": NOISE_DELTA,
                  "lost": "tvd > max(independent - synthetic_noise, noise) if independent > noise "
                  "else tvd > independent + noise", "far": "tvd > max(far_one_way, noise)"},
        "lost_pairs": [list(p.columns) for p in comparison.lost_pairs] if comparison is not None else [],
        "far_columns": [c.name for c in comparison.far_columns] if comparison is not None else [],
        "marginals": [{"alpha": s.alpha, "count": s.count, "tvd": s.tvd, "note": s.note} for s in ev.marginals],
        **({} if ev.workload is None else {"workload": {
            "file": ev.workload.source, "tvd": ev.workload.tvd,
            "sets": [{"attributes": list(names), "weight": weight, "tvd": tvd}
                     for names, weight, tvd in ev.workload.sets]}}),
        "columns": [{"name": a.name, "kind": a.kind, "values": len(a.labels), "tvd": a.tvd,
                     "uniform": columns[a.name].uniform if a.name in columns else None,
                     "noise": columns[a.name].noise if a.name in columns else None,
                     "far": columns[a.name].far if a.name in columns else None} for a in ev.attributes],
        "pairs": _pairs(comparison),
        "numeric": [{"name": c.name, "ks": c.ks,
                     "masses": [{"value": v, "real": r, "synthetic": s} for v, r, s in c.masses],
                     "quantiles": [{"q": q, "real": r, "synthetic": s} for q, r, s in c.quantiles]}
                    for c in ev.numeric],
        "classifier": {"default_target": ev.default_target or None,
                       "targets": [{"target": s.target, "positive_real": s.positive_real,
                                    "positive_synthetic": s.positive_synth, "synthetic": s.synthetic,
                                    "reference": s.reference} for s in ev.svm]},
        "notes": list(ev.notes),
        "not_run": list(ev.skipped),
        "privacy": {"guarantee": privacy.guarantee, "caveats": [text for _, text in privacy.caveats],
                    "audit": privacy.audit[1] if privacy.audit is not None else None},
    }


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float (a KS distance of an empty column) as None: strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def write_json(path: str, ev: Evaluation, privacy: PrivacySummary, real_name: str = "REAL",
               synth_name: str = "SYNTH") -> None:
    """Write :func:`evaluation_document` to ``path`` atomically (no partial file on failure)."""
    from privbayes.files.tables import atomic_write_text

    document = _finite(evaluation_document(ev, privacy, real_name, synth_name))
    atomic_write_text(path, json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n")
