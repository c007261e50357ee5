"""Dates of ``kind: date`` attributes: ISO text to whole days, months or years, and back."""

from __future__ import annotations

import datetime
import re
from typing import Any

import numpy as np
import pandas as pd

_EPOCH = np.datetime64("1970-01-01", "D")
_DATE_TEXT = re.compile(r"(?P<y>\d{4})(?:-(?P<m>\d{2})(?:-(?P<d>\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
                        r"(?:Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?")
"""ISO text of a date: ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, the last optionally with a time of day and a UTC
offset (``2020-01-31 10:00:00+01:00``, ``…T10:00Z``), as pandas and Arrow write time stamps; the calendar
date written is the date (the time and offset are not used)."""


def date_ordinal(value: Any, granularity: str) -> float | None:
    """A date as a whole number of days since 1970-01-01, months since year 0, or years; None if
    ``value`` is not an ISO date (``YYYY-MM-DD``, optionally with a time) precise enough for the
    granularity (``YYYY-MM`` suffices for months, ``YYYY`` for years).  Typed dates are accepted (a time
    stamp with a time zone gives its date in that zone)."""
    if isinstance(value, (np.datetime64, pd.Timestamp, datetime.date)):
        day = np.datetime64(pd.Timestamp(value).date(), "D") if not isinstance(value, np.datetime64) else value
        if pd.isna(day):
            return None
        text = str(np.datetime_as_string(day, unit="D"))
    else:
        text = str(value).strip()
    match = _DATE_TEXT.fullmatch(text)
    if (match is None or (granularity == "day" and match["d"] is None)
            or (granularity == "month" and match["m"] is None)):
        return None
    year, month, day_of_month = int(match["y"]), int(match["m"] or 1), int(match["d"] or 1)
    try:
        stamp = datetime.date(year, month, day_of_month)
    except ValueError:
        return None
    if granularity == "year":
        return float(year)
    if granularity == "month":
        return float(year * 12 + month - 1)
    return float((np.datetime64(stamp, "D") - _EPOCH).astype(np.int64))


def date_text(ordinal: float, granularity: str) -> str:
    """ISO text of an ordinal of :func:`date_ordinal` (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``)."""
    k = int(ordinal)
    if granularity == "year":
        return f"{k:04d}"
    if granularity == "month":
        return f"{k // 12:04d}-{k % 12 + 1:02d}"
    return str(_EPOCH + np.timedelta64(k, "D"))
