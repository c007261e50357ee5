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
from privbayes.core.validation import check_seed
from privbayes.counting import PrivateTable
from privbayes.estimation.potentials import potentials_of
from privbayes.methods.adaptive import rounds
from privbayes.methods.adaptive.cost import adaptive_cost
from privbayes.methods.adaptive.settings import MECHANISM, AdaptiveSettings, first_groups
from privbayes.privacy.mechanisms import count_mechanism
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema import Schema
from privbayes.synthesizers.contract import FitContext, Measured, PrivateEstimator
from privbayes.synthesizers.costs import CostEstimate
from privbayes.synthesizers.fitted import BayesNetViews


class AdaptiveMarginals(BayesNetViews, PrivateEstimator):
    """ε-DP synthesizer by adaptive marginal selection (the release contract:
    :mod:`privbayes.synthesizers.contract`).

    Parameters: ``epsilon`` total budget; ``neighbours`` "replace-one" (default; n public) or "add-remove" (n
    private, as MST/AIM: 1% of ε buys a noisy count); ``degree`` 2 (candidates: all 1- and 2-way marginals), 3 (also
    the 3-way ones) or None (default: 3 when every attribute is binary and there are at most 4,096 3-way marginals,
    else 2); ``rounds`` the number of select-and-measure rounds (default: the rule T = √(n·E_m/(Δ·θ)) of
    :mod:`.settings`); ``theta`` that rule's signal per round (default 25: larger gives
    fewer, less noisy rounds); ``init`` the first measurements: "oneway" (the 1-way marginals), "network"
    (PrivBayes's network and tables) or "auto" (default: the 1-way marginals, small attributes jointly);
    ``initial_share`` their share of ε (default 1/2 for the 1-way marginals, 3/10 when every attribute is binary,
    3/4 for the network; above n·ε/Δ = 20,000 the first share is scaled by √(20,000/(n·ε/Δ)));
    ``select_share`` share of each round's budget for its selection (default 0.2);
    ``max_model_cells`` cap on the model's junction tree (default 2²⁰ cells; a fit also keeps it within 64 times the
    cells of all the candidate marginals of two or more attributes, which binds on small domains); ``selection``
    each round's selection mechanism, "permute-and-flip" (default; never worse in expectation than the exponential
    mechanism, McKenna & Sheldon 2020) or "exponential"; ``joint`` measure small attributes together in the first
    tables (default True; at n·ε/Δ below 5,000 those tables get 11/20 of ε); ``max_network_degree`` the network
    start's largest degree (default 5; None: Lemma 4.8's k); ``random_state`` seeds the DP noise (reproducible
    experiments; the report says so); ``progress`` a progress bar on stderr.  Budgets and shares are taken as the
    decimals written (0.2 is exactly 1/5).
    """

    method = "adaptive"

    def __init__(self, epsilon: float = 1.0, *, neighbours: str = "replace-one", degree: int | None = None,
                 rounds: int | None = None, theta: float = 25.0, initial_share: float | None = None,
                 select_share: float = 0.2, max_model_cells: int = 2**20, init: str = "auto",
                 selection: str = "permute-and-flip", joint: bool = True, max_network_degree: int | None = 5,
                 random_state: int | None = None,
                 progress: bool = False) -> None:
        self.epsilon = epsilon
        self.neighbours = neighbours
        self.degree = degree
        self.rounds = rounds
        self.theta = theta
        self.initial_share = initial_share
        self.select_share = select_share
        self.max_model_cells = max_model_cells
        self.init = init
        self.selection = selection
        self.joint = joint
        self.max_network_degree = max_network_degree
        self.random_state = random_state
        self.progress = progress

    def settings(self) -> AdaptiveSettings:
        check_seed(self.random_state, "random_state")
        return AdaptiveSettings(self.epsilon, degree=self.degree, rounds=self.rounds,  # type: ignore[arg-type]
                                initial_share=self.initial_share, select_share=self.select_share, theta=self.theta,  # type: ignore[arg-type]
                                max_model_cells=self.max_model_cells, neighbours=self.neighbours, init=self.init,
                                selection=self.selection, joint=self.joint,
                                max_network_degree=self.max_network_degree)

    def _plan(self, settings: AdaptiveSettings, schema: Schema, n: int) -> BudgetPlan:
        """The budget plan of a fit on n rows of ``schema`` (the noisy count under add/remove), before any
        table is counted."""
        return settings.plan(n, settings.encoding_for(schema))

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None) -> CostEstimate:
        """Time, peak memory and model-file size of a fit with ``plan`` (:mod:`privbayes.methods.adaptive.cost`)."""
        settings = self.settings()
        return adaptive_cost(settings, plan, settings.encoding_for(schema))

    def private_n_note(self) -> str:
        count = self.settings().count_epsilon()
        return (f"the fit first releases a noisy count (discrete Laplace, ε = {float(count):g}); the number of "
                "rounds follows from it")

    def _prepare(self, settings: AdaptiveSettings, table: PrivateTable) -> PrivateTable:
        return table.encoded(settings.encoding_for(table.schema))

    def _count_epsilon(self, settings: AdaptiveSettings) -> Fraction:
        return settings.count_epsilon()

    def _measure(self, settings: AdaptiveSettings, fit: FitContext) -> Measured:
        """The first measurements, then the rounds (:mod:`privbayes.methods.adaptive.rounds`); the released
        network is the calibrated junction tree's."""
        encoding = settings.encoding_for(fit.schema)
        plan, relation = fit.plan, settings.relation
        count_scale = None if relation.n_public else count_mechanism(settings.count_epsilon()).scale
        fit.progress.stage("measuring and fitting", plan.setting("rounds"))
        fitted = rounds.run(fit.table, encoding, plan, degree=plan.setting("marginal degree"),
                            max_model_cells=plan.setting("max model cells"), sensitivity=relation.count_sensitivity,
                            accountant=fit.accountant, rng=fit.rng, n=fit.planned_n,
                            count_scale=count_scale, progress=fit.progress.update,
                            groups=first_groups(encoding, settings.joint))
        # Post-processing from here: the model is a function of the measurements only.
        potentials = potentials_of(fitted.measurements, fitted.estimate.log_potentials)
        network, conditionals = network_of(encoding, potentials)  # as its model file will rebuild it
        return Measured(lambda record: BayesNetModel(
            schema=fit.schema, encoding=encoding, network=network, conditionals=tuple(conditionals),
            parameters=settings.to_parameters(), record=record, degree=network.degree,
            algorithm=plan.setting("algorithm"), differentially_private=True, mechanism=MECHANISM,
            potentials=potentials))


__all__ = ["AdaptiveMarginals"]
