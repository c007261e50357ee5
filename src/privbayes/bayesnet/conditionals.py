"""NoisyConditionals: private conditional distributions of a network (TODS 2017, Alg. 1 and Alg. 3).

Each released joint table Pr*[X_i, Π_i] gets discrete Laplace noise on every cell
(empty cells included) at scale 2/ε_table in counts, i.e. 2/(n ε_table) in
probabilities (:mod:`privbayes.bayesnet.measurements`); negatives are set to 0 and the
table is normalised (the paper), or the table is projected onto the simplex.

* Alg. 3 (``degree=None``): all d tables, ε2/d each: noise Lap(2d/(nε2)).
* Alg. 1 (``degree=k``): tables k+1..d, ε2/(d−k) each: noise Lap(2(d−k)/(nε2));
  the first k conditionals are derived from Pr*[X_{k+1}, Π_{k+1}] for free, which
  is possible because Π_{k+1} = {X_1, …, X_k} in Alg. 2's networks.

A parent configuration with no noisy mass has no conditional; it falls back to
the child's marginal in the same noisy table (free post-processing), or to the
uniform distribution if that is empty too (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from privbayes.bayesnet.measurements import measure_tables
from privbayes.bayesnet.network import APPair, Network, Parent
from privbayes.counting import PrivateTable
from privbayes.estimation.measurements import NoisyTable
from privbayes.estimation.tables import conditional_from_joint
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import RandomSource


def _variables(pair: APPair) -> list[Parent]:
    """Axes of a pair's joint table: its parents, then the child at level 0."""
    return list(pair.parents) + [(pair.child, 0)]


def _normalised(table: np.ndarray, total: float | None = None) -> np.ndarray:
    """A noisy count table as a distribution.

    ``total=None`` (the paper, Alg. 1/3): negative cells set to 0, then normalised.
    ``total=n``: the Euclidean projection onto {p ≥ 0, Σp = n} (n is public), then / n
    (Duchi et al. 2008) — the valid table nearest to the noisy one; clipping instead adds the
    noise of every empty cell to the mass (≈ half the noise scale per cell).
    """
    y = np.asarray(table, dtype=np.float64)
    if total is not None and total > 0:
        flat = y.ravel()
        order = np.sort(flat)[::-1]
        shifts = (np.cumsum(order) - total) / np.arange(1, flat.size + 1)
        shift = shifts[np.flatnonzero(order - shifts > 0)[-1]]
        return (np.maximum(y - shift, 0.0) / total)
    clipped = np.maximum(y, 0.0)
    mass = clipped.sum()
    if mass <= 0:
        return np.full(clipped.shape, 1.0 / clipped.size)
    return clipped / mass


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
    projected: bool = False,
) -> list[np.ndarray]:
    """One conditional per AP pair, shaped (parent sizes…, child size).

    ``budgets`` maps the index of every measured pair to the ε of its noisy table (from
    the budget plan); ``None`` uses exact counts: NOT private, only for the paper's
    BestMarginal analysis (§6.4).  With ``degree = k`` (Alg. 1) the pairs before k are
    not measured: they are derived from pair k's table.  ``projected`` turns each noisy
    table into a distribution by Euclidean projection (see :func:`_normalised`) instead of
    the paper's clipping; both are post-processing of the same paid-for tables.
    """
    measurements = measure_tables(table, network, budgets, accountant, rng)
    return conditionals_from_tables(network, measurements, table.n, degree, projected)


def conditionals_from_tables(network: Network, measurements: Sequence[NoisyTable], n: float,
                             degree: int | None = None, projected: bool = False) -> list[np.ndarray]:
    """Alg. 1/3's conditionals from already-measured tables (post-processing: reads no data)."""
    pairs = network.pairs
    d = len(pairs)
    total = n if projected else None
    joints = {m.pair: _normalised(m.counts, total) for m in measurements}
    conditionals: list[np.ndarray] = [np.empty(0)] * d
    for i in joints:
        conditionals[i] = conditional_from_joint(joints[i])
    k = degree or 0
    for i in range(k):
        source = pairs[k]
        if not set(_variables(pairs[i])) <= set(_variables(source)):
            raise ValueError(f"Alg. 1 needs pair {i + 1}'s attributes inside pair {k + 1}'s; "
                             "the network is not from Alg. 2")
        conditionals[i] = conditional_from_joint(_marginalise(joints[k], _variables(source), _variables(pairs[i])))
    return conditionals
