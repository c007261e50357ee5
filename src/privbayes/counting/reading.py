"""Reading private tables as raw values, never letting a library guess types or missing values.

CSV and the authors' ``.dat`` files are read as text only (no type inference, no NA
words: ``pd.read_csv(dtype=str, na_filter=False)``); Parquet columns and DataFrame
columns keep each value's own type, and their nulls are the only missing markers
besides the empty field and the schema's ``missing_token``.  Each column comes back
as its distinct values and every row's position among them, so that labelling
(:mod:`privbayes.counting.labels`) looks at each distinct value once and on its own.

CSV and ``.dat`` text is read by one strict, row-local dialect
(:mod:`privbayes.counting.dialect`) from a bounded stream of lines
(:mod:`privbayes.counting.textstream`): a row is one line, a malformed row (an open quote,
more or fewer fields than the header…) is marked and sent to each attribute's ``invalid``
policy, and no row can change how another is read.  The same reader feeds the numpy and DuckDB
back-ends; Spark runs the same field splitting in its workers.

A CSV's separator is ``sep`` when given, else the most frequent of ``, ; TAB |`` in the
header line (never the data rows, which are private; ``,`` when none occurs); its text
encoding is ``encoding`` (UTF-8 by default).  :class:`TableFile` carries these options
with a path wherever a path is accepted.  Columns of the data that the schema neither
declares nor lists under ``drop`` are left out and named once in a
:class:`ColumnsLeftOut` warning (column names are public, values are not).
"""

from __future__ import annotations

import codecs
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privbayes.core.errors import ColumnsLeftOut, InputError
from privbayes.counting.dialect import Dialect
from privbayes.counting.labels import MALFORMED_CELL
from privbayes.counting.textstream import COMPRESSIONS, TextLines
from privbayes.schema import Schema

TABLE_SUFFIXES = (".csv", ".parquet", ".pq", ".dat")
COMPRESSION_SUFFIXES = COMPRESSIONS
"""Compressed CSV and .dat files are read directly (``data.csv.gz``)."""
MALFORMED = -2
"""Position of a malformed row among a column's distinct values (−1 is a null), as the engine
back-ends pass it to :func:`~privbayes.counting.labels.label_column`."""


SEPARATORS = (",", ";", "\t", "|")


@dataclass(frozen=True)
class TableFile(os.PathLike[str]):
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
    """One column: ``distinct[positions[r]]`` is row r's value; position −1 is a null.  (The engine
    back-ends mark a malformed row by position :data:`MALFORMED`; frames by the value
    :data:`~privbayes.counting.labels.MALFORMED_CELL`.)"""

    positions: np.ndarray
    distinct: np.ndarray


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes[-2:]]
    if len(suffixes) == 2 and suffixes[1] in COMPRESSION_SUFFIXES and suffixes[0] in (".csv", ".dat"):
        return suffixes[0]
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise InputError(f"{path}: unknown table format {suffix or '(none)'!r}; expected .csv, .parquet or .dat "
                         "(CSV/.dat may be compressed: .gz, .bz2, .xz, .zip, .zst)")
    return suffix


def read_frame(path: str | os.PathLike[str], schema: Schema | None, sep: str | None = None,
               encoding: str | None = None) -> pd.DataFrame:
    """A table file as a DataFrame of raw values: text for CSV/.dat, each value's own type for Parquet.

    With a schema, only the columns it declares are read (the others are left out: see
    :func:`raw_columns`).  ``sep``/``encoding`` default to a :class:`TableFile`'s own.  Every cell
    of a malformed row of a text table holds :data:`~privbayes.counting.labels.MALFORMED_CELL`
    (such columns are of dtype object; the others are text)."""
    if isinstance(path, TableFile):
        sep = path.sep if sep is None else sep
        encoding = path.encoding if encoding is None else encoding
    encoding = encoding or "utf-8"
    path = Path(path)
    suffix = table_path(path)
    if suffix == ".dat" and schema is None:
        raise InputError(f"{path}: a .dat file has no header; give its schema (for example the authors' .domain file)")
    frame = _read_text(path, schema, sep, encoding) if suffix in (".csv", ".dat") else _read_parquet(path, schema)
    frame.attrs["source"] = str(path)  # messages about its values name the file (counting.source_name)
    return frame


def table_path(path: Path) -> str:
    """The table format of an existing file (``.csv``, ``.dat`` or ``.parquet``/``.pq``); refuses
    unknown suffixes, folders and missing files."""
    suffix = _suffix(path)
    if path.is_dir():
        raise InputError(f"{path}: a folder, not a table file")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    return suffix


@dataclass
class TextTable:
    """An open text table: its lines, dialect, column names and the positions of the columns read."""

    lines: TextLines
    dialect: Dialect
    columns: list[str]
    wanted: list[int]
    where: str

    def batches(self) -> Iterator[list[Any]]:
        """The wanted columns of every row, batch by batch (pyarrow large_string arrays; null in
        every column of a malformed row)."""
        for lines in self.lines:
            rows = self.dialect.rows(lines)
            if len(rows):
                yield self.dialect.fields(rows, len(self.columns), self.wanted)


def open_text(path: str | os.PathLike[str], schema: Schema | None, sep: str | None = None,
              encoding: str = "utf-8") -> TextTable:
    """A CSV or ``.dat`` file opened for streaming: its header read (CSV), the separator detected,
    the columns checked; the data rows are read by :meth:`TextTable.batches`."""
    path = Path(path)
    where = str(path)
    suffix = table_path(path)
    multiline = bool(schema is not None and schema.quoted_newlines)
    if suffix == ".dat":
        if schema is None:
            raise InputError(f"{path}: a .dat file has no header; give its schema (for example the authors' .domain "
                             "file)")
        lines = TextLines(path, encoding, header=False)
        return TextTable(lines, Dialect(None), list(schema.names), list(range(len(schema))), where)
    lines = TextLines(path, encoding, quoted_newlines=multiline)
    header = lines.header
    assert header is not None  # read on opening (an empty file is refused there)
    dialect = Dialect(sep or detect_separator(header), multiline)
    columns = dialect.header(header, where)
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            raise InputError(f"{path}: column {column!r} appears more than once")
        seen.add(column)
    if schema is not None and len(columns) == 1 and len(schema) > 1 and columns[0] not in schema.names:
        raise InputError(f"{path}: the header has one column, none of the schema's; is the separator right? "
                         "(give --sep)")
    wanted = list(range(len(columns))) if schema is None else [i for i, c in enumerate(columns) if c in schema.names]
    return TextTable(lines, dialect, columns, wanted, where)


def _read_text(path: Path, schema: Schema | None, sep: str | None, encoding: str) -> pd.DataFrame:
    import pyarrow as pa

    table = open_text(path, schema, sep, encoding)
    chunks: list[list[Any]] = [[] for _ in table.wanted]
    for columns in table.batches():
        for chunk, column in zip(chunks, columns):
            chunk.append(column)
    names = [table.columns[i] for i in table.wanted]
    frame_columns: dict[str, pd.Series] = {}
    for name, chunk in zip(names, chunks):
        array = pa.chunked_array(chunk, pa.large_string())
        column = array.to_pandas()
        if array.null_count:  # malformed rows (a field of a well-formed row is never null)
            column = column.astype(object)
            column[array.is_null().to_numpy(zero_copy_only=False)] = MALFORMED_CELL
        frame_columns[name] = column
    frame = pd.DataFrame(frame_columns, columns=names)
    if schema is not None:
        frame.attrs["left_out"] = [c for c in table.columns if c not in schema.names]
    return frame


def _read_parquet(path: Path, schema: Schema | None) -> pd.DataFrame:
    """Parquet values one by one in their own type: integers stay exact Python/numpy integers
    (never floats because another row is null), nulls become None (missing).

    Columns are read one at a time (with a schema, only its own), and text columns and integer
    columns with nulls stay dictionary-encoded, as pandas Categoricals: a row costs its code and
    only the distinct values become Python objects (5·10⁶ Adult-like rows: 5.7 GB peak before)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        arrow_schema = pq.read_schema(path)
    except (pa.ArrowException, OSError):
        raise InputError(f"{path}: not a readable Parquet file") from None
    names = arrow_schema.names
    duplicated = next((c for c in names if names.count(c) > 1), None)
    if duplicated is not None:
        raise InputError(f"{path}: column {duplicated!r} appears more than once")
    wanted = names if schema is None else [c for c in names if c in schema.names]
    check_parquet_types(arrow_schema, wanted, str(path))
    columns: dict[str, Any] = {}
    for name in wanted:
        try:
            column = pq.read_table(path, columns=[name]).column(0)
        except (pa.ArrowException, OSError):
            raise InputError(f"{path}: column {name!r} cannot be read (a damaged Parquet file?)") from None
        kind = column.type
        if pa.types.is_dictionary(kind):
            column, kind = column.cast(kind.value_type), kind.value_type
        number = pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
        if number and column.null_count == 0:
            columns[name] = column.to_numpy()
        elif pa.types.is_floating(kind) or pa.types.is_boolean(kind):  # NaN is no category: value by value
            columns[name] = np.array(column.to_pylist(), dtype=object)
        else:
            if not (pa.types.is_integer(kind) or is_text(kind) or is_binary(kind)):
                column = column.cast(pa.string())  # dates, times stamps, decimals: their ISO / decimal text
            encoded = column.combine_chunks().dictionary_encode()  # nulls stay null: code −1 below
            values = pd.Index(encoded.dictionary.to_pylist(), dtype=object)  # binary: bytes, decoded by labelling
            columns[name] = pd.Categorical.from_codes(encoded.indices.fill_null(-1).to_numpy(), categories=values)
    frame = pd.DataFrame(columns)
    if schema is not None:
        frame.attrs["left_out"] = [c for c in names if c not in schema.names]
    return frame


def is_text(kind: Any) -> bool:
    import pyarrow as pa

    view = getattr(pa.types, "is_string_view", lambda _: False)  # pyarrow ≥ 16
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or view(kind)


def is_binary(kind: Any) -> bool:
    import pyarrow as pa

    view = getattr(pa.types, "is_binary_view", lambda _: False)  # pyarrow ≥ 16
    return pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or view(kind)


def readable_type(kind: Any) -> bool:
    """Can an attribute read values of this Arrow type?  Numbers, booleans, text, binary (read as
    UTF-8 text, value by value), dates, time stamps and decimals; not nested types (list, struct,
    map, union), times of day, durations, intervals or fixed-size binary."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return (pa.types.is_null(kind) or pa.types.is_boolean(kind) or pa.types.is_integer(kind)
            or pa.types.is_floating(kind) or pa.types.is_decimal(kind) or is_text(kind) or is_binary(kind)
            or pa.types.is_date(kind) or pa.types.is_timestamp(kind))


def check_parquet_types(arrow_schema: Any, names: list[str], where: str) -> None:
    """Refuse, in one line, a column read by the schema whose Parquet type no attribute reads
    (the type is part of the file's public layout, not of its values)."""
    for field in arrow_schema:
        if field.name in names and not readable_type(field.type):
            raise InputError(f"{where}: column {field.name!r} has the Parquet type {field.type}, which no attribute "
                             "reads (numbers, booleans, text, dates, time stamps or decimals)")


NAME_SHOWN = 80
"""Characters of a column name a message shows (a header line may hold names of any length)."""


def shown(name: str) -> str:
    """A column name as messages show it: quoted, cut to :data:`NAME_SHOWN` characters."""
    return repr(name) if len(name) <= NAME_SHOWN else repr(name[:NAME_SHOWN - 1] + "…") + f" ({len(name)} characters)"


def check_names(columns: list[str], left_out: list[str], schema: Schema, source: str) -> None:
    """The column checks of :func:`raw_columns` on the names alone: no repeated name, every schema
    column present, and one note naming the columns ``left_out`` that ``drop`` does not list."""
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            raise InputError(f"{source}: column {shown(column)} appears more than once")
        seen.add(column)
    absent = [n for n in schema.names if n not in seen]
    if absent:
        raise InputError(f"{source}: column {absent[0]!r} of the schema is missing from the data")
    declared = set(schema.names) | set(schema.dropped)
    extra = [c for c in left_out if c not in declared]
    if extra:
        names = ", ".join(shown(c) for c in extra[:10]) + (", …" if len(extra) > 10 else "")
        warnings.warn(f"{source}: left out {len(extra)} column(s) not in the schema: {names} "
                      "(list them under 'drop:' to silence this note)", ColumnsLeftOut, stacklevel=3)


def raw_columns(frame: pd.DataFrame, schema: Schema, source: str, *, allow_empty: bool = False) -> dict[str, RawColumn]:
    """The schema's columns of ``frame`` as :class:`RawColumn` s, after checking the column names.

    Columns the schema does not declare are left out; those it does not list under ``drop``
    either are named once in a :class:`ColumnsLeftOut` warning."""
    columns = [str(c) for c in frame.columns]
    check_names(columns, frame.attrs.get("left_out", columns), schema, source)
    if len(frame) == 0 and not allow_empty:
        raise InputError(f"{source}: the data has no rows")
    frame = frame.set_axis(columns, axis=1)
    out = {}
    for name in schema.names:
        positions, distinct = pd.factorize(frame[name], use_na_sentinel=True)
        out[name] = RawColumn(np.asarray(positions, np.int64), np.asarray(distinct))
    return out
