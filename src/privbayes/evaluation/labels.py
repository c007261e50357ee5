"""Readable labels of an attribute's values for the evaluation report
(docs/decisions.md, "The evaluation report for a data steward").

The schema's own bin labels (``[17, 21.56)``, ``[1.3e+04, 1.059e+05)``) are exact but written
for a machine; ``sample --bin-labels`` and the NBC views keep them as value names.  A reader
of the report wants what a bin holds:

* integer attributes: the integers a bin holds, ``17–21`` (one integer: ``17``), found with the
  same coding rule the counting layer uses (:meth:`privbayes.schema.NumericAttribute.bin_codes`), so a
  label never names an integer that is counted in the next bin;
* other numbers: ``[0.25, 0.5)`` with the fewest decimals that move no edge by more than 1 % of
  the narrowest bin, trailing zeros dropped, the last bin closed (``upper`` belongs to it);
* thousands separators from 10,000 on, never scientific notation between 10⁻⁶ and 10¹⁵;
* dates: the first and last period a bin holds at the attribute's granularity,
  ``2015-01 to 2015-06``;
* special values: ``= 0``; categories as written; missing values ``<missing>``.

Display only: codes, files and value names are unchanged.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from privbayes.schema import MISSING_LABEL, Attribute, DateAttribute, NumericAttribute, date_text

MAX_DECIMALS = 8
EDGE_ERROR = 0.01
LARGE = 10_000


def number_text(x: float, decimals: int = 0) -> str:
    """``x`` with ``decimals`` decimals, thousands separators from :data:`LARGE` on, trailing zeros
    kept (they line up in a column); scientific notation only outside 1e-6 … 1e15."""
    if x != 0 and not 1e-6 <= abs(x) < 1e15:
        return f"{x:.4g}"
    text = f"{x:,.{decimals}f}" if abs(x) >= LARGE else f"{x:.{decimals}f}"
    return "0" if text in ("-0", "-0.0") else text.replace("-", "−")


def edge_decimals(edges: np.ndarray) -> int:
    """The fewest decimals (≤ :data:`MAX_DECIMALS`) that move no edge by more than
    :data:`EDGE_ERROR` of the narrowest bin's width (so the rounded edges stay in order)."""
    edges = np.asarray(edges, dtype=np.float64)
    tolerance = EDGE_ERROR * float(np.min(np.diff(edges)))
    for decimals in range(MAX_DECIMALS + 1):
        if np.max(np.abs(np.round(edges, decimals) - edges)) <= tolerance:
            return decimals
    return MAX_DECIMALS


def _first_integer(attr: NumericAttribute, k: int, edge: float) -> int:
    """The smallest integer coded into bin ``k``, searched beside the bin's lower edge."""
    start = max(math.ceil(edge) - 1, math.ceil(attr.lower))
    for m in range(start, start + 3):
        if m <= attr.upper and int(attr.bin_codes(np.array([float(m)]))[0]) >= k:
            return m
    return start + 3


def integer_ranges(attr: NumericAttribute) -> list[tuple[int, int]] | None:
    """The first and last integer (date: ordinal) of each bin; None when a bin holds none."""
    edges = attr.bin_edges()
    firsts = [_first_integer(attr, k, edges[k]) for k in range(attr.bins)] + [math.floor(attr.upper) + 1]
    ranges = [(first, following - 1) for first, following in itertools.pairwise(firsts)]
    return ranges if all(lo <= hi for lo, hi in ranges) else None


def integer_bin_labels(attr: NumericAttribute) -> list[str] | None:
    """``lo–hi`` per bin of an integer attribute (``lo`` alone for one integer); None when a bin
    holds no integer."""
    ranges = integer_ranges(attr)
    if ranges is None:
        return None
    labels = []
    for lo, hi in ranges:
        a, b = number_text(lo), number_text(hi)
        labels.append(a if lo == hi else (f"{a}–{b}" if lo >= 0 else f"{a} to {b}"))
    return labels


def numeric_bin_labels(attr: NumericAttribute) -> list[str]:
    """``[a, b)`` per bin, edges rounded by :func:`edge_decimals`; the last bin closed."""
    edges = attr.bin_edges()
    decimals = edge_decimals(edges)
    shown = [_trimmed(number_text(float(e), decimals)) for e in edges]
    return [f"[{a}, {b}{']' if k == attr.bins - 1 else ')'}" for k, (a, b) in enumerate(itertools.pairwise(shown))]


def date_bin_labels(attr: DateAttribute) -> list[str]:
    """First and last period of each bin at the attribute's granularity (``2015-01 to 2015-06``)."""
    ranges = integer_ranges(attr)
    if ranges is None:
        return attr.bin_labels()
    labels = []
    for lo, hi in ranges:
        a, b = date_text(lo, attr.granularity), date_text(hi, attr.granularity)
        labels.append(a if lo == hi else f"{a} to {b}")
    return labels


def readable_labels(attr: Attribute) -> tuple[str, ...]:
    """Display labels of an attribute's leaf codes, in code order (see the module's rules)."""
    if isinstance(attr, DateAttribute):
        labels = date_bin_labels(attr)
        labels += [f"= {date_text(v, attr.granularity)}" for v in attr.special_values]
    elif isinstance(attr, NumericAttribute):
        labels = (integer_bin_labels(attr) if attr.integer else None) or numeric_bin_labels(attr)
        labels += [f"= {number_text(float(v), _decimals_of(float(v)))}" for v in attr.special_values]
    else:
        labels = [str(c) for c in attr.categories]
    return tuple(labels + [MISSING_LABEL] * (attr.size - attr.base_size))


def _trimmed(text: str) -> str:
    """``0.50`` → ``0.5``, ``2.00`` → ``2`` (not in scientific notation)."""
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def _decimals_of(x: float) -> int:
    """Decimals needed to write ``x`` exactly as its shortest repr (at most :data:`MAX_DECIMALS`)."""
    text = repr(x)
    if "e" in text or "." not in text:
        return 0
    fraction = text.split(".", 1)[1].rstrip("0")
    return min(len(fraction), MAX_DECIMALS)
