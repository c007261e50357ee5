"""Estimating θ from noisy sufficient statistics: naive MLE and CGM-EM (ICML 2017, §3).

* :func:`naive_mle` (§3.1): project each pseudo-marginal y_C/N onto the simplex (Duchi et
  al. 2008), then regularised MLE as if the projected marginals were data marginals.
* :func:`cgm_em` (§3.2, Alg. 2): EM over the latent true statistics n.  The E-step finds
  the approximate MAP n* = argmax_{n ∈ M_N} θᵀn + H(n) + log p(y | n) (Eq. 6) by
  non-linear belief propagation (:func:`nlbp`, Alg. 1); the M-step maximises
  θᵀn* − N·A(θ) − Nλ‖θ‖².  With Laplace noise of scale b, ∇_n log p(y | n) =
  sign(y − n)/b (a subgradient; 0 where n = y).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privbayes.undirected.measurements import NoisyStatistics
from privbayes.undirected.mle import fit_mle
from privbayes.undirected.model import LogLinearModel, clique_marginals
from privbayes.undirected.projection import project_simplex


def naive_mle(model: LogLinearModel, stats: NoisyStatistics, lam: float, *, project: bool = True) -> LogLinearModel:
    """Naive MLE from (projected) noisy marginals, started at ``model``'s θ."""
    target = stats.pseudo_marginals()
    if project:
        target = [project_simplex(t) for t in target]
    return fit_mle(model, target, lam)


@dataclass(frozen=True)
class CGMOptions:
    """Knobs of Alg. 1-2: NLBP damping α and convergence test, EM stopping rules, M-step λ.

    ``discrepancy`` stops EM once the fitted statistics explain the noisy ones to within the
    expected size of the noise, ‖y − n‖₁ ≤ (number of cells)·b (Morozov's discrepancy
    principle): past that point EM fits the noise, driving the cells whose noisy count is
    negative towards probability zero (the MAP-EM fixed point is an L1 fit of y).
    ``nlbp_max_iters = 1`` makes each E-step one warm-started NLBP sweep (a partial E-step,
    as in incremental EM, Neal & Hinton 1998): as accurate per EM iteration in our runs and
    several times faster; ``em_max_iters`` bounds the run (each EM step moves θ by ≤ 1/b).
    """

    damping: float = 0.5
    nlbp_tol: float = 1e-6
    nlbp_max_iters: int = 1
    em_tol: float = 0.05
    em_max_iters: int = 200
    lam: float = 0.0
    discrepancy: bool = True

    def __post_init__(self) -> None:
        if not 0 < self.damping <= 1:
            raise ValueError(f"damping ({self.damping!r}) must be in (0, 1]")
        if not self.nlbp_tol > 0 or not self.em_tol > 0 or not self.lam >= 0:
            raise ValueError("nlbp_tol and em_tol must be > 0 and lam >= 0")
        if self.nlbp_max_iters < 1 or self.em_max_iters < 1:
            raise ValueError("nlbp_max_iters and em_max_iters must be >= 1")


@dataclass(frozen=True)
class NLBPResult:
    """The E-step's statistics n (counts) and the damped average g of ∇_n log p(y | n)."""

    counts: tuple[np.ndarray, ...]
    gradient: tuple[np.ndarray, ...]
    iterations: int


def nlbp(model: LogLinearModel, stats: NoisyStatistics, counts: tuple[np.ndarray, ...],
         gradient: tuple[np.ndarray, ...], options: CGMOptions) -> NLBPResult:
    """Alg. 1: θ' ← θ + ∇_n log p(y | n); n' ← N·BP(θ'); n ← (1 − α)n + αn', until n settles.

    Warm-started from the previous E-step's ``counts``.  The gradient of the Laplace
    log-density is the sign pattern sign(y − n)/b; we keep its damped average g with the
    same α, which at a fixed point is the subgradient that balances the cells where n = y.
    """
    n_total, scale, alpha = stats.n, stats.scale, options.damping
    iteration = 0
    for iteration in range(1, options.nlbp_max_iters + 1):
        step = tuple(np.sign(y - c) / scale for y, c in zip(stats.tables, counts))
        perturbed = tuple(t + s for t, s in zip(model.theta, step))
        target = clique_marginals(model.engine.infer(perturbed), model.cliques)
        updated = tuple((1 - alpha) * c + alpha * n_total * m for c, m in zip(counts, target))
        gradient = tuple((1 - alpha) * g + alpha * s for g, s in zip(gradient, step))
        change = max(float(np.max(np.abs(u - c))) for u, c in zip(updated, counts)) / n_total
        counts = updated
        if change < options.nlbp_tol:
            break
    return NLBPResult(counts, gradient, iteration)


@dataclass(frozen=True)
class EMTrace:
    """How EM ended: iterations, the stopping rule that fired, NLBP steps in total."""

    iterations: int
    stopped_by: str
    nlbp_iterations: int


def cgm_em(model: LogLinearModel, stats: NoisyStatistics, options: CGMOptions = CGMOptions()) -> tuple[LogLinearModel, EMTrace]:
    """Alg. 2 from ``model`` (the uniform model in :class:`PrivateMRF`: "initialise θ arbitrarily").

    M-step: for λ = 0 it is θ ← θ + g in closed form — at the NLBP fixed point n* = N·µ(θ + g),
    and the model with parameters θ + g is the unique one with those marginals (Prop. 2),
    so θ + g maximises θᵀn* − N·A(θ).  For λ > 0, L-BFGS starts from θ + g.  EM stops when
    the step max|g|·b falls below ``em_tol`` (the sign patterns cancel), by the discrepancy
    principle (see :class:`CGMOptions`), or after ``em_max_iters``.
    """
    counts = tuple(stats.n * m for m in model.marginals())
    gradient = tuple(np.zeros_like(c) for c in counts)
    noise_l1 = sum(t.size for t in stats.tables) * stats.scale
    total_nlbp, stopped_by, iteration = 0, "em_max_iters", 0
    for iteration in range(1, options.em_max_iters + 1):
        e_step = nlbp(model, stats, counts, gradient, options)
        counts, gradient, total_nlbp = e_step.counts, e_step.gradient, total_nlbp + e_step.iterations
        moved = model.with_theta([t + g for t, g in zip(model.theta, gradient)])
        model = fit_mle(moved, [c / stats.n for c in counts], options.lam) if options.lam > 0 else moved
        if max(float(np.max(np.abs(g))) for g in gradient) * stats.scale < options.em_tol:
            stopped_by = "em_tol"
            break
        residual = sum(float(np.abs(y - c).sum()) for y, c in zip(stats.tables, counts))
        if options.discrepancy and residual <= noise_l1:
            stopped_by = "discrepancy"
            break
    return model, EMTrace(iteration, stopped_by, total_nlbp)
