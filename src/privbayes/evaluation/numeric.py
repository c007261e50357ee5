"""Raw-value checks of numeric and date columns for ``privbayes evaluate`` (docs/decisions.md, "Real tables").

Comparing bins hides what happens inside them: a sentinel (999) or a point mass (0)
drawn uniformly inside its bin disappears although the bin's share is right.  So each
numeric column is also compared on its values: the shares of its point masses (the
schema's ``special_values`` and every value holding at least
:data:`POINT_MASS_SHARE` of the real column), five quantiles, and the two-sample
Kolmogorov–Smirnov distance sup_x |F_real(x) − F_synth(x)|.  Values that are not
numbers (or dates) of the column are ignored here; missing values too.  NOT private.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privbayes.counting.labels import NUMBER
from privbayes.schema import Attribute, DateAttribute, date_ordinal, date_text

POINT_MASS_SHARE = 0.05
MAX_MASSES = 5
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


@dataclass(frozen=True)
class NumericCheck:
    """One numeric column compared on raw values."""

    name: str
    masses: tuple[tuple[str, float, float], ...]
    """(value, real share, synthetic share)"""
    quantiles: tuple[tuple[float, str, str], ...]
    """(q, real quantile, synthetic quantile), as text (dates in ISO)"""
    ks: float

    @property
    def worst_mass_gap(self) -> float:
        return max((abs(r - s) for _, r, s in self.masses), default=0.0)


def raw_numbers(attr: Attribute, column: pd.Series) -> np.ndarray:
    """The numbers (date ordinals) of a column of raw values; others are dropped."""
    if isinstance(attr, DateAttribute):
        values = [date_ordinal(v, attr.granularity) for v in column
                  if not (v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)))]
        return np.array([v for v in values if v is not None], dtype=np.float64)
    if column.dtype.kind in "biuf":
        x = column.to_numpy(dtype=np.float64)
    else:
        text = column.astype(object).where(column.notna(), "").astype(str).str.strip()
        ok = text.str.fullmatch(NUMBER).to_numpy(dtype=bool)
        x = pd.to_numeric(text[ok], errors="coerce").to_numpy(dtype=np.float64)
    return x[np.isfinite(x)]


def ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """sup_x |F_a(x) − F_b(x)| of two samples (exact, over the pooled values)."""
    if len(a) == 0 or len(b) == 0:
        return 1.0 if len(a) != len(b) else 0.0
    a, b = np.sort(a), np.sort(b)
    points = np.concatenate([a, b])
    fa = np.searchsorted(a, points, side="right") / len(a)
    fb = np.searchsorted(b, points, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


def _show(attr: Attribute, x: float) -> str:
    if isinstance(attr, DateAttribute):
        return date_text(math.floor(x), attr.granularity)
    return f"{x:.6g}"


def numeric_check(attr: Attribute, real: pd.Series, synth: pd.Series) -> NumericCheck:
    """Point masses, quantiles and KS distance of one numeric column."""
    r, s = raw_numbers(attr, real), raw_numbers(attr, synth)
    masses = list(dict.fromkeys(float(v) for v in attr.special_values))
    if len(r):
        values, counts = np.unique(r, return_counts=True)
        heavy = np.argsort(-counts, kind="stable")[:MAX_MASSES]
        masses += [float(values[i]) for i in heavy if counts[i] / len(r) >= POINT_MASS_SHARE
                   and float(values[i]) not in masses]
    shares = tuple((_show(attr, v), float(np.mean(r == v)) if len(r) else 0.0,
                    float(np.mean(s == v)) if len(s) else 0.0)
                   for v in masses)
    quantiles = tuple((q, _show(attr, float(np.quantile(r, q))) if len(r) else "-",
                       _show(attr, float(np.quantile(s, q))) if len(s) else "-") for q in QUANTILES)
    return NumericCheck(attr.name, shares, quantiles, ks_distance(r, s))
