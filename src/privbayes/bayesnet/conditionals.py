"""NoisyConditionals: private conditional distributions of a network (TODS 2017, Alg. 1 and Alg. 3).

Each released joint table Pr*[X_i, Π_i] gets discrete Laplace noise on every cell
(empty cells included) at scale 2/ε_table in counts, i.e. 2/(n ε_table) in
probabilities; negatives are set to 0 and the table is normalised.

* Alg. 3 (``degree=None``): all d tables, ε2/d each: noise Lap(2d/(nε2)).
* Alg. 1 (``degree=k``): tables k+1..d, ε2/(d−k) each: noise Lap(2(d−k)/(nε2));
  the first k conditionals are derived from Pr*[X_{k+1}, Π_{k+1}] for free, which
  is possible because Π_{k+1} = {X_1, …, X_k} in Alg. 2's networks.

A parent configuration with no noisy mass has no conditional; it falls back to
the child's marginal in the same noisy table (free post-processing), or to the
uniform distribution if that is empty too (docs/decisions.md).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

import numpy as np

from privbayes.bayesnet.network import APPair, Network, Parent
from privbayes.counting import PrivateTable
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import laplace_counts
from privbayes.privacy.samplers import RandomSource


def _variables(pair: APPair) -> list[Parent]:
    """Axes of a pair's joint table: its parents, then the child at level 0."""
    return list(pair.parents) + [(pair.child, 0)]


def _normalised(table: np.ndarray) -> np.ndarray:
    clipped = np.maximum(np.asarray(table, dtype=np.float64), 0.0)
    total = clipped.sum()
    if total <= 0:
        return np.full(clipped.shape, 1.0 / clipped.size)
    return clipped / total


def conditional_from_joint(joint: np.ndarray) -> np.ndarray:
    """Pr[X | Π] from a joint over (Π…, X); empty parent rows use Pr[X] (or uniform)."""
    flat = joint.reshape(-1, joint.shape[-1])
    mass = flat.sum(axis=1, keepdims=True)
    marginal = flat.sum(axis=0)
    fallback = marginal / marginal.sum() if marginal.sum() > 0 else np.full(flat.shape[1], 1.0 / flat.shape[1])
    cond = np.where(mass > 0, flat / np.where(mass > 0, mass, 1.0), fallback)
    return cond.reshape(joint.shape)


def _marginalise(joint: np.ndarray, axes: list[Parent], keep: list[Parent]) -> np.ndarray:
    drop = tuple(i for i, v in enumerate(axes) if v not in keep)
    summed = joint.sum(axis=drop)
    remaining = [v for v in axes if v in keep]
    return np.transpose(summed, [remaining.index(v) for v in keep])


def noisy_conditionals(
    table: PrivateTable,
    network: Network,
    budgets: Mapping[int, Fraction | None],
    accountant: Accountant | None,
    rng: RandomSource,
    degree: int | None = None,
) -> list[np.ndarray]:
    """One conditional per AP pair, shaped (parent sizes…, child size).

    ``budgets`` maps the index of every measured pair to the ε of its noisy table (from
    the budget plan); ``None`` uses exact counts: NOT private, only for the paper's
    BestMarginal analysis (§6.4).  With ``degree = k`` (Alg. 1) the pairs before k are
    not measured: they are derived from pair k's table.
    """
    pairs = network.pairs
    d = len(pairs)
    joints: dict[int, np.ndarray] = {}
    for i in sorted(budgets):
        pair = pairs[i]
        axes = _variables(pair)
        exact = table.counts([a for a, _ in axes], [lvl for _, lvl in axes])
        share = budgets[i]
        if share is None:
            noisy = exact
        else:
            noisy = laplace_counts(exact, share, accountant, rng, step=f"conditional {i + 1}/{d}",
                                   measured=f"{exact.size}-cell table of AP pair {i + 1}")
        joints[i] = _normalised(noisy)
    conditionals: list[np.ndarray] = [np.empty(0)] * d
    for i in budgets:
        conditionals[i] = conditional_from_joint(joints[i])
    k = degree or 0
    for i in range(k):
        source = pairs[k]
        if not set(_variables(pairs[i])) <= set(_variables(source)):
            raise ValueError(f"Alg. 1 needs pair {i + 1}'s attributes inside pair {k + 1}'s; the network is not from Alg. 2")
        conditionals[i] = conditional_from_joint(_marginalise(joints[k], _variables(source), _variables(pairs[i])))
    return conditionals
