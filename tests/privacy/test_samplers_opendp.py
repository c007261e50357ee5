"""Our exact samplers against OpenDP's and against the exact distributions.

``discrete_laplace`` is compared with OpenDP's ``make_laplace`` on integers (a
discrete Laplace, CKS 2020) and ``exponential_choice`` with OpenDP's report-noisy-max
with Gumbel noise, which picks i with probability ∝ exp(score_i / scale): the
exponential mechanism with factor 1/scale.  In OpenDP 0.16 that is ``make_noisy_max``
with the zCDP output measure; under ``max_divergence`` it adds exponential noise
instead (permute-and-flip, a different distribution).  Each pair of samples (10^5
draws each) gets a two-sample χ² test, and each sample a one-sample χ² test against
the exact pmf.  Bins are fixed in advance from the exact pmf (no peeking at the
draws) and pooled so that every bin expects ≥ 20 of each sample, so every expected
count of the tests is at least 5.

False alarms: our draws use fixed seeds, OpenDP's come from the OS.  Under the null
each χ² test rejects with probability ≤ ALPHA (asymptotically; ≥ 5 per bin), so by
Bonferroni over the N_TESTS tests below (and the checks that every expected count is
≥ 5) the file raises a false alarm with probability ≤ 1e-4.  Power: a 10 % error in
the Laplace scale (2 → 2.2) gives a χ² non-centrality of ≈ 1040 at 10^5 draws and one
in the factor (1/2 → 0.55) ≈ 116, against critical values of 27-83 at ALPHA;
``test_the_tests_reject_a_wrong_*`` check this on our seeded draws (p ≈ 1e-156, 1e-37).

Runtime: OpenDP's noisy max costs ≈ 50 µs a draw through its Python bindings, so the
default run compares it with ours on one score vector; the other joins under ``-m slow``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from scipy.stats import chi2_contingency, chisquare

pytest.importorskip("opendp")
import opendp.prelude as dp

from privbayes.privacy.samplers import (
    RationalScores,
    SeededRandomSource,
    discrete_laplace,
    exponential_choice,
)

DRAWS = 100_000
MIN_EXPECTED = 5
BIN_EXPECTED = 20
"""Each sample expects ≥ 20 in every bin, so the two-sample test's expected counts (half
the pooled count, itself ≈ Poisson(≥ 40)) fall below 5 with probability ≤ 4e-9 a bin;
bins expecting just 5 per sample would fail that check about half the time."""

SCALES = (Fraction(1, 2), Fraction(2), Fraction(7, 3))
# (scores, factor), in the two forms GreedyBayes passes: exact rationals (R, F) with a
# tie and a Fraction factor; a float array (I) with ties and a float factor (taken as the
# exact rational the float denotes by ours, as its reciprocal scale by OpenDP — the two
# differ by < 1e-16 relatively, far below what 10^5 draws resolve).
SCORE_VECTORS = {
    "ties": (RationalScores(np.array([2, 4, 4, 6]), 2), Fraction(1, 2)),  # 1, 2, 2, 3
    "floats": (np.array([0.25, -0.5, 0.25, 1.0, 0.75]), 0.7),
}

# Tests that can raise a false alarm: per Laplace scale one two-sample and two
# one-sample tests; the same per score vector, slow ones included (so the bound holds
# for every selection).  The power checks assert rejection and are not counted.
# Bonferroni: N_TESTS · ALPHA plus the expected-count checks (< 6 tail bins · 4e-9)
# stays ≤ 1e-4.
N_TESTS = 3 * len(SCALES) + 3 * len(SCORE_VECTORS)
ALPHA = (1e-4 - 1e-7) / N_TESTS


# ------------------------------------------------------------------ exact distributions


def laplace_bins(scale: Fraction) -> tuple[int, np.ndarray]:
    """K and the exact probabilities of the bins (−∞, −K−1], −K, …, K, [K+1, ∞) of the
    discrete Laplace Pr[z] = (1 − q)/(1 + q) · q^|z|, q = e^(−1/scale); K is the largest
    with every bin expecting ≥ BIN_EXPECTED of DRAWS.  Each tail is Σ_{z ≥ K+1} = q^(K+1)/(1 + q)."""
    q = math.exp(-1 / scale)

    def bins(k: int) -> np.ndarray:
        z = np.arange(-k, k + 1)
        tail = q ** (k + 1) / (1 + q)
        return np.r_[tail, (1 - q) / (1 + q) * q ** np.abs(z), tail]

    k = 0
    while DRAWS * bins(k + 1).min() >= BIN_EXPECTED:
        k += 1
    probabilities = bins(k)
    assert DRAWS * probabilities.min() >= BIN_EXPECTED and math.isclose(probabilities.sum(), 1)
    return k, probabilities


def laplace_counts(draws: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(np.clip(draws, -k - 1, k + 1) + k + 1, minlength=2 * k + 3)


def as_floats(scores) -> list[float]:
    return [float(scores[i]) for i in range(len(scores))]


def softmax(scores, factor) -> np.ndarray:
    values = np.array(as_floats(scores))
    weights = np.exp(float(factor) * (values - values.max()))
    return weights / weights.sum()


# ------------------------------------------------------------------ the draws


def ours_laplace(scale: Fraction) -> np.ndarray:
    return discrete_laplace(scale, DRAWS, SeededRandomSource(2017 + scale.numerator))


def opendp_laplace(scale: Fraction) -> np.ndarray:
    """One vector-valued measurement: DRAWS independent discrete Laplace draws in one call
    (a numpy input crosses into OpenDP without a per-element conversion)."""
    space = dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l1_distance(T=dp.i64)
    noise = dp.m.make_laplace(*space, scale=float(scale))
    return np.asarray(noise(np.zeros(DRAWS, np.int64)), dtype=np.int64)


def ours_choices(name: str) -> np.ndarray:
    scores, factor = SCORE_VECTORS[name]
    rng = SeededRandomSource(2017 + list(SCORE_VECTORS).index(name))
    return np.array([exponential_choice(scores, factor, rng) for _ in range(DRAWS)])


def opendp_choices(name: str) -> np.ndarray:
    """DRAWS independent noisy maxes (Gumbel noise, scale 1/factor) as one composed
    measurement: ~50 µs a draw (5 µs sampling in Rust, the rest OpenDP's conversion of
    the 10^5 results to Python), against ~135 µs for one call per draw."""
    scores, factor = SCORE_VECTORS[name]
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    noisy_max = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=1 / float(factor))
    many = dp.c.make_composition([noisy_max] * DRAWS)
    return np.asarray(many(as_floats(scores)), dtype=np.int64)


@cache
def sample(source: str, kind: str, parameter) -> np.ndarray:
    """Each sample is drawn once for the file (two-sample and one-sample tests share it)."""
    dp.enable_features("contrib")
    draw = {("ours", "laplace"): ours_laplace, ("opendp", "laplace"): opendp_laplace,
            ("ours", "choice"): ours_choices, ("opendp", "choice"): opendp_choices}[source, kind]
    return draw(parameter)


def choice_counts(choices: np.ndarray, name: str) -> np.ndarray:
    return np.bincount(choices, minlength=len(SCORE_VECTORS[name][0]))


# ------------------------------------------------------------------ discrete Laplace


@pytest.mark.parametrize("scale", SCALES, ids=str)
def test_discrete_laplace_matches_opendp(scale):
    k, _ = laplace_bins(scale)
    table = np.vstack([laplace_counts(sample("ours", "laplace", scale), k),
                       laplace_counts(sample("opendp", "laplace", scale), k)])
    _, p_value, _, expected = chi2_contingency(table, correction=False)
    assert expected.min() >= MIN_EXPECTED
    assert p_value > ALPHA


@pytest.mark.parametrize("source", ["ours", "opendp"])
@pytest.mark.parametrize("scale", SCALES, ids=str)
def test_discrete_laplace_matches_exact_pmf(scale, source):
    k, probabilities = laplace_bins(scale)
    assert chisquare(laplace_counts(sample(source, "laplace", scale), k), DRAWS * probabilities).pvalue > ALPHA


def test_the_tests_reject_a_wrong_scale():
    """Power: our scale-2 draws against the pmf of scale 2.2 (non-centrality ≈ 1000)."""
    k, probabilities = laplace_bins(Fraction(11, 5))
    assert chisquare(laplace_counts(sample("ours", "laplace", Fraction(2)), k), DRAWS * probabilities).pvalue < ALPHA


# ------------------------------------------------------------------ exponential mechanism


# OpenDP's noisy max costs ≈ 50 µs a draw (see opendp_choices): CI compares it with ours on
# the float vector (ties, float scores and factor); the rational vector joins with -m slow.
WITH_OPENDP = ["floats", pytest.param("ties", marks=pytest.mark.slow)]


@pytest.mark.parametrize("name", WITH_OPENDP)
def test_exponential_choice_matches_opendp_noisy_max(name):
    table = np.vstack([choice_counts(sample("ours", "choice", name), name),
                       choice_counts(sample("opendp", "choice", name), name)])
    _, p_value, _, expected = chi2_contingency(table, correction=False)
    assert expected.min() >= MIN_EXPECTED
    assert p_value > ALPHA


@pytest.mark.parametrize("name, source", [("ties", "ours"), ("floats", "ours"), ("floats", "opendp"),
                                          pytest.param("ties", "opendp", marks=pytest.mark.slow)])
def test_exponential_choice_matches_softmax(name, source):
    scores, factor = SCORE_VECTORS[name]
    probabilities = softmax(scores, factor)
    assert DRAWS * probabilities.min() >= BIN_EXPECTED
    assert chisquare(choice_counts(sample(source, "choice", name), name), DRAWS * probabilities).pvalue > ALPHA


def test_the_tests_reject_a_wrong_factor():
    """Power: our draws for the tied scores (factor 1/2) against the softmax at factor 0.55."""
    scores, _ = SCORE_VECTORS["ties"]
    observed = choice_counts(sample("ours", "choice", "ties"), "ties")
    assert chisquare(observed, DRAWS * softmax(scores, 0.55)).pvalue < ALPHA
