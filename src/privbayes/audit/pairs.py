"""Worst-case neighbouring tables for the self-audit, over tiny public schemas of binary attributes.

A pair is tight for a release of marginals when the one changed row moves every released table by its full
sensitivity: replacing an all-zeros row by an all-ones row moves every marginal (1-way, 2-way, …) by 2 in L1
(one cell −1, another +1), the replace-one Δ; removing an all-zeros row moves every marginal by 1, the
add/remove Δ.  Which counts the rest of the table holds decides the *selections* (scores of candidate
parents or marginals), so the audit keeps a few candidates and picks the one whose calibration runs give
the largest bound (:func:`privbayes.audit.selfaudit.audit`).  The distinguishing audits' ``network_pair``
(exact greedy networks differ, TODS 2017 §4) joins them, for the controls that select without noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from privbayes.audit.distinguish import binary_schema, network_pair
from privbayes.privacy.neighbours import ADD_REMOVE, neighbours
from privbayes.schema import Schema

Row = tuple[int, ...]


@dataclass(frozen=True)
class Pair:
    """Neighbouring tables D and D' over a public schema of binary attributes, and how they differ."""

    name: str
    schema: Schema
    rows_d: tuple[Row, ...]
    rows_d2: tuple[Row, ...]
    relation: str

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        names = list(self.schema.names)
        return pd.DataFrame(list(self.rows_d), columns=names), pd.DataFrame(list(self.rows_d2), columns=names)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "neighbours": self.relation, "attributes": list(self.schema.names),
                "D": [list(r) for r in self.rows_d], "D_prime": [list(r) for r in self.rows_d2]}


def flip_pair(attributes: int, n: int, zeros: int, relation: str) -> Pair:
    """D: ``zeros`` all-zeros rows and n − zeros all-ones rows; D' replaces one all-zeros row by an all-ones
    row (replace-one) or removes it (add/remove)."""
    if not 0 < zeros <= n or attributes < 1:
        raise ValueError(f"need 0 < zeros ({zeros}) <= n ({n}) and attributes ({attributes}) >= 1")
    zero, one = (0,) * attributes, (1,) * attributes
    rows_d = (zero,) * zeros + (one,) * (n - zeros)
    rows_d2 = rows_d[1:] + ((one,) if neighbours(relation).n_public else ())
    schema = binary_schema("abcdefgh"[:attributes])
    return Pair(f"flip {attributes} attributes, n = {n}, {zeros} all-zeros rows", schema, rows_d, rows_d2,
                neighbours(relation).name)


def network_control_pair(relation: str) -> Pair:
    """The distinguishing audits' network pair (n = 6, three binary attributes: the exact greedy network
    differs for every first attribute); under add/remove, D' drops the changed row instead."""
    a, b = network_pair()
    rows_a = tuple(tuple(int(v) for v in row) for row in a.itertuples(index=False))
    rows_b = tuple(tuple(int(v) for v in row) for row in b.itertuples(index=False))
    if relation == ADD_REMOVE.name:
        changed = next(i for i, (x, y) in enumerate(zip(rows_a, rows_b)) if x != y)
        rows_b = rows_a[:changed] + rows_a[changed + 1:]
    return Pair("network pair (n = 6)", binary_schema("abc"), rows_a, rows_b, neighbours(relation).name)


def candidate_pairs(relation: str | None, attributes: int = 2, n: int = 20) -> list[Pair]:
    """The pairs the audit searches over: balanced, skewed and one-sided flip pairs, and the network pair."""
    name = neighbours(relation).name
    return [flip_pair(attributes, n, zeros, name) for zeros in (n // 2 + 1, (3 * n) // 4, n)] + [
        network_control_pair(name)]
