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
    def rule(child: int, placed: Sequence[int]) -> list[tuple[Parent, ...]]:
        return [tuple((a, 0) for a in subset) for subset in combinations(sorted(placed), min(k, len(placed)))]
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
        omega = [(x, parents) for x in range(d) if x not in placed for parents in candidates(x, placed)]
        for x, parents in omega:
            parent_sizes = tuple(attrs[a].level_size(lvl) for a, lvl in parents)
            if not score.supports(attrs[x].size, parent_sizes):
                raise InputError(f"score {score.name} does not support attribute {attrs[x].name!r} "
                                 f"({attrs[x].size} values) or its parents; use score R or a binary encoding")
        for key in omega:  # a pair keeps its exact score across steps: compute each once
            if key not in known:
                known[key] = score(candidate_joint(table, *key))
        scores = [known[key] for key in omega]
        if epsilon1 is None:
            chosen = int(np.argmax(scores))
        else:
            sensitivity = max(score.sensitivity(table.n, attrs[x].size, int(np.prod([attrs[a].level_size(l) for a, l in p])))
                              for x, p in omega)
            chosen = exponential_mechanism(
                scores, Fraction(epsilon1) / (d - 1), sensitivity, accountant, rng,
                step=f"network step {step}/{d - 1}", measured=f"score {score.name} of {len(omega)} AP pairs")
        x, parents = omega[chosen]
        pairs.append(APPair(x, parents))
        placed.append(x)
        if progress is not None:
            progress(step, d - 1)
    return Network(tuple(pairs))
