"""Schema (public domain), the authors' .domain format, and the four encodings (TODS 2017, §5.1)."""

import numpy as np
import pandas as pd
import pytest

from privbayes.core.errors import InputError
from privbayes.counting import leaf_codes
from privbayes.counting.draft import infer_schema
from privbayes.schema import Attribute, Schema
from privbayes.schema.decoding import decode
from privbayes.schema.domainfile import read_domain
from privbayes.schema.encoding import Encoding, bit_width
from privbayes.schema.files import load_schema, save_schema


def _column(attr: Attribute, values: list) -> np.ndarray:
    """Leaf codes of one column, read through the counting layer with a companion column."""
    other = Attribute("zz", "binary")
    frame = pd.DataFrame({attr.name: pd.Series(values, dtype=object), "zz": [0] * len(values)})
    return leaf_codes(frame, Schema((attr, other)))[:, 0]

# Level sizes (leaves first) from ../shared/data/README.md.
ADULT_LEVELS = [[16, 8, 4, 2], [7, 4], [16, 8, 4, 2], [16, 10, 3], [16, 8, 4, 2], [7, 3], [14], [6, 4], [5, 3], [2],
                [16, 8, 4, 2], [16, 8, 4, 2], [16, 8, 4, 2], [41, 10, 2], [2]]
BR2000_LEVELS = [[2], [7, 4, 2], [16, 8, 4, 2], [10, 5, 2], [16, 8, 4, 2], [2], [2], [2], [2], [4, 2], [16, 8, 4, 2],
                 [2], [16, 8, 4, 2], [2]]


@pytest.mark.parametrize("name, levels", [("adult", ADULT_LEVELS), ("br2000", BR2000_LEVELS)])
def test_domain_files_give_the_papers_taxonomies(shared_data, name, levels):
    schema = read_domain(shared_data / name / f"{name}.domain")
    assert [[a.level_size(i) for i in range(a.height)] for a in schema.attributes] == levels


def test_adult_dat_reads_in_full(shared_data):
    schema = read_domain(shared_data / "adult" / "adult.domain")
    codes = leaf_codes(shared_data / "adult" / "adult.dat", schema)
    assert codes.shape == (45222, 15)
    # every domain value occurs (README): each column uses all its leaves
    assert [len(np.unique(codes[:, j])) for j in range(15) if schema.attributes[j].kind != "numeric"] == \
        [a.size for a in schema.attributes if a.kind != "numeric"]


def test_taxonomy_levels_are_top_aligned():
    # {a b {c d}} e: H = 3; level 1 merges c, d; level 2 merges a, b, c, d; e stays alone.
    attr = Attribute("x", "categorical", categories=tuple("abcde"), taxonomy=(("a", "b", ("c", "d")), "e"))
    assert [m.tolist() for m in attr.levels] == [[0, 1, 2, 3, 4], [0, 1, 2, 2, 3], [0, 0, 0, 0, 1]]


def test_numeric_binning_and_binary_tree():
    attr = Attribute("age", "numeric", lower=0, upper=80, bins=8)
    codes = _column(attr, [0, 9.99, 10, 79.9, 80])
    assert codes.tolist() == [0, 0, 1, 7, 7]  # the maximum falls in the last bin
    assert [attr.level_size(i) for i in range(attr.height)] == [8, 4, 2]


def test_numeric_decoding_stays_inside_the_bin():
    attr = Attribute("v", "numeric", lower=0, upper=10, bins=5, integer=False)
    codes = np.repeat(np.arange(5), 200)
    values = decode(attr, codes, np.random.default_rng(0)).to_numpy()
    assert np.all((values >= codes * 2) & (values < codes * 2 + 2))
    ints = Attribute("n", "numeric", lower=1, upper=16, bins=16, integer=True)
    decoded = decode(ints, np.arange(16), np.random.default_rng(0))
    assert decoded.tolist() == list(range(1, 17))  # 16 bins of width 0.9375 each hold one integer


def test_missing_values_policy():
    refuse = Attribute("c", "categorical", categories=("a", "b"))
    with pytest.raises(InputError, match="column 'c': a value is missing and the schema's missing policy is 'refuse'"):
        _column(refuse, ["a", None])
    keep = Attribute("c", "categorical", categories=("a", "b"), missing="category")
    assert _column(keep, ["a", None, "b"]).tolist() == [0, 2, 1]
    decoded = decode(keep, np.array([2, 1]), np.random.default_rng(0))
    assert pd.isna(decoded[0]) and decoded[1] == "b"


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"a": [1, 2], "b": ["x", "z"]}),
     "data.csv: column 'b': a value is not one of the schema's 2 categories"),
    (pd.DataFrame({"a": [1, 200], "b": ["x", "y"]}),
     "data.csv: column 'a': a value is outside the schema's bounds \\[0, 100\\]"),
    (pd.DataFrame({"a": [1, "ten"], "b": ["x", "y"]}), "column 'a': a value is not a number"),
    (pd.DataFrame({"a": [1, 2]}), "column 'b' of the schema is missing from the data"),
    (pd.DataFrame({"a": [], "b": []}), "the data has no rows"),
])
def test_bad_values_name_the_problem(tmp_path, frame, message):
    schema = Schema((Attribute("a", "numeric", lower=0, upper=100),
                     Attribute("b", "categorical", categories=("x", "y"))))
    frame.to_csv(tmp_path / "data.csv", index=False)
    with pytest.raises(InputError, match=message):
        leaf_codes(tmp_path / "data.csv", schema)


def test_schema_validation_messages():
    with pytest.raises(InputError, match="at least 2 attributes"):
        Schema((Attribute("a", "binary"),))
    with pytest.raises(InputError, match="lower \\(5\\) must be below upper \\(1\\)"):
        Attribute("a", "numeric", lower=5, upper=1)
    with pytest.raises(InputError, match="the taxonomy's leaves must be exactly the categories"):
        Attribute("a", "categorical", categories=("x", "y"), taxonomy=(("x",),))


def test_schema_round_trips_through_yaml_and_json(tmp_path, shared_data):
    schema = read_domain(shared_data / "adult" / "adult.domain")
    for suffix in (".yaml", ".json"):
        save_schema(schema, tmp_path / f"s{suffix}")
        assert load_schema(tmp_path / f"s{suffix}") == schema


def test_infer_schema_drafts_kinds():
    frame = pd.DataFrame({"x": np.arange(100) / 3, "c": ["a", "b", "c", "a"] * 25, "f": [True, False] * 50})
    schema = infer_schema(frame)
    assert [a.kind for a in schema.attributes] == ["numeric", "categorical", "binary"]
    assert schema.attributes[0].lower == 0 and schema.attributes[0].upper == 35  # 33, rounded outward on a grid of 5


@pytest.mark.parametrize("name", ["binary", "gray"])
def test_bit_encodings_round_trip_and_clamp(name):
    schema = Schema((Attribute("a", "categorical", categories=tuple(range(5))), Attribute("b", "binary")))
    enc = Encoding.build(schema, name)
    assert [a.name for a in enc.attributes] == ["a#bit0", "a#bit1", "a#bit2", "b"]
    leaves = np.array([[v, v % 2] for v in range(5)])
    bits = enc.encode(leaves)
    np.testing.assert_array_equal(enc.decode(bits), leaves)
    # 3 bits hold 8 patterns; positions 5..7 have no value and decode to the last value, 4.
    every = np.array([[x >> 2 & 1, x >> 1 & 1, x & 1, 0] for x in range(8)])
    assert enc.decode(every)[:, 0].max() == 4
    assert sorted(enc.decode(every)[:, 0].tolist()) == [0, 1, 2, 3, 4, 4, 4, 4]


def test_gray_neighbours_differ_in_one_bit():
    schema = Schema((Attribute("a", "numeric", lower=0, upper=16, bins=16), Attribute("b", "binary")))
    enc = Encoding.build(schema, "gray")
    bits = enc.encode(np.array([[v, 0] for v in range(16)]))[:, :4]
    assert all(np.abs(bits[i] - bits[i + 1]).sum() == 1 for i in range(15))
    assert bit_width(16) == 4 and bit_width(2) == 1 and bit_width(1) == 1


def test_hierarchical_encoding_keeps_levels_and_vanilla_does_not():
    attr = Attribute("x", "categorical", categories=tuple("abc"), taxonomy=(("a", "b"), "c"))
    schema = Schema((attr, Attribute("y", "binary")))
    assert Encoding.build(schema, "hierarchical").attributes[0].height == 2
    assert Encoding.build(schema, "vanilla").attributes[0].height == 1
