"""The protocol every counting back-end implements (numpy in memory now; out-of-core later)."""

from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np

from privbayes.encoding import Encoding


class PrivateTable(Protocol):
    """Private rows behind a narrow interface: the row count and exact contingency tables.

    Exact counts must only flow into a mechanism that pays for them.  A back-end may also
    offer batched forms of ``counts`` for GreedyBayes's many candidate tables
    (``counts_many(requests)``; ``binary_families(parents, children)`` for binary data);
    callers use them when present and fall back to ``counts`` otherwise.
    """

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
