"""Many exact family tables at once for binary data (the F workload of GreedyBayes, TODS 2017 §4.4).

A step of Alg. 2 scores every (X, Π) with |Π| = k; on NLTCS/ACS that is 10^4-10^5
tables of 2^(k+1) cells.  One compiled pass over the (distinct) rows per parent set
fills the tables of every child X at once, sharing the parent-configuration index.
numba is optional (``privbayes[fast]``); without it callers fall back to one
``counts`` call per table.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - exercised where numba is absent
    numba = None

HAVE_NUMBA = numba is not None
_MAX_CELLS_PER_CALL = 2**24


def _families_loops(rows, weights, parents, children):  # pragma: no cover - compiled below
    n_sets, k = parents.shape
    out = np.zeros((n_sets, children.shape[0], 2, 1 << k), dtype=np.int64)
    for p in numba.prange(n_sets):
        for r in range(rows.shape[0]):
            config = 0
            for j in range(k):
                config = (config << 1) | rows[r, parents[p, j]]
            for c in range(children.shape[0]):
                out[p, c, rows[r, children[c]], config] += weights[r]
    return out


if numba is not None:  # threads only pay off on large batches (start-up costs ~ms on tiny tables)
    _families_parallel = numba.njit(parallel=True, cache=True)(_families_loops)
    _families_serial = numba.njit(cache=True)(_families_loops)
_PARALLEL_WORK = 2**22


def binary_family_counts(rows: np.ndarray, weights: np.ndarray, parents: np.ndarray, children: np.ndarray) -> np.ndarray:
    """Counts ``out[p, c, x, π]`` of child ``children[c]`` against parent set ``parents[p]``.

    ``rows`` are 0/1 codes (distinct rows with integer ``weights``); the parent
    configuration π is read with the first parent as the most significant bit, the
    layout of ``counts([x, *parents]).reshape(2, -1)``.
    """
    if numba is None:
        raise RuntimeError("binary_family_counts needs numba (pip install 'privbayes[fast]')")
    parents = np.ascontiguousarray(parents, dtype=np.int64)
    children = np.ascontiguousarray(children, dtype=np.int64)
    per_set = children.size * 2 ** (parents.shape[1] + 1)
    step = max(1, _MAX_CELLS_PER_CALL // per_set)
    kernel = _families_parallel if len(parents) * len(rows) * (parents.shape[1] + children.size) > _PARALLEL_WORK \
        else _families_serial
    blocks = [kernel(rows, weights, parents[i:i + step], children) for i in range(0, len(parents), step)]
    return np.concatenate(blocks) if blocks else np.zeros((0, children.size, 2, 2 ** parents.shape[1]), np.int64)
