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
