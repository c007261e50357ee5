"""The strict, row-local CSV dialect: one definition, used by every back-end (docs/decisions.md, "Strict reading").

A row is one line of :mod:`privbayes.counting.textstream` (or, with the schema's
``quoted_newlines: true``, one record).  Its fields are separated by the one-character
separator ``s`` and each field is either

* **unquoted**: any text without ``"``, ``s``, ``\\r`` or ``\\n`` (blanks kept: labelling strips
  them), or
* **quoted**: ``"`` … ``"`` around any text in which a ``"`` is written ``""`` (and, only with
  ``quoted_newlines``, line breaks), the whole field within the row.

A row that does not split this way — a quote left open, text after a closing quote, a quote
inside an unquoted field — or that has more or fewer fields than the header is **malformed**:
every schema column of that row is then invalid and goes to its attribute's ``invalid`` policy
(:mod:`privbayes.counting.labels`), the same on numpy, DuckDB and Spark.  Whether a row is
accepted, and what it holds, depends on that row alone; this is what makes the count tables'
sensitivity hold for the file rather than for an idealised table.

The authors' ``.dat`` files use the whitespace dialect: fields are separated by runs of ASCII
blanks (space, tab, vertical tab, form feed), blanks at either end are ignored, lines of blanks
only are skipped, and ``"`` is an ordinary character.

Implementation: lines without a ``"`` (the common case) are split by Arrow in one vectorised
step.  A line holding a quote is checked against the grammar by a regular expression, one line
at a time; if it fits, Python's C ``csv`` reader (which reads exactly these fields from a line
of this grammar) splits it, else the row is malformed.  :meth:`Dialect.split_one` is the
definition; tests compare every path with it and with an independent character-by-character
parser.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

QUOTE = '"'


@dataclass(frozen=True)
class Dialect:
    """How the lines of one text table split into fields: ``sep`` (one character) for CSV, None
    for the whitespace dialect of ``.dat`` files."""

    sep: str | None
    quoted_newlines: bool = False
    _field: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _row: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A field followed by the separator (a row is matched with one separator appended), and a
        # whole row.  Possessive quantifiers: the grammar is unambiguous (after a closing quote
        # comes the separator, never a quote), so giving nothing back loses no match and keeps
        # every row linear in its length, whatever it holds.
        s = re.escape(self._separator)
        inner = r'[^"]' if self.quoted_newlines else r'[^"\r\n]'
        one = f'"{inner}*+(?:""{inner}*+)*+"|[^"{s}\\r\\n]*+'
        object.__setattr__(self, "_field", re.compile(f"({one}){s}"))
        object.__setattr__(self, "_row", re.compile(f"(?:(?:{one}){s})++"))

    @property
    def _separator(self) -> str:
        """The CSV separator the quote grammar is built on (the whitespace dialect splits without one)."""
        return self.sep or ","

    def split_one(self, line: str) -> list[str] | None:
        """The fields of one CSV row, or None when it is malformed (whatever its field count)."""
        text = line + self._separator
        if self._row.fullmatch(text) is None:
            return None
        return [f[1:-1].replace('""', '"') if f.startswith(QUOTE) else f for f in self._field.findall(text)]

    def header(self, line: str, where: str) -> list[str]:
        """The column names of the header line (blanks around a name dropped)."""
        from privbayes.core.errors import InputError  # here, not above: the module travels to Spark's workers by value

        if self.sep is None:
            raise InputError(f"{where}: a .dat file has no header")
        names = self.split_one(line)
        if names is None:
            raise InputError(f"{where}: the header line is malformed (a quote left open, text after a closing "
                             "quote, or a quote inside an unquoted name)")
        return [n.strip() for n in names]

    def rows(self, lines: pa.Array) -> pa.Array:
        """The lines that are rows: all of them, but lines of blanks only in the whitespace dialect."""
        if self.sep is not None:
            return lines
        return lines.filter(pc.not_equal(pc.ascii_trim_whitespace(lines), ""))

    def fields(self, lines: pa.Array, width: int, positions: Sequence[int]) -> list[pa.Array]:
        """Field ``p`` of every row for each ``p`` in ``positions`` (large_string arrays aligned with
        ``lines``), null in every column where the row is malformed or has not ``width`` fields.

        Three paths, one grammar: lines without a quote are split at the separator (Arrow);
        lines whose every piece between separators is unquoted or a whole quoted field with no
        quote inside (exporters that quote every field) are split and unquoted the same way; the
        rest (escaped quotes, separators inside quotes, malformed rows) go line by line."""
        if len(lines) == 0:
            return [pa.array([], pa.large_string()) for _ in positions]
        if self.sep is None:
            return _take_fields(pc.ascii_split_whitespace(pc.ascii_trim_whitespace(lines)), width, positions)
        quoted = pc.match_substring(lines, QUOTE)
        if self.quoted_newlines:  # a line break outside quotes (a lone \r) makes a record malformed
            quoted = pc.or_(quoted, pc.match_substring_regex(lines, "[\r\n]"))
        slow = np.asarray(quoted.to_numpy(zero_copy_only=False), dtype=bool)
        if not slow.any():
            return _take_fields(pc.split_pattern(lines, self.sep), width, positions)
        groups: list[tuple[np.ndarray, pa.Array | list[pa.Array] | None]] = [(np.flatnonzero(~slow), None)]
        rows = np.flatnonzero(slow)
        parts = pc.split_pattern(lines.take(pa.array(rows)), self.sep)
        pieces = parts.values
        inner = '[^"]' if self.quoted_newlines else '[^"\\r\\n]'
        plain = pc.match_substring_regex(pieces, f'^(?:[^"\\r\\n]*|"{inner}*")$').to_numpy(zero_copy_only=False)
        offsets = parts.offsets.to_numpy()
        simple = np.add.reduceat(~plain, offsets[:-1]) == 0  # every row has at least one piece
        if simple.any():
            unquoted = pc.if_else(pc.starts_with(pieces, QUOTE), pc.utf8_slice_codeunits(pieces, 1, -1), pieces)
            groups.append((rows[simple], pa.LargeListArray.from_arrays(pa.array(offsets, pa.int64()), unquoted)
                           .filter(pa.array(simple))))
        if not simple.all():
            hard = rows[~simple]
            groups.append((hard, self._slow_fields(lines.take(pa.array(hard)).to_pylist(), width, positions)))
        order = np.empty(len(lines), np.int64)
        order[np.concatenate([g for g, _ in groups])] = np.arange(len(lines))
        columns = []
        for group_rows, split in groups:
            if split is None:
                split = pc.split_pattern(lines.take(pa.array(group_rows)), self.sep)
            columns.append(split if isinstance(split, list) else _take_fields(split, width, positions))
        return [pa.concat_arrays([c[k] for c in columns]).take(pa.array(order)) for k in range(len(positions))]

    def _slow_fields(self, lines: list[str], width: int, positions: Sequence[int]) -> list[pa.Array]:
        """Fields of lines that hold a quote: the grammar checked line by line, then the C csv
        reader splits the lines that fit (lines longer than its field limit: :meth:`split_one`)."""
        sep, row, limit = self._separator, self._row, csv.field_size_limit()
        fitting = [i for i, line in enumerate(lines) if len(line) < limit and row.fullmatch(line + sep)]
        split: list[list[str] | None] = [None] * len(lines)
        reader = csv.reader((lines[i] for i in fitting), delimiter=sep, quotechar=QUOTE, doublequote=True,
                            skipinitialspace=False, strict=True)
        for i, fields in zip(fitting, reader):
            split[i] = fields
        for i, line in enumerate(lines):
            if len(line) >= limit:
                split[i] = self.split_one(line)
        empty = [None] * width
        transposed = list(zip(*(f if f is not None and len(f) == width else empty for f in split)))
        return [pa.array(transposed[p], pa.large_string()) for p in positions]


def _take_fields(parts: pa.Array, width: int, positions: Sequence[int]) -> list[pa.Array]:
    """Columns ``positions`` of split rows (a list array), null where a row has not ``width`` parts."""
    if isinstance(parts, pa.ChunkedArray):
        parts = parts.combine_chunks()
    counts = pc.list_value_length(parts).to_numpy(zero_copy_only=False)
    good = counts == width
    starts = parts.offsets.to_numpy()[:-1].astype(np.int64)
    values = parts.values
    if values.type != pa.large_string():
        values = values.cast(pa.large_string())
    mask = None if good.all() else pa.array(~good)
    out = []
    for p in positions:
        index = np.where(good, starts + p, 0)
        out.append(values.take(pa.array(index, pa.int64())) if mask is None else
                   pc.if_else(mask, pa.scalar(None, pa.large_string()), values.take(pa.array(index, pa.int64()))))
    return out
