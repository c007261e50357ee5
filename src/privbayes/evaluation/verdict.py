"""Baselines and a one-line verdict for ``privbayes evaluate``.

A TVD means little on its own, so two references are computed on the spot from the
real table: **uniform** (every cell of the domain equally likely: what a model that
learned nothing gives) and **independent marginals** (the product of the real 1-way
marginals: exact columns, no correlation; what PrivBayes with degree 0 at ε = ∞
gives).  The verdict places the synthetic table's average 2-way TVD against them:

* GOOD: at or below the independent-marginals reference (correlations kept);
* FAIR: below uniform, above independent marginals (columns kept, correlations weak);
* POOR: at or above uniform.

An average can hide a lost relation, so the verdict also names the pairs that lost theirs and
the columns far off (:mod:`privbayes.evaluation.pairs`): with any such pair, GOOD becomes
"GOOD on average, but N of P column pairs lost their relation".  The raw-value checks
(:mod:`privbayes.evaluation.numeric`) add a warning when a point mass is off by more than
:data:`MASS_TOLERANCE` or a KS distance exceeds :data:`KS_TOLERANCE`.  Like everything in
``evaluate``, NOT private.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privbayes.evaluation.numeric import NumericCheck
from privbayes.evaluation.pairs import FAR_ONE_WAY, Comparison

MASS_TOLERANCE = 0.03
KS_TOLERANCE = 0.1
NAMED_IN_VERDICT = 3
"""Lost pairs and far columns named in the verdict line itself; the text output lists more."""


@dataclass(frozen=True)
class References:
    """Average 1-way and 2-way TVDs of the synthetic table and of the two references."""

    one_way: tuple[float, float, float]
    """(synthetic, uniform, independent marginals = 0)"""
    two_way: tuple[float, float, float] | None
    """(synthetic, uniform, independent marginals), None with one attribute or too many pairs"""


def references(comparison: Comparison) -> References:
    """The averages of the per-column and per-pair values: the references of the verdict."""
    one_way = (float(np.mean([c.tvd for c in comparison.columns])),
               float(np.mean([c.uniform for c in comparison.columns])), 0.0)
    if comparison.pairs is None:
        return References(one_way, None)
    means = np.mean([(p.tvd, p.uniform, p.independent) for p in comparison.pairs], axis=0)
    return References(one_way, (float(means[0]), float(means[1]), float(means[2])))


def _named(items: Sequence[str], total: int) -> str:
    shown = ", ".join(items[:NAMED_IN_VERDICT])
    return shown + (f" (+{total - NAMED_IN_VERDICT} more)" if total > NAMED_IN_VERDICT else "")


def verdict(refs: References, numeric: Sequence[NumericCheck] = (), comparison: Comparison | None = None) -> str:
    """One line: GOOD / FAIR / POOR against the references, the lost pairs and far-off columns (a GOOD
    average with a lost pair reads "GOOD on average, but ..."), and any raw-value warning."""
    synth, uniform, independent = refs.two_way if refs.two_way is not None else refs.one_way
    what = "2-way" if refs.two_way is not None else "1-way"
    lost = comparison.lost_pairs if comparison is not None else ()
    total = len(comparison.pairs or ()) if comparison is not None else 0
    named = _named([p.label for p in lost], len(lost))
    if synth <= independent and lost:
        line = (f"GOOD on average, but {len(lost)} of {total} column pairs lost their relation: average {what} TVD "
                f"{synth:.3f}, at or below independent columns ({independent:.3f}) and far from uniform noise "
                f"({uniform:.3f}), yet no better than independent columns on {named}")
    elif synth <= independent:
        line = (f"GOOD: average {what} TVD {synth:.3f}, at or below independent columns ({independent:.3f}) "
                f"and far from uniform noise ({uniform:.3f}): correlations are kept")
        if comparison is not None and comparison.pairs is not None:
            line += ", and no column pair lost its relation"
    elif synth < uniform:
        line = (f"FAIR: average {what} TVD {synth:.3f}, better than uniform noise ({uniform:.3f}) but not than "
                f"independent columns ({independent:.3f}): correlations are weak")
    else:
        line = f"POOR: average {what} TVD {synth:.3f}, no better than uniform noise ({uniform:.3f})"
    if lost and not line.startswith("GOOD"):
        line += f"; {len(lost)} of {total} column pairs lost their relation: {named}"
    far = comparison.far_columns if comparison is not None else ()
    if far:
        line += (f"; {len(far)} column{'s' if len(far) > 1 else ''} far off (1-way TVD > {FAR_ONE_WAY}): "
                 f"{_named([f'{c.name} ({c.tvd:.3f})' for c in far], len(far))}")
    off = [c.name for c in numeric if c.worst_mass_gap > MASS_TOLERANCE or c.ks > KS_TOLERANCE]
    if off:
        line += (f"; raw values differ in {', '.join(off)} (a point mass off by > {MASS_TOLERANCE:.0%} "
                 f"or KS > {KS_TOLERANCE})")
    return line
