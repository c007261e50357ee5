"""``PrivateMRF``: an ε-DP Markov random field over user-given cliques (Bernstein et al., ICML 2017).

fit: the counting layer returns the exact clique tables (nothing else reads rows); ``naive`` and
``cgm`` release them once with discrete Laplace noise (ε/|C| per table,
:mod:`privbayes.methods.mrf.measurements`) and estimate θ by post-processing (§3.1 naive MLE; §3.2
CGM-EM, its E-step exact through the dual on junction trees (:mod:`privbayes.methods.mrf.estep`)
and by NLBP on loopy models); ``psgd`` is the (ε, δ) noisy-gradient baseline (§4).  The result is
a frozen :class:`~privbayes.methods.mrf.released.ReleasedMRF` (``released_``) that samples, answers
marginals and scores held-out rows without the data.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privbayes.core.errors import UncoveredColumnsWarning
from privbayes.counting.base import CountingPlace
from privbayes.inference import Domain
from privbayes.methods.mrf.cliques import clique_indices
from privbayes.methods.mrf.cost import mrf_cost
from privbayes.methods.mrf.estimation import CGMOptions, auto_estimate, calibrated_mle, cgm_em, naive_mle
from privbayes.methods.mrf.measurements import measure
from privbayes.methods.mrf.model import LogLinearModel
from privbayes.methods.mrf.parameters import PARAMETERS
from privbayes.methods.mrf.psgd import psgd
from privbayes.methods.mrf.released import ReleasedMRF
from privbayes.methods.mrf.settings import METHOD, MRFSettings
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.contract import FitContext, Measured, PrivateEstimator
from privbayes.synthesizers.costs import CostEstimate
from privbayes.synthesizers.parameters import DeclaredEstimator


class PrivateMRF(DeclaredEstimator, PrivateEstimator):
    """ε-DP log-linear MRF (the release contract: :mod:`privbayes.synthesizers.contract`).

    Its parameters are declared in :mod:`privbayes.methods.mrf.parameters`; the section below is derived from
    them.  Under "replace-one" neighbours (the library's default) each table has sensitivity 2 and n is public;
    under "add-remove" (the paper's) sensitivity 1 and N is estimated from the noisy tables.
    """

    method = METHOD
    parameters = PARAMETERS
    settings_class = MRFSettings

    def settings(self) -> MRFSettings:
        clique_indices(self.cliques, None)
        settings: MRFSettings = self.declared_settings()
        return settings

    def _plan(self, settings: MRFSettings, schema: Schema, n: int) -> BudgetPlan:
        return settings.plan(n, schema, self.cliques)

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None, *,
                      counting: CountingPlace | None = None) -> CostEstimate | None:
        """Time, peak memory and model-file size of a fit on n rows (:mod:`privbayes.methods.mrf.cost`);
        None when n is neither in the plan (add/remove) nor given."""
        size = plan.setting("n") if n is None else n
        if not isinstance(size, int):
            return None
        return mrf_cost(plan, Encoding.build(schema, "vanilla"), clique_indices(self.cliques, schema), size)

    def _guard_estimate(self, settings: MRFSettings, plan: BudgetPlan, schema: Schema,
                        n: int | None, counting: CountingPlace | None = None) -> CostEstimate:
        """The memory guard's estimate, also under add/remove neighbours: the working memory (the clique
        tables and the junction tree) does not depend on n, so a private n is planned as 0."""
        return mrf_cost(plan, Encoding.build(schema, "vanilla"), clique_indices(self.cliques, schema),
                        0 if n is None else n)

    def private_n_note(self) -> str:
        return "no release is sized by n (N is estimated from the noisy tables afterwards)"

    def _accountant(self, settings: MRFSettings, public_n: int | None) -> Accountant:
        if settings.estimation == "psgd":  # replace-one only: n is public, and δ defaults to 1/n
            return Accountant(settings.epsilon, settings.delta_for(public_n or 0))
        return Accountant(settings.epsilon)

    def _measure(self, settings: MRFSettings, fit: FitContext) -> Measured:
        """The clique tables released once (naive, cgm, auto) and θ estimated from them, or psgd's noisy gradients."""
        schema, table, accountant = fit.schema, fit.table, fit.accountant
        cliques = clique_indices(self.cliques, schema)
        domain = Domain(tuple(a.size for a in schema.attributes))
        counts = [table.counts(list(c)) for c in cliques]
        start = LogLinearModel.uniform(domain, cliques, settings.inference)
        if settings.estimation == "psgd":
            public_n = fit.planned_n  # psgd is replace-one only: n is public
            noise = np.random.default_rng(self.random_state)  # float Gaussian noise: the documented exception
            model = psgd(start, counts, public_n, settings.epsilon, settings.delta_for(public_n), accountant, noise,
                         steps=settings.psgd_steps, learning_rate=settings.psgd_learning_rate,
                         lam=settings.l2_weight or 0.0)
            n = float(public_n)
            estimate = ""
        else:
            names = [",".join(schema.names[v] for v in c) for c in cliques]
            stats = measure(counts, 0 if fit.n is None else fit.n, cliques, names,
                            settings.epsilon, settings.neighbours, accountant, fit.rng)
            del counts
            n = stats.n
            lam = settings.l2_weight
            estimate = auto_estimate(stats, lam) if settings.estimation == "auto" else ""
            if settings.estimation == "auto":  # post-processing: floor and λ_C from the noise scale, |X_C| and n (or N̂)
                model = calibrated_mle(start, stats, lam)
            elif settings.estimation == "naive":
                model = naive_mle(start, stats, lam or 0.0)  # λ is never None here: naive's default is 10⁻⁴
            else:
                options = self.cgm if self.cgm is not None else CGMOptions(lam=lam or 0.0)
                model, self.trace_ = cgm_em(start, stats, options)
        caveats = []
        uncovered = [a.name for j, a in enumerate(schema.attributes) if not any(j in c for c in cliques)]
        if uncovered:
            note = (f"column(s) {', '.join(repr(u) for u in uncovered)} lie in no clique: the model knows nothing of "
                    "them and samples them uniformly")
            warnings.warn(note, UncoveredColumnsWarning, stacklevel=5)
            caveats.append(note)
        return Measured(lambda record: ReleasedMRF(schema, cliques, model, settings.to_parameters(), record, estimate),
                        tuple(caveats), n)

    # --- views of the released value ----------------------------------------------------------------

    released_: ReleasedMRF
    """The released MRF (:meth:`_measure` builds no other value)."""

    def _released(self) -> ReleasedMRF:
        super()._released()  # the one-line error before fit
        return self.released_

    cliques_ = property(lambda self: self._released().cliques)
    n_ = property(lambda self: self._released().n)
    ledger_ = property(lambda self: self._released().ledger)
    seeded_ = property(lambda self: self._released().seeded)
    epsilon_spent_ = property(lambda self: self._released().epsilon_spent)
    delta_spent_ = property(lambda self: self._released().delta_spent)

    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """p(x_attributes) as an array with one axis per attribute (leaf codes, in the given order)."""
        return self._released().marginal(attributes)

    def log_likelihood(self, data: pd.DataFrame | Any) -> float:
        """Mean log-likelihood per row of ``data`` (nats; the paper's holdout log-likelihood, §4.2)."""
        return self._released().log_likelihood(data)

