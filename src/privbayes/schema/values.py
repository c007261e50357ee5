"""One public value as a leaf code: how a condition such as ``sex = Female`` or ``age = 37``
names a cell of the domain (conditional sampling; no private data is involved).

The rule is the reading rule of :mod:`privbayes.counting.labels` for one value: a category is
the one whose text equals the value's (numbers: or whose number equals it: ``1.0`` names
category ``1``); a number is its special value's code, else its bin within the bounds; a date is
its ISO text's bin; ``None`` (also pd.NA, NaT, NaN) is the missing code where the attribute has one.
Text (``sample --given``) may also spell a category as the schema file does: ``true``/``false`` name
YAML booleans (docs/decisions.md, "Values given on the command line").  Anything that is not one
value (a list, a mapping) is refused in one line naming the attribute.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError
from privbayes.schema.attribute import MISSING_LABEL, Attribute, DateAttribute, NumericAttribute
from privbayes.schema.dates import date_ordinal, date_text
from privbayes.schema.decoding import date_column

if TYPE_CHECKING:  # pragma: no cover
    from privbayes.schema.domain import Schema


SHOWN_CATEGORIES = 20
"""A value outside a categorical domain of at most this many categories gets them listed in its error (they
are the public schema's, not data); a larger domain is named by its size."""

_SCALARS = (str, bool, int, float, np.generic, datetime.date, pd.Timestamp)


def spelling(category: Any) -> str:
    """A category as the schema file spells it (YAML): ``true``/``false`` for booleans, else its text."""
    return ("true" if category else "false") if isinstance(category, (bool, np.bool_)) else str(category)


def code_of(attr: Attribute, value: Any) -> int:
    """The leaf code ``value`` names in ``attr``'s domain; one-line InputError naming the attribute if it
    names none (listing the allowed values of a small domain, or the bounds)."""
    if not isinstance(value, _SCALARS) and value is not None and value is not pd.NA:
        raise InputError(f"attribute {attr.name!r}: a condition is one value (text, number, boolean or date), "
                         f"got a {type(value).__name__}")
    if isinstance(value, int) and _number(value) is None and not isinstance(value, bool):
        raise InputError(f"attribute {attr.name!r}: {_shown(value)} is not a finite number; {_domain(attr)}")
    if _missing(attr, value):
        if attr.missing == "category":
            return attr.base_size
        raise InputError(f"attribute {attr.name!r} has no missing value to condition on; {_domain(attr)}")
    if isinstance(attr, DateAttribute):
        number = date_ordinal(value, attr.granularity)
    elif isinstance(attr, NumericAttribute):
        number = _number(value)
    else:
        return _category(attr, value)
    if number is None:
        raise InputError(f"attribute {attr.name!r}: {_shown(value)} is not a {_expected_kind(attr, value)}; "
                         f"{_domain(attr)}")
    if attr.kind == "numeric" and attr.integer and not float(number).is_integer() and number not in attr.special_values:
        raise InputError(f"attribute {attr.name!r} takes whole numbers; {_shown(value)} is not one")
    code = int(attr.number_codes(np.array([number]))[0])
    if code < 0:
        raise InputError(f"attribute {attr.name!r}: {_shown(value)} is outside the domain; {_domain(attr)}")
    return code


def _expected_kind(attr: Attribute, value: Any) -> str:
    """What a value refused as a number or date should have been: "finite number" for inf or 1e999."""
    if attr.kind == "date":
        return "date (ISO YYYY-MM-DD)"
    try:
        float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError, OverflowError):
        return "number"
    return "finite number"


def _missing(attr: Attribute, value: Any) -> bool:
    """Missing as in data (:mod:`privbayes.counting.labels`): None, pd.NA, NaT or NaN; text equal to the
    attribute's ``missing_token``, or empty unless ``""`` is a category; or the missing category's label."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    if not isinstance(value, str):
        return False
    text = value.strip()
    token = None if attr.missing_token is None else attr.missing_token.strip()
    empty = text == "" and (attr.numeric or "" not in [str(c).strip() for c in attr.categories])
    return text == MISSING_LABEL or text == token or empty


def _shown(value: Any) -> str:
    """A condition's value in a message: public (the user's), but bounded."""
    if isinstance(value, int) and abs(value) >= 10**30:  # repr of a huge int is long, or refused (> 4,300 digits)
        return "a very large integer"
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _domain(attr: Attribute) -> str:
    """What ``attr`` accepts, from the public schema: its categories when few, else its size or bounds."""
    missing = f", or {MISSING_LABEL} (missing)" if attr.missing == "category" else ""
    if isinstance(attr, DateAttribute):
        granularity = attr.granularity
        return (f"expected a date in [{date_text(attr.lower, granularity)}, {date_text(attr.upper, granularity)}]"
                f"{missing}")
    if isinstance(attr, NumericAttribute):
        whole = "a whole number" if attr.integer else "a number"
        special = "".join(f", {v:g}" for v in attr.special_values)
        return f"expected {whole} in [{attr.lower:g}, {attr.upper:g}]{special}{missing}"
    if len(attr.categories) <= SHOWN_CATEGORIES:
        return f"expected one of {', '.join(spelling(c) for c in attr.categories)}{missing}"
    return f"expected one of its {len(attr.categories)} categories (see the schema){missing}"


def _number(value: Any) -> float | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        number = float(str(value).strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _category(attr: Attribute, value: Any) -> int:
    """The category ``value`` names: text equal to a category's text (``str``, as data is read) or to its
    schema-file spelling (``true`` for a YAML boolean); a typed boolean names ``True``/``False``, else 1/0;
    a number or numeric text the one category of the same value (docs/decisions.md, "Reading values")."""
    labels = [str(c).strip() for c in attr.categories]
    text = str(bool(value)) if isinstance(value, (bool, np.bool_)) else str(value).strip()
    if text in labels:
        return labels.index(text)
    if isinstance(value, str):
        spelled = [spelling(c).strip() for c in attr.categories]
        if spelled.count(text) == 1:
            return spelled.index(text)
    number = float(value) if isinstance(value, (bool, np.bool_)) else _number(value)
    if number is not None:
        same = [i for i, label in enumerate(labels) if _number(label) == number]
        if len(same) == 1:
            return same[0]
    raise InputError(f"attribute {attr.name!r}: {_shown(value)} is not one of its categories; {_domain(attr)}")


def leaf_conditions(schema: Schema, conditions: Mapping[str, Any]) -> dict[int, int]:
    """Attribute index → the leaf code its condition names (one-line errors for unknown names/values)."""
    if not isinstance(conditions, Mapping) or not conditions:
        raise InputError("conditions must map one or more column names to a value each")
    return {schema.index(name): code_of(schema.attributes[schema.index(name)], value)
            for name, value in conditions.items()}


def fixed_values(frame: pd.DataFrame, schema: Schema, conditions: Mapping[str, Any] | None,
                 bin_labels: bool) -> pd.DataFrame:
    """Decoded rows with each numeric or date condition's column set to the value given: conditioning on
    ``age = 37`` is conditioning on its bin and, inside it, on 37 (the model is uniform within a bin).
    Categories decode exactly already; with ``bin_labels`` the bin's label stays."""
    if not conditions or bin_labels:
        return frame
    for name, value in conditions.items():
        attr = schema.attributes[schema.index(name)]
        code = code_of(attr, value)
        exact = not isinstance(attr, NumericAttribute) or code >= attr.bins
        if exact:  # categories, special values, the missing code: exact already
            continue
        if isinstance(attr, DateAttribute):  # in the column's dtype, as decoded dates are (not always text)
            ordinal = date_ordinal(value, attr.granularity)
            assert ordinal is not None  # code_of read it as a date
            frame[name] = date_column(attr, np.full(len(frame), ordinal), np.zeros(len(frame), dtype=bool)).array
        else:
            number = float(value)
            frame[name] = pd.array([int(number) if attr.integer else number] * len(frame), dtype=frame[name].dtype)
    return frame
