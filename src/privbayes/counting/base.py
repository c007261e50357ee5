"""The protocol every counting back-end implements (numpy in memory now; DuckDB and Spark next).

A back-end must provide ``schema``, ``encoding``, ``n`` and ``counts``.  The batched
forms have default implementations here, so a minimal back-end (counts only) works
everywhere; a back-end overrides them when its engine can do better:

* ``counts_many(requests)``: many tables at once (GreedyBayes's candidates);
* ``binary_families(parents, children)``: every (child, parent set) table of binary
  data in one pass, or ``None`` — the explicit "not supported" answer — so callers
  fall back to ``counts_many``;
* ``encoded(encoding)``: the same rows under another encoding of the schema.  The
  default (:class:`EncodedView`) derives every encoded table from leaf-level counts
  of the source attributes — an encoded variable is a function of one attribute's
  leaf code (the attribute, a taxonomy level, or one bit of its binary/Gray code),
  so its table is the leaf table summed along those functions: exact, any back-end,
  the leaf table checked against the size cap first.  In-memory tables re-encode
  their rows instead.

Exact counts must only flow into a mechanism that pays for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from privbayes.core.limits import check_cells
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding

Request = tuple[Sequence[int], Sequence[int] | None]
"""Encoded attribute indices and their generalisation levels (None: all leaves)."""


def check_request(encoding: Encoding, attributes: Sequence[int], levels: Sequence[int] | None
                  ) -> tuple[list[int], list[int]]:
    """Checked (attributes, levels) of a counting request; the table is refused above the size
    cap before anything is counted or allocated."""
    attributes = list(attributes)
    levels = [0] * len(attributes) if levels is None else list(levels)
    if len(levels) != len(attributes):
        raise ValueError("attributes and levels must have the same length")
    if len(set(attributes)) != len(attributes):
        raise ValueError(f"attributes {attributes} repeat")
    check_cells((encoding.attributes[a].level_size(l) for a, l in zip(attributes, levels)), "a counted table")
    return attributes, levels


@runtime_checkable
class PrivateTable(Protocol):
    """Private rows behind a narrow interface: the row count and exact contingency tables."""

    schema: Schema
    encoding: Encoding

    @property
    def n(self) -> int:
        """Number of rows (public under the replace-one neighbouring relation)."""
        ...

    def counts(self, attributes: Sequence[int], levels: Sequence[int] | None = None) -> np.ndarray:
        """Exact contingency table over encoded ``attributes`` generalised to ``levels``.

        The result has one axis per attribute, of that attribute's size at its level;
        every cell of the domain is present, empty ones included.
        """
        ...

    def counts_many(self, requests: Sequence[Request]) -> list[np.ndarray]:
        """:meth:`counts` of many requests, in order."""
        return [self.counts(attributes, levels) for attributes, levels in requests]

    def binary_families(self, parents: np.ndarray, children: np.ndarray) -> np.ndarray | None:
        """Tables ``out[p, c, x, π]`` of child ``children[c]`` against parent set ``parents[p]``
        (binary data, level 0), or None when the back-end has no batched form."""
        return None

    def encoded(self, encoding: Encoding) -> PrivateTable:
        """The same rows, counted over the variables of ``encoding`` (an encoding of ``schema``)."""
        return EncodedView(self, encoding)


@dataclass(frozen=True)
class CountingPlace:
    """Where a table is counted, as a cost estimate needs it: public facts (the back-end the user chose and the
    memory bounds it was opened with), never the rows.  ``in_engine``: an engine read and coded the rows (False: the
    rows were read into this process, the numpy back-end); ``engine_bytes``: the memory that engine may use inside
    this process (DuckDB's ``memory_limit``; 0 for an engine in other processes); ``local_bytes``: coded rows up to
    this size are moved into memory to be counted, larger ones are counted by the engine (streamed from it)."""

    in_engine: bool = False
    engine_bytes: int = 0
    local_bytes: int = 0


def counting_place(table: PrivateTable) -> CountingPlace:
    """The table's :class:`CountingPlace` (a table that does not say is taken as held in memory)."""
    place = getattr(table, "counting_place", None)
    return place() if callable(place) else CountingPlace()


def count_batch(table: PrivateTable, requests: Sequence[Request]) -> list[np.ndarray]:
    """``table.counts_many(requests)``, or one ``counts`` call per request for a table that
    implements the protocol's ``counts`` only (without subclassing it)."""
    many = getattr(table, "counts_many", None)
    if many is None:
        return [table.counts(attributes, levels) for attributes, levels in requests]
    answers: list[np.ndarray] = many(requests)
    return answers


def all_answered(answers: Sequence[np.ndarray | None]) -> list[np.ndarray]:
    """The tables of a batch whose slots were filled out of order, each checked to be there."""
    if any(a is None for a in answers):
        raise RuntimeError("a request of the batch was left unanswered")
    return [a for a in answers if a is not None]


class EncodedView(PrivateTable):
    """``base``'s rows counted over the variables of ``encoding``."""

    def __init__(self, base: PrivateTable, encoding: Encoding) -> None:
        if encoding.schema != base.schema:
            raise ValueError("the encoding must be of the table's schema")
        if base.encoding.name not in ("vanilla", "hierarchical"):
            raise ValueError("an encoded view needs a base table over the schema's own attributes")
        self.base, self.schema, self.encoding = base, base.schema, encoding
        self._leaf_maps = [leaf_map(encoding, v) for v in range(len(encoding.attributes))]

    @property
    def n(self) -> int:
        return self.base.n

    def encoded(self, encoding: Encoding) -> PrivateTable:
        return self.base.encoded(encoding)

    def counts(self, attributes: Sequence[int], levels: Sequence[int] | None = None) -> np.ndarray:
        attributes = list(attributes)
        levels = [0] * len(attributes) if levels is None else list(levels)
        if not attributes:
            return np.array(self.n, dtype=np.int64)
        variables = self.encoding.attributes
        sources = sorted({variables[v].source for v in attributes})
        shape = [self.schema.attributes[s].size for s in sources]
        check_cells(shape, "the leaf table behind an encoded table")
        leaf = self.base.counts(sources)
        out_shape = tuple(variables[v].level_size(l) for v, l in zip(attributes, levels))
        grids = np.meshgrid(*[np.arange(size) for size in shape], indexing="ij")
        index = np.zeros(leaf.shape, np.int64)
        for v, l, size in zip(attributes, levels, out_shape):
            code = variables[v].levels[l][self._leaf_maps[v][grids[sources.index(variables[v].source)]]]
            index = index * size + code
        return np.bincount(index.ravel(), weights=leaf.ravel(), minlength=int(np.prod(out_shape))
                           ).astype(np.int64).reshape(out_shape)


def leaf_map(encoding: Encoding, variable: int) -> np.ndarray:
    """Level-0 code of encoded ``variable`` for every leaf code of its source attribute."""
    attr = encoding.attributes[variable]
    leaves = np.arange(encoding.schema.attributes[attr.source].size)
    codes = encoding.encode_attribute(attr.source, leaves)
    first = next(i for i, a in enumerate(encoding.attributes) if a.source == attr.source)
    return codes[:, variable - first]
