"""PrivBayes: ε-differentially private synthetic data via a Bayesian network (TODS 2017).

Three phases (§3): learn a network with ε1 = βε (GreedyBayes), release noisy
conditionals with ε2 = (1 − β)ε (NoisyConditionals), then sample (free).
Binary encoded data use Alg. 2 + Alg. 1 with the degree k of Lemma 4.8; general
domains use Alg. 4 (+ Alg. 5/6) + Alg. 3.  By sequential composition the
release is (ε1 + ε2)-DP (Thm 3.2) under "replace one tuple, n public"; with
``neighbours="add-remove"`` it is ε-DP under "add or remove one tuple" (n private: a noisy
count is released first, docs/decisions.md).

The budget plan (:mod:`privbayes.methods.privbayes.settings`) is computed from public inputs
before any count is taken and checked against the ledger after; what ``fit``
produces is a :class:`~privbayes.bayesnet.model.BayesNetModel` value (``model_``).
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Literal

from privbayes.bayesnet.conditionals import conditionals_from_tables
from privbayes.bayesnet.greedy import fixed_degree_candidates, greedy_bayes, maximal_parent_candidates
from privbayes.bayesnet.junction import network_of
from privbayes.bayesnet.measurements import measure_tables
from privbayes.bayesnet.model import BayesNetModel
from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.registry import get_score
from privbayes.core.errors import IndependentColumnsWarning
from privbayes.core.validation import check_seed
from privbayes.counting import PrivateTable
from privbayes.estimation.consistent import TreeTooLarge, estimate
from privbayes.estimation.measurements import estimated_total
from privbayes.estimation.potentials import potentials_of
from privbayes.methods.privbayes.cost import CostEstimate, cost_estimate
from privbayes.methods.privbayes.settings import METHOD, PrivBayesSettings, measured_pairs
from privbayes.privacy.mechanisms import count_mechanism
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.samplers import RandomSource
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.contract import FitContext, Measured, PrivateEstimator
from privbayes.synthesizers.fitted import BayesNetViews

INDEPENDENT_COLUMNS = ("the network has degree 0: at ε = {epsilon:g} and θ = {theta:g} the table is too small for "
                       "any parent to be worth its noise (θ-usefulness, TODS 2017 §4.5), so every column is sampled "
                       "on its own and no correlation between columns is kept; more rows, a larger ε, a smaller "
                       "theta or a fixed degree change that")
"""The :class:`IndependentColumnsWarning` of a fit at degree 0 that no one asked for (public inputs only)."""

NonPrivatePhase = Literal["network", "marginals"]
Estimation = Literal["projected", "paper", "consistent"]


class PrivBayes(BayesNetViews, PrivateEstimator):
    """ε-DP synthesizer (the release contract: :mod:`privbayes.synthesizers.contract`).

    Parameters: ``epsilon`` total budget; ``beta`` share of ε for the network (default 0.3);
    ``theta`` usefulness threshold (default 4); ``score`` I, R or F (default F when every
    encoded attribute is binary, else R); ``encoding`` (default hierarchical when a
    categorical attribute has a taxonomy, else vanilla); ``degree`` a fixed k instead of
    θ-usefulness; ``non_private_phase`` "network" or "marginals" runs that phase without
    noise (the paper's BestNetwork / BestMarginal analysis, §6.4: NOT private);
    ``estimation`` how the noisy tables become the model (all post-processing of the same
    paid-for tables, same ledger): "consistent" (default) fits one model to all tables
    (ICML 2019 objective, :mod:`privbayes.estimation.consistent`; when the junction tree is too
    large for exact inference, the projected conditionals, with a caveat); "projected"
    projects each table onto the simplex (its total is the public n) and takes its
    conditional; "paper" clips negative cells and normalises (TODS 2017, Alg. 1/3; the
    reproductions use it); ``neighbours`` "replace-one" (the paper: n public) or "add-remove"
    (n private, as MST/AIM: count tables at sensitivity 1, score R in counts, 1% of ε on a
    noisy count that replaces n in θ-usefulness and the default sample size);
    ``random_state`` seeds the DP noise (for reproducible experiments; the report says so);
    ``progress`` shows a progress bar on stderr.  ε and β are taken as the decimals written
    (0.3 is exactly 3/10).
    """

    method = METHOD

    def __init__(self, epsilon: float = 1.0, *, beta: float = 0.3, theta: float = 4.0, score: str | None = None,
                 encoding: str | None = None, degree: int | None = None,
                 non_private_phase: NonPrivatePhase | None = None, estimation: Estimation = "consistent",
                 neighbours: str = "replace-one", random_state: int | None = None, progress: bool = False) -> None:
        self.epsilon = epsilon
        self.beta = beta
        self.theta = theta
        self.score = score
        self.encoding = encoding
        self.degree = degree
        self.non_private_phase = non_private_phase
        self.estimation = estimation
        self.neighbours = neighbours
        self.random_state = random_state
        self.progress = progress

    def settings(self) -> PrivBayesSettings:
        check_seed(self.random_state, "random_state")
        return PrivBayesSettings(self.epsilon, beta=self.beta, theta=self.theta, score=self.score,  # type: ignore[arg-type]
                                 encoding=self.encoding, degree=self.degree, non_private_phase=self.non_private_phase,
                                 estimation=self.estimation, neighbours=self.neighbours)

    def encoding_for(self, schema: Schema) -> Encoding:
        return self.settings().encoding_for(schema)

    def _plan(self, settings: PrivBayesSettings, schema: Schema, n: int) -> BudgetPlan:
        """The budget plan of a fit on n rows of ``schema`` (the noisy count under add/remove
        neighbours), before any table is counted."""
        return settings.plan(n, settings.encoding_for(schema))

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None) -> CostEstimate:
        settings = self.settings()
        return cost_estimate(settings, plan, settings.encoding_for(schema))

    def _guard_estimate(self, settings: PrivBayesSettings, plan: BudgetPlan, schema: Schema,
                        n: int | None) -> CostEstimate:
        return cost_estimate(settings, plan, settings.encoding_for(schema), detailed=False)  # memory only

    def private_n_note(self) -> str:
        count = self.settings().count_epsilon()
        return f"the fit first releases a noisy count (discrete Laplace, ε = {float(count):g}) and plans from it"

    def _prepare(self, settings: PrivBayesSettings, table: PrivateTable) -> PrivateTable:
        return table.encoded(settings.encoding_for(table.schema))

    def _count_epsilon(self, settings: PrivBayesSettings) -> Fraction:
        return settings.count_epsilon()

    def _progress_title(self, settings: PrivBayesSettings) -> str:
        return "PrivBayes"

    def _measure(self, settings: PrivBayesSettings, fit: FitContext) -> Measured:
        return _measure_and_estimate(settings, fit)


def _measure_and_estimate(settings: PrivBayesSettings, fit: FitContext) -> Measured:
    """TODS 2017 §3: GreedyBayes with ε1, NoisyConditionals with ε2, then estimation (post-processing)."""
    encoding = settings.encoding_for(fit.schema)
    table, plan, accountant, rng, progress = fit.table, fit.plan, fit.accountant, fit.rng, fit.progress
    n = fit.planned_n
    relation = settings.relation
    k = plan.setting("degree")
    score = get_score(settings.score_for(encoding), relation)
    eps1, eps2 = settings.phase_budgets()
    learn = {"network": None, "marginals": eps1 + eps2}.get(settings.non_private_phase, eps1)  # type: ignore[arg-type]  # None: exact (§6.4)
    d = len(encoding.attributes)
    if k == 0:  # independent attributes: the order needs no data
        network = _random_order(d, rng)
    else:
        rule = fixed_degree_candidates(k) if k is not None else maximal_parent_candidates(
            table, eps2, settings.theta, n=n, sensitivity=relation.count_sensitivity)
        progress.stage("learning the network", d - 1)
        network = greedy_bayes(table, score, rule, learn, accountant, rng, progress.update)
    progress.stage("releasing noisy conditionals", None)
    budgets: dict[int, Fraction | None] = dict(measured_pairs(plan))
    if settings.non_private_phase == "marginals":
        budgets = {i: None for i in (range(k, d) if k is not None else range(d))}
    caveats = []
    potentials = None
    measurements = measure_tables(table, network, budgets, accountant, rng, relation.count_sensitivity)
    # Post-processing from here: the estimates read the measurements (and the public or noisy n) only.
    count_scale = count_mechanism(settings.count_epsilon()).scale
    total = n if relation.n_public else estimated_total(measurements, n, count_scale)
    learned = network
    if settings.estimation == "consistent":
        try:
            potentials = potentials_of(measurements, estimate(encoding, measurements, total).log_potentials)
            network, conditionals = network_of(encoding, potentials)  # as its model file will rebuild it
        except TreeTooLarge as exc:
            caveats.append(f"{exc}: the conditionals were estimated as with estimation='projected'")
            conditionals = conditionals_from_tables(network, measurements, total, k, projected=True)  # type: ignore[arg-type, assignment]
    else:
        conditionals = conditionals_from_tables(network, measurements, total, k,  # type: ignore[arg-type, assignment]
                                                projected=settings.estimation == "projected")
    degree = k if k is not None else learned.degree
    if degree == 0 and settings.degree is None and d > 1:
        warnings.warn(INDEPENDENT_COLUMNS.format(epsilon=float(settings.epsilon), theta=settings.theta),
                      IndependentColumnsWarning, stacklevel=6)
    if settings.non_private_phase:
        caveats.append(f"the {settings.non_private_phase} phase ran WITHOUT noise (analysis mode): "
                       "this model is NOT differentially private")
    return Measured(lambda record: BayesNetModel(
        schema=fit.schema, encoding=encoding, network=network, conditionals=tuple(conditionals),
        parameters=settings.to_parameters(encoding), record=record, degree=degree,
        algorithm=plan.setting("algorithm"), differentially_private=settings.differentially_private,
        learned_network=learned if network is not learned else None, potentials=potentials), tuple(caveats))


def _random_order(d: int, rng: RandomSource) -> Network:
    """A uniformly random attribute order with empty parent sets (Fisher-Yates on the DP source)."""
    order = list(range(d))
    for i in range(d - 1, 0, -1):
        j = rng.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    return Network(tuple(APPair(a) for a in order))
