"""What the marginal-release baselines share (TODS 2017, §6.1 "Baselines").

* :class:`MarginalRelease`: the released marginals and the accountant that paid for them;
* :func:`consistent`: the paper's consistency post-processing, applied by every baseline:
  *non-negativity* (negative noisy counts become 0), then *normalisation* (the
  non-negative counts are rescaled to sum to 1; the paper rescales to n, which is the
  same marginal in probability units);
* :func:`resolve_subsets`: the query set Qα (all α-way subsets) or a given list;
* :func:`project_marginals`: marginals of a full-domain table (Contingency, MWEM).

Post-processing never reads data, so it costs no privacy.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from privbayes.core.validation import check_seed
from privbayes.counting.base import PrivateTable, all_answered
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import RandomSource, random_source
from privbayes.schema.encoding import Encoding

Subset = tuple[int, ...]
SubsetsArg = int | Iterable[Sequence[int]]

DEFAULT_MAX_CELLS = 2**24
"""Largest full domain that Contingency and MWEM accept (ACS has 2^23 cells)."""


class MarginalRelease(NamedTuple):
    """Released marginals (attribute tuple → probability array, one axis per attribute,
    in the tuple's order), the accountant whose ledger says what they cost, and whether
    the noise was seeded (a reproducible run, not for publication)."""

    marginals: dict[Subset, np.ndarray]
    accountant: Accountant
    seeded: bool


def as_random_source(rng: RandomSource | int | None) -> RandomSource:
    """The DP random source: the OS CSPRNG for None, a seeded source for an int."""
    if isinstance(rng, bool) or not (rng is None or isinstance(rng, (int, np.integer)) or hasattr(rng, "randbelow")):
        raise ValueError(f"rng ({rng!r}) must be a RandomSource, an int seed or None")
    if rng is None or isinstance(rng, (int, np.integer)):
        return random_source(check_seed(rng, "rng"))
    return rng


def resolve_subsets(encoding: Encoding, marginals: SubsetsArg) -> list[Subset]:
    """The attribute subsets to release: all α-way subsets for an int α, else the given list.

    Attributes are indices into ``encoding.attributes``.  Subsets must be non-empty,
    without repeats, and pairwise distinct as sets (a repeated marginal would be paid twice).
    """
    d = len(encoding.attributes)
    if isinstance(marginals, (int, np.integer)) and not isinstance(marginals, bool):
        alpha = int(marginals)
        if not 1 <= alpha <= d:
            raise ValueError(f"marginals (alpha = {alpha}) must be between 1 and d ({d})")
        return list(itertools.combinations(range(d), alpha))
    if isinstance(marginals, bool):
        raise TypeError("marginals must be an int alpha or a list of attribute subsets, not a boolean")
    subsets: list[Subset] = []
    seen: set[frozenset[int]] = set()
    for raw in marginals:
        subset = tuple(int(a) for a in raw)
        if not subset:
            raise ValueError("marginals: every attribute subset must be non-empty")
        if len(set(subset)) != len(subset):
            raise ValueError(f"marginals: subset {subset} repeats an attribute")
        if min(subset) < 0 or max(subset) >= d:
            raise ValueError(f"marginals: subset {subset} must hold attribute indices in 0..{d - 1}")
        if frozenset(subset) in seen:
            raise ValueError(f"marginals: subset {subset} is listed twice")
        seen.add(frozenset(subset))
        subsets.append(subset)
    if not subsets:
        raise ValueError("marginals must name at least one attribute subset")
    return subsets


def consistent(noisy: np.ndarray) -> np.ndarray:
    """The paper's consistency: non-negativity, then normalisation to a probability array.

    If no cell is positive (every noisy count ≤ 0) there is nothing to rescale and the
    uniform marginal is returned, the answer that carries no information.
    """
    clipped = np.maximum(np.asarray(noisy, dtype=np.float64), 0.0)
    total = float(clipped.sum())
    if not total > 0 or not math.isfinite(total):
        return np.full(clipped.shape, 1.0 / clipped.size)
    return clipped / total


def marginal_shape(encoding: Encoding, subset: Subset) -> tuple[int, ...]:
    """Cells of each axis of the marginal over ``subset`` (public: from the domain)."""
    return tuple(encoding.attributes[a].size for a in subset)


def full_domain_cells(table: PrivateTable, max_cells: int, method: str) -> int:
    """Cells of the table's full domain; a ValueError naming ``max_cells`` when too many."""
    if isinstance(max_cells, bool) or not isinstance(max_cells, int) or max_cells < 1:
        raise ValueError(f"max_cells ({max_cells!r}) must be a positive integer")
    cells = math.prod(a.size for a in table.encoding.attributes)
    if cells > max_cells:
        raise ValueError(
            f"{method} works on the full domain, which has {cells:,} cells, more than "
            f"max_cells ({max_cells:,}); it suits small domains only (TODS 2017, §6.1: NLTCS "
            f"2^16, ACS 2^23)"
        )
    return cells


def walsh_hadamard(values: np.ndarray) -> np.ndarray:
    """Unnormalised Walsh-Hadamard transform of a flat array of length 2^k (a copy).

    ``F[β] = Σ_x (-1)^{popcount(β & x)} values[x]``; it is its own inverse up to 2^-k.
    Integer input stays integer (exact).
    """
    out = np.array(values).reshape(-1).copy()
    size = out.size
    if size & (size - 1):
        raise ValueError(f"walsh_hadamard needs a length that is a power of 2, got {size}")
    half = 1
    while half < size:
        view = out.reshape(-1, 2, half)
        top = view[:, 0, :].copy()
        view[:, 0, :] += view[:, 1, :]
        view[:, 1, :] = top - view[:, 1, :]
        half *= 2
    return out


def hadamard_matrix(k: int) -> np.ndarray:
    """H[β, x] = (-1)^{popcount(β & x)} for k-bit patterns (Sylvester order)."""
    h = np.ones((1, 1), dtype=np.int64)
    for _ in range(k):
        h = np.block([[h, h], [h, -h]])
    return h


def project_marginals(full: np.ndarray, subsets: Sequence[Subset]) -> list[np.ndarray]:
    """The marginal of a full-domain table (one axis per attribute) over each subset.

    When every attribute is binary and there are more subsets than attributes, one
    Walsh-Hadamard transform of the table gives every marginal at once: the marginal
    over S is the inverse transform of the coefficients β ⊆ S (Barak et al. 2007).
    That costs d passes over the table instead of one pass per subset (ACS: 23 passes
    instead of C(23, 4) = 8,855).  Otherwise each marginal is a plain sum.
    """
    d = full.ndim
    if not (all(s == 2 for s in full.shape) and len(subsets) > d):
        return [_sum_to(full, subset) for subset in subsets]
    coefficients = walsh_hadamard(full)
    result: list[np.ndarray | None] = [None] * len(subsets)
    by_size: dict[int, list[int]] = {}
    for i, subset in enumerate(subsets):
        by_size.setdefault(len(subset), []).append(i)
    for k, members in by_size.items():
        axes = np.array([subsets[i] for i in members], dtype=np.int64)  # (q, k)
        weights = np.left_shift(1, d - 1 - axes)  # flat-index bit of each axis
        patterns = np.array(list(itertools.product((0, 1), repeat=k)), dtype=np.int64).reshape(2**k, k)
        picked = coefficients[weights @ patterns.T]  # (q, 2^k): F[β] for β ⊆ S
        tables = picked @ hadamard_matrix(k)
        for row, i in zip(tables, members):
            result[i] = (row // 2**k if np.issubdtype(row.dtype, np.integer) else row / 2**k).reshape((2,) * k)
    return all_answered(result)


def _sum_to(full: np.ndarray, subset: Subset) -> np.ndarray:
    others = tuple(a for a in range(full.ndim) if a not in subset)
    kept = full.sum(axis=others) if others else full
    order = sorted(subset)
    return np.transpose(kept, [order.index(a) for a in subset])
