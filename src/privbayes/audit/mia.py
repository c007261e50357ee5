"""Membership-inference auditing: turn an attack's success into a lower bound on ε.

Following the tight-auditing recipe for synthetic data (Annamalai, Ganev and De Cristofaro,
USENIX Security 2024; Jagielski et al. 2020; Nasr et al. 2021): fit the generator many times
on neighbouring datasets D0 (without the target) and D1 (with a worst-case target replacing
one tuple), score every release with an attack, threshold the scores, and bound the attack's
false-positive and false-negative rates from above with Clopper–Pearson.  Any ε-DP release
obeys FPR + e^ε·FNR ≥ 1 − δ and FNR + e^ε·FPR ≥ 1 − δ, so

    ε ≥ max( ln((1 − δ − FPR⁺)/FNR⁺), ln((1 − δ − FNR⁺)/FPR⁺) )

holds with probability ≥ 1 − α when FPR⁺ and FNR⁺ are one-sided upper bounds at level α/2
each.  With m releases per side the largest certifiable bound is ln((1 − p)/p) for
p = 1 − (α/2)^{1/m} (about 2.8 for m = 50, α = 0.1): an audit of this size can refute a
claim of ε ≲ 2.8, not of larger ε.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privbayes.counting import leaf_codes


def clopper_pearson_upper(successes: int, trials: int, alpha: float) -> float:
    """One-sided (1 − α) upper confidence bound on a binomial proportion."""
    from scipy.stats import beta

    if not 0 <= successes <= trials or trials < 1:
        raise ValueError(f"need 0 ≤ successes ({successes}) ≤ trials ({trials}) and trials ≥ 1")
    if successes == trials:
        return 1.0
    return float(beta.ppf(1 - alpha, successes + 1, trials - successes))


def epsilon_lower_bound(false_positives: int, negatives: int, false_negatives: int, positives: int, *,
                        alpha: float = 0.1, delta: float = 0.0) -> float:
    """The (1 − α)-confidence lower bound on ε from an attack's error counts (0 if none)."""
    fpr = clopper_pearson_upper(false_positives, negatives, alpha / 2)
    fnr = clopper_pearson_upper(false_negatives, positives, alpha / 2)
    bounds = [0.0]
    if fnr > 0 and 1 - delta - fpr > 0:
        bounds.append(math.log((1 - delta - fpr) / fnr))
    if fpr > 0 and 1 - delta - fnr > 0:
        bounds.append(math.log((1 - delta - fnr) / fpr))
    return max(bounds)


def max_certifiable_epsilon(runs_per_side: int, alpha: float = 0.1) -> float:
    """The bound a perfect attack (no errors) certifies with this many releases per side."""
    return epsilon_lower_bound(0, runs_per_side, 0, runs_per_side, alpha=alpha)


@dataclass(frozen=True)
class ThresholdAttack:
    """Guess "member" when score ≥ threshold."""

    threshold: float

    def errors(self, scores_in: Sequence[float], scores_out: Sequence[float]) -> tuple[int, int]:
        """(false positives among the non-members, false negatives among the members)."""
        false_positives = int(np.sum(np.asarray(scores_out) >= self.threshold))
        false_negatives = int(np.sum(np.asarray(scores_in) < self.threshold))
        return false_positives, false_negatives


def choose_threshold(scores_in: Sequence[float], scores_out: Sequence[float], alpha: float = 0.1) -> ThresholdAttack:
    """The threshold with the largest ε lower bound on these (calibration) scores.

    Choose it on releases separate from the ones the bound is computed on, or the bound is
    optimistic (it would be maximised over thresholds).
    """
    candidates = np.unique(np.concatenate([np.asarray(scores_in, float), np.asarray(scores_out, float)]))
    candidates = np.concatenate([candidates, [np.inf]])
    best, best_bound = ThresholdAttack(float(candidates[0])), -1.0
    for t in candidates:
        attack = ThresholdAttack(float(t))
        fp, fn = attack.errors(scores_in, scores_out)
        bound = epsilon_lower_bound(fp, len(scores_out), fn, len(scores_in), alpha=alpha)
        if bound > best_bound:
            best, best_bound = attack, bound
    return best


# --- attack scores ---------------------------------------------------------------------------------

def model_log_likelihood(model, record: pd.DataFrame) -> float:
    """log Pr[record] under a fitted PrivBayes model (white box: the released model is public)."""
    leaves = leaf_codes(record, model.schema_)
    codes = model.encoding_.encode(leaves)[0]
    attrs = model.encoding_.attributes
    total = 0.0
    for pair, cond in zip(model.network_.pairs, model.conditionals_):
        index = tuple(int(attrs[a].levels[lvl][codes[a]]) for a, lvl in pair.parents) + (int(codes[pair.child]),)
        p = float(cond[index])
        total += math.log(p) if p > 0 else -1e6
    return total


def distance_score(synthetic_codes: np.ndarray, target_codes: np.ndarray) -> float:
    """Closeness of the nearest synthetic record to the target (black box).

    −(smallest Hamming distance over attributes) plus, as a tie-breaker, the share of synthetic
    records at that distance: higher means "the target looks present".
    """
    distances = (np.asarray(synthetic_codes) != np.asarray(target_codes)[None, :]).sum(axis=1)
    nearest = int(distances.min())
    return -nearest + float(np.mean(distances == nearest)) * 0.999


def rarest_record(frame: pd.DataFrame, schema) -> pd.DataFrame:
    """A worst-case target: every attribute at its least frequent value in ``frame`` (ties: first).

    Values come from the public domain (categories; the midpoint of the emptiest numeric bin),
    so the record is valid but typically unlike every row of the data.
    """
    leaves = leaf_codes(frame, schema)
    record = {}
    for j, attr in enumerate(schema.attributes):
        counts = np.bincount(leaves[:, j], minlength=attr.base_size)[: attr.base_size]
        code = int(np.argmin(counts))
        if attr.kind == "numeric":
            step = (attr.upper - attr.lower) / attr.bins
            value = attr.lower + (code + 0.5) * step
            record[attr.name] = [int(math.floor(value)) if attr.integer else value]
        else:
            record[attr.name] = [attr.categories[code]]
    return pd.DataFrame(record)
