"""Safe publishing of naive Bayes classifiers (Mozafari & Zaniolo, "Publishing Naive Bayesian
Classifiers: Privacy without Accuracy Loss", VLDB 2009).

NBC-enabling views (:mod:`.views`), SafetyTransform (:mod:`.safety`), EST for a known prior
(:mod:`.est`), breach parameters (:mod:`.breach`), the exhaustive equivalence check
(:mod:`.equivalence`), Bob's possible-worlds attack (:mod:`.attack`), synthetic tables
(:mod:`.synthesis`) and the ``views.json`` format (:mod:`.viewsfile`).

The guarantee is the paper's privacy-breach / r-closeness bound against a possible-worlds
attacker. It is deterministic, adds no noise and is NOT differential privacy.
"""

from privbayes.nbc.breach import (
           amplification,
           gamma_from_breach,
           k_sind,
           satisfies_corollary4,
)
from privbayes.nbc.equivalence import check_equivalence
from privbayes.nbc.est import est
from privbayes.nbc.safety import SafeViews, normalised, safety_transform
from privbayes.nbc.views import AttributeCounts, NBCViews, views_from_table

__all__ = ["AttributeCounts", "NBCViews", "SafeViews", "amplification", "check_equivalence", "est",
           "gamma_from_breach", "k_sind", "normalised", "safety_transform", "satisfies_corollary4",
           "views_from_table"]
