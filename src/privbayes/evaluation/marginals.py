"""α-way marginals and their total variation distance (TODS 2017, §6.1, "Tasks").

The counting task of the paper releases every α-way marginal of a table (the
query set Qα) and scores a method by the *average total variation distance*
(half the L1 distance between normalised marginals) over all of Qα.

All functions work on integer-coded tables: a 2-D integer array ``codes`` of
shape (n, d) whose column j holds codes ``0 .. sizes[j] - 1``.

Speed.  Qα is large (ACS: C(23, 4) = 8,855 four-way marginals over 47,461
rows), so :func:`average_marginal_tvd` does not build two marginals per query.
It first merges the real and synthetic tables into their distinct rows, each
carrying the signed weight ``count_real / n_real - count_synth / n_synth``
(rows with equal frequency in both tables cancel and are dropped).  A single
weighted ``np.bincount`` over a mixed-radix cell index then yields the
difference of the two normalised marginals directly, and the cell index of the
first α - 1 attributes is shared by every marginal with that prefix.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction

import numpy as np

from privbayes.schema.codes import check_codes, check_sizes, distinct_rows, flat_index


def _check_alpha(alpha: int, d: int, low: int = 1) -> None:
    if not low <= alpha <= d:
        raise ValueError(f"alpha ({alpha}) must be between {low} and d ({d})")


def _check_attrs(attrs: Sequence[int], d: int) -> tuple[int, ...]:
    attrs = tuple(int(a) for a in attrs)
    if not attrs:
        raise ValueError("attrs must name at least one attribute")
    if len(set(attrs)) != len(attrs):
        raise ValueError(f"attrs {attrs} contains a repeated attribute")
    if min(attrs) < 0 or max(attrs) >= d:
        raise ValueError(f"attrs {attrs} must be column indices in 0..{d - 1}")
    return attrs


def _weighted_rows(codes: np.ndarray, sizes: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Distinct rows of ``codes`` as contiguous columns, weighted by their frequency."""
    rows, group = distinct_rows(codes, sizes)
    weights = np.bincount(group, minlength=rows.shape[0]) / codes.shape[0]
    return [np.ascontiguousarray(col) for col in rows.T], weights


def _signed_rows(
    real: np.ndarray, synth: np.ndarray, sizes: np.ndarray
) -> tuple[list[np.ndarray], np.ndarray]:
    """Distinct rows of real ∪ synth with weight p_real(row) - p_synth(row), zeros dropped.

    Returns the rows as a list of d contiguous columns (fast to index; empty when
    the two tables have the same distribution) and the weights.
    """
    rows, group = distinct_rows(np.concatenate([real, synth]), sizes)
    n_real = real.shape[0]
    count_real = np.bincount(group[:n_real], minlength=rows.shape[0])
    count_synth = np.bincount(group[n_real:], minlength=rows.shape[0])
    weights = count_real / n_real - count_synth / synth.shape[0]
    keep = weights != 0
    return [np.ascontiguousarray(col) for col in rows[keep].T], weights[keep]


def _weighted_marginals(
    columns: list[np.ndarray], weights: np.ndarray, sizes: np.ndarray, alpha: int
) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
    """Yield ``(attrs, flat weighted cell sums)`` for every α-subset, in lexicographic order.

    ``columns`` and ``weights`` describe (distinct) rows; the cell index of the
    first α - 1 attributes is computed once and shared by all their extensions.
    """
    d = sizes.size
    index = np.empty(weights.size, dtype=np.intp)
    for prefix in itertools.combinations(range(d - 1), alpha - 1):
        prefix_index = flat_index(columns, sizes, prefix)
        prefix_cells = math.prod(sizes[list(prefix)].tolist())
        scaled: dict[int, np.ndarray] = {}  # prefix_index * size, per distinct size
        for last in range(prefix[-1] + 1 if prefix else 0, d):
            size = int(sizes[last])
            if size not in scaled:
                scaled[size] = prefix_index * size
            np.add(scaled[size], columns[last], out=index)
            yield prefix + (last,), np.bincount(index, weights=weights, minlength=prefix_cells * size)


def _marginal_tvds(
    real: np.ndarray, synth: np.ndarray, sizes: Sequence[int], alpha: int, min_alpha: int = 1
) -> Iterator[tuple[tuple[int, ...], float]]:
    """Yield ``(attrs, TVD)`` for every α-way marginal, attrs in lexicographic order."""
    sizes_arr = check_sizes(sizes)
    real = check_codes(real, sizes_arr, "real")
    synth = check_codes(synth, sizes_arr, "synth")
    _check_alpha(alpha, sizes_arr.size, min_alpha)
    columns, weights = _signed_rows(real, synth, sizes_arr)
    for attrs, diff in _weighted_marginals(columns, weights, sizes_arr, alpha):
        yield attrs, 0.5 * float(np.abs(diff).sum())


def marginal(codes: np.ndarray, sizes: Sequence[int], attrs: Sequence[int]) -> np.ndarray:
    """Normalised marginal distribution of ``codes`` over the attributes ``attrs``.

    Parameters
    ----------
    codes : numpy.ndarray
        An integer-coded table, n × d: column j holds codes ``0 .. sizes[j] - 1``.
    sizes : sequence of int
        The number of codes of each column.
    attrs : sequence of int
        Distinct column indices; the result's axes follow their order.

    Returns
    -------
    numpy.ndarray
        Shape ``(sizes[attrs[0]], sizes[attrs[1]], ...)``, summing to 1.
    """
    sizes_arr = check_sizes(sizes)
    arr = check_codes(codes, sizes_arr, "codes")
    attrs = _check_attrs(attrs, sizes_arr.size)
    shape = tuple(int(sizes_arr[a]) for a in attrs)
    counts = np.bincount(flat_index(arr.T, sizes_arr, attrs), minlength=math.prod(shape))
    return (counts / arr.shape[0]).reshape(shape)


def all_marginals(codes: np.ndarray, sizes: Sequence[int], alpha: int) -> dict[tuple[int, ...], np.ndarray]:
    """Every normalised α-way marginal of ``codes`` (the query set Qα, TODS 2017, §6.1).

    Much faster than calling :func:`marginal` C(d, α) times: the table is validated and reduced to its
    distinct rows once.

    Parameters
    ----------
    codes : numpy.ndarray
        An integer-coded table, n × d: column j holds codes ``0 .. sizes[j] - 1``.
    sizes : sequence of int
        The number of codes of each column.
    alpha : int
        The marginals' degree α, 1 ≤ α ≤ d.

    Returns
    -------
    dict
        Attribute tuple (increasing) → normalised marginal, as :func:`marginal` returns it.
    """
    sizes_arr = check_sizes(sizes)
    arr = check_codes(codes, sizes_arr, "codes")
    _check_alpha(alpha, sizes_arr.size)
    columns, weights = _weighted_rows(arr, sizes_arr)
    return {
        attrs: cells.reshape(tuple(sizes_arr[list(attrs)].tolist()))
        for attrs, cells in _weighted_marginals(columns, weights, sizes_arr, alpha)
    }


def average_marginal_tvd(real: np.ndarray, synth: np.ndarray, sizes: Sequence[int], alpha: int) -> float:
    """Average total variation distance over all α-way marginals Qα (TODS 2017, §6.1).

    TVD(P, Q) = ½ Σ|P(x) - Q(x)| between the normalised α-way marginals of ``real``
    and ``synth`` (which may have different row counts); the result is the mean
    over all C(d, α) attribute subsets.  The paper reports Q3/Q4 on NLTCS and ACS
    and Q2/Q3 on Adult and BR2000.

    Parameters
    ----------
    real, synth : numpy.ndarray
        Integer-coded tables over the same columns (n × d, any row counts).
    sizes : sequence of int
        The number of codes of each column.
    alpha : int
        The marginals' degree α, 1 ≤ α ≤ d.

    Returns
    -------
    float
        The mean TVD, in [0, 1].
    """
    total, count = 0.0, 0
    for _, tvd in _marginal_tvds(real, synth, sizes, alpha):
        total += tvd
        count += 1
    return total / count


def marginal_tvd_table(
    real: np.ndarray, synth: np.ndarray, sizes: Sequence[int], alpha: int = 2
) -> np.ndarray:
    """d × d matrix of marginal TVDs per attribute pair, for heatmaps.

    Entry (i, j), i ≠ j, is the mean TVD of the α-way marginals that contain both
    i and j; for the default α = 2 this is simply the TVD of the 2-way marginal
    over (i, j).  The matrix is symmetric and its diagonal is 0.

    Parameters
    ----------
    real, synth : numpy.ndarray
        Integer-coded tables over the same columns (n × d, any row counts).
    sizes : sequence of int
        The number of codes of each column.
    alpha : int, default 2
        The marginals' degree α, 2 ≤ α ≤ d.

    Returns
    -------
    numpy.ndarray
        The d × d matrix of mean TVDs.
    """
    d = len(sizes)
    sums = np.zeros((d, d))
    for attrs, tvd in _marginal_tvds(real, synth, sizes, alpha, min_alpha=2):
        index = np.asarray(attrs)
        sums[np.ix_(index, index)] += tvd
    np.fill_diagonal(sums, 0.0)
    return sums / math.comb(d - 2, alpha - 2)


def average_tvd_of_marginals(
    real: np.ndarray, sizes: Sequence[int], released: Mapping[tuple[int, ...], np.ndarray]
) -> float:
    """Average TVD between released marginals and the true marginals of ``real``.

    For methods that publish marginals rather than synthetic rows (e.g. the
    Laplace, Fourier and Uniform baselines of TODS 2017, §6.1).  Each key of
    ``released`` is an attribute tuple and its value a non-negative array with
    ``prod(sizes[a] for a in key)`` cells (any shape; cells in C order of the key).
    Values may be counts or probabilities: each is rescaled to sum to 1, which is
    the paper's "normalization" consistency step.  Negative cells are rejected,
    because rounding them to 0 ("non-negativity") is the releasing method's job.

    Parameters
    ----------
    real : numpy.ndarray
        The integer-coded real table, n × d.
    sizes : sequence of int
        The number of codes of each column.
    released : Mapping
        Attribute tuple → released marginal (non-negative, not all zero, ``prod(sizes[a] for a in key)`` cells).

    Returns
    -------
    float
        The mean TVD over the released marginals, in [0, 1].
    """
    if not released:
        raise ValueError("released must contain at least one marginal")
    sizes_arr = check_sizes(sizes)
    real = check_codes(real, sizes_arr, "real")
    columns, weights = _weighted_rows(real, sizes_arr)
    total = 0.0
    for key, values in released.items():
        attrs = _check_attrs(key, sizes_arr.size)
        cells = math.prod(int(sizes_arr[a]) for a in attrs)
        noisy = np.asarray(values, dtype=np.float64).ravel()
        if noisy.size != cells:
            raise ValueError(f"released[{attrs}] has {noisy.size} cells, expected {cells}")
        if not np.all(np.isfinite(noisy)) or np.any(noisy < 0) or noisy.sum() <= 0:
            raise ValueError(f"released[{attrs}] must be finite, non-negative and not all zero")
        truth = np.bincount(flat_index(columns, sizes_arr, attrs), weights=weights, minlength=cells)
        total += 0.5 * float(np.abs(truth - noisy / noisy.sum()).sum())
    return total / len(released)


def workload_tvd(real: np.ndarray, synth: np.ndarray, sizes: Sequence[int],
                 sets: Sequence[tuple[Sequence[int], float | Fraction]]) -> tuple[float, list[float]]:
    """The workload error: the weighted average TVD over a workload's attribute sets (AIM, McKenna et al., VLDB
    2022, §2: the error of a workload of marginal queries, each weighted), and each set's TVD.

    Parameters
    ----------
    real, synth : numpy.ndarray
        Integer-coded tables over the same columns (n × d, any row counts).
    sizes : sequence of int
        The number of codes of each column.
    sets : sequence of (attribute indices, weight)
        The workload's sets (distinct column indices) and their positive weights.

    Returns
    -------
    tuple
        Σ c_q·TVD_q / Σ c_q, in [0, 1], and the TVD of each set in order.
    """
    if not sets:
        raise ValueError("sets must contain at least one attribute set")
    sizes_arr = check_sizes(sizes)
    real = check_codes(real, sizes_arr, "real")
    synth = check_codes(synth, sizes_arr, "synth")
    columns, weights = _signed_rows(real, synth, sizes_arr)
    tvds = []
    for attrs, _ in sets:
        attrs = _check_attrs(attrs, sizes_arr.size)
        cells = math.prod(int(sizes_arr[a]) for a in attrs)
        diff = np.bincount(flat_index(columns, sizes_arr, attrs), weights=weights, minlength=cells) if weights.size \
            else np.zeros(cells)
        tvds.append(0.5 * float(np.abs(diff).sum()))
    total = sum(float(w) for _, w in sets)
    if not total > 0:
        raise ValueError("the weights must be positive")
    return sum(float(w) * t for (_, w), t in zip(sets, tvds)) / total, tvds
