"""What a self-audit reports: the claimed ε, the empirical lower bound, the verdict and how it was found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from privbayes.audit.bounds import Event


@dataclass(frozen=True)
class AuditResult:
    """One self-audit (``privbayes audit``): ``epsilon_lower`` is a lower bound on the true ε of the audited
    release at ``confidence``; above the claimed ``epsilon`` it refutes the claim (VIOLATION)."""

    subject: str
    epsilon: float
    epsilon_lower: float
    confidence: float
    runs: int
    calibration_runs: int
    pair: dict[str, Any]
    statistic: str
    events: tuple[Event, ...]
    threshold_rule: str
    parameters: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    notes: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        return "VIOLATION" if self.epsilon_lower > self.epsilon else "consistent"

    @property
    def tightness(self) -> float:
        """epsilon_lower / epsilon: how much of the claim the audit certifies."""
        return self.epsilon_lower / self.epsilon

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "epsilon": self.epsilon, "epsilon_lower": self.epsilon_lower,
                "verdict": self.verdict, "confidence": self.confidence, "runs_per_table": self.runs,
                "calibration_runs_per_table": self.calibration_runs, "pair": self.pair, "statistic": self.statistic,
                "threshold_rule": self.threshold_rule, "events": [e.to_dict() for e in self.events],
                "parameters": self.parameters, "seconds": round(self.seconds, 2),
                "runs_per_second": round(2 * (self.runs + self.calibration_runs) / max(self.seconds, 1e-9), 1),
                "notes": list(self.notes)}

    def lines(self) -> list[str]:
        """What ``privbayes audit`` prints."""
        best = max(self.events, key=lambda e: e.bound)
        return [f"audit of {self.subject}: claimed epsilon = {self.epsilon:g}",
                f"empirical lower bound = {self.epsilon_lower:.3f} ({self.tightness:.0%} of the claim; "
                f"one-sided Clopper-Pearson, {self.confidence:.0%} confidence)",
                f"verdict: {self.verdict}",
                f"runs: {self.runs} per table (+{self.calibration_runs} calibration) in {self.seconds:.1f} s; "
                f"pair: {self.pair.get('name', '')}",
                f"best event: {best.name} at {best.threshold:.4g} ({best.hits_d} hits on D, {best.hits_d2} on D')",
                *self.notes]


MAX_SUBJECT = 200
"""Characters of an audit file's ``subject`` that a citation repeats."""


def cite_audit(path: str) -> tuple[str, bool]:
    """One line citing the self-audit saved by ``privbayes audit --json`` in ``path``, and whether it
    refuted its claim.  The file is hostile input like any other: bounded, every field checked, the
    verdict recomputed from the numbers rather than read.  A citation says that the *implementation*
    passed (or failed) an audit on a worst-case pair of tiny public tables; it is not an audit of the
    release it is printed beside."""
    from math import isfinite

    from privbayes.core.errors import InputError
    from privbayes.files.documents import read_document

    raw = read_document(path, "audit", json_only=True)

    def number(key: str) -> float:
        value = raw.get(key) if isinstance(raw, dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not isfinite(value):
            raise InputError(f"{path}: not an audit file of privbayes audit --json ({key} must be a finite number)")
        return float(value)

    epsilon, lower, confidence, runs = (number(k) for k in ("epsilon", "epsilon_lower", "confidence",
                                                             "runs_per_table"))
    subject = raw.get("subject")
    if not isinstance(subject, str) or not 0 < len(subject) <= MAX_SUBJECT or epsilon <= 0 or not 0 < confidence < 1 \
            or runs < 1 or runs != int(runs):
        raise InputError(f"{path}: not an audit file of privbayes audit --json (subject, epsilon > 0, confidence in "
                         f"(0, 1) and a whole number of runs expected)")
    refuted = lower > epsilon
    verdict = "VIOLATION: the claim is refuted" if refuted else "consistent with the claim"
    return (f"self-audit of the implementation ({' '.join(subject.split())}, privbayes audit): empirical lower bound "
            f"{lower:.3f} on the true ε against the claimed {epsilon:g} ({confidence:.0%} confidence, {int(runs):,} "
            f"runs per table on a worst-case pair of tiny public tables): {verdict}", refuted)
