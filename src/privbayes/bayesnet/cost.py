"""What a fit will cost, estimated from public inputs only (parameters, schema, n) before any count.

Used by ``privbayes fit`` (printed on ``--dry-run``, a warning above a minute) and by
``PrivBayes.fit``, which refuses a fit whose memory estimate exceeds
``limits().max_fit_bytes`` before reading a single count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Sequence

from privbayes.bayesnet.usefulness import domain_bound
from privbayes.errors import InputError
from privbayes.limits import limits


@dataclass(frozen=True)
class CostEstimate:
    """What a fit will cost, from public inputs only (parameters, schema, n), before any count.

    GreedyBayes (TODS 2017, Alg. 4) scores, at each step, every maximal θ-useful parent set
    (Alg. 5/6) of every remaining child; their number, not the size of one table, drives
    time and memory.  ``candidates`` bounds the last step's count from above (all generalised
    subsets within the bound τ of the smallest child, which has the largest τ);
    ``largest_cells`` is the largest noisy table (τ·|dom(X)|, Alg. 4 line 6).  Time and
    memory are rough fits to Adult on a 2-core machine (ε = 1, 10, 100: 10 s, 19 s, 197 s;
    0.3, 0.6, 11 GB): about 1.6·10⁻⁴ s and τ bytes per candidate.  With a fixed degree k
    (binary encodings) the candidates are the k-subsets of the placed attributes."""

    candidates: int
    largest_cells: int
    seconds: float
    bytes: int

    @property
    def time_class(self) -> str:
        return ("seconds" if self.seconds < 60 else "minutes" if self.seconds < 3600 else "hours")

    def describe(self) -> str:
        return (f"cost estimate: up to {self.candidates:,} candidate parent sets per step, largest noisy table "
                f"{self.largest_cells:,} cells; about {self.bytes / 2**30:,.1f} GB of memory; expected time: "
                f"{self.time_class}")


def count_parent_sets(level_sizes: Sequence[Sequence[int]], bound: int) -> int:
    """The number of generalised subsets (each attribute absent or at one of its levels) whose
    domain size is at most ``bound``: an upper bound on Alg. 5/6's maximal parent sets, counted
    without listing them (memoised on the integer bound, as Alg. 5's recursion)."""
    sizes = [tuple(s) for s in level_sizes]

    @lru_cache(maxsize=None)
    def count(i: int, left: int) -> int:
        if left < 1:
            return 0
        if i == len(sizes):
            return 1
        return count(i + 1, left) + sum(count(i + 1, left // s) for s in sizes[i])
    return count(0, bound)


def cost_estimate(model: Any, plan: Any, schema: Any) -> CostEstimate:
    """:class:`CostEstimate` of ``model`` (a PrivBayes-like estimator) on ``schema`` with budget ``plan``."""
    attrs = model.encoding_for(schema).attributes
    d, k, n = len(attrs), plan.setting("degree"), plan.setting("n")
    sizes = sorted(a.size for a in attrs)
    if k is not None:
        candidates = max(math.comb(d - 1, k), 1) if k else 1
        largest = math.prod(sizes[-(k + 1):]) if k else sizes[-1]
        per_candidate = 2 ** (k + 1)
    else:
        eps2 = (1 - Fraction(model.beta)) * Fraction(model.epsilon)
        small = min(range(d), key=lambda j: attrs[j].size)
        tau = domain_bound(n, d, eps2, model.theta, attrs[small].size)
        levels = [[a.level_size(i) for i in range(a.height)] for j, a in enumerate(attrs) if j != small]
        candidates = count_parent_sets(levels, math.floor(tau))
        largest = min(math.floor(domain_bound(n, d, eps2, model.theta, sizes[-1])) * sizes[-1], math.prod(sizes))
        per_candidate = max(1, math.floor(tau))
    return CostEstimate(candidates, int(largest), 1.6e-4 * candidates, candidates * per_candidate + 32 * int(largest))


def check_cost(cost: CostEstimate) -> None:
    """Refuse a fit whose memory estimate exceeds the guard (one line, with the settings to change)."""
    cap = limits().max_fit_bytes
    if cost.bytes > cap:
        raise InputError(f"this fit would need about {cost.bytes / 2**30:,.0f} GB of memory ({cost.candidates:,} "
                         f"candidate parent sets), more than the limit of {cap / 2**30:g} GB (PRIVBAYES_MAX_FIT_GB); "
                         "lower --epsilon, raise --theta, set --degree or use --encoding vanilla")


