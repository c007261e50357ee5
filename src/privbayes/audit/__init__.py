"""Privacy assurance tools: empirical audits that can catch a broken privacy argument.

* :mod:`privbayes.audit.distinguish`: a distinguishing (stochastic) tester that runs a
  mechanism on neighbouring inputs and tests Σ_events max(0, p_A − e^ε p_B) ≤ δ + τ;
* :mod:`privbayes.audit.mia`: a membership-inference audit that turns attack success
  into a Clopper–Pearson lower bound on ε;
* :func:`audit` (:mod:`privbayes.audit.selfaudit`, ``privbayes audit``): the tight white-box self-audit, the
  exact privacy loss of every release's transcript on worst-case neighbours → a lower bound on ε.

Audits can refute a privacy claim, never prove one; see docs/privacy-assurance.md.
"""

from privbayes.audit.distinguish import (
    BallotResult,
    DistinguishResult,
    approximate_delta,
    ballot,
    compare_histograms,
    concentration_tolerance,
    distinguish,
    miss_probability,
)
from privbayes.audit.result import AuditResult
from privbayes.audit.selfaudit import audit

__all__ = ["AuditResult", "BallotResult", "DistinguishResult", "approximate_delta", "audit", "ballot",
           "compare_histograms", "concentration_tolerance", "distinguish", "miss_probability"]
