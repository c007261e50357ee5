"""PrivBayes: ε-differentially private synthetic data via a Bayesian network (TODS 2017).

Three phases (§3): learn a network with ε1 = βε (GreedyBayes), release noisy
conditionals with ε2 = (1 − β)ε (NoisyConditionals), then sample (free).
Binary encoded data use Alg. 2 + Alg. 1 with the degree k of Lemma 4.8; general
domains use Alg. 4 (+ Alg. 5/6) + Alg. 3.  By sequential composition the
release is (ε1 + ε2)-DP (Thm 3.2) under "replace one tuple, n public"; with
``neighbours="add-remove"`` it is ε-DP under "add or remove one tuple" (n private: a noisy
count is released first, docs/decisions.md).  With ``privacy="zcdp"`` the same phases are priced in ρ: the
exponential mechanism's steps at ε²/8 and discrete-Gaussian tables (docs/decisions.md, "zCDP for PrivBayes");
the release is ρ-zCDP, hence (ε, δ)-DP at the δ asked for.

The budget plan (:mod:`privbayes.methods.privbayes.settings`) is computed from public inputs
before any count is taken and checked against the ledger after; what ``fit``
produces is a :class:`~privbayes.bayesnet.model.BayesNetModel` value (``model_``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from privbayes.bayesnet.conditionals import conditionals_from_tables
from privbayes.bayesnet.greedy import fixed_degree_candidates, greedy_bayes, maximal_parent_candidates
from privbayes.bayesnet.junction import network_of
from privbayes.bayesnet.measurements import measure_tables
from privbayes.bayesnet.model import BayesNetModel
from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.registry import get_score
from privbayes.core.errors import IndependentColumnsWarning
from privbayes.counting import PrivateTable
from privbayes.counting.base import CountingPlace
from privbayes.estimation.consistent import TreeTooLarge, estimate
from privbayes.estimation.measurements import estimated_total
from privbayes.estimation.potentials import potentials_of
from privbayes.methods.privbayes.cost import CostEstimate, cost_estimate
from privbayes.methods.privbayes.parameters import PARAMETERS
from privbayes.methods.privbayes.settings import METHOD, PrivBayesSettings, measured_pairs
from privbayes.privacy.mechanisms import count_mechanism
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.samplers import RandomSource
from privbayes.privacy.zcdp_mechanisms import gaussian, l2_sensitivity, selection_epsilon
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.contract import FitContext, Measured, PrivateEstimator
from privbayes.synthesizers.fitted import BayesNetViews
from privbayes.synthesizers.parameters import DeclaredEstimator

INDEPENDENT_COLUMNS = ("the network has degree 0: at {budget} and θ = {theta:g} the table is too small for "
                       "any parent to be worth its noise (θ-usefulness, TODS 2017 §4.5), so every column is sampled "
                       "on its own and no correlation between columns is kept; more rows, a larger ε, a smaller "
                       "theta or a fixed degree change that")
"""The :class:`IndependentColumnsWarning` of a fit at degree 0 that no one asked for (public inputs only)."""


class PrivBayes(BayesNetViews, DeclaredEstimator, PrivateEstimator):
    """ε-DP synthesizer (the release contract: :mod:`privbayes.synthesizers.contract`).

    Its parameters are declared in :mod:`privbayes.methods.privbayes.parameters`; the section below is
    derived from them.  ``non_private_phase`` runs the paper's BestNetwork / BestMarginal analysis (§6.4: NOT
    private); the estimations are all post-processing of the same paid-for tables (same ledger):
    "consistent" fits one model to all tables (ICML 2019 objective, :mod:`privbayes.estimation.consistent`;
    when the junction tree is too large for exact inference, the projected conditionals, with a caveat);
    "projected" projects each table onto the simplex (its total is the public n) and takes its conditional;
    "paper" clips negative cells and normalises (the reproductions use it).  Under "add-remove" neighbours
    the count tables have sensitivity 1, score R is in counts, and 1% of ε buys a noisy count that replaces n
    in θ-usefulness and the default sample size.
    """

    method = METHOD
    parameters = PARAMETERS
    settings_class = PrivBayesSettings

    def settings(self) -> PrivBayesSettings:
        settings: PrivBayesSettings = self.declared_settings()
        return settings

    def encoding_for(self, schema: Schema) -> Encoding:
        return self.settings().encoding_for(schema)

    def _plan(self, settings: PrivBayesSettings, schema: Schema, n: int) -> BudgetPlan:
        """The budget plan of a fit on n rows of ``schema`` (the noisy count under add/remove
        neighbours), before any table is counted."""
        return settings.plan(n, settings.encoding_for(schema))

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None, *,
                      counting: CountingPlace | None = None) -> CostEstimate:
        settings = self.settings()
        return cost_estimate(settings, plan, settings.encoding_for(schema), counting=counting)

    def _guard_estimate(self, settings: PrivBayesSettings, plan: BudgetPlan, schema: Schema,
                        n: int | None, counting: CountingPlace | None = None) -> CostEstimate:
        """A library fit's guard (nothing printed): the estimate without the search's count, which takes seconds on
        wide schemas; ``privbayes fit`` checks the full estimate it prints."""
        return cost_estimate(settings, plan, settings.encoding_for(schema), counting=counting, detailed=False)

    def private_n_note(self) -> str:
        settings = self.settings()
        count = (f"discrete Gaussian, ρ = {float(settings.count_rho()):g}" if settings.zcdp else
                 f"discrete Laplace, ε = {float(settings.count_epsilon()):g}")
        return f"the fit first releases a noisy count ({count}) and plans from it"

    def _prepare(self, settings: PrivBayesSettings, table: PrivateTable) -> PrivateTable:
        return table.encoded(settings.encoding_for(table.schema))

    def _count_epsilon(self, settings: PrivBayesSettings) -> Fraction:
        return settings.count_epsilon()

    def _total_rho(self, settings: PrivBayesSettings) -> Fraction | None:
        """ρ under ``privacy="zcdp"`` (the template then charges a zCDP accountant), else None."""
        return settings.total_rho() if settings.zcdp else None

    def _count_rho(self, settings: PrivBayesSettings) -> Fraction:
        return settings.count_rho()

    def _progress_title(self, settings: PrivBayesSettings) -> str:
        return "PrivBayes"

    def _measure(self, settings: PrivBayesSettings, fit: FitContext) -> Measured:
        return _measure_and_estimate(settings, fit)


def _measure_and_estimate(settings: PrivBayesSettings, fit: FitContext) -> Measured:
    """TODS 2017 §3: GreedyBayes with ε1, NoisyConditionals with ε2, then estimation (post-processing)."""
    encoding = settings.encoding_for(fit.schema)
    table, plan, accountant, rng, progress = fit.table, fit.plan, fit.charged, fit.rng, fit.progress
    n = fit.planned_n
    relation = settings.relation
    k = plan.setting("degree")
    score = get_score(settings.score_for(encoding), relation)
    d = len(encoding.attributes)
    eps1, eps2 = settings.phase_budgets()
    phase = settings.non_private_phase  # a phase run without noise learns or releases exactly (None, §6.4)
    learn = None if phase == "network" else eps1 + eps2 if phase == "marginals" else eps1
    if settings.zcdp:  # d − 1 steps of the ε_s whose ε_s²/8 is the plan's ρ per step (exact)
        steps = [r.rho for r in plan.releases if r.kind == "network" and r.rho is not None]
        learn = selection_epsilon(steps[0]) * (d - 1) if steps else None
    if k == 0:  # independent attributes: the order needs no data
        network = _random_order(d, rng)
    else:
        rule = fixed_degree_candidates(k) if k is not None else maximal_parent_candidates(
            table, settings.usefulness_epsilon(d), settings.theta, n=n, sensitivity=relation.count_sensitivity)
        progress.stage("learning the network", d - 1)
        network = greedy_bayes(table, score, rule, learn, accountant, rng, progress.update)
    progress.stage("releasing noisy conditionals", None)
    budgets: dict[int, Fraction | None] = dict(measured_pairs(plan))
    if settings.non_private_phase == "marginals":
        budgets = {i: None for i in (range(k, d) if k is not None else range(d))}
    caveats = []
    potentials = None
    gaussian_tables = {"l2_sensitivity": l2_sensitivity(relation)} if settings.zcdp else {}  # ρ per table
    measurements = measure_tables(table, network, budgets, accountant, rng, relation.count_sensitivity,
                                  **gaussian_tables)
    # Post-processing from here: the estimates read the measurements (and the public or noisy n) only.
    count = (count_mechanism(settings.count_epsilon()) if not settings.zcdp or relation.n_public else
             gaussian(settings.count_rho(), Fraction(1)))
    total = n if relation.n_public else estimated_total(measurements, n, None, count.variance)
    learned = network
    conditionals: Sequence[np.ndarray]
    if settings.estimation == "consistent":
        try:
            potentials = potentials_of(measurements, estimate(encoding, measurements, total).log_potentials)
            network, conditionals = network_of(encoding, potentials)  # as its model file will rebuild it
        except TreeTooLarge as exc:
            caveats.append(f"{exc}: the conditionals were estimated as with estimation='projected'")
            conditionals = conditionals_from_tables(network, measurements, total, k, projected=True)
    else:
        conditionals = conditionals_from_tables(network, measurements, total, k,
                                                projected=settings.estimation == "projected")
    degree = k if k is not None else learned.degree
    if degree == 0 and settings.degree is None and d > 1:
        budget = f"ρ = {float(settings.total_rho()):g}" if settings.zcdp else f"ε = {float(settings.epsilon):g}"
        warnings.warn(INDEPENDENT_COLUMNS.format(budget=budget, theta=settings.theta),
                      IndependentColumnsWarning, stacklevel=6)
    if settings.non_private_phase:
        caveats.append(f"the {settings.non_private_phase} phase ran WITHOUT noise (analysis mode): "
                       "this model is NOT differentially private")
    return Measured(lambda record: BayesNetModel(
        schema=fit.schema, encoding=encoding, network=network, conditionals=tuple(conditionals),
        parameters=settings.to_parameters(encoding), record=record, degree=degree,
        algorithm=plan.setting("algorithm"), differentially_private=settings.differentially_private,
        mechanism=settings.mechanism,
        learned_network=learned if network is not learned else None, potentials=potentials), tuple(caveats))


def _random_order(d: int, rng: RandomSource) -> Network:
    """A uniformly random attribute order with empty parent sets (Fisher-Yates on the DP source)."""
    order = list(range(d))
    for i in range(d - 1, 0, -1):
        j = rng.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    return Network(tuple(APPair(a) for a in order))
