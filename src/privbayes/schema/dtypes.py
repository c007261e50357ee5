"""Output types: the pandas dtype a sampled column comes back with (docs/decisions.md, "What goes in comes out").

An attribute may record the ``dtype`` its column had when it went in (``schema infer`` writes it
from a DataFrame or a Parquet file; a steward may write it by hand), and ``ordered: true`` for an
ordered pandas ``category``.  Decoding (:mod:`privbayes.schema.decoding`) then builds the column
with that dtype.  Without a ``dtype`` the output is as before: categories as declared (an object
column), ``Int64`` for integer numeric attributes, ``float64`` for the others, ISO text for dates.

The vocabulary is pandas' own spelling of the dtypes (what ``df.dtypes`` prints):

=================  ===================================================================
kind               dtype
=================  ===================================================================
categorical,       ``bool``, ``boolean`` (categories ``false``/``true``); ``int8`` … ``int64``,
binary             ``uint8`` … ``uint64``, ``Int8`` … ``Int64``, ``UInt8`` … ``UInt64``
                   (integer categories); ``float32``, ``float64``, ``Float32``, ``Float64``
                   (number categories); ``category`` (with ``ordered``); ``object``, ``str``,
                   ``string`` (text: ``str``/``string`` spell every category as text)
numeric            the integer dtypes (with ``integer: true``), the float dtypes, and ``object``,
                   ``str``, ``string`` (numbers written as text: ``12``, ``3.25``)
date               ``date`` (``datetime.date`` values), ``datetime64[UNIT]`` or
                   ``datetime64[UNIT, TIME ZONE]`` (UNIT s, ms, us or ns; midnight in that time
                   zone), ``object``, ``str``, ``string`` (ISO text)
=================  ===================================================================

The dtypes that cannot hold a missing value (``bool``, ``int*``, ``uint*``) need ``missing:
refuse``; a schema asking for both is refused when it is read, never when rows are sampled.
These are facts of the public schema: they describe the column, not its rows (a draft's dtype is
read from the data like the rest of the draft, and flagged with it).
"""

from __future__ import annotations

import math
import re
import zoneinfo
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError

_SIZES = ("8", "16", "32", "64")
NON_NULLABLE_INTEGERS = tuple(f"{sign}int{size}" for sign in ("", "u") for size in _SIZES)
NULLABLE_INTEGERS = tuple(f"{sign}Int{size}" for sign in ("", "U") for size in _SIZES)
FLOATS = ("float32", "float64", "Float32", "Float64")
TEXT = ("object", "str", "string")
BOOLEANS = ("bool", "boolean")
CATEGORY = "category"
DATE = "date"
_DATETIME = re.compile(r"datetime64\[(?P<unit>s|ms|us|ns)(?:, (?P<tz>[A-Za-z0-9_+\-:/]{1,64}))?\]")
_NS_YEARS = (1678, 2261)
"""Whole years a ``datetime64[ns]`` column holds (pandas' nanosecond range is 1677-09-21 … 2262-04-11)."""

BY_KIND: dict[str, tuple[str, ...]] = {
    "categorical": (*BOOLEANS, *NON_NULLABLE_INTEGERS, *NULLABLE_INTEGERS, *FLOATS, CATEGORY, *TEXT),
    "numeric": (*NON_NULLABLE_INTEGERS, *NULLABLE_INTEGERS, *FLOATS, *TEXT),
    "date": (DATE, *TEXT),
}
BY_KIND["binary"] = BY_KIND["categorical"]


def datetime_parts(dtype: str) -> tuple[str, str | None] | None:
    """``(unit, time zone or None)`` of a ``datetime64[...]`` dtype, else None."""
    match = _DATETIME.fullmatch(dtype)
    return None if match is None else (match["unit"], match["tz"])


def nullable(dtype: str | None) -> bool:
    """Can a column of this dtype hold a missing value?"""
    return dtype is None or not (dtype == "bool" or dtype in NON_NULLABLE_INTEGERS)


def nullable_twin(dtype: str) -> str:
    """The dtype that holds the same values and a missing value: ``bool`` → ``boolean``, ``int64`` →
    ``Int64``, ``uint8`` → ``UInt8``; a nullable dtype is its own twin."""
    if nullable(dtype):
        return dtype
    if dtype == "bool":
        return "boolean"
    return "UInt" + dtype[4:] if dtype.startswith("uint") else "Int" + dtype[3:]


def check_dtype(kind: str, dtype: str | None, ordered: bool, missing: str, where: str) -> None:
    """Refuse, in one line, a ``dtype``/``ordered`` no attribute of this kind is sampled into (the vocabulary
    and the missing code); the values the attribute declares are checked by :func:`check_category_dtype`,
    :func:`check_number_dtype` and :func:`check_date_dtype`."""
    if not isinstance(ordered, bool):
        raise InputError(f"schema: {where}: ordered must be true or false, got {ordered!r}")
    if ordered and dtype != CATEGORY:
        raise InputError(f"schema: {where}: 'ordered: true' is for 'dtype: category'")
    if dtype is None:
        return
    if not isinstance(dtype, str) or len(dtype) > 80:
        raise InputError(f"schema: {where}: dtype must be a pandas dtype name such as int64, category or "
                         f"datetime64[ns, UTC], got {type(dtype).__name__}")
    if dtype not in BY_KIND[kind] and not (kind == "date" and datetime_parts(dtype) is not None):
        raise InputError(f"schema: {where}: dtype {dtype!r} is not one a {kind} attribute is sampled into "
                         f"({_choices(kind)})")
    if not nullable(dtype) and missing != "refuse":
        raise InputError(f"schema: {where}: dtype {dtype!r} cannot hold missing values; use {nullable_twin(dtype)!r} "
                         "with 'missing: category'")


def _choices(kind: str) -> str:
    names = BY_KIND[kind]
    if kind == "date":
        return ", ".join(names) + ", datetime64[UNIT] or datetime64[UNIT, TIME ZONE]"
    return ", ".join(names)


def _integer_range(dtype: str) -> tuple[int, int]:
    info = np.iinfo(dtype.lower())
    return int(info.min), int(info.max)


def check_category_dtype(dtype: str, cats: Sequence[Any], where: str) -> None:
    """Refuse categories that a categorical attribute's ``dtype`` cannot hold."""
    if dtype in BOOLEANS:
        if not all(isinstance(c, bool) for c in cats):
            raise InputError(f"schema: {where}: dtype {dtype!r} needs the categories false and true "
                             "(YAML booleans, not text)")
    elif dtype in NON_NULLABLE_INTEGERS or dtype in NULLABLE_INTEGERS:
        low, high = _integer_range(dtype)
        if not all(isinstance(c, int) and not isinstance(c, bool) and low <= c <= high for c in cats):
            raise InputError(f"schema: {where}: dtype {dtype!r} needs integer categories in [{low}, {high}]")
    elif dtype in FLOATS:
        if not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in cats):
            raise InputError(f"schema: {where}: dtype {dtype!r} needs number categories")


def check_number_dtype(dtype: str, integer: bool, lower: float, upper: float, special_values: Sequence[float],
                       where: str) -> None:
    """Refuse a numeric attribute's integer ``dtype`` that its bounds or special values do not fit."""
    if dtype in FLOATS or dtype in TEXT:
        return
    if not integer:
        raise InputError(f"schema: {where}: dtype {dtype!r} holds whole numbers; set 'integer: true' or use float64")
    low, high = _integer_range(dtype)
    values = [math.ceil(lower), math.floor(upper), *special_values]
    if not all(float(v).is_integer() and low <= v <= high for v in values):
        raise InputError(f"schema: {where}: dtype {dtype!r} holds whole numbers in [{low}, {high}]; the bounds and "
                         "special values must be such numbers")


def check_date_dtype(dtype: str, lower: float, upper: float, granularity: str, where: str) -> None:
    """Refuse a date attribute's ``datetime64`` dtype whose time zone or unit cannot hold its range."""
    parts = datetime_parts(dtype)
    if parts is None:
        return
    unit, tz = parts
    if tz is not None:
        if not time_zone_name(tz):
            raise InputError(f"schema: {where}: dtype {dtype!r}: the time zone must be an IANA name such as "
                             "Europe/Paris, UTC or a fixed offset such as UTC+01:00")
        try:
            pd.DatetimeTZDtype(unit, tz)
        except (TypeError, ValueError, KeyError, LookupError):
            raise InputError(f"schema: {where}: dtype {dtype!r}: unknown time zone {tz!r}") from None
        skipped = skipped_day(tz, lower, upper, granularity)
        if skipped is not None:
            raise InputError(f"schema: {where}: dtype {dtype!r}: the time zone skipped {skipped}, a day of the "
                             f"attribute's range, which no time stamp in it can hold; use datetime64[{unit}] or text")
    if unit == "ns":
        first, last = (_year(day) for day in ordinal_days(np.array([lower, upper]), granularity))
        if first < _NS_YEARS[0] or last > _NS_YEARS[1]:
            raise InputError(f"schema: {where}: dtype {dtype!r} holds dates from {_NS_YEARS[0]} to {_NS_YEARS[1]}; "
                             "use datetime64[us] for dates outside them")


_FIXED_OFFSET = re.compile(r"(?:UTC)?[+-][0-9]{2}:[0-9]{2}")


def time_zone_name(tz: str) -> bool:
    """Whether ``tz`` names a time zone: an IANA name (:func:`zoneinfo.available_timezones`), UTC, or a fixed
    offset as pandas writes it (``UTC+01:00``).  Never a path: pandas reads ``dateutil/<path>`` as a file to
    open, so a schema could make the loader open any local file (docs/decisions.md, "Hostile parameters and
    model files")."""
    return tz.upper() == "UTC" or _FIXED_OFFSET.fullmatch(tz) is not None or tz in zoneinfo.available_timezones()


_TRANSITION_YEARS = (np.datetime64("1800-01-01"), np.datetime64("2399-12-31"))
_DAY_JUMP = np.timedelta64(20, "h")
"""A month whose UTC offset rises by this much may skip a whole day (a day needs a 24 h jump; a DST hour back in
the same month leaves 23 h): only such months are checked day by day."""


def skipped_day(tz: str, lower: float, upper: float, granularity: str) -> str | None:
    """The first day of the attribute's range that does not exist in ``tz`` (Pacific/Apia skipped 2011-12-30), as
    ISO text, else None.  Midnight is localized forward past a DST gap on the same day, but a skipped day's
    stamps would fall on the next day.  Checked per month boundary, then day by day only in months whose offset
    jumps (≤ 12 stamps a year of the range, not 365).  Only days from :data:`_TRANSITION_YEARS` are checked:
    the time zone database records no jump outside them (before its first rule, local mean time; after its last,
    yearly DST rules of an hour or two)."""
    first, last = ordinal_days(np.array([lower, upper]), granularity)
    first, last = max(first, _TRANSITION_YEARS[0]), min(last, _TRANSITION_YEARS[1])
    if first > last:
        return None
    if granularity in ("month", "year"):  # the values are first days of months or years: check them all
        step = "M" if granularity == "month" else "Y"
        candidates = np.arange(first.astype(f"datetime64[{step}]"), last.astype(f"datetime64[{step}]") + 1)
        return _first_moved(candidates.astype("datetime64[D]"), tz)
    months = np.arange(first.astype("datetime64[M]"), last.astype("datetime64[M]") + 2).astype("datetime64[D]")
    months[0] = first
    stamps = pd.DatetimeIndex(months.astype("datetime64[s]"))
    local = stamps.tz_localize(tz, ambiguous=np.zeros(len(stamps), bool), nonexistent="shift_forward")
    offsets = (local.tz_localize(None) - local.tz_convert("UTC").tz_localize(None)).to_numpy()
    for j in np.flatnonzero(np.diff(offsets) >= _DAY_JUMP):
        days = np.arange(max(months[j], first), min(months[j + 1], last + 1))
        moved = _first_moved(days, tz)
        if moved is not None:
            return moved
    return None


def _first_moved(days: np.ndarray, tz: str) -> str | None:
    """The first of ``days`` whose midnight, localized in ``tz`` as decoding does, falls on another day."""
    if len(days) == 0:
        return None
    stamps = pd.DatetimeIndex(days.astype("datetime64[s]"))
    local = stamps.tz_localize(tz, ambiguous=np.zeros(len(stamps), bool), nonexistent="shift_forward")
    moved = np.flatnonzero(local.tz_localize(None).normalize() != stamps)
    return str(days[moved[0]]) if len(moved) else None


def _year(day: np.datetime64) -> int:
    return int(np.datetime_as_string(day, unit="Y"))


def ordinal_days(ordinals: np.ndarray, granularity: str | None) -> np.ndarray:
    """``datetime64[D]`` of date ordinals (:func:`privbayes.schema.dates.date_ordinal`): the day, or the
    first day of the month or year."""
    whole = np.asarray(ordinals, dtype=np.float64).astype(np.int64)
    if granularity == "year":
        return (whole - 1970).astype("datetime64[Y]").astype("datetime64[D]")
    if granularity == "month":
        return (whole - 1970 * 12).astype("datetime64[M]").astype("datetime64[D]")
    return whole.astype("datetime64[D]")
