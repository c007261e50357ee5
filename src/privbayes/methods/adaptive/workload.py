"""A steward's workload: the marginals the analysts will query, with weights (AIM, McKenna et al., VLDB 2022, §2
and §4; docs/decisions.md, "Workloads").

A workload is PUBLIC input, like the schema: a YAML or JSON file (read bounded by
:func:`privbayes.files.documents.read_document`) or, in Python, a list.  Each item is

* an attribute set: ``[age, sex, income]`` (weight 1);
* a mapping with a weight: ``{attributes: [age, sex], weight: 2}``;
* all k-way sets: ``{all: 3}`` (optionally ``weight``);
* every k-way set containing a column: ``{containing: income, size: 2}`` (optionally ``weight``).

Parsing (:func:`parse_workload`) needs no schema; the names are resolved against the domain by
:meth:`Workload.resolve`, which expands the shorthands and merges repeated sets (their weights add).  Every
refusal is one line naming the file (or "workload") and the item.  Sizes are capped before anything grows: at
most :data:`MAX_ITEMS` items, sets of at most :data:`MAX_SET_SIZE` attributes, at most :data:`MAX_SETS` sets
after expansion (checked by counting before expanding), names of at most :data:`MAX_NAME` characters, each
set's table within ``limits().max_table_cells``.

Imports nothing heavy: ``privbayes fit --help`` reads the adaptive declarations, which name this module's check.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from privbayes.core.errors import InputError
from privbayes.core.validation import exact

MAX_ITEMS = 4096
"""Items of a workload as written."""
MAX_SETS = 4096
"""Attribute sets of a workload once its shorthands are expanded (AIM's workloads of all 3-way sets on 15
attributes hold 455): it bounds the candidates, which are the sets and their subsets (at most 15 per set)."""
MAX_SET_SIZE = 4
"""Attributes of one set: each set's subsets are candidates counted once and scored every round."""
MAX_NAME = 256
"""Characters of an attribute name in a workload."""
MAX_WEIGHT = Fraction(10**6)
"""Largest weight of an item (weights are relative: the candidates' weights are scaled so the largest is 1)."""
WORKLOAD_SHARE = Fraction(1, 4)
"""The automatic first share of a fit with a workload (1/2, or 11/20 at a small signal, without one; scaled down
above a large signal like them): every round measures a workload set or a subset of one, whose table holds the
1-way marginals of its columns again, so the first tables only seed the model and the rounds need the budget
(docs/decisions.md, "Workloads": on Adult's eight 3-way sets, 5 seeds, the workload error fell 0.0508 → 0.0453
under zCDP and 0.0607 → 0.0449 under pure ε at ε = 0.4)."""

DIRECT_VERSION = 5
"""The ``auto_version`` from which a small workload's sets are measured directly (:func:`direct_sets`)."""
DIRECT_SHARE = Fraction(19, 20)
"""The first share of a fit whose workload sets are measured directly (docs/decisions.md, "Workloads"): those
first tables are the workload itself, so the rounds only re-measure the sets the model fits worst (on Adult's eight
3-way sets, zCDP, ε = 0.4, 3 seeds: workload error 0.0429 / 0.0411 / 0.0384 / 0.0400 at shares 3/4, 9/10, 19/20,
49/50)."""
DIRECT_THETA = 4
"""The sets are measured directly only when each is θ-useful at its share (PrivBayes's θ-usefulness and default θ,
TODS 2017 §4.3: mean count per cell over the noise's scale); below it, AIM's selection among the closure, whose
smaller subsets a thin budget resolves better.  θ = 1 measured BR2000's 1,792- and 2,560-cell sets at ε = 0.4
(1.6- and 1.9-useful) and raised its workload error from 0.0605 to 0.0761 (docs/decisions.md, "Workloads")."""
OUTSIDE_WEIGHT = Fraction(1, 4)
"""With the sets measured directly, the first tables of the columns outside the workload weigh this times their
cells' rule in the split: the workload's error does not read them, the synthetic rows still need them (Q2)."""


def direct_sets(sets: Sequence[tuple[tuple[int, ...], Fraction]], most: int) -> tuple[tuple[int, ...], ...]:
    """The workload's maximal sets (no proper subset of another set; first-seen order), to be measured directly as
    first tables, when there are at most ``most`` of them (the rounds rule's cap: a small workload, whose sets the
    rounds would each measure anyway); else none, and the rounds select among the closure as AIM does.  A function
    of the public workload only (docs/decisions.md, "Workloads").  Linear in the sets: each marks its proper subsets
    (at most 14, the sets being sorted positions of at most :data:`MAX_SET_SIZE` columns), not pairwise tests."""
    inside = {sub for q, _ in sets for k in range(1, len(q)) for sub in itertools.combinations(q, k)}
    maximal = tuple(s for s, _ in sets if s not in inside)
    return maximal if 0 < len(maximal) <= most else ()


def split_weight(cells: int, zcdp: bool) -> Fraction:
    """A first table's weight in the split of the first share: |Ω|^(2/3) under zCDP (ρ_i ∝ |Ω_i|^(2/3) minimises the
    summed Gaussian L1 noise Σ |Ω_i|/√ρ_i at a fixed Σ ρ_i), |Ω|^(1/2) under pure ε (the Laplace's Σ |Ω_i|/ε_i);
    exact rationals of two decimals from integer roots, so the plan is the same on every platform."""
    if not zcdp:
        return Fraction(math.isqrt(10**4 * cells), 100)
    target = 10**6 * cells * cells
    root = int(round(target ** (1 / 3)))
    while root**3 > target:
        root -= 1
    while (root + 1) ** 3 <= target:
        root += 1
    return Fraction(root, 100)


@dataclass(frozen=True)
class WorkloadItem:
    """One item as written: explicit ``attributes`` (``size`` their number), or all ``size``-way sets, or those
    ``containing`` one column; and its ``weight``."""

    weight: Fraction
    attributes: tuple[str, ...] | None = None
    size: int | None = None
    containing: str | None = None

    def document(self) -> dict[str, Any]:
        """The item as a workload file writes it."""
        weight = int(self.weight) if self.weight.denominator == 1 else str(self.weight)
        if self.attributes is not None:
            return {"attributes": list(self.attributes), "weight": weight}
        if self.containing is not None:
            return {"containing": self.containing, "size": self.size, "weight": weight}
        return {"all": self.size, "weight": weight}


@dataclass(frozen=True)
class Workload:
    """A parsed workload: its items, and where it came from (``source``, for messages; two workloads with the same
    items are equal wherever they were read)."""

    items: tuple[WorkloadItem, ...]
    source: str = field(default="workload", compare=False)

    def document(self) -> list[dict[str, Any]]:
        """The items as a workload file (and the model file's ``workload``) writes them."""
        return [item.document() for item in self.items]

    def resolve(self, names: Sequence[str],
                sizes: Sequence[int] | None = None) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
        """The attribute sets (column positions, increasing) and their weights over the columns ``names`` (each
        set once, weights of repeated sets added, in first-seen order); ``sizes``: the columns' numbers of values,
        to refuse a set whose table is above ``limits().max_table_cells``.  One-line InputError naming the source
        and item for an unknown name or a size beyond the columns."""
        from privbayes.core.limits import limits

        position = {name: j for j, name in enumerate(names)}
        d = len(names)
        expanded = 0
        for i, item in enumerate(self.items, 1):
            if item.attributes is not None:
                expanded += 1
                continue
            where = self._where(i)
            if item.size is not None and item.size > d:
                raise InputError(f"{where}: size {item.size} is more than the {d} columns")
            k = int(item.size or 0)
            expanded += math.comb(d - 1, k - 1) if item.containing is not None else math.comb(d, k)
            if expanded > MAX_SETS:
                raise InputError(f"{where}: the workload expands to more than {MAX_SETS:,} attribute sets")
        weights: dict[tuple[int, ...], Fraction] = {}
        cap = limits().max_table_cells
        for i, item in enumerate(self.items, 1):
            where = self._where(i)
            for name in (item.attributes or ()) + ((item.containing,) if item.containing is not None else ()):
                if name not in position:
                    raise InputError(f"{where}: column {_shown(name)!r} is not in the schema")
            for subset in self._sets(item, position, d):
                if sizes is not None and math.prod(sizes[a] for a in subset) > cap:
                    raise InputError(f"{where}: the marginal over {' × '.join(names[a] for a in subset)} has more "
                                     f"than {cap:,} cells (PRIVBAYES_MAX_TABLE_CELLS)")
                weights[subset] = weights.get(subset, Fraction(0)) + item.weight
        return tuple(weights.items())

    @staticmethod
    def _sets(item: WorkloadItem, position: Mapping[str, int], d: int) -> list[tuple[int, ...]]:
        if item.attributes is not None:
            return [tuple(sorted(position[name] for name in item.attributes))]
        k = int(item.size or 0)
        if item.containing is None:
            return list(itertools.combinations(range(d), k))
        j = position[item.containing]
        others = [a for a in range(d) if a != j]
        return [tuple(sorted((j,) + rest)) for rest in itertools.combinations(others, k - 1)]

    def _where(self, index: int) -> str:
        return f"{self.source}: item {index}"


def parse_workload(value: Any, name: str = "workload") -> Workload:
    """A :class:`Workload` from a path to a YAML or JSON file, a list of items, or a :class:`Workload`
    (returned as is).  One-line InputError naming the file (or ``name``) and the item."""
    if isinstance(value, Workload):
        return value
    if isinstance(value, (str, os.PathLike)):
        from privbayes.files.documents import read_document

        source = os.fspath(value)
        return _parse_items(read_document(source, "workload"), source)
    if isinstance(value, (list, tuple)):
        return _parse_items(list(value), name)
    raise InputError(f"{name} must be the path of a YAML or JSON workload file or a list of attribute sets")


def _parse_items(document: Any, source: str) -> Workload:
    if not isinstance(document, list) or not document:
        raise InputError(f"{source}: a workload must be a non-empty list of attribute sets")
    if len(document) > MAX_ITEMS:
        raise InputError(f"{source}: the workload holds more than {MAX_ITEMS:,} items")
    return Workload(tuple(_parse_item(raw, f"{source}: item {i}") for i, raw in enumerate(document, 1)), source)


_KEYS = ({"attributes", "weight"}, {"all", "weight"}, {"containing", "size", "weight"})


def _parse_item(raw: Any, where: str) -> WorkloadItem:
    if isinstance(raw, list):
        return WorkloadItem(Fraction(1), _attributes(raw, where), len(raw))
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be a list of column names or a mapping with attributes, all or containing")
    keys = set(raw)
    if not any(keys <= allowed and len(keys & (allowed - {"weight"})) >= 1 for allowed in _KEYS) or (
            "containing" in keys and "size" not in keys):
        shown = sorted(_shown(str(k)) for k in list(keys)[:5]) + (["…"] if len(keys) > 5 else [])
        raise InputError(f"{where} has keys {shown}; expected attributes (and weight), all (and weight), or "
                         "containing and size (and weight)")
    weight = _weight(raw.get("weight", 1), where)
    if "attributes" in raw:
        attributes = raw["attributes"]
        if not isinstance(attributes, list):
            raise InputError(f"{where}: attributes must be a list of column names")
        return WorkloadItem(weight, _attributes(attributes, where), len(attributes))
    if "all" in raw:
        return WorkloadItem(weight, size=_size(raw["all"], where, "all"))
    column = raw["containing"]
    if not isinstance(column, str) or not column or len(column) > MAX_NAME:
        raise InputError(f"{where}: containing must be a column name (text of at most {MAX_NAME} characters)")
    size = _size(raw["size"], where, "size")
    if size < 1:
        raise InputError(f"{where}: size must be at least 1")
    return WorkloadItem(weight, size=size, containing=column)


def _attributes(raw: list[Any], where: str) -> tuple[str, ...]:
    if not raw:
        raise InputError(f"{where} is an empty attribute set")
    if len(raw) > MAX_SET_SIZE:
        raise InputError(f"{where} has {len(raw)} attributes; a workload set has at most {MAX_SET_SIZE}")
    if not all(isinstance(a, str) and a and len(a) <= MAX_NAME for a in raw):
        raise InputError(f"{where}: every attribute must be a column name (text of at most {MAX_NAME} characters)")
    if len(set(raw)) != len(raw):
        raise InputError(f"{where} names a column twice")
    return tuple(raw)


def _size(raw: Any, where: str, key: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= MAX_SET_SIZE:
        raise InputError(f"{where}: {key} must be an integer from 1 to {MAX_SET_SIZE}")
    return raw


def _weight(raw: Any, where: str) -> Fraction:
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise InputError(f"{where}: weight must be a positive number")
    weight = exact(raw, f"{where}: weight")
    if not 0 < weight <= MAX_WEIGHT:
        raise InputError(f"{where}: weight must be positive and at most {int(MAX_WEIGHT):,}")
    return weight


def _shown(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "…"
