"""MaximalParentSets (TODS 2017, Alg. 5 and 6) against brute-force enumeration."""

import itertools
from fractions import Fraction
from math import prod

import numpy as np
import pytest

from privbayes.bayesnet.parentsets import maximal_parent_sets


def brute_force(candidates, tau, level_sizes):
    """Every generalised subset within τ that no other one dominates (§5.2's definition)."""
    options = [[None] + list(range(len(level_sizes[a]))) for a in candidates]
    feasible = []
    for choice in itertools.product(*options):
        chosen = {a: lvl for a, lvl in zip(candidates, choice) if lvl is not None}
        if prod(level_sizes[a][lvl] for a, lvl in chosen.items()) <= tau:
            feasible.append(chosen)

    def dominates(big, small):
        return big != small and set(small) <= set(big) and all(big[a] <= small[a] for a in small)

    return {frozenset(s.items()) for s in feasible if not any(dominates(o, s) for o in feasible)}


def random_domain(rng, n_attrs, hierarchical):
    sizes = []
    for _ in range(n_attrs):
        leaves = int(rng.integers(2, 9))
        levels = [leaves]
        while hierarchical and levels[-1] > 2 and rng.random() < 0.7:
            levels.append(int(rng.integers(2, levels[-1])))
        sizes.append(levels)
    return sizes


@pytest.mark.parametrize("hierarchical", [False, True], ids=["alg5-flat", "alg6-taxonomy"])
def test_matches_brute_force_on_random_domains(hierarchical):
    rng = np.random.default_rng(2017)
    for _ in range(150):
        n_attrs = int(rng.integers(0, 6))
        sizes = random_domain(rng, n_attrs, hierarchical)
        candidates = (sorted(rng.choice(n_attrs, size=int(rng.integers(0, n_attrs + 1)), replace=False).tolist())
                      if n_attrs else [])
        tau = Fraction(int(rng.integers(0, 200)), int(rng.integers(1, 4)))
        got = maximal_parent_sets(candidates, tau, sizes)
        assert len(got) == len(set(got)), "duplicates"
        assert set(got) == brute_force(candidates, tau, sizes)


def test_terminating_conditions():
    assert maximal_parent_sets([0, 1], Fraction(1, 2), [[2], [2]]) == []  # τ < 1
    assert maximal_parent_sets([], Fraction(3), []) == [frozenset()]      # V = ∅
    # τ = 1 admits only the empty set
    assert maximal_parent_sets([0], Fraction(1), [[2]]) == [frozenset()]


def test_exact_boundary_is_included():
    # 4 × 4 = 16 cells exactly at τ = 16 must be allowed (no floating-point rounding).
    assert maximal_parent_sets([0, 1], Fraction(16), [[4], [4]]) == [frozenset({(0, 0), (1, 0)})]
