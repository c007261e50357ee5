"""From privacy losses to a lower bound on ε: threshold events and one-sided Clopper-Pearson bounds.

For an ε-DP release and any event E of its transcript, Pr[E | D] ≤ e^ε Pr[E | D'] (and the symmetric
inequality).  The most powerful events are the level sets of the privacy loss L (Neyman-Pearson):
E_hi = {L ≥ t} for the direction D ‖ D' and E_lo = {L ≤ t'} for D' ‖ D.  With one-sided Clopper-Pearson
bounds, a lower bound on Pr[E | D] and an upper bound on Pr[E | D'], each at level α/4 (two events, two
probabilities each: Bonferroni), ε ≥ max(ln(p_D⁻(E_hi)/p_D'⁺(E_hi)), ln(p_D'⁻(E_lo)/p_D⁺(E_lo))) holds with
probability ≥ 1 − α.  Thresholds are fixed before the counted runs: analytically for a mechanism alone (its
largest loss), else chosen on separate calibration runs (choosing them on the counted runs would make the
bound optimistic).

An (ε, δ) claim (a zCDP mechanism's, at the δ it is stated at) allows Pr[E | D] ≤ e^ε Pr[E | D'] + δ, so the bound is
ln((p_D⁻(E) − δ)/p_D'⁺(E)) there (``delta``; 0 for pure ε, where nothing changes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privbayes.audit.mia import clopper_pearson_upper

CONFIDENCE = 0.95
"""The audit's confidence level: the bound exceeds the true ε with probability at most 5 %."""

EVENTS = 2
"""Events tested per audit (E_hi and E_lo): the Bonferroni divisor, with two probabilities per event."""

CALIBRATION_LEVEL = 0.16
"""One-sided level of the pessimistic calibration frequencies (about one standard deviation)."""


def clopper_pearson_lower(successes: int, trials: int, alpha: float) -> float:
    """One-sided (1 − α) lower confidence bound on a binomial proportion (0 when there is no success)."""
    return 1.0 - clopper_pearson_upper(trials - successes, trials, alpha)


def ratio_bound(hits: int, trials: int, other_hits: int, other_trials: int, alpha: float,
                delta: float = 0.0) -> float:
    """ln((p⁻ − δ)/q⁺): the lower bound of hits/trials less ``delta`` over the upper bound of
    other_hits/other_trials, each at level ``alpha``; −∞ when the numerator is not positive."""
    lower = clopper_pearson_lower(hits, trials, alpha) - delta
    upper = clopper_pearson_upper(other_hits, other_trials, alpha)
    return math.log(lower / upper) if lower > 0 else -math.inf


@dataclass(frozen=True)
class Event:
    """A threshold event of the loss and what the counted runs found."""

    name: str
    threshold: float
    hits_d: int
    hits_d2: int
    bound: float

    def to_dict(self) -> dict[str, object]:
        return {"event": self.name, "threshold": _finite(self.threshold), "hits_on_D": self.hits_d,
                "hits_on_D_prime": self.hits_d2, "epsilon_lower": _finite(self.bound)}


def _finite(value: float) -> float | str:
    return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")


def _level(confidence: float) -> float:
    return (1 - confidence) / (2 * EVENTS)


def events(loss_d: np.ndarray, loss_d2: np.ndarray, high: float, low: float,
           confidence: float = CONFIDENCE, delta: float = 0.0) -> tuple[Event, Event]:
    """E_hi = {L ≥ high} (D ‖ D') and E_lo = {L ≤ low} (D' ‖ D) counted on the runs' losses (bounds at ``delta``)."""
    alpha = _level(confidence)
    n_d, n_d2 = len(loss_d), len(loss_d2)
    hi_d, hi_d2 = int(np.sum(loss_d >= high)), int(np.sum(loss_d2 >= high))
    lo_d, lo_d2 = int(np.sum(loss_d <= low)), int(np.sum(loss_d2 <= low))
    return (Event("L >= t", high, hi_d, hi_d2, ratio_bound(hi_d, n_d, hi_d2, n_d2, alpha, delta)),
            Event("L <= -t'", low, lo_d, lo_d2, ratio_bound(lo_d2, n_d2, lo_d, n_d, alpha, delta)))


def calibrate(loss_d: np.ndarray, loss_d2: np.ndarray, confidence: float = CONFIDENCE,
              runs: int | None = None, delta: float = 0.0) -> tuple[tuple[float, float], float]:
    """The thresholds (t, t') with the largest expected bounds, and that bound: each candidate threshold (a
    value of these calibration losses) is scored by the bound its pessimistic calibration frequencies would
    give on ``runs`` counted runs per table (default: as many as the calibration runs) at ``delta``."""
    alpha = _level(confidence)
    values = np.unique(np.round(np.concatenate([loss_d, loss_d2]), 9))
    sorted_d, sorted_d2 = np.sort(loss_d), np.sort(loss_d2)
    n_d, n_d2 = len(loss_d), len(loss_d2)
    size = runs or n_d

    def expected(hits: int, trials: int, other: int, other_trials: int) -> float:
        # pessimistic frequencies (one-sigma Clopper-Pearson on the calibration runs): a rare event that looked
        # good by chance is not chosen over a frequent one (the winner's curse of a search over many thresholds)
        p = clopper_pearson_lower(hits, trials, CALIBRATION_LEVEL)
        q = clopper_pearson_upper(other, other_trials, CALIBRATION_LEVEL)
        return ratio_bound(round(p * size), size, round(q * size), size, alpha, delta)
    best_hi, best_lo = (-math.inf, math.inf), (-math.inf, -math.inf)
    for t in values:
        at_least = t - 1e-9
        hi_d = n_d - int(np.searchsorted(sorted_d, at_least, side="left"))
        hi_d2 = n_d2 - int(np.searchsorted(sorted_d2, at_least, side="left"))
        bound = expected(hi_d, n_d, hi_d2, n_d2)
        if bound > best_hi[0]:
            best_hi = (bound, at_least)
        at_most = t + 1e-9
        lo_d = int(np.searchsorted(sorted_d, at_most, side="right"))
        lo_d2 = int(np.searchsorted(sorted_d2, at_most, side="right"))
        bound = expected(lo_d2, n_d2, lo_d, n_d)
        if bound > best_lo[0]:
            best_lo = (bound, at_most)
    return (best_hi[1], best_lo[1]), max(best_hi[0], best_lo[0])


def epsilon_lower(found: tuple[Event, Event]) -> float:
    """The audit's lower bound: the larger event bound, at least 0."""
    return max(0.0, *(e.bound for e in found))
