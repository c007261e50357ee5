"""Reading private tables as raw values, never letting a library guess types or missing values.

CSV and the authors' ``.dat`` files are read as text only (no type inference, no NA
words: ``pd.read_csv(dtype=str, na_filter=False)``); Parquet columns and DataFrame
columns keep each value's own type, and their nulls are the only missing markers
besides the empty field and the schema's ``missing_token``.  Each column comes back
as its distinct values and every row's position among them, so that labelling
(:mod:`privbayes.counting.labels`) looks at each distinct value once and on its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privbayes.errors import InputError
from privbayes.schema import Schema

TABLE_SUFFIXES = (".csv", ".parquet", ".pq", ".dat")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zip", ".zst")
"""Compressed CSV and .dat files are read directly (``data.csv.gz``)."""


@dataclass(frozen=True)
class RawColumn:
    """One column: ``distinct[positions[r]]`` is row r's value; position −1 is a null."""

    positions: np.ndarray
    distinct: np.ndarray


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes[-2:]]
    if len(suffixes) == 2 and suffixes[1] in COMPRESSION_SUFFIXES and suffixes[0] in (".csv", ".dat"):
        return suffixes[0]
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise InputError(f"{path}: unknown table format {suffix or '(none)'!r}; expected .csv, .parquet or .dat (CSV/.dat may be compressed: .gz, .bz2, .xz, .zip, .zst)")
    return suffix


def read_frame(path: str | os.PathLike, schema: Schema | None) -> pd.DataFrame:
    """A table file as a DataFrame of raw values: text for CSV/.dat, each value's own type for Parquet."""
    path = Path(path)
    suffix = _suffix(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if suffix == ".dat" and schema is None:
        raise InputError(f"{path}: a .dat file has no header; give its schema (for example the authors' .domain file)")
    try:
        if suffix == ".csv":
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8")
        elif suffix == ".dat":
            frame = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, keep_default_na=False, na_filter=False)
            if frame.shape[1] != len(schema):
                raise InputError(f"{path}: {frame.shape[1]} columns but the schema has {len(schema)} attributes")
            frame.columns = schema.names
        else:
            frame = _read_parquet(path)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 text (byte {exc.start})") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty") from None
    except (pd.errors.ParserError, ValueError, OSError) as exc:
        if isinstance(exc, InputError):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: cannot read the table ({first})") from None
    if suffix == ".csv":
        mangled = [c for c in frame.columns if isinstance(c, str) and "." in c and c.rsplit(".", 1)[0] in frame.columns
                   and c.rsplit(".", 1)[1].isdigit()]
        if mangled:
            raise InputError(f"{path}: column {mangled[0].rsplit('.', 1)[0]!r} appears more than once")
    return frame


def _read_parquet(path: Path) -> pd.DataFrame:
    """Parquet values one by one in their own type: integers stay exact Python/numpy integers
    (never floats because another row is null), nulls become None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    columns: dict[str, Any] = {}
    for name, column in zip(table.column_names, table.columns):
        kind = column.type
        if pa.types.is_dictionary(kind):
            column, kind = column.cast(kind.value_type), kind.value_type
        if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
            columns[name] = column.to_numpy() if column.null_count == 0 else np.array(column.to_pylist(), dtype=object)
        elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
            columns[name] = np.array(column.to_pylist(), dtype=object)
        else:
            columns[name] = np.array(column.cast(pa.string()).to_pylist(), dtype=object)
    return pd.DataFrame(columns)


def raw_columns(frame: pd.DataFrame, schema: Schema, source: str) -> dict[str, RawColumn]:
    """The schema's columns of ``frame`` as :class:`RawColumn` s, after checking the column names."""
    columns = [str(c) for c in frame.columns]
    if len(set(columns)) != len(columns):
        dup = next(c for c in columns if columns.count(c) > 1)
        raise InputError(f"{source}: column {dup!r} appears more than once")
    absent = [n for n in schema.names if n not in columns]
    if absent:
        raise InputError(f"{source}: column {absent[0]!r} of the schema is missing from the data")
    extra = [c for c in columns if c not in schema.names]
    if extra:
        raise InputError(f"{source}: column {extra[0]!r} is not in the schema")
    if len(frame) == 0:
        raise InputError(f"{source}: the data has no rows")
    frame = frame.set_axis(columns, axis=1)
    out = {}
    for name in schema.names:
        positions, distinct = pd.factorize(frame[name], use_na_sentinel=True)
        out[name] = RawColumn(np.asarray(positions, np.int64), np.asarray(distinct))
    return out
