"""Every column and every pair of columns against its own references: what a synthetic table lost.

An average hides the pairs that matter: a model can keep most relations and drop the one between
the outcome and its causes.  So each pair (i, j) gets its own synthetic 2-way TVD beside its
**independent-columns reference** (the TVD between the real pair marginal and the product of its
real 1-way marginals: what a table with exact columns and no relation would score) and its
**sampling noise** (below); each column gets its 1-way TVD beside its noise.

Sampling noise.  Two tables of n and m rows drawn from the same distribution p do not have the
same marginals.  With ``v = 1/n + 1/m`` and cells c, ``E TVD ≤ ½ Σ_c sqrt(p_c (1 − p_c) v)``
(Jensen, per cell), and moving one row moves the TVD by at most 1/n (a real row) or 1/m (a
synthetic one), so by McDiarmid's inequality it exceeds its mean by ``t`` with probability at most
``exp(−2 t² / v)``.  The noise of a marginal is the sum of the two, with ``t`` set so that all T
tests of a run (every pair and every column) stay below their noise together with probability
≥ 1 − :data:`NOISE_DELTA` (union bound); p is the real marginal (plug-in).  ``noise`` uses
``v = 1/n + 1/m`` (real and synthetic both samples), ``synthetic_noise`` ``v = 1/m`` (only the
synthetic rows are drawn: an m-row table of exactly independent columns scores within
``synthetic_noise`` of the independent-columns reference, by the triangle inequality).

* A pair whose real relation is beyond the noise (``independent > noise``) **lost its relation**
  when its synthetic TVD is not below the independent-columns reference by more than
  ``synthetic_noise`` (an independent-columns table could score it) and is itself above ``noise``
  (a faithful table could not): ``tvd > max(independent − synthetic_noise, noise)``.  This catches
  a column sampled without its parents, whose pairs sit at the reference, a little above.
* A pair whose real dependence is negligible (``independent ≤ noise``) has no relation to lose; it
  is flagged only when clearly worse than independent columns: ``tvd > independent + noise`` (a
  relation the real table does not have, or columns off).
* Either way, two samples of one table flag nothing, with probability ≥ 1 − δ (every TVD stays
  below its ``noise``).
* A column is **far off** when its 1-way TVD exceeds :data:`FAR_ONE_WAY` and its noise.

docs/decisions.md, "Evaluate: lost pairs and the default target".  NOT private, like all of
``evaluate``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NOISE_DELTA = 0.05
"""Probability that any test of a run exceeds its noise when both tables sample one distribution."""
FAR_ONE_WAY = 0.05
"""A column is far off above this 1-way TVD (5 % of its values would have to change)."""
MAX_PAIRS = 50_000
"""Above this many pairs the per-pair values (and the 2-way references) are not computed."""


def sampling_noise(p: np.ndarray, spread: float, tests: int) -> float:
    """Bound on the TVD of a sampled marginal of the distribution ``p`` (``spread``: 1/n + 1/m for two
    samples of n and m rows, 1/m for one sample against p itself), exceeded by any of ``tests`` such
    marginals with probability ≤ :data:`NOISE_DELTA` (module doc)."""
    p = np.asarray(p, dtype=np.float64).ravel()
    mean = 0.5 * float(np.sqrt(p * (1 - p) * spread).sum())
    return mean + math.sqrt(spread * math.log(max(tests, 1) / NOISE_DELTA) / 2)


@dataclass(frozen=True)
class ColumnValue:
    """One column's 1-way TVD, its uniform reference and its sampling noise."""

    name: str
    tvd: float
    uniform: float
    noise: float

    @property
    def far(self) -> bool:
        return self.tvd > max(FAR_ONE_WAY, self.noise)


@dataclass(frozen=True)
class PairValue:
    """One pair's 2-way TVD, its uniform and independent-columns references and its sampling noise."""

    columns: tuple[str, str]
    tvd: float
    uniform: float
    independent: float
    noise: float
    synthetic_noise: float

    @property
    def lost(self) -> bool:
        if self.independent > self.noise:
            return self.tvd > max(self.independent - self.synthetic_noise, self.noise)
        return self.tvd > self.independent + self.noise

    @property
    def label(self) -> str:
        return f"{self.columns[0]} × {self.columns[1]}"


@dataclass(frozen=True)
class Comparison:
    """Every column's and (up to :data:`MAX_PAIRS`) every pair's values; ``pairs`` is None with one
    column or too many pairs."""

    columns: tuple[ColumnValue, ...]
    pairs: tuple[PairValue, ...] | None

    @property
    def far_columns(self) -> tuple[ColumnValue, ...]:
        """The far-off columns, farthest first."""
        return tuple(sorted((c for c in self.columns if c.far), key=lambda c: -c.tvd))

    @property
    def lost_pairs(self) -> tuple[PairValue, ...]:
        """The pairs that lost their relation, the most above their independent reference first."""
        return tuple(sorted((p for p in self.pairs or () if p.lost), key=lambda p: p.independent - p.tvd))


def _joint(codes: np.ndarray, i: int, j: int, si: int, sj: int) -> np.ndarray:
    return np.bincount(codes[:, i] * sj + codes[:, j], minlength=si * sj).reshape(si, sj) / codes.shape[0]


def _tvd(a: np.ndarray, b: np.ndarray | float) -> float:
    return 0.5 * float(np.abs(a - b).sum())


def compare(real: np.ndarray, synth: np.ndarray, sizes: Sequence[int], names: Sequence[str]) -> Comparison:
    """Per-column and per-pair values of ``synth`` against ``real`` (leaf codes, n × d)."""
    n, m, d = real.shape[0], synth.shape[0], len(sizes)
    pairs = list(itertools.combinations(range(d), 2))
    counted = pairs if 0 < len(pairs) <= MAX_PAIRS else []
    tests = d + len(counted)
    ones = [(np.bincount(real[:, j], minlength=s) / n, np.bincount(synth[:, j], minlength=s) / m)
            for j, s in enumerate(sizes)]
    both, synthetic = 1 / n + 1 / m, 1 / m
    columns = tuple(ColumnValue(names[j], _tvd(r, s), _tvd(r, 1 / len(r)), sampling_noise(r, both, tests))
                    for j, (r, s) in enumerate(ones))
    if not counted:
        return Comparison(columns, None)
    values = []
    for i, j in counted:
        r = _joint(real, i, j, sizes[i], sizes[j])
        s = _joint(synth, i, j, sizes[i], sizes[j])
        values.append(PairValue((names[i], names[j]), _tvd(r, s), _tvd(r, 1 / r.size),
                                _tvd(r, np.outer(ones[i][0], ones[j][0])), sampling_noise(r, both, tests),
                                sampling_noise(r, synthetic, tests)))
    return Comparison(columns, tuple(values))
