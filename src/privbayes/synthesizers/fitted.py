"""What every Bayesian-network synthesizer offers once fitted: its released model value and views of it.

``fit`` stores a :class:`~privbayes.bayesnet.model.BayesNetModel` in ``model_``; sampling, the privacy
report and saving read that value only (post-processing: never the data), and the scikit-learn style
fitted attributes (``network_``, ``ledger_``, …) are views of it.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from privbayes.bayesnet.model import BayesNetModel
from privbayes.errors import InputError


class FittedModel:
    """Accessors shared by :class:`PrivBayes` and :class:`SAPrivBayes`."""

    def _model(self) -> BayesNetModel:
        if not hasattr(self, "model_"):
            raise InputError(f"this {type(self).__name__} model is not fitted yet; call fit first")
        return self.model_

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False) -> pd.DataFrame:
        """``n`` synthetic rows (default: as many as the input) in the original schema."""
        return self._model().sample(n, random_state, bin_labels)

    def privacy_report(self) -> Any:
        """What was spent, on what, under which neighbouring relation, and what is not covered
        (the same report as the saved model's)."""
        return self._model().privacy_report()

    def save(self, path: str | os.PathLike) -> None:
        """Write the model as versioned JSON (atomic); loading recomputes and checks its plan."""
        from privbayes.model_file import save_model

        save_model(self._model(), path)

    schema_ = property(lambda self: self._model().schema)
    encoding_ = property(lambda self: self._model().encoding)
    network_ = property(lambda self: self._model().network)
    learned_network_ = property(lambda self: self._model().learned_network or self._model().network)
    conditionals_ = property(lambda self: list(self._model().conditionals))
    ledger_ = property(lambda self: self._model().ledger)
    n_ = property(lambda self: self._model().n)
    degree_ = property(lambda self: self._model().degree)
    score_ = property(lambda self: self._model().parameters.get("score"))
    seeded_ = property(lambda self: self._model().seeded)
    algorithm_ = property(lambda self: self._model().algorithm)
    domain_source_ = property(lambda self: self._model().domain_source)
    epsilon_spent_ = property(lambda self: self._model().epsilon_spent)
