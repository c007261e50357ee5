"""Drafting a schema from the private data — NOT private: the draft reveals the data.

Only on request (``privbayes schema infer``, ``fit --infer-schema``).  It lives in the
counting layer because it reads private rows.  The draft always comes out, one
proposal per column with the reason as a YAML comment and a ``QUESTION`` only where the
answer changes the model (special values, numbers taken as categories — not a 0/1 column —,
identifiers, dropped text; docs/decisions.md, "Schema drafts: exact spelling, outward rounding,
point masses"):

* identifiers (every value distinct, or an ``id``-like name) and empty columns are
  proposed as dropped (the schema's ``drop:`` list); an identifier is listed with the kind of
  key ``sample --keep-ids`` regenerates for it (``integer``, ``uuid`` or ``text``);
* high-cardinality text is proposed as dropped, with the generalisation alternative;
* ISO dates become ``kind: date`` with bounds widened to whole years, a date holding a large
  share as a special date (as numbers, below);
* numbers with few distinct values become categories; other numbers become
  ``kind: numeric`` with bounds rounded outward on a 1-2-5 grid
  (:func:`privbayes.schema.rounding.outward_bounds`: never a non-round minimum or maximum of
  the data), their precision (``integer``/``decimals``), point
  masses and sentinels as ``special_values`` (a value holding at least :data:`POINT_MASS_SHARE`
  of the column and :data:`POINT_MASS_RATIO` times a typical value's share, at most
  :data:`MAX_SPECIAL_VALUES`; the bins then number ``2·bins·(share of the other values)``, at
  least :data:`MIN_BINS`, so that the few rows left for them are not swamped by noise in every
  empty cell), and ``scale: log`` when the values are non-negative, span two orders of magnitude
  and half of them sit in the first tenth of the range.

**The draft fits its own data.**  Every number is written exactly (the shortest spelling that
parses back to the same float, as YAML writes a float), read the way ``fit`` reads it
(:mod:`privbayes.counting.labels`: a typed column's own float64 values, text parsed as decimal
numbers), so ``fit`` accepts the unedited draft of the same CSV, Parquet file or DataFrame on every
back-end.  A float column with ±inf gets ``invalid: clip``; numbers beyond ±1e300 are dropped.

``metadata`` (SDV single-table metadata, :mod:`privbayes.schema.sdv`) replaces the guessed
type of the columns it declares: numerical, categorical or boolean, datetime, a key (dropped as an
identifier), personal or other data (dropped).

Every kept column records the type it went in with (docs/decisions.md, "What goes in comes out"): the ``dtype`` of a
DataFrame's column or of a Parquet column (:mod:`privbayes.counting.coltypes`; ``ordered: true`` for an ordered
``category``), so that sampled columns come back with it.  A CSV carries no types: its columns get
no ``dtype`` (except time stamps, below) and are written back as text.  Categories are spelled one
way per column: the values in their own type (bools, ints, floats: ``[0.0, 1.0, 5.5]``, never
``['0.0', 1, '5.5']``), the categories of a pandas ``category`` in their order, the text of a text
column as it is; in a CSV, numbers without leading zeros become ints when every one is whole, else
floats, and anything else stays text.  Bools get both categories ``[false, true]`` (a boolean's
domain is public).  Time stamps (``datetime64`` columns, and CSV text with a time of day) become
``kind: date`` at day granularity with their dtype (unit and time zone): the time of day is not kept.

The draft is marked ``inferred: true``; while the mark stays, ``fit`` warns and the
privacy report says the domain was read from the data.  The same data give the same
draft (no randomness; every list in a fixed order).  Messages name columns only.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import yaml

from privbayes.core.errors import InputError
from privbayes.counting.coltypes import TEXT_COLUMN, ColumnType, file_types, frame_type, python_value
from privbayes.counting.labels import NUMBER
from privbayes.counting.reading import read_frame
from privbayes.counting.source import check_source
from privbayes.schema import DEFAULT_BINS, Schema, date_ordinal, date_text
from privbayes.schema.dtypes import nullable_twin
from privbayes.schema.rounding import outward_bounds
from privbayes.schema.sdv import read_sdv_metadata

POINT_MASS_SHARE = 0.02
POINT_MASS_RATIO = 3
MAX_MAGNITUDE = 1e300
MAX_DRAFT_DECIMALS = 6
MAX_SPECIAL_VALUES = 8
MIN_ROWS_FOR_ID = 20
MIN_BINS = 2
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?")
_TIME_OF_DAY = re.compile(r"[T ]\d{2}:\d{2}")
_UUID = re.compile(r"(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NUMBER_TEXT = re.compile(NUMBER)
_INTEGER_TEXT = re.compile(r"[+-]?\d+")
_LEADING_ZERO = re.compile(r"[+-]?0\d")
_OTHER_DATE = re.compile(r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}")
_ID_NAME = re.compile(r"(?i)(^|[_\s.-])(id|uuid|guid|key)$|^id[_\s.-]")

SPECIAL_QUESTION = ("are the special values sentinels or real point masses of the public domain? Keep them, or "
                    "remove them to bin them like the rest.")
HEADER = ("# privbayes schema DRAFT, read from the private data: NOT covered by epsilon.\n"
          "# Review every column: replace bounds and categories with public knowledge, answer the\n"
          "# QUESTIONs, then delete the line 'inferred: true' (while it stays, fit warns and the privacy\n"
          "# report says the domain was taken from the data).\n")


@dataclass(frozen=True)
class ColumnProposal:
    """What the draft proposes for one column: an attribute (or None: dropped), why, and a question;
    a dropped identifier also the kind of key that ``--keep-ids`` regenerates for it."""

    name: str
    attribute: dict[str, Any] | None
    reason: str
    question: str | None = None
    identifier: str | None = None

    def drop_entry(self) -> str | dict[str, str]:
        """The column's entry under ``drop:``: its name, or ``{name, identifier}`` for an identifier."""
        return self.name if self.identifier is None else {"name": self.name, "identifier": self.identifier}


@dataclass(frozen=True)
class Draft:
    """A schema draft: one proposal per column of the data, in the data's order."""

    proposals: tuple[ColumnProposal, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "inferred": True,
                "attributes": [p.attribute for p in self.proposals if p.attribute is not None],
                "drop": [p.drop_entry() for p in self.proposals if p.attribute is None]}

    def schema(self) -> Schema:
        """The draft as a :class:`Schema` (``inferred`` set); refused if fewer than 2 columns are kept."""
        return Schema.from_dict(self.to_dict(), source="schema draft")

    def to_yaml(self) -> str:
        """The draft as commented YAML: each column's reason (and question) above its entry."""
        parts = [HEADER, "version: 1\ninferred: true\nattributes:\n"]
        for p in self.proposals:
            if p.attribute is not None:
                parts.append(_comment(p) + yaml.safe_dump([p.attribute], sort_keys=False, allow_unicode=True,
                                                          default_flow_style=None, width=100))
        dropped = [p for p in self.proposals if p.attribute is None]
        parts.append("drop:" + ("\n" if dropped else " []\n"))
        for p in dropped:
            flow = None if p.identifier is not None else False  # "- {name: id, identifier: integer}" or "- note"
            parts.append(_comment(p) + yaml.safe_dump([p.drop_entry()], sort_keys=False, allow_unicode=True,
                                                      default_flow_style=flow, width=100))
        return "".join(parts)


def _comment(p: ColumnProposal) -> str:
    lines = [f"# {p.name}: {p.reason}"] + ([f"#   QUESTION: {p.question}"] if p.question else [])
    return "\n".join(line.replace("\n", " ") for line in lines) + "\n"


def draft_schema(data: Any, max_categories: int = 64, bins: int = DEFAULT_BINS,
                 metadata: str | os.PathLike[str] | Mapping[str, Any] | None = None) -> Draft:
    """A draft for every column of ``data`` (a DataFrame, a path or a TableFile).  NOT private.

    ``metadata``: SDV single-table metadata (a JSON file or its mapping, :mod:`privbayes.schema.sdv`)
    whose column types and keys replace the draft's guesses; the domain still comes from the data."""
    declared = read_sdv_metadata(metadata) if metadata is not None else {}
    where = str(metadata) if isinstance(metadata, (str, os.PathLike)) else "metadata"
    check_source(data)
    if isinstance(data, pd.DataFrame):
        frame, types = data, {name: frame_type(data[name]) for name in data.columns}
    else:
        frame, types = read_frame(data, None), file_types(data)
    unknown = [name for name in declared if name not in {str(c) for c in frame.columns}]
    if unknown:
        raise InputError(f"{where}: column {unknown[0]!r} is not a column of the data")
    return Draft(tuple(_propose(str(name), frame[name], types.get(name, TEXT_COLUMN), max_categories, bins,
                                declared.get(str(name))) for name in frame.columns))


def infer_schema(data: Any, max_categories: int = 64, bins: int = DEFAULT_BINS,
                 metadata: str | os.PathLike[str] | Mapping[str, Any] | None = None) -> Schema:
    """A schema drafted from the data itself: NOT private (docs/decisions.md, "Schema drafts: exact spelling,
    outward rounding, point masses").

    The schema is marked ``inferred``: a fit on it warns, and its privacy report says the domain was read
    from the data and is not covered by ε.  Review it (``privbayes schema infer`` writes it commented) or
    release it privately with :func:`privbayes.private_draft`.

    Parameters
    ----------
    data : pandas.DataFrame or str or os.PathLike
        The table: a DataFrame, or a CSV (possibly compressed), Parquet or ``.dat`` path.
    max_categories : int, default 64
        Columns with more distinct values are not proposed as categorical.
    bins : int, default 16
        Bins of each numeric attribute.
    metadata : str or os.PathLike or Mapping, optional
        SDV single-table metadata (a JSON file or its mapping) whose column types and keys replace the
        draft's guesses; bounds and categories still come from the data.

    Returns
    -------
    Schema
        One attribute per kept column (identifiers and free text under ``drop``), ``inferred`` set.
    """
    return draft_schema(data, max_categories, bins, metadata).schema()


# --- one column -------------------------------------------------------------------------------------

def _propose(name: str, column: pd.Series, typed: ColumnType, max_categories: int, bins: int,
             sdtype: str | None = None) -> ColumnProposal:
    text = column.astype(object).where(column.notna(), "").astype(str).str.strip()
    present = text[text != ""]
    if sdtype in ("pii", "other"):
        return ColumnProposal(name, None, f"'{sdtype}' in the metadata (data the model leaves out): dropped")
    if len(present) == 0:
        return ColumnProposal(name, None, "every field is empty: dropped")
    missing = "category" if len(present) < len(text) else "refuse"
    c = _Column(name, column, present, typed, missing, "; has empty fields (missing: category)"
                if missing == "category" else "", _nullable_if(typed.dtype, missing))
    if sdtype is not None:
        return _declared(c, sdtype, max_categories, bins)
    if typed.family == "bool" or (typed.family == "category" and typed.categories
                                  and len(typed.categories) <= max_categories):
        return _categories(c, max_categories) or _not_categorical(c, max_categories)  # the former, always
    if typed.family in ("datetime", "date"):
        return _dates(c, bins)
    distinct = present.nunique()
    numeric = bool(present.str.fullmatch(NUMBER).all()) and typed.family != "category"
    id_like = len(present) >= MIN_ROWS_FOR_ID and (distinct == len(present) or
                                                    (_ID_NAME.search(name) and distinct >= 0.9 * len(present)))
    infinite = typed.family == "float" and bool(np.isinf(column.dropna().to_numpy(dtype=np.float64)).any())
    if infinite or (numeric and distinct > max_categories // 4):
        if id_like and not infinite and bool(np.all(np.mod(_numbers(c), 1) == 0)):
            key = "text" if typed.family == "text" else "integer"
            return ColumnProposal(name, None, "whole numbers, (almost) all distinct: looks like an identifier, "
                                  f"dropped (sample --keep-ids regenerates it as {key} keys 1..n)",
                                  "keep it? Then declare it under attributes (kind: numeric).", key)
        return _numeric(c, bins)
    if not numeric and bool(present.str.fullmatch(_ISO_DATE.pattern).all()):
        return _dates(c, bins)
    categorical = _categories(c, max_categories)
    if categorical is not None:
        return categorical
    if id_like:
        return _identifier(c, "text, (almost) all values distinct: looks like an identifier")
    return _not_categorical(c, max_categories)


@dataclass(frozen=True)
class _Column:
    """One column of the data as the proposals read it: its present values as stripped text, its
    type, and the missing policy, note and dtype already chosen."""

    name: str
    column: pd.Series
    present: pd.Series
    typed: ColumnType
    missing: str
    note: str
    dtype: str | None


def _declared(c: _Column, sdtype: str, max_categories: int, bins: int) -> ColumnProposal:
    """The proposal for a column whose type the SDV metadata declares (:mod:`privbayes.schema.sdv`)."""
    if sdtype == "id":
        return _identifier(c, "a key in the metadata")
    if sdtype == "datetime":
        iso = c.typed.family in ("datetime", "date") or bool(c.present.str.fullmatch(_ISO_DATE.pattern).all())
        return _dates(c, bins) if iso else _not_categorical(c, max_categories)
    if sdtype == "numerical":
        if c.typed.family in ("int", "float") or bool(c.present.str.fullmatch(NUMBER).all()):
            return _numeric(c, bins)
        return ColumnProposal(c.name, None, "numerical in the metadata, but not every value is a number: dropped",
                              "fix the values or the metadata, or declare the column by hand.")
    return _categories(c, max_categories) or _not_categorical(c, max_categories)


def _categories(c: _Column, max_categories: int) -> ColumnProposal | None:
    """Booleans, a pandas category, or at most ``max_categories`` distinct values as categories; else None."""
    if c.typed.family == "bool":
        return _categorical(c.name, [False, True], "values (booleans)", c.missing, c.note, c.dtype)
    if c.typed.family == "category" and c.typed.categories and len(c.typed.categories) <= max_categories:
        what = f"categories of an {'ordered' if c.typed.ordered else 'unordered'} pandas category, in its order"
        return _categorical(c.name, list(c.typed.categories), what, c.missing, c.note, "category", c.typed.ordered)
    counts = c.present.value_counts(sort=False)
    if len(counts) > max_categories:
        return None
    if c.typed.family in ("int", "float"):
        numbers = [python_value(v) for v in c.column.dropna().unique()]
        return _categorical(c.name, sorted(set(numbers)), "distinct numbers", c.missing, c.note, c.dtype)
    if c.typed.family is None:
        return _categorical(c.name, _spelled(list(counts.index)), "distinct values", c.missing, c.note, None)
    return _categorical(c.name, sorted(counts.index, key=_natural_key), "distinct values", c.missing, c.note,
                        c.dtype)


def _identifier(c: _Column, why: str) -> ColumnProposal:
    """A dropped identifier with the kind of key ``--keep-ids`` regenerates for it."""
    if c.typed.family == "int" or (c.typed.family is None and bool(c.present.str.fullmatch(r"[+-]?\d+").all())):
        key = "integer"
    else:
        key = "uuid" if bool(c.present.str.fullmatch(_UUID).all()) else "text"
    return ColumnProposal(c.name, None, f"{why}, dropped (sample --keep-ids regenerates it as {key} keys)", None, key)


def _not_categorical(c: _Column, max_categories: int) -> ColumnProposal:
    """Text that is neither dates nor few categories: dropped, with the way to keep it."""
    if bool(c.present.str.fullmatch(_OTHER_DATE.pattern).all()):
        return ColumnProposal(c.name, None, "dates in a non-ISO format: dropped",
                              "to keep it, rewrite the dates as YYYY-MM-DD and declare kind: date "
                              "(lower, upper, granularity: day/month/year).")
    return ColumnProposal(c.name, None, f"text with {c.present.nunique()} distinct values (more than "
                          f"{max_categories}): dropped",
                          "drop it, or generalise it: list its most frequent values as categories and set "
                          "'invalid: category' and 'missing: category' to map the others to <missing>.")


def _categorical(name: str, categories: list[Any], what: str, missing: str, note: str, dtype: str | None,
                 ordered: bool = False) -> ColumnProposal:
    kind = "binary" if len(categories) == 2 else "categorical"
    attribute: dict[str, Any] = {"name": name, "kind": kind, "categories": categories}
    if dtype is not None:
        attribute["dtype"] = dtype
    if ordered:
        attribute["ordered"] = True
    attribute["missing"] = missing
    numbers = all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in categories)
    question = ("these are numbers with few distinct values, taken as categories; if they are amounts, "
                "declare kind: numeric with public bounds." if numbers and len(categories) > 2 else None)
    return ColumnProposal(name, attribute, f"{len(categories)} {what}: {kind}{note}", question)


def _numeric(c: _Column, bins: int) -> ColumnProposal:
    name, missing, note, dtype = c.name, c.missing, c.note, c.dtype
    values = _numbers(c)
    infinite = bool(np.isinf(values).any()) and c.typed.family == "float"
    values = values[np.isfinite(values)] if infinite else values
    if not len(values) or not np.all(np.abs(values) <= MAX_MAGNITUDE):
        return ColumnProposal(name, None, f"numbers beyond ±{MAX_MAGNITUDE:g}, too large to bin: dropped",
                              "to keep it, declare it with public bounds (or rescale it first).")
    integer = bool(np.all(np.mod(values, 1) == 0))
    if integer and not bool(np.all(np.abs(values) < 2**53)):  # float64 (as fit reads them) is not exact there
        integer = False
        dtype = ("Float64" if dtype[0] in "IU" else "float64") if dtype and "int" in dtype.lower() else dtype
        reasons_big = ["whole numbers beyond 2^53 are modelled as float64 (not exact there)"]
    else:
        reasons_big = []
    specials, held = _point_masses(values)
    rest = values[~np.isin(values, specials)] if specials else values
    rest = rest if len(rest) else values
    lower, upper = outward_bounds(float(rest.min()), float(rest.max()), integer)
    if dtype is not None and dtype.lower().lstrip("u").startswith("int"):  # stay inside the integer dtype's range
        info = np.iinfo(dtype.lower())
        lower, upper = max(lower, float(info.min)), min(upper, float(info.max))
    reasons = [f"numbers; bounds rounded outward from the data's range to {_plain(lower)}..{_plain(upper)}",
               *reasons_big]
    bins = _fewer_bins(bins, held, reasons)
    attribute: dict[str, Any] = {"name": name, "kind": "numeric", "lower": _plain(lower), "upper": _plain(upper),
                                 "bins": bins, "integer": integer}
    if not integer:
        decimals = max(_decimals(float(v)) for v in np.unique(values))
        if decimals <= MAX_DRAFT_DECIMALS:  # more digits than that: sampled values keep full precision
            attribute["decimals"] = decimals
    if rest.min() >= 0 and upper >= 100 * max(lower, 1) and np.median(rest) - lower < (upper - lower) / 10:
        attribute["scale"] = "log"
        reasons.append("most values sit near the lower bound, so bins are log-spaced (scale: log)")
    question = None
    if specials:
        attribute["special_values"] = [_plain(v) for v in specials]
        reasons.append(f"{len(specials)} special value(s) holding {held:.0%} of the values, sampled exactly")
        question = SPECIAL_QUESTION
    if dtype is not None:
        attribute["dtype"] = dtype
    attribute["missing"] = missing
    if infinite:  # ±inf is no number of a domain: clipped to the nearest bound, row by row
        attribute["invalid"] = "clip"
        reasons.append("infinite values are clipped to the bounds (invalid: clip)")
        question = question or "are the infinite values real? 'invalid: clip' sends them to the nearest bound."
    return ColumnProposal(name, attribute, "; ".join(reasons) + note, question)


def _point_masses(values: np.ndarray) -> tuple[list[float], float]:
    """The values proposed as special, in increasing order, and the share of rows they hold: each
    holds at least :data:`POINT_MASS_SHARE` of the column and :data:`POINT_MASS_RATIO` times the
    median share of its distinct values (a typical value's share, against which a point mass stands
    out; a uniform integer column has none), the :data:`MAX_SPECIAL_VALUES` heaviest at most."""
    uniques, counts = np.unique(values, return_counts=True)
    shares = counts / len(values)
    order = np.argsort(-counts, kind="stable")  # heaviest first; ties in increasing value
    typical = float(np.median(shares))
    heavy = [int(i) for i in order[:MAX_SPECIAL_VALUES]
             if shares[i] >= POINT_MASS_SHARE and shares[i] >= POINT_MASS_RATIO * typical]
    return sorted(float(uniques[i]) for i in heavy), float(shares[heavy].sum())


def _fewer_bins(bins: int, held: float, reasons: list[str]) -> int:
    """Bins for the values that are not special: ``2·bins·(their share)``, at least :data:`MIN_BINS`, so that
    the few rows left for them are not swamped by noise in every empty cell."""
    if held == 0:
        return bins
    fewer = max(MIN_BINS, min(bins, math.ceil(2 * bins * (1 - held))))
    reasons.append(f"{fewer} bins for the {1 - held:.0%} of values that are not special")
    return fewer


def _numbers(c: _Column) -> np.ndarray:
    """The column's numbers as fit reads them (:mod:`privbayes.counting.labels`): a typed column's own
    values as float64 (a float32 0.1 stays 0.10000000149011612), text parsed as decimal numbers."""
    numbers = c.column.dropna() if c.typed.family in ("int", "float") else pd.to_numeric(c.present)
    return np.asarray(numbers.to_numpy(dtype=np.float64))


def _dates(c: _Column, bins: int) -> ColumnProposal:
    name, missing, note, dtype = c.name, c.missing, c.note, c.dtype
    if c.typed.family is None and bool(c.present.str.contains(_TIME_OF_DAY).all()):
        dtype = _stamp_dtype(c.present)  # a CSV's time stamps: written back as time stamps
    counts = c.present.value_counts(sort=False)
    texts = counts.index
    ordinals = np.array([date_ordinal(t, "day") for t in texts], dtype=np.float64)  # NaN: not a date
    days = sorted(float(x) for x in ordinals[~np.isnan(ordinals)]) or [0.0]
    granularity = "month" if all(t[8:10] == "01" for t in texts) else "day"
    known = ~np.isnan(ordinals)
    specials, held = _point_masses(np.repeat(ordinals[known], counts.to_numpy()[known])) if known.any() else ([], 0)
    first = str(np.datetime64("1970-01-01") + np.timedelta64(int(days[0]), "D"))[:4]
    last = str(np.datetime64("1970-01-01") + np.timedelta64(int(days[-1]), "D"))[:4]
    attribute: dict[str, Any] = {"name": name, "kind": "date", "lower": f"{first}-01-01", "upper": f"{last}-12-31",
                                 "bins": bins, "granularity": granularity}
    reasons = [f"ISO dates; bounds widened to whole years {first}..{last}",
               f"granularity {granularity} (month or year coarsen it)"]
    attribute["bins"] = _fewer_bins(bins, held, reasons)
    if specials:
        attribute["special_values"] = [date_text(x, "day") for x in specials]
        reasons.append(f"{len(specials)} special date(s) holding {held:.0%} of the values, sampled exactly")
    reason = "; ".join(reasons) + note
    if dtype is not None:
        attribute["dtype"] = dtype
        if dtype.startswith("datetime64") and not all(_midnight(t) for t in texts):
            reason += "; time stamps: the time of day is not kept (midnight)"
    attribute["missing"] = missing
    return ColumnProposal(name, attribute, reason, SPECIAL_QUESTION if specials else None)
# --- helpers ----------------------------------------------------------------------------------------

def _decimals(x: float) -> int:
    """Digits after the decimal point in the shortest spelling of x (``repr``): 0.25 → 2, 1e-05 → 5."""
    exponent = Decimal(repr(x)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _plain(x: float) -> int | float:
    """A number as YAML shows it best and exactly: an int when whole, else the float itself (YAML
    writes its shortest round-trip spelling), so that a special value read back is the data's value."""
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


def _spelled(texts: list[str]) -> list[Any]:
    """The categories of a text column (CSV), one spelling for the column: all numbers without
    leading zeros become ints when every one is whole (``1.0`` is 1), else floats (``[0.0, 1.0, 5.5]``);
    otherwise every category stays text as written."""
    numbers = all(_NUMBER_TEXT.fullmatch(t) and not _LEADING_ZERO.match(t) for t in texts)
    if not numbers:
        return sorted(set(texts), key=_natural_key)
    values = [float(t) for t in texts]
    if all(v.is_integer() for v in values):
        return sorted({int(t) if _INTEGER_TEXT.fullmatch(t) else int(v) for t, v in zip(texts, values)})
    return sorted(set(values))


def _nullable_if(dtype: str | None, missing: str) -> str | None:
    """A dtype that can hold the missing values a column has (``bool`` → ``boolean``, ``int64`` → ``Int64``)."""
    return nullable_twin(dtype) if dtype is not None and missing == "category" else dtype


def _stamp_dtype(texts: pd.Series) -> str | None:
    """The dtype of time stamps written as text (a CSV): UTC when every one ends in Z or +00:00,
    naive when none has an offset, else None (mixed offsets: written back as ISO dates)."""
    if bool(texts.str.contains(r"(?:Z|[+-]00:?00)$").all()):
        return "datetime64[ns, UTC]"
    return None if bool(texts.str.contains(r"(?:Z|[+-]\d{2}:?\d{2})$").any()) else "datetime64[ns]"


def _midnight(text: str) -> bool:
    match = re.search(r"[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?", text)
    return match is None or all(int(part or 0) == 0 for part in match.groups())


def _natural_key(label: str) -> tuple[Any, ...]:
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)
