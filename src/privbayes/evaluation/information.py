"""Information-theoretic diagnostics, all in bits (log base 2).

PrivBayes picks a Bayesian network N that maximises Σ_i I(X_i, Π_i), which
minimises the KL divergence between the data distribution and its
approximation Pr_N (TODS 2017, §4.1, Eq. 5-6).  These functions measure a
network's total mutual information on exact data, the quality measure of the
paper's score-function comparison (§6.2, Fig. 4).

They are computed from scratch rather than with the score functions in
``privbayes.bayesnet.scores``, so that the evaluation does not rely on the
code it evaluates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privbayes.evaluation.marginals import _check_attrs
from privbayes.schema.codes import check_codes, check_sizes, flat_index

# Tolerance on Σp = 1 accepted by kl_divergence.
_SUM_TOLERANCE = 1e-9


def mutual_information(codes: np.ndarray, sizes: Sequence[int], child: int, parents: Sequence[int]) -> float:
    """Empirical mutual information I(X, Π) in bits between column ``child`` and the
    joint variable formed by the columns ``parents`` (TODS 2017, Eq. 5).

    Parameters
    ----------
    codes : numpy.ndarray
        An integer-coded table, n × d: column j holds codes ``0 .. sizes[j] - 1``.
    sizes : sequence of int
        The number of codes of each column.
    child : int
        The column X.
    parents : sequence of int
        The columns forming Π (an empty set gives 0).

    Returns
    -------
    float
        I(X, Π) in bits, ≥ 0.
    """
    sizes_arr = check_sizes(sizes)
    arr = check_codes(codes, sizes_arr, "codes")
    parents = tuple(parents)
    _check_attrs((child, *parents), sizes_arr.size)
    if not parents:
        return 0.0
    child_size = int(sizes_arr[child])
    parent_cells = int(np.prod(sizes_arr[list(parents)]))
    index = flat_index(arr.T, sizes_arr, parents) * child_size + arr[:, child]
    joint = np.bincount(index, minlength=parent_cells * child_size).reshape(parent_cells, child_size)
    joint = joint / arr.shape[0]
    p_parents = joint.sum(axis=1, keepdims=True)
    p_child = joint.sum(axis=0, keepdims=True)
    mask = joint > 0
    ratio = joint[mask] / (p_parents @ p_child)[mask]
    # Clip tiny negative values left by floating-point rounding.
    return max(0.0, float(np.sum(joint[mask] * np.log2(ratio))))


def network_mutual_information(
    codes: np.ndarray, sizes: Sequence[int], network: Sequence[tuple[int, Sequence[int]]]
) -> float:
    """Σ_i I(X_i, Π_i) in bits over the attribute-parent pairs of ``network``.

    ``network`` is a sequence of ``(child_index, parent_indices)`` pairs, e.g.
    ``[(0, ()), (1, (0,)), (2, (0, 1))]``.  Maximising this sum is equivalent to
    minimising KL(Pr[A] ‖ Pr_N[A]) (TODS 2017, Eq. 6).

    Parameters
    ----------
    codes : numpy.ndarray
        An integer-coded table, n × d: column j holds codes ``0 .. sizes[j] - 1``.
    sizes : sequence of int
        The number of codes of each column.
    network : sequence of (int, sequence of int)
        The (child, parents) pairs.

    Returns
    -------
    float
        The sum in bits.
    """
    total = 0.0
    for position, pair in enumerate(network):
        if len(pair) != 2:
            raise ValueError(f"network[{position}] must be a (child, parents) pair, got {pair!r}")
        child, parents = pair
        total += mutual_information(codes, sizes, child, parents)
    return total


def kl_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """KL(p ‖ q) = Σ p log2(p / q) in bits between two distributions of the same shape.

    Parameters
    ----------
    p, q : numpy.ndarray
        Distributions of the same shape: finite, non-negative, each summing to 1.

    Returns
    -------
    float
        The divergence in bits, ≥ 0.

    Raises
    ------
    ValueError
        The shapes differ, an array is not a distribution, or q is 0 on a cell where p has mass (the
        divergence is then infinite).
    """
    p_arr = np.asarray(p, dtype=np.float64)
    q_arr = np.asarray(q, dtype=np.float64)
    if p_arr.shape != q_arr.shape:
        raise ValueError(f"p has shape {p_arr.shape} but q has shape {q_arr.shape}")
    for name, dist in (("p", p_arr), ("q", q_arr)):
        if not np.all(np.isfinite(dist)) or np.any(dist < 0):
            raise ValueError(f"{name} must be finite and non-negative")
        if abs(dist.sum() - 1.0) > _SUM_TOLERANCE:
            raise ValueError(f"{name} must sum to 1, sums to {dist.sum()!r}")
    support = p_arr > 0
    unsupported = support & (q_arr == 0)
    if np.any(unsupported):
        cell = tuple(int(i) for i in np.argwhere(unsupported)[0])
        raise ValueError(
            f"KL divergence is infinite: q is 0 at {int(unsupported.sum())} cell(s) "
            f"where p has mass (first at index {cell})"
        )
    return max(0.0, float(np.sum(p_arr[support] * np.log2(p_arr[support] / q_arr[support]))))
