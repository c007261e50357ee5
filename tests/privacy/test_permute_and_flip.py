"""Permute-and-flip (McKenna & Sheldon, NeurIPS 2020): the exact sampler's distribution, its privacy
bound and its advantage over the exponential mechanism.

The distribution is computed exactly by enumerating the orders of a few candidates:
P(i) = (1/n!) Σ_π p_i · Π_{j before i in π} (1 − p_j), p_j = exp(ε·(u_j − max u)/(2Δ)).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from helpers import chi_square_pvalue

from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import Exponential, PermuteAndFlip, permute_and_flip_choice
from privbayes.privacy.samplers import random_source


def exact_pf(scores: list[float], factor: float) -> np.ndarray:
    top = max(scores)
    accept = [math.exp(factor * (s - top)) for s in scores]
    n = len(scores)
    out = np.zeros(n)
    for order in itertools.permutations(range(n)):
        reach = 1.0
        for i in order:
            out[i] += reach * accept[i]
            reach *= 1 - accept[i]
    return out / math.factorial(n)


def softmax(scores: list[float], factor: float) -> np.ndarray:
    z = np.exp(factor * (np.array(scores) - max(scores)))
    return z / z.sum()


def test_permute_and_flip_matches_its_exact_distribution():
    # Frequencies of the exact sampler against the enumerated distribution; χ² rejects at p < 1e-6.
    scores = [0.0, 0.1, 0.35, 0.5, 0.2]
    epsilon, sensitivity, n = 1.0, 0.25, 20_000
    mechanism = PermuteAndFlip(epsilon, sensitivity)
    rng = random_source(707)
    chosen: Counter = Counter()
    for _ in range(n):
        chosen[mechanism.release(scores, Accountant(epsilon), rng, step="s", measured="m")] += 1
    target = exact_pf(scores, epsilon / (2 * sensitivity))
    assert abs(target.sum() - 1) < 1e-12
    assert chi_square_pvalue(chosen, dict(enumerate(target.tolist()))) > 1e-6


def test_permute_and_flip_is_exact_for_huge_gaps():
    # Float exponentials underflow; the exact coins never accept the −10⁴ option, and the two best are
    # equally likely (binomial test, p < 1e-6).
    from scipy import stats

    rng = random_source(808)
    picks = Counter(permute_and_flip_choice([0.0, -10_000.0, 0.0], Fraction(1), rng) for _ in range(4000))
    assert picks[1] == 0
    assert stats.binomtest(picks[0], 4000, 0.5).pvalue > 1e-6


@pytest.mark.parametrize("seed", range(20))
def test_permute_and_flip_is_epsilon_dp_and_beats_the_exponential_mechanism(seed):
    # For scores u and a neighbour u' (every score moved by at most Δ), P(i | u) ≤ e^ε·P(i | u') for every i
    # (Thm. 1), and PF's expected score is at least the exponential mechanism's at the same ε (Thm. 2).
    gen = np.random.default_rng(seed)
    epsilon, sensitivity = 1.5, 1.0
    factor = epsilon / (2 * sensitivity)
    scores = gen.uniform(-3, 3, size=5).tolist()
    moved = (np.array(scores) + gen.uniform(-sensitivity, sensitivity, size=5)).tolist()
    p, q = exact_pf(scores, factor), exact_pf(moved, factor)
    assert np.all(p <= math.exp(epsilon) * q * (1 + 1e-12)) and np.all(q <= math.exp(epsilon) * p * (1 + 1e-12))
    assert p @ np.array(scores) >= softmax(scores, factor) @ np.array(scores) - 1e-12


def test_permute_and_flip_declares_its_cost_and_charges_it():
    accountant = Accountant(1.0)
    PermuteAndFlip(Fraction(1, 4), Fraction(1)).release([1.0, 2.0], accountant, random_source(1), step="pick",
                                                        measured="one of 2")
    (entry,) = accountant.ledger
    assert (entry.step, entry.mechanism, entry.epsilon) == ("pick", "permute-and-flip", Fraction(1, 4))
    assert PermuteAndFlip(Fraction(1, 4), Fraction(1)).factor == Exponential(Fraction(1, 4), Fraction(1)).factor
    with pytest.raises(ValueError, match="at least one candidate"):
        PermuteAndFlip(1, 1).release([], Accountant(1.0), random_source(1), step="s", measured="m")
