"""The mutual-information matrix (MIM), average mutual information (AMI) and AMI order
(SA-PrivBayes, Future Internet 2026, Def. 7, Def. 8 and Alg. 1 lines 2-4).

* :func:`mutual_information_matrix` — the paper's exact MIM from the 2-way count tables.  Its
  values may leave only through a mechanism (e.g. as exponential-mechanism scores, charged
  there); ordering, screening or weighting on them directly is faithful mode (uncharged data
  accesses, listed as caveats).
* :func:`noisy_mutual_information_matrix` — strict mode: the MIM released at a declared ε.

Privacy of the noisy MIM (replace-one neighbours, n public).  All P = d(d−1)/2 pairs read the
same rows, so parallel composition does not apply; the pairs are split by a PUBLIC rule (their
domain sizes) into two groups, each released by one discrete Laplace vector mechanism, and the
two compose sequentially with budgets ε·P_t/P and ε·P_v/P (Σ = ε exactly):

* small domains (|A_i|·|A_j| ≤ ``table_cells_max`` cells): the 2-way count tables, every cell
  (empty ones included).  One tuple changes each table by ≤ 2 in L1, so the P_t tables together
  by ≤ 2·P_t, and discrete Laplace of scale 2P_t/ε_t per cell is ε_t-DP.  I is computed from the
  tables clipped at 0 (post-processing).
* large domains: the values I(A_i; A_j).  Each moves by ≤ S_ij (TODS 2017, Lemma 4.1, the binary
  bound when either attribute has ≤ 2 values); rounded to the lattice γℤ with r(x) = ⌊x/γ + ½⌋ it
  moves by ≤ ⌈S_ij/γ⌉ = Δ_ij units (r(x) − r(y) < (x − y)/γ + 1), so the integer vector has L1
  sensitivity Σ Δ_ij and discrete Laplace of scale Σ Δ_ij/ε_v is ε_v-DP.  Released values are
  γ·(integer): no floating-point lattice leaks (Mironov 2012).

Why the split (decision)?  Per pair, at the same share ε/P, noise on the values costs P·S_ij/ε
bits whatever the data (S ≈ log2(n)/n is a worst case, reached when a cell goes from 0 to 1);
noise on the table perturbs I only through cells where the log-ratio is large, but every one of
the |A_i|·|A_j| cells adds error and the clipping bias grows with the cell count.  Measured on
NLTCS, Adult and BR2000 at ε_MIM ∈ {0.144, 0.576} (docs/sa_privbayes.md), the table route has the
smaller error up to ~30 cells (median error ratio 0.1-0.5 at 4-14 cells) and the value route
beyond (ratio 1.2-10 at 49-656 cells); so ``TABLE_NOISE_MAX_CELLS = 30``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from privbayes.bayesnet.scores import MutualInformation, mutual_information_sensitivity
from privbayes.counting import PrivateTable
from privbayes.privacy.accountant import Accountant, as_fraction
from privbayes.privacy.mechanisms import laplace_counts
from privbayes.privacy.samplers import RandomSource

FLOAT_MARGIN = 1e-9
"""Bits added to every score sensitivity before rounding to the lattice: covers the float error of
computing I on neighbouring tables (≪ 1e-9 for tables up to millions of cells)."""

TABLE_NOISE_MAX_CELLS = 30
"""Pairs with at most this many cells are released as noisy 2-way tables, larger ones as noisy I values."""

LATTICE_STEPS = 64
"""The lattice step γ is a power of two with S/γ ∈ [64, 128): rounding costs ≤ 1/64 of the noise."""


@dataclass(frozen=True)
class ScoreLattice:
    """A public grid γℤ (γ a power of two) for releasing real-valued scores with integer noise."""

    gamma: Fraction

    def __post_init__(self) -> None:
        g = Fraction(self.gamma)
        if g <= 0 or min(g.numerator, g.denominator) != 1 or max(g.numerator, g.denominator) & (
                max(g.numerator, g.denominator) - 1):
            raise ValueError(f"gamma ({self.gamma}) must be a power of two")

    @classmethod
    def for_sensitivity(cls, sensitivity: float) -> ScoreLattice:
        """The grid for scores of this sensitivity (bits): γ = 2^(⌊log2 S⌋ − 6)."""
        if not sensitivity > 0:
            raise ValueError(f"sensitivity ({sensitivity}) must be positive")
        exponent = math.floor(math.log2(sensitivity)) - int(math.log2(LATTICE_STEPS))
        return cls(Fraction(2) ** exponent)

    def units(self, sensitivity: float | Fraction) -> int:
        """⌈(S + margin)/γ⌉: the sensitivity of the rounded score, in lattice units."""
        return math.ceil((Fraction(sensitivity) + Fraction(FLOAT_MARGIN)) / self.gamma)

    def round(self, values: np.ndarray) -> np.ndarray:
        """r(x) = ⌊x/γ + ½⌋ (monotone, so |r(x) − r(y)| ≤ ⌈|x − y|/γ⌉; the float error of the
        addition, ~1e-16 of x/γ, is far inside the margin :meth:`units` adds)."""
        scaled = np.asarray(values, dtype=np.float64) * float(1 / self.gamma)  # exact: a power of two
        return np.floor(scaled + 0.5).astype(np.int64)

    def value(self, units: np.ndarray) -> np.ndarray:
        """γ · units as floats (exact below 2^53 units)."""
        return np.asarray(units, dtype=np.float64) * float(self.gamma)


@dataclass(frozen=True, eq=False)
class MutualInformationMatrix:
    """MIM(A) of Def. 7: symmetric, zero diagonal, bits.  ``epsilon`` is the ε that paid for it
    (None: exact, computed from the data without charge — faithful mode only)."""

    values: np.ndarray
    epsilon: Fraction | None = None
    _ami: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        values = np.array(self.values, dtype=np.float64)
        if values.ndim != 2 or values.shape[0] != values.shape[1] or values.shape[0] < 2:
            raise ValueError(f"a mutual-information matrix must be square with d ≥ 2, got shape {values.shape}")
        if not np.array_equal(values, values.T) or np.any(np.diag(values) != 0):
            raise ValueError("a mutual-information matrix must be symmetric with a zero diagonal")
        if self.epsilon is not None and not self.epsilon > 0:
            raise ValueError(f"epsilon ({self.epsilon}) must be positive or None")
        values.setflags(write=False)
        object.__setattr__(self, "values", values)
        ami = values.sum(axis=1) / (len(values) - 1)
        ami.setflags(write=False)
        object.__setattr__(self, "_ami", ami)

    @property
    def d(self) -> int:
        return len(self.values)

    @property
    def is_private(self) -> bool:
        """Whether the matrix was released through a mechanism (strict mode)."""
        return self.epsilon is not None

    def ami(self) -> np.ndarray:
        """AMI(A_i) = Σ_j MIM_ij / (d − 1) (Def. 8)."""
        return self._ami

    def order(self) -> tuple[int, ...]:
        """Attributes by descending AMI, ties by index (Alg. 1, line 3); ``order()[0]`` is the first node."""
        return tuple(int(i) for i in np.argsort(-self._ami, kind="stable"))

    def first_node(self) -> int:
        """A_1 of Alg. 1, line 4: the attribute of highest AMI."""
        return self.order()[0]

    def total(self, child: int, parents: Sequence[int]) -> float:
        """Σ_{p ∈ Π} MIM[child, p]: the 'total mutual information between the target attribute and
        its parent set' of §5.2, read off the matrix (what makes the paper's cost independent of k)."""
        return float(sum(self.values[child, p] for p in parents))


def pair_sensitivities(n: int, sizes: Sequence[int]) -> np.ndarray:
    """S_ij of I(A_i; A_j) for replace-one neighbours (Lemma 4.1), zero on the diagonal."""
    small = np.asarray(sizes) <= 2
    either = small[:, None] | small[None, :]
    out = np.where(either, mutual_information_sensitivity(n, binary=True),
                   mutual_information_sensitivity(n, binary=False))
    np.fill_diagonal(out, 0.0)
    return out


def _exact_pairs(table: PrivateTable, d: int) -> tuple[dict[tuple[int, int], np.ndarray], list[int]]:
    """The exact 2-way table of every pair i < j, and the domain sizes (read off table shapes)."""
    if d < 2:
        raise ValueError(f"the mutual-information matrix needs d ≥ 2 attributes, got d = {d}")
    sizes = [0] * d
    joints = {}
    for i in range(d):
        for j in range(i + 1, d):
            joints[i, j] = table.counts([i, j])
            sizes[i], sizes[j] = joints[i, j].shape
    return joints, sizes


def _mutual_information(joints: dict[tuple[int, int], np.ndarray], d: int) -> np.ndarray:
    """I of each (clipped) table, batched per shape, in a symmetric matrix; a table with no mass gives 0."""
    values = np.zeros((d, d))
    by_shape: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for pair, joint in joints.items():
        if np.maximum(joint, 0).sum() > 0:
            by_shape.setdefault(joint.shape, []).append(pair)
    for pairs in by_shape.values():
        rows, cols = np.array(pairs).T
        stacked = np.maximum(np.stack([joints[p] for p in pairs]), 0)
        values[rows, cols] = values[cols, rows] = MutualInformation().batch(stacked)
    return values


def mutual_information_matrix(table: PrivateTable, d: int) -> MutualInformationMatrix:
    """The exact MIM of attributes 0..d−1 (Def. 7; Alg. 1, line 2).  NOT private by itself."""
    joints, _ = _exact_pairs(table, d)
    return MutualInformationMatrix(_mutual_information(joints, d))


def _routes(sizes: Sequence[int], table_cells_max: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Pairs i < j released as tables (≤ table_cells_max cells) and as I values: public sizes only."""
    if table_cells_max < 0:
        raise ValueError(f"table_cells_max ({table_cells_max}) must be ≥ 0")
    pairs = [(i, j) for i in range(len(sizes)) for j in range(i + 1, len(sizes))]
    small = [(i, j) for i, j in pairs if sizes[i] * sizes[j] <= table_cells_max]
    large = [(i, j) for i, j in pairs if sizes[i] * sizes[j] > table_cells_max]
    return small, large


def planned_releases(sizes: Sequence[int], epsilon: float | Fraction, *, table_cells_max: int = TABLE_NOISE_MAX_CELLS,
                     step: str = "mutual-information matrix") -> tuple[tuple[str, str, Fraction], ...]:
    """(step, mechanism, ε) of each release :func:`noisy_mutual_information_matrix` will make, from the
    public domain sizes alone — for a budget plan priced before any data is read.  Σ ε = ``epsilon``."""
    eps = as_fraction(epsilon)
    small, large = _routes(sizes, table_cells_max)
    total = len(small) + len(large)
    return tuple((f"{step}: {route}", "discrete Laplace", eps * len(group) / total)
                 for route, group in (("2-way tables", small), ("I values", large)) if group)


def noisy_mutual_information_matrix(table: PrivateTable, d: int, epsilon: float | Fraction, accountant: Accountant,
                                    rng: RandomSource, *, table_cells_max: int = TABLE_NOISE_MAX_CELLS,
                                    step: str = "mutual-information matrix") -> MutualInformationMatrix:
    """The MIM released at a cost of exactly ``epsilon``: the releases of :func:`planned_releases`
    (the module docstring has the proof).  Value-route entries are unbiased and may be negative;
    table-route entries are I of clipped noisy tables (≥ 0, biased upwards)."""
    joints, sizes = _exact_pairs(table, d)
    small, large = _routes(sizes, table_cells_max)
    releases = iter(planned_releases(sizes, epsilon, table_cells_max=table_cells_max, step=step))
    values = np.zeros((d, d))
    if small:
        name, _, eps_tables = next(releases)
        flat = laplace_counts(np.concatenate([joints[p].ravel() for p in small]), eps_tables, accountant, rng,
                              step=name, sensitivity=2 * len(small),
                              measured=f"2-way count tables of {len(small)} attribute pairs")
        ends = np.cumsum([joints[p].size for p in small])
        noisy = {p: part.reshape(joints[p].shape) for p, part in zip(small, np.split(flat, ends[:-1]))}
        values += _mutual_information(noisy, d)
    if large:
        name, _, eps_values = next(releases)
        sensitivity = pair_sensitivities(table.n, sizes)
        bounds = [float(sensitivity[p]) for p in large]
        lattice = ScoreLattice.for_sensitivity(min(bounds))
        units = sum(count * lattice.units(s) for s, count in Counter(bounds).items())
        exact = _mutual_information({p: joints[p] for p in large}, d)
        noisy_units = laplace_counts(lattice.round(np.array([exact[p] for p in large])), eps_values, accountant, rng,
                                     step=name, sensitivity=units,
                                     measured=f"I of {len(large)} attribute pairs on the lattice γ = {lattice.gamma} "
                                              f"(sensitivity in lattice units)")
        rows, cols = np.array(large).T
        values[rows, cols] = values[cols, rows] = lattice.value(noisy_units)
    return MutualInformationMatrix(values, epsilon=as_fraction(epsilon))
