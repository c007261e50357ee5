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

Under ``privacy="zcdp"`` (:func:`zcdp_privbayes_plan`; docs/decisions.md, "zCDP for PrivBayes") the same releases
are priced in ρ: the count (add/remove) a discrete Gaussian at ρ/100, the d − 1 network steps the exponential
mechanism at ρ_s = ε_s²/8 each (Cesar & Rogers 2021: GreedyBayes selects by the exponential mechanism, which is
ε-bounded range), β of the rest split evenly between them, and the tables discrete Gaussians with the rest split
evenly, σ² = Δ²/(2ρ_t) at the count table's L2 sensitivity Δ.  θ-usefulness reads each table's Gaussian noise as
the discrete Laplace of the same standard deviation (:func:`usefulness_epsilon`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from privbayes.bayesnet.candidates import candidate_cap, cap_settings, parent_bound
from privbayes.bayesnet.registry import get_score
from privbayes.bayesnet.usefulness import PAPER_SENSITIVITY, binary_degree, binary_usefulness
from privbayes.core.errors import InputError
from privbayes.core.limits import limits
from privbayes.core.validation import (
    check_choice,
    check_epsilon,
    exact_parameter,
    is_real,
)
from privbayes.methods.privbayes.parameters import BETA, PARAMETERS, SCORES, ZCDP_BETA
from privbayes.privacy.mechanisms import COUNT_SHARE, COUNT_STEP, DiscreteGaussian, Exponential
from privbayes.privacy.neighbours import REPLACE_ONE, Neighbours, neighbours
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.privacy.zcdp import epsilon_for
from privbayes.privacy.zcdp_mechanisms import l2_sensitivity, laplace_equivalent, selection_epsilon, selection_rho
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.parameters import (
    ZCDP_KEYS,
    DeclaredSettings,
    PrivacyDefinition,
    read_parameters,
    to_parameters,
)

METHOD = "privbayes"
MECHANISM = "PrivBayes (Zhang et al., ACM TODS 2017)"
MECHANISM_ZCDP = ("PrivBayes (Zhang et al., ACM TODS 2017) under zCDP: exponential-mechanism network steps, "
                  "discrete-Gaussian noisy tables")


class PrivBayesSettings(DeclaredSettings, PrivacyDefinition):
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
    privacy: str
    delta: Fraction | None
    rho: Fraction | None

    def check(self) -> None:
        """The score must hold under the relation (add/remove supports R only); ``delta`` and ``rho`` belong to
        ``privacy="zcdp"`` (:meth:`~privbayes.synthesizers.parameters.PrivacyDefinition.check_privacy`), which
        runs both phases with noise (the §6.4 analysis modes are pure ε only).  β not given is the paper's 3/10, or
        under zCDP :data:`~privbayes.methods.privbayes.parameters.ZCDP_BETA`."""
        self.check_privacy()
        if self.beta is None:
            object.__setattr__(self, "beta", ZCDP_BETA if self.zcdp else BETA)
        if self.zcdp and self.non_private_phase is not None:
            raise InputError("non_private_phase is an analysis of pure ε (TODS 2017 §6.4); leave it out with "
                             "privacy 'zcdp'")
        if self.score is not None:
            get_score(self.score, self.relation)  # add/remove supports R only

    @property
    def mechanism(self) -> str:
        """The release's mechanism line (model file and report)."""
        return MECHANISM_ZCDP if self.zcdp else MECHANISM

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

    def count_rho(self) -> Fraction:
        """ρ of the zCDP fit's noisy count (add/remove neighbours only): the same share of the budget."""
        return self.total_rho() * COUNT_SHARE

    def rho_budgets(self, d: int) -> tuple[Fraction, Fraction]:
        """(ρ_s, ρ_2) of a zCDP fit on d attributes: each network step's ρ and the tables' total
        (:func:`zcdp_phase_budgets`)."""
        count = 0 if self.relation.n_public else self.count_rho()
        return zcdp_phase_budgets(self.total_rho() - count, self.beta, d)

    def usefulness_epsilon(self, d: int) -> Fraction:
        """The ε2 that θ-usefulness reads (Alg. 4 line 6): the tables' budget under pure ε; under zCDP that of
        discrete Laplace tables with the Gaussian tables' standard deviation (:func:`usefulness_epsilon`)."""
        if not self.zcdp:
            return self.phase_budgets()[1]
        return usefulness_epsilon(self.rho_budgets(d)[1], d, self.relation)

    def plan(self, n: int, encoding: Encoding) -> BudgetPlan:
        """Every release of a fit on n rows (the noisy count under add/remove), in the fit's order."""
        if self.zcdp:
            return zcdp_privbayes_plan(self, n, encoding)
        return privbayes_plan(epsilon=self.epsilon, beta=self.beta, theta=self.theta, degree=self.degree,
                              non_private_phase=self.non_private_phase, n=n, encoding=encoding,
                              relation=self.relation)

    def to_parameters(self, encoding: Encoding) -> dict[str, Any]:
        """The model file's ``parameters``: numbers for readers, exact text for ε and β; the score and the
        encoding in force."""
        out = to_parameters(self, METHOD, score=self.score_for(encoding), encoding=encoding.name)
        if not self.zcdp:  # pure-ε files as before
            for key in ZCDP_KEYS:
                del out[key]
        return out

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], *, version: int) -> PrivBayesSettings:
        """Settings from a model file's ``parameters`` (validated; unknown keys refused).  Files before
        version 3 kept ε and β as binary floats, and used them so: they are read back the same way."""
        check_choice(params.get("method", METHOD), "method", (METHOD,), allow_none=False)
        given: dict[str, Any] = {"beta": exact_parameter(params, "beta")} if version >= 3 else {}  # always written
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
    """AP-pair index → ε of each planned noisy table (ρ under zCDP)."""
    if plan.total_rho is None:
        return plan.budgets("table")
    return {r.index: r.rho for r in plan.releases if r.kind == "table" and r.index is not None and r.rho is not None}


def zcdp_phase_budgets(rest: Fraction, beta: Fraction, d: int) -> tuple[Fraction, Fraction]:
    """(ρ_s, ρ_2): each of the d − 1 network steps' ρ, the largest ε_s²/8 within β·``rest``/(d − 1) with ε_s exact
    (:func:`~privbayes.privacy.zcdp_mechanisms.selection_rho`), and the tables' total, the rest, so that the plan
    spends ``rest`` exactly."""
    if d < 2:
        return Fraction(0), rest
    step = selection_rho(beta * rest / (d - 1))
    return step, rest - (d - 1) * step


def laplace_epsilon(rho: Fraction, relation: Neighbours) -> Fraction:
    """The ε of the discrete Laplace table (L1 Δ of the relation) whose noise has the standard deviation of the
    Gaussian table at ρ (L2 Δ₂): √2·Δ/ε = Δ₂/√(2ρ), so ε = 2√ρ·Δ/Δ₂ (a public function of the budget, as a
    rational of its float: only the automatic choices read it)."""
    return Fraction(laplace_equivalent(rho)) * relation.count_sensitivity / l2_sensitivity(relation)


def usefulness_epsilon(tables_rho: Fraction, d: int, relation: Neighbours) -> Fraction:
    """The ε2 at which d discrete Laplace tables (ε2/d each) have the noise of d Gaussian tables at
    ``tables_rho``/d each: d·:func:`laplace_epsilon`.  θ-usefulness (TODS 2017 §4.5) compares a table's average
    count with its noise's scale; matching the standard deviation keeps θ's meaning (and the paper's θ = 4)."""
    return d * laplace_epsilon(tables_rho / d, relation)


def zcdp_degree(n: int, encoding: Encoding, tables_rho: Fraction, theta: float, degree: int | None,
                relation: Neighbours) -> int | None:
    """:func:`degree_for` under zCDP: the fixed degree given, or on binary data the largest k whose d − k Gaussian
    tables (``tables_rho``/(d − k) each, read as Laplace tables of the same standard deviation) are θ-useful by
    Lemma 4.8, else 0; None (θ-usefulness per child) on other data."""
    d = len(encoding.attributes)
    if degree is None and not encoding.is_binary:
        return None
    if degree is None:
        delta = relation.count_sensitivity
        useful = [k for k in range(1, d) if binary_usefulness(
            n, d, (d - k) * laplace_epsilon(tables_rho / (d - k), relation), k, delta) >= Fraction(theta)]
        degree = max(useful, default=0)
    return min(degree, d - 1)


def zcdp_privbayes_plan(settings: PrivBayesSettings, n: int, encoding: Encoding) -> BudgetPlan:
    """Every release of a zCDP PrivBayes fit in the fit's order, priced in ρ (ε 0 on every release; the plan's
    ``total`` is the ε the total ρ implies at the report's δ).  ``n``: the noisy count under add/remove."""
    relation = settings.relation
    l1, l2 = relation.count_sensitivity, l2_sensitivity(relation)
    total = settings.total_rho()
    count = Fraction(0) if relation.n_public else settings.count_rho()
    d = len(encoding.attributes)
    step, tables = settings.rho_budgets(d)
    k = zcdp_degree(n, encoding, tables, settings.theta, settings.degree, relation)
    eps2 = usefulness_epsilon(tables, d, relation)
    if k is None:
        _check_table_bound(n, d, eps2, settings.theta, encoding, l1)
    if k == 0:  # independent attributes: no network step, every table gets its share of all of ρ
        step, tables = Fraction(0), total - count
    zero = Fraction(0)
    releases = [] if relation.n_public else [
        PlannedRelease(COUNT_STEP, DiscreteGaussian.name, zero, kind="count", sensitivity=Fraction(1), rho=count)]
    if k != 0:
        releases += [PlannedRelease(f"network step {s}/{d - 1}", Exponential.name, zero, kind="network", index=s,
                                    rho=step) for s in range(1, d)]
    measured = range(k, d) if k is not None else range(d)
    releases += [PlannedRelease(f"conditional {i + 1}/{d}", DiscreteGaussian.name, zero, kind="table", index=i,
                                sensitivity=l2, rho=tables / len(measured)) for i in measured]
    algorithm = (f"GreedyBayes Alg. 2 with degree k = {k} + NoisyConditionals Alg. 1" if k is not None
                 else "GreedyBayes Alg. 4 (maximal parent sets, Alg. 5/6) + NoisyConditionals Alg. 3")
    algorithm += " (zCDP: exponential-mechanism steps at ε²/8, discrete-Gaussian tables)"
    delta = settings.report_delta()
    plan_settings = (("algorithm", algorithm), ("degree", k), ("rho1", float((d - 1) * step)),
                     ("rho2", float(tables)), ("epsilon per network step", float(selection_epsilon(step)) if step
                                               else 0.0),
                     ("usefulness epsilon2", float(eps2)), ("beta", float(settings.beta)), ("theta", settings.theta),
                     ("n", n), ("encoded attributes", d), ("neighbours", relation.name), ("privacy", "zCDP"),
                     ("rho", float(total)), ("delta", float(delta)))
    if k is None:
        plan_settings += cap_settings(n, encoding, eps2, settings.theta, l1)
    return BudgetPlan(Fraction(epsilon_for(total, delta)), tuple(releases), plan_settings, total_rho=total)


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
