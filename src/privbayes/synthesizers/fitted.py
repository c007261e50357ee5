"""The fitted attributes of the Bayesian-network synthesizers, as views of their released value.

``fit`` stores a :class:`~privbayes.bayesnet.model.BayesNetModel` in ``released_`` (also ``model_``);
the scikit-learn style fitted attributes (``network_``, ``ledger_``, …) read that value only.
"""

from __future__ import annotations


class BayesNetViews:
    """Fitted attributes shared by :class:`PrivBayes` and :class:`SAPrivBayes` (mixed into a
    :class:`~privbayes.synthesizers.contract.PrivateEstimator`, whose ``_released`` they read)."""

    encoding_ = property(lambda self: self._released().encoding)
    network_ = property(lambda self: self._released().network)
    learned_network_ = property(lambda self: self._released().learned_network or self._released().network)
    conditionals_ = property(lambda self: list(self._released().conditionals))
    ledger_ = property(lambda self: self._released().ledger)
    n_ = property(lambda self: self._released().n)
    degree_ = property(lambda self: self._released().degree)
    score_ = property(lambda self: self._released().parameters.get("score"))
    seeded_ = property(lambda self: self._released().seeded)
    algorithm_ = property(lambda self: self._released().algorithm)
    domain_source_ = property(lambda self: self._released().domain_source)
    epsilon_spent_ = property(lambda self: self._released().epsilon_spent)
