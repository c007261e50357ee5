"""The adaptive fit proper: 1-way marginals, then rounds of select → measure → re-fit (pure ε).

Adapted from AIM (McKenna, Mullins, Sheldon & Miklau, VLDB 2022, Alg. 1) to pure ε-DP and to
this library's pieces:

* every measurement is a count table plus discrete Laplace noise of scale Δ/ε
  (:class:`~privbayes.privacy.mechanisms.DiscreteLaplace`; AIM uses Gaussian noise under zCDP);
* the first measurements are the 1-way marginals, small attributes measured together in one table
  (:func:`privbayes.methods.adaptive.settings.first_groups`, public), or PrivBayes's network and tables;
* each round selects one candidate marginal r by permute-and-flip
  (:class:`~privbayes.privacy.mechanisms.PermuteAndFlip`, the default) or the exponential mechanism
  (:class:`~privbayes.privacy.mechanisms.Exponential`; the plan names which) on AIM's quality
  q_r = w_r · (‖x_r − N̂·p̂_r‖₁ − |Ω_r|·E|Z_r|): x_r the exact counts, p̂_r the current model's
  marginal, N̂ the public n (replace-one) or the estimate of n from the released measurements
  (add/remove), E|Z_r| the mean absolute value of the noise its measurement would carry, w_r ≤ 1
  the workload weight (of all ``degree``-way sets, or of a steward's workload, whose sets and their
  subsets are then the candidates: :mod:`privbayes.methods.adaptive.candidates`).  p̂, N̂, the penalty
  and the weights are functions of released values or public inputs, so between neighbouring tables
  q_r moves by at most w_r·‖x_r − x'_r‖₁ ≤ Δ, the count table's sensitivity;
* a candidate whose attribute set would grow the model's junction tree beyond ``max_model_cells``
  is left out (AIM's model-size filter; the test reads only released selections);
* the model is re-fitted after each round by the consistent estimator
  (:func:`privbayes.estimation.consistent.estimate`, Private-PGM's objective), warm-started from the
  previous round's log-potentials; above a large signal n·ε/Δ the new measurement's potential starts
  matched to the model (:func:`matched_start`, one step of iterative proportional fitting).

The budgets come from the plan (:mod:`privbayes.methods.adaptive.settings`), fixed before any count is taken;
the step names are the plan's, so the fit's ledger is checked against it release by release.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.counting import PrivateTable
from privbayes.estimation.consistent import FLOOR, MAX_ITERATIONS, Estimate, estimate
from privbayes.estimation.measurements import NoisyTable, estimated_total
from privbayes.methods.adaptive.candidates import (
    Candidate,
    WorkloadSets,
    leaf_candidates,
    set_weights,
    workload_candidates,
    workload_weights,
)
from privbayes.methods.adaptive.marginals import MarginalOracle, tree_cells
from privbayes.methods.adaptive.settings import LARGE_SIGNAL
from privbayes.methods.adaptive.zcdp import gaussian, selector
from privbayes.privacy.accountant import Accountant, ZCDPAccountant
from privbayes.privacy.mechanisms import DiscreteGaussian, DiscreteLaplace, Exponential, PermuteAndFlip
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.privacy.samplers import RandomSource
from privbayes.schema.encoding import Encoding

ROUND_ITERATIONS = 50
"""Mirror-descent iterations of the re-fit after each round but the last (warm-started; the fit only
guides the next selection); the last fit runs to the estimator's own stopping rule, within
:func:`final_iterations`."""
ZCDP_ROUND_ITERATIONS = 25
"""Mirror-descent iterations of each re-fit but the last under the zCDP rules (:func:`refits_for`): matched starts
need fewer steps to reach what the next selection can tell apart."""
FINAL_WORK = 5 * 10**8
"""The last fit may run up to FINAL_WORK / (cells of its junction tree) iterations (at least the estimator's
own bound, at most :data:`FINAL_MAX_ITERATIONS`): a deterministic bound on its time, like the estimator's."""
FINAL_MAX_ITERATIONS = 2000


@dataclass(frozen=True)
class Refits:
    """How the model is re-fitted after each round but the last: at most ``iterations`` mirror-descent steps, and
    with ``matched`` the new measurement's log-potential starts at :func:`matched_start` instead of the paper's
    conditional.  Post-processing of released measurements; a deterministic bound, not wall-clock."""

    iterations: int = ROUND_ITERATIONS
    matched: bool = False


@dataclass(frozen=True)
class Fitted:
    """What the rounds produce: every noisy measurement, the final estimate, the selected candidates
    (one per round) and the total the estimate was scaled by."""

    measurements: tuple[NoisyTable, ...]
    estimate: Estimate
    selected: tuple[Candidate, ...]
    total: float


def mean_absolute_noise(scale: Fraction) -> float:
    """E|Z| of discrete Laplace noise of ``scale``: 2q/(1 − q²), q = exp(−1/scale)."""
    q = math.exp(-1.0 / float(scale))
    return 2.0 * q / (1.0 - q * q)


def noise_penalty(mechanism: DiscreteLaplace | DiscreteGaussian) -> float:
    """E|Z| of a measurement's noise, the score's per-cell penalty: :func:`mean_absolute_noise` for the discrete
    Laplace, σ·√(2/π) for the discrete Gaussian (the continuous value, σ² its variance: a public estimate, not a
    privacy bound)."""
    if isinstance(mechanism, DiscreteGaussian):
        return math.sqrt(mechanism.variance * 2 / math.pi)
    return mean_absolute_noise(mechanism.scale)


def _measurer(release: PlannedRelease, sensitivity: Fraction) -> DiscreteLaplace | DiscreteGaussian:
    """The mechanism of a planned measurement: discrete Laplace at its ε, or under zCDP the discrete Gaussian
    at its ρ and planned L2 sensitivity."""
    if release.rho is None:
        return DiscreteLaplace(release.epsilon, sensitivity)
    return gaussian(release.rho, release.sensitivity or sensitivity)


def _selector(release: PlannedRelease, sensitivity: Fraction) -> Exponential | PermuteAndFlip:
    """The mechanism of a planned selection: the plan's, at its ε, or under zCDP the exponential mechanism at
    its ρ = ε²/8."""
    if release.rho is not None:
        return selector(release.rho, sensitivity)
    mechanism = PermuteAndFlip if release.mechanism == PermuteAndFlip.name else Exponential
    return mechanism(release.epsilon, sensitivity)


def quality(exact: np.ndarray, model: np.ndarray, weight: Fraction, penalty: float) -> float:
    """AIM's score of a candidate (VLDB 2022, §4.2): w·(‖x − m‖₁ − |Ω|·E|Z|), the L1 error in counts of
    the model's marginal m (released values only) net of the noise a measurement would add.  Between
    neighbouring tables x moves by at most Δ in L1, so the score moves by at most w·Δ ≤ Δ."""
    return float(weight) * (float(np.abs(exact - model).sum()) - penalty * exact.size)


def run(table: PrivateTable, encoding: Encoding, plan: BudgetPlan, *, degree: int, max_model_cells: int,
        sensitivity: Fraction, accountant: Accountant | ZCDPAccountant, rng: RandomSource, n: int,
        count_variance: float | None,
        progress: Callable[[int, int], None] | None = None,
        groups: Sequence[tuple[int, ...]] | None = None, workload: WorkloadSets = (),
        refits: Refits = Refits()) -> Fitted:
    """Spend ``plan`` on ``table`` (encoded with ``encoding``): the 1-way marginals, then each round.
    ``n`` is the public n, or under add/remove (``count_variance``: its noise's variance) the released noisy count;
    ``workload``: the steward's sets and weights (public), whose downward closure is then the candidates;
    ``refits``: how the model is re-fitted after each round (:func:`refits_for`).  A zCDP
    plan (releases priced in ρ) measures with the discrete Gaussian and selects with the exponential mechanism
    (:mod:`privbayes.methods.adaptive.zcdp`)."""
    attrs = encoding.attributes
    releases = {(r.kind, r.index): r for r in plan.releases}
    measurements: list[NoisyTable] = []
    if ("oneway", 0) in releases:
        blocks = groups if groups is not None else [(a,) for a in range(len(attrs))]
        first = table.counts_many([(list(group), [0] * len(group)) for group in blocks])  # one counting batch
        for g, group in enumerate(blocks):
            release = releases[("oneway", g)]
            label = " × ".join(attrs[a].name for a in group)
            measurements.append(_measure(table, Candidate(tuple(group), (0,) * len(group)), release, sensitivity,
                                         accountant, rng, f"{'1-way' if len(group) == 1 else 'joint'} marginal of "
                                         f"{label}", len(measurements), counts=first[g]))
    else:
        from privbayes.methods.adaptive.network import measure_network
        from privbayes.privacy.neighbours import ADD_REMOVE, REPLACE_ONE

        relation = REPLACE_ONE if count_variance is None else ADD_REMOVE
        initial = BudgetPlan(plan.total, tuple(r for r in plan.releases if r.kind in ("network", "table")),
                             (("degree", plan.setting("network degree")),))
        if not isinstance(accountant, Accountant):
            raise TypeError("the network start is pure epsilon only")  # the settings refuse it under zCDP
        measurements += measure_network(table, encoding, initial, n, relation, accountant, rng)
    total = _total(measurements, n, count_variance)
    fit = estimate(encoding, measurements, total)
    rounds = plan.setting("rounds")
    if workload:
        candidates = workload_candidates(workload)
        weights = set_weights(candidates, workload)
    else:
        candidates = leaf_candidates(encoding, degree)
        by_size = workload_weights(candidates, len(attrs), degree)
        weights = [by_size[len(c.attributes)] for c in candidates]
    weight = dict(zip(candidates, weights))
    exact = dict(zip(candidates, table.counts_many([(list(c.attributes), list(c.levels)) for c in candidates])))
    sizes = [a.size for a in attrs]
    scopes = [m.variables for m in measurements]
    measured_sets = [tuple(a for a, _ in scope) for scope in scopes]
    too_large: set[tuple[int, ...]] = set()
    selected = []
    penalty_scale = float(plan.setting("penalty scale") or 1.0)  # zCDP plans from ZCDP_VERSION: ZCDP_PENALTY
    for t in range(1, rounds + 1):
        select, measure = releases[("select", t)], releases[("measure", t)]
        penalty = noise_penalty(_measurer(measure, sensitivity)) * penalty_scale
        oracle = MarginalOracle(fit.calibrated)
        feasible = _feasible(candidates, measured_sets, oracle, sizes, max_model_cells, too_large)
        if workload:
            feasible = _uncovered(feasible, measured_sets)
        scores = [quality(exact[c], oracle.marginal(c.attributes) * total, weight[c], penalty)
                  for c in feasible]
        chosen = feasible[_selector(select, sensitivity).release(
            scores, accountant, rng, step=select.step, measured=f"one of {len(feasible)} candidate marginals")]
        label = " × ".join(attrs[a].name for a in chosen.attributes)
        measurements.append(_measure(table, chosen, measure, sensitivity, accountant, rng,
                                     f"{exact[chosen].size}-cell marginal {label}", len(measurements),
                                     counts=exact[chosen]))
        measured_sets.append(chosen.attributes)
        selected.append(chosen)
        total = _total(measurements, n, count_variance)
        last = t == rounds
        new = matched_start(measurements[-1], oracle.marginal(chosen.attributes)) if refits.matched else None
        fit = estimate(encoding, measurements, total, start=_warm(fit.log_potentials) + [new],
                       max_iterations=final_iterations(tree_cells(sizes, measured_sets)) if last else refits.iterations)
        if progress is not None:
            progress(t, rounds)
    return Fitted(tuple(measurements), fit, tuple(selected), total)


def refits_for(signal: float, zcdp_rules: bool = False) -> Refits:
    """The re-fits of a fit at ``signal`` n·ε/Δ (:meth:`~privbayes.methods.adaptive.settings.AdaptiveSettings.signal`,
    public): above :data:`~privbayes.methods.adaptive.settings.LARGE_SIGNAL` the new measurement starts matched
    (:func:`matched_start`); below it as before, so small fits are unchanged.  Under the zCDP rules
    (:attr:`~privbayes.methods.adaptive.settings.AdaptiveSettings.zcdp_rules`) every re-fit starts matched and runs
    :data:`ZCDP_ROUND_ITERATIONS` steps: on Adult at ε = 1.6 a third of the time, the same accuracy within the
    seeds' spread (docs/decisions.md, "zCDP mode")."""
    if zcdp_rules:
        return Refits(ZCDP_ROUND_ITERATIONS, matched=True)
    if not signal > LARGE_SIGNAL:
        return Refits()
    return Refits(ROUND_ITERATIONS, matched=True)


def final_iterations(cells: int) -> int:
    """The last fit's iteration bound for a junction tree of ``cells`` cells.  Warm-started from 50-iteration
    re-fits, it is where the model is released, and the estimator's own bound (200) stopped it far from its
    tolerance on large samples (docs/decisions.md, "Capacity that follows n·ε": 1,130 iterations to converge
    on 10⁶ rows); the work bound keeps its time within FINAL_WORK cell-updates."""
    return min(FINAL_MAX_ITERATIONS, max(MAX_ITERATIONS, FINAL_WORK // max(1, cells)))


def matched_start(measurement: NoisyTable, model: np.ndarray) -> np.ndarray:
    """A new measurement's starting log-potential: log(y/Σy) − log p̂, its table's normalised noisy counts y
    (negatives clipped, floored as :func:`~privbayes.estimation.consistent.estimate`'s start) over the current
    model's marginal p̂ of its attributes.  Added to the warm model it makes that model's marginal on a clique
    equal to y: one step of iterative proportional fitting (Deming & Stephan 1940), where the paper's start
    log Pr*[X | Π] counts the parents' marginal twice.  With precise measurements (a large n·ε) mirror descent
    from the paper's start needs hundreds of steps to undo that (docs/decisions.md, "Capacity that follows n·ε").
    Reads released values only."""
    target = np.maximum(np.asarray(measurement.counts, dtype=np.float64), 0.0)
    target = target / target.sum() if target.sum() > 0 else np.full(target.shape, 1.0 / target.size)
    target = (1 - FLOOR) * target + FLOOR / target.size
    return np.asarray(np.log(target) - np.log(np.maximum(model, FLOOR / model.size)), dtype=np.float64)


def _warm(log_potentials: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The last fit's log-potentials as the next start, with impossible cells (−∞: a projection's zeros)
    lifted to the estimator's floor, so that a later measurement can still put mass there."""
    return [np.where(np.isfinite(t), t, math.log(FLOOR / t.size)) for t in log_potentials]


def _measure(table: PrivateTable, candidate: Candidate, release: PlannedRelease, sensitivity: Fraction,
             accountant: Accountant | ZCDPAccountant, rng: RandomSource, measured: str, index: int,
             counts: np.ndarray | None = None) -> NoisyTable:
    exact = table.counts(list(candidate.attributes), list(candidate.levels)) if counts is None else counts
    mechanism = _measurer(release, sensitivity)
    if isinstance(mechanism, DiscreteGaussian):
        if not isinstance(accountant, ZCDPAccountant):
            raise TypeError("a discrete Gaussian is charged to a zCDP accountant")
        noisy = mechanism.release(exact, accountant, rng, step=release.step, measured=measured)
        sigma = Fraction(math.sqrt(float(mechanism.sigma2)))
        return NoisyTable(index, candidate.variables, noisy, sigma, mechanism.sigma2)
    noisy = mechanism.release(exact, accountant, rng, step=release.step, measured=measured)
    return NoisyTable(index, candidate.variables, noisy, mechanism.scale)


def _total(measurements: Sequence[NoisyTable], n: int, count_variance: float | None) -> float:
    """The public n, or under add/remove the estimate of n from the noisy count (its noise of ``count_variance``)
    and every noisy table."""
    return float(n) if count_variance is None else estimated_total(measurements, n, None, count_variance)


def _uncovered(candidates: list[Candidate], measured: list[tuple[int, ...]]) -> list[Candidate]:
    """With a workload: the candidates that are not a proper subset of a measured set (all of them when every one
    is).  A covered candidate's marginal is already fitted to a measurement of more attributes, yet the workload's
    closure holds many of them (``income`` alone sits in most sets of a workload about income) and a selection at a
    small ε_s picks them almost as often as the sets still unmeasured (docs/decisions.md, "Workloads").  Reads
    released selections and the public first groups only."""
    covered = [set(m) for m in measured]
    kept = [c for c in candidates if not any(set(c.attributes) < m for m in covered)]
    return kept or candidates


def _feasible(candidates: Sequence[Candidate], measured: list[tuple[int, ...]], oracle: MarginalOracle,
              sizes: list[int], cap: int, too_large: set[tuple[int, ...]]) -> list[Candidate]:
    """The candidates whose attribute set keeps the model's junction tree within ``cap`` cells (AIM's
    model-size filter).  A set inside one clique of the model passes (it adds nothing to the tree); a
    set passes at once when merging the cliques that join it keeps the tree within the cap
    (:meth:`MarginalOracle.merged_cells`: no larger tree is needed), else when the
    triangulation of all measured sets with it does; a set found too large stays out for the rest of
    the fit (measurements are only ever added).  Every 1-way candidate passes.  Reads released values
    only: the selections made so far and the model fitted to the measurements."""
    out = []
    for c in candidates:
        s = c.attributes
        if s in too_large:
            continue
        inside = len(oracle.subtree(s)) == 1  # within one clique: the model does not grow
        if not inside and oracle.merged_cells(s, sizes) > cap and tree_cells(sizes, measured + [s]) > cap:
            too_large.add(s)
            continue
        out.append(c)
    return out
