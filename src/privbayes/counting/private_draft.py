"""Exact answers to the public queries of a differentially private schema draft.

The counting layer reads rows and never adds noise (docs/architecture.md), so the private draft is
split in two: this module answers, with exact counts, the queries that
:mod:`privbayes.synthesizers.private_draft` plans from public inputs only and pays for through the
mechanisms of :mod:`privbayes.privacy`.  Nothing else leaves it.  Each query is a vector in which
one row moves at most one unit of count (the sensitivities are the caller's):

* :meth:`DraftSource.kind_counts`: each row's field in exactly one of :data:`FIELD_KINDS` (empty,
  a whole number, a number with 1..6+ decimals, an ISO date, other text);
* :meth:`DraftSource.split_counts`: for each public threshold c, the rows whose number (or day)
  is ``<= c`` and those ``> c`` (the rank utility of a private quantile, Smith 2011);
* :meth:`DraftSource.value_counts`: the rows whose number equals each public candidate.

The declared types of a DataFrame's or Parquet file's columns are public (the ``dtype``); the
categories of a pandas ``category`` are data-derived and are not exposed (``declared`` drops them).
Values are classified once per distinct field, so the work is the number of distinct fields.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from privbayes.counting.coltypes import TEXT_COLUMN, ColumnType, file_types, frame_type
from privbayes.counting.labels import NUMBER
from privbayes.counting.reading import read_frame
from privbayes.counting.source import check_source
from privbayes.errors import InputError
from privbayes.schema import date_ordinal

FIELD_KINDS = ("empty", "whole number", "1 decimal", "2 decimals", "3 decimals", "4 decimals", "5 decimals",
               "6+ decimals", "ISO date", "other text")
"""The cells of :meth:`DraftSource.kind_counts`, in order: every row's field is in exactly one."""
MAX_DECIMALS_SEEN = 6
_NUMBER = re.compile(NUMBER)


@dataclass(frozen=True)
class _Column:
    """One column as its distinct stripped fields, each field's kind, number (NaN if none), day
    ordinal (NaN if none), and how many rows hold it."""

    kinds: np.ndarray
    numbers: np.ndarray
    days: np.ndarray
    rows: np.ndarray


@dataclass(frozen=True)
class DraftSource:
    """The private table of a draft: the public column names and declared types, and exact counts."""

    names: tuple[str, ...]
    _types: dict[str, ColumnType]
    _columns: dict[str, _Column]

    def declared(self, name: str) -> ColumnType:
        """The column's public declared type (a ``category``'s categories left out: they are data)."""
        return replace(self._types.get(name, TEXT_COLUMN), categories=None)

    def kind_counts(self, name: str) -> np.ndarray:
        """Exact rows per :data:`FIELD_KINDS` cell (one row is in one cell)."""
        column = self._columns[name]
        return np.bincount(column.kinds, weights=column.rows, minlength=len(FIELD_KINDS)).astype(np.int64)

    def split_counts(self, name: str, thresholds: Sequence[float], dates: bool,
                     excluded: Sequence[float] = ()) -> tuple[np.ndarray, np.ndarray]:
        """Exact rows whose number (``dates``: whole day since 1970) is ``<= c`` and ``> c`` for each threshold,
        rows whose number is one of ``excluded`` left out."""
        column = self._columns[name]
        values = column.days if dates else column.numbers
        present = ~np.isnan(values) & ~np.isin(column.numbers, np.asarray(excluded, dtype=float))
        order = np.argsort(values[present], kind="stable")
        sorted_values, cumulative = values[present][order], np.cumsum(column.rows[present][order])
        total = int(cumulative[-1]) if len(cumulative) else 0
        at = np.searchsorted(sorted_values, np.asarray(thresholds, dtype=float), side="right")
        at_most = np.concatenate([[0], cumulative])[at].astype(np.int64)
        return at_most, (total - at_most).astype(np.int64)

    def magnitude_counts(self, name: str, decades: Sequence[int]) -> np.ndarray:
        """Exact rows whose number lies in each cell: −[10^k, 10^(k+1)) for k in ``decades`` descending, then 0,
        then [10^k, 10^(k+1)) ascending (|x| below the first decade counts in it, above the last in it)."""
        column = self._columns[name]
        present = ~np.isnan(column.numbers)
        x, rows = column.numbers[present], column.rows[present]
        low, high = min(decades), max(decades)
        k = np.clip(np.floor(np.log10(np.maximum(np.abs(x), 10.0**low))), low, high).astype(np.int64) - low
        width = high - low + 1
        cells = np.where(x < 0, width - 1 - k, np.where(x > 0, width + 1 + k, width))
        return np.bincount(cells, weights=rows, minlength=2 * width + 1).astype(np.int64)

    def value_counts(self, name: str, candidates: Sequence[float]) -> np.ndarray:
        """Exact rows whose number equals each candidate (candidates distinct)."""
        column = self._columns[name]
        return np.array([int(column.rows[column.numbers == c].sum()) for c in candidates], dtype=np.int64)


def draft_source(data: Any) -> DraftSource:
    """The private table of ``data`` (a DataFrame, a path or a TableFile) for a private draft."""
    check_source(data)
    if isinstance(data, pd.DataFrame) and len({str(c) for c in data.columns}) != len(data.columns):
        raise InputError("data: a column name appears more than once; name every column once")
    if isinstance(data, pd.DataFrame):
        frame, types = data, {str(name): frame_type(data[name]) for name in data.columns}
    else:
        frame, types = read_frame(data, None), {str(k): v for k, v in file_types(data).items()}
    names = tuple(str(name) for name in frame.columns)
    return DraftSource(names, types, {str(name): _column(frame[name]) for name in frame.columns})


def _column(series: pd.Series) -> _Column:
    text = series.astype(object).where(series.notna(), "").astype(str).str.strip()
    counts = text.value_counts(sort=False)
    fields = [str(f) for f in counts.index]
    classified = [_classify(f) for f in fields]
    return _Column(np.array([k for k, _, _ in classified], dtype=np.int64),
                   np.array([x for _, x, _ in classified], dtype=float),
                   np.array([d for _, _, d in classified], dtype=float),
                   counts.to_numpy(dtype=np.int64))


def _classify(field: str) -> tuple[int, float, float]:
    """(kind index, number or NaN, day ordinal or NaN) of one stripped field."""
    if field == "":
        return 0, np.nan, np.nan
    if _NUMBER.fullmatch(field):
        x = float(field)
        if np.isfinite(x):
            if x.is_integer():
                return 1, x, np.nan
            mantissa = field.lower().split("e")[0]
            decimals = len(mantissa.split(".")[1].rstrip("0")) if "." in mantissa else 1
            return 1 + min(max(decimals, 1), MAX_DECIMALS_SEEN), x, np.nan
    day = date_ordinal(field, "day")
    if day is not None:
        return len(FIELD_KINDS) - 2, np.nan, day
    return len(FIELD_KINDS) - 1, np.nan, np.nan
