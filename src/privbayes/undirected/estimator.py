"""``PrivateMRF``: an ε-DP Markov random field over user-given cliques (Bernstein et al., ICML 2017).

fit: the counting layer returns the exact clique tables (nothing else reads rows);
``auto`` (the default), ``naive`` and ``cgm`` release them once with discrete Laplace noise (ε/|C|
per table, :mod:`privbayes.undirected.measurements`) and estimate θ by post-processing (``auto``:
naive MLE with λ calibrated from public inputs, issue 30; §3.1 naive MLE; §3.2 CGM-EM, its E-step
exact through the dual on junction trees (:mod:`privbayes.undirected.estep`) and by NLBP on loopy
models); ``psgd`` is the (ε, δ) noisy-gradient baseline (§4).
The fit's result is a frozen :class:`~privbayes.undirected.released.ReleasedMRF` (``released_``);
the fitted attributes are views of it.  It samples, answers marginals and scores held-out rows
without the data.
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Any, Sequence

import numpy as np
import pandas as pd

from privbayes.errors import InputError
from privbayes.inference import Domain
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import random_source
from privbayes.schema import Schema
from privbayes.undirected.cliques import clique_indices
from privbayes.undirected.estimation import CGMOptions, calibrated_lambda, cgm_em, naive_mle
from privbayes.undirected.measurements import RELATIONS, measure
from privbayes.undirected.model import LogLinearModel
from privbayes.undirected.released import ReleasedMRF
from privbayes.undirected.psgd import psgd

METHODS = ("auto", "naive", "cgm", "psgd")
DEFAULT_LAMBDA: dict[str, float | None] = {"auto": None, "naive": 1e-4, "cgm": 0.0, "psgd": 0.0}
"""λ when the user gives none; None: calibrated per clique from the noise-to-count ratio (``auto``)."""


def _real(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _open_table(data: Any, schema: Any) -> Any:
    from privbayes import counting

    return counting.open(data, schema)


class PrivateMRF:
    """ε-DP log-linear MRF (scikit-learn conventions: fit returns self, learned attributes end in _).

    ``cliques`` lists tuples of attribute names; ``method`` auto (default: naive MLE with λ set per
    clique from the noise-to-count ratio, docs/undirected.md), naive, cgm or psgd;
    ``relation`` "replace-one" (library default: sensitivity 2 per table, n public) or
    "add-remove" (the paper's: sensitivity 1 per table, N estimated from the noisy tables);
    ``lam`` the L2 weight λ (default: calibrated for auto, 1e-4 for naive, 0 for cgm and psgd); ``inference``
    auto/exact/loopy; ``cgm`` a :class:`CGMOptions`; ``delta`` for psgd (default 1/n);
    ``random_state`` seeds the DP noise (reproducible experiments; the report says so).
    """

    def __init__(self, cliques: Sequence[Sequence[str]], epsilon: float = 1.0, *, method: str = "auto",
                 relation: str = "replace-one", lam: float | None = None, inference: str = "auto",
                 cgm: CGMOptions | None = None, psgd_steps: int = 50, psgd_learning_rate: float = 1.0,
                 delta: float | None = None, random_state: int | None = None) -> None:
        self.cliques = cliques
        self.epsilon = epsilon
        self.method = method
        self.relation = relation
        self.lam = lam
        self.inference = inference
        self.cgm = cgm
        self.psgd_steps = psgd_steps
        self.psgd_learning_rate = psgd_learning_rate
        self.delta = delta
        self.random_state = random_state

    def check_parameters(self) -> None:
        """Raise :class:`InputError` naming the first parameter outside its range."""
        if not _real(self.epsilon) or self.epsilon <= 0:
            raise InputError(f"epsilon ({self.epsilon!r}) must be a finite number > 0")
        if self.method not in METHODS:
            raise InputError(f"method ({self.method!r}) must be one of {', '.join(METHODS)}")
        if self.relation not in RELATIONS:
            raise InputError(f"relation ({self.relation!r}) must be one of {', '.join(RELATIONS)}")
        if self.lam is not None and (not _real(self.lam) or self.lam < 0):
            raise InputError(f"lam ({self.lam!r}) must be a finite number >= 0")
        if self.inference not in ("auto", "exact", "loopy"):
            raise InputError(f"inference ({self.inference!r}) must be auto, exact or loopy")
        if not isinstance(self.psgd_steps, int) or isinstance(self.psgd_steps, bool) or self.psgd_steps < 1:
            raise InputError(f"psgd_steps ({self.psgd_steps!r}) must be a positive integer")
        if not _real(self.psgd_learning_rate) or self.psgd_learning_rate <= 0:
            raise InputError(f"psgd_learning_rate ({self.psgd_learning_rate!r}) must be a finite number > 0")
        if self.delta is not None and (not _real(self.delta) or not 0 < self.delta < 1):
            raise InputError(f"delta ({self.delta!r}) must be in (0, 1)")
        if self.method == "psgd" and self.relation != "replace-one":
            raise InputError("method 'psgd' supports relation 'replace-one' only (it divides by the public n)")
        clique_indices(self.cliques, None)

    # --- fitting -------------------------------------------------------------------------------

    def fit(self, data: pd.DataFrame | str | os.PathLike, schema: Schema | str | os.PathLike | dict) -> "PrivateMRF":
        """Learn the private model from a DataFrame or a table path, with a public ``schema``."""
        self.check_parameters()
        table = _open_table(data, schema)
        schema = table.schema
        cliques = clique_indices(self.cliques, schema)
        domain = Domain(tuple(a.size for a in schema.attributes))
        counts = [table.counts(list(c)) for c in cliques]
        public_n = int(table.n)
        start = LogLinearModel.uniform(domain, cliques, self.inference)  # type: ignore[arg-type]
        lam = DEFAULT_LAMBDA[self.method] if self.lam is None else float(self.lam)
        lam = 0.0 if lam is None else lam  # auto's λ is set after the measurements (below)
        rng = random_source(self.random_state)
        if self.method == "psgd":
            delta = self.delta if self.delta is not None else 1.0 / public_n
            accountant = Accountant(self.epsilon, Fraction(delta))
            noise = np.random.default_rng(self.random_state)  # float Gaussian noise: the documented exception
            model = psgd(start, counts, public_n, self.epsilon, delta, accountant, noise,
                         steps=self.psgd_steps, learning_rate=self.psgd_learning_rate, lam=lam)
            n = float(public_n)
        else:
            accountant = Accountant(self.epsilon)
            names = [",".join(schema.names[v] for v in c) for c in cliques]
            stats = measure(counts, public_n, cliques, names, self.epsilon, self.relation,  # type: ignore[arg-type]
                            accountant, rng)
            del counts
            n = stats.n
            if self.method == "auto":  # post-processing: λ_C from the noise scale, |X_C| and n (or N̂)
                model = naive_mle(start, stats, calibrated_lambda(stats) if self.lam is None else lam)
            elif self.method == "naive":
                model = naive_mle(start, stats, lam)
            else:
                options = self.cgm if self.cgm is not None else CGMOptions(lam=lam)
                model, self.trace_ = cgm_em(start, stats, options)
        self.released_ = ReleasedMRF(schema, cliques, model, self.get_params(), n, accountant.ledger, rng.seeded)
        return self

    def get_params(self) -> dict[str, Any]:
        """The parameters a released model keeps (the model file's ``parameters``)."""
        return {"epsilon": self.epsilon, "method": self.method, "relation": self.relation, "lam": self.lam,
                "inference": self.inference, "delta": self.delta}

    # --- the released value and views of it ----------------------------------------------------

    def _released(self) -> ReleasedMRF:
        if not hasattr(self, "released_"):
            raise InputError("this PrivateMRF is not fitted yet; call fit first")
        return self.released_

    schema_ = property(lambda self: self._released().schema)
    cliques_ = property(lambda self: self._released().cliques)
    model_ = property(lambda self: self._released().model)
    n_ = property(lambda self: self._released().n)
    ledger_ = property(lambda self: self._released().ledger)
    seeded_ = property(lambda self: self._released().seeded)
    epsilon_spent_ = property(lambda self: self._released().epsilon_spent)
    delta_spent_ = property(lambda self: self._released().delta_spent)

    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """p(x_attributes) as an array with one axis per attribute (leaf codes, in the given order)."""
        return self._released().marginal(attributes)

    def sample(self, n: int, random_state: int | None = None, bin_labels: bool = False) -> pd.DataFrame:
        """``n`` synthetic rows in the schema's values (exact sampling on junction trees, Gibbs otherwise);
        ``bin_labels`` gives numeric attributes as bin labels instead of values drawn inside the bins."""
        return self._released().sample(n, random_state, bin_labels)

    def log_likelihood(self, data: pd.DataFrame | str | os.PathLike) -> float:
        """Mean log-likelihood per row of ``data`` (nats; the paper's holdout log-likelihood, §4.2)."""
        return self._released().log_likelihood(data)

    def privacy_report(self) -> dict[str, Any]:
        """What was spent, on what, under which neighbouring relation, and what is not covered."""
        return self._released().privacy_report()

    def to_dict(self) -> dict[str, Any]:
        from privbayes.undirected.model_file import to_dict

        return to_dict(self._released())

    @classmethod
    def from_dict(cls, document: Any, source: str = "model") -> "PrivateMRF":
        from privbayes.undirected.model_file import from_dict

        return cls._wrapping(from_dict(document, source, cls))

    def save(self, path: str | os.PathLike) -> None:
        """Write the model as versioned JSON (atomic); sampling from it never needs the data."""
        import json

        from privbayes.io import atomic_write_text

        atomic_write_text(path, json.dumps(self.to_dict()))

    @classmethod
    def load(cls, path: str | os.PathLike) -> "PrivateMRF":
        from privbayes.undirected.model_file import load

        return cls._wrapping(load(path, cls))

    @classmethod
    def _wrapping(cls, released: ReleasedMRF) -> "PrivateMRF":
        """An estimator whose fitted state is ``released`` (its parameters are the model's)."""
        p = released.parameters
        estimator = cls([tuple(released.schema.names[v] for v in c) for c in released.cliques], p["epsilon"],
                        method=p["method"], relation=p["relation"], lam=p["lam"], inference=p["inference"],
                        delta=p["delta"])
        estimator.released_ = released
        return estimator
