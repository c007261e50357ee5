"""Bob's possible-worlds attack (Mozafari & Zaniolo, VLDB 2009, §1, §4 eq. (4), §8.1).

Bob knows Alice's values I0 on a quasi-identifier I and the published views.  Every table
consistent with the views is equally likely (§4); he averages, over those tables that contain
a tuple matching I0, the share of matching tuples with class c.

Within class c the table is P_c rows whose i-th column is a uniformly random arrangement of the
multiset {t repeated N^i_{t,c} times}, independently per column and per class (Fig. 1 lists
exactly these arrangements).  The number K_c of class-c rows matching I0 is then a chain of
hypergeometric draws: the N^{i1}_{t,c} rows matching the first attribute, of which
Hyp(P_c, N^{i2}_{t,c}, ·) match the second, and so on.  :func:`posterior_exact` computes

    P2(c | I0) = E[K_c / Σ_c' K_c' | Σ_c' K_c' > 0]

exactly (fractions) for small views; :func:`posterior_limit` is its limit when every count is
scaled up (K_c concentrates at E[K_c] = P_c Π_{i∈I} N^i_{t_i,c}/P_c), which is what Bob gets
from the large integers SafetyTransform publishes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from privbayes.core.errors import InputError
from privbayes.methods.nbc.approx import ln_float
from privbayes.methods.nbc.views import NBCViews

MAX_SUBSET_ATTRIBUTES = 12
"""Largest n for which every one of the 2^n − 1 quasi-identifiers is measured."""
EXACT_LIMIT = 2000
"""Largest P_c for which the exact chained-hypergeometric posterior is computed."""


def _hypergeometric(population: int, successes: int, draws: int) -> dict[int, Fraction]:
    total = math.comb(population, draws)
    return {j: Fraction(math.comb(successes, j) * math.comb(population - successes, draws - j), total)
            for j in range(max(0, draws - (population - successes)), min(successes, draws) + 1)}


def matches_distribution(views: NBCViews, c: int, i0: dict[int, int]) -> dict[int, Fraction]:
    """Distribution of K_c, the number of class-c rows that match I0 (chained hypergeometric)."""
    p = int(views.prior[c])
    if p > EXACT_LIMIT:
        raise InputError(f"exact possible-world counting is limited to classes of at most {EXACT_LIMIT} rows")
    items = sorted(i0.items())
    first, t = items[0]
    dist = {int(views.attributes[first].counts[t][c]): Fraction(1)}
    for i, t in items[1:]:
        successes = int(views.attributes[i].counts[t][c])
        step: dict[int, Fraction] = {}
        for draws, weight in dist.items():
            for j, q in _hypergeometric(p, successes, draws).items():
                step[j] = step.get(j, Fraction(0)) + weight * q
        dist = step
    return dist


def posterior_exact(views: NBCViews, i0: dict[int, int]) -> list[Fraction]:
    """P2(c | I0) of eq. (4) over all possible worlds, exactly (views must be realistic and small)."""
    if not i0:
        raise InputError("the quasi-identifier must name at least one attribute")
    if not views.is_realistic():
        raise InputError("possible worlds exist only for realistic views (Σ_t N^i_{t,c} = P_c)")
    dists = [matches_distribution(views, c, i0) for c in range(views.classes)]
    shares = [Fraction(0)] * views.classes
    mass = Fraction(0)
    for combo in itertools.product(*(d.items() for d in dists)):
        total = sum(k for k, _ in combo)
        if total == 0:
            continue
        weight = math.prod(q for _, q in combo)
        mass += weight
        for c, (k, _) in enumerate(combo):
            shares[c] += weight * Fraction(k, total)
    if mass == 0:
        raise InputError("no possible world contains a tuple matching the quasi-identifier")
    return [s / mass for s in shares]


def _log(value: int | Fraction) -> float:
    return ln_float(value) if value else -math.inf


def posterior_limit(views: NBCViews, subset: Sequence[int]) -> np.ndarray:
    """P2(c | I0) in the large-count limit for every value I0 of the attributes ``subset``:
    an array with one axis per attribute of the subset and a last axis over classes (NaN where
    no world contains I0)."""
    logs = np.array([_log(p) for p in views.prior])
    total = logs.copy()
    shape: list[int] = []
    for i in subset:
        counts = views.attributes[i].counts
        term = np.array([[_log(v) for v in row] for row in counts]) - logs
        total = total[..., None, :] + term.reshape((1,) * len(shape) + term.shape)
        shape.append(len(counts))
    top = np.max(total, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        weights = np.exp(total - top)
        out: np.ndarray = weights / weights.sum(axis=-1, keepdims=True)
        return out


def measured_breach(views: NBCViews, prior: Sequence[float] | None = None, max_cells: int = 1 << 22
                    ) -> tuple[float, float]:
    """(amplification, r-closeness) Bob actually reaches in the large-count limit, over every
    non-empty quasi-identifier I and every value I0: max_c P2/min_c P2, and
    max_c max(P2/F(c), F(c)/P2) for the prior F (uniform when None)."""
    if views.n > MAX_SUBSET_ATTRIBUTES:
        raise InputError(f"more than {MAX_SUBSET_ATTRIBUTES} attributes: too many quasi-identifiers to measure")
    f = np.full(views.classes, 1 / views.classes) if prior is None else np.array([float(x) for x in prior])
    amp, close = 1.0, 1.0
    for size in range(1, views.n + 1):
        for subset in itertools.combinations(range(views.n), size):
            if math.prod(len(views.attributes[i].values) for i in subset) * views.classes > max_cells:
                raise InputError(f"the quasi-identifiers have more than {max_cells} cells; measurement refused")
            post = posterior_limit(views, subset).reshape(-1, views.classes)
            post = post[np.all(np.isfinite(post), axis=1)]
            if len(post) == 0:
                continue
            with np.errstate(divide="ignore"):
                amp = max(amp, float(np.max(post.max(axis=1) / post.min(axis=1))))
                close = max(close, float(np.max(np.maximum(post / f, f / post))))
    return amp, close
