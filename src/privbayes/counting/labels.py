"""Private values → leaf codes, each value labelled on its own by the schema.

Whether a value is accepted, and which code it gets, depends only on that value and
the public schema — never on the other rows — so whether ``fit`` succeeds cannot
reveal anything about a row beyond its own validity.  The rules (docs/decisions.md,
"Reading values"):

* **Text** (CSV, ``.dat``, strings in Parquet or a DataFrame) is stripped of
  surrounding blanks.  A categorical value is the category whose text (``str`` of the
  declared value, or its spelling in the schema file: ``true``/``false`` for a YAML
  boolean) it equals; if none does and the text is a decimal number, it is the one category
  whose text is a decimal number of the same value (so ``1.0`` and
  ``01`` name category ``1`` unless a category is spelled exactly so).  A numeric
  attribute's text must be a decimal number (``NaN``/``inf`` words are not numbers).
* **Typed numbers** (Parquet or DataFrame numeric values) match the category spelled
  as their canonical text (``1`` for 1 and 1.0), else the one category of the same
  numeric value.  **Typed booleans** match the category spelled ``True``/``False`` (a YAML
  ``true``/``false`` category is spelled so), else they are the numbers 1/0.
* **Numbers** equal to one of the attribute's ``special_values`` get that value's own
  code (before the bounds are checked, so a sentinel may lie outside them); other
  numbers their bin.  **Dates** (``kind: date``) are ISO text ``YYYY-MM-DD`` (a time
  part is ignored; ``YYYY-MM`` suffices at month granularity, ``YYYY`` at year) or typed
  dates; anything else is not a date.
* **Missing**: a null in Parquet or a DataFrame (None, NaN, pd.NA), the empty field,
  or the attribute's ``missing_token``.  No other word (``NA``, ``null``, ``None``…) is
  missing: it is an ordinary value, and may be a category.  An empty field is a
  category if ``""`` is declared as one.
* **Malformed rows** of a text table (:mod:`privbayes.counting.dialect`: an open quote, more or
  fewer fields than the header…) make every column of the row invalid.
* **Binary values** (Parquet binary columns) are UTF-8 text; bytes that are not are invalid.
* **Invalid** values follow the attribute's ``invalid`` policy: ``refuse`` (stop with
  an :class:`InvalidValuesError` naming the column and the kind of problem — never
  the value, never a count), ``clip`` (numbers outside the bounds go to the nearest
  bound) or ``category`` (to the missing category).  Missing values under
  ``missing: refuse`` stop the same way.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError
from privbayes.schema import Attribute, DateAttribute, NumericAttribute, date_ordinal, date_text
from privbayes.schema.values import spelling

NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(NUMBER)
_MISSING, _INVALID, _OUTSIDE, _AMBIGUOUS, _MALFORMED = -1, -2, -3, -4, -5
_SHOWN_ROWS = 5
MALFORMED_ROW = ("a row is malformed (a quote left open or a line break in a quoted field, text after a closing "
                 "quote, a quote inside an unquoted field, or more or fewer fields than the header)")
_NOT_A_VALUE = {"numeric": "a value is not a number (the schema says numeric)",
                "date": "a value is not an ISO date YYYY-MM-DD (the schema says date)"}


class _MalformedRow:
    """The value of every cell of a malformed row in a frame read from a text table
    (:data:`MALFORMED_CELL`): labelled as malformed, never equal to any value, ``""`` as text (so
    that code outside labelling, such as the schema draft, sees an empty field)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<malformed row>"

    def __str__(self) -> str:
        return ""

    def __reduce__(self) -> str:
        return "MALFORMED_CELL"


MALFORMED_CELL = _MalformedRow()


class InvalidValuesError(InputError):
    """Values that the schema refuses.  The message names the column and the problem only;
    ``rows`` holds up to five 1-based data row numbers for local diagnosis
    (``--show-invalid``), never printed unless asked."""

    def __init__(self, message: str, rows: tuple[int, ...]) -> None:
        super().__init__(message)
        self.rows = rows


def category_text(value: Any) -> str:
    """The text a declared category is matched by."""
    return str(value)


def _number_of(text: str) -> float | None:
    return float(text) if _NUMBER.fullmatch(text) else None


def _canonical(x: float) -> str:
    return str(int(x)) if x.is_integer() and abs(x) < 2**63 else repr(x)


class _Categories:
    """Lookups of one categorical attribute: by text, and by numeric value."""

    def __init__(self, attr: Attribute) -> None:
        texts = [category_text(c).strip() for c in attr.categories]
        self.by_text = {t: i for i, t in enumerate(texts)}
        for i, c in enumerate(attr.categories):  # text may also spell a category as the schema file does (true)
            self.by_text.setdefault(spelling(c).strip(), i)
        self.by_number: dict[float, list[int]] = {}
        for i, t in enumerate(texts):
            x = _number_of(t)
            if x is not None:
                self.by_number.setdefault(x, []).append(i)

    def number(self, x: float) -> int:
        found = self.by_number.get(x, [])
        return found[0] if len(found) == 1 else (_AMBIGUOUS if found else _INVALID)


def _label_distinct(attr: Attribute, distinct: np.ndarray) -> np.ndarray:
    """A code (or one of the negative markers) for each distinct value, each on its own."""
    token = None if attr.missing_token is None else attr.missing_token.strip()
    coder = attr if isinstance(attr, NumericAttribute) else _Categories(attr)
    out = np.empty(len(distinct), np.int64)
    for i, value in enumerate(distinct):
        out[i] = _label_one(coder, value, token)
    return out


def _label_one(coder: NumericAttribute | _Categories, value: Any, token: str | None) -> int:
    """The code of one value: by a numeric (or date) attribute's bins, or by a categorical one's lookups."""
    if value is None or value is pd.NA or value is pd.NaT:
        return _MISSING
    if value is MALFORMED_CELL:
        return _MALFORMED
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return _INVALID
    if isinstance(coder, DateAttribute):
        return _label_date(coder, value, token)
    if isinstance(value, (bool, np.bool_)):  # a typed boolean names the category spelled True/False, else 1/0
        found = coder.by_text.get(str(bool(value))) if isinstance(coder, _Categories) else None
        if found is not None:
            return found
        value = int(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        number = float(value)
        if math.isnan(number):
            return _MISSING
        if isinstance(coder, NumericAttribute):
            return _numeric(coder, number)
        found = coder.by_text.get(_canonical(number)) if math.isfinite(number) else None
        return found if found is not None else coder.number(number)
    text = str(value).strip()
    if token is not None and text == token:
        return _MISSING
    if isinstance(coder, _Categories):
        found = coder.by_text.get(text)
        if found is not None:
            return found
    if text == "":
        return _MISSING
    x = _number_of(text)
    if x is None:
        return _INVALID
    return _numeric(coder, x) if isinstance(coder, NumericAttribute) else coder.number(x)


def _label_date(attr: DateAttribute, value: Any, token: str | None) -> int:
    if isinstance(value, float) and math.isnan(value):
        return _MISSING
    if isinstance(value, str) and (value.strip() == "" or (token is not None and value.strip() == token)):
        return _MISSING
    x = date_ordinal(value, attr.granularity)
    return _INVALID if x is None else _numeric(attr, x)


def _numeric(attr: NumericAttribute, x: float) -> int:
    """Code of x (its special value's, else its bin), or the _OUTSIDE marker."""
    return int(_label_numeric_numbers(attr, np.array([x], dtype=np.float64))[0])


def _label_numeric_numbers(attr: NumericAttribute, x: np.ndarray) -> np.ndarray:
    """Vectorised :func:`_label_one` for a numeric attribute whose distinct values are typed numbers."""
    out = attr.number_codes(x)
    out[out < 0] = _OUTSIDE
    out[np.isnan(x)] = _MISSING
    return out


def _label_numeric_texts(attr: NumericAttribute, distinct: np.ndarray) -> np.ndarray:
    """Vectorised :func:`_label_one` for a numeric attribute whose distinct values are all text."""
    texts = pd.Series(distinct, dtype=object).astype(str).str.strip()
    token = None if attr.missing_token is None else attr.missing_token.strip()
    numeric = texts.str.fullmatch(NUMBER).to_numpy(dtype=bool)
    x = pd.to_numeric(texts.where(numeric, "0"), errors="coerce").to_numpy(dtype=np.float64)
    out = np.full(len(distinct), _INVALID, np.int64)
    out[numeric] = _label_numeric_numbers(attr, x[numeric])
    empty = (texts == "").to_numpy() | ((texts == token).to_numpy() if token is not None else False)
    out[empty] = _MISSING
    return out


def label_column(attr: Attribute, positions: np.ndarray, distinct: np.ndarray, where: str,
                 clipped: np.ndarray | None = None) -> np.ndarray:
    """Leaf codes of one column given as ``distinct`` values and each row's position in them
    (−1 for a null, −2 for a malformed row).  Refuses, clips or recodes per the attribute's policies."""
    typed = np.asarray(distinct)
    distinct = (np.array(list(pd.DatetimeIndex(typed)), dtype=object) if typed.dtype.kind == "M"
                else typed.astype(object))
    numeric = attr if isinstance(attr, NumericAttribute) and not isinstance(attr, DateAttribute) else None
    if numeric is not None and typed.dtype.kind in "biuf":
        labels = _label_numeric_numbers(numeric, typed.astype(np.float64))
    elif numeric is not None and len(distinct) and all(isinstance(v, str) for v in distinct):
        labels = _label_numeric_texts(numeric, distinct)
    else:
        labels = _label_distinct(attr, distinct)
    labels = np.append(labels, [_MALFORMED, _MISSING])  # position −1 (a null) reads the last entry, −2 the one before
    codes: np.ndarray = labels[positions]
    _apply_policies(attr, codes, positions, distinct, where)
    return codes


def _rows(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(r) + 1 for r in np.flatnonzero(mask)[:_SHOWN_ROWS])


def _apply_policies(attr: Attribute, codes: np.ndarray, positions: np.ndarray, distinct: np.ndarray,
                    where: str) -> None:
    outside = codes == _OUTSIDE
    if outside.any() and attr.invalid == "clip":
        values = np.array([_clip_number(attr, v) for v in distinct] + [0.0])[positions[outside]]
        codes[outside] = np.where(values <= attr.lower, 0, attr.bins - 1)
        outside[:] = False
    problems = [
        (codes == _MALFORMED, MALFORMED_ROW),
        (codes == _AMBIGUOUS, "a value matches more than one category (they are equal as numbers)"),
        (codes == _INVALID, _NOT_A_VALUE.get(attr.kind, f"a value is not one of the schema's {attr.base_size} "
                                                                 "categories")),
    ]
    if isinstance(attr, NumericAttribute):
        low, high = ((date_text(attr.lower, attr.granularity), date_text(attr.upper, attr.granularity))
                     if isinstance(attr, DateAttribute) else (format(attr.lower, "g"), format(attr.upper, "g")))
        specials = (f" and is not one of its {len(attr.special_values)} special values (which match only the exact "
                    "number)" if attr.special_values else "")
        problems.append((outside, f"a value is outside the schema's bounds [{low}, {high}]{specials}"))
    for mask, problem in problems:
        if mask.any():
            if attr.invalid == "category":
                codes[mask] = attr.base_size
                continue
            hint = " (invalid: clip maps only numbers outside the bounds)" if attr.invalid == "clip" else ""
            if problem == MALFORMED_ROW:
                hint += " ('invalid: category' sends such rows to the missing category)"
            raise InvalidValuesError(f"{where}: {problem}; the schema's invalid policy is '{attr.invalid}'{hint}"
                                     " (--show-invalid lists row numbers locally)", _rows(mask))
    missing = codes == _MISSING
    if missing.any():
        if attr.missing == "refuse":
            raise InvalidValuesError(f"{where}: a value is missing and the schema's missing policy is 'refuse' "
                                     "(set 'missing: category' to model missing values)", _rows(missing))
        codes[missing] = attr.base_size


def _clip_number(attr: Attribute, value: Any) -> float:
    if isinstance(attr, DateAttribute):
        x = date_ordinal(value, attr.granularity)
        return 0.0 if x is None else x
    if isinstance(value, str):
        x = _number_of(value.strip())
        return 0.0 if x is None else x
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0
