"""Compact array blocks inside JSON model files
(docs/decisions.md, "Model files that load"): binary float64 arrays as base64 text.

A model file used to write every probability as JSON text (≈ 20 bytes a number): a PrivBayes model of
Adult with 5.6·10⁶ cells weighed 108 MB, over the 64 MB that loading accepts.  A block stores the
same numbers losslessly as little-endian float64 bytes, byte-shuffled (the k-th byte of every number,
then the (k+1)-th: exponents and leading mantissa bytes line up, and runs of zeros become long runs)
and deflated (zlib), in base64 so the file stays one JSON document that users can copy and diff::

    {"dtype": "float64", "shape": [16, 2, 41], "codec": "shuffle-deflate", "data": "eNrt…"}

Zero-heavy tables need no sparse form: a run of zero bytes deflates to a few bytes per 258.

Reading a block is bounded before anything is allocated: the declared shape must equal the shape the
caller derives from the schema and network (never trusted on its own), its cells are checked against
:func:`privbayes.core.limits.check_cells`, the text is refused if it is longer than deflate could make of
that many bytes, and decompression stops at the declared size (a deflate bomb cannot expand past it);
the bytes must then be exactly the declared size.  Every refusal is one line naming the file.
"""

from __future__ import annotations

import base64
import binascii
import math
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from privbayes.core.errors import InputError
from privbayes.core.limits import check_cells

DTYPE = "float64"
CODECS = ("shuffle-deflate", "raw")
"""``shuffle-deflate`` (written), ``raw`` (base64 of the bytes only; read, for tools that write blocks
without zlib)."""
ITEM = 8
"""Bytes of one float64."""


def encode(array: np.ndarray, codec: str = "shuffle-deflate") -> dict[str, Any]:
    """The block of ``array`` (converted to float64; lossless for float64 input)."""
    if codec not in CODECS:
        raise ValueError(f"codec must be one of {', '.join(CODECS)}")
    values = np.ascontiguousarray(array, dtype="<f8")
    raw = values.tobytes()
    if codec == "shuffle-deflate":
        raw = zlib.compress(_shuffle(raw), 6)
    return {"dtype": DTYPE, "shape": list(values.shape), "codec": codec, "data": base64.b64encode(raw).decode("ascii")}


def encoded_size(cells: int, codec: str = "shuffle-deflate") -> int:
    """Most characters the ``data`` of a block of ``cells`` numbers can take (a public bound: deflate's
    worst case is the stored form, 5 bytes per 16 KiB block plus 6; base64 adds a third)."""
    raw = cells * ITEM
    if codec == "shuffle-deflate":
        raw += 5 * (raw // 16384 + 1) + 6
    return 4 * math.ceil(raw / 3)


def is_block(item: Any) -> bool:
    """Whether a JSON value is meant as a block (an object with ``data``)."""
    return isinstance(item, dict) and "data" in item


def decode(item: Any, shape: Sequence[int], source: str, what: str) -> np.ndarray:
    """The float64 array of the block ``item``, which must declare ``shape`` (derived by the caller from
    public facts); refused in one line naming ``source`` and ``what`` before any allocation when the
    declared type, shape or size disagrees, and after inflation when the bytes do."""
    shape = [int(s) for s in shape]
    prefix = f"{source}: invalid model file: {what}"
    if not isinstance(item, dict) or set(item) - {"dtype", "shape", "codec", "data"}:
        raise InputError(f"{prefix} must be an object with dtype, shape, codec and data")
    if item.get("dtype") != DTYPE:
        raise InputError(f"{prefix} must have dtype {DTYPE!r}")
    if item.get("codec") not in CODECS:
        raise InputError(f"{prefix} must have codec {' or '.join(map(repr, CODECS))}")
    declared = item.get("shape")
    if not isinstance(declared, list) or declared != shape or any(isinstance(s, bool) for s in declared):
        raise InputError(f"{prefix} must have shape {shape}")
    cells = check_cells(shape, f"{source}: {what}")
    data = item.get("data")
    if not isinstance(data, str) or len(data) > encoded_size(cells, item["codec"]):
        raise InputError(f"{prefix} holds more data than its shape {shape} needs")
    try:
        raw = base64.b64decode(data.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise InputError(f"{prefix} is not valid base64 text") from None
    size = cells * ITEM
    if item["codec"] == "shuffle-deflate":
        inflater = zlib.decompressobj()
        try:
            raw = inflater.decompress(raw, max(size, 1))  # never more than the declared size
        except zlib.error:
            raise InputError(f"{prefix} is not valid deflate data") from None
        if not inflater.eof or inflater.unconsumed_tail or inflater.unused_data:
            raise InputError(f"{prefix} does not hold exactly the {size:,} bytes its shape {shape} declares")
    if len(raw) != size:
        raise InputError(f"{prefix} does not hold exactly the {size:,} bytes its shape {shape} declares")
    if item["codec"] == "shuffle-deflate":
        raw = _unshuffle(raw)
    return np.frombuffer(raw, dtype="<f8").astype(np.float64).reshape(shape)


def _shuffle(raw: bytes) -> bytes:
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, ITEM).T.tobytes()


def _unshuffle(raw: bytes) -> bytes:
    return np.frombuffer(raw, dtype=np.uint8).reshape(ITEM, -1).T.tobytes()
