"""Exact answers to the public queries of a differentially private schema draft.

The counting layer reads rows and never adds noise (docs/architecture.md), so the private draft is
split in two: this module answers, with exact counts, the queries that
:mod:`privbayes.synthesizers.private_draft` plans from public inputs only and pays for through the
mechanisms of :mod:`privbayes.privacy`.  Nothing else leaves it.  Each query is a histogram over
public cells in which every row is in exactly one cell (the sensitivities are the caller's):

* :meth:`DraftSource.histogram`: the empty fields, the fields that are neither numbers nor ISO dates,
  the numbers equal to each public candidate, the other numbers in each public interval, and the ISO
  dates in each public year (docs/decisions.md, "Private schema drafts");
* :meth:`DraftSource.decimal_counts`: the numbers by how many decimals they are written with.

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

from privbayes.core.errors import InputError
from privbayes.counting.coltypes import TEXT_COLUMN, ColumnType, file_types, frame_type
from privbayes.counting.labels import NUMBER
from privbayes.counting.reading import read_frame
from privbayes.counting.source import check_source
from privbayes.schema import date_ordinal

FIELD_CELLS = ("empty", "other text")
"""The first cells of :meth:`DraftSource.histogram`: empty fields, and fields neither a number nor an ISO date."""
DECIMAL_CELLS = ("whole number", "1 decimal", "2 decimals", "3 decimals", "4 decimals", "5 decimals", "6+ decimals")
"""The cells of :meth:`DraftSource.decimal_counts`: every number is in exactly one."""
_NUMBER = re.compile(NUMBER)


@dataclass(frozen=True)
class _Column:
    """One column as its distinct stripped fields: each field's decimals (−1: not a number), number (NaN if
    none), year of an ISO date (NaN if none), whether it is empty, and how many rows hold it."""

    decimals: np.ndarray
    numbers: np.ndarray
    years: np.ndarray
    empty: np.ndarray
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

    def histogram(self, name: str, candidates: Sequence[float], edges: Sequence[float],
                  years: tuple[int, int]) -> np.ndarray:
        """Exact rows per cell, each row in exactly one: :data:`FIELD_CELLS`; then the numbers equal to each
        of ``candidates`` (distinct); then the other numbers in (−∞, e₀), [e₀, e₁), …, [e_last, ∞) for the
        ascending ``edges``; then the ISO dates of each year from ``years[0]`` to ``years[1]`` (earlier and
        later years counted in the first and last)."""
        column = self._columns[name]
        points, cuts = np.asarray(candidates, dtype=float), np.asarray(edges, dtype=float)
        first_year, last_year = years
        base, numbers_at = len(FIELD_CELLS), len(FIELD_CELLS) + len(points)
        years_at = numbers_at + len(cuts) + 1
        cells = np.where(column.empty, 0, 1)
        number = ~np.isnan(column.numbers)
        interval = numbers_at + np.searchsorted(cuts, np.where(number, column.numbers, 0.0), side="right")
        order = np.argsort(points, kind="stable")
        at = np.minimum(np.searchsorted(points[order], column.numbers), max(len(points) - 1, 0))
        hit = number & (points[order][at] == column.numbers) if len(points) else np.zeros(len(cells), dtype=bool)
        interval = np.where(hit, base + order[at] if len(points) else 0, interval)
        cells = np.where(number, interval, cells)
        year = np.clip(np.where(np.isnan(column.years), first_year, column.years), first_year, last_year)
        cells = np.where(np.isnan(column.years), cells, years_at + (year - first_year).astype(np.int64))
        size = years_at + last_year - first_year + 1
        return np.bincount(cells.astype(np.int64), weights=column.rows, minlength=size).astype(np.int64)

    def decimal_counts(self, name: str) -> np.ndarray:
        """Exact numbers per :data:`DECIMAL_CELLS` cell (fields that are not numbers in none)."""
        column = self._columns[name]
        number = column.decimals >= 0
        return np.bincount(column.decimals[number], weights=column.rows[number],
                           minlength=len(DECIMAL_CELLS)).astype(np.int64)


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
    classified = [_classify(str(f)) for f in counts.index]
    return _Column(np.array([d for d, _, _ in classified], dtype=np.int64),
                   np.array([x for _, x, _ in classified], dtype=float),
                   np.array([y for _, _, y in classified], dtype=float),
                   np.array([str(f) == "" for f in counts.index], dtype=bool),
                   counts.to_numpy(dtype=np.int64))


def _classify(field: str) -> tuple[int, float, float]:
    """(decimals or −1 if not a number, number or NaN, year of an ISO date or NaN) of one stripped field."""
    if field == "":
        return -1, np.nan, np.nan
    if _NUMBER.fullmatch(field):
        x = float(field)
        if np.isfinite(x):
            if x.is_integer():
                return 0, x, np.nan
            mantissa = field.lower().split("e")[0]
            decimals = len(mantissa.split(".")[1].rstrip("0")) if "." in mantissa else 1
            return min(max(decimals, 1), len(DECIMAL_CELLS) - 1), x, np.nan
    if date_ordinal(field, "day") is not None:
        return -1, np.nan, float(date_ordinal(field, "year") or 0.0)
    return -1, np.nan, np.nan
