"""One attribute of the public domain: its kind, policies and bounds, validated on construction
(sizes capped first), and its leaf codes, generalisation levels and bins.

``Attribute(name, kind, ...)`` builds the class of its kind: :class:`CategoricalAttribute` (categorical
and binary), :class:`NumericAttribute` or :class:`DateAttribute` (a numeric attribute over whole days,
months or years).  Numeric and date attributes hold their bounds as numbers, never None, so code that
narrows with ``isinstance`` reads them typed (docs/decisions.md, "Attribute kinds as classes").

Leaf codes: categories in order, or bins 0..b−1 then the special values in declared order; the
missing code last.  Decoding codes into values is :mod:`decoding`'s; schema files are
:mod:`serialisation`'s.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from privbayes.core.errors import InputError
from privbayes.core.limits import limits
from privbayes.schema.dates import date_ordinal, date_text
from privbayes.schema.dtypes import check_category_dtype, check_date_dtype, check_dtype, check_number_dtype
from privbayes.schema.taxonomy import Taxonomy, binary_tree_levels, depth, leaves, taxonomy_levels

Kind = Literal["categorical", "numeric", "binary", "date"]
NUMERIC_KINDS = ("numeric", "date")
Scale = Literal["linear", "log"]
Granularity = Literal["day", "month", "year"]
MissingPolicy = Literal["refuse", "category"]
InvalidPolicy = Literal["refuse", "clip", "category"]

MISSING_LABEL = "<missing>"
DEFAULT_BINS = 16
MAX_DECIMALS = 12


@dataclass(frozen=True)
class Attribute:
    """One column of the public domain, validated on construction (sizes capped first).

    Written in a schema file as one entry of ``attributes`` (the user guide's Schemas page); every bad
    value is a one-line InputError naming the attribute.

    Constructing ``Attribute`` gives the class of the attribute's kind (:class:`CategoricalAttribute`,
    :class:`NumericAttribute`, :class:`DateAttribute`); the fields are the same for every kind, so schema
    files and equality are unchanged.  Narrow with ``isinstance`` to read a numeric attribute's bounds typed.

    Parameters
    ----------
    name : str
        The column's name in the data.
    kind : {"categorical", "binary", "numeric", "date"}
        Categories, two categories, numbers in bins, or ISO dates in bins of days, months or years.
    categories : tuple
        The ordered categories (categorical and binary attributes).
    lower, upper : float or str, optional
        Public bounds of a numeric attribute (ISO dates for a date attribute); not with ``edges``.
    bins : int, default 16
        Number of bins between the bounds.
    integer : bool, default False
        Numbers are whole (sampled values are rounded to integers).
    taxonomy : nested list, optional
        A generalisation hierarchy over the categories (its leaves are exactly the categories).
    missing : {"refuse", "category"}, default "refuse"
        Refuse missing values, or give them a code of their own.
    invalid : {"refuse", "clip", "category"}, default "refuse"
        What an invalid value does: stop the run, go to the nearest bound (numbers), or to the missing code.
    missing_token : str, optional
        A field spelt so is missing (e.g. ``"?"``).
    special_values : tuple
        Values with a leaf code of their own beside the bins (sentinels, point masses), decoded exactly.
    edges : tuple of float, optional
        Explicit public bin edges (they give ``bins``).
    scale : {"linear", "log"}, default "linear"
        Equal-width bins in the value, or in log(1 + x − lower).
    decimals : int, optional
        Sampled numbers are rounded to this many decimals.
    granularity : {"day", "month", "year"}, optional
        A date attribute's unit (default day).
    dtype : str, optional
        The pandas dtype sampled values come back in.
    ordered : bool, default False
        With ``dtype: category``, an ordered categorical.
    """

    name: str
    kind: Kind
    categories: tuple[Any, ...] = ()
    lower: float | None = None
    upper: float | None = None
    bins: int = DEFAULT_BINS
    integer: bool = False
    taxonomy: Taxonomy | None = None
    missing: MissingPolicy = "refuse"
    invalid: InvalidPolicy = "refuse"
    missing_token: str | None = None
    special_values: tuple[float, ...] = ()
    edges: tuple[float, ...] | None = None
    scale: Scale = "linear"
    decimals: int | None = None
    granularity: Granularity | None = None
    dtype: str | None = None
    """The pandas dtype sampled values come back in (:mod:`privbayes.schema.dtypes`); None: the default."""
    ordered: bool = False
    """With ``dtype: category``: an ordered categorical (categories in declared order)."""
    levels: tuple[np.ndarray, ...] = field(init=False, repr=False, compare=False)

    def __new__(cls, *args: Any, **kwargs: Any) -> Attribute:
        """The class of the attribute's kind (``kind``, the second argument); an unknown kind is refused by
        validation."""
        if cls is Attribute:
            kind = kwargs["kind"] if "kind" in kwargs else args[1] if len(args) > 1 else None
            cls = _KINDS.get(kind, Attribute) if isinstance(kind, str) else Attribute
        return object.__new__(cls)

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
        expected = _KINDS.get(self.kind) if isinstance(self.kind, str) else None
        if expected is not None and type(self) is not expected:
            raise InputError(f"schema: {where}: a {type(self).__name__} cannot be of kind {self.kind!r}; "
                             "build it as Attribute(name, kind, ...)")
        self._check_kind(where)
        check_dtype(self.kind, self.dtype, self.ordered, self.missing, where)
        if self.dtype is not None:
            self._check_dtype_values(self.dtype, where)
        object.__setattr__(self, "levels", self._build_levels())

    def _check_kind(self, where: str) -> None:
        """The kind's own fields (each kind's class checks its own; a plain Attribute has an unknown kind)."""
        raise InputError(f"schema: {where}: kind must be categorical, numeric, binary or date, got {self.kind!r}")

    def _check_dtype_values(self, dtype: str, where: str) -> None:
        """The declared values ``dtype`` must hold (each kind's class checks its own)."""

    @property
    def numeric(self) -> bool:
        """Numeric or date: bins (and special values) rather than categories."""
        return self.kind in NUMERIC_KINDS

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


class CategoricalAttribute(Attribute):
    """A categorical or binary attribute: its categories in declared order, optionally a taxonomy."""

    def _check_kind(self, where: str) -> None:
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

    def _check_dtype_values(self, dtype: str, where: str) -> None:
        check_category_dtype(dtype, self.categories, where)


class NumericAttribute(Attribute):
    """A numeric attribute: public bins over [lower, upper] (equal-width, log-spaced or declared edges) and
    special values with a leaf code of their own; the bounds are numbers, never None."""

    lower: float
    upper: float

    def _check_kind(self, where: str) -> None:
        if self.kind == "numeric" and self.granularity is not None:
            raise InputError(f"schema: {where}: granularity is for date attributes")
        if self.edges is not None:
            self._check_edges(self.edges, where)
        for bound, value in (("lower", self.lower), ("upper", self.upper)):
            if not _finite_number(value):
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
            raise InputError(f"schema: {where}: numeric attributes get their taxonomy from their bins; "
                             "remove 'taxonomy'")
        if self.scale not in ("linear", "log"):
            raise InputError(f"schema: {where}: scale must be linear or log, got {self.scale!r}")
        if self.scale == "log" and self.edges is not None:
            raise InputError(f"schema: {where}: give either edges or scale: log, not both")
        if self.decimals is not None and (not isinstance(self.decimals, int) or isinstance(self.decimals, bool)
                                          or not 0 <= self.decimals <= MAX_DECIMALS):
            raise InputError(f"schema: {where}: decimals must be an integer in [0, {MAX_DECIMALS}], "
                             f"got {self.decimals!r}")
        self._check_special_values(where)

    def _check_edges(self, edges: Any, where: str) -> None:
        if not isinstance(edges, tuple) or len(edges) > limits().max_bins + 1:
            raise InputError(f"schema: {where}: edges must be a list of at most {limits().max_bins + 1} numbers "
                             "(PRIVBAYES_MAX_BINS)")
        if len(edges) < 2 or not all(_finite_number(e) for e in edges):
            raise InputError(f"schema: {where}: edges must be at least 2 finite numbers")
        if any(b <= a for a, b in zip(edges, edges[1:])):
            raise InputError(f"schema: {where}: edges must be strictly increasing")
        for bound, value, edge in (("lower", self.lower, edges[0]), ("upper", self.upper, edges[-1])):
            if value is not None and value != edge:
                raise InputError(f"schema: {where}: {bound} ({value}) differs from the edges; "
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
        if not all(_finite_number(v) for v in values):
            raise InputError(f"schema: {where}: special_values must be finite numbers")
        if len(set(values)) != len(values):
            raise InputError(f"schema: {where}: special_values must be unique")

    def _check_dtype_values(self, dtype: str, where: str) -> None:
        check_number_dtype(dtype, self.integer, self.lower, self.upper, self.special_values, where)

    # --- the public bins (TODS 2017 §3 discretises numbers into a public domain; docs/decisions.md) -----------

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

    def bin_bounds(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lower and upper edge of each bin code's bin."""
        if self.edges is None and self.scale == "linear":
            step = (self.upper - self.lower) / self.bins
            low = self.lower + codes * step
            return low, low + step
        edges = self.bin_edges()
        return edges[codes], edges[codes + 1]

    def bin_labels(self, digits: int = 4) -> list[str]:
        """Display labels of the leaf codes of values: ``[lo, hi)`` per bin, then the special values."""
        edges = self.bin_edges()
        labels = [f"[{a:.{digits}g}, {b:.{digits}g})" for a, b in zip(edges, edges[1:])]
        return labels + [f"={v:g}" for v in self.special_values]


class DateAttribute(NumericAttribute):
    """A numeric attribute over whole days, months or years (``granularity``): ISO bounds and special values
    in schema files, held as ordinals (:func:`privbayes.schema.dates.date_ordinal`), written back as ISO text."""

    granularity: Granularity

    def _check_kind(self, where: str) -> None:
        if self.granularity is None:
            object.__setattr__(self, "granularity", "day")
        if self.granularity not in ("day", "month", "year"):
            raise InputError(f"schema: {where}: granularity must be day, month or year, got {self.granularity!r}")
        for bound, value in (("lower", self.lower), ("upper", self.upper)):
            ordinal = date_ordinal(value, self.granularity) if isinstance(value, (str, datetime.date)) else None
            if ordinal is None:
                raise InputError(f"schema: {where}: date attributes need an ISO date as {bound} bound "
                                 f"(YYYY-MM-DD), got {value!r}")
            object.__setattr__(self, bound, ordinal)
        if self.edges is not None or self.scale != "linear" or self.decimals is not None:
            raise InputError(f"schema: {where}: date attributes take lower, upper, bins, granularity and "
                             "special_values only")
        values = self.special_values
        if isinstance(values, tuple) and len(values) <= limits().max_bins:  # else refused as any special_values
            ordinals = [date_ordinal(v, self.granularity) if isinstance(v, (str, datetime.date)) else None
                        for v in values]
            if any(x is None for x in ordinals):
                raise InputError(f"schema: {where}: the special_values of a date attribute must be ISO dates "
                                 f"(YYYY-MM-DD at {self.granularity} granularity)")
            object.__setattr__(self, "special_values", tuple(ordinals))
        object.__setattr__(self, "integer", True)
        super()._check_kind(where)
        if self.bins > self.upper - self.lower + 1:  # at most one bin per day/month/year
            object.__setattr__(self, "bins", int(self.upper - self.lower + 1))

    def _check_dtype_values(self, dtype: str, where: str) -> None:
        check_date_dtype(dtype, self.lower, self.upper, self.granularity, where)

    def bin_labels(self, digits: int = 4) -> list[str]:
        """Display labels ``[first day, first day after)`` per bin, then the special values, as ISO text
        (``digits`` is for numbers)."""
        edges = self.bin_edges()
        labels = [f"[{date_text(math.ceil(a), self.granularity)}, {date_text(math.ceil(b), self.granularity)})"
                  for a, b in zip(edges, edges[1:])]
        return labels + [f"={date_text(v, self.granularity)}" for v in self.special_values]


_KINDS: dict[str, type[Attribute]] = {"categorical": CategoricalAttribute, "binary": CategoricalAttribute,
                                      "numeric": NumericAttribute, "date": DateAttribute}
"""The class ``Attribute(name, kind, ...)`` builds for each kind."""


def _finite_number(value: Any) -> bool:
    """A finite int or float (not a boolean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
