"""PrivBayes's own parts (TODS 2017): its settings and budget plan, and the cost of a fit."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"PrivBayes": "estimator"}
"""Public names and their submodules, imported on first use (PEP 562): importing one module of the package
does not load the others."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["PrivBayes"]
