"""One public value as a leaf code: how a condition such as ``sex = Female`` or ``age = 37``
names a cell of the domain (conditional sampling; no private data is involved).

The rule is the reading rule of :mod:`privbayes.counting.labels` for one value: a category is
the one whose text equals the value's (numbers: or whose number equals it: ``1.0`` names
category ``1``); a number is its special value's code, else its bin within the bounds; a date is
its ISO text's bin; ``None`` is the missing code where the attribute has one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privbayes.errors import InputError
from privbayes.schema.attribute import MISSING_LABEL, Attribute
from privbayes.schema.binning import number_codes
from privbayes.schema.dates import date_ordinal
from privbayes.schema.dtypes import date_column

if TYPE_CHECKING:  # pragma: no cover
    from privbayes.schema import Schema


def code_of(attr: Attribute, value: Any) -> int:
    """The leaf code ``value`` names in ``attr``'s domain; one-line InputError if it names none."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value == MISSING_LABEL:
        if attr.missing == "category":
            return attr.base_size
        raise InputError(f"attribute {attr.name!r} has no missing value to condition on")
    if attr.kind == "date":
        ordinal = date_ordinal(value, attr.granularity or "day")
        number = ordinal
    elif attr.numeric:
        number = _number(value)
    else:
        return _category(attr, value)
    if number is None:
        raise InputError(f"attribute {attr.name!r}: {value!r} is not a {'date' if attr.kind == 'date' else 'number'}")
    if attr.kind == "numeric" and attr.integer and not float(number).is_integer() and number not in attr.special_values:
        raise InputError(f"attribute {attr.name!r} takes whole numbers; {value!r} is not one")
    code = int(number_codes(attr, [number])[0])  # type: ignore[arg-type]
    if code < 0:
        raise InputError(f"attribute {attr.name!r}: {value!r} is outside the domain [{attr.lower:g}, {attr.upper:g}]"
                         if attr.kind != "date" else f"attribute {attr.name!r}: {value!r} is outside the domain")
    return code


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _category(attr: Attribute, value: Any) -> int:
    text = str(value).strip()
    labels = [str(c) for c in attr.categories]
    if text in labels:
        return labels.index(text)
    number = _number(value)
    if number is not None:
        same = [i for i, label in enumerate(labels) if _number(label) == number]
        if len(same) == 1:
            return same[0]
    raise InputError(f"attribute {attr.name!r}: {value!r} is not one of its categories")


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
        if not attr.numeric or code >= attr.bins:  # categories, special values, the missing code: exact already
            continue
        if attr.kind == "date":  # in the column's dtype, as decoded dates are (not always text)
            ordinal = float(date_ordinal(value, attr.granularity or "day"))  # type: ignore[arg-type]
            frame[name] = date_column(attr, np.full(len(frame), ordinal), np.zeros(len(frame), dtype=bool)).array
        else:
            number = float(value)
            frame[name] = pd.array([int(number) if attr.integer else number] * len(frame), dtype=frame[name].dtype)
    return frame
