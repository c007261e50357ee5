"""A text table (CSV or ``.dat``, maybe compressed) as a bounded stream of lines.

Everything a hostile file could use to exhaust memory or time is checked here, while the
bytes stream in, before any parser sees them (docs/decisions.md, "Strict reading"):

* the file is decompressed by its suffix (``.gz``, ``.bz2``, ``.xz``, ``.zip`` with one member,
  ``.zst``) in chunks of :data:`CHUNK` bytes; never whole;
* the decompressed size is capped (:attr:`~privbayes.core.limits.Limits.max_input_bytes`) and so is
  the ratio of decompressed to compressed bytes (:attr:`~privbayes.core.limits.Limits.max_expansion`,
  once :data:`~privbayes.core.limits.EXPANSION_GRACE` bytes are out);
* every line, the header included, is capped (:attr:`~privbayes.core.limits.Limits.max_line_bytes`):
  a line that never ends is refused after that many bytes;
* the text must be valid in its encoding (UTF-8 unless the caller says otherwise); other
  encodings are transcoded to UTF-8 on the way, so that everything downstream sees UTF-8.

**Lines** (the strict dialect's rows, docs/decisions.md "Strict reading"): the text is cut at
every ``\\n`` and every ``\\r`` (so ``\\r\\n``, ``\\n`` and a lone ``\\r`` all end a line, as
pandas, DuckDB and Spark's line readers agree), and empty lines are skipped.  A UTF-8 byte-order
mark at the start of the file is dropped.  With ``quoted_newlines`` (a schema's opt-in) a line
break inside a quoted field does not end the record: records end at a ``\\n`` outside quotes
(an even number of ``"`` so far), a final ``\\r`` is dropped, and a record that is still open at
the end of the file refuses the file — one bad quote then changes how every following line is
read, which is why it is not the default.

Refusals name the file and the kind of problem only: never a position, a line number or a value.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
import os
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

import numpy as np
import pyarrow as pa

from privbayes.core.errors import InputError
from privbayes.core.limits import EXPANSION_GRACE, limits

CHUNK = 8 * 2**20
"""Bytes read (after decompression) per step."""
COMPRESSIONS = (".gz", ".bz2", ".xz", ".zip", ".zst")
_BOM = b"\xef\xbb\xbf"


def compression(path: Path) -> str | None:
    """The compression suffix of ``path`` (``.gz``…), or None for a plain file."""
    suffix = path.suffix.lower()
    return suffix if suffix in COMPRESSIONS else None


class _Counted(io.RawIOBase):
    """A binary file that counts the bytes read from it (the compressed bytes a decompressor has
    consumed so far)."""

    def __init__(self, raw: io.BufferedReader) -> None:
        super().__init__()
        self.raw, self.count = raw, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self.raw.seekable()

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer)
        self.count += n or 0
        return n

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()

    def close(self) -> None:
        self.raw.close()
        super().close()


def _open_binary(path: Path, counted: _Counted) -> IO[bytes] | io.BufferedIOBase | _Counted:
    """The decompressed bytes of the file behind ``counted``, as a binary stream, by the suffix of
    ``path``."""
    kind = compression(path)
    if kind == ".gz":
        return gzip.GzipFile(fileobj=counted, mode="rb")
    if kind == ".bz2":
        return bz2.BZ2File(counted, "rb")
    if kind == ".xz":
        return lzma.LZMAFile(cast(IO[bytes], counted), "rb")  # the stubs take IO only; LZMAFile reads any file
    if kind == ".zip":
        try:
            archive = zipfile.ZipFile(counted)
        except (zipfile.BadZipFile, OSError, ValueError):
            raise InputError(f"{path}: not a valid .zip file") from None
        names = [n for n in archive.namelist() if not n.endswith("/")]
        if len(names) != 1:
            archive.close()
            raise InputError(f"{path}: a .zip table must hold exactly one file")
        try:
            return archive.open(names[0])
        except (RuntimeError, NotImplementedError, zipfile.BadZipFile, ValueError):  # encrypted, unknown method
            archive.close()
            raise InputError(f"{path}: the .zip member cannot be read (encrypted or an unsupported method)") from None
    if kind == ".zst":  # Arrow's own zstd codec, streaming
        stream: BinaryIO = pa.CompressedInputStream(pa.PythonFile(counted, mode="r"), "zstd")
        return stream
    return counted


def _decompression_errors() -> tuple[type[BaseException], ...]:
    return (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, RuntimeError, NotImplementedError,
            pa.ArrowException)


def raw_chunks(path: Path, where: str) -> Iterator[bytes]:
    """The decompressed bytes of ``path`` in chunks, under the input cap and (compressed files) the
    expansion cap, which compares the bytes out with the compressed bytes read so far, so that a
    bomb is refused after :data:`~privbayes.core.limits.EXPANSION_GRACE` bytes whatever its size."""
    caps = limits()
    kind = compression(path)
    total = 0
    errors = _decompression_errors()
    with _Counted(open(path, "rb")) as counted, _open_binary(path, counted) as stream:
        while True:
            try:
                chunk = stream.read(CHUNK)
            except errors:
                what = f"a valid {kind} file (corrupt or truncated)" if kind else "readable"
                raise InputError(f"{where}: not {what}") from None
            if not chunk:
                return
            total += len(chunk)
            if total > caps.max_input_bytes:
                raise InputError(f"{where}: more than {caps.max_input_bytes / 2**20:.0f} MB of text, the limit "
                                 "(PRIVBAYES_MAX_INPUT_MB)")
            if kind is not None and total > EXPANSION_GRACE and total > caps.max_expansion * max(counted.count, 1):
                raise InputError(f"{where}: decompresses to more than {caps.max_expansion} times its size, the "
                                 "limit (PRIVBAYES_MAX_EXPANSION); a compression bomb?")
            yield chunk


def utf8_chunks(path: Path, encoding: str, where: str) -> Iterator[bytes]:
    """The text of ``path`` as UTF-8 bytes in chunks, checked (or transcoded) on the way; a
    UTF-8 byte-order mark at the start is dropped."""
    name = codecs.lookup(encoding).name
    decoder = codecs.getincrementaldecoder(name)("strict")
    first = True
    try:
        for chunk in raw_chunks(path, where):
            if name == "utf-8":
                if first and chunk.startswith(_BOM):
                    chunk = chunk[len(_BOM):]
                if not chunk.isascii() or decoder.getstate()[0]:  # ASCII alone is valid unless a character is open
                    decoder.decode(chunk)
            else:
                chunk = decoder.decode(chunk).encode("utf-8")
                if first and chunk.startswith(_BOM):
                    chunk = chunk[len(_BOM):]
            first = False
            yield chunk
        tail = decoder.decode(b"", final=True)
        if name != "utf-8" and tail:
            yield tail.encode("utf-8")
    except UnicodeError:
        hint = "give the file's encoding (--encoding, e.g. latin-1)" if name == "utf-8" else "is the encoding right?"
        raise InputError(f"{where}: not valid {name} text; {hint}") from None


def _too_long(where: str) -> InputError:
    cap = limits().max_line_bytes
    return InputError(f"{where}: a line is longer than the limit of {cap / 1024:.0f} KB (PRIVBAYES_MAX_LINE_KB)")


def _lines_of(block: bytes, ends: np.ndarray) -> pa.Array:
    """The non-empty lines of ``block`` (UTF-8) as a large_string array; ``ends`` are the positions
    of its line breaks, and a last line without one ends at the end of the block."""
    if len(ends) == 0 or ends[-1] != len(block) - 1:
        ends = np.append(ends, len(block))
    starts = np.concatenate(([0], ends[:-1] + 1))
    offsets = np.empty(2 * len(ends) + 1, np.int64)  # line i is element 2i, its line break element 2i+1
    offsets[0] = 0
    offsets[1::2] = ends
    offsets[2::2] = np.minimum(ends + 1, len(block))
    pieces = pa.LargeStringArray.from_buffers(2 * len(ends), pa.py_buffer(offsets), pa.py_buffer(block))
    return pieces.take(pa.array(np.flatnonzero(ends > starts) * 2, pa.int64()))


def _breaks(block: bytes) -> np.ndarray:
    data = np.frombuffer(block, np.uint8)
    return np.flatnonzero((data == 10) | (data == 13))


def line_batches(chunks: Iterator[bytes], where: str) -> Iterator[pa.Array]:
    """Non-empty lines (cut at every ``\\r`` and ``\\n``) in batches, each at most the line cap."""
    cap = limits().max_line_bytes
    carry = b""
    for chunk in chunks:
        block = carry + chunk if carry else chunk
        ends = _breaks(block)
        if len(ends) == 0:
            if len(block) > cap:
                raise _too_long(where)
            carry = block
            continue
        last = int(ends[-1])
        complete, carry = block[:last + 1], block[last + 1:]
        longest = max(int(ends[0]), int((np.diff(ends) - 1).max()) if len(ends) > 1 else 0, len(carry))
        if longest > cap:
            raise _too_long(where)
        yield _lines_of(complete, ends)
    if carry:
        if len(carry) > cap:
            raise _too_long(where)
        yield _lines_of(carry, _breaks(carry))


def _utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (counted only when the character count leaves it open)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def record_batches(chunks: Iterator[bytes], where: str) -> Iterator[pa.Array]:
    """Records that may hold line breaks inside quoted fields (``quoted_newlines``), in batches.

    A record ends at a ``\\n`` after an even number of ``"``; its final ``\\r`` is dropped; empty
    records are skipped.  A record longer than the line cap, or open at the end, refuses the file."""
    cap = limits().max_line_bytes
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    pending: list[str] = []  # the lines of a record whose quotes are still open
    size, tail = 0, ""
    out: list[str] = []

    def take(piece: str) -> None:
        nonlocal pending, size
        odd = piece.count('"') & 1
        if pending or odd:
            pending.append(piece)
            size += _utf8_size(piece) + 1
            if size > cap + 1:
                raise _too_long(where)
            if len(pending) == 1 or not odd:  # opened here, or still open
                return
            piece, pending, size = "\n".join(pending), [], 0
        record = piece.removesuffix("\r")
        if _utf8_size(record) > cap:
            raise _too_long(where)
        if record:
            out.append(record)

    for chunk in chunks:
        pieces = (tail + decoder.decode(chunk)).split("\n")
        tail = pieces.pop()
        for piece in pieces:
            take(piece)
        if size + _utf8_size(tail) > cap:  # a line (or an open record) that goes on and on
            raise _too_long(where)
        if out:
            yield pa.array(out, pa.large_string())
            out = []
    take(tail + decoder.decode(b"", final=True))
    if pending:
        raise InputError(f"{where}: a quoted field is still open at the end of the file ('quoted_newlines: true' "
                         "lets quoted fields span lines, so one stray quote takes the rest of the file)")
    if out:
        yield pa.array(out, pa.large_string())


class TextLines:
    """The header line (the first non-empty line) and the data lines after it, in batches
    (``header=False``: every line is data, ``header`` is None).

    Reading the header reads only the first chunk (bounded by the line cap); iterating streams
    the rest once."""

    def __init__(self, path: str | os.PathLike[str], encoding: str = "utf-8", *, quoted_newlines: bool = False,
                 header: bool = True) -> None:
        self.path = Path(path)
        self.where = str(path)
        chunks = utf8_chunks(self.path, encoding, self.where)
        split = record_batches if quoted_newlines else line_batches
        self._batches = split(chunks, self.where)
        self._first: pa.Array | None = None
        self.header = self._read_header() if header else None

    def _read_header(self) -> str:
        for batch in self._batches:
            if len(batch):
                self._first = batch.slice(1)
                header: str = batch[0].as_py()
                return header
        raise InputError(f"{self.where}: the file is empty")

    def __iter__(self) -> Iterator[pa.Array]:
        if self._first is not None and len(self._first):
            yield self._first
        self._first = None
        for batch in self._batches:
            if len(batch):
                yield batch

    def drain(self) -> None:
        """Read to the end (every check above), keeping nothing: the engines' preflight."""
        for _ in self:
            pass
