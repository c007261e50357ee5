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


def test_text_handed_over_as_codes_has_the_same_values():
    """``coded_text`` turns only the text-category columns into dictionaries of their categories; decoded with
    it, those columns hold the leaf codes as indices (null where missing) and cast back to the very table of
    the plain schema, the generator left in the same state."""
    from privbayes.schema.decoding import coded_text

    codes = _codes(3000, 4)
    kinds = pa.Schema.from_pandas(SCHEMA.decode(codes, np.random.default_rng(0)), preserve_index=False)
    coded = coded_text(SCHEMA.attributes, kinds)
    assert [n for n in coded.names if coded.field(n) != kinds.field(n)] == ["city"]  # "kind" is one already
    assert coded.metadata == kinds.metadata
    plain, rng = decode_arrow(SCHEMA.attributes, codes, np.random.default_rng(5), kinds), np.random.default_rng(5)
    table = decode_arrow(SCHEMA.attributes, codes, rng, coded)
    assert table.schema == coded
    city = table.column("city").chunk(0)
    assert city.indices.to_numpy(zero_copy_only=False)[codes[:, 0] < 3].tolist() == codes[codes[:, 0] < 3, 0].tolist()
    assert city.null_count == (codes[:, 0] == 3).sum() > 0
    assert table.cast(kinds).equals(plain)
    after = np.random.default_rng(5)
    decode_arrow(SCHEMA.attributes, codes, after, kinds)
    assert rng.bit_generator.state == after.bit_generator.state


def test_distinct_values_come_from_the_domain():
    from privbayes.schema.decoding import distinct_values

    counts = {a.name: distinct_values(a) for a in SCHEMA.attributes}
    assert counts["city"] == 4 and counts["size"] == 3  # categories and the missing code
    assert counts["age"] == 90 - 17 + 1 + 2 and counts["narrow"] == 3  # whole numbers and special values
    assert counts["rate"] == 101 and counts["wide"] == float("inf")  # two decimals; drawn continuously
    assert counts["day"] == 366  # days of 2020
    assert distinct_values(SCHEMA.attributes[4], bin_labels=True) == SCHEMA.attributes[4].size
