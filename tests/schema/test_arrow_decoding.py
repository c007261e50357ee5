"""Decoding straight to Arrow (for streamed Parquet sampling) gives the table pandas' decoding gives, with the
same draws: text categories, numbers in bins, special values, missing codes, and the columns it leaves to
pandas (dtypes, dates, bin labels, non-text categories)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from privbayes.schema import Attribute, Schema
from privbayes.schema.decoding import decode_arrow

SCHEMA = Schema((
    Attribute("city", "categorical", categories=("Oslo", "Bergen", "Tromsø, N"), missing="category"),
    Attribute("age", "numeric", lower=17, upper=90, bins=7, integer=True, special_values=(0, 99),
              missing="category"),
    Attribute("narrow", "numeric", lower=0, upper=2, bins=5, integer=True),
    Attribute("rate", "numeric", lower=0, upper=1, bins=4, decimals=2, missing="category"),
    Attribute("wide", "numeric", lower=1, upper=1e6, bins=6, scale="log"),
    Attribute("flag", "binary"),
    Attribute("size", "categorical", categories=(1, 5, 10)),
    Attribute("kind", "categorical", categories=("a", "b"), dtype="category"),
    Attribute("day", "date", lower="2020-01-01", upper="2020-12-31", bins=4),
    Attribute("count", "numeric", lower=0, upper=50, bins=5, integer=True, dtype="float64"),
))


def _codes(rows: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.integers(0, a.size, rows) for a in SCHEMA.attributes])


@pytest.mark.parametrize("bin_labels", [False, True])
def test_arrow_decoding_is_pandas_decoding_with_the_same_draws(bin_labels):
    codes = _codes(3000, 1)
    frame = SCHEMA.decode(codes, np.random.default_rng(9), bin_labels=bin_labels)
    kinds = pa.Schema.from_pandas(frame, preserve_index=False)
    expected = pa.Table.from_pandas(frame, schema=kinds, preserve_index=False)
    rng = np.random.default_rng(9)
    table = decode_arrow(SCHEMA.attributes, codes, rng, kinds, bin_labels)
    assert table.schema == kinds and table.equals(expected)
    assert table.column("city").null_count > 0 and table.column("age").null_count > 0  # missing codes seen
    after = np.random.default_rng(9)  # the generator is left where pandas' decoding leaves it
    SCHEMA.decode(codes, after, bin_labels=bin_labels)
    assert rng.bit_generator.state == after.bit_generator.state


def test_every_code_missing_or_not_decodes_alike():
    """All rows missing (pandas keeps objects there), and a column without a missing code."""
    codes = np.column_stack([np.full(50, a.size - 1) for a in SCHEMA.attributes])
    frame = SCHEMA.decode(codes, np.random.default_rng(2))
    probe = SCHEMA.decode(_codes(400, 3), np.random.default_rng(2))
    kinds = pa.Schema.from_pandas(probe, preserve_index=False)
    expected = pa.Table.from_pandas(frame, schema=kinds, preserve_index=False)
    assert decode_arrow(SCHEMA.attributes, codes, np.random.default_rng(2), kinds).equals(expected)
