"""Maximal parent sets under a domain-size bound (TODS 2017, Alg. 5 and Alg. 6)."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

from privbayes.bayesnet.network import Parent

ParentSet = frozenset[Parent]


def maximal_parent_sets(candidates: Sequence[int], tau: Fraction, level_sizes: Sequence[Sequence[int]]) -> list[ParentSet]:
    """All maximal generalised subsets of ``candidates`` whose domain size is at most ``tau``.

    ``level_sizes[a][i]`` is the domain size of attribute a at generalisation level i
    (level 0 = the attribute itself).  A set is maximal when no other set within the
    bound adds an attribute or holds a shared attribute at a lower level (§5.2).
    With one level per attribute this is Alg. 5; with taxonomy levels, Alg. 6.
    The result's order depends only on the inputs (never on data).
    """
    sizes = tuple(tuple(level_sizes[a]) for a in candidates)

    @lru_cache(maxsize=None)
    def solve(start: int, bound: int) -> tuple[ParentSet, ...]:
        if bound < 1:
            return ()
        if start == len(candidates):
            return (frozenset(),)
        attr = candidates[start]
        found: list[ParentSet] = []
        used: set[ParentSet] = set()
        for level, size in enumerate(sizes[start]):
            for rest in solve(start + 1, bound // size):
                if rest in used:
                    continue
                used.add(rest)
                found.append(rest | {(attr, level)})
        for rest in solve(start + 1, bound):
            if rest not in used:
                found.append(rest)
        return tuple(found)

    # Domain sizes are integers, so "product ≤ τ" is "product ≤ ⌊τ⌋", and ⌊⌊τ⌋/s⌋ = ⌊τ/s⌋:
    # the search runs on integers.
    return list(solve(0, math.floor(Fraction(tau))))
