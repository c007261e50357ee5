"""Issue 30: CGM-EM's fixed point (checked by enumeration), the noise model EM assumes against the
mechanism's, and the calibrated default estimator (``estimation="auto"``)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from helpers import categorical_schema, correlated_frame

from privbayes import PrivateMRF
from privbayes.inference import Domain
from privbayes.methods.mrf import (
    CGMOptions,
    LogLinearModel,
    NoisyStatistics,
    cgm_em,
    measure,
)
from privbayes.methods.mrf.estep import dual_estep
from privbayes.methods.mrf.estimation import (
    DETECTION_SHARE,
    LAMBDA_MIDDLE,
    NOISE_SHARE_WEIGHT,
    RATIO_HIGH,
    calibrated_lambda,
    calibrated_mle,
    noise_share,
    noise_to_count,
    public_lambda,
)
from privbayes.methods.mrf.measurements import per_cell_scale
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import DiscreteLaplace, discrete_laplace_variance
from privbayes.privacy.samplers import lattice_scale, random_source


def _min_l1_by_enumeration(domain: Domain, cliques, tables, n: int) -> int:
    """min over integer data sets of n rows (all joint count tables) of Σ_C ‖y_C − n_C‖₁.  For one clique,
    or two cliques of a chain, the marginalisation matrix is a bipartite incidence matrix (totally
    unimodular), so this integer minimum is also the minimum over the real polytope M_N."""
    states = list(itertools.product(*(range(k) for k in domain.sizes)))
    slots = n + len(states) - 1
    bars = np.array(list(itertools.combinations(range(slots), len(states) - 1)))  # stars and bars
    bounds = np.c_[np.full(len(bars), -1), bars, np.full(len(bars), slots)]
    joints = np.diff(bounds, axis=1) - 1  # every data set of n rows, as counts over the states
    loss = np.zeros(len(joints), dtype=np.int64)
    for clique, y in zip(cliques, tables):
        cells = [int(np.ravel_multi_index(tuple(state[v] for v in clique), y.shape)) for state in states]
        marginal = np.zeros((len(states), y.size), dtype=np.int64)
        marginal[np.arange(len(states)), cells] = 1
        loss += np.abs(joints @ marginal - y.ravel()).sum(axis=1)
    return int(loss.min())


@pytest.mark.parametrize("sizes, cliques, tables", [
    ((2, 2), [(0, 1)], [np.array([[5, 4], [2, 3]])]),
    ((2, 2, 2), [(0, 1), (1, 2)], [np.array([[4, 2], [1, 5]]), np.array([[3, 1], [2, 7]])]),
], ids=["one-clique", "chain"])
def test_cgm_em_reaches_the_fixed_point_found_by_enumeration(sizes, cliques, tables):
    """Run to convergence (no discrepancy stop), CGM-EM's objective ℓ(θ) = max_n θᵀn − N·A(θ) + H(n) −
    ‖y − n‖₁/b (Eq. 5 maximised over n) tends to its supremum −min_{n ∈ M_N} ‖y − n‖₁/b: the E-step at the
    fixed point returns the model's own statistics, so EM's fixed point is the L1 fit of the noisy tables
    (docs/undirected.md, "What CGM-EM converges to").  The minimum is found by enumerating every data set
    of N = 12 rows; y was chosen so that the L1 fit is interior (EM reaches it with finite θ)."""
    n, scale = 12, 2.0
    domain = Domain(sizes)
    stats = NoisyStatistics(tuple(cliques), tuple(t.astype(np.int64) for t in tables), scale, float(n), "add-remove")
    best = _min_l1_by_enumeration(domain, cliques, tables, n)
    start = LogLinearModel.uniform(domain, cliques)
    options = CGMOptions(estep="dual", discrepancy=False, em_tol=1e-7, em_max_iters=400, estep_tol=1e-7)
    fitted, trace = cgm_em(start, stats, options)
    assert trace.stopped_by == "em_tol"
    step = dual_estep(fitted, stats, tol=1e-9)
    # ℓ(θ) ≤ −best/b for every θ; EM's E-steps stop at 1e-7·b per cell, so ℓ is reached to ≈ m·1e-7.
    assert step.log_likelihood <= -best / scale + 1e-9
    assert step.log_likelihood == pytest.approx(-best / scale, abs=1e-5)
    # A fixed point: the E-step at θ moves no statistic (n* = N·µ(θ)), and N·µ(θ) attains the L1 minimum.
    for moved, own in zip(step.counts, step.model_counts):
        np.testing.assert_allclose(moved, own, atol=1e-4)
    assert sum(float(np.abs(y - m).sum()) for y, m in zip(tables, step.model_counts)) == pytest.approx(best, abs=1e-4)
    # The paper's stopping rule ("while not converged") and ours differ only in where the path stops:
    # the default (discrepancy) stop is an iterate of the same path, never past the fixed point's value.
    early, _ = cgm_em(start, stats, CGMOptions(estep="dual"))
    assert dual_estep(early, stats, tol=1e-9).log_likelihood <= step.log_likelihood + 1e-9


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
@pytest.mark.parametrize("epsilon, n_cliques", [(1.0, 5), (0.1, 5), (0.37, 3)])
def test_the_noise_model_em_uses_is_the_mechanisms(relation, epsilon, n_cliques):
    """EM's b (and the discrepancy stop's variance) is the declared distribution of the mechanism that
    released the tables: discrete Laplace with pmf ∝ exp(−|z|/b), b = Δ/(ε/|C|), Δ the relation's
    per-table sensitivity (2 replace-one, 1 add-remove); the exact sampler rounds b up by < 2⁻²⁰."""
    cliques = [(i, i + 1) for i in range(n_cliques)]
    accountant = Accountant(epsilon)
    counts = [np.zeros((3, 3), dtype=np.int64)] * n_cliques
    stats = measure(counts, 1000, cliques, [str(c) for c in cliques], epsilon, relation, accountant,  # type: ignore[arg-type]
                    random_source(0))
    entry = accountant.ledger[0]
    mechanism = DiscreteLaplace(Fraction(entry.epsilon), Fraction(entry.sensitivity))
    assert entry.sensitivity == {"replace-one": 2, "add-remove": 1}[relation]
    assert stats.scale == float(mechanism.scale) == float(per_cell_scale(epsilon, n_cliques, relation))  # type: ignore[arg-type]
    t, s = lattice_scale(mechanism.scale)
    assert 0 <= Fraction(t, s) - mechanism.scale < mechanism.scale * Fraction(1, 2**20)
    # The variance EM's stop uses is the pmf's: Σ z² e^{−|z|/b} / Σ e^{−|z|/b}, summed directly.
    z = np.arange(-int(80 * stats.scale) - 10, int(80 * stats.scale) + 11, dtype=np.float64)
    pmf = np.exp(-np.abs(z) / stats.scale)
    assert discrete_laplace_variance(stats.scale) == pytest.approx(float((z ** 2 * pmf).sum() / pmf.sum()), rel=1e-10)


def test_released_noise_follows_the_declared_pmf():
    """Goodness of fit of 60,000 released cells (true count 0) to pmf ∝ exp(−|z|/b), b = 2·3/0.5 = 12
    (replace-one, 3 cliques): Pearson χ² over |z| in bins of width 4 up to 48 and a tail bin (13 bins,
    12 degrees of freedom; the 0.999 quantile is 32.9), and the sign is symmetric to 6 standard errors."""
    counts = [np.zeros((100, 200), dtype=np.int64)] * 3
    stats = measure(counts, 10_000, [(0, 1), (1, 2), (2, 3)], ["x", "y", "z"], 0.5, "replace-one",
                    Accountant(0.5), random_source(11))
    noise = np.concatenate([t.ravel() for t in stats.tables])
    b = stats.scale
    q = math.exp(-1 / b)
    def p_abs(k):
        return (1 - q) / (1 + q) * (1 if k == 0 else 2 * q ** k)
    edges = list(range(0, 49, 4))
    expected = [sum(p_abs(k) for k in range(lo, lo + 4)) for lo in edges[:-1]]
    expected.append(1 - sum(expected))
    observed = [np.sum((np.abs(noise) >= lo) & (np.abs(noise) < lo + 4)) for lo in edges[:-1]]
    observed.append(np.sum(np.abs(noise) >= edges[-1]))
    total = noise.size
    chi2 = sum((o - total * e) ** 2 / (total * e) for o, e in zip(observed, expected))
    assert chi2 < 32.9
    nonzero = np.count_nonzero(noise)
    assert abs(np.sum(noise > 0) - nonzero / 2) < 6 * math.sqrt(nonzero / 4)


def _stats(n: float, scale: float, shapes, seed: int = 0) -> NoisyStatistics:
    rng = np.random.default_rng(seed)
    cliques = tuple((i, i + 1) for i in range(len(shapes)))
    tables = tuple(rng.integers(-5, 50, size=s) for s in shapes)
    return NoisyStatistics(cliques, tables, scale, n, "replace-one")


def test_public_lambda_is_a_function_of_public_inputs():
    """Rule 1's λ_C depends on b, |X_C| and N only (never on the noisy counts), is continuous and non-decreasing
    as N falls, equals naive MLE's 1e-4 where b/N ≥ 10⁻³ and x_C ≤ 0.25, 0.1·b/N below that, and grows
    as (x_C/0.25)^2.5 above it, per clique."""
    shapes = [(4, 4), (8, 8)]
    a, b = _stats(5_000.0, 10.0, shapes, seed=1), _stats(5_000.0, 10.0, shapes, seed=2)
    assert public_lambda(a) == public_lambda(b)
    sigma = math.sqrt(discrete_laplace_variance(10.0))
    assert noise_to_count(a) == pytest.approx((sigma * 16 / 5_000, sigma * 64 / 5_000))
    assert public_lambda(a) == (LAMBDA_MIDDLE, LAMBDA_MIDDLE)  # x = 0.045 and 0.18, b/N = 0.002
    small = _stats(2_000.0, 10.0, shapes)  # x = 0.11 and 0.45
    assert public_lambda(small)[0] == LAMBDA_MIDDLE
    assert public_lambda(small)[1] == pytest.approx(LAMBDA_MIDDLE * (sigma * 64 / 2_000 / RATIO_HIGH) ** 2.5)
    assert public_lambda(_stats(1e6, 10.0, shapes))[0] == pytest.approx(DETECTION_SHARE * 10.0 / 1e6)
    ns, lams = np.geomspace(50, 5e7, 400), []
    for n in ns:
        lams.append(public_lambda(_stats(float(n), 10.0, [(4, 4)]))[0])
    lams = np.array(lams)[::-1]  # as N falls, x and b/N grow
    xs = (sigma * 16 / ns)[::-1]
    assert np.all(np.diff(lams) >= 0)
    assert np.all(lams[(xs <= RATIO_HIGH) & (10.0 / ns[::-1] >= 1e-3)] == LAMBDA_MIDDLE)
    # Continuity: neighbouring grid points differ by at most their ratio of x to the power 2.5.
    assert np.all(lams[1:] / lams[:-1] <= (xs[1:] / xs[:-1]) ** 2.5 * (1 + 1e-12))


def test_calibrated_lambda_adds_only_the_noise_share_term():
    """Rule 2: λ_C = max(rule 1's λ_C, base·1000·w²) where x_C < 1, rule 1's elsewhere (w the pooled noise share of
    the released tables); equal to rule 1's where the tables carry a clear signal."""
    shapes = [(4, 4), (8, 8)]
    for n in (300.0, 1_000.0, 2_000.0, 5_000.0, 1e6):
        stats = _stats(n, 10.0, shapes, seed=3)
        base = min(LAMBDA_MIDDLE, DETECTION_SHARE * 10.0 / n)
        least = base * NOISE_SHARE_WEIGHT * noise_share(stats) ** 2
        expected = [max(lam, least) if x < 1 else lam for lam, x in zip(public_lambda(stats), noise_to_count(stats))]
        assert calibrated_lambda(stats) == pytest.approx(tuple(expected))
    both = _stats(1_000.0, 10.0, shapes, seed=3)  # x = 0.23 and 0.90, w = 0.29: the term raises both
    assert all(got > rule1 for got, rule1 in zip(calibrated_lambda(both), public_lambda(both)))
    one = _stats(300.0, 10.0, shapes, seed=3)  # x = 0.75 and 3.0, w = 0.42: only the first
    assert calibrated_lambda(one)[0] > public_lambda(one)[0] and calibrated_lambda(one)[1] == public_lambda(one)[1]
    signal = _stats(5_000.0, 10.0, shapes, seed=1)  # mean count 22 per cell against N/|X_C| = 312 and 78
    assert noise_share(signal) < 0.02  # 1000·w² < 0.4: below rule 1
    assert calibrated_lambda(signal) == public_lambda(signal)


def test_auto_is_the_default_and_is_naive_mle_with_the_calibrated_lambda():
    """``PrivateMRF()`` without ``estimation`` fits ``auto``: the same noisy tables (same seed) as naive
    MLE, then MLE of the floored marginals with λ_C from :func:`calibrated_lambda` — post-processing,
    same ledger."""
    frame = correlated_frame([2, 3, 2, 3], 800, seed=0)
    schema = categorical_schema([2, 3, 2, 3])
    cliques = [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]
    auto = PrivateMRF(cliques, 0.2, random_state=5).fit(frame, schema)
    naive = PrivateMRF(cliques, 0.2, estimation="naive", random_state=5).fit(frame, schema)
    assert auto.get_params()["estimation"] == "auto"
    assert auto.ledger_ == naive.ledger_
    # Rebuild the noisy statistics exactly as fit does (same seed), then the calibrated λ.
    from privbayes import counting

    table = counting.open(frame, schema)
    index = [tuple(schema.index(a) for a in c) for c in cliques]
    stats = measure([table.counts(list(c)) for c in index], table.n, index, [",".join(c) for c in cliques],
                    Fraction(1, 5),
                    "replace-one", Accountant(Fraction(1, 5)), random_source(5))
    start = LogLinearModel.uniform(Domain((2, 3, 2, 3)), index)
    expected = calibrated_mle(start, stats)
    for got, want in zip(auto.released_.model.theta, expected.theta):
        np.testing.assert_allclose(got, want)
    assert min(calibrated_lambda(stats)) > 1e-4  # n = 800 at ε = 0.2: noise sd 42 per cell ≫ the counts
    algorithm = auto.privacy_report()["algorithm"]
    assert algorithm.startswith("noisy sufficient statistics + naive MLE of the projected marginals")


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_both_estimator_families_weigh_a_release_by_the_mechanisms_variance(relation):
    """PrivBayes's noisy tables and the MRF's noisy statistics carry the variance of the mechanism that
    released them (one noise model: ``DiscreteLaplace.variance``), so the consistent estimator and the MRF
    estimators weigh the same release alike."""
    from privbayes.estimation.measurements import NoisyTable
    from privbayes.privacy.neighbours import neighbours

    epsilon, cliques = Fraction(3, 10), ((0, 1), (1, 2))
    mechanism = DiscreteLaplace(epsilon / len(cliques), neighbours(relation).count_sensitivity)
    tables = tuple(np.zeros((2, 2), dtype=np.int64) for _ in cliques)
    stats = NoisyStatistics(cliques, tables, float(per_cell_scale(epsilon, len(cliques), relation)), 100.0, relation)
    table = NoisyTable(0, ((0, 0), (1, 0)), tables[0], mechanism.scale)
    assert stats.variance == pytest.approx(mechanism.variance, rel=1e-12)
    assert table.variance == pytest.approx(mechanism.variance, rel=1e-12)
    assert mechanism.variance == pytest.approx(2 * float(mechanism.scale) ** 2, rel=0.05)  # ≈ 2b² for b ≫ 1
