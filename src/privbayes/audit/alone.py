"""The self-audit of each mechanism alone, vectorised where the mechanism takes arrays.

* ``discrete-laplace``: a 2-cell count table (5, 5); its replace-one neighbour (4, 6) moves both cells, the
  add/remove neighbour (4, 5) one cell: the full Δ.  The loss reaches ε only when every cell's noise lands
  on the favourable side (probability ≈ ¼ for two cells): one table keeps that event frequent.
* ``discrete-gaussian`` (zCDP, with the δ of its claim): the same tables as the discrete Laplace (their L2 distance
  is 1 or √2), through the discrete Gaussian of ρ = ``rho_for(ε, δ)`` (CKS 2020 Cor. 13: the largest ρ whose
  (ε, δ) is the claim) at the count table's L2 sensitivity.  Its loss is unbounded, so the thresholds are chosen
  on separate calibration runs (a quarter), as for the methods, and each bound is ln((p⁻ − δ)/q⁺): a lower bound on
  ε at the stated δ, compared with the claimed ε.
* ``noisy-count``: n = 10 against n − 1 (add/remove), through
  :func:`privbayes.privacy.mechanisms.count_mechanism` on all runs at once (``noisy_count``'s floor at 1
  is post-processing).
* ``exponential`` and ``permute-and-flip``: K candidates with scores (Δ, 0, …, 0) on D and (0, Δ, …, Δ) on
  D': each score moves by its full Δ, in opposite directions.  The loss of candidate 0 tends to ε only as
  K grows (the normaliser must be carried by the others) while its probability falls like 1/K, so K is
  chosen before the runs to maximise the expected bound at the given number of runs.  With scores that all
  move the same way (monotone) the exponential mechanism is tight only to ε/2 (its loss is at most
  2·factor·Δ with the normaliser moving against it); the audit does not claim more there.

Thresholds are analytic: the event "loss ≥ its largest value" and the symmetric one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.audit import parallel
from privbayes.audit.bounds import CONFIDENCE, _level, calibrate, epsilon_lower, events, ratio_bound
from privbayes.audit.result import AuditResult
from privbayes.audit.transcript import (
    exponential_log_pmf,
    gaussian_log_ratio,
    laplace_log_ratio,
    permute_and_flip_log_pmf,
)
from privbayes.core.errors import InputError
from privbayes.privacy.accountant import Accountant, ZCDPAccountant
from privbayes.privacy.mechanisms import (
    DiscreteGaussian,
    DiscreteLaplace,
    Exponential,
    PermuteAndFlip,
    count_mechanism,
)
from privbayes.privacy.neighbours import ADD_REMOVE, neighbours
from privbayes.privacy.samplers import RationalScores, random_source
from privbayes.privacy.zcdp import rho_for
from privbayes.privacy.zcdp_mechanisms import gaussian, l2_sensitivity

MECHANISMS = ("discrete-laplace", "noisy-count", "exponential", "permute-and-flip", "discrete-gaussian")
"""The mechanisms ``privbayes audit --method`` takes besides the methods."""

MAX_CANDIDATES = 64
COUNT_N = 10
CALIBRATION_SHARE = 4
"""One run in CALIBRATION_SHARE calibrates (picks the thresholds, and for a method the pair); the others are
counted (the discrete Gaussian here, the methods in :mod:`privbayes.audit.selfaudit`)."""


@dataclass(frozen=True)
class _Job:
    name: str
    epsilon: Fraction
    relation: str
    candidates: int
    side: int
    seed: int
    runs: int
    delta: Fraction = Fraction(0)


def _inputs(job: _Job) -> tuple[np.ndarray, np.ndarray]:
    """The mechanism's input on D and on D'."""
    if job.name in ("discrete-laplace", "discrete-gaussian"):
        other = [4, 6] if neighbours(job.relation).n_public else [4, 5]
        return np.array([5, 5]), np.array(other)
    if job.name == "noisy-count":
        return np.array([COUNT_N]), np.array([COUNT_N - 1])
    return (np.array([1] + [0] * (job.candidates - 1)), np.array([0] + [1] * (job.candidates - 1)))


def _gaussian(job: _Job) -> DiscreteGaussian:
    """The discrete Gaussian whose ρ-zCDP is exactly the (ε, δ) claimed (CKS 2020, Cor. 13), at the count table's
    L2 sensitivity."""
    return gaussian(rho_for(job.epsilon, job.delta), l2_sensitivity(neighbours(job.relation)))


def _selection(job: _Job) -> Exponential | PermuteAndFlip:
    return (Exponential if job.name == "exponential" else PermuteAndFlip)(job.epsilon, Fraction(1))


def _selection_losses(job: _Job) -> np.ndarray:
    """log Pr[i | D] − log Pr[i | D'] for every candidate i."""
    d, d2 = _inputs(job)
    factor = float(_selection(job).factor)
    pmf = exponential_log_pmf if job.name == "exponential" else permute_and_flip_log_pmf
    return pmf(d, factor) - pmf(d2, factor)


def _losses(job: _Job) -> np.ndarray:
    """The privacy loss of ``job.runs`` releases on D (side 0) or D' (side 1)."""
    d, d2 = _inputs(job)
    exact = (d, d2)[job.side]
    rng = random_source(job.seed)
    accountant = Accountant(job.epsilon)
    if job.name == "discrete-laplace":
        mechanism = DiscreteLaplace(job.epsilon, neighbours(job.relation).count_sensitivity)
        out = mechanism.release(np.tile(exact, (job.runs, 1)), accountant, rng, step="audit", measured="table")
        return laplace_log_ratio(out, d, d2, float(mechanism.scale)).sum(axis=1)
    if job.name == "discrete-gaussian":
        gauss = _gaussian(job)
        tables = gauss.release(np.tile(exact, (job.runs, 1)), ZCDPAccountant(gauss.zcdp_cost()), rng, step="audit",
                               measured="table")
        return gaussian_log_ratio(tables, d, d2, float(gauss.sigma2)).sum(axis=1)
    if job.name == "noisy-count":
        raw = count_mechanism(job.epsilon).release(np.full(job.runs, exact[0]), accountant, rng, step="count n",
                                                   measured="number of tuples")
        return laplace_log_ratio(raw, d[0], d2[0], float(1 / job.epsilon))
    selection, losses = _selection(job), _selection_losses(job)
    scores = RationalScores(exact, 1)
    chosen = [selection.release(scores,  # exact rationals, as the samplers take them
                                Accountant(job.epsilon), rng, step="audit", measured="scores")
              for _ in range(job.runs)]
    return losses[np.array(chosen)]


def best_candidates(name: str, epsilon: Fraction, runs: int, confidence: float = CONFIDENCE) -> int:
    """The number of candidates K with the largest expected bound at ``runs`` runs per table (analytic)."""
    alpha, best = _level(confidence), (-math.inf, 2)
    for k in range(2, MAX_CANDIDATES + 1):
        job = _Job(name, epsilon, "replace-one", k, 0, 0, 0)
        d, d2 = _inputs(job)
        factor = float(_selection(job).factor)
        pmf = exponential_log_pmf if name == "exponential" else permute_and_flip_log_pmf
        p, q = math.exp(pmf(d, factor)[0]), math.exp(pmf(d2, factor)[0])
        expected = ratio_bound(round(p * runs), runs, round(q * runs), runs, alpha)
        if expected > best[0]:
            best = (expected, k)
    return best[1]


def _runs(job: _Job, runs: int, stream: tuple[int, ...], workers: int) -> list[np.ndarray]:
    """The losses of ``runs`` releases on each side, split over ``workers`` (seeds by ``stream`` and side)."""
    losses = []
    for side in (0, 1):
        chunk_seeds = parallel.seeds(job.seed, (*stream, side), max(1, workers))
        sizes = [len(c) for c in parallel.split(range(runs), max(1, workers))]
        jobs = [_Job(job.name, job.epsilon, job.relation, job.candidates, side, s, size, job.delta)
                for s, size in zip(chunk_seeds, sizes)]
        losses.append(np.concatenate(parallel.run_all(_losses, jobs, workers)))
    return losses


def _audit_gaussian(epsilon: Fraction, delta: Fraction, runs: int, relation: str | None, seed: int, workers: int,
                    confidence: float) -> AuditResult:
    """The discrete Gaussian of the (ε, δ) claim: thresholds from calibration runs, then a bound on ε at δ."""
    start = time.perf_counter()
    if runs < 2 * CALIBRATION_SHARE:
        raise InputError(f"runs ({runs}) is too small: the discrete-gaussian audit needs at least "
                         f"{2 * CALIBRATION_SHARE}")
    probe = _Job("discrete-gaussian", epsilon, neighbours(relation).name, 0, 0, seed, 0, delta)
    calibration = runs // CALIBRATION_SHARE
    counted = runs - calibration
    first, second = _runs(probe, calibration, (1,), workers)
    (high, low), _ = calibrate(first, second, confidence, counted, float(delta))
    loss_d, loss_d2 = _runs(probe, counted, (2,), workers)
    found = events(loss_d, loss_d2, high, low, confidence, float(delta))
    d, d2 = _inputs(probe)
    mechanism = _gaussian(probe)
    pair = {"name": "discrete-gaussian: worst-case inputs", "neighbours": probe.relation, "input_on_D": d.tolist(),
            "input_on_D_prime": d2.tolist()}
    rho = mechanism.zcdp_cost()
    notes = (f"the claim (ε, δ) = ({float(epsilon):g}, {float(delta):g}) is ρ-zCDP with ρ = {float(rho):.6g} "
             f"(σ² = {float(mechanism.sigma2):.6g}); the bound is on ε at δ = {float(delta):g}",)
    return AuditResult("discrete-gaussian", float(epsilon), epsilon_lower(found), confidence, counted, calibration,
                       pair, "exact privacy loss of the output (log-likelihood ratio)", found,
                       f"calibrated on {calibration} runs per table", {"epsilon": str(epsilon), "delta": str(delta),
                                                                       "rho": str(rho)},
                       time.perf_counter() - start, notes)


def audit_mechanism(name: str, epsilon: Fraction, *, runs: int, relation: str | None = None, seed: int = 0,
                    workers: int = 1, confidence: float = CONFIDENCE, delta: Fraction | None = None) -> AuditResult:
    """Release mechanism ``name`` ``runs`` times on each of its worst-case inputs and bound its ε (the discrete
    Gaussian: at ``delta``, which its claim needs)."""
    if name == "discrete-gaussian":
        if delta is None:
            raise InputError("the discrete-gaussian mechanism needs delta: its claim is (epsilon, delta)")
        return _audit_gaussian(epsilon, delta, runs, relation, seed, workers, confidence)
    if delta is not None:
        raise InputError(f"delta applies to the discrete-gaussian mechanism only, not {name}")
    start = time.perf_counter()
    rel = ADD_REMOVE if name == "noisy-count" else neighbours(relation)
    k = best_candidates(name, epsilon, runs, confidence) if name in ("exponential", "permute-and-flip") else 0
    losses = _runs(_Job(name, epsilon, rel.name, k, 0, seed, 0), runs, (), workers)
    probe = _Job(name, epsilon, rel.name, k, 0, 0, 0)
    d, d2 = _inputs(probe)
    if k:
        possible = _selection_losses(probe)
        high, low = float(possible.max()), float(possible.min())
    else:
        sensitivity = float(np.abs(d - d2).sum())
        scale = float(rel.count_sensitivity / epsilon)
        high, low = sensitivity / scale, -sensitivity / scale
    found = events(losses[0], losses[1], high - 1e-9, low + 1e-9, confidence)
    pair = {"name": f"{name}: worst-case inputs" + (f" (K = {k} candidates)" if k else ""),
            "neighbours": rel.name, "input_on_D": d.tolist(), "input_on_D_prime": d2.tolist()}
    notes = ((f"the largest loss of one release here is {high:.4f} (a selection reaches ε only as its candidates "
              "multiply)",) if k else ())
    return AuditResult(name, float(epsilon), epsilon_lower(found), confidence, runs, 0, pair,
                       "exact privacy loss of the output (log-likelihood ratio)", found,
                       "analytic: the largest and smallest possible loss", {"epsilon": str(epsilon)},
                       time.perf_counter() - start, notes)
