"""Maximal parent sets under a domain-size bound (TODS 2017, Alg. 5 and Alg. 6), and their count.

Alg. 5 recurses once per candidate attribute; with hundreds of attributes that exceeds
Python's recursion limit (a 500-column schema ended in ``RecursionError``).  Both functions
here run the same memoised recursion bottom-up instead: a forward pass collects, attribute by
attribute, the integer bounds the recursion would reach (each is ⌊⌊τ⌋/m⌋ for a product m of
domain sizes, so there are at most 2√τ of them per attribute), and a backward pass evaluates
the recursion's cases on exactly those states, from the last attribute to the first.  The
results, and their order, are those of the recursive definition (``tests/bayesnet/test_parentsets.py``
and ``tests/bayesnet/test_candidate_cap.py`` compare them with brute force).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from privbayes.bayesnet.network import Parent

ParentSet = frozenset[Parent]


def _reachable_bounds(sizes: Sequence[Sequence[int]], bound: int) -> list[set[int]]:
    """``out[i]``: the bounds ≥ 1 that the recursion evaluates at attribute i (``out[len(sizes)]``
    at the end).  Bounds below 1 are left out: every case there is empty."""
    layers = [{bound} if bound >= 1 else set()]
    for level_sizes in sizes:
        following: set[int] = set()
        for left in layers[-1]:
            following.add(left)
            following.update(left // s for s in level_sizes if left // s >= 1)
        layers.append(following)
    return layers


def maximal_parent_sets(candidates: Sequence[int], tau: Fraction | int,
                        level_sizes: Sequence[Sequence[int]]) -> list[ParentSet]:
    """All maximal generalised subsets of ``candidates`` whose domain size is at most ``tau``.

    ``level_sizes[a][i]`` is the domain size of attribute a at generalisation level i
    (level 0 = the attribute itself).  A set is maximal when no other set within the
    bound adds an attribute or holds a shared attribute at a lower level (§5.2).
    With one level per attribute this is Alg. 5; with taxonomy levels, Alg. 6.
    The result's order depends only on the inputs (never on data).

    The recursion, for the candidates from ``start`` on under an integer bound b:
    solve(start, b) = () if b < 1; (∅,) past the last candidate; otherwise, for each level of
    the candidate in order, every set of solve(start + 1, ⌊b/size⌋) not yet used, with the
    candidate added at that level, then the sets of solve(start + 1, b) not used above.
    """
    sizes = [tuple(level_sizes[a]) for a in candidates]
    # Domain sizes are integers, so "product ≤ τ" is "product ≤ ⌊τ⌋", and ⌊⌊τ⌋/s⌋ = ⌊τ/s⌋:
    # the search runs on integers.
    bound = math.floor(Fraction(tau))
    layers = _reachable_bounds(sizes, bound)
    empty: tuple[ParentSet, ...] = ()
    below: dict[int, tuple[ParentSet, ...]] = {left: (frozenset(),) for left in layers[-1]}
    for start in range(len(candidates) - 1, -1, -1):
        attr, here = candidates[start], {}
        for left in layers[start]:
            found: list[ParentSet] = []
            used: set[ParentSet] = set()
            for level, size in enumerate(sizes[start]):
                for rest in below.get(left // size, empty):
                    if rest in used:
                        continue
                    used.add(rest)
                    found.append(rest | {(attr, level)})
            found.extend(rest for rest in below.get(left, empty) if rest not in used)
            here[left] = tuple(found)
        below = here
    return list(below.get(bound, empty))


def count_parent_sets(level_sizes: Sequence[Sequence[int]], bound: int) -> int:
    """The number of generalised subsets (each attribute absent or at one of its levels) whose
    domain size is at most ``bound``: an upper bound on Alg. 5/6's maximal parent sets, counted
    without listing them.  count(i, b) = 0 if b < 1; 1 past the last attribute; otherwise
    count(i + 1, b) + Σ over attribute i's levels of count(i + 1, ⌊b/size⌋), evaluated bottom-up."""
    sizes = [tuple(s) for s in level_sizes]
    layers = _reachable_bounds(sizes, bound)
    below = dict.fromkeys(layers[-1], 1)
    for i in range(len(sizes) - 1, -1, -1):
        below = {left: below.get(left, 0) + sum(below.get(left // s, 0) for s in sizes[i]) for left in layers[i]}
    return below.get(bound, 0)
