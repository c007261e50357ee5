"""One folder per method, each with its whole kit (settings, plan, cost estimate, estimator, released value, file
codec): :mod:`.privbayes` (TODS 2017), :mod:`.sa_privbayes` (Future Internet 2026), :mod:`.adaptive` (AIM-style
selection under pure ε), :mod:`.mrf` (ICML 2017) and :mod:`.nbc` (VLDB 2009, not DP).  The registry
(:mod:`privbayes.synthesizers.registry`) names each method's kit; shared machinery stays below (``bayesnet``,
``estimation``, ``inference``, ``counting``, ``privacy``, ``schema``)."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS: dict[str, str] = {}
"""No names of its own: its public face is its method folders, imported on first use (PEP 562)."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["adaptive", "mrf", "nbc", "privbayes", "sa_privbayes"]
