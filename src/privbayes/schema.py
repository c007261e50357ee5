"""The public domain of a table: attributes, their kinds, bins and taxonomy trees.

The schema is *public input*: categories, bounds and taxonomies come from the
data steward, not from the private data (TODS 2017 assumes a known domain).
``infer_schema`` drafts one from data only when asked, and the model's privacy
report then says that the domain was read from the data and is not covered by ε.

Each attribute maps its values to *leaf codes* 0..size-1 and back, and exposes
its generalisation levels (TODS 2017, §5.1 "Hierarchical Encoding"): level 0 is
the leaves; level i maps every leaf to a node of the taxonomy tree; the root is
omitted.  Numeric attributes get the binary tree over their bins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd

from privbayes.errors import InputError

Kind = Literal["categorical", "numeric", "binary"]
MissingPolicy = Literal["refuse", "category"]
Taxonomy = tuple  # nested tuples of leaf labels (str) and groups (tuples)

MISSING_LABEL = "<missing>"
DEFAULT_BINS = 16


@dataclass(frozen=True)
class Attribute:
    """One column of the public domain, validated on construction."""

    name: str
    kind: Kind
    categories: tuple = ()
    lower: float | None = None
    upper: float | None = None
    bins: int = DEFAULT_BINS
    integer: bool = False
    taxonomy: Taxonomy | None = None
    missing: MissingPolicy = "refuse"
    levels: tuple[np.ndarray, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"attribute {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"schema: attribute names must be non-empty strings, got {self.name!r}")
        if self.missing not in ("refuse", "category"):
            raise InputError(f"schema: {where}: missing must be 'refuse' or 'category', got {self.missing!r}")
        if self.kind == "numeric":
            self._check_numeric(where)
        elif self.kind in ("categorical", "binary"):
            self._check_categorical(where)
        else:
            raise InputError(f"schema: {where}: kind must be categorical, numeric or binary, got {self.kind!r}")
        object.__setattr__(self, "levels", self._build_levels())

    def _check_numeric(self, where: str) -> None:
        for bound in ("lower", "upper"):
            value = getattr(self, bound)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise InputError(f"schema: {where}: numeric attributes need a finite {bound} bound, got {value!r}")
        if not self.lower < self.upper:
            raise InputError(f"schema: {where}: lower ({self.lower}) must be below upper ({self.upper})")
        if not isinstance(self.bins, int) or isinstance(self.bins, bool) or self.bins < 1:
            raise InputError(f"schema: {where}: bins must be a positive integer, got {self.bins!r}")
        if not isinstance(self.integer, bool):
            raise InputError(f"schema: {where}: integer must be true or false, got {self.integer!r}")
        if self.taxonomy is not None:
            raise InputError(f"schema: {where}: numeric attributes get their taxonomy from their bins; remove 'taxonomy'")

    def _check_categorical(self, where: str) -> None:
        cats = self.categories
        if self.kind == "binary" and not cats:
            object.__setattr__(self, "categories", (0, 1))
            cats = self.categories
        if len(cats) == 0:
            raise InputError(f"schema: {where}: categorical attributes need a non-empty list of categories")
        if self.kind == "binary" and len(cats) != 2:
            raise InputError(f"schema: {where}: binary attributes have exactly 2 categories, got {len(cats)}")
        labels = [str(c) for c in cats]
        if len(set(labels)) != len(labels):
            raise InputError(f"schema: {where}: categories must be unique")
        if self.missing == "category" and MISSING_LABEL in labels:
            raise InputError(f"schema: {where}: category {MISSING_LABEL!r} is reserved for missing values")
        if self.taxonomy is not None:
            leaves = [str(leaf) for leaf in _taxonomy_leaves(self.taxonomy)]
            if sorted(leaves) != sorted(labels):
                raise InputError(f"schema: {where}: the taxonomy's leaves must be exactly the categories, each once")

    @property
    def size(self) -> int:
        """Number of leaf codes, the missing-value code included."""
        return self.base_size + (self.missing == "category")

    @property
    def base_size(self) -> int:
        return self.bins if self.kind == "numeric" else len(self.categories)

    @property
    def height(self) -> int:
        """Number of generalisation levels, leaves included (root omitted)."""
        return len(self.levels)

    def level_size(self, level: int) -> int:
        return int(self.levels[level].max()) + 1

    def _build_levels(self) -> tuple[np.ndarray, ...]:
        base = self.base_size
        if self.kind == "numeric":
            groups = _binary_tree_levels(base)
        elif self.taxonomy is not None:
            index = {str(c): i for i, c in enumerate(self.categories)}
            groups = _taxonomy_levels(self.taxonomy, index, base)
        else:
            groups = [np.arange(base)]
        if self.missing == "category":  # the missing value is its own node at every level
            groups = [np.append(g, g.max() + 1) for g in groups]
        return tuple(g.astype(np.int64) for g in groups)

    # --- values <-> leaf codes -------------------------------------------------------------

    def encode(self, column: pd.Series, source: str) -> np.ndarray:
        """Leaf codes of a column; a clear error for anything outside the domain."""
        where = f"{source}: column {self.name!r}"
        missing = column.isna().to_numpy()
        if missing.any() and self.missing == "refuse":
            raise InputError(
                f"{where} has {int(missing.sum())} missing values and the schema's missing policy is 'refuse'"
                " (set 'missing: category' to model them)"
            )
        codes = np.zeros(len(column), dtype=np.int64)
        present = column[~missing]
        if self.kind == "numeric":
            codes[~missing] = self._bin_codes(present, where)
        else:
            position, distinct = pd.factorize(present)  # label the distinct values only
            labels = _labels(pd.Series(distinct))
            mapped = pd.Index([str(c) for c in self.categories]).get_indexer(labels)
            if (mapped < 0).any():
                bad = labels.iloc[int(np.argmax(mapped < 0))]
                raise InputError(f"{where}: value {bad!r} is not one of the schema's {self.base_size} categories")
            codes[~missing] = mapped[position]
        codes[missing] = self.base_size
        return codes

    def _bin_codes(self, values: pd.Series, where: str) -> np.ndarray:
        try:  # the direct conversion is 3× faster than to_numeric on text columns
            x = values.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
        if np.isnan(x).any():
            bad = values.iloc[int(np.argmax(np.isnan(x)))]
            raise InputError(f"{where}: value {bad!r} is not a number (the schema says numeric)")
        outside = (x < self.lower) | (x > self.upper)
        if outside.any():
            raise InputError(f"{where}: value {x[outside][0]:g} is outside the schema's bounds [{self.lower:g}, {self.upper:g}]")
        step = (self.upper - self.lower) / self.bins
        return np.minimum(np.floor((x - self.lower) / step).astype(np.int64), self.bins - 1)

    def decode(self, codes: np.ndarray, rng: np.random.Generator, bin_labels: bool = False) -> pd.Series:
        """Values for leaf codes: categories, or numbers drawn uniformly inside their bin."""
        codes = np.asarray(codes, dtype=np.int64)
        missing = codes >= self.base_size
        if self.kind != "numeric":
            cats = np.array(list(self.categories) + [None], dtype=object)
            return pd.Series(cats[np.minimum(codes, self.base_size)], name=self.name)
        step = (self.upper - self.lower) / self.bins
        if bin_labels:
            labels = np.array([f"[{self.lower + b * step:g}, {self.lower + (b + 1) * step:g})" for b in range(self.bins)] + [None], dtype=object)
            return pd.Series(labels[np.minimum(codes, self.bins)], name=self.name)
        safe = np.where(missing, 0, codes)
        low = self.lower + safe * step
        if self.integer:
            first = np.ceil(low)
            last = np.where(safe == self.bins - 1, np.floor(self.upper), np.ceil(low + step) - 1)
            empty = last < first  # a bin narrower than 1 holding no integer: use its rounded midpoint
            span = np.maximum(last - first + 1, 1).astype(np.int64)
            values = np.where(empty, np.round(low + step / 2), first + rng.integers(0, span)).astype(np.float64)
            values = np.clip(values, math.ceil(self.lower), math.floor(self.upper))
        else:
            values = low + rng.random(len(codes)) * step
        out = pd.Series(values, name=self.name)
        out[missing] = np.nan
        if self.integer:
            return out.astype("Int64")
        return out

    # --- serialisation ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == "numeric":
            out.update(lower=self.lower, upper=self.upper, bins=self.bins, integer=self.integer)
        else:
            out["categories"] = list(self.categories)
            if self.taxonomy is not None:
                out["taxonomy"] = _taxonomy_to_lists(self.taxonomy)
        out["missing"] = self.missing
        return out

    @classmethod
    def from_dict(cls, raw: Any, source: str) -> "Attribute":
        if not isinstance(raw, dict):
            raise InputError(f"{source}: each attribute must be a mapping, got {type(raw).__name__}")
        allowed = {"name", "kind", "categories", "lower", "upper", "bins", "integer", "taxonomy", "missing"}
        unknown = set(raw) - allowed
        if unknown:
            raise InputError(f"{source}: attribute {raw.get('name')!r} has unknown keys {sorted(unknown)}")
        if "name" not in raw or "kind" not in raw:
            raise InputError(f"{source}: every attribute needs 'name' and 'kind'")
        kwargs = dict(raw)
        if "categories" in kwargs:
            if not isinstance(kwargs["categories"], list):
                raise InputError(f"{source}: attribute {raw['name']!r}: categories must be a list")
            kwargs["categories"] = tuple(kwargs["categories"])
        if kwargs.get("taxonomy") is not None:
            kwargs["taxonomy"] = _taxonomy_from_lists(kwargs["taxonomy"], source)
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise InputError(f"{source}: attribute {raw['name']!r}: {exc}") from None


@dataclass(frozen=True)
class Schema:
    """The ordered attributes of a table; names are unique."""

    attributes: tuple[Attribute, ...]

    def __post_init__(self) -> None:
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise InputError(f"schema: attribute name {dup!r} appears more than once")
        if len(names) < 2:
            raise InputError(f"schema: PrivBayes needs at least 2 attributes, got {len(names)}")

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]

    def __len__(self) -> int:
        return len(self.attributes)

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "attributes": [a.to_dict() for a in self.attributes]}

    @classmethod
    def from_dict(cls, raw: Any, source: str = "schema") -> "Schema":
        if not isinstance(raw, dict) or not isinstance(raw.get("attributes"), list):
            raise InputError(f"{source}: expected a mapping with a list 'attributes'")
        return cls(tuple(Attribute.from_dict(a, source) for a in raw["attributes"]))

    def encode(self, frame: pd.DataFrame, source: str) -> np.ndarray:
        """Leaf codes (n × d) of a frame, checking columns and values against the schema."""
        columns = [str(c) for c in frame.columns]
        if len(set(columns)) != len(columns):
            dup = next(c for c in columns if columns.count(c) > 1)
            raise InputError(f"{source}: column {dup!r} appears more than once")
        missing = [n for n in self.names if n not in columns]
        if missing:
            raise InputError(f"{source}: column {missing[0]!r} of the schema is missing from the data")
        extra = [c for c in columns if c not in self.names]
        if extra:
            raise InputError(f"{source}: column {extra[0]!r} is not in the schema")
        if len(frame) == 0:
            raise InputError(f"{source}: the data has no rows")
        frame = frame.set_axis(columns, axis=1)
        return np.column_stack([a.encode(frame[a.name], source) for a in self.attributes])

    def decode(self, codes: np.ndarray, rng: np.random.Generator, bin_labels: bool = False) -> pd.DataFrame:
        return pd.DataFrame({a.name: a.decode(codes[:, j], rng, bin_labels) for j, a in enumerate(self.attributes)})


def _labels(values: pd.Series) -> pd.Series:
    """String labels of raw values, so that 1, 1.0 and '1' name the same category."""
    if pd.api.types.is_float_dtype(values):
        numbers = values.to_numpy(dtype=np.float64)
        if np.all(np.mod(numbers, 1) == 0):
            return pd.Series(numbers.astype(np.int64).astype(str), index=values.index)
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values.astype(str)
    return values.astype(str).str.strip()


def _binary_tree_levels(bins: int) -> list[np.ndarray]:
    leaves = np.arange(bins)
    levels = [leaves]
    shift = 1
    while math.ceil(bins / 2**shift) >= 2:
        levels.append(leaves >> shift)
        shift += 1
    return levels


def _taxonomy_leaves(tree: Taxonomy) -> list:
    out: list = []
    for node in tree:
        out.extend(_taxonomy_leaves(node) if isinstance(node, tuple) else [node])
    return out


def _taxonomy_levels(tree: Taxonomy, index: dict[str, int], size: int) -> list[np.ndarray]:
    """Top-aligned levels: a group nested in k braces is a node of level H − k.

    H = (deepest nesting) + 1.  A leaf nested in k braces stays itself up to level
    H − 1 − k and joins its enclosing group above (the convention of the paper's
    released ``.domain`` files, which this reproduces).
    """
    paths: dict[int, list[tuple]] = {}

    def walk(node: Taxonomy, ancestors: list[tuple]) -> None:
        for child in node:
            if isinstance(child, tuple):
                walk(child, ancestors + [child])
            else:
                paths[index[str(child)]] = ancestors
    walk(tree, [])
    height = max(len(p) for p in paths.values()) + 1
    levels = []
    for level in range(height):
        depth = height - level
        keys = []
        for leaf in range(size):
            path = paths[leaf]
            keys.append(("group", id(path[depth - 1])) if 1 <= depth <= len(path) else ("leaf", leaf))
        seen: dict = {}
        levels.append(np.array([seen.setdefault(k, len(seen)) for k in keys]))
    return levels


def _taxonomy_from_lists(raw: Any, source: str) -> Taxonomy:
    if not isinstance(raw, list):
        raise InputError(f"{source}: a taxonomy must be a (nested) list of categories")
    return tuple(_taxonomy_from_lists(x, source) if isinstance(x, list) else x for x in raw)


def _taxonomy_to_lists(tree: Taxonomy) -> list:
    return [_taxonomy_to_lists(x) if isinstance(x, tuple) else x for x in tree]


def infer_schema(frame: pd.DataFrame, max_categories: int = 64, bins: int = DEFAULT_BINS) -> Schema:
    """Draft a schema from data.  NOT private: bounds and categories reveal the data."""
    attributes = []
    for name in frame.columns:
        column = frame[name]
        missing: MissingPolicy = "category" if column.isna().any() else "refuse"
        present = column.dropna()
        numeric = pd.to_numeric(present, errors="coerce")
        distinct = present.nunique()
        if numeric.notna().all() and distinct > max_categories // 4 and len(present) > 0:
            integer = bool(np.all(np.mod(numeric.to_numpy(dtype=float), 1) == 0))
            attributes.append(Attribute(str(name), "numeric", lower=float(numeric.min()), upper=float(numeric.max()),
                                        bins=bins, integer=integer, missing=missing))
            continue
        if distinct > max_categories:
            raise InputError(f"schema infer: column {name!r} has {distinct} distinct non-numeric values (more than {max_categories}); describe it by hand")
        categories = sorted(set(_labels(present).tolist()), key=_natural_key)
        kind: Kind = "binary" if len(categories) == 2 else "categorical"
        attributes.append(Attribute(str(name), kind, categories=tuple(_typed(c) for c in categories), missing=missing))
    return Schema(tuple(attributes))


def _natural_key(label: str) -> tuple:
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def _typed(label: str) -> Any:
    try:
        return int(label)
    except ValueError:
        return label

