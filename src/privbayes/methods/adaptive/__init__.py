"""Adaptive marginals
(docs/decisions.md, "Adaptive marginals"): AIM's adaptive selection under pure ε, on this library's pieces.

``settings`` (parameters, the rounds rule and the budget plan), ``candidates`` (the candidate marginals and
their workload weights), ``marginals`` (the model's marginal over any attribute set; the junction tree's
size), ``network`` (PrivBayes's network and tables as the first measurements), ``rounds`` (the fit:
first measurements, then select → measure → re-fit).  The estimator is
:class:`privbayes.methods.adaptive.estimator.AdaptiveMarginals`; the design and its sources are in
docs/decisions.md, "Adaptive marginals", and the privacy proof in docs/privacy-assurance.md.
"""
