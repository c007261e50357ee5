"""The distinguishing audit (issue 39's, ``privbayes.audit.distinguish``) in its Gaussian form.

A ρ-zCDP release is (ε, δ(ε))-DP for every ε, with δ(ε) from CKS 2020 Cor. 13 (:func:`delta_for`).  So the
two-direction test runs at ε with the claimed δ = δ(ε) instead of 0: ``DiscreteGaussian`` on one count of
sensitivity 1 (neighbours 0 and 1, add/remove), σ² = 1, ρ = 1/2, outputs clamped to the K = 10 events [−4, 5]
(post-processing), N = 20,000 runs a side.  It must pass at the claimed ρ and fail when the noise is planted
with σ halved (σ² / 4, the true ρ four times the claim).

The numbers (exact, from the pmf of the clamped outputs; test_the_numbers_of_this_audit recomputes them):

| ε | claimed δ(ε) at ρ = 1/2 | true δ_ε, σ = 1 | true δ_ε, σ halved | τ (α = 1e-6) |
|---|---|---|---|---|
| ln 3 | 0.220 | 0.125 | 0.573 | 0.094 |
| 1/2 | 0.400 | 0.204 | 0.717 | 0.057 |

A correct sampler passes with probability ≥ 1 − 1e-6 per test (``concentration_tolerance``: δ̂ ≤ δ_ε + τ
≤ δ(ε) + τ); the broken one has δ_ε − δ(ε) − τ ≥ 0.25 and passes with probability < 1e-6
(``miss_probability``, asserted).
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import privbayes.privacy.mechanisms as mechanisms_module
from privbayes.audit.distinguish import compare_histograms, concentration_tolerance, miss_probability
from privbayes.privacy.accountant import ZCDPAccountant
from privbayes.privacy.mechanisms import DiscreteGaussian
from privbayes.privacy.samplers import random_source
from privbayes.privacy.zcdp import delta_for

SIGMA2, RHO = Fraction(1), Fraction(1, 2)
LOW, HIGH = -4, 5
EVENTS = HIGH - LOW + 1
RUNS, ALPHA = 20_000, 1e-6
EPSILONS = (math.log(3), 0.5)


def _runs(true_count: int, seed: int, n: int = RUNS) -> Counter:
    """n runs of the Gaussian count: one release of n copies (one independent draw per copy), clamped."""
    accountant = ZCDPAccountant(RHO)
    out = DiscreteGaussian(SIGMA2, Fraction(1)).release(np.full(n, true_count), accountant, random_source(seed),
                                                        step="count", measured="count")
    assert accountant.spent == RHO
    return Counter(np.clip(out, LOW, HIGH).tolist())


def _audit(epsilon: float, seed: int):
    a, b = _runs(0, seed), _runs(1, seed + 1)
    assert len(set(a) | set(b)) <= EVENTS
    return compare_histograms(a, b, RUNS, epsilon=epsilon, delta=delta_for(RHO, epsilon),
                              tolerance=concentration_tolerance(RUNS, epsilon, EVENTS, ALPHA))


def _exact_delta(sigma2: float, epsilon: float) -> float:
    """δ_ε of the clamped outputs on 0 and 1, both directions, from the exact pmf (|z| ≤ 60 holds all mass)."""
    z = np.arange(-60, 61)
    weights = np.exp(-z.astype(float) ** 2 / (2 * sigma2))
    weights /= weights.sum()
    a = np.bincount(np.clip(z, LOW, HIGH) - LOW, weights=weights, minlength=EVENTS)
    b = np.bincount(np.clip(z + 1, LOW, HIGH) - LOW, weights=weights, minlength=EVENTS)
    factor = math.exp(epsilon)
    return float(max(np.maximum(0, a - factor * b).sum(), np.maximum(0, b - factor * a).sum()))


@pytest.fixture
def sigma_halved(monkeypatch):
    """Broken variant: the sampler draws with σ halved (σ² / 4) while the ledger charges ρ = 1/(2σ²)."""
    real = mechanisms_module.discrete_gaussian
    monkeypatch.setattr(mechanisms_module, "discrete_gaussian", lambda sigma2, size, rng: real(sigma2 / 4, size, rng))


def test_the_numbers_of_this_audit():
    for epsilon, claimed, true, broken in [(math.log(3), 0.220, 0.125, 0.573), (0.5, 0.400, 0.204, 0.717)]:
        assert delta_for(RHO, epsilon) == pytest.approx(claimed, abs=5e-4)
        assert _exact_delta(1.0, epsilon) == pytest.approx(true, abs=5e-4) and true < claimed
        assert _exact_delta(0.25, epsilon) == pytest.approx(broken, abs=5e-4)
        assert miss_probability(broken - claimed, RUNS, epsilon, EVENTS, ALPHA) < 1e-6


@pytest.mark.parametrize("epsilon", EPSILONS, ids=["ln3", "half"])
def test_audit_discrete_gaussian_count_passes(epsilon):
    result = _audit(epsilon, 4300 + EPSILONS.index(epsilon) * 2)
    print(result.summary())  # shown with pytest -s; recorded in docs/privacy-assurance.md
    assert result.passed, result.summary()


@pytest.mark.parametrize("epsilon", EPSILONS, ids=["ln3", "half"])
def test_audit_rejects_sigma_halved(sigma_halved, epsilon):
    result = _audit(epsilon, 4300 + EPSILONS.index(epsilon) * 2)
    print(result.summary())  # shown with pytest -s; recorded in docs/privacy-assurance.md
    assert not result.passed, result.summary()
    assert result.violation > delta_for(RHO, epsilon) + 0.25
