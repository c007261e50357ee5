"""SA-PrivBayes's settings and budget plan, from public inputs only (Future Internet 2026, §5.2, §5.5,
Alg. 1 and Alg. 2; docs/sa_privbayes.md).

ε1 = βε learns the network, ε2 = ε − ε1 the d − k noisy tables.  Within ε1, ε_τ = s·ε1 (s = 0.3) and
ε_exp = ε1 − ε_τ over d − 1 exponential-mechanism steps.

* strict mode: ε_τ buys the noisy mutual-information matrix (one or two vector releases,
  :func:`privbayes.methods.sa_privbayes.ami.planned_releases`); screening, the order and the table budgets are
  post-processing of it;
* faithful mode: ε_τ pays the noisy screening threshold, ε_τ/(d − 1) per step (the ledger adds up as
  the paper's Theorem 1 accounts; the exact MIM and the screening comparisons are not charged).

In both modes the table budgets ε_i follow the score clusters (Alg. 2, line 4).  Which table falls in
which cluster depends on scores, but the multiset {ε_i} depends only on d − k and q, so the plan lists
them as one group (:class:`~privbayes.privacy.plan.PlannedRelease`), checked as a multiset.
Σ = ε_τ + ε_exp + ε2 = ε exactly (Fractions).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from privbayes.core.errors import InputError
from privbayes.core.validation import check_epsilon, exact, exact_parameter
from privbayes.methods.sa_privbayes.allocation import cluster_budgets, cluster_sizes
from privbayes.methods.sa_privbayes.ami import planned_releases
from privbayes.methods.sa_privbayes.parameters import PARAMETERS
from privbayes.privacy.neighbours import REPLACE_ONE, Neighbours
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.parameters import DeclaredSettings, read_parameters, to_parameters

METHOD = "sa-privbayes"
CONDITIONALS_GROUP = "score-clustered conditionals"
MECHANISM = "SA-PrivBayes (Yuan, Zhang, Lin, Wang, Jia, Future Internet 2026)"
FAITHFUL_CAVEATS = (
    ("faithful mode: the mutual-information matrix (Alg. 1, line 2) is computed from exact 2-way counts without "
     "charge; the AMI order and the first attribute (lines 3-4) are taken from it"),
    ("faithful mode: threshold screening (Alg. 1, lines 9-18) compares exact scores with a noisy threshold; only the "
     "threshold is paid for, so which AP pairs reach the exponential mechanism depends on exact scores without charge "
     "(a misuse of the sparse vector technique: Lyu, Su, Li, PVLDB 2017)"),
    ("faithful mode: the exponential mechanism (Alg. 1, line 19) chooses among candidates screened on exact scores, "
     "so its per-step guarantee does not hold for the released network"),
    ("faithful mode: the per-table budgets of Alg. 2 (line 4) are weighted by exact scores; each table's noise scale "
     "reveals its score cluster without charge"),
    ("faithful mode: Theorem 1 of the paper invokes parallel composition for marginals of the same rows; the budget "
     "total is still ε1 + ε2 by sequential composition, but only for the charged releases"),
)


class SASettings(DeclaredSettings):
    """The public parameters of an SA-PrivBayes fit (all budgets and ratios exact; declared in
    :mod:`privbayes.methods.sa_privbayes.parameters`)."""

    parameters = PARAMETERS
    epsilon: Fraction
    mode: str
    degree: int
    keep_fraction: Fraction
    q: Fraction
    alpha: Fraction
    beta: Fraction
    screening_share: Fraction

    @property
    def epsilon1(self) -> Fraction:
        return self.beta * self.epsilon

    @property
    def epsilon2(self) -> Fraction:
        return self.epsilon - self.epsilon1

    @property
    def epsilon_tau(self) -> Fraction:
        return self.screening_share * self.epsilon1

    @property
    def epsilon_exp(self) -> Fraction:
        return self.epsilon1 - self.epsilon_tau

    @property
    def differentially_private(self) -> bool:
        return self.mode == "strict"

    @property
    def mechanism(self) -> str:
        return f"{MECHANISM}, {self.mode} mode" + ("" if self.differentially_private else
                                                   ": NOT differentially private")

    def degree_for(self, d: int) -> int:
        """k = min(degree, d − 1)."""
        return min(self.degree, d - 1)

    def plan(self, n: int, encoding: Encoding) -> BudgetPlan:
        """Every release of a fit, in the order the fit makes them."""
        d = len(encoding.attributes)
        if d < 2:
            raise InputError("SA-PrivBayes needs at least 2 attributes (it orders them by mutual information)")
        k = self.degree_for(d)
        releases: list[PlannedRelease] = []
        if self.mode == "strict":
            releases += [PlannedRelease(step, mechanism, eps, kind="mutual information") for step, mechanism, eps in
                         planned_releases([a.size for a in encoding.attributes], self.epsilon_tau)]
        for s in range(1, d):
            if self.mode == "faithful":
                releases.append(PlannedRelease(f"screening step {s}/{d - 1}", "discrete Laplace",
                                               self.epsilon_tau / (d - 1), kind="screening", index=s))
            releases.append(PlannedRelease(f"network step {s}/{d - 1}", "exponential", self.epsilon_exp / (d - 1),
                                           kind="network", index=s))
        tables = d - k
        per_node = [budget / size for budget, size in zip(cluster_budgets(self.epsilon2, self.q, tables),
                                                          cluster_sizes(tables)) for _ in range(size)]
        releases += [PlannedRelease(f"conditional {i + 1}/{d}", "discrete Laplace", eps, CONDITIONALS_GROUP,
                                    kind="table", index=i, sensitivity=REPLACE_ONE.count_sensitivity)
                     for i, eps in zip(range(k, d), per_node)]
        screening = ("top-λ by Σ MI on the noisy MIM (post-processing)" if self.mode == "strict"
                     else "the paper's noisy threshold on exact scores (NOT private)")
        algorithm = (f"SA-PrivBayes Alg. 1 ({self.mode}: AMI order, {screening}) with degree k = {k} "
                     f"+ Alg. 2 (three score clusters, q = {self.q})")
        settings = (("algorithm", algorithm), ("mode", self.mode), ("degree", k),
                    ("epsilon1", float(self.epsilon1)), ("epsilon2", float(self.epsilon2)),
                    ("epsilon_tau", float(self.epsilon_tau)), ("epsilon_exp", float(self.epsilon_exp)),
                    ("lambda", str(self.keep_fraction)), ("q", str(self.q)), ("alpha", str(self.alpha)),
                    ("n", n), ("encoded attributes", d))
        return BudgetPlan(self.epsilon, tuple(releases), settings)

    def to_parameters(self) -> dict[str, Any]:
        """The model file's ``parameters`` (JSON): ε as a number and as exact text, ratios as exact text."""
        return to_parameters(self, METHOD, lead={"mode": self.mode})

    @property
    def relation(self) -> Neighbours:
        """SA-PrivBayes is defined for replace-one neighbours (n public)."""
        return REPLACE_ONE

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], *, version: int) -> SASettings:
        """Settings from a model file's ``parameters`` (validated; unknown keys refused).  Files before
        version 3 took a float ε as its binary value, and are read back the same way."""
        if params.get("method") != METHOD or params.get("score") != "I" or params.get("encoding") != "vanilla":
            raise InputError("SA-PrivBayes parameters must have method sa-privbayes, score I and encoding vanilla")
        epsilon = params.get("epsilon")
        if isinstance(params.get("epsilon_exact"), str):  # version 3
            epsilon = exact_parameter(params, "epsilon")
        elif isinstance(epsilon, str):
            epsilon = exact(epsilon, "epsilon")
        else:
            epsilon = check_epsilon(epsilon, binary=version < 3)
        if params.get("alpha") is None:  # files always record the α in force (None is the estimator's "paper's α")
            raise InputError("alpha (None) must be a finite number")
        return cls(**read_parameters(PARAMETERS, params, owner="SA-PrivBayes", given={"epsilon": epsilon}))
