"""Reading private tables as raw values, never letting a library guess types or missing values.

CSV and the authors' ``.dat`` files are read as text only (no type inference, no NA
words: ``pd.read_csv(dtype=str, na_filter=False)``); Parquet columns and DataFrame
columns keep each value's own type, and their nulls are the only missing markers
besides the empty field and the schema's ``missing_token``.  Each column comes back
as its distinct values and every row's position among them, so that labelling
(:mod:`privbayes.counting.labels`) looks at each distinct value once and on its own.

A CSV's separator is ``sep`` when given, else the most frequent of ``, ; TAB |`` in the
header line (never the data rows, which are private; ``,`` when none occurs); its text
encoding is ``encoding`` (UTF-8 by default).  :class:`TableFile` carries these options
with a path wherever a path is accepted.  Columns of the data that the schema neither
declares nor lists under ``drop`` are left out and named once in a
:class:`ColumnsLeftOut` warning (column names are public, values are not).
"""

from __future__ import annotations

import bz2
import codecs
import csv
import gzip
import io
import lzma
import os
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privbayes.errors import ColumnsLeftOut, InputError
from privbayes.schema import Schema

TABLE_SUFFIXES = (".csv", ".parquet", ".pq", ".dat")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zip", ".zst")
"""Compressed CSV and .dat files are read directly (``data.csv.gz``)."""


SEPARATORS = (",", ";", "\t", "|")


@dataclass(frozen=True)
class TableFile(os.PathLike):
    """A table file with its reading options: ``sep`` (None: detected from the header line)
    and ``encoding``.  Accepted wherever a path is (``counting.open``, ``PrivBayes.fit``)."""

    path: str
    sep: str | None = None
    encoding: str = "utf-8"

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", os.fspath(self.path))
        if self.sep is not None and (not isinstance(self.sep, str) or len(self.sep) != 1 or self.sep in "\"\r\n"):
            raise InputError(f"sep ({self.sep!r}) must be one character (for a tab: '\\t')")
        try:
            codecs_name = codecs.lookup(self.encoding).name
        except (LookupError, TypeError):
            raise InputError(f"encoding ({self.encoding!r}) is not a known text encoding") from None
        object.__setattr__(self, "encoding", codecs_name)

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path


def _open_text(path: Path, encoding: str) -> io.TextIOBase:
    """The file as text, decompressed by its suffix."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rt", encoding=encoding, newline="")
    if suffix == ".bz2":
        return bz2.open(path, "rt", encoding=encoding, newline="")
    if suffix == ".xz":
        return lzma.open(path, "rt", encoding=encoding, newline="")
    if suffix == ".zip":
        archive = zipfile.ZipFile(path)
        names = [n for n in archive.namelist() if not n.endswith("/")]
        if len(names) != 1:
            raise InputError(f"{path}: a .zip table must hold exactly one file")
        return io.TextIOWrapper(archive.open(names[0]), encoding=encoding, newline="")
    if suffix == ".zst":
        try:
            import zstandard
        except ImportError:
            raise InputError(f"{path}: reading .zst needs the zstandard package (pip install zstandard)") from None
        return io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(open(path, "rb")), encoding=encoding,
                                newline="")
    return open(path, encoding=encoding, newline="")


def header_line(path: Path, encoding: str) -> str:
    """The first line of a text table (decompressed), the only line separator detection looks at."""
    with _open_text(path, encoding) as handle:
        return handle.readline().lstrip("\ufeff").rstrip("\r\n")


def detect_separator(header: str) -> str:
    """The separator of a CSV from its header line alone: the most frequent of , ; TAB | outside
    quotes (ties: that order); ``,`` when none occurs (a one-column file)."""
    outside, quoted = [], False
    for ch in header:
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            outside.append(ch)
    text = "".join(outside)
    counts = [(text.count(sep), -i, sep) for i, sep in enumerate(SEPARATORS)]
    best = max(counts)
    return best[2] if best[0] > 0 else ","


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


def read_frame(path: str | os.PathLike, schema: Schema | None, sep: str | None = None,
               encoding: str | None = None) -> pd.DataFrame:
    """A table file as a DataFrame of raw values: text for CSV/.dat, each value's own type for Parquet.

    With a schema, only the columns it declares are read (the others are left out: see
    :func:`raw_columns`).  ``sep``/``encoding`` default to a :class:`TableFile`'s own."""
    if isinstance(path, TableFile):
        sep = path.sep if sep is None else sep
        encoding = path.encoding if encoding is None else encoding
    encoding = encoding or "utf-8"
    path = Path(path)
    suffix = _suffix(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if suffix == ".dat" and schema is None:
        raise InputError(f"{path}: a .dat file has no header; give its schema (for example the authors' .domain file)")
    try:
        if suffix == ".csv":
            frame = _read_csv(path, schema, sep, encoding)
        elif suffix == ".dat":
            frame = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, keep_default_na=False, na_filter=False,
                                encoding=encoding)
            if frame.shape[1] != len(schema):
                raise InputError(f"{path}: {frame.shape[1]} columns but the schema has {len(schema)} attributes")
            frame.columns = schema.names
        else:
            frame = _read_parquet(path, schema)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid {encoding} text (byte {exc.start}); give the file's encoding "
                         "(--encoding, e.g. latin-1)") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty") from None
    except (pd.errors.ParserError, ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        if isinstance(exc, InputError):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: cannot read the table ({first})") from None
    return frame


def _read_csv(path: Path, schema: Schema | None, sep: str | None, encoding: str) -> pd.DataFrame:
    header = header_line(path, encoding)
    if not header.strip():
        raise InputError(f"{path}: the file is empty")
    sep = sep or detect_separator(header)
    columns = [c.strip() for c in next(csv.reader([header], delimiter=sep))]
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            raise InputError(f"{path}: column {column!r} appears more than once")
        seen.add(column)
    if schema is not None and len(columns) == 1 and len(schema) > 1 and columns[0] not in schema.names:
        raise InputError(f"{path}: the header has one column, none of the schema's; is the separator right? "
                         "(give --sep)")
    wanted = None if schema is None else [i for i, c in enumerate(columns) if c in schema.names]
    frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, na_filter=False, encoding=encoding,
                        usecols=wanted, engine="c")
    frame.columns = [columns[i] for i in (wanted if wanted is not None else range(len(columns)))]
    if schema is not None:
        left_out = [c for c in columns if c not in schema.names]
        frame.attrs["left_out"] = left_out
    return frame


def _read_parquet(path: Path, schema: Schema | None) -> pd.DataFrame:
    """Parquet values one by one in their own type: integers stay exact Python/numpy integers
    (never floats because another row is null), nulls become None (missing).

    Columns are read one at a time (with a schema, only its own), and text columns and integer
    columns with nulls stay dictionary-encoded, as pandas Categoricals: a row costs its code and
    only the distinct values become Python objects (5·10⁶ Adult-like rows: 5.7 GB peak before)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = pq.read_schema(path).names
    duplicated = next((c for c in names if names.count(c) > 1), None)
    if duplicated is not None:
        raise InputError(f"{path}: column {duplicated!r} appears more than once")
    wanted = names if schema is None else [c for c in names if c in schema.names]
    columns: dict[str, Any] = {}
    for name in wanted:
        column = pq.read_table(path, columns=[name]).column(0)
        kind = column.type
        if pa.types.is_dictionary(kind):
            column, kind = column.cast(kind.value_type), kind.value_type
        number = pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
        if number and column.null_count == 0:
            columns[name] = column.to_numpy()
        elif pa.types.is_floating(kind) or pa.types.is_boolean(kind):  # NaN is no category: value by value
            columns[name] = np.array(column.to_pylist(), dtype=object)
        else:
            if not (pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind)):
                column = column.cast(pa.string())
            encoded = column.combine_chunks().dictionary_encode()  # nulls stay null: code −1 below
            values = pd.Index(encoded.dictionary.to_pylist(), dtype=object)
            columns[name] = pd.Categorical.from_codes(encoded.indices.fill_null(-1).to_numpy(), categories=values)
    frame = pd.DataFrame(columns)
    if schema is not None:
        frame.attrs["left_out"] = [c for c in names if c not in schema.names]
    return frame


def raw_columns(frame: pd.DataFrame, schema: Schema, source: str, *, allow_empty: bool = False) -> dict[str, RawColumn]:
    """The schema's columns of ``frame`` as :class:`RawColumn` s, after checking the column names.

    Columns the schema does not declare are left out; those it does not list under ``drop``
    either are named once in a :class:`ColumnsLeftOut` warning."""
    columns = [str(c) for c in frame.columns]
    if len(set(columns)) != len(columns):
        dup = next(c for c in columns if columns.count(c) > 1)
        raise InputError(f"{source}: column {dup!r} appears more than once")
    absent = [n for n in schema.names if n not in columns]
    if absent:
        raise InputError(f"{source}: column {absent[0]!r} of the schema is missing from the data")
    extra = [c for c in frame.attrs.get("left_out", columns) if c not in schema.names and c not in schema.dropped]
    if extra:
        names = ", ".join(repr(c) for c in extra[:10]) + (", …" if len(extra) > 10 else "")
        warnings.warn(f"{source}: left out {len(extra)} column(s) not in the schema: {names} "
                      "(list them under 'drop:' to silence this note)", ColumnsLeftOut, stacklevel=2)
    if len(frame) == 0 and not allow_empty:
        raise InputError(f"{source}: the data has no rows")
    frame = frame.set_axis(columns, axis=1)
    out = {}
    for name in schema.names:
        positions, distinct = pd.factorize(frame[name], use_na_sentinel=True)
        out[name] = RawColumn(np.asarray(positions, np.int64), np.asarray(distinct))
    return out
