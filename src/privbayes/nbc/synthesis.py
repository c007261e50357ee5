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

from privbayes.errors import InputError
from privbayes.nbc.views import NBCViews

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
            column = np.repeat(np.arange(len(attr.values)), [row[c] for row in attr.counts])
            columns.append(rng.permutation(column))
        columns.append(np.full(views.prior[c], c))
        blocks.append(np.column_stack(columns))
    return np.concatenate(blocks).astype(np.int64)


def synthetic_table(views: NBCViews, schema, rng: np.random.Generator, max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """The synthetic table as values of ``schema`` (columns in the schema's order; numeric
    attributes get a value inside their bin, so they bin back to the same code)."""
    names = [a.name for a in views.attributes] + [views.class_name]
    if sorted(names) != sorted(schema.names):
        raise InputError("the views' attributes and class are not the schema's columns")
    codes = synthetic_codes(views, rng, max_rows)
    order = [names.index(name) for name in schema.names]
    return schema.decode(codes[:, order], rng)
