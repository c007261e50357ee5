"""The four encodings of non-binary attributes (TODS 2017, §5.1).

* ``vanilla``: each attribute stays one discrete variable over its leaf codes;
* ``hierarchical``: as vanilla, plus the generalisation levels of its taxonomy
  tree, which GreedyBayes may use for parents (Alg. 6);
* ``binary``: each attribute becomes ⌈log2 ℓ⌉ bit attributes (most significant
  first), so score F and Lemma 4.8's θ-usefulness apply;
* ``gray``: as binary, with the reflected Gray code, so neighbouring values
  differ in one bit.

Binary and Gray codes of width ⌈log2 ℓ⌉ have 2^bits ≥ ℓ patterns; a sampled
pattern with position ≥ ℓ has no value and is decoded to the last value ℓ − 1,
its nearest valid position (see docs/decisions.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from privbayes.core.errors import InputError
from privbayes.schema.domain import Schema

EncodingName = Literal["vanilla", "hierarchical", "binary", "gray"]
ENCODINGS: tuple[EncodingName, ...] = ("vanilla", "hierarchical", "binary", "gray")


@dataclass(frozen=True)
class EncodedAttribute:
    """A variable the network is built over, with its generalisation maps (level 0 = leaves)."""

    name: str
    source: int
    levels: tuple[np.ndarray, ...]
    level_sizes: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "level_sizes", tuple(int(m.max()) + 1 for m in self.levels))

    @property
    def size(self) -> int:
        return self.level_sizes[0]

    @property
    def height(self) -> int:
        return len(self.levels)

    def level_size(self, level: int) -> int:
        return self.level_sizes[level]


def bit_width(size: int) -> int:
    """Bits of the binary/Gray code of a domain of ``size`` values (at least one)."""
    return max(1, math.ceil(math.log2(size)))


@dataclass(frozen=True)
class Encoding:
    """An encoding of a schema: encoded variables and the maps between code spaces."""

    name: EncodingName
    schema: Schema
    attributes: tuple[EncodedAttribute, ...]

    @classmethod
    def build(cls, schema: Schema, name: str) -> Encoding:
        known = next((e for e in ENCODINGS if e == name), None)
        if known is None:
            raise InputError(f"encoding must be one of {', '.join(ENCODINGS)}, got {name!r}")
        attributes: list[EncodedAttribute] = []
        for j, attr in enumerate(schema.attributes):
            if name == "vanilla":
                attributes.append(EncodedAttribute(attr.name, j, (np.arange(attr.size),)))
            elif name == "hierarchical":
                attributes.append(EncodedAttribute(attr.name, j, attr.levels))
            else:
                width = bit_width(attr.size)
                for b in range(width):
                    label = attr.name if width == 1 else f"{attr.name}#bit{b}"
                    attributes.append(EncodedAttribute(label, j, (np.arange(2),)))
        return cls(known, schema, tuple(attributes))

    @property
    def is_binary(self) -> bool:
        """Every encoded variable has two values, so score F and Lemma 4.8 apply."""
        return all(a.size == 2 for a in self.attributes)

    def encode(self, leaves: np.ndarray) -> np.ndarray:
        """Encoded codes (n × d') from the schema's leaf codes (n × d)."""
        if self.name in ("vanilla", "hierarchical"):
            return leaves.copy()
        return np.column_stack([self.encode_attribute(j, leaves[:, j]) for j in range(len(self.schema))])

    def encode_attribute(self, j: int, leaves: np.ndarray) -> np.ndarray:
        """The encoded variables (n × width) of schema attribute ``j`` from its leaf codes."""
        leaves = np.asarray(leaves, dtype=np.int64)
        if self.name in ("vanilla", "hierarchical"):
            return leaves[:, None].copy()
        width = bit_width(self.schema.attributes[j].size)
        code = leaves if self.name == "binary" else leaves ^ (leaves >> 1)
        return np.column_stack([(code >> (width - 1 - b)) & 1 for b in range(width)]).astype(np.int64)

    def decode(self, encoded: np.ndarray) -> np.ndarray:
        """The schema's leaf codes (n × d) from encoded codes (n × d')."""
        if self.name in ("vanilla", "hierarchical"):
            return encoded.copy()
        out = np.empty((encoded.shape[0], len(self.schema)), dtype=np.int64)
        col = 0
        for j, attr in enumerate(self.schema.attributes):
            width = bit_width(attr.size)
            code = np.zeros(encoded.shape[0], dtype=np.int64)
            for b in range(width):
                code = (code << 1) | encoded[:, col + b]
            col += width
            if self.name == "gray":
                code = _gray_to_position(code, width)
            out[:, j] = np.minimum(code, attr.size - 1)
        return out


def _gray_to_position(gray: np.ndarray, width: int) -> np.ndarray:
    position = gray.copy()
    shift = 1
    while shift < width:
        position ^= position >> shift
        shift <<= 1
    return position
