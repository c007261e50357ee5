"""GreedyBayes: private network learning with the exponential mechanism (TODS 2017, §4, §5.2).

The first attribute is drawn uniformly at random (data-independent).  Each of the
d − 1 further steps scores every candidate AP pair on the exact counts and picks
one with the exponential mechanism at ε1/(d − 1), so the network costs ε1 in all.
Candidates come from one of two rules:

* ``fixed_degree_candidates(k)``: Π ranges over subsets of the placed attributes of
  size min(k, |V|) (Alg. 2, made private as in §4.2-4.3);
* ``maximal_parent_candidates``: Π ranges over the maximal (generalised) parent
  sets whose table stays θ-useful (Alg. 4 with Alg. 5/6).
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations
from typing import Callable, Sequence

import numpy as np

from privbayes.bayesnet.network import APPair, Network, Parent
from privbayes.bayesnet.parentsets import maximal_parent_sets
from privbayes.bayesnet.scores import ScoreFunction
from privbayes.bayesnet.usefulness import domain_bound
from privbayes.counting import PrivateTable
from privbayes.errors import InputError
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import exponential_mechanism
from privbayes.privacy.samplers import RandomSource

CandidateRule = Callable[[int, Sequence[int]], list[tuple[Parent, ...]]]


def fixed_degree_candidates(k: int) -> CandidateRule:
    """Alg. 2, line 5: every Π ⊆ V of size min(k, |V|), all attributes ungeneralised."""
    cache: dict[tuple[int, ...], list[tuple[Parent, ...]]] = {}

    def rule(child: int, placed: Sequence[int]) -> list[tuple[Parent, ...]]:
        key = tuple(sorted(placed))
        if key not in cache:  # the same for every child of a step
            cache.clear()
            cache[key] = [tuple((a, 0) for a in subset) for subset in combinations(key, min(k, len(key)))]
        return cache[key]
    return rule


def maximal_parent_candidates(table: PrivateTable, epsilon2: Fraction, theta: float) -> CandidateRule:
    """Alg. 4, lines 5-10: the maximal θ-useful parent sets of X, or Π = ∅ if there are none."""
    attrs = table.encoding.attributes
    level_sizes = [[a.level_size(i) for i in range(a.height)] for a in attrs]
    d = len(attrs)

    def rule(child: int, placed: Sequence[int]) -> list[tuple[Parent, ...]]:
        tau = domain_bound(table.n, d, epsilon2, theta, attrs[child].size)
        sets = maximal_parent_sets(sorted(placed), tau, level_sizes)
        return [tuple(sorted(s)) for s in sets] or [()]
    return rule


def candidate_joint(table: PrivateTable, child: int, parents: tuple[Parent, ...]) -> np.ndarray:
    """Exact counts of (X, Π) laid out as ``joint[x, π]`` for the score functions."""
    attrs = [child] + [a for a, _ in parents]
    levels = [0] + [lvl for _, lvl in parents]
    counts = table.counts(attrs, levels)
    return counts.reshape(counts.shape[0], -1)


def _score_pairs(table: PrivateTable, score: ScoreFunction, pairs: list[tuple[int, tuple[Parent, ...]]],
                 known: dict) -> None:
    """Exact scores of ``pairs`` into ``known``: batched over shared parent sets when the
    back-end can count many binary families in one pass (§4.4's workload), else one by one."""
    families = getattr(table, "binary_families", None)
    if families is not None and all(lvl == 0 for _, parents in pairs for _, lvl in parents):
        by_parents: dict[tuple[Parent, ...], list[int]] = {}
        for x, parents in pairs:
            by_parents.setdefault(parents, []).append(x)
        groups: dict[tuple[tuple[int, ...], int], list[tuple[Parent, ...]]] = {}
        for parents, children in by_parents.items():
            groups.setdefault((tuple(children), len(parents)), []).append(parents)
        for (children, k), parent_sets in groups.items():
            tables = families(np.array([[a for a, _ in p] for p in parent_sets]).reshape(len(parent_sets), k),
                              np.array(children))
            if tables is None:
                break
            values = score.batch(tables.reshape(-1, 2, 2**k))
            for i, parents in enumerate(parent_sets):
                for j, x in enumerate(children):
                    known[(x, parents)] = float(values[i * len(children) + j])
    for key in pairs:
        if key not in known:
            known[key] = score(candidate_joint(table, *key))


def greedy_bayes(
    table: PrivateTable,
    score: ScoreFunction,
    candidates: CandidateRule,
    epsilon1: Fraction | None,
    accountant: Accountant | None,
    rng: RandomSource,
    progress: Callable[[int, int], None] | None = None,
) -> Network:
    """Learn a network; ``epsilon1=None`` picks the best-scoring pair exactly (NOT private:
    only for the paper's BestNetwork analysis, §6.4)."""
    attrs = table.encoding.attributes
    d = len(attrs)
    first = rng.randbelow(d)
    pairs = [APPair(first)]
    placed = [first]
    known: dict[tuple[int, tuple[Parent, ...]], float] = {}
    for step in range(1, d):
        per_child = {x: candidates(x, placed) for x in range(d) if x not in placed}
        omega = [(x, parents) for x, options in per_child.items() for parents in options]
        shapes_of = {id(options): {tuple(attrs[a].level_size(lvl) for a, lvl in parents) for parents in options}
                     for options in per_child.values()}  # Alg. 2 shares one list of options per step
        shapes = {(attrs[x].size, sizes) for x, options in per_child.items() for sizes in shapes_of[id(options)]}
        for child_size, parent_sizes in shapes:
            if not score.supports(child_size, parent_sizes):
                raise InputError(f"score {score.name} does not support a child of {child_size} values with parents of "
                                 f"{list(parent_sizes)} values; use score R or a binary/Gray encoding")
        # A pair keeps its exact score across steps: score each pair once.
        _score_pairs(table, score, [key for key in omega if key not in known], known)
        scores = [known[key] for key in omega]
        if epsilon1 is None:
            chosen = int(np.argmax(scores))
        else:
            sensitivity = max(score.sensitivity(table.n, c, math.prod(p)) for c, p in shapes)
            chosen = exponential_mechanism(
                scores, Fraction(epsilon1) / (d - 1), sensitivity, accountant, rng,
                step=f"network step {step}/{d - 1}", measured=f"score {score.name} of {len(omega)} AP pairs")
        x, parents = omega[chosen]
        pairs.append(APPair(x, parents))
        placed.append(x)
        if progress is not None:
            progress(step, d - 1)
    return Network(tuple(pairs))
