"""Baselines and a one-line verdict for ``privbayes evaluate`` (issue 16).

A TVD means little on its own, so two references are computed on the spot from the
real table: **uniform** (every cell of the domain equally likely: what a model that
learned nothing gives) and **independent marginals** (the product of the real 1-way
marginals: exact columns, no correlation; what PrivBayes with degree 0 at ε = ∞
gives).  The verdict places the synthetic table's average 2-way TVD against them:

* GOOD: at or below the independent-marginals reference (correlations kept);
* FAIR: below uniform, above independent marginals (columns kept, correlations weak);
* POOR: at or above uniform.

The raw-value checks (:mod:`privbayes.evaluation.numeric`) add a warning when a point
mass is off by more than :data:`MASS_TOLERANCE` or a KS distance exceeds
:data:`KS_TOLERANCE`.  Like everything in ``evaluate``, NOT private.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privbayes.evaluation.numeric import NumericCheck

MASS_TOLERANCE = 0.03
KS_TOLERANCE = 0.1
MAX_PAIRS = 50_000


@dataclass(frozen=True)
class References:
    """Average 1-way and 2-way TVDs of the synthetic table and of the two references."""

    one_way: tuple[float, float, float]
    """(synthetic, uniform, independent marginals = 0)"""
    two_way: tuple[float, float, float] | None
    """(synthetic, uniform, independent marginals), None with one attribute or too many pairs"""


def _joint(codes: np.ndarray, i: int, j: int, si: int, sj: int) -> np.ndarray:
    return np.bincount(codes[:, i] * sj + codes[:, j], minlength=si * sj).reshape(si, sj) / codes.shape[0]


def references(real: np.ndarray, synth: np.ndarray, sizes: Sequence[int]) -> References:
    """The references of the verdict, computed from the real and synthetic leaf codes."""
    d = len(sizes)
    ones = [(np.bincount(real[:, j], minlength=s) / real.shape[0],
             np.bincount(synth[:, j], minlength=s) / synth.shape[0])
            for j, s in enumerate(sizes)]
    one_way = (float(np.mean([0.5 * np.abs(r - s).sum() for r, s in ones])),
               float(np.mean([0.5 * np.abs(r - 1 / len(r)).sum() for r, _ in ones])), 0.0)
    pairs = list(itertools.combinations(range(d), 2))
    if not pairs or len(pairs) > MAX_PAIRS:
        return References(one_way, None)
    tvds = np.zeros((len(pairs), 3))
    for k, (i, j) in enumerate(pairs):
        r = _joint(real, i, j, sizes[i], sizes[j])
        s = _joint(synth, i, j, sizes[i], sizes[j])
        tvds[k] = (0.5 * np.abs(r - s).sum(), 0.5 * np.abs(r - 1 / r.size).sum(),
                   0.5 * np.abs(r - np.outer(ones[i][0], ones[j][0])).sum())
    return References(one_way, tuple(float(x) for x in tvds.mean(axis=0)))  # type: ignore[arg-type]


def verdict(refs: References, numeric: Sequence[NumericCheck] = ()) -> str:
    """One line: GOOD / FAIR / POOR against the references, and any raw-value warning."""
    synth, uniform, independent = refs.two_way if refs.two_way is not None else refs.one_way
    what = "2-way" if refs.two_way is not None else "1-way"
    if synth <= independent:
        line = (f"GOOD: average {what} TVD {synth:.3f}, at or below independent columns ({independent:.3f}) "
                f"and far from uniform noise ({uniform:.3f}): correlations are kept")
    elif synth < uniform:
        line = (f"FAIR: average {what} TVD {synth:.3f}, better than uniform noise ({uniform:.3f}) but not than "
                f"independent columns ({independent:.3f}): correlations are weak")
    else:
        line = f"POOR: average {what} TVD {synth:.3f}, no better than uniform noise ({uniform:.3f})"
    off = [c.name for c in numeric if c.worst_mass_gap > MASS_TOLERANCE or c.ks > KS_TOLERANCE]
    if off:
        line += (f"; raw values differ in {', '.join(off)} (a point mass off by > {MASS_TOLERANCE:.0%} "
                 f"or KS > {KS_TOLERANCE})")
    return line
