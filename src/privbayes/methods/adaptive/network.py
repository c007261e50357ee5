"""A PrivBayes network's noisy tables as the first measurements: the PrivBayes network as a cheap first model
(TODS 2017, §3-§5; docs/decisions.md, "Adaptive marginals").

With ``init="network"`` the adaptive method spends its first share of ε as PrivBayes would at that
budget: GreedyBayes picks an AP pair per step with the exponential mechanism (score F for binary data
under replace-one, else R; Lemma 4.8's degree for binary data, θ-useful maximal parent sets
otherwise), then every pair's noisy table (child and parents, parents possibly generalised) is
measured with discrete Laplace noise.  Those tables cover every attribute and, on binary data, the
high-order joints that single pairs cannot reach at the same budget; the rounds then measure what the
network misses.  The releases, their names and budgets are PrivBayes's own plan at that budget
(:func:`privbayes.methods.privbayes.settings.privbayes_plan`), so this adds no new mechanism.
"""

from __future__ import annotations

from fractions import Fraction

from privbayes.bayesnet.greedy import fixed_degree_candidates, greedy_bayes, maximal_parent_candidates
from privbayes.bayesnet.measurements import measure_tables
from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.registry import get_score
from privbayes.counting import PrivateTable
from privbayes.estimation.measurements import NoisyTable
from privbayes.methods.privbayes.settings import privbayes_plan
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import COUNT_SHARE
from privbayes.privacy.neighbours import Neighbours
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.samplers import RandomSource
from privbayes.schema.encoding import Encoding

BETA = Fraction(3, 10)
"""The network's share of the initial budget (PrivBayes's default β)."""
THETA = 4.0
"""PrivBayes's default θ for the network's tables."""


def network_plan(budget: Fraction, n: int, encoding: Encoding, relation: Neighbours,
                 max_degree: int | None = None) -> BudgetPlan:
    """PrivBayes's plan whose releases (less its noisy count) spend exactly ``budget``; on binary data Lemma
    4.8's degree k, lowered to ``max_degree`` when given (the rounds measure what a smaller network misses;
    docs/decisions.md, "Adaptive marginals: joint first marginals and permute-and-flip")."""
    gross = budget if relation.n_public else budget / (1 - COUNT_SHARE)

    def plan_at(degree: int | None) -> BudgetPlan:
        return privbayes_plan(epsilon=gross, beta=BETA, theta=THETA, degree=degree, non_private_phase=None, n=n,
                              encoding=encoding, relation=relation)

    plan = plan_at(None)
    k = plan.setting("degree")
    if max_degree is not None and k is not None and k > max_degree:
        plan = plan_at(max_degree)
    releases = tuple(r for r in plan.releases if r.kind != "count")
    return BudgetPlan(budget, releases, plan.settings)


def measure_network(table: PrivateTable, encoding: Encoding, plan: BudgetPlan, n: int, relation: Neighbours,
                    accountant: Accountant, rng: RandomSource) -> list[NoisyTable]:
    """Learn the network and measure its tables, spending the ``plan`` of :func:`network_plan`."""
    d = len(encoding.attributes)
    k = plan.setting("degree")
    learn = sum(plan.budgets("network").values(), Fraction(0))
    if k == 0 or learn == 0:
        network = Network(tuple(APPair(a) for a in range(d)))
    else:
        score = get_score("F" if encoding.is_binary and relation.n_public else "R", relation)
        tables = sum(plan.budgets("table").values(), Fraction(0))
        rule = fixed_degree_candidates(k) if k is not None else maximal_parent_candidates(
            table, tables, THETA, n=n, sensitivity=relation.count_sensitivity)
        network = greedy_bayes(table, score, rule, learn, accountant, rng)
    budgets: dict[int, Fraction | None] = dict(plan.budgets("table"))
    return list(measure_tables(table, network, budgets, accountant, rng, relation.count_sensitivity))
