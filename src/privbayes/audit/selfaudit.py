"""The tight white-box self-audit (``privbayes audit``; docs/privacy-assurance.md, "The tight self-audit").

For a method: fit it ``runs`` times on each table of a worst-case neighbouring pair, compute the exact privacy
loss of every fit's transcript (:mod:`privbayes.audit.transcript`), count the threshold events and turn the
counts into a lower bound on ε (:mod:`privbayes.audit.bounds`).  A quarter of the runs calibrate: they pick
the pair among :func:`privbayes.audit.pairs.candidate_pairs` and the thresholds; the other runs are counted.
For a mechanism alone see :mod:`privbayes.audit.alone`.

The audit runs the real code; it knows the method only through the registry and the recording tap.  Tightness
has limits that are the mechanisms', not the audit's: k discrete Laplace releases reach their summed ε
together only when every noise lands on the favourable side (probability ≈ 2^-k per cell), and a selection
only as its candidates multiply, so a method of many releases is audited tightly only in configurations of
few releases (the documented parameters), and loosely by default.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from privbayes.audit import parallel
from privbayes.audit.alone import CALIBRATION_SHARE, MECHANISMS, audit_mechanism
from privbayes.audit.bounds import CONFIDENCE, calibrate, epsilon_lower, events
from privbayes.audit.pairs import Pair, candidate_pairs
from privbayes.audit.result import AuditResult
from privbayes.audit.transcript import transcript_loss
from privbayes.core.errors import InputError
from privbayes.privacy.accountant import as_fraction
from privbayes.synthesizers import registry
from privbayes.synthesizers.parameters import ZCDP_PARAMETERS

DELTA = next(p for p in ZCDP_PARAMETERS if p.name == "delta")
"""The δ of a discrete-Gaussian audit's claim, checked as the methods check theirs (an exact rational in (0, 1))."""

MAX_RUNS = 10**7
"""Refuse larger audits before any work (a cap on a user input)."""

STATISTIC = "exact privacy loss of the transcript: sum over releases of log Pr[output | D] - log Pr[output | D']"


@dataclass(frozen=True)
class _Job:
    method: str
    epsilon: Fraction
    params: tuple[tuple[str, Any], ...]
    pair: Pair
    side: int
    seeds: tuple[int, ...]
    compare_release: bool


def _parameters(job: _Job) -> dict[str, Any]:
    params = dict(job.params)
    if job.method == "mrf" and "cliques" not in params:
        params["cliques"] = [tuple(job.pair.schema.names)]
    return params


def _losses(job: _Job) -> np.ndarray:
    """log Pr[T | D] − log Pr[T | D'] of the transcript T of each seeded fit on D (side 0) or D' (side 1)."""
    from privbayes import counting

    estimator = registry.method(job.method).estimator_class()
    params = _parameters(job)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the toy tables' notes (uncovered columns, …) say nothing here
        tables = [counting.open(frame, job.pair.schema) for frame in job.pair.frames()]
        primary, shadow = tables if job.side == 0 else tables[::-1]
        out = np.empty(len(job.seeds))
        for k, seed in enumerate(job.seeds):
            def fit(table: Any, seed: int = seed) -> Any:
                return estimator(epsilon=job.epsilon, random_state=seed, **params).fit(table)
            loss, _ = transcript_loss(fit, primary, shadow, total=None if job.compare_release else job.epsilon,
                                      compare_release=job.compare_release)
            out[k] = loss if job.side == 0 else -loss
    return out


def _run(method: str, epsilon: Fraction, params: dict[str, Any], pair: Pair, stream: tuple[int, ...], seed: int,
         runs: int, workers: int, compare_release: bool) -> tuple[np.ndarray, np.ndarray]:
    """The losses of ``runs`` fits on each table of ``pair``."""
    frozen = tuple(sorted(params.items()))
    sides = []
    for side in (0, 1):
        chunks = parallel.split(parallel.seeds(seed, (*stream, side), runs), 4 * max(1, workers))
        jobs = [_Job(method, epsilon, frozen, pair, side, tuple(c), compare_release) for c in chunks]
        sides.append(np.concatenate(parallel.run_all(_losses, jobs, workers)))
    return sides[0], sides[1]


def audit(method: str = registry.DEFAULT_METHOD, epsilon: float | Fraction = 1, *, runs: int = 2000, seed: int = 0,
          workers: int = 1, pairs: list[Pair] | None = None, compare_release: bool = True,
          confidence: float = CONFIDENCE, **params: Any) -> AuditResult:
    """Audit ``method`` (a registered method or one of :data:`MECHANISMS`) at ``epsilon``: a lower bound on its
    true ε at ``confidence``, from ``runs`` releases on each table of a worst-case neighbouring pair.

    ``params`` are the method's parameters (``neighbours``, ``degree``, …; not ``random_state``: the audit
    seeds every run from ``seed``); ``pairs`` replaces the candidate pairs; ``compare_release`` also checks,
    run by run, that the released value is a function of the transcript (else the loss is infinite);
    without it the fits stop once ε is spent (faster; blind to data that bypasses the mechanisms)."""
    exact = _checked(method, epsilon, runs, workers, confidence, params)
    if method in MECHANISMS:
        allowed = {"neighbours", "delta"} if method == "discrete-gaussian" else {"neighbours"}
        if set(params) - allowed:
            raise InputError(f"the {method} mechanism takes only epsilon and {' and '.join(sorted(allowed))}")
        delta = params.get("delta")
        return audit_mechanism(method, exact, runs=runs, relation=params.get("neighbours"), seed=seed,
                               workers=workers, confidence=confidence,
                               delta=None if delta is None else DELTA.validate(delta))
    start = time.perf_counter()
    candidates = pairs if pairs is not None else candidate_pairs(params.get("neighbours"))
    calibration = max(len(candidates), runs // CALIBRATION_SHARE)
    counted = runs - calibration
    if counted < 1:
        raise InputError(f"runs ({runs}) is too small: the audit needs at least {len(candidates) + 1}")
    scored = []
    per_pair = max(1, calibration // len(candidates))
    for index, pair in enumerate(candidates):
        loss_d, loss_d2 = _run(method, exact, params, pair, (1, index), seed, per_pair, workers, compare_release)
        (high, low), expected = calibrate(loss_d, loss_d2, confidence, counted)
        scored.append((expected, index, high, low))
    _, index, high, low = max(scored)
    loss_d, loss_d2 = _run(method, exact, params, candidates[index], (2,), seed, counted, workers, compare_release)
    found = events(loss_d, loss_d2, high, low, confidence)
    notes = []
    infinite = int(np.sum(np.isinf(loss_d)) + np.sum(np.isinf(loss_d2)))
    if infinite:
        notes.append(f"{infinite} runs released something the other table could not give from the same transcript "
                     "(data outside the mechanisms, or a data-dependent question)")
    return AuditResult(method, float(exact), epsilon_lower(found), confidence, counted, per_pair * len(candidates),
                       candidates[index].to_dict(), STATISTIC, found,
                       f"calibrated on {per_pair} runs per table and candidate pair (best of {len(candidates)})",
                       {k: _shown(v) for k, v in sorted(params.items())} | {"epsilon": str(exact)},
                       time.perf_counter() - start, tuple(notes))


def _shown(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def _checked(method: str, epsilon: float | Fraction, runs: int, workers: int, confidence: float,
             params: dict[str, Any]) -> Fraction:
    """The checked inputs (one-line errors naming the parameter); the exact ε."""
    if method not in MECHANISMS and method not in registry.METHODS:
        raise InputError(f"method ({method!r}) must be one of {', '.join((*registry.METHODS, *MECHANISMS))}")
    if method in registry.METHODS and not registry.method(method).differentially_private:
        raise InputError(f"method ({method!r}) is not differentially private: there is no epsilon to audit")
    if "random_state" in params:
        raise InputError("random_state is set by the audit (seed): leave it out")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, Fraction)) or not (
            math.isfinite(epsilon) and epsilon > 0):
        raise InputError(f"epsilon ({epsilon!r}) must be a positive number")
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise InputError(f"runs ({runs!r}) must be an integer in [1, {MAX_RUNS}]")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 64:
        raise InputError(f"workers ({workers!r}) must be an integer in [1, 64]")
    if not 0.5 <= confidence < 1:
        raise InputError(f"confidence ({confidence!r}) must be in [0.5, 1)")
    return as_fraction(epsilon)
