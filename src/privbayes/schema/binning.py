"""The public bins of a numeric or date attribute: edges (equal-width, log-spaced or declared),
the bin and leaf code of a number, and display labels (numeric attributes: docs/decisions.md, "Real tables")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from privbayes.schema.dates import date_text

if TYPE_CHECKING:  # pragma: no cover
    from privbayes.schema.attribute import Attribute


def bin_edges(attr: Attribute) -> np.ndarray:
    """The b + 1 public bin edges (equal-width, log-spaced, or declared)."""
    if attr.edges is not None:
        return np.array(attr.edges, dtype=np.float64)
    if attr.scale == "log":
        return attr.lower + np.expm1(np.linspace(0.0, math.log1p(attr.upper - attr.lower), attr.bins + 1))  # type: ignore[operator]
    step = (attr.upper - attr.lower) / attr.bins  # type: ignore[operator]
    return attr.lower + np.arange(attr.bins + 1) * step

def bin_codes(attr: Attribute, x: np.ndarray) -> np.ndarray:
    """Bin of each number in [lower, upper] (bins are [e_i, e_i+1); ``upper`` is in the last bin)."""
    if attr.edges is None and attr.scale == "linear":
        step = (attr.upper - attr.lower) / attr.bins  # type: ignore[operator]
        return np.clip(np.floor((x - attr.lower) / step), 0, attr.bins - 1).astype(np.int64)
    return np.clip(np.searchsorted(bin_edges(attr), x, side="right") - 1, 0, attr.bins - 1).astype(np.int64)

def number_codes(attr: Attribute, x: np.ndarray) -> np.ndarray:
    """Leaf code of each number: its special value's code, else its bin; −1 outside the bounds."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(len(x), -1, np.int64)
    inside = (x >= attr.lower) & (x <= attr.upper)
    out[inside] = bin_codes(attr, x[inside])
    for i, value in enumerate(attr.special_values):
        out[x == value] = attr.bins + i
    return out

def bin_bounds(attr: Attribute, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if attr.edges is None and attr.scale == "linear":
        step = (attr.upper - attr.lower) / attr.bins  # type: ignore[operator]
        low = attr.lower + codes * step  # type: ignore[operator]
        return low, low + step
    edges = bin_edges(attr)
    return edges[codes], edges[codes + 1]

def bin_labels(attr: Attribute, digits: int = 4) -> list[str]:
    """Display labels of the leaf codes of values: ``[lo, hi)`` per bin, then the special values."""
    edges = bin_edges(attr)
    if attr.kind == "date":
        labels = [f"[{date_text(math.ceil(a), attr.granularity)}, {date_text(math.ceil(b), attr.granularity)})"  # type: ignore[arg-type]
                  for a, b in zip(edges, edges[1:])]
    else:
        labels = [f"[{a:.{digits}g}, {b:.{digits}g})" for a, b in zip(edges, edges[1:])]
    if attr.kind == "date":
        return labels + [f"={date_text(v, attr.granularity or 'day')}" for v in attr.special_values]
    return labels + [f"={v:g}" for v in attr.special_values]
