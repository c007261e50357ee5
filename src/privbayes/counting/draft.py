"""Drafting a schema from the private data — NOT private: the draft reveals the data.

Only on request (``privbayes schema infer``, ``fit --infer-schema``).  It lives in the
counting layer because it reads private rows.  The draft always comes out, one
proposal per column with the reason as a YAML comment and a ``QUESTION`` where the
rule is unsure (issue 16):

* identifiers (every value distinct, or an ``id``-like name) and empty columns are
  proposed as dropped (the schema's ``drop:`` list);
* high-cardinality text is proposed as dropped, with the generalisation alternative;
* ISO dates become ``kind: date`` with bounds widened to whole years;
* numbers with few distinct values become categories; other numbers become
  ``kind: numeric`` with bounds rounded outward to two significant digits (not the
  data's exact minimum and maximum), their precision (``integer``/``decimals``), heavy
  point masses and sentinels as ``special_values`` (a value holding at least
  :data:`POINT_MASS_SHARE` of the column and three times an average value's share;
  the bins then number ``2·bins·(share of the other values)``, at least :data:`MIN_BINS`,
  so that the few rows left for them are not swamped by noise in every empty cell),
  and ``scale: log`` when the values are non-negative, span two orders of magnitude and
  half of them sit in the first tenth of the range.

The draft is marked ``inferred: true``; while the mark stays, ``fit`` warns and the
privacy report says the domain was read from the data.  The same data give the same
draft (no randomness; every list in a fixed order).  Messages name columns only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import yaml

from privbayes.counting.labels import NUMBER
from privbayes.counting.reading import read_frame
from privbayes.schema import DEFAULT_BINS, Schema, date_ordinal

POINT_MASS_SHARE = 0.05
MAX_SPECIAL_VALUES = 8
MIN_ROWS_FOR_ID = 20
MIN_BINS = 2
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?")
_OTHER_DATE = re.compile(r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}")
_ID_NAME = re.compile(r"(?i)(^|[_\s.-])(id|uuid|guid|key)$|^id[_\s.-]")

HEADER = ("# privbayes schema DRAFT, read from the private data: NOT covered by epsilon.\n"
          "# Review every column: replace bounds and categories with public knowledge, answer the\n"
          "# QUESTIONs, then delete the line 'inferred: true' (while it stays, fit warns and the privacy\n"
          "# report says the domain was taken from the data).\n")


@dataclass(frozen=True)
class ColumnProposal:
    """What the draft proposes for one column: an attribute (or None: dropped), why, and a question."""

    name: str
    attribute: dict[str, Any] | None
    reason: str
    question: str | None = None


@dataclass(frozen=True)
class Draft:
    """A schema draft: one proposal per column of the data, in the data's order."""

    proposals: tuple[ColumnProposal, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "inferred": True,
                "attributes": [p.attribute for p in self.proposals if p.attribute is not None],
                "drop": [p.name for p in self.proposals if p.attribute is None]}

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
            parts.append(_comment(p) + yaml.safe_dump([p.name], allow_unicode=True))
        return "".join(parts)


def _comment(p: ColumnProposal) -> str:
    lines = [f"# {p.name}: {p.reason}"] + ([f"#   QUESTION: {p.question}"] if p.question else [])
    return "\n".join(line.replace("\n", " ") for line in lines) + "\n"


def draft_schema(data: Any, max_categories: int = 64, bins: int = DEFAULT_BINS) -> Draft:
    """A draft for every column of ``data`` (a DataFrame, a path or a TableFile).  NOT private."""
    frame = data if isinstance(data, pd.DataFrame) else read_frame(data, None)
    return Draft(tuple(_propose(str(name), frame[name], max_categories, bins) for name in frame.columns))


def infer_schema(data: Any, max_categories: int = 64, bins: int = DEFAULT_BINS) -> Schema:
    """The draft of :func:`draft_schema` as a Schema (marked inferred).  NOT private."""
    return draft_schema(data, max_categories, bins).schema()


# --- one column -------------------------------------------------------------------------------------

def _propose(name: str, column: pd.Series, max_categories: int, bins: int) -> ColumnProposal:
    text = column.astype(object).where(column.notna(), "").astype(str).str.strip()
    present = text[text != ""]
    if len(present) == 0:
        return ColumnProposal(name, None, "every field is empty: dropped")
    missing = "category" if len(present) < len(text) else "refuse"
    note = "; has empty fields (missing: category)" if missing == "category" else ""
    counts = present.value_counts(sort=False)
    distinct = len(counts)
    numeric = bool(present.str.fullmatch(NUMBER).all())
    id_like = len(present) >= MIN_ROWS_FOR_ID and (distinct == len(present) or
                                                    (_ID_NAME.search(name) and distinct >= 0.9 * len(present)))
    if numeric and distinct > max_categories // 4:
        values = pd.to_numeric(present).to_numpy(dtype=float)
        if id_like and bool(np.all(np.mod(values, 1) == 0)):
            return ColumnProposal(name, None, "whole numbers, (almost) all distinct: looks like an identifier, "
                                  "dropped", "keep it? Then declare it under attributes (kind: numeric).")
        return _numeric(name, present, values, missing, bins, note)
    if not numeric and bool(present.str.fullmatch(_ISO_DATE.pattern).all()):
        return _date(name, present, missing, bins, note)
    if distinct <= max_categories:
        return _categorical(name, counts, numeric, missing, note)
    if id_like:
        return ColumnProposal(name, None, "text, (almost) all values distinct: looks like an identifier, dropped")
    if bool(present.str.fullmatch(_OTHER_DATE.pattern).all()):
        return ColumnProposal(name, None, "dates in a non-ISO format: dropped",
                              "to keep it, rewrite the dates as YYYY-MM-DD and declare kind: date "
                              "(lower, upper, granularity: day/month/year).")
    return ColumnProposal(name, None, f"text with {distinct} distinct values (more than {max_categories}): dropped",
                          "drop it, or generalise it: list its most frequent values as categories and set "
                          "'invalid: category' and 'missing: category' to map the others to <missing>.")


def _categorical(name: str, counts: pd.Series, numeric: bool, missing: str, note: str) -> ColumnProposal:
    categories = sorted(set(_canonical_labels(counts.index)), key=_natural_key)
    kind = "binary" if len(categories) == 2 else "categorical"
    attribute = {"name": name, "kind": kind, "categories": [_typed(c) for c in categories], "missing": missing}
    question = ("these are numbers with few distinct values, taken as categories; if they are amounts, "
                "declare kind: numeric with public bounds." if numeric else None)
    return ColumnProposal(name, attribute, f"{len(categories)} distinct values: {kind}{note}", question)


def _numeric(name: str, present: pd.Series, values: np.ndarray, missing: str, bins: int,
             note: str) -> ColumnProposal:
    integer = bool(np.all(np.mod(values, 1) == 0))
    uniques, counts = np.unique(values, return_counts=True)
    shares = counts / len(values)
    heavy = (shares >= POINT_MASS_SHARE) & (shares >= 3 / len(uniques))
    order = np.argsort(-shares[heavy], kind="stable")[:MAX_SPECIAL_VALUES]
    specials = sorted(float(v) for v in uniques[heavy][order])
    rest = values[~np.isin(values, specials)] if specials else values
    rest = rest if len(rest) else values
    lower, upper = _round_down(float(rest.min())), _round_up(float(rest.max()))
    if not lower < upper:
        upper = lower + _magnitude(lower)
    reasons = [f"numbers; bounds rounded outward from the data's range to {_plain(lower)}..{_plain(upper)}"]
    rest_share = len(rest) / len(values) if specials else 1.0
    if rest_share < 1.0:  # few rows left for the bins: fewer bins, so that noise does not swamp them
        bins = max(MIN_BINS, min(bins, math.ceil(2 * bins * rest_share)))
        reasons.append(f"{bins} bins for the {rest_share:.0%} of values that are not special")
    attribute: dict[str, Any] = {"name": name, "kind": "numeric", "lower": _plain(lower), "upper": _plain(upper),
                                 "bins": bins, "integer": integer}
    questions = []
    if not integer:
        attribute["decimals"] = min(6, max(len(t.split(".")[1].split("e")[0].split("E")[0]) if "." in t else 0
                                           for t in present.unique()))
    if rest.min() >= 0 and upper >= 100 * max(lower, 1) and np.median(rest) - lower < (upper - lower) / 10:
        attribute["scale"] = "log"
        reasons.append("most values sit near the lower bound, so bins are log-spaced (scale: log)")
    if specials:
        attribute["special_values"] = [_plain(v) for v in specials]
        held = sum(float(shares[uniques == v][0]) for v in specials)
        reasons.append(f"special_values {[_plain(v) for v in specials]} hold {held:.0%} of the values and are "
                       "sampled exactly")
        questions.append("are the special values sentinels or real point masses of the public domain? Keep "
                         "them, or remove them to bin them like the rest.")
    attribute["missing"] = missing
    return ColumnProposal(name, attribute, "; ".join(reasons) + note, " ".join(questions) or None)


def _date(name: str, present: pd.Series, missing: str, bins: int, note: str) -> ColumnProposal:
    days = sorted(x for x in (date_ordinal(t, "day") for t in present.unique()) if x is not None) or [0.0]
    texts = present.unique()
    granularity = "month" if all(t[8:10] == "01" for t in texts) else "day"
    first = str(np.datetime64("1970-01-01") + np.timedelta64(int(days[0]), "D"))[:4]
    last = str(np.datetime64("1970-01-01") + np.timedelta64(int(days[-1]), "D"))[:4]
    attribute = {"name": name, "kind": "date", "lower": f"{first}-01-01", "upper": f"{last}-12-31",
                 "bins": bins, "granularity": granularity, "missing": missing}
    return ColumnProposal(name, attribute, f"ISO dates; bounds widened to whole years {first}..{last}{note}",
                          "which granularity should the output keep: day, month or year?")


# --- helpers ----------------------------------------------------------------------------------------

def _magnitude(x: float) -> float:
    return 10.0 ** (math.floor(math.log10(abs(x))) - 1) if x != 0 else 1.0


def _round_down(x: float) -> float:
    """x rounded down to two significant digits (0 stays 0)."""
    step = _magnitude(x)
    return math.floor(round(x / step, 9)) * step


def _round_up(x: float) -> float:
    step = _magnitude(x)
    return math.ceil(round(x / step, 9)) * step


def _plain(x: float) -> int | float:
    """A number as YAML shows it best: an int when whole."""
    x = float(f"{x:.12g}")
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


def _canonical_labels(texts: Any) -> list[str]:
    """Integer-valued numbers written as ``1.0`` become ``1``, so the draft names them as data files do."""
    out = []
    for t in texts:
        try:
            x = float(t)
            out.append(str(int(x)) if x.is_integer() and "." in t and not t.startswith("0") else t)
        except ValueError:
            out.append(t)
    return out


def _natural_key(label: str) -> tuple:
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def _typed(label: str) -> Any:
    """Declare integer-looking labels without leading zeros as numbers (``01`` stays text)."""
    if label.lstrip("-").isdigit() and (label.lstrip("-") == "0" or not label.lstrip("-").startswith("0")):
        return int(label)
    return label
