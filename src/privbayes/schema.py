"""The public domain of a table: attributes, their kinds, bins, taxonomy levels and policies.

The schema is *public input*: categories, bounds and taxonomies come from the
data steward, not from the private data (TODS 2017 assumes a known domain).
Drafting one from data is the counting layer's job (``privbayes.counting.draft``)
and is flagged as not covered by ε.  Reading rows into leaf codes is the counting
layer's job too (``privbayes.counting.labels``); this module only describes the
code space: leaf codes 0..size-1 per attribute (the missing code last), their
generalisation levels (:mod:`privbayes.taxonomy`), bins, and the decoding of codes
into values, which is post-processing of released codes.

Every declared size is checked against :mod:`privbayes.limits` before an array is built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from privbayes.errors import InputError
from privbayes.limits import limits
from privbayes.taxonomy import (Taxonomy, binary_tree_levels, depth, leaves, taxonomy_from_lists, taxonomy_levels,
                                taxonomy_to_lists)

Kind = Literal["categorical", "numeric", "binary"]
MissingPolicy = Literal["refuse", "category"]
InvalidPolicy = Literal["refuse", "clip", "category"]

MISSING_LABEL = "<missing>"
DEFAULT_BINS = 16


@dataclass(frozen=True)
class Attribute:
    """One column of the public domain, validated on construction (sizes capped first)."""

    name: str
    kind: Kind
    categories: tuple = ()
    lower: float | None = None
    upper: float | None = None
    bins: int = DEFAULT_BINS
    integer: bool = False
    taxonomy: Taxonomy | None = None
    missing: MissingPolicy = "refuse"
    invalid: InvalidPolicy = "refuse"
    missing_token: str | None = None
    levels: tuple[np.ndarray, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"attribute {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise InputError("schema: attribute names must be non-empty strings")
        if self.missing not in ("refuse", "category"):
            raise InputError(f"schema: {where}: missing must be 'refuse' or 'category', got {self.missing!r}")
        if self.invalid not in ("refuse", "clip", "category"):
            raise InputError(f"schema: {where}: invalid must be 'refuse', 'clip' or 'category', got {self.invalid!r}")
        if self.invalid == "category" and self.missing != "category":
            raise InputError(f"schema: {where}: 'invalid: category' maps invalid values to the missing category, "
                             "so it needs 'missing: category'")
        if self.missing_token is not None and not isinstance(self.missing_token, str):
            raise InputError(f"schema: {where}: missing_token must be a string, got {self.missing_token!r}")
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
        if self.bins > limits().max_bins:
            raise InputError(f"schema: {where}: bins ({self.bins}) is above the limit of {limits().max_bins} "
                             "(PRIVBAYES_MAX_BINS)")
        if not isinstance(self.integer, bool):
            raise InputError(f"schema: {where}: integer must be true or false, got {self.integer!r}")
        if self.taxonomy is not None:
            raise InputError(f"schema: {where}: numeric attributes get their taxonomy from their bins; remove 'taxonomy'")
        if self.invalid == "category" and self.missing != "category":
            raise InputError(f"schema: {where}: 'invalid: category' needs 'missing: category'")

    def _check_categorical(self, where: str) -> None:
        cats = self.categories
        if self.kind == "binary" and not cats:
            object.__setattr__(self, "categories", (0, 1))
            cats = self.categories
        if not isinstance(cats, tuple):
            raise InputError(f"schema: {where}: categories must be a list")
        if len(cats) > limits().max_categories:
            raise InputError(f"schema: {where}: {len(cats)} categories is above the limit of "
                             f"{limits().max_categories} (PRIVBAYES_MAX_CATEGORIES)")
        if len(cats) == 0:
            raise InputError(f"schema: {where}: categorical attributes need a non-empty list of categories")
        if any(isinstance(c, (list, dict, tuple)) or c is None for c in cats):
            raise InputError(f"schema: {where}: categories must be strings or numbers")
        if self.kind == "binary" and len(cats) != 2:
            raise InputError(f"schema: {where}: binary attributes have exactly 2 categories, got {len(cats)}")
        if self.invalid == "clip":
            raise InputError(f"schema: {where}: 'invalid: clip' is for numeric attributes; use 'refuse' or 'category'")
        labels = [str(c) for c in cats]
        if len(set(labels)) != len(labels):
            raise InputError(f"schema: {where}: categories must be unique")
        if self.missing == "category" and MISSING_LABEL in labels:
            raise InputError(f"schema: {where}: category {MISSING_LABEL!r} is reserved for missing values")
        if self.missing_token is not None and self.missing_token.strip() in [label.strip() for label in labels]:
            raise InputError(f"schema: {where}: missing_token {self.missing_token!r} is also a category")
        if self.taxonomy is not None:
            if depth(self.taxonomy) > limits().max_taxonomy_depth:
                raise InputError(f"schema: {where}: the taxonomy nests more than {limits().max_taxonomy_depth} levels")
            tree_leaves = [str(leaf) for leaf in leaves(self.taxonomy)]
            if sorted(tree_leaves) != sorted(labels):
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
            groups = binary_tree_levels(base)
        elif self.taxonomy is not None:
            index = {str(c): i for i, c in enumerate(self.categories)}
            groups = taxonomy_levels(self.taxonomy, index, base)
        else:
            groups = [np.arange(base)]
        if self.missing == "category":  # the missing value is its own node at every level
            groups = [np.append(g, g.max() + 1) for g in groups]
        return tuple(g.astype(np.int64) for g in groups)

    def bin_codes(self, x: np.ndarray) -> np.ndarray:
        """Bin of each number in [lower, upper] (equal-width bins; ``upper`` is in the last bin)."""
        step = (self.upper - self.lower) / self.bins
        return np.clip(np.floor((x - self.lower) / step), 0, self.bins - 1).astype(np.int64)

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
                out["taxonomy"] = taxonomy_to_lists(self.taxonomy)
        out["missing"] = self.missing
        if self.invalid != "refuse":
            out["invalid"] = self.invalid
        if self.missing_token is not None:
            out["missing_token"] = self.missing_token
        return out

    @classmethod
    def from_dict(cls, raw: Any, source: str, defaults: dict[str, Any] | None = None) -> "Attribute":
        if not isinstance(raw, dict):
            raise InputError(f"{source}: each attribute must be a mapping, got {type(raw).__name__}")
        allowed = {"name", "kind", "categories", "lower", "upper", "bins", "integer", "taxonomy", "missing", "invalid",
                   "missing_token"}
        unknown = set(raw) - allowed
        if unknown:
            raise InputError(f"{source}: attribute {raw.get('name')!r} has unknown keys {sorted(unknown)}")
        if "name" not in raw or "kind" not in raw:
            raise InputError(f"{source}: every attribute needs 'name' and 'kind'")
        kwargs = {**(defaults or {}), **raw}
        if "categories" in kwargs:
            if not isinstance(kwargs["categories"], list):
                raise InputError(f"{source}: attribute {raw['name']!r}: categories must be a list")
            if len(kwargs["categories"]) > limits().max_categories:
                raise InputError(f"{source}: attribute {raw['name']!r}: {len(kwargs['categories'])} categories is above "
                                 f"the limit of {limits().max_categories} (PRIVBAYES_MAX_CATEGORIES)")
            kwargs["categories"] = tuple(kwargs["categories"])
        if kwargs.get("taxonomy") is not None:
            kwargs["taxonomy"] = taxonomy_from_lists(kwargs["taxonomy"], source)
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise InputError(f"{source}: attribute {raw['name']!r}: {exc}") from None


SCHEMA_DEFAULT_KEYS = ("missing", "invalid", "missing_token")
"""Keys a schema may set once for all its attributes (an attribute's own value wins)."""


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

    def index(self, name: str) -> int:
        """Position of the attribute called ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise InputError(f"schema: no attribute named {name!r}") from None

    def __len__(self) -> int:
        return len(self.attributes)

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "attributes": [a.to_dict() for a in self.attributes]}

    @classmethod
    def from_dict(cls, raw: Any, source: str = "schema") -> "Schema":
        if not isinstance(raw, dict) or not isinstance(raw.get("attributes"), list):
            raise InputError(f"{source}: expected a mapping with a list 'attributes'")
        unknown = set(raw) - {"version", "attributes", *SCHEMA_DEFAULT_KEYS}
        if unknown:
            raise InputError(f"{source}: unknown top-level keys {sorted(unknown)}")
        defaults = {key: raw[key] for key in SCHEMA_DEFAULT_KEYS if key in raw}
        attributes = []
        for a in raw["attributes"]:
            own = dict(defaults)
            if own.get("invalid") == "clip" and isinstance(a, dict) and a.get("kind") != "numeric":
                del own["invalid"]  # a schema-wide 'clip' concerns numeric attributes only
            attributes.append(Attribute.from_dict(a, source, own))
        return cls(tuple(attributes))

    def decode(self, codes: np.ndarray, rng: np.random.Generator, bin_labels: bool = False) -> pd.DataFrame:
        """Values of leaf codes (n × d): categories, or numbers drawn inside their bins."""
        return pd.DataFrame({a.name: a.decode(codes[:, j], rng, bin_labels) for j, a in enumerate(self.attributes)})
