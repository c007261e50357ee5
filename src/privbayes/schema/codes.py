"""Integer code matrices (n × d, one column per attribute): validation and distinct rows.

Shared by the counting layer (which builds them from private rows), evaluation and
the baselines (which receive them); nothing here reads a file or labels a value.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Largest product of domain sizes packed into one int64 key when merging rows.
_MAX_KEY = 2**62


def check_sizes(sizes: Sequence[int]) -> np.ndarray:
    sizes_arr = np.asarray(sizes)
    if sizes_arr.ndim != 1 or sizes_arr.size == 0:
        raise ValueError(f"sizes must be a non-empty 1-D sequence, got shape {sizes_arr.shape}")
    if not np.issubdtype(sizes_arr.dtype, np.integer) or np.any(sizes_arr < 1):
        raise ValueError(f"sizes must be positive integers, got {list(sizes)}")
    return sizes_arr.astype(np.intp)


def check_codes(codes: np.ndarray, sizes: np.ndarray, name: str) -> np.ndarray:
    """Validate an integer-coded table against ``sizes`` and return it as intp."""
    arr = np.asarray(codes)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got {arr.ndim} dimension(s)")
    if arr.shape[1] != sizes.size:
        raise ValueError(f"{name} has {arr.shape[1]} columns but sizes has {sizes.size} entries")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must have an integer dtype, got {arr.dtype}")
    low, high = arr.min(axis=0), arr.max(axis=0)
    bad = np.flatnonzero((low < 0) | (high >= sizes))
    if bad.size:
        j = int(bad[0])
        raise ValueError(
            f"{name} column {j} holds codes in [{low[j]}, {high[j]}], "
            f"outside 0..{sizes[j] - 1} (sizes[{j}] = {sizes[j]})"
        )
    return arr.astype(np.intp, copy=False)


def flat_index(columns: Sequence[np.ndarray] | np.ndarray, sizes: np.ndarray, attrs: Sequence[int]) -> np.ndarray:
    """Mixed-radix (C-order) cell index of every row in the marginal over ``attrs``."""
    index = np.zeros(columns[0].shape[0], dtype=np.intp)
    for a in attrs:
        index = index * sizes[a] + columns[a]
    return index


def distinct_rows(codes: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``codes`` and, for every input row, the id of its distinct row."""
    # Pack the columns into as few int64 keys as possible, then sort the keys.
    words, start, radix = [], 0, 1
    for j, size in enumerate(sizes.tolist()):
        if radix * size > _MAX_KEY:
            words.append(flat_index(codes.T, sizes, range(start, j)))
            start, radix = j, 1
        radix *= size
    words.append(flat_index(codes.T, sizes, range(start, sizes.size)))
    order = np.lexsort(words[::-1])
    is_new = np.zeros(order.size, dtype=bool)
    is_new[0] = True
    for word in words:
        ordered = word[order]
        is_new[1:] |= ordered[1:] != ordered[:-1]
    group = np.empty(order.size, dtype=np.intp)
    group[order] = np.cumsum(is_new) - 1
    return codes[order[is_new]], group


