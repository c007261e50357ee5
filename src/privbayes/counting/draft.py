"""Drafting a schema from the private data — NOT private: the draft reveals the data.

Only on request (``privbayes schema infer``, ``fit --infer-schema``); a model fitted
with a drafted domain says so in its privacy report.  It lives in the counting layer
because it reads private rows.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from privbayes.counting.labels import NUMBER
from privbayes.counting.reading import read_frame
from privbayes.errors import InputError
from privbayes.schema import DEFAULT_BINS, Attribute, Kind, MissingPolicy, Schema


def infer_schema(data: pd.DataFrame | str | os.PathLike, max_categories: int = 64, bins: int = DEFAULT_BINS) -> Schema:
    """Draft a schema from data.  NOT private: bounds and categories reveal the data."""
    frame = data if isinstance(data, pd.DataFrame) else read_frame(data, None)
    attributes = []
    for name in frame.columns:
        column = frame[name]
        text = column.astype(object).where(column.notna(), "").astype(str).str.strip()
        present = text[text != ""]
        missing: MissingPolicy = "category" if len(present) < len(text) else "refuse"
        numeric = present.str.fullmatch(NUMBER)
        distinct = present.nunique()
        if len(present) > 0 and numeric.all() and distinct > max_categories // 4:
            values = pd.to_numeric(present).to_numpy(dtype=float)
            integer = bool(np.all(np.mod(values, 1) == 0))
            attributes.append(Attribute(str(name), "numeric", lower=float(values.min()), upper=float(values.max()),
                                        bins=bins, integer=integer, missing=missing))
            continue
        if distinct > max_categories:
            raise InputError(f"schema infer: column {name!r} has more than {max_categories} distinct non-numeric "
                             "values; describe it by hand")
        categories = sorted(set(_canonical_labels(present)), key=_natural_key)
        kind: Kind = "binary" if len(categories) == 2 else "categorical"
        attributes.append(Attribute(str(name), kind, categories=tuple(_typed(c) for c in categories), missing=missing))
    return Schema(tuple(attributes))


def _canonical_labels(texts: pd.Series) -> list[str]:
    """Integer-valued numbers written as ``1.0`` become ``1``, so the draft names them as data files do."""
    out = []
    for t in texts.unique():
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
