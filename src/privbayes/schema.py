"""The public domain of a table: attributes, their kinds, bins, taxonomy levels and policies.

The schema is *public input*: categories, bounds and taxonomies come from the
data steward, not from the private data (TODS 2017 assumes a known domain).
Drafting one from data is the counting layer's job (``privbayes.counting.draft``)
and is flagged as not covered by ε.  Reading rows into leaf codes is the counting
layer's job too (``privbayes.counting.labels``); this module only describes the
code space: leaf codes 0..size-1 per attribute (the missing code last), their
generalisation levels (:mod:`privbayes.taxonomy`), bins, and the decoding of codes
into values, which is post-processing of released codes.

Numeric attributes (issue 16) have equal-width bins over [lower, upper] (``scale:
linear``), bins equal-width in log(1 + x − lower) (``scale: log``), or explicit public
``edges``; ``special_values`` are numbers with a leaf code of their own beside the
bins (sentinels such as 999, point masses such as 0), matched before the bins and
decoded exactly.  Leaf codes: bins 0..b−1, then the special values in declared
order, then the missing code.  ``kind: date`` is a numeric attribute over whole days,
months or years (``granularity``) with ISO bounds, written back as ISO text.

Every declared size is checked against :mod:`privbayes.limits` before an array is built: each
attribute's bins and categories, and (:func:`declared_codes`) the number of attributes and their
total size, so that many attributes each just under its own cap cannot add up to gigabytes.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from privbayes.errors import InputError
from privbayes.limits import check_domain_total, limits
from privbayes.taxonomy import (Taxonomy, binary_tree_levels, depth, leaves, taxonomy_from_lists, taxonomy_levels,
                                taxonomy_to_lists)

Kind = Literal["categorical", "numeric", "binary", "date"]
NUMERIC_KINDS = ("numeric", "date")
Scale = Literal["linear", "log"]
Granularity = Literal["day", "month", "year"]
MissingPolicy = Literal["refuse", "category"]
InvalidPolicy = Literal["refuse", "clip", "category"]

MISSING_LABEL = "<missing>"
DEFAULT_BINS = 16
MAX_DECIMALS = 12
_EPOCH = np.datetime64("1970-01-01", "D")
_DATE_TEXT = re.compile(r"(?P<y>\d{4})(?:-(?P<m>\d{2})(?:-(?P<d>\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?)?)?")


def date_ordinal(value: Any, granularity: str) -> float | None:
    """A date as a whole number of days since 1970-01-01, months since year 0, or years; None if
    ``value`` is not an ISO date (``YYYY-MM-DD``, optionally with a time) precise enough for the
    granularity (``YYYY-MM`` suffices for months, ``YYYY`` for years).  Typed dates are accepted."""
    if isinstance(value, (np.datetime64, pd.Timestamp, datetime.date)):
        day = np.datetime64(pd.Timestamp(value).date(), "D") if not isinstance(value, np.datetime64) else value
        if pd.isna(day):
            return None
        text = str(np.datetime64(day, "D"))
    else:
        text = str(value).strip()
    match = _DATE_TEXT.fullmatch(text)
    if match is None or (granularity == "day" and match["d"] is None) or (granularity == "month" and match["m"] is None):
        return None
    year, month, day = int(match["y"]), int(match["m"] or 1), int(match["d"] or 1)
    try:
        stamp = datetime.date(year, month, day)
    except ValueError:
        return None
    if granularity == "year":
        return float(year)
    if granularity == "month":
        return float(year * 12 + month - 1)
    return float((np.datetime64(stamp, "D") - _EPOCH).astype(np.int64))


def date_text(ordinal: float, granularity: str) -> str:
    """ISO text of an ordinal of :func:`date_ordinal` (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``)."""
    k = int(ordinal)
    if granularity == "year":
        return f"{k:04d}"
    if granularity == "month":
        return f"{k // 12:04d}-{k % 12 + 1:02d}"
    return str(_EPOCH + np.timedelta64(k, "D"))


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
    special_values: tuple = ()
    edges: tuple | None = None
    scale: Scale = "linear"
    decimals: int | None = None
    granularity: Granularity | None = None
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
        if self.kind == "date":
            self._check_date(where)
        if self.kind in NUMERIC_KINDS:
            self._check_numeric(where)
        elif self.kind in ("categorical", "binary"):
            self._check_categorical(where)
        else:
            raise InputError(f"schema: {where}: kind must be categorical, numeric, binary or date, got {self.kind!r}")
        object.__setattr__(self, "levels", self._build_levels())

    @property
    def numeric(self) -> bool:
        """Numeric or date: bins (and special values) rather than categories."""
        return self.kind in NUMERIC_KINDS

    def _check_date(self, where: str) -> None:
        if self.granularity is None:
            object.__setattr__(self, "granularity", "day")
        if self.granularity not in ("day", "month", "year"):
            raise InputError(f"schema: {where}: granularity must be day, month or year, got {self.granularity!r}")
        for bound in ("lower", "upper"):
            value = getattr(self, bound)
            ordinal = date_ordinal(value, self.granularity) if isinstance(value, (str, datetime.date)) else None
            if ordinal is None:
                raise InputError(f"schema: {where}: date attributes need an ISO date as {bound} bound "
                                 f"(YYYY-MM-DD), got {value!r}")
            object.__setattr__(self, bound, ordinal)
        if self.special_values or self.edges is not None or self.scale != "linear" or self.decimals is not None:
            raise InputError(f"schema: {where}: date attributes take lower, upper, bins and granularity only")
        object.__setattr__(self, "integer", True)

    def _check_numeric(self, where: str) -> None:
        if self.kind == "numeric" and self.granularity is not None:
            raise InputError(f"schema: {where}: granularity is for date attributes")
        if self.edges is not None:
            self._check_edges(where)
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
        if self.scale not in ("linear", "log"):
            raise InputError(f"schema: {where}: scale must be linear or log, got {self.scale!r}")
        if self.scale == "log" and self.edges is not None:
            raise InputError(f"schema: {where}: give either edges or scale: log, not both")
        if self.decimals is not None and (not isinstance(self.decimals, int) or isinstance(self.decimals, bool)
                                          or not 0 <= self.decimals <= MAX_DECIMALS):
            raise InputError(f"schema: {where}: decimals must be an integer in [0, {MAX_DECIMALS}], got {self.decimals!r}")
        self._check_special_values(where)
        if self.kind == "date" and self.bins > self.upper - self.lower + 1:  # at most one bin per day/month/year
            object.__setattr__(self, "bins", int(self.upper - self.lower + 1))

    def _check_edges(self, where: str) -> None:
        edges = self.edges
        if not isinstance(edges, tuple) or len(edges) > limits().max_bins + 1:
            raise InputError(f"schema: {where}: edges must be a list of at most {limits().max_bins + 1} numbers "
                             "(PRIVBAYES_MAX_BINS)")
        if len(edges) < 2 or not all(isinstance(e, (int, float)) and not isinstance(e, bool) and math.isfinite(e)
                                     for e in edges):
            raise InputError(f"schema: {where}: edges must be at least 2 finite numbers")
        if any(b <= a for a, b in zip(edges, edges[1:])):
            raise InputError(f"schema: {where}: edges must be strictly increasing")
        for bound, edge in (("lower", edges[0]), ("upper", edges[-1])):
            if getattr(self, bound) is not None and getattr(self, bound) != edge:
                raise InputError(f"schema: {where}: {bound} ({getattr(self, bound)}) differs from the edges; "
                                 "leave it out (the edges give it)")
        if self.bins not in (DEFAULT_BINS, len(edges) - 1):
            raise InputError(f"schema: {where}: bins ({self.bins}) differs from the {len(edges) - 1} bins the edges "
                             "give; leave it out")
        object.__setattr__(self, "lower", edges[0])
        object.__setattr__(self, "upper", edges[-1])
        object.__setattr__(self, "bins", len(edges) - 1)

    def _check_special_values(self, where: str) -> None:
        values = self.special_values
        if not isinstance(values, tuple) or len(values) > limits().max_bins:
            raise InputError(f"schema: {where}: special_values must be a list of at most {limits().max_bins} numbers "
                             "(PRIVBAYES_MAX_BINS)")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
            raise InputError(f"schema: {where}: special_values must be finite numbers")
        if len(set(values)) != len(values):
            raise InputError(f"schema: {where}: special_values must be unique")

    def _check_categorical(self, where: str) -> None:
        if self.special_values or self.edges is not None or self.scale != "linear" or self.decimals is not None \
                or self.granularity is not None:
            raise InputError(f"schema: {where}: special_values, edges, scale, decimals and granularity are for "
                             "numeric attributes")
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
        """Leaf codes of values: bins and special values, or categories."""
        return self.bins + len(self.special_values) if self.numeric else len(self.categories)

    @property
    def height(self) -> int:
        """Number of generalisation levels, leaves included (root omitted)."""
        return len(self.levels)

    def level_size(self, level: int) -> int:
        return int(self.levels[level].max()) + 1

    def _build_levels(self) -> tuple[np.ndarray, ...]:
        if self.numeric:
            groups = binary_tree_levels(self.bins)
            for _ in self.special_values:  # each special value is its own node at every level
                groups = [np.append(g, g.max() + 1) for g in groups]
        elif self.taxonomy is not None:
            index = {str(c): i for i, c in enumerate(self.categories)}
            groups = taxonomy_levels(self.taxonomy, index, self.base_size)
        else:
            groups = [np.arange(self.base_size)]
        if self.missing == "category":  # the missing value is its own node at every level
            groups = [np.append(g, g.max() + 1) for g in groups]
        return tuple(g.astype(np.int64) for g in groups)

    # --- numeric bins -------------------------------------------------------------------------

    def bin_edges(self) -> np.ndarray:
        """The b + 1 public bin edges (equal-width, log-spaced, or declared)."""
        if self.edges is not None:
            return np.array(self.edges, dtype=np.float64)
        if self.scale == "log":
            return self.lower + np.expm1(np.linspace(0.0, math.log1p(self.upper - self.lower), self.bins + 1))
        step = (self.upper - self.lower) / self.bins
        return self.lower + np.arange(self.bins + 1) * step

    def bin_codes(self, x: np.ndarray) -> np.ndarray:
        """Bin of each number in [lower, upper] (bins are [e_i, e_i+1); ``upper`` is in the last bin)."""
        if self.edges is None and self.scale == "linear":
            step = (self.upper - self.lower) / self.bins
            return np.clip(np.floor((x - self.lower) / step), 0, self.bins - 1).astype(np.int64)
        return np.clip(np.searchsorted(self.bin_edges(), x, side="right") - 1, 0, self.bins - 1).astype(np.int64)

    def number_codes(self, x: np.ndarray) -> np.ndarray:
        """Leaf code of each number: its special value's code, else its bin; −1 outside the bounds."""
        x = np.asarray(x, dtype=np.float64)
        out = np.full(len(x), -1, np.int64)
        inside = (x >= self.lower) & (x <= self.upper)
        out[inside] = self.bin_codes(x[inside])
        for i, value in enumerate(self.special_values):
            out[x == value] = self.bins + i
        return out

    def _bin_bounds(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.edges is None and self.scale == "linear":
            step = (self.upper - self.lower) / self.bins
            low = self.lower + codes * step
            return low, low + step
        edges = self.bin_edges()
        return edges[codes], edges[codes + 1]

    def bin_labels(self, digits: int = 4) -> list[str]:
        """Display labels of the leaf codes of values: ``[lo, hi)`` per bin, then the special values."""
        edges = self.bin_edges()
        if self.kind == "date":
            labels = [f"[{date_text(math.ceil(a), self.granularity)}, {date_text(math.ceil(b), self.granularity)})"
                      for a, b in zip(edges, edges[1:])]
        else:
            labels = [f"[{a:.{digits}g}, {b:.{digits}g})" for a, b in zip(edges, edges[1:])]
        return labels + [f"={v:g}" for v in self.special_values]

    def decode(self, codes: np.ndarray, rng: np.random.Generator, bin_labels: bool = False) -> pd.Series:
        """Values for leaf codes: categories; special values exactly; numbers drawn uniformly inside
        their bin at the declared precision; dates as ISO text."""
        codes = np.asarray(codes, dtype=np.int64)
        missing = codes >= self.base_size
        if not self.numeric:
            cats = np.array(list(self.categories) + [None], dtype=object)
            return pd.Series(cats[np.minimum(codes, self.base_size)], name=self.name)
        if bin_labels:
            labels = np.array(self.bin_labels(6) + [None], dtype=object)
            return pd.Series(labels[np.minimum(codes, self.base_size)], name=self.name)
        special = (codes >= self.bins) & ~missing
        safe = np.where(codes < self.bins, codes, 0)
        values = self._draw_in_bins(safe, rng)
        if self.special_values:
            values[special] = np.array(self.special_values, dtype=np.float64)[codes[special] - self.bins]
        if self.kind == "date":
            texts = np.array([date_text(v, self.granularity) for v in values], dtype=object)
            texts[missing] = None
            return pd.Series(texts, name=self.name)
        out = pd.Series(values, name=self.name)
        out[missing] = np.nan
        if self.integer:
            return out.astype("Int64")
        return out

    def _draw_in_bins(self, safe: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        low, high = self._bin_bounds(safe)
        if not self.integer:
            values = low + rng.random(len(safe)) * (high - low)
            if self.decimals is not None:
                values = np.clip(np.round(values, self.decimals), self.lower, self.upper)
            return values
        first = np.ceil(low)
        last = np.where(safe == self.bins - 1, np.floor(self.upper), np.ceil(high) - 1)
        empty = last < first  # a bin narrower than 1 holding no integer: use its rounded midpoint
        span = np.maximum(last - first + 1, 1).astype(np.int64)
        values = np.where(empty, np.round((low + high) / 2), first + rng.integers(0, span)).astype(np.float64)
        if self.special_values:  # a special value has its own code: draw another integer of the bin if there is one
            specials = np.array(self.special_values, dtype=np.float64)
            for _ in range(8):
                again = np.isin(values, specials) & (span > 1) & ~empty
                if not again.any():
                    break
                values[again] = (first + rng.integers(0, span))[again]
        return np.clip(values, math.ceil(self.lower), math.floor(self.upper))

    # --- serialisation ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == "date":
            out.update(lower=date_text(self.lower, self.granularity), upper=date_text(self.upper, self.granularity),
                       bins=self.bins, granularity=self.granularity)
        elif self.kind == "numeric":
            if self.edges is not None:
                out["edges"] = list(self.edges)
            else:
                out.update(lower=self.lower, upper=self.upper, bins=self.bins)
            out["integer"] = self.integer
            if self.scale != "linear":
                out["scale"] = self.scale
            if self.decimals is not None:
                out["decimals"] = self.decimals
            if self.special_values:
                out["special_values"] = list(self.special_values)
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
                   "missing_token", "special_values", "edges", "scale", "decimals", "granularity"}
        unknown = set(raw) - allowed
        if unknown:
            raise InputError(f"{source}: attribute {raw.get('name')!r} has unknown keys {sorted(unknown)}")
        if "name" not in raw or "kind" not in raw:
            raise InputError(f"{source}: every attribute needs 'name' and 'kind'")
        if not isinstance(raw["name"], str) or not isinstance(raw["kind"], str):  # never echo a whole list back
            raise InputError(f"{source}: an attribute's name and kind must be text, got "
                             f"{type(raw['name']).__name__} and {type(raw['kind']).__name__}")
        kwargs = {**(defaults or {}), **raw}
        for key in ("categories", "special_values", "edges"):
            if key in kwargs:
                if not isinstance(kwargs[key], list):
                    raise InputError(f"{source}: attribute {raw['name']!r}: {key} must be a list")
                cap = limits().max_categories if key == "categories" else limits().max_bins + 1
                if len(kwargs[key]) > cap:
                    raise InputError(f"{source}: attribute {raw['name']!r}: {len(kwargs[key])} {key} is above the "
                                     f"limit of {cap} (PRIVBAYES_MAX_{'CATEGORIES' if key == 'categories' else 'BINS'})")
                kwargs[key] = tuple(kwargs[key])
        if "edges" in raw and "bins" in raw and isinstance(kwargs.get("edges"), tuple) \
                and raw["bins"] != len(kwargs["edges"]) - 1:
            raise InputError(f"{source}: attribute {raw['name']!r}: bins ({raw['bins']}) differs from the "
                             f"{len(kwargs['edges']) - 1} bins the edges give; leave it out")
        if kwargs.get("taxonomy") is not None:
            kwargs["taxonomy"] = taxonomy_from_lists(kwargs["taxonomy"], source)
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise InputError(f"{source}: attribute {raw['name']!r}: {exc}") from None


def declared_codes(raw: Any) -> int:
    """The size one raw attribute mapping declares, read before it is built: its bins and special
    values (numeric, date), or its categories and taxonomy groups (categorical, binary), plus one
    (its missing code).  Malformed entries count what they declare; their own checks refuse them."""
    if not isinstance(raw, dict):
        return 1
    codes = 1
    for key in ("categories", "special_values"):
        if isinstance(raw.get(key), list):
            codes += len(raw[key])
    if raw.get("kind") == "binary" and not raw.get("categories"):
        codes += 2
    edges, bins = raw.get("edges"), raw.get("bins", DEFAULT_BINS)
    if isinstance(edges, list):
        codes += max(len(edges) - 1, 0)
    elif raw.get("kind") in NUMERIC_KINDS and isinstance(bins, int) and not isinstance(bins, bool) and bins > 0:
        codes += bins
    stack = [raw.get("taxonomy")]
    while stack:  # taxonomy groups, without recursion (the document's depth is capped, but stay iterative)
        node = stack.pop()
        if isinstance(node, list):
            codes += 1
            stack.extend(child for child in node if isinstance(child, list))
    return codes


QUOTED_NEWLINES_CAVEAT = ("the schema lets quoted CSV fields span lines ('quoted_newlines: true'): reading is not "
                          "row-local, so one malformed row can change how the rows after it are read, which the "
                          "sensitivity does not bound")
"""The privacy report's caveat for a schema with ``quoted_newlines``."""

SCHEMA_DEFAULT_KEYS = ("missing", "invalid", "missing_token")
"""Keys a schema may set once for all its attributes (an attribute's own value wins)."""


@dataclass(frozen=True)
class Schema:
    """The ordered attributes of a table; names are unique.

    ``dropped`` names columns of the data that are deliberately left out (an identifier, free
    text); ``inferred`` marks a draft read from the data (``schema infer``) that nobody has
    reviewed yet: while it stays, fitting says so and the privacy report says the domain was
    taken from the data, which ε does not cover.  ``quoted_newlines`` lets a quoted CSV field
    span lines; it gives up row-local reading (one stray quote changes how the following lines
    are read), so it is off by default and named in the privacy report's caveats.
    """

    attributes: tuple[Attribute, ...]
    dropped: tuple[str, ...] = ()
    inferred: bool = False
    quoted_newlines: bool = False

    def __post_init__(self) -> None:
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise InputError(f"schema: attribute name {dup!r} appears more than once")
        if len(names) < 2:
            raise InputError(f"schema: PrivBayes needs at least 2 attributes, got {len(names)}")
        if not isinstance(self.dropped, tuple) or not all(isinstance(c, str) for c in self.dropped):
            raise InputError("schema: drop must be a list of column names")
        both = [c for c in self.dropped if c in names]
        if both:
            raise InputError(f"schema: column {both[0]!r} is both an attribute and in drop")
        if not isinstance(self.inferred, bool):
            raise InputError(f"schema: inferred must be true or false, got {self.inferred!r}")
        if not isinstance(self.quoted_newlines, bool):
            raise InputError(f"schema: quoted_newlines must be true or false, got {self.quoted_newlines!r}")

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
        out: dict[str, Any] = {"version": 1}
        if self.inferred:
            out["inferred"] = True
        out["attributes"] = [a.to_dict() for a in self.attributes]
        if self.dropped:
            out["drop"] = list(self.dropped)
        if self.quoted_newlines:
            out["quoted_newlines"] = True
        return out

    @classmethod
    def from_dict(cls, raw: Any, source: str = "schema") -> "Schema":
        if not isinstance(raw, dict) or not isinstance(raw.get("attributes"), list):
            raise InputError(f"{source}: expected a mapping with a list 'attributes'")
        unknown = set(raw) - {"version", "attributes", "drop", "inferred", "quoted_newlines", *SCHEMA_DEFAULT_KEYS}
        if unknown:
            raise InputError(f"{source}: unknown top-level keys {sorted(unknown)}")
        defaults = {key: raw[key] for key in SCHEMA_DEFAULT_KEYS if key in raw}
        check_domain_total(len(raw["attributes"]), sum(declared_codes(a) for a in raw["attributes"]), source)
        attributes = []
        for a in raw["attributes"]:
            own = dict(defaults)
            if own.get("invalid") == "clip" and isinstance(a, dict) and a.get("kind") not in NUMERIC_KINDS:
                del own["invalid"]  # a schema-wide 'clip' concerns numeric attributes only
            attributes.append(Attribute.from_dict(a, source, own))
        dropped = raw.get("drop") or []
        if not isinstance(dropped, list) or len(dropped) > limits().max_categories:
            raise InputError(f"{source}: drop must be a list of column names")
        return cls(tuple(attributes), tuple(str(c) for c in dropped), raw.get("inferred", False),
                   raw.get("quoted_newlines", False))

    def decode(self, codes: np.ndarray, rng: np.random.Generator, bin_labels: bool = False) -> pd.DataFrame:
        """Values of leaf codes (n × d): categories, or numbers drawn inside their bins."""
        return pd.DataFrame({a.name: a.decode(codes[:, j], rng, bin_labels) for j, a in enumerate(self.attributes)})
