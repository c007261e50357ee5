"""The MWEM baseline (TODS 2017, §6.1 (iii) and §6.5).

Hardt, Ligett and McSherry, "A simple and practical algorithm for differentially
private data release" (NIPS 2012), Algorithm 1, over the full domain:

    A_0 = n · uniform over the domain (public: n and the domain only)
    for t = 1 .. T, with budget ε/T per round:
        select a query q_t by the exponential mechanism (ε/2T), score |q(D) − q(A_{t−1})|
        measure m_t = q_t(D) + discrete Laplace (ε/2T, sensitivity 1)
        multiplicative weights: A_t(x) ∝ A_{t−1}(x) · exp(q_t(x) (m_t − q_t(A_{t−1})) / 2n)

The queries are the cells of all requested marginals (counting queries, sensitivity 1
under "replace one tuple"; so is the score).  By sequential composition the run is
ε-DP; the ledger has 2T entries summing to ε exactly.  The histogram A is never read
from data: only the noisy measurements m_t feed it.

Choices, documented:
* T = max(1, round(ε / epsilon_per_round)); the paper sets the per-round budget to
  0.05 instead of the authors' 1.0 so that at least one round runs (TODS §6.5).
* The practical improvement of Hardt et al. §3 (and their reference implementation):
  after each measurement, ``repetitions`` passes of MW updates over *all* measurements
  so far (10 by default).  The final A_T is released (the practical variant), not the
  average of the A_t required by the worst-case theory.
* The full domain is an array of float64 cells (ACS: 2^23 cells, 64 MB); a domain above
  ``max_cells`` is refused.  The answers q(A) of all queries are recomputed each round,
  for binary domains by one Walsh-Hadamard transform of A.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privbayes.baselines.common import (
    DEFAULT_MAX_CELLS,
    MarginalRelease,
    Subset,
    SubsetsArg,
    as_random_source,
    consistent,
    full_domain_cells,
    marginal_shape,
    project_marginals,
    resolve_subsets,
)
from privbayes.core.validation import check_epsilon
from privbayes.counting.base import PrivateTable
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import exponential_mechanism, laplace_counts
from privbayes.privacy.samplers import RandomSource

QUERY_SENSITIVITY = 1
"""A counting query (one cell of a marginal) changes by at most 1 when a tuple is replaced."""

_MAX_EXPONENT = 300.0
"""Cap on one MW exponent, reached only for a noise draw beyond ±600 n: keeps floats finite."""


def mwem_rounds(epsilon: float | Fraction, epsilon_per_round: float | Fraction) -> int:
    """T = max(1, round(ε / epsilon_per_round)) (TODS 2017, §6.5: 0.05 per round)."""
    eps = check_epsilon(epsilon)
    per_round = check_epsilon(epsilon_per_round, "epsilon_per_round")
    return max(1, round(eps / per_round))


def mwem_marginals(
    table: PrivateTable,
    marginals: SubsetsArg,
    epsilon: float | Fraction,
    rng: RandomSource | int | None = None,
    *,
    epsilon_per_round: float | Fraction = 0.05,
    repetitions: int = 10,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> MarginalRelease:
    """Release the marginals over ``marginals`` (α or subsets) by MWEM, ε-DP.

    ``epsilon_per_round`` fixes the number of rounds T (see :func:`mwem_rounds`);
    ``repetitions`` MW passes over all measurements per round; ``max_cells`` bounds the
    full domain.  ``rng`` as in :func:`privbayes.baselines.laplace.laplace_marginals`.
    """
    eps = check_epsilon(epsilon)
    rounds = mwem_rounds(eps, epsilon_per_round)
    if isinstance(repetitions, bool) or not isinstance(repetitions, int) or repetitions < 1:
        raise ValueError(f"repetitions ({repetitions!r}) must be a positive integer")
    source = as_random_source(rng)
    subsets = resolve_subsets(table.encoding, marginals)
    cells = full_domain_cells(table, max_cells, "MWEM")
    accountant = Accountant(eps)
    half_round = eps / (2 * rounds)
    n = table.n
    names = [a.name for a in table.encoding.attributes]

    # Exact answers of the workload: private, they reach only the two mechanisms below.
    exact = np.concatenate([np.asarray(table.counts(s), dtype=np.int64).ravel() for s in subsets])
    starts = np.cumsum([0] + [math.prod(marginal_shape(table.encoding, s)) for s in subsets])

    shape = tuple(a.size for a in table.encoding.attributes)
    histogram = _Histogram(np.full(shape, n / cells), n)
    measurements: list[tuple[tuple, float]] = []
    for t in range(1, rounds + 1):
        estimates = np.concatenate([m.ravel() for m in project_marginals(histogram.normalised(), subsets)])
        scores = np.abs(exact - estimates)
        chosen = exponential_mechanism(
            scores.tolist(), half_round, QUERY_SENSITIVITY, accountant, source,
            step=f"MWEM round {t}/{rounds}: select", measured="|q(D) - q(A)| over all marginal cells",
        )
        which = int(np.searchsorted(starts, chosen, side="right") - 1)
        subset = subsets[which]
        cell = np.unravel_index(chosen - starts[which], marginal_shape(table.encoding, subset))
        noisy = laplace_counts(
            exact[chosen : chosen + 1], half_round, accountant, source,
            step=f"MWEM round {t}/{rounds}: measure",
            measured=f"count of ({', '.join(f'{names[a]}={int(v)}' for a, v in zip(subset, cell))})",
            sensitivity=QUERY_SENSITIVITY,
        )
        measurements.append((_cell_index(subset, cell, len(shape)), float(noisy[0])))
        for _ in range(repetitions):
            for index, measured in measurements:
                histogram.update(index, measured)
    final = project_marginals(histogram.normalised(), subsets)
    return MarginalRelease({s: consistent(m) for s, m in zip(subsets, final)}, accountant, source.seeded)


def _cell_index(subset: Subset, cell: tuple, d: int) -> tuple:
    """Basic index selecting the slice of the full domain where ``subset`` takes ``cell``."""
    index: list[object] = [slice(None)] * d
    for a, v in zip(subset, cell):
        index[a] = slice(int(v), int(v) + 1)  # a slice, never an int: the result is a view
    return tuple(index)


class _Histogram:
    """The MW estimate A, kept unnormalised; q(A) and A are read in units summing to n.

    An update touches only the slice of its query (ACS 4-way: 1/16 of the cells); the
    total is tracked and the array rescaled once per round or when it drifts far.
    """

    def __init__(self, cells: np.ndarray, n: int) -> None:
        self.cells = cells
        self.n = float(n)
        self.total = float(cells.sum())

    def normalised(self) -> np.ndarray:
        self.cells *= self.n / self.cells.sum()
        self.total = self.n
        return self.cells

    def update(self, index: tuple, measured: float) -> None:
        """A(x) ← A(x) · exp(q(x) (m − q(A)) / 2n), renormalised (Hardt et al., Alg. 1)."""
        part = self.cells[index]
        raw = float(part.sum())
        estimate = raw * self.n / self.total
        exponent = min(_MAX_EXPONENT, max(-_MAX_EXPONENT, (measured - estimate) / (2 * self.n)))
        factor = math.exp(exponent)
        part *= factor
        self.total += raw * (factor - 1.0)
        if not 1e-100 < self.total / self.n < 1e100:
            self.normalised()
