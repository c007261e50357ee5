"""Many exact tables at once: the candidate workload of GreedyBayes (TODS 2017 §4.4, §5.2).

Binary families (score F): a step of Alg. 2 scores every (X, Π) with |Π| = k; on
NLTCS/ACS that is 10^4-10^5 tables of 2^(k+1) cells.  One compiled pass over the
(distinct) rows per parent set serves every child at once, in one of two ways:

* few children (2^(k+u) cells no more than the rows): count the joint table of Π and
  all u children with one add per row, then marginalise it onto each (X, Π);
* many children: build each row's parent configuration column by column
  (contiguous, so SIMD), then add the row's weighted child bits as one short
  vector; the count of X = 0 is the configuration total minus the count of X = 1.

General tables (scores R and I, Alg. 4): a whole batch of tables in one blocked pass over
the rows per thread (each block of rows, in cache, is added to every table of the thread), so
the rows cross memory once per thread, not once per table.

Large batches are spread over both cores.  numba is optional (``privbayes[fast]``);
without it callers fall back to one numpy ``counts`` call per table.  It is imported, and
its cached kernels loaded (≈ 0.6 s, scipy.linalg included), on the first call that needs
a kernel, so small workloads that callers count with numpy never pay for it.
"""

from __future__ import annotations

import importlib.util
import math
from functools import cache
from types import FunctionType, SimpleNamespace
from typing import Any

import numpy as np

from privbayes.counting.cover import pass_cost

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
numba: Any = None
_configurations: Any = None
"""The numba module and the compiled configuration loop once :func:`_kernels` has run: the
loops below read ``numba.prange`` and call ``_configurations`` through these globals."""
_MAX_CELLS_PER_CALL = 2**24
_CHUNK = 16
"""Parent sets per parallel task."""
_PARALLEL_WORK = 2**22
"""Row × table visits above which the threaded kernels pay for their start-up (ms with OpenMP)."""
_BLOCK = 2048
"""Rows per block of the general-table pass: a block's columns and cell indices stay in the
first-level cache while every table of a thread is counted from it."""
_CACHE_BYTES = 2**21
"""The second-level cache of one core here (2 MB): rows or tables within it stay in cache."""


def _configurations_loop(columns: np.ndarray, parents: np.ndarray,
                         config: np.ndarray) -> None:  # pragma: no cover - compiled below
    """Parent configuration of every row (first parent most significant), column by column."""
    config[:] = 0
    for j in range(parents.shape[0]):
        column = columns[parents[j]]
        for r in range(config.shape[0]):
            config[r] = (config[r] << 1) | column[r]


def _families_loops(columns: np.ndarray, child_bits: np.ndarray, weights: np.ndarray,
                    parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled below
    n_sets, k = parents.shape
    n_rows, n_children = child_bits.shape
    ones = np.zeros((n_sets, 1 << k, n_children), dtype=child_bits.dtype)
    totals = np.zeros((n_sets, 1 << k), dtype=weights.dtype)
    for chunk in numba.prange((n_sets + _CHUNK - 1) // _CHUNK):
        config = np.empty(n_rows, dtype=np.int32)
        for p in range(chunk * _CHUNK, min(n_sets, (chunk + 1) * _CHUNK)):
            _configurations(columns, parents[p], config)
            for r in range(n_rows):
                cell = config[r]  # a local, so the adds below are not reloaded through aliasing
                totals[p, cell] += weights[r]
                for c in range(n_children):
                    ones[p, cell, c] += child_bits[r, c]
    return ones, totals


def _joint_loops(columns: np.ndarray, pattern: np.ndarray, weights: np.ndarray, parents: np.ndarray, n_children: int,
                 out: np.ndarray) -> None:  # pragma: no cover - compiled below
    n_sets, k = parents.shape
    n_rows = columns.shape[1]
    for chunk in numba.prange((n_sets + _CHUNK - 1) // _CHUNK):
        index = np.empty(n_rows, dtype=np.int32)
        joint = np.empty(1 << (k + n_children), dtype=weights.dtype)
        for p in range(chunk * _CHUNK, min(n_sets, (chunk + 1) * _CHUNK)):
            _configurations(columns, parents[p], index)
            joint[:] = 0
            for r in range(n_rows):
                joint[(index[r] << n_children) | pattern[r]] += weights[r]
            for cell in range(joint.shape[0]):  # marginalise onto each (X_c, Π)
                mass = joint[cell]
                if mass != 0:
                    config = cell >> n_children
                    for c in range(n_children):
                        out[p, c, (cell >> (n_children - 1 - c)) & 1, config] += mass


def _tables_loops(columns: np.ndarray, weights: np.ndarray, unit: bool, column_ids: np.ndarray, strides: np.ndarray,
                  starts: np.ndarray, offsets: np.ndarray, groups: np.ndarray, group_starts: np.ndarray, block: int,
                  out: np.ndarray) -> None:  # pragma: no cover - compiled below
    n_rows = columns.shape[1]
    n_groups, n_slices = group_starts.shape[0] - 1, out.shape[0]
    for task in numba.prange(n_groups * n_slices):
        g, s = task // n_slices, task % n_slices  # a group of tables over one slice of the rows
        index = np.empty(block, dtype=np.int64)
        counts = out[s]
        for first in range(n_rows * s // n_slices, n_rows * (s + 1) // n_slices, block):
            last = min(n_rows * (s + 1) // n_slices, first + block)
            cell = index[:last - first]  # views of the block: compiled as plain contiguous loops (3x faster)
            mass = weights[first:last]
            for member in range(group_starts[g], group_starts[g + 1]):
                t = groups[member]
                column, stride = columns[column_ids[starts[t]]][first:last], strides[starts[t]]
                for r in range(last - first):
                    cell[r] = column[r] * stride
                for j in range(starts[t] + 1, starts[t + 1]):
                    column, stride = columns[column_ids[j]][first:last], strides[j]
                    for r in range(last - first):
                        cell[r] += column[r] * stride
                table = counts[offsets[t]:offsets[t + 1]]
                if unit:
                    for r in range(last - first):
                        table[cell[r]] += 1
                else:
                    for r in range(last - first):
                        table[cell[r]] += mass[r]


@cache
def _kernels() -> SimpleNamespace:
    """Compile (or load from numba's on-disk cache) every kernel, importing numba first."""
    global numba, _configurations
    import numba as module

    numba = module
    _configurations = module.njit(cache=True, inline="always")(_configurations_loop)

    def serial_and_parallel(loops: Any) -> tuple[Any, Any]:
        # numba's on-disk cache files a function by its name and line, not by its flags: compiled
        # under one name, the serial and the parallel variant load each other's code (the parallel
        # one then ran on one core, whichever was compiled first).  The serial one gets its own name.
        serial = FunctionType(loops.__code__.replace(co_name=f"{loops.__name__}_serial",
                                                     co_qualname=f"{loops.__qualname__}_serial"),
                              loops.__globals__, f"{loops.__name__}_serial")
        return module.njit(cache=True)(serial), module.njit(parallel=True, cache=True)(loops)

    tables_serial, tables_parallel = serial_and_parallel(_tables_loops)
    families_serial, families_parallel = serial_and_parallel(_families_loops)
    joint_serial, joint_parallel = serial_and_parallel(_joint_loops)
    return SimpleNamespace(tables_parallel=tables_parallel, tables_serial=tables_serial,
                           families_parallel=families_parallel, families_serial=families_serial,
                           joint_parallel=joint_parallel, joint_serial=joint_serial)


def kernels_loaded() -> bool:
    """Whether numba's kernels are in this process already (then they cost nothing more to use)."""
    return _kernels.cache_info().currsize > 0


def binary_family_counts(columns: np.ndarray, weights: np.ndarray, parents: np.ndarray,
                         children: np.ndarray) -> np.ndarray:
    """Counts ``out[p, c, x, π]`` of child ``children[c]`` against parent set ``parents[p]``.

    ``columns`` are the 0/1 codes column-major (``columns[a]`` is attribute a over the
    distinct rows, which have integer ``weights``); the parent configuration π is read
    with the first parent as the most significant bit, the layout of
    ``counts([x, *parents]).reshape(2, -1)``.
    """
    if not HAVE_NUMBA:
        raise RuntimeError("binary_family_counts needs numba (pip install 'privbayes[fast]')")
    parents = np.ascontiguousarray(np.asarray(parents, dtype=np.int64).reshape(len(parents), -1))
    children = np.asarray(children, dtype=np.int64)
    kernels, k = _kernels(), parents.shape[1]
    dtype = np.int32 if weights.sum() < 2**31 else np.int64  # narrower adds: twice the SIMD lanes
    weights = np.ascontiguousarray(weights, dtype=dtype)
    out = np.empty((len(parents), children.size, 2, 1 << k), np.int64)
    u, n_rows = children.size, columns.shape[1]
    joint = (1 << (k + u)) <= n_rows
    if joint:
        pattern = np.zeros(n_rows, np.int32)
        for c in children:
            pattern = (pattern << 1) | columns[c]
    else:
        child_bits = np.ascontiguousarray(columns[children].T * weights[:, None], dtype=dtype)
    step = max(1, _MAX_CELLS_PER_CALL // ((1 << (k + u)) if joint else (u + 1) << k))
    for first in range(0, len(parents), step):
        block = parents[first:first + step]
        parallel = len(block) * n_rows > _PARALLEL_WORK
        if joint:
            out[first:first + step] = 0
            joint = kernels.joint_parallel if parallel else kernels.joint_serial
            joint(columns, pattern, weights, block, u, out[first:first + step])
        else:
            families = kernels.families_parallel if parallel else kernels.families_serial
            ones, totals = families(columns, child_bits, weights, block)
            ones = ones.transpose(0, 2, 1)
            out[first:first + step, :, 1, :] = ones
            out[first:first + step, :, 0, :] = totals[:, None, :] - ones
    return out


def contingency_tables(columns: np.ndarray, weights: np.ndarray, tables: list[tuple[list[int], tuple[int, ...]]],
                       total: int | None = None) -> tuple[list[np.ndarray], int]:
    """Many exact contingency tables from one blocked pass over the rows per thread, and the
    number of passes made.

    ``columns[v]`` is one (possibly generalised) attribute's codes over the distinct rows
    (any integer type; narrow ones read faster), which have integer ``weights``; each table is
    (column ids, shape), one axis per column, in that order.  The tables are shared out among
    the threads (largest first, each to the least loaded); a thread reads the rows once, block
    by block, and adds every one of its tables' counts from a block while it is in cache: the
    rows cross memory once per thread, not once per table (docs/decisions.md, "Fewer counting passes").  Rows that fit
    in the cache are read whole, a pass per table (re-reading them costs nothing); when the rows far
    outnumber the cells, the threads split the rows instead, each counting its slice of the rows
    into its own copy of the tables (also when a call has fewer tables than threads).  Tables come back as int32
    when the total weight is below 2³¹ (every count and every sum of counts fits), else int64.
    ``total``, the sum of the (positive) weights when the caller knows it, spares a pass over them;
    weights already of the cells' type are not copied.
    """
    if not HAVE_NUMBA:
        raise RuntimeError("contingency_tables needs numba (pip install 'privbayes[fast]')")
    if not tables:
        return [], 0
    column_ids = np.array([c for ids, _ in tables for c in ids], np.int64)
    strides = np.array([math.prod(shape[j + 1:]) for _, shape in tables for j in range(len(shape))], np.int64)
    starts = np.cumsum([0] + [len(ids) for ids, _ in tables]).astype(np.int64)
    sizes = [math.prod(shape) for _, shape in tables]
    offsets = np.cumsum([0] + sizes).astype(np.int64)
    kernels = _kernels()
    n_rows = columns.shape[1]
    threads = numba.get_num_threads()
    work = len(tables) * n_rows > _PARALLEL_WORK
    used = len(np.unique(column_ids))
    row_bytes = n_rows * (used * columns.itemsize + 12)  # codes, a cell index, a weight
    in_cache = row_bytes <= _CACHE_BYTES
    if in_cache:  # re-reading rows in cache costs nothing: a pass per table, taken by free threads
        n_groups, n_slices = len(tables), 1
        groups, group_starts = np.arange(n_groups, dtype=np.int64), np.arange(n_groups + 1, dtype=np.int64)
    elif work and n_rows >= 8 * int(offsets[-1]):  # rows dominate: the threads split the rows, each all tables
        n_groups, n_slices = 1, threads  # each slice into its own copy of the tables, summed at the end (exact)
        groups, group_starts = np.arange(len(tables), dtype=np.int64), np.array([0, len(tables)], np.int64)
    else:  # a group of tables per thread (costliest first, each to the least loaded), read block by block
        n_groups = min(len(tables), threads) if work else 1
        n_slices = max(1, threads // n_groups) if work else 1  # fewer tables than threads: split the rows too
        load, members = [0.0] * n_groups, [[] for _ in range(n_groups)]  # type: list[float], list[list[int]]
        for t in sorted(range(len(tables)), key=lambda t: -sizes[t]):
            g = load.index(min(load))
            members[g].append(t)
            load[g] += pass_cost(sizes[t])  # ns a row: tables beyond the cache cost more
        groups = np.array([t for group in members for t in group], np.int64)
        group_starts = np.cumsum([0] + [len(group) for group in members]).astype(np.int64)
    # Narrow cells (every count is at most the total weight) keep twice as many in cache.
    unit = bool(np.all(weights == 1)) if total is None else total == n_rows  # positive weights: all ones
    total = int(weights.sum()) if total is None else total
    out = np.zeros((n_slices, int(offsets[-1])), np.int32 if total < 2**31 else np.int64)
    # Blocks keep a group's tables hot while the rows stream by; rows in cache are one block.
    block = max(1, n_rows) if in_cache else _BLOCK
    kernel = kernels.tables_parallel if n_groups * n_slices > 1 and work else kernels.tables_serial
    kernel(np.ascontiguousarray(columns), np.ascontiguousarray(weights, dtype=out.dtype), unit, column_ids, strides,
           starts, offsets, groups, group_starts, block, out)
    out = out[0] if n_slices == 1 else out.sum(axis=0, dtype=out.dtype)
    return [out[offsets[t]:offsets[t + 1]].reshape(shape) for t, (_, shape) in enumerate(tables)], n_groups
