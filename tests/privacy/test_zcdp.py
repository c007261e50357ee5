"""zCDP: the conversion ρ ↔ (ε, δ) against OpenDP and a dense grid, the mechanisms' zCDP costs (the exponential
mechanism at ε²/8, permute-and-flip *not*), the ρ accountant, the plan in ρ and the report's fields.

Every check is deterministic (exact arithmetic, seeded draws, closed-form distributions).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from privbayes.privacy.accountant import Accountant, BudgetExceededError, LedgerEntry, ZCDPAccountant
from privbayes.privacy.mechanisms import (
    DiscreteGaussian,
    DiscreteLaplace,
    Exponential,
    PermuteAndFlip,
    discrete_gaussian_variance,
)
from privbayes.privacy.plan import BudgetPlan, PlanMismatchError, PlannedRelease
from privbayes.privacy.report import zcdp_fields
from privbayes.privacy.samplers import SeededRandomSource
from privbayes.privacy.zcdp import delta_for, epsilon_for, rho_for

CASES = [(Fraction(2, 9), 1e-6), (Fraction(2), 1e-9), (Fraction(1, 20_000), 1e-9), (Fraction(1, 200), 1e-5),
         (Fraction(1, 18), 0.1), (Fraction(1, 2 * 10**8), 1e-9), (Fraction(200), 1e-9)]
"""(ρ, δ): σ = 1.5, 0.5, 100, 10, 3, 10⁴ and 0.05 at sensitivity 1."""


def grid_epsilon(rho: Fraction, delta: float) -> float:
    """The CKS Cor. 13 bound minimised over 200,000 values of α on a log grid from 1 + 1e-6 to 1 + 1e6."""
    alpha = 1 + np.logspace(-6, 6, 200_000)
    values = alpha * float(rho) + np.log(1 / (alpha * delta)) / (alpha - 1) + np.log1p(-1 / alpha)
    return float(values.min())


# ------------------------------------------------------------------ the conversion


@pytest.mark.parametrize("rho, delta", CASES)
def test_epsilon_matches_opendp(rho, delta):
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l2_distance(T=dp.i64)
    scale = math.sqrt(1 / (2 * rho))
    profile = dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*space, scale=scale)).map(1)
    ours = epsilon_for(rho, delta)
    assert ours == pytest.approx(profile.epsilon(delta), rel=1e-9)
    assert delta_for(rho, ours) == pytest.approx(delta, rel=1e-6)
    assert profile.delta(ours) == pytest.approx(delta, rel=1e-6)


@pytest.mark.parametrize("rho, delta", CASES)
def test_epsilon_is_the_infimum_over_alpha_and_beats_bun_steinke(rho, delta):
    ours = epsilon_for(rho, delta)
    assert ours <= grid_epsilon(rho, delta) * (1 + 1e-9)
    assert ours >= grid_epsilon(rho, delta) * (1 - 1e-6)
    assert ours < float(rho) + 2 * math.sqrt(float(rho) * math.log(1 / delta))


@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-9), (0.4, 1e-9), (1.6, 1e-9), (10.0, 1e-5),
                                            (Fraction(1, 3), Fraction(1, 10**6))])
def test_rho_for_is_the_largest_safe_rho_rounded_down(epsilon, delta):
    rho = rho_for(epsilon, delta)
    assert isinstance(rho, Fraction) and rho.denominator & (rho.denominator - 1) == 0  # dyadic
    assert epsilon_for(rho, delta) <= float(epsilon)
    assert epsilon_for(rho, delta) >= float(epsilon) * (1 - 1e-8)
    assert epsilon_for(rho * (1 + Fraction(1, 10**7)), delta) > float(epsilon) * (1 - 1e-9)


def test_known_values_and_edges():
    # ε = 1.6, δ = 1e-9 is ρ ≈ 0.0367 (the AIM runs); ρ = 0 costs nothing at any δ.
    assert float(rho_for(1.6, 1e-9)) == pytest.approx(0.0367405, rel=1e-5)
    assert epsilon_for(0, 1e-9) == 0.0 and delta_for(0, 1.0) == 0.0
    assert 0.99 < delta_for(Fraction(100), 0.01) <= 1.0  # the bound tends to 1 as α → 1, never above
    with pytest.raises(ValueError, match="delta"):
        rho_for(1.0, 1.0)
    with pytest.raises(ValueError, match="rho"):
        epsilon_for(-1, 1e-9)


# ------------------------------------------------------------------ the mechanisms' zCDP costs


def test_discrete_gaussian_cost_is_exact():
    mechanism = DiscreteGaussian(Fraction(9, 4), Fraction(1))
    assert mechanism.zcdp_cost() == Fraction(2, 9)
    assert DiscreteGaussian(Fraction(1, 3), Fraction(99, 70)).zcdp_cost() == Fraction(99**2 * 3, 70**2 * 2)
    with pytest.raises(TypeError, match="ZCDPAccountant"):
        mechanism.cost()
    with pytest.raises(ValueError, match="sigma2"):
        DiscreteGaussian(Fraction(0), Fraction(1))


def test_pure_mechanisms_zcdp_costs():
    epsilon = Fraction(1, 2)
    assert DiscreteLaplace(epsilon).zcdp_cost() == Fraction(1, 8)
    assert Exponential(epsilon, Fraction(1)).zcdp_cost() == Fraction(1, 32)
    assert PermuteAndFlip(epsilon, Fraction(1)).zcdp_cost() == Fraction(1, 8)


def _exact_distribution(scores: list[float], epsilon: float, mechanism: str) -> np.ndarray:
    """The output law of the exponential mechanism or of permute-and-flip (every order enumerated), Δ = 1."""
    factor = epsilon / 2
    if mechanism == "exponential":
        weights = np.exp(factor * np.array(scores))
        return weights / weights.sum()
    accept = np.exp(factor * (np.array(scores) - max(scores)))
    law = np.zeros(len(scores))
    orders = list(itertools.permutations(range(len(scores))))
    for order in orders:
        still = 1.0
        for i in order:
            law[i] += still * accept[i] / len(orders)
            still *= 1 - accept[i]
    return law


def _renyi(p: np.ndarray, q: np.ndarray, alpha: float) -> float:
    return float(np.log(np.sum(p**alpha * q ** (1 - alpha))) / (alpha - 1))


def test_exponential_mechanism_is_within_eps2_over_8_and_permute_and_flip_is_not():
    """Neighbouring score vectors that move by ±Δ in opposite directions, ε = 1: the exponential mechanism's
    Rényi divergences stay below ρα with ρ = ε²/8 (bounded range, Cesar & Rogers 2021); permute-and-flip's
    exceed it at α near 1 by a factor > 2.6 (a counterexample to charging it ε²/8) but stay below ε²/2 · α."""
    epsilon, rho_em, rho_pure = 1.0, 1 / 8, 1 / 2
    pairs = [([1.2, 0.37], [0.2, 1.37]), ([0.0, 1.0], [1.0, 0.0]), ([0.5, 0.0, 2.0], [1.5, 1.0, 1.0])]
    worst_pf = 0.0
    for a, b in pairs:
        for alpha in (1.01, 1.5, 2.0, 4.0, 16.0):
            em = _renyi(_exact_distribution(a, epsilon, "exponential"), _exact_distribution(b, epsilon, "exponential"),
                        alpha)
            assert em <= rho_em * alpha + 1e-12
            pf = _renyi(_exact_distribution(a, epsilon, "pf"), _exact_distribution(b, epsilon, "pf"), alpha)
            assert pf <= rho_pure * alpha + 1e-12
            worst_pf = max(worst_pf, pf / alpha)
    assert worst_pf > 2.6 * rho_em


def test_discrete_gaussian_variance():
    assert discrete_gaussian_variance(Fraction(7, 3)) == pytest.approx(7 / 3, rel=1e-15)
    z = np.arange(-30, 31)
    weights = np.exp(-z**2 / (2 * 0.25))
    assert discrete_gaussian_variance(Fraction(1, 4)) == pytest.approx(np.sum(z**2 * weights) / weights.sum())
    assert discrete_gaussian_variance(Fraction(1, 4)) < 0.25 * 0.9  # far below σ² when σ² < 1


# ------------------------------------------------------------------ the accountant, the plan, the report


def test_zcdp_accountant_adds_rho_exactly_and_refuses_overspending():
    accountant = ZCDPAccountant(Fraction(1, 10))
    rng = SeededRandomSource(1)
    gaussian = DiscreteGaussian(Fraction(10), Fraction(1))  # ρ = 1/20
    noisy = gaussian.release(np.array([5, 0, 3]), accountant, rng, step="table 1", measured="a")
    assert noisy.dtype == np.int64 and noisy.shape == (3,)
    Exponential(Fraction(1, 2), Fraction(1)).release([0.0, 1.0], accountant, rng, step="select", measured="b")
    assert accountant.spent == Fraction(1, 20) + Fraction(1, 32)
    with pytest.raises(BudgetExceededError, match="ρ"):
        gaussian.release(np.array([1]), accountant, rng, step="table 2", measured="c")
    assert accountant.spent == Fraction(1, 20) + Fraction(1, 32) and len(accountant.ledger) == 2
    first = accountant.ledger[0]
    assert (first.rho, first.epsilon, first.mechanism) == (Fraction(1, 20), 0, "discrete Gaussian")
    assert LedgerEntry.from_dict(first.to_dict()) == first
    with pytest.raises(ValueError, match="rho"):
        ZCDPAccountant(0)


def test_the_pure_accountant_refuses_a_gaussian():
    with pytest.raises(TypeError, match="pure-epsilon"):
        DiscreteGaussian(Fraction(1), Fraction(1)).release(np.array([1]), Accountant(1), SeededRandomSource(2),
                                                           step="s", measured="m")


def test_pure_ledger_entries_and_plans_carry_no_rho():
    entry = LedgerEntry("s", "discrete Laplace", Fraction(1, 2), Fraction(2), "m")
    assert "rho" not in entry.to_dict() and LedgerEntry.from_dict(entry.to_dict()).rho is None
    plan = BudgetPlan(Fraction(1), (PlannedRelease("s", "discrete Laplace", Fraction(1, 2)),))
    assert "total_rho_exact" not in plan.to_dict() and "rho_exact" not in plan.to_dict()["releases"][0]


def _zcdp_plan() -> BudgetPlan:
    rho = Fraction(1, 20)
    return BudgetPlan(Fraction(epsilon_for(Fraction(1, 10), 1e-9)),
                      (PlannedRelease("table 1", "discrete Gaussian", Fraction(0), rho=rho),
                       PlannedRelease("select", "exponential", Fraction(0), rho=Fraction(1, 32))),
                      total_rho=Fraction(1, 10))


def test_the_zcdp_ledger_equals_the_plan():
    plan = _zcdp_plan()
    accountant = ZCDPAccountant(plan.total_rho)
    rng = SeededRandomSource(3)
    DiscreteGaussian(Fraction(10), Fraction(1)).release(np.array([4]), accountant, rng, step="table 1", measured="a")
    Exponential(Fraction(1, 2), Fraction(1)).release([0.0, 1.0], accountant, rng, step="select", measured="b")
    plan.check(accountant.ledger)
    assert plan.rho_spent == accountant.spent and plan.to_dict()["total_rho_exact"] == "1/10"
    assert any("ρ = 0.05" in line for line in plan.describe())
    # a ledger that paid less ρ (σ² doubled in the run, not in the plan) is refused
    cheaper = ZCDPAccountant(plan.total_rho)
    DiscreteGaussian(Fraction(20), Fraction(1)).release(np.array([4]), cheaper, rng, step="table 1", measured="a")
    Exponential(Fraction(1, 2), Fraction(1)).release([0.0, 1.0], cheaper, rng, step="select", measured="b")
    with pytest.raises(PlanMismatchError, match="ρ"):
        plan.check(cheaper.ledger)


def test_a_plan_is_priced_in_one_definition():
    with pytest.raises(ValueError, match="rho"):
        BudgetPlan(Fraction(1), (PlannedRelease("s", "discrete Gaussian", Fraction(0), rho=Fraction(1)),))
    with pytest.raises(ValueError, match="rho"):
        BudgetPlan(Fraction(1), (PlannedRelease("s", "discrete Laplace", Fraction(1, 2)),), total_rho=Fraction(1))
    with pytest.raises(ValueError, match="rho"):
        BudgetPlan(Fraction(1), (PlannedRelease("s", "discrete Gaussian", Fraction(0), rho=Fraction(2)),),
                   total_rho=Fraction(1))


def test_report_fields_give_rho_and_the_epsilon_delta_it_implies():
    fields = zcdp_fields(Fraction(1, 10), Fraction(1, 20), Fraction(1, 10**9))
    assert fields["rho_exact"] == "1/10" and fields["rho_spent_exact"] == "1/20"
    assert fields["epsilon"] == epsilon_for(Fraction(1, 10), 1e-9)
    assert fields["epsilon_spent"] < fields["epsilon"] and fields["delta_spent"] == 1e-9


def test_a_pure_plan_refuses_a_ledger_that_claims_rho():
    """A model file's ledger with ρ added to a pure-ε entry (read back by ``LedgerEntry.from_dict``) is refused."""
    plan = BudgetPlan(Fraction(1), (PlannedRelease("s", "discrete Laplace", Fraction(1, 2)),))
    honest = LedgerEntry("s", "discrete Laplace", Fraction(1, 2), Fraction(2), "m")
    plan.check([honest])
    tampered = LedgerEntry.from_dict(honest.to_dict() | {"rho": 0.125, "rho_exact": "1/8"})
    assert tampered.rho == Fraction(1, 8)
    with pytest.raises(PlanMismatchError, match="ρ"):
        plan.check([tampered])
