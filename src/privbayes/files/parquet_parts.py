"""One Parquet file from parts encoded apart: each part is a whole Parquet file of a table, encoded by
any process with the same writer settings (:func:`encode_part`); :class:`PartsWriter` appends the parts'
column chunks in order and writes one footer whose row groups are the parts', their file offsets moved.

A column chunk's pages hold no file offset (Parquet format, "File format": offsets live in the footer's
``ColumnChunk``/``ColumnMetaData`` and ``RowGroup``), so the file is the one a single ``ParquetWriter``
writes from the same tables one row group each, byte for byte (docs/decisions.md, "Parallel sampling").
The footer is Thrift's compact protocol; it is scanned, not decoded: every byte is kept except the row
count, the row groups' list header, their ordinals and the offsets, re-encoded as Thrift encodes them."""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

MAGIC = b"PAR1"

_OFFSETS = {"RowGroup": {5}, "ColumnChunk": {2, 4, 6}, "ColumnMetaData": {9, 10, 11, 14}}
"""Fields that hold a position in the file (parquet.thrift): RowGroup.file_offset, ColumnChunk.file_offset,
offset_index_offset, column_index_offset, ColumnMetaData.data_page_offset, index_page_offset,
dictionary_page_offset, bloom_filter_offset."""

_STRUCTS = {("FileMetaData", 4): "RowGroup", ("RowGroup", 1): "ColumnChunk", ("ColumnChunk", 3): "ColumnMetaData"}
"""Where the structs holding offsets sit (parent, field id) → struct."""

_ORDINAL = ("RowGroup", 7)
_NUM_ROWS = ("FileMetaData", 3)
_SCHEMA, _KEY_VALUES = 2, 5
"""FileMetaData's Parquet schema (the columns' SchemaElements) and key-value metadata (where Arrow stores its
schema, ``ARROW:schema``)."""


def encode_part(table: Any, options: Mapping[str, Any] | None = None) -> bytes:
    """``table`` (a ``pyarrow.Table``) as a Parquet file written with ``table.schema`` (its metadata included)
    and the writer's keyword ``options`` (pyarrow's defaults where none): what ``ParquetWriter(path,
    table.schema, **options).write_table(table)`` adds to a file (one row group unless the table is longer than
    the writer's row group size)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(sink, table.schema, **(options or {})) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue())


def _empty_file(schema: Any) -> bytes:
    """A Parquet file of ``schema`` without rows: its footer holds the key-value metadata a writer stores for it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.ParquetWriter(sink, schema).close()
    return bytes(sink.getvalue())


class FooterError(ValueError):
    """A part whose footer is not what :func:`encode_part` writes."""


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _zigzag(value: int) -> bytes:
    return _varint((value << 1) ^ (value >> 63))


@dataclass
class _Edit:
    """A value to re-encode at ``[start, end)`` of the footer: ``kind`` 'offset' (shifted), 'ordinal', 'rows'."""

    start: int
    end: int
    kind: str
    value: int


@dataclass
class _Footer:
    data: bytes
    edits: list[_Edit] = field(default_factory=list)
    groups: list[tuple[int, int]] = field(default_factory=list)
    """Each row group's bytes in ``data``."""
    list_span: tuple[int, int] = (0, 0)
    """The row groups' list header."""
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)
    """The Parquet schema's and the key-value metadata's bytes in ``data`` (:data:`_SCHEMA`, :data:`_KEY_VALUES`)."""


class _Scanner:
    """Walks a compact-protocol struct, recording the spans of the values :class:`PartsWriter` changes."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at, self.footer = data, 0, _Footer(data)

    def byte(self) -> int:
        if self.at >= len(self.data):
            raise FooterError("the footer ends early")
        self.at += 1
        return self.data[self.at - 1]

    def varint(self) -> int:
        shift = value = 0
        while True:
            byte = self.byte()
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 70:
                raise FooterError("a varint is too long")

    def signed(self) -> int:
        raw = self.varint()
        return (raw >> 1) ^ -(raw & 1)

    def value(self, kind: int, struct_name: str | None, field_id: int | None) -> None:
        start = self.at
        if kind in (1, 2):  # a boolean field: its value is in the type
            return
        if kind == 3:
            self.byte()
        elif kind in (4, 5, 6):
            number = self.signed()
            key = (struct_name, field_id)
            if struct_name in _OFFSETS and field_id in _OFFSETS[struct_name] and kind == 6:
                self.footer.edits.append(_Edit(start, self.at, "offset", number))
            elif key == _ORDINAL:
                self.footer.edits.append(_Edit(start, self.at, "ordinal", number))
            elif key == _NUM_ROWS:
                self.footer.edits.append(_Edit(start, self.at, "rows", number))
        elif kind == 7:
            self.at += 8
        elif kind == 8:
            length = self.varint()  # read before the position is: the varint moves it
            self.at += length
        elif kind in (9, 10):
            self.sequence(struct_name, field_id)
        elif kind == 11:
            size = self.varint()
            if size:
                types = self.byte()
                for _ in range(size):
                    self.value(types >> 4, None, None)
                    self.value(types & 0x0F, None, None)
        elif kind == 12:
            self.struct(_STRUCTS.get((struct_name or "", field_id or 0)))
        else:
            raise FooterError(f"unknown compact type {kind}")
        if self.at > len(self.data):
            raise FooterError("the footer ends early")
        if struct_name == "FileMetaData" and field_id in (_SCHEMA, _KEY_VALUES):
            self.footer.spans[field_id] = (start, self.at)

    def sequence(self, struct_name: str | None, field_id: int | None) -> None:
        start = self.at
        header = self.byte()
        size, kind = header >> 4, header & 0x0F
        if size == 15:
            size = self.varint()
        element = _STRUCTS.get((struct_name or "", field_id or 0))
        groups = (struct_name, field_id) == ("FileMetaData", 4)
        if groups:
            self.footer.list_span = (start, self.at)
        for _ in range(size):
            begin = self.at
            if kind in (1, 2):
                self.byte()
            elif kind == 12:
                self.struct(element)
            else:
                self.value(kind, None, None)
            if groups:
                self.footer.groups.append((begin, self.at))

    def struct(self, name: str | None) -> None:
        last = 0
        while True:
            header = self.byte()
            if header == 0:
                return
            kind, delta = header & 0x0F, header >> 4
            field_id = last + delta if delta else self.signed()
            last = field_id
            self.value(kind, name, field_id)


def _scan(footer: bytes) -> _Footer:
    scanner = _Scanner(footer)
    scanner.struct("FileMetaData")
    if scanner.at != len(footer):
        raise FooterError("bytes after the footer's end")
    return scanner.footer


def _split(part: bytes) -> tuple[memoryview, _Footer]:
    """A part's column chunks (the bytes between the leading magic and the footer) and its scanned footer."""
    if len(part) < 12 or part[:4] != MAGIC or part[-4:] != MAGIC:
        raise FooterError("not a Parquet file")
    size = struct.unpack("<I", part[-8:-4])[0]
    if size > len(part) - 12:
        raise FooterError("the footer's length is past the file's start")
    end = len(part) - 8 - size
    return memoryview(part)[4:end], _scan(part[end:-8])


class PartsWriter:
    """Appends parts (:func:`encode_part`) to ``sink`` and, on :meth:`close`, writes the footer of the whole:
    the first part's, with the row count summed and every part's row groups, their offsets moved to where
    their column chunks now lie and their ordinal (where written) their place in the file.

    ``schema`` (a ``pyarrow.Schema``): the file's stored Arrow schema is this one's, whatever the parts' Arrow
    types, provided their Parquet columns are its (e.g. text handed to the parts' writer as a dictionary of
    its categories, stored as ``large_string``): readers then give the column the type ``schema`` says.  The
    footer's key-value metadata is what a writer stores for ``schema``."""

    def __init__(self, sink: BinaryIO, schema: Any = None) -> None:
        self.sink = sink
        self.position = len(MAGIC)
        self.rows = 0
        self.head: _Footer | None = None
        self.groups: list[bytes] = []
        self.stored: tuple[bytes, bytes] | None = None
        """The Parquet schema and key-value metadata of ``schema``'s footer."""
        if schema is not None:
            reference = _split(_empty_file(schema))[1]
            self.stored = (reference.data[slice(*reference.spans[_SCHEMA])],
                           reference.data[slice(*reference.spans[_KEY_VALUES])])
        sink.write(MAGIC)

    def append(self, part: bytes) -> None:
        """Add one part's row groups (their column chunks now, their entries in the footer later)."""
        chunks, footer = _split(part)
        rows = [e.value for e in footer.edits if e.kind == "rows"]
        if len(rows) != 1 or not footer.groups:
            raise FooterError("a part's footer has no row count or no row group")
        shift = self.position - len(MAGIC)
        edits = iter(footer.edits)
        edit = next(edits, None)
        for start, end in footer.groups:
            out, at = bytearray(), start
            while edit is not None and edit.start < end:
                if edit.start >= start:
                    out += footer.data[at:edit.start]
                    moved = edit.value + shift if edit.value > 0 else 0  # 0: no position (ColumnChunk.file_offset)
                    out += _zigzag(moved if edit.kind == "offset" else len(self.groups))
                    at = edit.end
                edit = next(edits, None)
            self.groups.append(bytes(out + footer.data[at:end]))
        if self.stored is not None and (set(footer.spans) != {_SCHEMA, _KEY_VALUES}
                                        or footer.data[slice(*footer.spans[_SCHEMA])] != self.stored[0]):
            raise FooterError("a part's Parquet columns are not the stored schema's")
        if self.head is None:
            self.head = footer
        self.rows += rows[0]
        self.sink.write(chunks)
        self.position += len(chunks)

    def close(self) -> None:
        """Write the footer, its length and the closing magic."""
        if self.head is None:
            raise FooterError("no part was appended")
        head = self.head
        rows = next(e for e in head.edits if e.kind == "rows")
        size = len(self.groups)
        list_start, list_end = head.list_span
        kind = head.data[list_start] & 0x0F
        header = bytes([(size << 4) | kind]) if size < 15 else bytes([0xF0 | kind]) + _varint(size)
        groups_start, groups_end = head.groups[0][0], head.groups[-1][1]
        if list_end != groups_start or rows.end > list_start:
            raise FooterError("the footer's row count does not come before its row groups")
        tail = head.data[groups_end:]
        if self.stored is not None:
            start, end = head.spans[_KEY_VALUES]
            if start < groups_end:
                raise FooterError("the footer's key-value metadata comes before its row groups")
            tail = head.data[groups_end:start] + self.stored[1] + head.data[end:]
        footer = (head.data[:rows.start] + _zigzag(self.rows) + head.data[rows.end:list_start] + header
                  + b"".join(self.groups) + tail)
        self.sink.write(footer)
        self.sink.write(struct.pack("<I", len(footer)))
        self.sink.write(MAGIC)


def check_spliced(path: str | os.PathLike[str], rows: int) -> None:
    """Read the spliced file's footer back with pyarrow: its row count is ``rows`` and every column chunk lies inside
    the file, after the one before it.  A guard against a footer field that holds a file position this scanner does
    not know to move (a newer Parquet writer's): the file is refused rather than written with pages out of place."""
    import pyarrow.parquet as pq

    meta = pq.read_metadata(path)
    end = os.path.getsize(path) - 8 - len(MAGIC)
    if meta.num_rows != rows:
        raise FooterError("the spliced file's row count is not the rows written")
    position = len(MAGIC)
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            start = column.dictionary_page_offset if column.has_dictionary_page else column.data_page_offset
            if start is None or start < position or start + column.total_compressed_size > end:
                raise FooterError("a column chunk of the spliced file is not where its footer says")
            position = start + column.total_compressed_size
