"""Decoding released leaf codes into values: categories, special values exactly, numbers drawn
uniformly inside their bin at the declared precision, dates as ISO text.  Post-processing: it reads
codes and the public domain only."""

from __future__ import annotations

import math
import uuid
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from privbayes.schema.binning import bin_bounds, bin_labels
from privbayes.schema.dtypes import categorical_column, date_column, numeric_column

if TYPE_CHECKING:  # pragma: no cover
    from privbayes.schema.attribute import Attribute


def decode(attr: Attribute, codes: np.ndarray, rng: np.random.Generator, labels: bool = False) -> pd.Series:
    """Values for leaf codes: categories; special values exactly; numbers drawn uniformly inside
    their bin at the declared precision; dates as ISO text — each in the attribute's ``dtype``
    (:mod:`privbayes.schema.dtypes`) when it records one.  ``labels``: numeric and date values as
    their bin labels (text), whatever the dtype."""
    codes = np.asarray(codes, dtype=np.int64)
    missing = codes >= attr.base_size
    if not attr.numeric:
        return categorical_column(attr, codes)
    if labels:
        shown = np.array(bin_labels(attr, 6) + [None], dtype=object)
        return pd.Series(shown[np.minimum(codes, attr.base_size)], name=attr.name)
    special = (codes >= attr.bins) & ~missing
    safe = np.where(codes < attr.bins, codes, 0)
    values = draw_in_bins(attr, safe, rng)
    if attr.special_values:
        values[special] = np.array(attr.special_values, dtype=np.float64)[codes[special] - attr.bins]
    if attr.kind == "date":
        return date_column(attr, values, missing)
    return numeric_column(attr, values, missing)


def draw_in_bins(attr: Attribute, safe: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    low, high = bin_bounds(attr, safe)
    if not attr.integer:
        values = low + rng.random(len(safe)) * (high - low)
        if attr.decimals is not None:
            values = np.clip(np.round(values, attr.decimals), attr.lower, attr.upper)
        return values
    first = np.ceil(low)
    last = np.where(safe == attr.bins - 1, np.floor(attr.upper), np.ceil(high) - 1)  # type: ignore[arg-type]
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
    return np.clip(values, math.ceil(attr.lower), math.floor(attr.upper))  # type: ignore[arg-type]


def identifier_keys(kind: str, start: int, n: int) -> np.ndarray:
    """Keys start + 1 … start + n of an identifier column: int64, text, or UUIDs numbered so (version-4
    layout: the version and variant bits lie above any row number below 2**62, so the keys stay distinct)."""
    numbers = np.arange(start + 1, start + n + 1, dtype=np.int64)
    if kind == "integer":
        return numbers
    if kind == "uuid":
        return np.array([str(uuid.UUID(int=int(i), version=4)) for i in numbers], dtype=object)
    return numbers.astype(str).astype(object)
