"""The exact discrete Gaussian sampler against its pmf, its tails, its symmetry and OpenDP's.

``discrete_gaussian(σ², size)`` must draw Pr[Z = z] = exp(−z²/(2σ²)) / Σ_k exp(−k²/(2σ²)) exactly (CKS 2020,
Alg. 3).  Each seeded sample of DRAWS draws gets a χ² goodness-of-fit test against that pmf (bins fixed in
advance from the pmf, the tails pooled so that every bin expects ≥ BIN_EXPECTED), exact binomial tests of
its tails P(|Z| ≥ t) and of its sign, and at σ = 1/2 and 3/2 a two-sample χ² test against OpenDP 0.16's
``make_gaussian`` on integers (a discrete Gaussian too, CKS 2020), whose draws also get the one-sample test.

False alarms: under the null each test rejects with probability ≤ ALPHA (χ² asymptotically with every
expected count ≥ 5; the binomial tests exactly), so by Bonferroni over the N_TESTS tests below the file raises
a false alarm with probability ≤ 1e-4.  Power: ``test_the_tests_reject_*`` show that a 10 % error in σ² and a
halved σ are rejected on the same seeded draws.  Runtime ≈ 1.5 s (OpenDP's 2 × 50,000 draws take most).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from scipy.stats import binomtest, chi2, chi2_contingency, chisquare

from privbayes.privacy.samplers import SeededRandomSource, discrete_gaussian, gaussian_lattice

DRAWS = 100_000
OPENDP_DRAWS = 50_000
BIN_EXPECTED = 20
MIN_EXPECTED = 5

SIGMA2 = (Fraction(1, 4), Fraction(1), Fraction(7, 3), Fraction(10_000))
"""σ² < 1 (the mass mostly at 0), 1, a non-integer and a large one (σ = 100: ~800 bins)."""
WITH_OPENDP = (Fraction(1, 4), Fraction(9, 4))
"""σ = 0.5 and 1.5, exact in binary floating point (OpenDP takes σ as a float)."""
TAIL_SIGMAS = (1, 2, 3)
"""Tails P(|Z| ≥ kσ) tested at k = 1, 2, 3 for every σ² in SIGMA2."""

N_TESTS = len(SIGMA2) * (1 + len(TAIL_SIGMAS) + 1) + 3 * len(WITH_OPENDP) + 1
"""Per σ²: one χ² of the pmf, the tails, the sign; per OpenDP σ²: two-sample, ours and OpenDP's one-sample
(ours at 9/4 is an extra sample); the variance at a huge σ²."""
ALPHA = 1e-4 / N_TESTS


def pmf(sigma2: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """(z, Pr[Z = z]) on |z| ≤ 40σ + 10, normalised there (the rest weighs < e^−800)."""
    reach = math.ceil(40 * math.sqrt(sigma2)) + 10
    z = np.arange(-reach, reach + 1)
    weights = np.exp(-(z.astype(np.float64) ** 2) / (2 * float(sigma2)))
    return z, weights / weights.sum()


def bins(sigma2: Fraction, draws: int) -> tuple[int, np.ndarray]:
    """K and the probabilities of the bins (−∞, −K−1], −K, …, K, [K+1, ∞); K the largest with every bin
    expecting ≥ BIN_EXPECTED of ``draws``."""
    z, p = pmf(sigma2)

    def at(k: int) -> np.ndarray:
        tail = p[z > k].sum()
        return np.r_[tail, p[np.abs(z) <= k], tail]

    k = 0
    while draws * at(k + 1).min() >= BIN_EXPECTED:
        k += 1
    probabilities = at(k)
    assert draws * probabilities.min() >= BIN_EXPECTED and math.isclose(probabilities.sum(), 1)
    return k, probabilities


def binned(draws: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(np.clip(draws, -k - 1, k + 1) + k + 1, minlength=2 * k + 3)


@cache
def ours(sigma2: Fraction, seed: int = 43) -> np.ndarray:
    return discrete_gaussian(sigma2, DRAWS, SeededRandomSource(seed + sigma2.numerator))


@cache
def opendp(sigma2: Fraction) -> np.ndarray:
    """OPENDP_DRAWS draws from one vector-valued measurement (OS randomness: not seeded)."""
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.l2_distance(T=dp.i64)
    noise = dp.m.make_gaussian(*space, scale=math.sqrt(sigma2))
    return np.asarray(noise(np.zeros(OPENDP_DRAWS, np.int64)), dtype=np.int64)


@pytest.mark.parametrize("sigma2", SIGMA2, ids=str)
def test_matches_the_exact_pmf(sigma2):
    k, probabilities = bins(sigma2, DRAWS)
    assert chisquare(binned(ours(sigma2), k), DRAWS * probabilities).pvalue > ALPHA


@pytest.mark.parametrize("sigma2", SIGMA2, ids=str)
@pytest.mark.parametrize("k", TAIL_SIGMAS)
def test_tails_match_the_pmf_sums(sigma2, k):
    z, p = pmf(sigma2)
    t = math.ceil(k * math.sqrt(sigma2))
    tail = float(p[np.abs(z) >= t].sum())
    hits = int(np.sum(np.abs(ours(sigma2)) >= t))
    assert binomtest(hits, DRAWS, tail).pvalue > ALPHA, f"P(|Z| ≥ {t}) = {tail:.4g}, seen {hits / DRAWS:.4g}"


@pytest.mark.parametrize("sigma2", SIGMA2, ids=str)
def test_symmetric(sigma2):
    draws = ours(sigma2)
    positive, negative = int(np.sum(draws > 0)), int(np.sum(draws < 0))
    assert positive + negative > 0.2 * DRAWS  # even at σ² = 1/4, Pr[Z ≠ 0] ≈ 0.27
    assert binomtest(positive, positive + negative, 0.5).pvalue > ALPHA


@pytest.mark.parametrize("sigma2", WITH_OPENDP, ids=str)
def test_matches_opendp(sigma2):
    k, _ = bins(sigma2, OPENDP_DRAWS)
    table = np.vstack([binned(ours(sigma2), k), binned(opendp(sigma2), k)])
    _, p_value, _, expected = chi2_contingency(table, correction=False)
    assert expected.min() >= MIN_EXPECTED
    assert p_value > ALPHA


@pytest.mark.parametrize("source", ["ours", "opendp"])
@pytest.mark.parametrize("sigma2", WITH_OPENDP, ids=str)
def test_both_match_the_exact_pmf(sigma2, source):
    draws = ours(sigma2) if source == "ours" else opendp(sigma2)
    k, probabilities = bins(sigma2, draws.size)
    assert chisquare(binned(draws, k), draws.size * probabilities).pvalue > ALPHA


def test_the_tests_reject_a_wrong_sigma2():
    """Power: σ² = 1 draws against the pmf of σ² = 1.1 (10 % more variance), and against σ halved."""
    for wrong in (Fraction(11, 10), Fraction(1, 4)):
        k, probabilities = bins(wrong, DRAWS)
        assert chisquare(binned(ours(Fraction(1)), k), DRAWS * probabilities).pvalue < ALPHA


def test_lattice_is_exact_when_it_fits_and_rounds_up_otherwise():
    assert gaussian_lattice(Fraction(7, 3)) == (7, 3, 2)
    assert gaussian_lattice(Fraction(10_000)) == (10_000, 1, 101)
    float_sigma2 = Fraction(1 / (2 * 0.013))  # a float's ρ: a 2^-46 denominator
    a, b, t = gaussian_lattice(float_sigma2)
    assert 2**20 <= b < float_sigma2.denominator and float_sigma2 <= Fraction(a, b) < float_sigma2 + Fraction(1, b)
    assert t == math.isqrt(a // b) + 1 and 2 * a * b * t * t < 2**56
    with pytest.raises(ValueError, match="sigma2"):
        gaussian_lattice(Fraction(0))


def test_a_huge_sigma2_uses_exact_python_integers():
    """σ = 10^5 does not fit the 56-bit coins: the exact Python-integer path.  Its variance (≈ σ²: the
    discrete and continuous variances differ by < e^−10^10) against the χ²_n interval of n draws."""
    sigma2, n = Fraction(10**10), 2000
    assert gaussian_lattice(sigma2)[:2] == (10**10, 1)
    draws = discrete_gaussian(sigma2, n, SeededRandomSource(7)).astype(np.float64)
    statistic = float(np.sum(draws**2)) / float(sigma2)
    assert chi2.ppf(ALPHA / 2, n) < statistic < chi2.ppf(1 - ALPHA / 2, n)
