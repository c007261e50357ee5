"""Adaptive marginals: AIM's adaptive selection under pure ε, with PrivBayes's speed
(docs/decisions.md, "Adaptive marginals").

The fit (:mod:`privbayes.methods.adaptive`): under add/remove neighbours a noisy count; the 1-way marginal of
every attribute (small attributes measured jointly); then T rounds, each selecting by permute-and-flip
the marginal that the current model fits worst, net of the noise its measurement would carry (AIM, McKenna et al., VLDB
2022), measuring it with discrete Laplace noise and re-fitting one model to every measurement so far
(the consistent estimator of :mod:`privbayes.bayesnet.consistent`, Private-PGM's objective on an exact
junction tree).  Every budget is fixed by the plan before any count is taken, so the release is ε-DP
by sequential composition of its releases (docs/privacy-assurance.md, "Adaptive marginals"), under
replace-one (n public, count tables Δ = 2) or add/remove (n private, Δ = 1) neighbours.

The released value is a :class:`~privbayes.bayesnet.model.BayesNetModel`: the Bayesian network of the
calibrated junction tree (as ``PrivBayes(estimation="consistent")`` releases), so sampling, inspection
and model files work as for PrivBayes; each ledger entry names the marginal it measured.
"""

from __future__ import annotations

from privbayes._version import __version__
from privbayes.bayesnet.model import BayesNetModel
from privbayes.bayesnet.potentials import network_of, potentials_of
from privbayes.core.progress import Progress
from privbayes.counting import PrivateTable
from privbayes.methods.adaptive import rounds
from privbayes.methods.adaptive.cost import adaptive_cost
from privbayes.methods.adaptive.parameters import PARAMETERS
from privbayes.methods.adaptive.settings import COUNT_STEP, MECHANISM, AdaptiveSettings, first_groups
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import count_mechanism, noisy_count
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.report import READ_FROM_DATA_CAVEAT, SEEDED_CAVEAT
from privbayes.privacy.samplers import RandomSource, random_source
from privbayes.schema import Schema
from privbayes.synthesizers.contract import GIVEN, PrivateEstimator
from privbayes.synthesizers.costs import CostEstimate, check_cost
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

    def plan(self, n: int, schema: Schema) -> BudgetPlan:
        """The budget plan of a fit on n rows of ``schema`` (the noisy count under add/remove), before any
        table is counted."""
        settings = self.settings()
        return settings.plan(n, settings.encoding_for(schema))

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None) -> CostEstimate:
        """Time, peak memory and model-file size of a fit with ``plan`` (:mod:`privbayes.methods.adaptive.cost`)."""
        settings = self.settings()
        return adaptive_cost(settings, plan, settings.encoding_for(schema))

    def private_n_note(self) -> str:
        count = self.settings().count_epsilon()
        return (f"the fit first releases a noisy count (discrete Laplace, ε = {float(count):g}); the number of "
                "rounds follows from it")

    def _release(self, settings: AdaptiveSettings, table: PrivateTable, domain_source: str) -> BayesNetModel:  # type: ignore[override]
        with Progress("adaptive", enabled=self.progress) as progress:
            return _fit_table(settings, table, domain_source, random_source(self.random_state), progress)


def _fit_table(settings: AdaptiveSettings, table: PrivateTable, domain_source: str, rng: RandomSource,
               progress: Progress) -> BayesNetModel:
    schema = table.schema
    encoding = settings.encoding_for(schema)
    table = table.encoded(encoding)
    relation = settings.relation
    accountant = Accountant(settings.epsilon)
    if relation.n_public:
        n, count_scale = table.n, None
    else:
        n = noisy_count(table.n, settings.count_epsilon(), accountant, rng, step=COUNT_STEP)
        count_scale = count_mechanism(settings.count_epsilon()).scale
    plan = settings.plan(n, encoding)
    # refuse, before any table, a fit that would not fit in memory: under add/remove at the noisy count, which
    # the command line's guard (run before the data is opened) cannot know
    check_cost(adaptive_cost(settings, plan, encoding))
    progress.stage("measuring and fitting", plan.setting("rounds"))
    fitted = rounds.run(table, encoding, plan, degree=plan.setting("marginal degree"),
                        max_model_cells=plan.setting("max model cells"), sensitivity=relation.count_sensitivity,
                        accountant=accountant, rng=rng, n=n,
                        count_scale=count_scale, progress=progress.update,
                        groups=first_groups(encoding, settings.joint))
    # Post-processing from here: the model is a function of the measurements only.
    potentials = potentials_of(fitted.measurements, fitted.estimate.log_potentials)
    network, conditionals = network_of(encoding, potentials)  # as its model file will rebuild it
    plan.check(accountant.ledger)
    caveats = []
    if domain_source != GIVEN:
        caveats.append(READ_FROM_DATA_CAVEAT)
    if rng.seeded:
        caveats.append(SEEDED_CAVEAT)
    return BayesNetModel(
        schema=schema, encoding=encoding, network=network, conditionals=tuple(conditionals), plan=plan,
        ledger=accountant.ledger, parameters=settings.to_parameters(), n=n, degree=network.degree,
        algorithm=plan.setting("algorithm"), seeded=rng.seeded, domain_source=domain_source,
        differentially_private=True, caveats=tuple(caveats), mechanism=MECHANISM, library_version=__version__,
        potentials=potentials)


__all__ = ["AdaptiveMarginals"]
