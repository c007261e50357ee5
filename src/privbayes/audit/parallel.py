"""Run the self-audit's independent chunks of runs on several cores, each chunk with its own seed stream."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

import numpy as np

Job = TypeVar("Job")


def seeds(seed: int, stream: Sequence[int], count: int) -> list[int]:
    """``count`` seeds in [0, 2^63) of the stream (seed, *stream): distinct streams are independent
    (numpy's SeedSequence), so no two runs of an audit share their noise."""
    state = np.random.SeedSequence([seed, *stream]).generate_state(count, dtype=np.uint64)
    return [int(s >> np.uint64(1)) for s in state]


def split(items: Sequence[Any], parts: int) -> list[list[Any]]:
    """``items`` in at most ``parts`` contiguous non-empty chunks."""
    parts = max(1, min(parts, len(items)))
    bounds = np.linspace(0, len(items), parts + 1).astype(int)
    return [list(items[a:b]) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def run_all(function: Callable[[Job], Any], jobs: Sequence[Job], workers: int) -> list[Any]:
    """``[function(job) for job in jobs]``, in processes (spawned: no state of the caller is shared) when
    ``workers`` > 1."""
    if workers <= 1 or len(jobs) <= 1:
        return [function(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(function, jobs))
