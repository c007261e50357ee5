"""Decoding released leaf codes into values: categories, special values exactly, numbers drawn
uniformly inside their bin at the declared precision, dates as ISO text, each column in the
attribute's ``dtype`` (:mod:`privbayes.schema.dtypes`).  Post-processing: it reads codes and the
public domain only."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privbayes.schema.attribute import Attribute, DateAttribute, NumericAttribute
from privbayes.schema.dates import date_text
from privbayes.schema.dtypes import CATEGORY, DATE, TEXT, datetime_parts, nullable, ordinal_days


def decode(attr: Attribute, codes: np.ndarray, rng: np.random.Generator, bin_labels: bool = False) -> pd.Series:
    """Values for leaf codes: categories; special values exactly; numbers drawn uniformly inside
    their bin at the declared precision; dates as ISO text — each in the attribute's ``dtype``
    (:mod:`privbayes.schema.dtypes`) when it records one.  ``bin_labels``: numeric and date values as
    their bin labels (text), whatever the dtype."""
    codes = np.asarray(codes, dtype=np.int64)
    if not isinstance(attr, NumericAttribute):
        return categorical_column(attr, codes)
    if bin_labels:
        shown = np.array(attr.bin_labels(6) + [None], dtype=object)
        return pd.Series(shown[np.minimum(codes, attr.base_size)], name=attr.name)
    values, missing = numbers(attr, codes, rng)
    if isinstance(attr, DateAttribute):
        return date_column(attr, values, missing)
    return numeric_column(attr, values, missing)


def decode_arrow(attributes: Sequence[Attribute], codes: np.ndarray, rng: np.random.Generator, kinds: Any,
                 bin_labels: bool = False) -> Any:
    """The rows of :meth:`Schema.decode <privbayes.schema.Schema.decode>` as a ``pyarrow.Table`` of schema
    ``kinds`` (what ``Table.from_pandas(frame, schema=kinds)`` gives, value for value and with the same draws),
    built without pandas where the column allows: text categories taken by code from the categories as an
    Arrow array (no Python string per row), numbers from numpy; other columns through :func:`decode`.  For
    writing large synthetic tables (docs/scale.md, "Sampling on every core")."""
    import pyarrow as pa

    columns = [_arrow_column(attr, np.ascontiguousarray(codes[:, j]), rng, kinds.field(j).type, bin_labels, pa)
               for j, attr in enumerate(attributes)]
    return pa.Table.from_arrays(columns, schema=kinds)


def coded_text(attributes: Sequence[Attribute], kinds: Any) -> Any:
    """``kinds`` with every text-category column that :func:`decode_arrow` takes from the categories made a
    dictionary of them (``int32`` indices: the leaf codes, null where missing): the same values, handed to a
    Parquet writer without a string per row to look up and hash (docs/decisions.md, "Parallel sampling")."""
    import pyarrow as pa

    fields = [field.with_type(pa.dictionary(pa.int32(), field.type)) if _text_from_codes(attr, field.type, pa)
              else field for attr, field in zip(attributes, kinds)]
    return pa.schema(fields, metadata=kinds.metadata)


def distinct_values(attr: Attribute, bin_labels: bool = False) -> float:
    """How many distinct values a decoded column of ``attr`` can hold, from the public domain alone: the codes
    for categories and bin labels, the whole numbers (days, months, years for dates) or the numbers at the
    declared decimals in [lower, upper] plus the special values, ``inf`` for numbers drawn continuously."""
    if not isinstance(attr, NumericAttribute) or bin_labels:
        return attr.size
    if attr.integer:
        return math.floor(attr.upper) - math.ceil(attr.lower) + 1 + len(attr.special_values)
    if attr.decimals is not None:
        return math.floor((attr.upper - attr.lower) * 10 ** attr.decimals) + 1 + len(attr.special_values)
    return math.inf


def _text_from_codes(attr: Attribute, kind: Any, pa: Any) -> bool:
    """Whether the column is :func:`categorical_column`'s inferred text (no dtype, every category a string),
    which :func:`decode_arrow` takes from the categories by code."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return (attr.dtype is None and not isinstance(attr, NumericAttribute)
            and (pa.types.is_large_string(kind) or pa.types.is_string(kind))
            and all(isinstance(c, str) for c in attr.categories))


def _arrow_column(attr: Attribute, codes: np.ndarray, rng: np.random.Generator, kind: Any, bin_labels: bool,
                  pa: Any) -> Any:
    codes = np.asarray(codes, dtype=np.int64)
    if _text_from_codes(attr, kind, pa):
        if pa.types.is_dictionary(kind):  # the codes are the indices (coded_text)
            missing = codes >= attr.base_size
            return pa.DictionaryArray.from_arrays(
                pa.array(codes.astype(np.int32), mask=missing if missing.any() else None),
                pa.array(attr.categories, type=kind.value_type))
        absent = [None] if attr.size > attr.base_size else []  # no null to carry when no code is missing
        categories = pa.array(list(attr.categories) + absent, type=kind)
        return categories.take(np.minimum(codes, attr.base_size).astype(np.int32))
    if attr.dtype is None and isinstance(attr, NumericAttribute) and not isinstance(attr, DateAttribute) \
            and not bin_labels and (pa.types.is_int64(kind) if attr.integer else pa.types.is_float64(kind)):
        values, missing = numbers(attr, codes, rng)
        mask = missing if missing.any() else None
        if attr.integer:  # numeric_column's Int64: the integers, null where missing (a number below: unread)
            return pa.array(values.astype(np.int64), type=kind, mask=mask)
        values[missing] = np.nan
        return pa.array(values, type=kind, from_pandas=True)  # NaN → null, as from a float64 column
    return pa.array(decode(attr, codes, rng, bin_labels), type=kind, from_pandas=True)


def numbers(attr: NumericAttribute, codes: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The numbers of leaf codes (special values exactly, others drawn in their bins; anything where
    missing) and where the code is the missing one."""
    missing = codes >= attr.base_size
    values = draw_in_bins(attr, np.where(codes < attr.bins, codes, 0), rng)
    if attr.special_values:
        special = (codes >= attr.bins) & ~missing
        values[special] = np.array(attr.special_values, dtype=np.float64)[codes[special] - attr.bins]
    return values, missing


def draw_in_bins(attr: NumericAttribute, safe: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A number inside each code's bin: uniform, at the declared decimals; integers uniformly among the bin's
    whole numbers (other than a special value when the bin has another).  What a bin allows is worked out
    once per bin, then taken by code (the same numbers as computed row by row)."""
    low_bins, high_bins = attr.bin_bounds(np.arange(attr.bins))
    if not attr.integer:
        values = low_bins[safe] + rng.random(len(safe)) * (high_bins - low_bins)[safe]
        if attr.decimals is not None:
            values = np.clip(np.round(values, attr.decimals), attr.lower, attr.upper)
        return values
    first_bins = np.ceil(low_bins)
    last_bins = np.ceil(high_bins) - 1
    last_bins[-1] = np.floor(attr.upper)
    empty_bins = last_bins < first_bins  # a bin narrower than 1 holding no integer: use its rounded midpoint
    span_bins = np.maximum(last_bins - first_bins + 1, 1).astype(np.int64)
    first, span = first_bins[safe], span_bins[safe]
    values = first + rng.integers(0, span)
    if empty_bins.any():
        values = np.where(empty_bins[safe], np.round((low_bins + high_bins) / 2)[safe], values)
    if attr.special_values:  # a special value has its own code: draw another integer of the bin if there is one
        specials = np.array(attr.special_values, dtype=np.float64)
        redraw = (span > 1) & ~empty_bins[safe]
        for _ in range(8):
            again = np.isin(values, specials) & redraw
            if not again.any():
                break
            values[again] = (first + rng.integers(0, span))[again]
    return np.clip(values, math.ceil(attr.lower), math.floor(attr.upper), out=values)  # a new array: in place


def identifier_keys(kind: str, start: int, n: int) -> np.ndarray:
    """Keys start + 1 … start + n of an identifier column: int64, text, or UUIDs numbered so (version-4
    layout: the version and variant bits lie above any row number below 2**62, so the keys stay distinct)."""
    numbers = np.arange(start + 1, start + n + 1, dtype=np.int64)
    if kind == "integer":
        return numbers
    if kind == "uuid":
        return np.array([str(uuid.UUID(int=int(i), version=4)) for i in numbers], dtype=object)
    return numbers.astype(str).astype(object)


# --- building columns in the attribute's dtype ---------------------------------------------------------------

def _text_series(values: list[Any], dtype: str, name: str) -> pd.Series:
    if dtype == "object":
        return pd.Series(np.array(values, dtype=object), name=name, dtype=object)
    texts = [None if v is None else str(v) for v in values]
    if dtype == "str" and int(pd.__version__.split(".")[0]) < 3:  # pragma: no cover - pandas 2 has no 'str'
        return pd.Series(np.array(texts, dtype=object), name=name, dtype=object)
    return pd.Series(texts, name=name, dtype=dtype)


def categorical_column(attr: Attribute, codes: np.ndarray) -> pd.Series:
    """The categories of leaf codes (missing: None/NA) in the attribute's dtype: the categories are
    converted once, then taken by code."""
    positions = np.minimum(codes, attr.base_size)  # the missing code reads the entry after the categories
    dtype = attr.dtype
    if dtype is None:  # as before: pandas' own inference (str for text on pandas 3)
        values = np.array(list(attr.categories) + [None], dtype=object)
        if all(isinstance(c, str) for c in attr.categories) and (positions < attr.base_size).any():
            # the inference made once on the categories, not on every row (it gives the same dtype when
            # some row is not missing: all missing, pandas keeps objects)
            return pd.Series(values).take(positions).reset_index(drop=True).rename(attr.name)
        return pd.Series(values[positions], name=attr.name)
    if dtype == CATEGORY:
        return pd.Series(pd.Categorical.from_codes(np.where(codes < attr.base_size, codes, -1),
                                                   categories=list(attr.categories), ordered=attr.ordered),
                         name=attr.name)
    if dtype in TEXT:
        texts = [c if dtype == "object" else str(c) for c in attr.categories] + [None]
        return _text_series(texts, dtype, attr.name).take(positions).reset_index(drop=True)
    if not nullable(dtype):  # no missing code (checked on construction)
        return pd.Series(np.array(list(attr.categories), dtype=dtype)[positions], name=attr.name)
    return pd.Series(pd.array(list(attr.categories) + [None], dtype=dtype).take(positions), name=attr.name)


def numeric_column(attr: NumericAttribute, values: np.ndarray, missing: np.ndarray) -> pd.Series:
    """Numbers (NaN where missing) in the attribute's dtype (``Int64`` or ``float64`` without one)."""
    if attr.dtype in TEXT:
        texts = [None if m else (str(int(v)) if attr.integer else repr(float(v))) for v, m in zip(values, missing)]
        return _text_series(texts, attr.dtype, attr.name)
    dtype = attr.dtype or ("Int64" if attr.integer else None)
    if dtype == "Int64" and attr.integer:  # integers and mask directly: what astype("Int64") of the floats gives
        return pd.Series(pd.arrays.IntegerArray(np.where(missing, 0, values).astype(np.int64), missing.copy()),
                         name=attr.name)
    out = pd.Series(values, name=attr.name)
    out[missing] = np.nan
    return out if dtype is None or dtype == "float64" else out.astype(dtype)


def date_column(attr: DateAttribute, ordinals: np.ndarray, missing: np.ndarray) -> pd.Series:
    """Dates of ordinals in the attribute's dtype: ISO text without one, ``datetime.date`` values,
    or time stamps at midnight (in the dtype's time zone)."""
    dtype = attr.dtype
    parts = None if dtype is None else datetime_parts(dtype)
    if parts is not None:
        unit, tz = parts
        stamps = pd.DatetimeIndex(ordinal_days(ordinals, attr.granularity).astype(f"datetime64[{unit}]"))
        if tz is not None:
            stamps = stamps.tz_localize(tz, ambiguous=np.zeros(len(stamps), bool), nonexistent="shift_forward")
        out = pd.Series(stamps, name=attr.name)
        out[missing] = pd.NaT
        return out
    if dtype == DATE:
        values = ordinal_days(ordinals, attr.granularity).astype(object)  # datetime.date values
        values[missing] = None
        return pd.Series(values, name=attr.name, dtype=object)
    texts = [None if m else date_text(v, attr.granularity) for v, m in zip(ordinals, missing)]
    return _text_series(texts, dtype or "object", attr.name)
