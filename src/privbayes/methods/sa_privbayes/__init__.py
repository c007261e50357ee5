"""SA-PrivBayes's own parts (Future Internet 2026): AMI ordering, screening, score-driven budgets,
its settings and plan, and network learning in a given order."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"SAPrivBayes": "estimator"}
"""Public names and their submodules, imported on first use (PEP 562): importing one module of the package
does not load the others."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["SAPrivBayes"]
