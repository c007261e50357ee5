"""Estimating θ from noisy sufficient statistics: naive MLE and CGM-EM (ICML 2017, §3).

* :func:`naive_mle` (§3.1): project each pseudo-marginal y_C/N onto the simplex (Duchi et
  al. 2008), then regularised MLE as if the projected marginals were data marginals.
* :func:`calibrated_mle` (the library's default, ``auto``, rule 4): MLE of the projected marginals with the cells
  the projection zeroed raised to a floor at the detection limit (:func:`floored_marginals`), mixed per clique with
  CGM-EM's marginals in a share η_C set by the clique's noise-to-count ratio (:func:`mixture_shares`,
  :func:`mixed_targets`), and an L2 weight λ_C set per clique (:func:`calibrated_lambda`), all from public inputs
  and the released tables only (post-processing); :func:`floored_mle` is rule 2, the same without CGM-EM.
* :func:`cgm_em` (§3.2, Alg. 2): EM over the latent true statistics n.  The E-step finds
  the approximate MAP n* = argmax_{n ∈ M_N} θᵀn + H(n) + log p(y | n) (Eq. 6), exactly through
  its dual on junction trees (:mod:`privbayes.methods.mrf.estep`) or by non-linear belief
  propagation (:func:`nlbp`, Alg. 1; loopy models); the M-step maximises
  θᵀn* − N·A(θ) − Nλ‖θ‖².  With Laplace noise of scale b, ∇_n log p(y | n) =
  sign(y − n)/b (a subgradient; 0 where n = y).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from privbayes.inference import Beliefs
from privbayes.inference.projection import project_simplex
from privbayes.methods.mrf.estep import DualEStep, dual_estep
from privbayes.methods.mrf.measurements import NoisyStatistics
from privbayes.methods.mrf.mle import fit_mle
from privbayes.methods.mrf.model import LogLinearModel, clique_marginals


def naive_mle(model: LogLinearModel, stats: NoisyStatistics, lam: float | Sequence[float], *,
              project: bool = True) -> LogLinearModel:
    """Naive MLE from (projected) noisy marginals, started at ``model``'s θ (``lam``: one λ or one per clique)."""
    target = stats.pseudo_marginals()
    if project:
        target = [project_simplex(t) for t in target]
    return fit_mle(model, target, lam)


LAMBDA_MIDDLE = 1e-4
"""Naive MLE's λ (the Fig. 1(c) curve): the calibrated λ never exceeds it unless the noise dominates."""
DETECTION_SHARE = 0.1
"""Below naive MLE's λ, the calibrated λ is this share of the detection limit b/N (see below)."""
RATIO_HIGH = 0.25
"""The noise-to-count ratio above which the calibrated λ grows."""
GROWTH = 2.5
"""Above :data:`RATIO_HIGH` λ grows as (x/0.25)^2.5."""


def noise_to_count(stats: NoisyStatistics) -> tuple[float, ...]:
    """x_C = σ·|X_C|/N per clique: the noise's standard deviation per cell (σ² the exact discrete-Laplace
    variance of the released tables) over the mean count per cell of table C.  Public: σ comes from ε,
    the relation and the number of cliques, |X_C| from the schema, and N is the public n (replace-one) or
    the N̂ already estimated from the noisy tables (add-remove: post-processing)."""
    sigma = math.sqrt(stats.variance)
    return tuple(sigma * table.size / stats.n for table in stats.tables)


NOISE_SHARE_WEIGHT = 1000.0
"""λ_C is at least this times w² (w the pooled :func:`noise_share`) times the base (:func:`calibrated_lambda`)."""
NOISE_SHARE_BELOW = 1.0
"""The noise-share term applies to cliques with x_C below this (see :func:`calibrated_lambda`)."""


def noise_share(stats: NoisyStatistics) -> float:
    """w = min(1, Σ_C |X_C|·σ² / Σ_C ‖y_C − N/|X_C|‖²): the share of the released tables' spread around uniform
    that the noise alone explains (1: the tables look like pure noise around uniform; near 0: the signal dominates).
    The James–Stein weight towards uniform, pooled over the tables.  Post-processing of released values: y_C, σ
    from b, and N the public n or the N̂ estimated from the noisy tables."""
    expected = sum(table.size * stats.variance for table in stats.tables)
    spread = sum(float(np.sum((table - stats.n / table.size) ** 2)) for table in stats.tables)
    return 1.0 if spread <= expected else expected / spread


def public_lambda(stats: NoisyStatistics) -> tuple[float, ...]:
    """λ_C from public inputs only (rule 1, docs/decisions.md, "Private MRFs: the default estimator"): λ_C =
    min(1e-4, 0.1·b/N)·max(1, x_C/0.25)^2.5.

    * b/N, the noise scale over the number of individuals, is the detection limit in probability units:
      cells below it are projected to zero and then cost KL (Fig. 1(c)).  The L2 weight sets how far such
      cells are floored, so where b/N < 10⁻³ the weight follows it, λ = 0.1·b/N, instead of naive MLE's
      fixed 1e-4, which is then a bias that the data could resolve (third-order chain, N = 10⁶, ε = 1:
      KL 0.040 with 1e-4, 0.0040 with 2.4e-6).  On naive MLE's λ paths over eight model families the
      KL-optimal λ at x ≤ 0.1 was 0.03–0.2·b/N (median ≈ 0.12·b/N).
    * It stays at most 1e-4 wherever x_C = σ·|X_C|/N ≤ 0.25 (:func:`noise_to_count`): there the λ that
      minimises the pairwise-marginal TVD is ≤ 1e-4 on sparse models (Dirichlet(0.5) chains) and the
      KL-optimal one up to 10× larger, so we keep naive MLE's established value.
    * Above x_C = 0.25 the noise dominates and λ grows as (x_C/0.25)^2.5, to a near-uniform model where a
      cell's noise is many times its count (both TVD and KL then want heavy shrinkage).

    The constants come from naive MLE's λ paths on the generator suite (benchmarks/mrf_generators.py
    lamscan; docs/undirected.md, "CGM-EM against naive MLE, and the default estimator").
    """
    base = min(LAMBDA_MIDDLE, DETECTION_SHARE * stats.scale / stats.n)
    return tuple(base * max(1.0, x / RATIO_HIGH) ** GROWTH for x in noise_to_count(stats))


def calibrated_lambda(stats: NoisyStatistics) -> tuple[float, ...]:
    """λ_C of ``auto`` (rule 2): max(:func:`public_lambda`, min(1e-4, 0.1·b/N)·1000·w²) where x_C < 1, else rule 1's
    λ_C; w is the pooled :func:`noise_share` of the released tables.

    * Where the tables' spread around uniform is mostly noise (w large: near-uniform truths, or loopy ones whose
      projected tables disagree around each loop) the truth is closer to uniform than rule 1's weight assumes:
      KL 2.7× CGM's on flat stars and 4.6× on a mixed Potts lattice at N·ε = 10³.  The noise-share term is the
      empirical-Bayes cue for that, read from the released tables only.  It leaves truths whose spread is
      mostly signal (w ≤ 0.05, 1000·w² ≤ 2.5: chains, skewed stars, trees at N·ε = 10³) at rule 1's weight.
    * Where x_C ≥ 1 the noise per cell exceeds the mean count, w is near 1 for every truth and no longer tells
      flat from structured ones (K = 12 trees at x = 1.63: w ≈ 0.75; the term cost 20 % KL and 10 % TVD), and
      rule 1's λ already grows at least 16-fold; the term is left out there.

    1000 was chosen over 300 on the tuning families (docs/undirected.md, "A combined default").  Post-processing
    of public and released values only.
    """
    base = min(LAMBDA_MIDDLE, DETECTION_SHARE * stats.scale / stats.n)
    least = base * NOISE_SHARE_WEIGHT * noise_share(stats) ** 2
    return tuple(max(lam, least) if x < NOISE_SHARE_BELOW else lam
                 for lam, x in zip(public_lambda(stats), noise_to_count(stats)))


FLOOR_SHARE = 0.8
"""The floor of a zeroed cell, as a share of the detection limit b/N (docs/decisions.md, "MRF default estimate")."""
FLOOR_BAND = (0.1, 2.0)
"""The noise-to-count ratios x_C (from, below) at which a clique's zeroed cells are floored; outside none are."""
SPARSE_SHARE = 0.3
"""Where the projection zeroes more than this share of all the tables' cells, the floor falls as (0.3/z)²."""
SPARSE_POWER = 2.0
"""The power of that fall (see :func:`detection_floors`)."""


def zeroed_share(projected: Sequence[np.ndarray]) -> float:
    """z: the share of all the projected tables' cells that the simplex projection set to zero (post-processing)."""
    return sum(float(np.count_nonzero(table == 0)) for table in projected) / sum(table.size for table in projected)


def _floors(stats: NoisyStatistics, projected: Sequence[np.ndarray]) -> tuple[float, ...]:
    z = zeroed_share(projected)
    floor = FLOOR_SHARE * stats.scale / stats.n * (min(1.0, SPARSE_SHARE / z) ** SPARSE_POWER if z > 0 else 1.0)
    low, high = FLOOR_BAND
    return tuple(floor if low <= x < high else 0.0 for x in noise_to_count(stats))


def _projected(stats: NoisyStatistics) -> list[np.ndarray]:
    return [project_simplex(table) for table in stats.pseudo_marginals()]


def detection_floors(stats: NoisyStatistics) -> tuple[float, ...]:
    """Per clique, the probability that :func:`floored_marginals` gives a cell the projection zeroed:
    c·b/N·min(1, 0.3/z)² (c = :data:`FLOOR_SHARE`) where 0.1 ≤ x_C < 2 (:data:`FLOOR_BAND`), else 0 (no floor).
    b comes from ε, the relation and the number of cliques, x_C from b, |X_C| and N (the public n or the paid-for
    N̂), and z, the share of all the tables' cells the projection zeroed (:func:`zeroed_share`), from the released
    tables.

    * Where x_C < 0.1 the noise resolves counts well below the mean count per cell, a zeroed cell is mostly
      one the truth leaves (nearly) empty, and the calibrated λ already floors it at ≈ 0.1·b/N; a floor at
      the detection limit then costs KL (chains at N·ε = 10⁴: +9 %).
    * Where x_C ≥ 2 the noise per cell is twice the mean count and the calibrated λ, ≥ 180 times naive
      MLE's, already shrinks towards uniform; a floor on top costs TVD and KL (chains at x = 2.3: +15 % and
      +11 %; sparse trees at x = 3.5: +18 % and +31 %), while at x = 1.5 it still paid (trees: KL −43 %).
    * Where the projection zeroes many cells (z > 0.3) most of them are truly empty (a sparse truth: skewed
      stars zero half their cells at N·ε = 10³, their true mass ≈ 0.05·b each; chains zero 15 %, ≈ 0.5·b each),
      and a full floor moves mass onto them (skewed stars: 2.05× naive MLE's TVD); the floor falls as (0.3/z)².
      Pooled over the tables, z is steadier than one small table's share."""
    return _floors(stats, _projected(stats))


def floored_marginals(stats: NoisyStatistics) -> list[np.ndarray]:
    """Each pseudo-marginal projected onto the simplex (ICML 2017, §3.1), its zeroed cells raised to its
    clique's :func:`detection_floors` and the table renormalised.

    A cell whose noisy count lies below the projection's threshold is one the noise cannot tell from zero,
    not one known to be empty; naive MLE fits it with probability ≈ 0, which KL(true ‖ fitted) — the paper's
    metric — punishes without bound.  The floor puts such a cell at the detection limit instead, the size of
    count the noise can hide.  Only zeroed cells move (the rest shrink by the renormalisation), so pairwise
    TVD changes little (docs/undirected.md, "MRF default estimate").  Post-processing of released values.
    """
    projected = _projected(stats)
    out = []
    for table, floor in zip(projected, _floors(stats, projected)):
        raised = np.where(table > 0, table, floor)
        out.append(raised / raised.sum())
    return out


MIX_SHARE = 0.3
"""η: CGM-EM's largest share of a clique's ``auto`` targets (rule 4, :func:`mixture_shares`)."""
MIX_BAND = (0.1, 0.5, 2.0, 4.0)
"""The noise-to-count ratios x_C at which CGM-EM's share starts to rise, reaches :data:`MIX_SHARE`, starts to fall
and is zero again (rises and falls linear in log x_C; zero outside)."""
MIX_FLOOR = (0.2, 4.0)
"""Where a clique's CGM-EM share is positive its floor falls as min(1, 0.2/z)⁴ (rule 3's) instead of rule 2's."""


def _share(x: float) -> float:
    start, full, fall, end = MIX_BAND
    if not start <= x < end:
        return 0.0
    if x < full:
        return MIX_SHARE * math.log(x / start) / math.log(full / start)
    if x < fall:
        return MIX_SHARE
    return MIX_SHARE * math.log(end / x) / math.log(end / fall)


def mixture_shares(stats: NoisyStatistics) -> tuple[float, ...]:
    """η_C, CGM-EM's share of clique C's targets in ``auto`` (rule 4): 0 where x_C < 0.1 (:func:`noise_to_count`),
    rising in log x_C to :data:`MIX_SHARE` at 0.5, held to 2, falling to 0 at 4 (:data:`MIX_BAND`).

    * Where the noise is small (x_C < 0.1) naive MLE of the floored marginals is better than CGM-EM in both metrics,
      and a global mixture (rule 3) broke it there (random trees at N = 10⁵, ε = 0.1: 2.30× the best KL).
    * In the middle band the zeroed cells that the truth fills cost naive MLE KL, and a floor spreads its mass evenly;
      CGM-EM's share puts it where the noisy tables and the model's structure agree (docs/undirected.md, "rule 4").
    * Where the noise dominates (x_C ≥ 4) the calibrated λ already shrinks towards uniform, and CGM-EM's share cost
      TVD (binary lattices at x ≈ 2: 1.14× naive MLE's).

    A function of x_C only: public inputs (b, |X_C|, N the public n or the paid-for N̂)."""
    return tuple(_share(x) for x in noise_to_count(stats))


AUTO_RULE = 4
"""The version of ``auto``'s rule, first in the model file's ``estimate`` line (rule 2: naive MLE of the floored
marginals, no CGM-EM share; files without a version: rule 1, floors and λ_C from b, |X_C| and N only; all of them
load and sample from their stored θ)."""


def _mixture_floors(stats: NoisyStatistics, projected: Sequence[np.ndarray],
                    shares: Sequence[float]) -> tuple[float, ...]:
    z = zeroed_share(projected)
    cut, power = MIX_FLOOR
    steep = FLOOR_SHARE * stats.scale / stats.n * (min(1.0, cut / z) ** power if z > 0 else 1.0)
    return tuple(steep if eta > 0 and floor > 0 else floor for floor, eta in zip(_floors(stats, projected), shares))


def auto_estimate(stats: NoisyStatistics, lam: float | Sequence[float] | None = None) -> str:
    """What ``auto`` fits on ``stats``, in one line for the model file: the rule's version, the noise share, the
    CGM-EM shares, the floors and λ_C (public and released values only)."""
    lams = calibrated_lambda(stats) if lam is None else lam
    shown = ", ".join(f"{v:.3g}" for v in np.broadcast_to(np.asarray(lams, dtype=np.float64), (len(stats.tables),)))
    shares = mixture_shares(stats)
    floors = ", ".join(f"{v:.3g}" for v in _mixture_floors(stats, _projected(stats), shares))
    return (f"auto rule {AUTO_RULE}: MLE of (1 − η_C)·floored marginals + η_C·CGM-EM's: noise share "
            f"{noise_share(stats):.3g}, CGM-EM shares [{', '.join(f'{v:.3g}' for v in shares)}], floors [{floors}], "
            f"L2 weights [{shown}]")


def mixed_targets(stats: NoisyStatistics, smooth: Sequence[np.ndarray] | None) -> list[np.ndarray]:
    """(1 − η_C)·floored_C + η_C·``smooth``_C per clique (η_C from :func:`mixture_shares`; ``smooth``: CGM-EM's
    clique marginals, a proper distribution's, so each mixture is a distribution too; None when every η_C is 0).

    The floored table is :func:`floored_marginals`'s, except that where η_C > 0 its floor falls as min(1, 0.2/z)⁴
    (:data:`MIX_FLOOR`): CGM-EM's share covers the zeroed cells the truth fills, so the even floor can give way on
    sparse truths.  Mixing bounds both metrics (ICML 2017's KL: at most CGM-EM's + log(1/η_C) on the clique; TVD:
    at most (1 − η_C)·the floored's + η_C·CGM-EM's).  Post-processing of released values."""
    projected = _projected(stats)
    shares = mixture_shares(stats)
    out = []
    for index, (table, floor, eta) in enumerate(zip(projected, _mixture_floors(stats, projected, shares), shares)):
        raised = np.where(table > 0, table, floor)
        raised = raised / raised.sum()
        out.append(raised if eta == 0 or smooth is None else (1 - eta) * raised + eta * smooth[index])
    return out


def floored_mle(model: LogLinearModel, stats: NoisyStatistics,
                lam: float | Sequence[float] | None = None) -> LogLinearModel:
    """``auto`` rule 2: the MLE of :func:`floored_marginals`, λ_C from :func:`calibrated_lambda` unless ``lam`` is
    given (rule 4 where every η_C is 0)."""
    return fit_mle(model, floored_marginals(stats), calibrated_lambda(stats) if lam is None else lam)


def calibrated_mle(model: LogLinearModel, stats: NoisyStatistics,
                   lam: float | Sequence[float] | None = None) -> LogLinearModel:
    """The default estimate (``auto``, rule 4): where some clique's CGM-EM share η_C (:func:`mixture_shares`) is
    positive, CGM-EM from ``model`` (default options), then the MLE of :func:`mixed_targets` started at CGM-EM's θ;
    where every η_C is 0, :func:`floored_mle` (rule 2) without running CGM-EM.  λ_C from :func:`calibrated_lambda`
    unless ``lam`` is given."""
    if max(mixture_shares(stats), default=0.0) == 0:
        return floored_mle(model, stats, lam)
    smooth, _ = cgm_em(model, stats)
    return fit_mle(smooth, mixed_targets(stats, smooth.marginals()), calibrated_lambda(stats) if lam is None else lam)


@dataclass(frozen=True)
class CGMOptions:
    """Knobs of Alg. 1-2: the E-step, NLBP damping α and convergence test, EM stopping rules, M-step λ.

    ``estep``: ``"dual"`` solves Eq. 6 exactly through its dual (junction trees only); ``"nlbp"``
    runs Alg. 1; ``"auto"`` (default) picks dual on junction trees and NLBP on loopy models.
    The dual path uses adaptive over-relaxed EM (Salakhutdinov & Roweis 2003): each EM step moves
    θ by at most 1/b, so the step is multiplied by η, which grows by ``relax_growth`` after every
    step that increases the approximate log marginal likelihood ℓ(θ) and falls back to the plain
    EM step (η = 1, which never decreases ℓ) otherwise; ``relax_growth = 1`` is plain EM.
    ``discrepancy`` stops EM at the first model whose statistics explain the noisy ones to within
    the size of the noise (Morozov's discrepancy principle): past that point EM fits the noise,
    driving the cells whose noisy count is negative towards probability zero (the MAP-EM fixed
    point is an L1 fit of y).  The dual path uses the principle's classical squared form: stop
    once ‖y − N·µ(θ)‖₂² ≤ m·Var(z)·(1 + 3·√(5/m)) for m cells, i.e. within three standard
    deviations of the noise's own squared norm (Laplace noise has kurtosis 6, so ‖z‖₂² has
    relative standard deviation √(5/m)); without that margin a start that is already as close to
    y as the noise is (ε = 0.01) can be pushed into fitting noise.  The NLBP path keeps the L1 form,
    ‖y − N·µ(θ)‖₁ ≤ m·b.  ``em_tol`` stops EM once the E-step moves no
    log-marginal by more than ``em_tol``/b (dual) or max|g|·b < ``em_tol`` (NLBP).
    ``estep_tol``: the dual solver stops when every free cell fits its noisy count to within
    ``estep_tol``·b (default: b, the noise's own scale; a finer fit only follows the noise).
    ``nlbp_max_iters = 1`` makes each NLBP E-step one warm-started sweep (a
    partial E-step, as in incremental EM, Neal & Hinton 1998); ``em_max_iters`` bounds the run.
    """

    damping: float = 0.5
    nlbp_tol: float = 1e-6
    nlbp_max_iters: int = 1
    em_tol: float = 0.05
    em_max_iters: int = 200
    lam: float = 0.0
    discrepancy: bool = True
    estep: Literal["auto", "dual", "nlbp"] = "auto"
    estep_tol: float = 1.0
    estep_max_iters: int = 500
    relax_growth: float = 1.5

    def __post_init__(self) -> None:
        if not 0 < self.damping <= 1:
            raise ValueError(f"damping ({self.damping!r}) must be in (0, 1]")
        if not self.nlbp_tol > 0 or not self.em_tol > 0 or not self.lam >= 0 or not self.estep_tol > 0:
            raise ValueError("nlbp_tol, em_tol and estep_tol must be > 0 and lam >= 0")
        if min(self.nlbp_max_iters, self.em_max_iters, self.estep_max_iters) < 1:
            raise ValueError("nlbp_max_iters, em_max_iters and estep_max_iters must be >= 1")
        if self.estep not in ("auto", "dual", "nlbp"):
            raise ValueError(f"estep ({self.estep!r}) must be auto, dual or nlbp")
        if not self.relax_growth >= 1:
            raise ValueError(f"relax_growth ({self.relax_growth!r}) must be >= 1")


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
    for iteration in range(1, options.nlbp_max_iters + 1):  # noqa: B007 (the last value is returned)
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
    """How EM ended: iterations, the stopping rule that fired, and the inference calls of its E-steps
    (NLBP sweeps, or objective evaluations of the dual solver)."""

    iterations: int
    stopped_by: str
    inference_calls: int


def cgm_em(model: LogLinearModel, stats: NoisyStatistics,
           options: CGMOptions = CGMOptions()) -> tuple[LogLinearModel, EMTrace]:
    """Alg. 2 from ``model`` (the uniform model in :class:`PrivateMRF`: "initialise θ arbitrarily").

    M-step: for λ = 0 it is θ ← θ + g in closed form — at the E-step's solution n* = N·µ(θ + g),
    and the model with parameters θ + g is the unique one with those marginals (Prop. 2),
    so θ + g maximises θᵀn* − N·A(θ).  For λ > 0, L-BFGS starts from θ + g.  The E-step is
    chosen by ``options.estep`` (see :class:`CGMOptions`).
    """
    if options.estep == "dual" or (options.estep == "auto" and model.engine.exact):
        return _em_dual(model, stats, options)
    return _em_nlbp(model, stats, options)


def _residual(stats: NoisyStatistics, counts: tuple[np.ndarray, ...]) -> float:
    return sum(float(np.abs(y - c).sum()) for y, c in zip(stats.tables, counts))


def _squared_residual(stats: NoisyStatistics, counts: tuple[np.ndarray, ...]) -> float:
    return sum(float(np.sum((y - c) ** 2)) for y, c in zip(stats.tables, counts))


def _log_step(step: DualEStep) -> float:
    """max |log n* − log N·µ(θ)|: how far the E-step moves the model's log-marginals (≈ max|g*| in the
    directions that change the distribution; g* itself may drift along the overcomplete null space)."""
    tiny = np.finfo(float).tiny
    return max(float(np.max(np.abs(np.log(np.maximum(c, tiny)) - np.log(np.maximum(m, tiny)))))
               for c, m in zip(step.counts, step.model_counts))


def _m_step(model: LogLinearModel, stats: NoisyStatistics, step: DualEStep, lam: float) -> LogLinearModel:
    moved = model.with_theta([t + g for t, g in zip(model.theta, step.gradient)])
    return fit_mle(moved, [c / stats.n for c in step.counts], lam) if lam > 0 else moved


def _penalised(step: DualEStep, model: LogLinearModel, stats: NoisyStatistics, lam: float) -> float:
    """ℓ(θ) − Nλ‖θ‖²: the objective that EM with this M-step ascends."""
    return step.log_likelihood - stats.n * lam * sum(float(np.sum(t * t)) for t in model.theta)


def _em_dual(model: LogLinearModel, stats: NoisyStatistics, options: CGMOptions) -> tuple[LogLinearModel, EMTrace]:
    """EM with the exact dual E-step and adaptive over-relaxation (θ ← θ + η·(θ_EM − θ)).

    The discrepancy test needs only the candidate's own statistics N·µ(θ), so it runs before the
    E-step: the first candidate (plain or over-relaxed) that explains y to within the noise is
    returned without solving an E-step at it.
    """
    engine, cliques, n_total, scale = model.engine, model.cliques, stats.n, stats.scale
    cells = sum(t.size for t in stats.tables)
    threshold = cells * stats.variance * (1 + 3 * math.sqrt(5 / cells))

    def explained(beliefs: Beliefs) -> bool:
        counts = tuple(n_total * m for m in clique_marginals(beliefs, cliques))
        return options.discrepancy and _squared_residual(stats, counts) <= threshold

    candidate, plain, here, start = model, model, engine.infer(model.theta), None
    step, value, eta, calls, taken, retried = None, -math.inf, 1.0, 1, 0, False
    while True:
        if explained(here):
            model, taken, stopped_by = candidate, taken + (step is not None), "discrepancy"
            break
        trial = dual_estep(candidate, stats, start, tol=options.estep_tol, max_iters=options.estep_max_iters,
                           here=here)
        calls += trial.evaluations
        trial_value = _penalised(trial, candidate, stats, options.lam)
        if step is not None and eta > 1 and trial_value < value:  # the relaxed step lost ground: plain EM
            eta, candidate, retried = 1.0, plain, True
            here, calls = engine.infer(candidate.theta), calls + 1
            continue
        if step is not None:
            taken += 1
            eta = eta if retried else eta * options.relax_growth
        model, step, value, retried = candidate, trial, trial_value, False
        if _log_step(step) * scale < options.em_tol:
            stopped_by = "em_tol"
            break
        if taken == options.em_max_iters:
            stopped_by = "em_max_iters"
            break
        plain = _m_step(model, stats, step, options.lam)
        candidate = (plain if eta == 1
                     else model.with_theta([t + eta * (p - t) for t, p in zip(model.theta, plain.theta)]))
        here, calls, start = engine.infer(candidate.theta), calls + 1, step.gradient
    return model, EMTrace(taken, stopped_by, calls)


def _em_nlbp(model: LogLinearModel, stats: NoisyStatistics, options: CGMOptions) -> tuple[LogLinearModel, EMTrace]:
    """EM with one warm-started NLBP E-step per iteration (Alg. 1), carrying n and g across iterations."""
    counts = tuple(stats.n * m for m in model.marginals())
    gradient = tuple(np.zeros_like(c) for c in counts)
    noise_l1 = sum(t.size for t in stats.tables) * stats.scale
    total_nlbp, stopped_by, iteration = 0, "em_max_iters", 0
    for iteration in range(1, options.em_max_iters + 1):  # noqa: B007 (the last value is returned)
        e_step = nlbp(model, stats, counts, gradient, options)
        counts, gradient, total_nlbp = e_step.counts, e_step.gradient, total_nlbp + e_step.iterations
        moved = model.with_theta([t + g for t, g in zip(model.theta, gradient)])
        model = fit_mle(moved, [c / stats.n for c in counts], options.lam) if options.lam > 0 else moved
        if max(float(np.max(np.abs(g))) for g in gradient) * stats.scale < options.em_tol:
            stopped_by = "em_tol"
            break
        residual = _residual(stats, counts)
        if options.discrepancy and residual <= noise_l1:
            stopped_by = "discrepancy"
            break
    return model, EMTrace(iteration, stopped_by, total_nlbp)
