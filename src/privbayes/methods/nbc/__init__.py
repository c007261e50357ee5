"""Safe publishing of naive Bayes classifiers (Mozafari & Zaniolo, "Publishing Naive Bayesian
Classifiers: Privacy without Accuracy Loss", VLDB 2009).

NBC-enabling views (:mod:`.views`), SafetyTransform (:mod:`.safety`), EST for a known prior
(:func:`.est.est`), breach parameters (:mod:`.breach`), the exhaustive equivalence check
(:mod:`.equivalence`), Bob's possible-worlds attack (:mod:`.attack`), synthetic tables
(:mod:`.synthesis`), the ``views.json`` format (:mod:`.viewsfile`) and the one-call entry point
(:mod:`.release`: :class:`NBCSettings` in, :class:`NBCRelease` with its privacy report out).

The guarantee is the paper's privacy-breach / r-closeness bound against a possible-worlds
attacker. It is deterministic, adds no noise and is NOT differential privacy.
"""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"amplification": "breach", "gamma_from_breach": "breach", "k_sind": "breach",
            "satisfies_corollary4": "breach", "check_equivalence": "equivalence",
            "exhaustive_equivalence": "equivalence", "NBCRelease": "release", "NBCSettings": "release",
            "publish": "release",
            "SafeViews": "safety", "normalised": "safety", "safety_transform": "safety",
            "AttributeCounts": "views", "NBCViews": "views", "views_from_table": "views"}
"""Public names and their submodules, imported on first use (PEP 562): the CLI registers the
``nbc`` commands without loading numpy."""


__getattr__ = lazy_exports(__name__, _EXPORTS)


__all__ = ["AttributeCounts", "NBCRelease", "NBCSettings", "NBCViews", "SafeViews", "amplification",
           "check_equivalence", "exhaustive_equivalence", "gamma_from_breach", "k_sind", "normalised", "publish",
           "safety_transform", "satisfies_corollary4", "views_from_table"]
