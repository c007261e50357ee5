"""A sanitized synthetic table whose NBC-enabling views equal the published integers
(Mozafari & Zaniolo, VLDB 2009, abstract and §6.2.4).

Class c contributes P_c rows; in each attribute's column the value t appears exactly
N^i_{t,c} times, each column arranged by an independent random permutation ("the tuples in
each view will be permuted independently", §6.2.4).  Realistic views (Σ_t N^i_{t,c} = P_c)
make this possible; then π_{A_i,C} of the table are the published views, whatever the
permutations.  The randomness only arranges rows: it is not a privacy mechanism.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError
from privbayes.methods.nbc.views import NBCViews
from privbayes.schema import NumericAttribute, Schema

MAX_ROWS = 10_000_000
"""Largest synthetic table written (Σ_c P_c rows)."""


def synthetic_codes(views: NBCViews, rng: np.random.Generator, max_rows: int = MAX_ROWS) -> np.ndarray:
    """Leaf codes (rows × (n+1)) with the views' counts; the class code is the last column."""
    if not all(isinstance(v, int) for v in views.all_counts()):
        raise InputError("a synthetic table needs integer counts (not normalised views)")
    if not views.is_realistic():
        raise InputError("a synthetic table needs realistic views: Σ_t N^i_{t,c} must equal P_c")
    rows = sum(views.prior)
    if rows > max_rows:
        raise InputError(f"the published counts describe more than {max_rows} rows; no synthetic table is written "
                         "(a larger --gamma gives smaller counts)")
    blocks = []
    for c in range(views.classes):
        columns = []
        for attr in views.attributes:
            column = np.repeat(np.arange(len(attr.values)), [int(row[c]) for row in attr.counts])  # integers (above)
            columns.append(rng.permutation(column))
        columns.append(np.full(int(views.prior[c]), c))
        blocks.append(np.column_stack(columns))
    return np.concatenate(blocks).astype(np.int64)


def synthetic_table(views: NBCViews, schema: Schema, rng: np.random.Generator,
                    max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """The synthetic table as values of ``schema`` (columns in the schema's order; numeric
    attributes get a value inside their bin, so they bin back to the same code)."""
    names = [a.name for a in views.attributes] + [views.class_name]
    if sorted(names) != sorted(schema.names):
        raise InputError("the views' attributes and class are not the schema's columns")
    codes = synthetic_codes(views, rng, max_rows)[:, [names.index(name) for name in schema.names]]
    frame = schema.decode(codes, rng)
    for j, attr in enumerate(schema.attributes):
        if isinstance(attr, NumericAttribute) and attr.kind == "numeric":
            frame[attr.name] = _inside_bins(attr, frame[attr.name], codes[:, j])
    return frame


def _inside_bins(attr: NumericAttribute, values: pd.Series, codes: np.ndarray) -> pd.Series:
    """Values that bin back to ``codes``: a value drawn in a bin and rounded to the schema's
    ``decimals`` can land on the bin's upper edge (the next bin); such a value is replaced by the
    bin's lower edge rounded up to the declared precision, so the views stay exactly the published ones."""
    drawn = codes < attr.bins
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    wrong = drawn & (attr.number_codes(np.nan_to_num(numbers, nan=-np.inf)) != codes)
    if not wrong.any():
        return values
    low = attr.bin_edges()[codes[wrong]]
    places = 0 if attr.integer else attr.decimals
    repaired = np.ceil(low * 10.0**places) / 10.0**places if places is not None else low
    if np.any(attr.number_codes(repaired) != codes[wrong]):
        raise InputError(f"attribute {attr.name!r}: a bin is narrower than the schema's precision; no synthetic "
                         "value inside it can be written")
    out = values.copy()
    out[wrong] = repaired
    return out
