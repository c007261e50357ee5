"""PrivBayes's settings and budget plan, from public inputs before any data is read (TODS 2017, §3-§5).

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
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from privbayes.bayesnet.candidates import candidate_cap, cap_settings, parent_bound
from privbayes.bayesnet.registry import get_score
from privbayes.bayesnet.usefulness import PAPER_SENSITIVITY, binary_degree
from privbayes.core.errors import InputError
from privbayes.core.limits import limits
from privbayes.core.validation import (
    check_choice,
    check_epsilon,
    is_real,
)
from privbayes.methods.privbayes.parameters import PARAMETERS, SCORES
from privbayes.privacy.mechanisms import COUNT_SHARE, COUNT_STEP
from privbayes.privacy.neighbours import REPLACE_ONE, Neighbours, neighbours
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.parameters import DeclaredSettings, read_parameters, to_parameters

METHOD = "privbayes"
MECHANISM = "PrivBayes (Zhang et al., ACM TODS 2017)"


class PrivBayesSettings(DeclaredSettings):
    """The public parameters of a PrivBayes fit, validated once (one-line :class:`InputError`
    naming the parameter; declared in :mod:`privbayes.methods.privbayes.parameters`).  ε and β are exact
    rationals of the decimals written (0.3 → 3/10)."""

    parameters = PARAMETERS
    epsilon: Fraction
    beta: Fraction
    theta: float
    score: str | None
    encoding: str | None
    degree: int | None
    non_private_phase: str | None
    estimation: str
    neighbours: str

    def check(self) -> None:
        if self.score is not None:
            get_score(self.score, self.relation)  # add/remove supports R only

    @property
    def relation(self) -> Neighbours:
        return neighbours(self.neighbours)

    @property
    def differentially_private(self) -> bool:
        return self.non_private_phase is None

    def encoding_for(self, schema: Schema) -> Encoding:
        """The encoding asked for; by default hierarchical when a taxonomy is given, else vanilla."""
        name = self.encoding or ("hierarchical" if any(a.taxonomy is not None for a in schema.attributes)
                                 else "vanilla")
        return Encoding.build(schema, name)

    def score_for(self, encoding: Encoding) -> str:
        """The score asked for; by default F when every encoded attribute is binary (replace-one), else R."""
        return self.score or ("F" if encoding.is_binary and self.relation.n_public else "R")

    def phase_budgets(self) -> tuple[Fraction, Fraction]:
        """(ε1, ε2): the network's and the tables' budgets, after the noisy count under add/remove."""
        return phase_budgets(self.epsilon, self.beta, self.relation)

    def count_epsilon(self) -> Fraction:
        """ε of the noisy count (add/remove neighbours only)."""
        return self.epsilon * COUNT_SHARE

    def plan(self, n: int, encoding: Encoding) -> BudgetPlan:
        """Every release of a fit on n rows (the noisy count under add/remove), in the fit's order."""
        return privbayes_plan(epsilon=self.epsilon, beta=self.beta, theta=self.theta, degree=self.degree,
                              non_private_phase=self.non_private_phase, n=n, encoding=encoding,
                              relation=self.relation)

    def to_parameters(self, encoding: Encoding) -> dict[str, Any]:
        """The model file's ``parameters``: numbers for readers, exact text for ε and β; the score and the
        encoding in force."""
        return to_parameters(self, METHOD, score=self.score_for(encoding), encoding=encoding.name)

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], *, version: int) -> PrivBayesSettings:
        """Settings from a model file's ``parameters`` (validated; unknown keys refused).  Files before
        version 3 kept ε and β as binary floats, and used them so: they are read back the same way."""
        check_choice(params.get("method", METHOD), "method", (METHOD,), allow_none=False)
        given: dict[str, Any] = {}
        if version < 3:
            for name in ("epsilon", "beta"):
                value: Any = params.get(name)
                given[name] = Fraction(value) if is_real(value) else check_epsilon(value, name)
        check_choice(params.get("score"), "score", SCORES, allow_none=False)
        return cls(**read_parameters(PARAMETERS, params, owner="PrivBayes", given=given))


def degree_for(n: int, encoding: Encoding, epsilon2: Fraction, theta: float, degree: int | None,
               sensitivity: Fraction = PAPER_SENSITIVITY) -> int | None:
    """The fixed degree k (given, or Lemma 4.8's for binary encodings), else None (θ-usefulness, Alg. 4)."""
    d = len(encoding.attributes)
    if degree is None and not encoding.is_binary:
        return None
    k = degree if degree is not None else binary_degree(n, d, epsilon2, theta, sensitivity)
    return min(k, d - 1)


def phase_budgets(epsilon: Fraction, beta: Fraction, relation: Neighbours) -> tuple[Fraction, Fraction]:
    """(ε1, ε2): the network's and the tables' budgets, after the noisy count under add/remove."""
    eps = Fraction(epsilon) * (1 - (0 if relation.n_public else COUNT_SHARE))
    eps1 = Fraction(beta) * eps
    return eps1, eps - eps1


def privbayes_plan(*, epsilon: Fraction, beta: Fraction, theta: float, degree: int | None,
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
    phases: dict[str | None, tuple[Fraction | None, Fraction | None]] = {
        "network": (None, both), "marginals": (both, None), None: (eps1, eps2)}
    learn, release = phases[non_private_phase]  # None: that phase runs without noise (§6.4)
    if k == 0 and release is not None:
        release = both
    releases = [] if relation.n_public else [
        PlannedRelease(COUNT_STEP, "discrete Laplace", epsilon * COUNT_SHARE, kind="count", sensitivity=Fraction(1))]
    if k != 0 and learn is not None:
        releases += [PlannedRelease(f"network step {s}/{d - 1}", "exponential", learn / (d - 1), kind="network",
                                    index=s) for s in range(1, d)]
    measured = range(k, d) if k is not None else range(d)
    if release is not None:
        releases += [PlannedRelease(f"conditional {i + 1}/{d}", "discrete Laplace", release / len(measured),
                                    kind="table", index=i, sensitivity=delta) for i in measured]
    algorithm = (f"GreedyBayes Alg. 2 with degree k = {k} + NoisyConditionals Alg. 1" if k is not None
                 else "GreedyBayes Alg. 4 (maximal parent sets, Alg. 5/6) + NoisyConditionals Alg. 3")
    settings = (("algorithm", algorithm), ("degree", k), ("epsilon1", float(eps1)), ("epsilon2", float(eps2)),
                ("beta", float(beta)), ("theta", theta), ("n", n), ("encoded attributes", d),
                ("neighbours", relation.name))
    if k is None:
        settings += cap_settings(n, encoding, eps2, theta, delta)
    return BudgetPlan(Fraction(epsilon), tuple(releases), settings)


def measured_pairs(plan: BudgetPlan) -> dict[int, Fraction]:
    """AP-pair index → ε of each planned noisy table."""
    return plan.budgets("table")


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
