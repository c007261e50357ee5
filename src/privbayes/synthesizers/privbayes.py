"""PrivBayes: ε-differentially private synthetic data via a Bayesian network (TODS 2017).

Three phases (§3): learn a network with ε1 = βε (GreedyBayes), release noisy
conditionals with ε2 = (1 − β)ε (NoisyConditionals), then sample (free).
Binary encoded data use Alg. 2 + Alg. 1 with the degree k of Lemma 4.8; general
domains use Alg. 4 (+ Alg. 5/6) + Alg. 3.  By sequential composition the
release is (ε1 + ε2)-DP (Thm 3.2) under "replace one tuple, n public"; with
``neighbours="add-remove"`` it is ε-DP under "add or remove one tuple" (n private: a noisy
count is released first, docs/decisions.md).

The budget plan (:mod:`privbayes.bayesnet.budget`) is computed from public inputs
before any count is taken and checked against the ledger after; what ``fit``
produces is a :class:`~privbayes.bayesnet.model.BayesNetModel` value (``model_``).
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import pandas as pd

from privbayes import counting
from privbayes._version import __version__
from privbayes.bayesnet.budget import COUNT_SHARE, COUNT_STEP, measured_pairs, phase_budgets, privbayes_plan
from privbayes.bayesnet.conditionals import conditionals_from_tables
from privbayes.bayesnet.cost import check_cost, cost_estimate
from privbayes.bayesnet.consistent import TreeTooLarge, estimate, junction_tree_network
from privbayes.bayesnet.greedy import fixed_degree_candidates, greedy_bayes, maximal_parent_candidates
from privbayes.bayesnet.measurements import estimated_total, measure_tables
from privbayes.bayesnet.model import BayesNetModel
from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.registry import get_score
from privbayes.counting import PrivateTable
from privbayes.encoding import ENCODINGS, Encoding
from privbayes.errors import InputError
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import DiscreteLaplace
from privbayes.privacy.neighbours import ADD_REMOVE, RELATIONS, neighbours
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.samplers import RandomSource, random_source
from privbayes.progress import Progress
from privbayes.synthesizers.fitted import FittedModel
from privbayes.schema import Schema
from privbayes.validation import (check_choice, check_count, check_epsilon, check_open_unit, check_positive,
                                  check_seed)

NonPrivatePhase = Literal["network", "marginals"]
Estimation = Literal["projected", "paper", "consistent"]
GIVEN = "given by the user (public)"
INFERRED = "inferred from the private data: NOT covered by epsilon"


class PrivBayes(FittedModel):
    """ε-DP synthesizer (scikit-learn conventions: fit returns self, learned attributes end in _).

    Parameters: ``epsilon`` total budget; ``beta`` share of ε for the network (default 0.3);
    ``theta`` usefulness threshold (default 4); ``score`` I, R or F (default F when every
    encoded attribute is binary, else R); ``encoding`` (default hierarchical when a
    categorical attribute has a taxonomy, else vanilla); ``degree`` a fixed k instead of
    θ-usefulness; ``non_private_phase`` "network" or "marginals" runs that phase without
    noise (the paper's BestNetwork / BestMarginal analysis, §6.4: NOT private);
    ``random_state`` seeds the DP noise (for reproducible experiments; the report says so);
    ``estimation`` how the noisy tables become the model (all post-processing of the same
    paid-for tables, same ledger): "consistent" (default) fits one model to all tables
    (ICML 2019 objective, :mod:`privbayes.bayesnet.consistent`; when the junction tree is too
    large for exact inference, the projected conditionals, with a caveat); "projected"
    projects each table onto the simplex (its total is the public n) and takes its
    conditional; "paper" clips negative cells and normalises (TODS 2017, Alg. 1/3; the
    reproductions use it); ``neighbours`` "replace-one" (the paper: n public) or "add-remove"
    (n private, as MST/AIM: count tables at sensitivity 1, score R in counts, 1% of ε on a
    noisy count that replaces n in θ-usefulness and the default sample size).
    """

    def __init__(self, epsilon: float = 1.0, *, beta: float = 0.3, theta: float = 4.0, score: str | None = None,
                 encoding: str | None = None, degree: int | None = None,
                 non_private_phase: NonPrivatePhase | None = None, random_state: int | None = None,
                 progress: bool = False, estimation: Estimation = "consistent",
                 neighbours: str = "replace-one") -> None:
        self.epsilon = epsilon
        self.beta = beta
        self.theta = theta
        self.score = score
        self.encoding = encoding
        self.degree = degree
        self.non_private_phase = non_private_phase
        self.random_state = random_state
        self.progress = progress
        self.estimation = estimation
        self.neighbours = neighbours

    def check_parameters(self) -> None:
        """Validate the hyper-parameters (one-line InputError naming the parameter)."""
        check_epsilon(self.epsilon)
        check_open_unit(self.beta, "beta")
        check_positive(self.theta, "theta")
        check_choice(self.score, "score", ("I", "R", "F"))
        check_choice(self.encoding, "encoding", ENCODINGS)
        if self.degree is not None:
            check_count(self.degree, "degree")
        check_choice(self.non_private_phase, "non_private_phase", ("network", "marginals"))
        check_seed(self.random_state, "random_state")
        check_choice(self.estimation, "estimation", ("projected", "paper", "consistent"), allow_none=False)
        check_choice(self.neighbours, "neighbours", tuple(RELATIONS), allow_none=False)
        if self.score is not None:
            get_score(self.score, neighbours(self.neighbours))  # add/remove supports R only

    # --- planning (public inputs only) -----------------------------------------------------------

    def encoding_for(self, schema: Schema) -> Encoding:
        name = self.encoding or ("hierarchical" if any(a.taxonomy is not None for a in schema.attributes) else "vanilla")
        return Encoding.build(schema, name)

    def plan(self, n: int, schema: Schema) -> BudgetPlan:
        """The budget plan of a fit on n rows of ``schema`` (the noisy count under add/remove
        neighbours), before any table is counted."""
        self.check_parameters()
        return privbayes_plan(epsilon=check_epsilon(self.epsilon), beta=self.beta, theta=self.theta,
                              degree=self.degree, non_private_phase=self.non_private_phase, n=n,
                              encoding=self.encoding_for(schema), relation=neighbours(self.neighbours))

    # --- fitting -----------------------------------------------------------------------------------

    def fit(self, data: Any, schema: Any = None, *, infer_schema_from_data: bool = False,
            backend: str = "numpy") -> "PrivBayes":
        """Learn the private model from a :class:`PrivateTable`, a DataFrame, or a CSV/Parquet/.dat path."""
        self.check_parameters()
        table, domain_source = open_private(data, schema, infer_schema_from_data, backend,
                                            allow_empty=not neighbours(self.neighbours).n_public)
        with Progress("PrivBayes", enabled=self.progress) as progress:
            self.model_ = self._fit_table(table, domain_source, progress)
        return self

    def _fit_table(self, table: PrivateTable, domain_source: str, progress: Progress) -> BayesNetModel:
        schema = table.schema
        encoding = self.encoding_for(schema)
        table = table.encoded(encoding)
        relation = neighbours(self.neighbours)
        eps = check_epsilon(self.epsilon)
        rng = random_source(self.random_state)
        accountant = Accountant(eps)
        n = table.n if relation.n_public else _noisy_count(table, eps, accountant, rng)
        plan = self.plan(n, schema)
        check_cost(cost_estimate(self, plan, schema))  # refuse, before any table, a fit that would not fit in memory
        k = plan.setting("degree")
        score = get_score(self.score or ("F" if encoding.is_binary and relation.n_public else "R"), relation)
        eps1, eps2 = phase_budgets(eps, self.beta, relation)
        learn = {"network": None, "marginals": eps1 + eps2}.get(self.non_private_phase, eps1)  # None: exact (§6.4)
        d = len(encoding.attributes)
        if k == 0:  # independent attributes: the order needs no data
            network = _random_order(d, rng)
        else:
            rule = fixed_degree_candidates(k) if k is not None else maximal_parent_candidates(
                table, eps2, self.theta, n=n, sensitivity=relation.count_sensitivity)
            progress.stage("learning the network", d - 1)
            network = greedy_bayes(table, score, rule, learn, accountant, rng, progress.update)
        progress.stage("releasing noisy conditionals", None)
        budgets = measured_pairs(plan)
        if self.non_private_phase == "marginals":
            budgets = {i: None for i in (range(k, d) if k is not None else range(d))}
        caveats = []
        measurements = measure_tables(table, network, budgets, accountant, rng, relation.count_sensitivity)
        # Post-processing from here: the estimates read the measurements (and the public or noisy n) only.
        total = n if relation.n_public else estimated_total(measurements, n, _count_mechanism(eps).scale)
        learned = network
        if self.estimation == "consistent":
            try:
                network, conditionals = junction_tree_network(estimate(encoding, measurements, total).calibrated)
            except TreeTooLarge as exc:
                caveats.append(f"{exc}: the conditionals were estimated as with estimation='projected'")
                conditionals = conditionals_from_tables(network, measurements, total, k, projected=True)
        else:
            conditionals = conditionals_from_tables(network, measurements, total, k,
                                                    projected=self.estimation == "projected")
        plan.check(accountant.ledger)
        if domain_source != GIVEN:
            caveats.append("the domain (categories, bounds) was read from the data and is not covered by epsilon")
        if self.non_private_phase:
            caveats.append(f"the {self.non_private_phase} phase ran WITHOUT noise (analysis mode): "
                           "this model is NOT differentially private")
        if rng.seeded:
            caveats.append("the DP noise was seeded (reproducible run): do not publish seeded releases")
        return BayesNetModel(
            schema=schema, encoding=encoding, network=network, conditionals=tuple(conditionals), plan=plan,
            ledger=accountant.ledger, parameters=self.get_params() | {"score": score.name}, n=n,
            degree=k if k is not None else learned.degree, algorithm=plan.setting("algorithm"), seeded=rng.seeded,
            domain_source=domain_source, differentially_private=self.non_private_phase is None,
            caveats=tuple(caveats), library_version=__version__,
            learned_network=learned if network is not learned else None)

    def get_params(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "beta": self.beta, "theta": self.theta, "score": self.score,
                "encoding": self.encoding, "degree": self.degree, "non_private_phase": self.non_private_phase,
                "estimation": self.estimation, "neighbours": self.neighbours}


def open_private(data: Any, schema: Any, infer: bool, backend: str, *,
                 allow_empty: bool = False) -> tuple[PrivateTable, str]:
    """The private table of a fit and where its domain came from (``allow_empty``: accept data
    without rows, for guarantees under which n is private)."""
    if isinstance(data, PrivateTable) and not isinstance(data, (str, os.PathLike, pd.DataFrame)):
        if schema is not None:
            raise InputError("a PrivateTable carries its schema; do not pass another")
        return data, GIVEN
    if schema is None:
        if not infer:
            raise InputError("fit needs a schema (the public domain); pass one, or ask to infer it from the data, "
                             "which is not covered by epsilon")
        from privbayes.counting.draft import infer_schema

        return counting.open(data, infer_schema(data), backend=backend, allow_empty=allow_empty), INFERRED
    return counting.open(data, schema, backend=backend, allow_empty=allow_empty), GIVEN


def _count_mechanism(epsilon: Fraction) -> DiscreteLaplace:
    """The noisy count of add/remove fits: discrete Laplace at ε·COUNT_SHARE, sensitivity 1."""
    return DiscreteLaplace(epsilon * COUNT_SHARE, ADD_REMOVE.count_sensitivity)


def _noisy_count(table: PrivateTable, epsilon: Fraction, accountant: Accountant, rng: RandomSource) -> int:
    """n + discrete Laplace noise, at least 1 (add/remove neighbours: n is private)."""
    noisy = _count_mechanism(epsilon).release(np.array([table.n]), accountant, rng, step=COUNT_STEP,
                                              measured="number of tuples")
    return max(1, int(noisy[0]))


def _random_order(d: int, rng: RandomSource) -> Network:
    """A uniformly random attribute order with empty parent sets (Fisher-Yates on the DP source)."""
    order = list(range(d))
    for i in range(d - 1, 0, -1):
        j = rng.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    return Network(tuple(APPair(a) for a in order))
