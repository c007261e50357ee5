"""Adaptive marginals: AIM's adaptive selection under pure ε, with PrivBayes's speed
(docs/decisions.md, "Adaptive marginals").

The fit (:mod:`privbayes.methods.adaptive`): under add/remove neighbours a noisy count; the 1-way marginal of
every attribute (small attributes measured jointly); then T rounds, each selecting by permute-and-flip
the marginal that the current model fits worst, net of the noise its measurement would carry (AIM, McKenna et al., VLDB
2022), measuring it with discrete Laplace noise and re-fitting one model to every measurement so far
(the consistent estimator of :mod:`privbayes.estimation.consistent`, Private-PGM's objective on an exact
junction tree).  Every budget is fixed by the plan before any count is taken, so the release is ε-DP
by sequential composition of its releases (docs/privacy-assurance.md, "Adaptive marginals"), under
replace-one (n public, count tables Δ = 2) or add/remove (n private, Δ = 1) neighbours.

The released value is a :class:`~privbayes.bayesnet.model.BayesNetModel`: the Bayesian network of the
calibrated junction tree (as ``PrivBayes(estimation="consistent")`` releases), so sampling, inspection
and model files work as for PrivBayes; each ledger entry names the marginal it measured.
"""

from __future__ import annotations

from fractions import Fraction

from privbayes.bayesnet.junction import network_of
from privbayes.bayesnet.model import BayesNetModel
from privbayes.counting import PrivateTable
from privbayes.counting.base import CountingPlace
from privbayes.estimation.potentials import potentials_of
from privbayes.methods.adaptive import rounds
from privbayes.methods.adaptive.cost import adaptive_cost
from privbayes.methods.adaptive.parameters import PARAMETERS
from privbayes.methods.adaptive.settings import AdaptiveSettings
from privbayes.methods.adaptive.zcdp import gaussian
from privbayes.privacy.mechanisms import count_mechanism
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema import Schema
from privbayes.synthesizers.contract import FitContext, Measured, PrivateEstimator
from privbayes.synthesizers.costs import CostEstimate
from privbayes.synthesizers.fitted import BayesNetViews
from privbayes.synthesizers.parameters import DeclaredEstimator


class AdaptiveMarginals(BayesNetViews, DeclaredEstimator, PrivateEstimator):
    """ε-DP synthesizer by adaptive marginal selection (the release contract:
    :mod:`privbayes.synthesizers.contract`).

    Its parameters are declared in :mod:`privbayes.methods.adaptive.parameters`; the section below is derived
    from them.  Under "add-remove" neighbours 1% of ε buys a noisy count (n private, as MST/AIM).
    """

    method = "adaptive"
    parameters = PARAMETERS
    settings_class = AdaptiveSettings

    def settings(self) -> AdaptiveSettings:
        settings: AdaptiveSettings = self.declared_settings()
        return settings

    def _plan(self, settings: AdaptiveSettings, schema: Schema, n: int) -> BudgetPlan:
        """The budget plan of a fit on n rows of ``schema`` (the noisy count under add/remove), before any
        table is counted."""
        return settings.plan(n, settings.encoding_for(schema))

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None, *,
                      counting: CountingPlace | None = None) -> CostEstimate:
        """Time, peak memory and model-file size of a fit with ``plan`` (:mod:`privbayes.methods.adaptive.cost`)."""
        settings = self.settings()
        return adaptive_cost(settings, plan, settings.encoding_for(schema), counting)

    def private_n_note(self) -> str:
        settings = self.settings()
        count = (f"discrete Gaussian, ρ = {float(settings.count_rho()):g}" if settings.zcdp else
                 f"discrete Laplace, ε = {float(settings.count_epsilon()):g}")
        return f"the fit first releases a noisy count ({count}); the number of rounds follows from it"

    def _prepare(self, settings: AdaptiveSettings, table: PrivateTable) -> PrivateTable:
        """The table in the hierarchical encoding; a workload naming columns the schema lacks is refused here,
        before the noisy count (public inputs only)."""
        encoding = settings.encoding_for(table.schema)
        settings.workload_sets(encoding)
        return table.encoded(encoding)

    def _count_epsilon(self, settings: AdaptiveSettings) -> Fraction:
        return settings.count_epsilon()

    def _total_rho(self, settings: AdaptiveSettings) -> Fraction | None:
        """ρ under ``privacy="zcdp"`` (the template then charges a zCDP accountant), else None."""
        return settings.total_rho() if settings.zcdp else None

    def _count_rho(self, settings: AdaptiveSettings) -> Fraction:
        return settings.count_rho()

    def _measure(self, settings: AdaptiveSettings, fit: FitContext) -> Measured:
        """The first measurements, then the rounds (:mod:`privbayes.methods.adaptive.rounds`); the released
        network is the calibrated junction tree's."""
        encoding = settings.encoding_for(fit.schema)
        plan, relation = fit.plan, settings.relation
        count_variance = None if relation.n_public else (
            gaussian(settings.count_rho(), Fraction(1)).variance if settings.zcdp else
            count_mechanism(settings.count_epsilon()).variance)
        fit.progress.stage("measuring and fitting", plan.setting("rounds"))
        fitted = rounds.run(fit.table, encoding, plan, degree=plan.setting("marginal degree"),
                            max_model_cells=plan.setting("max model cells"), sensitivity=relation.count_sensitivity,
                            accountant=fit.charged, rng=fit.rng, n=fit.planned_n,
                            count_variance=count_variance, progress=fit.progress.update,
                            groups=settings.first_tables(encoding, fit.planned_n)[0],
                            workload=settings.workload_sets(encoding),
                            refits=rounds.refits_for(settings.signal(fit.planned_n), settings.zcdp_rules))
        # Post-processing from here: the model is a function of the measurements only.
        potentials = potentials_of(fitted.measurements, fitted.estimate.log_potentials)
        network, conditionals = network_of(encoding, potentials)  # as its model file will rebuild it
        return Measured(lambda record: BayesNetModel(
            schema=fit.schema, encoding=encoding, network=network, conditionals=tuple(conditionals),
            parameters=settings.to_parameters(encoding), record=record, degree=network.degree,
            algorithm=plan.setting("algorithm"), differentially_private=True, mechanism=settings.mechanism,
            potentials=potentials))


__all__ = ["AdaptiveMarginals"]
