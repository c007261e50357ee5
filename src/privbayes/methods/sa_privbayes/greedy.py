"""SA-PrivBayes's network learning in a given attribute order (Future Internet 2026, Alg. 1 lines 4-21).

The first node and the order of the children come from the AMI order (lines 3-4, 6): step i's
child is ``order[i]``, so the exponential mechanism chooses only the parent set Π, among the subsets
of the placed attributes of size min(k, |V|) (line 8; GreedyBayes's
:func:`~privbayes.bayesnet.greedy.fixed_degree_candidates`).  Before each selection a screening
hook keeps part of the list (lines 9-18); the mode decides which rule (strict: post-processing of
the noisy MIM; faithful: the paper's threshold on exact scores).  The selection (line 19) is the
library's :class:`~privbayes.privacy.mechanisms.Exponential` at ε_exp/(d − 1).

Quality (decision).  The score of (X, Π) is Σ_{p∈Π} I(X; p) read off the exact MIM — §5.2's "total
mutual information between the target attribute and its parent set", whose cost does not grow with
k (no (k+1)-way table is counted).  Replacing one tuple moves each I(X; p) by at most S_{X,p}
(TODS 2017, Lemma 4.1, binary bound when X or p has ≤ 2 values), so the sum moves by at most
Σ_{p∈Π} S_{X,p}; the mechanism is charged at the largest such bound over the step's full list,
which depends on public domain sizes only.  The joint I(X; Π) would have the smaller sensitivity S
but needs the (k+1)-way counts of every candidate and is not the score the screening and the budget
weights rank by; with the sum the exponential mechanism ranks the screened list on the same scale.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from privbayes.bayesnet.greedy import fixed_degree_candidates
from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.scores import MutualInformation
from privbayes.methods.sa_privbayes.ami import MutualInformationMatrix
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import Exponential
from privbayes.privacy.samplers import RandomSource

Screen = Callable[[int, int, list[list[int]]], Sequence[int]]
"""(step, child, candidate parent sets) → positions kept in the list (at least one)."""


def _bound(n: int, child_size: int, parent_sizes: Sequence[int]) -> Fraction:
    """Σ over the parents of S_{X,p}, from the domain sizes alone (TODS 2017 Lemma 4.1, rounded up)."""
    score = MutualInformation()
    return sum((score.sensitivity(n, child_size, size) for size in parent_sizes), Fraction(0))


def total_sensitivity(n: int, sizes: Sequence[int], child: int, parents: Sequence[int]) -> Fraction:
    """Σ_{p∈Π} S_{X,p}: how far Σ_{p∈Π} I(X; p) can move when one of n tuples is replaced (rounded up)."""
    return _bound(n, sizes[child], [sizes[p] for p in parents])


def list_sensitivity(n: int, sizes: Sequence[int], child: int, parent_sets: Sequence[Sequence[int]]) -> Fraction:
    """The largest :func:`total_sensitivity` over a candidate list, exactly; computed once per distinct
    multiset of parent domain sizes (public), not once per candidate."""
    shapes = {tuple(sorted(sizes[p] for p in parents)) for parents in parent_sets}
    return max(_bound(n, sizes[child], shape) for shape in shapes)


def ordered_greedy_bayes(n: int, sizes: Sequence[int], quality: MutualInformationMatrix, order: Sequence[int],
                         degree: int, epsilon_exp: Fraction, accountant: Accountant, rng: RandomSource,
                         screen: Screen, progress: Callable[[int, int], None] | None = None) -> Network:
    """The network of Alg. 1: ``order[0]`` first, then each ``order[i]`` with the Π chosen by the
    exponential mechanism (ε_exp/(d − 1) per step, quality Σ_{p∈Π} ``quality``[X, p]) among the
    candidates ``screen`` keeps."""
    d = len(order)
    if sorted(order) != list(range(d)) or d != len(sizes) or d != quality.d:
        raise ValueError("the order must be a permutation of the attributes of the matrix")
    candidates = fixed_degree_candidates(degree)
    pairs = [APPair(order[0])]
    for step in range(1, d):
        child, placed = order[step], list(order[:step])
        options = candidates(child, placed)
        parent_sets = [[a for a, _ in parents] for parents in options]
        kept = list(screen(step, child, parent_sets))
        if not kept or len(set(kept)) != len(kept) or not all(0 <= i < len(options) for i in kept):
            raise ValueError(f"step {step}: screening must keep distinct positions of the candidate list")
        sensitivity = list_sensitivity(n, sizes, child, parent_sets)
        scores = quality.values[child][np.array([parent_sets[i] for i in kept])].sum(axis=1)  # Σ_{p∈Π} MIM[X, p]
        chosen = Exponential(Fraction(epsilon_exp) / (d - 1), sensitivity).release(
            scores, accountant, rng, step=f"network step {step}/{d - 1}",
            measured=f"Σ MI of {len(kept)} screened AP pairs (of {len(options)})")
        pairs.append(APPair(child, tuple(options[kept[chosen]])))
        if progress is not None:
            progress(step, d - 1)
    return Network(tuple(pairs))
