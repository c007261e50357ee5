"""Decoding released leaf codes into values: categories, special values exactly, numbers drawn
uniformly inside their bin at the declared precision, dates as ISO text.  Post-processing: it reads
codes and the public domain only."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from privbayes.schema.binning import bin_bounds, bin_labels
from privbayes.schema.dates import date_text

if TYPE_CHECKING:  # pragma: no cover
    from privbayes.schema.attribute import Attribute


def decode(attr: Attribute, codes: np.ndarray, rng: np.random.Generator, labels: bool = False) -> pd.Series:
    """Values for leaf codes: categories; special values exactly; numbers drawn uniformly inside
    their bin at the declared precision; dates as ISO text."""
    codes = np.asarray(codes, dtype=np.int64)
    missing = codes >= attr.base_size
    if not attr.numeric:
        cats = np.array(list(attr.categories) + [None], dtype=object)
        return pd.Series(cats[np.minimum(codes, attr.base_size)], name=attr.name)
    if labels:
        shown = np.array(bin_labels(attr, 6) + [None], dtype=object)
        return pd.Series(shown[np.minimum(codes, attr.base_size)], name=attr.name)
    special = (codes >= attr.bins) & ~missing
    safe = np.where(codes < attr.bins, codes, 0)
    values = draw_in_bins(attr, safe, rng)
    if attr.special_values:
        values[special] = np.array(attr.special_values, dtype=np.float64)[codes[special] - attr.bins]
    if attr.kind == "date":
        texts = np.array([date_text(v, attr.granularity) for v in values], dtype=object)
        texts[missing] = None
        return pd.Series(texts, name=attr.name)
    out = pd.Series(values, name=attr.name)
    out[missing] = np.nan
    if attr.integer:
        return out.astype("Int64")
    return out

def draw_in_bins(attr: Attribute, safe: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    low, high = bin_bounds(attr, safe)
    if not attr.integer:
        values = low + rng.random(len(safe)) * (high - low)
        if attr.decimals is not None:
            values = np.clip(np.round(values, attr.decimals), attr.lower, attr.upper)
        return values
    first = np.ceil(low)
    last = np.where(safe == attr.bins - 1, np.floor(attr.upper), np.ceil(high) - 1)
    empty = last < first  # a bin narrower than 1 holding no integer: use its rounded midpoint
    span = np.maximum(last - first + 1, 1).astype(np.int64)
    values = np.where(empty, np.round((low + high) / 2), first + rng.integers(0, span)).astype(np.float64)
    if attr.special_values:  # a special value has its own code: draw another integer of the bin if there is one
        specials = np.array(attr.special_values, dtype=np.float64)
        for _ in range(8):
            again = np.isin(values, specials) & (span > 1) & ~empty
            if not again.any():
                break
            values[again] = (first + rng.integers(0, span))[again]
    return np.clip(values, math.ceil(attr.lower), math.floor(attr.upper))
