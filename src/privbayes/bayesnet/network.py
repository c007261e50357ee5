"""Bayesian networks as ordered attribute-parent (AP) pairs (TODS 2017, §2.2)."""

from __future__ import annotations

from dataclasses import dataclass

from privbayes.estimation.measurements import Variable
from privbayes.schema.encoding import Encoding

Parent = Variable
"""An encoded attribute and the generalisation level it enters the parent set at."""


@dataclass(frozen=True)
class APPair:
    """Child X_i and its parent set Π_i, each parent possibly generalised (Alg. 6)."""

    child: int
    parents: tuple[Parent, ...] = ()

    def __post_init__(self) -> None:
        attrs = [p[0] for p in self.parents]
        if self.child in attrs or len(set(attrs)) != len(attrs):
            raise ValueError(f"AP pair {self}: a parent repeats or equals the child")


@dataclass(frozen=True)
class Network:
    """AP pairs in sampling order: every parent is a child of an earlier pair (a DAG)."""

    pairs: tuple[APPair, ...]

    def __post_init__(self) -> None:
        seen: set[int] = set()
        for pair in self.pairs:
            if pair.child in seen:
                raise ValueError(f"attribute {pair.child} appears twice as a child")
            missing = [a for a, _ in pair.parents if a not in seen]
            if missing:
                raise ValueError(f"parent {missing[0]} of {pair.child} is not placed before it")
            seen.add(pair.child)

    @property
    def degree(self) -> int:
        return max((len(p.parents) for p in self.pairs), default=0)

    def describe(self, encoding: Encoding) -> list[str]:
        """One readable line per AP pair, e.g. ``income <- age@1, sex``."""
        names = [a.name for a in encoding.attributes]
        lines = []
        for pair in self.pairs:
            parents = ", ".join(names[a] + (f"@{lvl}" if lvl else "") for a, lvl in pair.parents)
            lines.append(f"{names[pair.child]} <- {parents or '(none)'}")
        return lines

    def to_list(self) -> list[dict]:
        return [{"child": p.child, "parents": [list(q) for q in p.parents]} for p in self.pairs]

    @classmethod
    def from_list(cls, raw: list) -> Network:
        return cls(tuple(APPair(int(p["child"]), tuple((int(a), int(l)) for a, l in p["parents"])) for p in raw))
