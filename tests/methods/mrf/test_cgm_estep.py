"""The exact CGM E-step (dual of ICML 2017, Eq. 6) against a direct optimisation, and EM built on it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import kl_divergence, random_log_linear
from scipy.optimize import minimize

from privbayes.inference import Domain
from privbayes.methods.mrf import (
    CGMOptions,
    LogLinearModel,
    NoisyStatistics,
    cgm_em,
    measure,
    naive_mle,
)
from privbayes.methods.mrf.estep import dual_estep
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import random_source


def _primal_by_enumeration(model: LogLinearModel, stats: NoisyStatistics) -> np.ndarray:
    """Eq. 6 solved directly over joint distributions q(x) (all |X|^T states): maximise
    θᵀν(q) + H(q) − Σ|y/N − ν(q)|/b, ν(q) the clique marginals of q (per individual, i.e. Eq. 6 / N).
    Its maximiser is the maximum-entropy q with marginals n*/N, so ν = n*/N.  The L1 term is made
    smooth with slacks s ≥ ±(y/N − ν) and the problem handed to SLSQP.  Returns ν as one vector."""
    states = list(itertools.product(*(range(k) for k in model.domain.sizes)))
    rows = []
    for clique in model.cliques:
        for cell in itertools.product(*(range(model.domain.sizes[v]) for v in clique)):
            rows.append([float(all(x[v] == c for v, c in zip(clique, cell))) for x in states])
    marg = np.array(rows)  # cells × states
    theta = np.concatenate([t.ravel() for t in model.theta])
    y = np.concatenate([t.ravel() for t in stats.tables]) / stats.n
    k, m = len(states), len(y)

    def negative(z):
        q, s = z[:k], z[k:]
        value = theta @ (marg @ q) - q @ np.log(q) - s.sum() / stats.scale
        grad = np.concatenate([-(marg.T @ theta - np.log(q) - 1), np.full(m, 1 / stats.scale)])
        return -value, grad

    residual = lambda z: y - marg @ z[:k]  # noqa: E731
    constraints = [{"type": "eq", "fun": lambda z: z[:k].sum() - 1, "jac": lambda z: np.r_[np.ones(k), np.zeros(m)]},
                   {"type": "ineq", "fun": lambda z: z[k:] - residual(z), "jac": lambda z: np.c_[marg, np.eye(m)]},
                   {"type": "ineq", "fun": lambda z: z[k:] + residual(z), "jac": lambda z: np.c_[-marg, np.eye(m)]}]
    z0 = np.r_[np.full(k, 1 / k), np.abs(y - marg @ np.full(k, 1 / k)) + 1e-3]
    result = minimize(negative, z0, jac=True, method="SLSQP", constraints=constraints,
                      bounds=[(1e-12, 1)] * k + [(0, None)] * m, options={"maxiter": 2000, "ftol": 1e-13})
    assert result.success, result.message
    return marg @ result.x[:k]


@pytest.mark.parametrize("sizes, cliques", [((3, 3, 2), [(0, 1), (1, 2)]),
                                            ((2, 2, 2, 2), [(0, 1), (1, 2), (2, 3), (3, 0)])],
                         ids=["chain", "cycle"])
def test_dual_estep_matches_direct_optimisation_of_eq6(sizes, cliques):
    theta = random_log_linear(sizes, cliques, seed=1)
    other = random_log_linear(sizes, cliques, seed=2)
    n, scale = 1000.0, 1.5
    rng = np.random.default_rng(3)
    y = tuple(n * m + rng.laplace(0, scale, m.shape) for m in other.marginals())
    stats = NoisyStatistics(theta.cliques, y, scale, n, "add-remove")
    step = dual_estep(theta, stats, tol=1e-7)
    got = np.concatenate([c.ravel() for c in step.counts]) / n
    want = _primal_by_enumeration(theta, stats)
    # Both solve a strictly concave problem in ν (entropy of the max-ent q); SLSQP's ftol 1e-14 on an
    # objective of size ≈ 1 leaves ν accurate to ≈ 1e-6; 1e-5 is ten times that (1e-14 is below SLSQP's
    # reach in SciPy 1.17: it stops with status 8 at the optimum).
    np.testing.assert_allclose(got, want, atol=1e-5)
    g = np.concatenate([t.ravel() for t in step.gradient])
    r = np.concatenate([t.ravel() for t in y]) - got * n
    assert np.all(np.abs(g) <= 1 / scale + 1e-12)
    # Optimality (complementary slackness): a cell not fitted exactly has g at the bound with sign(y − n).
    off = np.abs(r) > 1e-3
    assert off.any() and (~off).any()  # the case exercises both kinds of cells
    np.testing.assert_allclose(g[off], np.sign(r[off]) / scale, rtol=1e-6)


def test_noise_free_measurements_give_back_the_true_statistics():
    truth = random_log_linear((3, 2, 3, 2), [(0, 1), (1, 2), (2, 3)], seed=4)
    n = 50_000.0
    exact = tuple(n * m for m in truth.marginals())
    start = LogLinearModel.uniform(truth.domain, truth.cliques)
    # E-step: with 1/b larger than the distance from θ to the true θ, the box does not bind, so the
    # E-step fits y exactly (to the solver's tolerance tol·b = 1e-9 counts).
    tight = NoisyStatistics(truth.cliques, exact, 0.01, n, "add-remove")
    step = dual_estep(start, tight, tol=1e-7)
    for got, want in zip(step.counts, exact):
        np.testing.assert_allclose(got, want, atol=1e-6)
    # EM with a binding box (b = 50: steps of ≤ 0.02 in θ): over-relaxed EM reaches the fixed point
    # N·µ(θ) = y, where the E-step needs g* ≈ 0 and em_tol stops it; the marginals then match to
    # within the E-step tolerance (1e-4·b = 0.005 counts of 50 000 → 1e-7).
    loose = NoisyStatistics(truth.cliques, exact, 50.0, n, "add-remove")
    fitted, trace = cgm_em(start, loose, CGMOptions(estep="dual", discrepancy=False, em_max_iters=300, estep_tol=1e-4))
    assert trace.stopped_by == "em_tol"
    for got, want in zip(fitted.marginals(), truth.marginals()):
        np.testing.assert_allclose(got, want, atol=2e-5)


def test_cgm_beats_naive_mle_where_the_nlbp_path_lost():
    """High signal (N = 10⁵, ε = 1, add-remove: b = 5 counts against ≈ 10⁴ per cell) on a 4-node,
    5-edge graph with |X| = 3 and Dirichlet(1) edge potentials (the ICML 2017 §4.1 recipe, smaller).
    The old default (one NLBP sweep per EM step, steps of ≤ 1/b) hits its 200-iteration cap far from
    the fit; the dual E-step with over-relaxed EM reaches the discrepancy point.  Measured (seed 1):
    KL naive 5.7e-4, NLBP 2.7e-2 (200 iterations), dual 2.3e-4 (9 iterations).  The assertions
    are the orderings, not the values."""
    cliques = [(0, 1), (1, 2), (2, 3), (0, 2), (1, 3)]
    rng = np.random.default_rng(1)
    domain = Domain((3, 3, 3, 3))
    truth = LogLinearModel(domain, tuple(cliques), tuple(np.log(rng.dirichlet(np.ones(9))).reshape(3, 3)
                                                         for _ in cliques))
    start = LogLinearModel.uniform(domain, cliques)
    rows = truth.sample(100_000, rng)
    counts = [np.bincount(np.ravel_multi_index(tuple(rows[:, v] for v in c), (3, 3)), minlength=9).reshape(3, 3)
              for c in cliques]
    stats = measure(counts, 100_000, cliques, [str(c) for c in cliques], 1.0, "add-remove", Accountant(1.0),
                    random_source(1))
    naive = kl_divergence(truth, naive_mle(start, stats, 1e-4))
    dual, trace = cgm_em(start, stats)
    assert trace.stopped_by != "em_max_iters"
    assert kl_divergence(truth, dual) <= naive
    assert kl_divergence(truth, cgm_em(start, stats, CGMOptions(estep="nlbp"))[0]) > naive
