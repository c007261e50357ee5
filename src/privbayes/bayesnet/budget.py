"""PrivBayes's budget plan, computed from public inputs before any data is read (TODS 2017, §3-§5).

ε1 = βε learns the network in d − 1 exponential-mechanism steps of ε1/(d − 1);
ε2 = (1 − β)ε releases the noisy tables: Alg. 1 (fixed degree k: tables k+1..d,
ε2/(d − k) each) or Alg. 3 (θ-usefulness: all d tables, ε2/d each).  With k = 0 the
order needs no data, so all of ε goes to the d marginals.  The analysis modes of
§6.4 run one phase without noise and plan no release for it.

Under add/remove neighbours n is private: the fit first releases a noisy count with
ε/100 (:data:`COUNT_SHARE`), the rest of ε is split as above, and everything that the
paper derives from n (θ-usefulness, the degree, the default sample size) uses the noisy
count, so the plan is computed after that one release (docs/decisions.md).
"""

from __future__ import annotations

import math
from fractions import Fraction

from privbayes.bayesnet.candidates import candidate_cap, cap_settings, parent_bound
from privbayes.bayesnet.usefulness import PAPER_SENSITIVITY, binary_degree
from privbayes.encoding import Encoding
from privbayes.errors import InputError
from privbayes.limits import limits
from privbayes.privacy.neighbours import REPLACE_ONE, Neighbours
from privbayes.privacy.plan import BudgetPlan, PlannedRelease

COUNT_SHARE = Fraction(1, 100)
"""Share of ε spent on the noisy count under add/remove neighbours (only θ-usefulness and the
default sample size use it, and a relative error of a few percent changes them little)."""
COUNT_STEP = "count n"


def degree_for(n: int, encoding: Encoding, epsilon2: Fraction, theta: float, degree: int | None,
               sensitivity: Fraction = PAPER_SENSITIVITY) -> int | None:
    """The fixed degree k (given, or Lemma 4.8's for binary encodings), else None (θ-usefulness, Alg. 4)."""
    d = len(encoding.attributes)
    if degree is None and not encoding.is_binary:
        return None
    k = degree if degree is not None else binary_degree(n, d, epsilon2, theta, sensitivity)
    return min(k, d - 1)


def phase_budgets(epsilon: Fraction, beta: float, relation: Neighbours) -> tuple[Fraction, Fraction]:
    """(ε1, ε2): the network's and the tables' budgets, after the noisy count under add/remove."""
    eps = Fraction(epsilon) * (1 - (0 if relation.n_public else COUNT_SHARE))
    eps1 = Fraction(beta) * eps
    return eps1, eps - eps1


def privbayes_plan(*, epsilon: Fraction, beta: float, theta: float, degree: int | None,
                   non_private_phase: str | None, n: int, encoding: Encoding,
                   relation: Neighbours = REPLACE_ONE) -> BudgetPlan:
    """Every release of a PrivBayes fit, in the order the fit makes them (``n``: the noisy
    count under add/remove)."""
    eps1, eps2 = phase_budgets(epsilon, beta, relation)
    delta = relation.count_sensitivity
    d = len(encoding.attributes)
    k = degree_for(n, encoding, eps2, theta, degree, delta)
    if k is None:
        _check_table_bound(n, d, eps2, theta, encoding, delta)
    both = eps1 + eps2  # ε less the noisy count's share
    learn, release = {"network": (None, both), "marginals": (both, None)}.get(non_private_phase, (eps1, eps2))
    if k == 0 and release is not None:
        release = both
    releases = [] if relation.n_public else [PlannedRelease(COUNT_STEP, "discrete Laplace", epsilon * COUNT_SHARE)]
    if k != 0 and learn is not None:
        releases += [PlannedRelease(f"network step {s}/{d - 1}", "exponential", learn / (d - 1)) for s in range(1, d)]
    measured = range(k, d) if k is not None else range(d)
    if release is not None:
        releases += [PlannedRelease(f"conditional {i + 1}/{d}", "discrete Laplace", release / len(measured))
                     for i in measured]
    algorithm = (f"GreedyBayes Alg. 2 with degree k = {k} + NoisyConditionals Alg. 1" if k is not None
                 else "GreedyBayes Alg. 4 (maximal parent sets, Alg. 5/6) + NoisyConditionals Alg. 3")
    settings = (("algorithm", algorithm), ("degree", k), ("epsilon1", float(eps1)), ("epsilon2", float(eps2)),
                ("beta", beta), ("theta", theta), ("n", n), ("encoded attributes", d), ("neighbours", relation.name))
    if k is None:
        settings += cap_settings(n, encoding, eps2, theta, delta)
    return BudgetPlan(Fraction(epsilon), tuple(releases), settings)


def measured_pairs(plan: BudgetPlan) -> dict[int, Fraction]:
    """AP-pair index → ε of each planned noisy table."""
    return {int(r.step.split()[1].split("/")[0]) - 1: r.epsilon for r in plan.releases
            if r.step.startswith("conditional ")}


def _check_table_bound(n: int, d: int, eps2: Fraction, theta: float, encoding: Encoding, sensitivity: Fraction) -> None:
    """Refuse up front a θ-usefulness bound, capped as GreedyBayes caps it (candidates.py), that
    would let a noisy table outgrow the size cap."""
    largest_child = max(a.size for a in encoding.attributes)
    full = math.prod(a.size for a in encoding.attributes)
    bound = parent_bound(n, d, eps2, theta, largest_child, candidate_cap(encoding), sensitivity)
    cells = min(bound * largest_child, full)
    if cells > limits().max_table_cells:
        raise InputError(f"epsilon is so large that θ-usefulness allows noisy tables of up to {cells:.3g} cells, "
                         f"more than the limit of {limits().max_table_cells:,}; raise theta, set degree, or raise "
                         "PRIVBAYES_MAX_TABLE_CELLS")
