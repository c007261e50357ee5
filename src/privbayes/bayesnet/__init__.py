"""The Bayesian-network machinery PrivBayes, SA-PrivBayes and the adaptive method share (TODS 2017): AP pairs
(:mod:`.network`), scores and their registry, GreedyBayes and its candidate parent sets, the noisy tables and
conditionals, the network of a consistent estimate (:mod:`.junction`), sampling, and the released
:class:`~privbayes.bayesnet.model.BayesNetModel` with its model file."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"noisy_conditionals": "conditionals", "greedy_bayes": "greedy", "network_of": "junction",
            "measure_tables": "measurements", "BayesNetModel": "model", "APPair": "network", "Network": "network",
            "get_score": "registry"}
"""Public names and their submodules, imported on first use (PEP 562): importing one module of the package
does not load the others."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["APPair", "BayesNetModel", "Network", "get_score", "greedy_bayes", "measure_tables", "network_of",
           "noisy_conditionals"]
