"""What goes in comes out (issue 29): column types through draft → fit → sample, from a DataFrame,
a Parquet file and a CSV; the draft's one spelling per category; typed booleans; the dtype keys
of the schema and their checks."""

import datetime
import re

import numpy as np
import pandas as pd
import pytest
import yaml

import privbayes
from privbayes import PrivBayes
from privbayes.cli import main
from privbayes.core.errors import InferredDomainWarning, InputError
from privbayes.counting.draft import draft_schema
from privbayes.schema import Schema

N = 3000
ORDER = ["low", "mid", "high"]  # not alphabetical: the order must come from the dtype, not from sorting


def _typed_frame(n: int = N, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = rng.choice(ORDER, n, p=[0.5, 0.3, 0.2])
    return pd.DataFrame({
        "flag": rng.random(n) < 0.3,
        "visits": pd.array(np.where(rng.random(n) < 0.1, None, rng.integers(0, 5, n)).tolist(), dtype="Int64"),
        "amount": np.round(rng.gamma(2.0, 40.0, n), 2),
        "size": pd.Categorical(size, categories=ORDER, ordered=True),
        "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
        "seen": (pd.Timestamp("2020-01-01", tz="UTC") + pd.to_timedelta(rng.integers(0, 700, n), unit="D"))
        .as_unit("ns"),
        "born": [datetime.date(1950, 1, 1) + datetime.timedelta(days=int(d)) for d in rng.integers(0, 20_000, n)],
        "city": pd.Series(rng.choice(["Oslo", "Lima", "Pune", "Kyiv"], n), dtype=object),
        "team": rng.choice(["north", "south"], n).tolist(),  # pandas' default text dtype (str on pandas 3)
    })


def _fit(data, schema, seed: int = 1) -> PrivBayes:
    with pytest.warns(InferredDomainWarning):  # the draft still says 'inferred: true'
        return PrivBayes(epsilon=1.0, random_state=seed).fit(data, schema)


def _check_values(frame: pd.DataFrame, real: pd.DataFrame) -> None:
    """Every sampled value is spelled as the input spells its values, in the input's type."""
    assert set(frame["flag"].unique()) <= {True, False}
    visits = frame["visits"].dropna()
    assert set(visits.tolist()) <= set(real["visits"].dropna().tolist())
    assert frame["visits"].isna().any()  # the missing category (10 % of the input) is sampled as <NA>
    amount = frame["amount"].to_numpy()
    assert np.array_equal(np.round(amount, 2), amount) and (amount >= 0).all()  # 2 decimals, in the bounds
    assert list(frame["size"].cat.categories) == ORDER and frame["size"].cat.ordered
    assert sorted(frame["colour"].cat.categories) == ["blue", "green", "red"] and not frame["colour"].cat.ordered
    seen = frame["seen"]
    assert (seen == seen.dt.normalize()).all()  # midnight UTC: the day is kept, not the time of day
    assert all(type(d) is datetime.date for d in frame["born"])
    assert all(isinstance(c, str) for c in frame["city"]) and set(frame["city"]) <= set(real["city"])
    assert set(frame["team"]) <= {"north", "south"}


def test_a_dataframe_round_trips_its_dtypes_category_order_and_spellings(tmp_path):
    real = _typed_frame()
    draft = draft_schema(real)
    attrs = {a["name"]: a for a in draft.to_dict()["attributes"]}
    assert draft.to_dict()["drop"] == []
    assert attrs["flag"]["categories"] == [False, True] and attrs["flag"]["dtype"] == "bool"
    assert attrs["visits"]["dtype"] == "Int64" and attrs["visits"]["categories"] == [0, 1, 2, 3, 4]
    assert attrs["size"]["categories"] == ORDER and attrs["size"]["ordered"] is True
    assert attrs["seen"]["kind"] == "date" and attrs["seen"]["dtype"] == "datetime64[ns, UTC]"
    assert attrs["born"]["dtype"] == "date" and attrs["city"]["dtype"] == "object"
    assert attrs["amount"]["decimals"] == 2 and attrs["amount"]["dtype"] == "float64"
    model = _fit(real, draft.schema())
    synthetic = model.sample(2000, random_state=2)
    assert synthetic.dtypes.astype(str).to_dict() == real.dtypes.astype(str).to_dict()
    _check_values(synthetic, real)
    # the model file keeps the dtypes: a loaded model samples the same types
    model.save(tmp_path / "m.json")
    again = privbayes.load(tmp_path / "m.json").sample(500, random_state=3)
    assert again.dtypes.astype(str).to_dict() == real.dtypes.astype(str).to_dict()
    assert list(again["size"].cat.categories) == ORDER and again["size"].cat.ordered


def test_a_parquet_file_round_trips_its_dtypes(tmp_path):
    real = _typed_frame(seed=3)
    real.to_parquet(tmp_path / "in.parquet")
    draft = draft_schema(tmp_path / "in.parquet")
    (tmp_path / "draft.yaml").write_text(draft.to_yaml())
    schema = draft.schema()
    assert schema.attributes[schema.index("size")].categories == tuple(ORDER)  # the dictionary's order
    model = _fit(tmp_path / "in.parquet", schema)
    synthetic = model.sample(2000, random_state=2)
    assert synthetic.dtypes.astype(str).to_dict() == real.dtypes.astype(str).to_dict()
    _check_values(synthetic, real)
    # through the command line, streamed in chunks, the Parquet output reads back as the input does
    assert main(["fit", str(tmp_path / "in.parquet"), "--schema", str(tmp_path / "draft.yaml"), "--epsilon", "1",
                 "--seed", "1", "-o", str(tmp_path / "m.json")]) == 0
    assert main(["sample", str(tmp_path / "m.json"), "-n", "1500", "--seed", "2",
                 "-o", str(tmp_path / "out.parquet")]) == 0
    back, before = pd.read_parquet(tmp_path / "out.parquet"), pd.read_parquet(tmp_path / "in.parquet")
    assert back.dtypes.astype(str).to_dict() == before.dtypes.astype(str).to_dict()
    assert list(back["size"].cat.categories) == ORDER and back["size"].cat.ordered


def test_a_csv_round_trips_its_spellings(tmp_path):
    real = _typed_frame(seed=4)
    real.to_csv(tmp_path / "in.csv", index=False)
    assert main(["schema", "infer", str(tmp_path / "in.csv"), "-o", str(tmp_path / "draft.yaml")]) == 0
    doc = yaml.safe_load((tmp_path / "draft.yaml").read_text())
    attrs = {a["name"]: a for a in doc["attributes"]}
    assert attrs["seen"]["dtype"] == "datetime64[ns, UTC]"  # time stamps with +00:00: written back so
    assert "dtype" not in attrs["flag"] and "dtype" not in attrs["city"]  # a CSV carries no types: text stays text
    assert main(["fit", str(tmp_path / "in.csv"), "--schema", str(tmp_path / "draft.yaml"), "--epsilon", "1",
                 "--seed", "1", "-o", str(tmp_path / "m.json")]) == 0
    assert main(["sample", str(tmp_path / "m.json"), "-n", "2000", "--seed", "2",
                 "-o", str(tmp_path / "out.csv")]) == 0
    read = {"dtype": str, "keep_default_na": False}
    before, after = pd.read_csv(tmp_path / "in.csv", **read), pd.read_csv(tmp_path / "out.csv", **read)
    assert list(after.columns) == list(before.columns)
    for column in ("flag", "visits", "size", "colour", "city", "team"):  # every spelling is one the input uses
        assert set(after[column]) <= set(before[column]), column
    assert "" in set(after["visits"])  # missing written as the input writes it: an empty field
    assert after["amount"].str.fullmatch(r"\d+(\.\d{1,2})?").all()
    assert after["born"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert after["seen"].str.fullmatch(r"\d{4}-\d{2}-\d{2} 00:00:00\+00:00").all()
    assert before["seen"].str.fullmatch(r"\d{4}-\d{2}-\d{2} 00:00:00\+00:00").all()


# --- one spelling per category -------------------------------------------------------------------

@pytest.mark.parametrize("texts,expected", [
    (["0.0", "1", "2", "3", "4", "5.5"], [0.0, 1.0, 2.0, 3.0, 4.0, 5.5]),  # the mix: all floats
    (["1.0", "2", "3"], [1, 2, 3]),                                         # whole numbers: ints
    (["01", "02", "10"], ["01", "02", "10"]),                               # leading zeros: codes, text
    (["1", "2", "x"], ["1", "2", "x"]),                                     # not all numbers: all text
])
def test_a_csv_column_gets_one_spelling(tmp_path, texts, expected):
    rows = [texts[i % len(texts)] for i in range(60)]
    pd.DataFrame({"v": rows, "w": ["a", "b"] * 30}).to_csv(tmp_path / "t.csv", index=False)
    attribute = draft_schema(tmp_path / "t.csv").to_dict()["attributes"][0]
    assert attribute["categories"] == expected
    assert len({type(c) for c in attribute["categories"]}) == 1
    categories = yaml.safe_load(yaml.safe_dump(attribute))["categories"]
    assert categories == expected and [type(c) for c in categories] == [type(c) for c in expected]


def test_a_float_column_of_few_values_is_spelled_as_floats_and_comes_back_as_floats():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"score": rng.choice([0.0, 1.0, 2.0, 5.5], 400), "g": rng.choice(["a", "b"], 400)})
    attribute = draft_schema(frame).to_dict()["attributes"][0]
    assert attribute["categories"] == [0.0, 1.0, 2.0, 5.5] and attribute["dtype"] == "float64"
    assert all(type(c) is float for c in attribute["categories"])
    synthetic = _fit(frame, draft_schema(frame).schema()).sample(500, random_state=1)
    assert synthetic["score"].dtype == np.float64 and set(synthetic["score"]) <= {0.0, 1.0, 2.0, 5.5}


# --- booleans ------------------------------------------------------------------------------------

@pytest.mark.parametrize("categories", [["False", "True"], [False, True]])
def test_a_bool_column_fits_from_a_dataframe_and_parquet_whatever_the_categories_spelling(tmp_path, categories):
    # The wall: the draft proposed ['False', 'True'] and fit refused the typed booleans.
    rng = np.random.default_rng(6)
    frame = pd.DataFrame({"b": rng.random(300) < 0.4, "c": rng.choice(["x", "y"], 300)})
    frame.to_parquet(tmp_path / "t.parquet")
    schema = {"attributes": [{"name": "b", "kind": "binary", "categories": categories},
                             {"name": "c", "kind": "binary", "categories": ["x", "y"]}]}
    for data in (frame, tmp_path / "t.parquet"):
        model = PrivBayes(epsilon=1.0, random_state=1).fit(data, schema)
        assert set(model.sample(50, random_state=1)["b"]) <= set(categories)


def test_a_nullable_boolean_comes_back_nullable():
    rng = np.random.default_rng(7)
    flags = pd.array(np.where(rng.random(400) < 0.2, None, rng.random(400) < 0.5).tolist(), dtype="boolean")
    frame = pd.DataFrame({"b": flags, "c": rng.choice(["x", "y"], 400)})
    attribute = draft_schema(frame).to_dict()["attributes"][0]
    assert attribute["dtype"] == "boolean" and attribute["missing"] == "category"
    assert _fit(frame, draft_schema(frame).schema()).sample(300, random_state=1)["b"].dtype == "boolean"


def test_a_parquet_integer_column_with_nulls_gets_a_nullable_dtype(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    values = [None if i % 7 == 0 else i % 3 for i in range(70)]  # Arrow int64 with nulls, no pandas metadata
    table = pa.table({"k": pa.array(values, pa.int64()), "c": pa.array(["x", "y"] * 35)})
    pq.write_table(table, tmp_path / "t.parquet")
    attribute = draft_schema(tmp_path / "t.parquet").to_dict()["attributes"][0]
    assert attribute["dtype"] == "Int64" and attribute["missing"] == "category"


# --- the schema keys -----------------------------------------------------------------------------

def _one(**attribute) -> Schema:
    return Schema.from_dict({"attributes": [{"name": "a", **attribute}, {"name": "b", "kind": "binary"}]})


@pytest.mark.parametrize("attribute,message", [
    ({"kind": "categorical", "categories": [1, 2], "dtype": "int64", "missing": "category"},
     "dtype 'int64' cannot hold missing values; use 'Int64'"),
    ({"kind": "binary", "categories": ["False", "True"], "dtype": "bool"}, "needs the categories false and true"),
    ({"kind": "categorical", "categories": [1, 300], "dtype": "int8"}, r"needs integer categories in \[-128, 127\]"),
    ({"kind": "categorical", "categories": ["a", "b"], "dtype": "decimal"}, "dtype 'decimal' is not one"),
    ({"kind": "categorical", "categories": ["a", "b"], "ordered": True}, "'ordered: true' is for 'dtype: category'"),
    ({"kind": "numeric", "lower": 0, "upper": 10, "dtype": "int64"}, "set 'integer: true'"),
    ({"kind": "numeric", "lower": 0, "upper": 1000, "integer": True, "dtype": "uint8"}, "holds whole numbers in"),
    ({"kind": "date", "lower": "2020-01-01", "upper": "2020-12-31", "dtype": "datetime64[ns, Mars/Olympus]"},
     "the time zone must be an IANA name"),
    ({"kind": "date", "lower": "1500-01-01", "upper": "2020-12-31", "dtype": "datetime64[ns]"},
     r"use datetime64\[us\]"),
    ({"kind": "date", "lower": "2020-01-01", "upper": "2020-12-31", "dtype": "category"}, "is not one a date"),
])
def test_a_dtype_the_attribute_cannot_be_sampled_into_is_refused_in_one_line(attribute, message):
    with pytest.raises(InputError, match=message) as caught:
        _one(**attribute)
    assert "\n" not in str(caught.value)


def test_dtypes_round_trip_through_schema_files(tmp_path):
    from privbayes.schema.files import load_schema, save_schema

    schema = Schema.from_dict({"attributes": [
        {"name": "c", "kind": "categorical", "categories": ["lo", "mid", "hi"], "dtype": "category", "ordered": True},
        {"name": "t", "kind": "date", "lower": "2020-01-01", "upper": "2021-12-31",
         "dtype": "datetime64[ms, Europe/Paris]", "granularity": "month", "bins": 24},
        {"name": "n", "kind": "numeric", "lower": 0, "upper": 99, "integer": True, "dtype": "str"}]})
    for suffix in (".yaml", ".json"):
        save_schema(schema, tmp_path / f"s{suffix}")
        assert load_schema(tmp_path / f"s{suffix}") == schema
    codes = np.array([[0, 0, 0], [2, 23, 15], [1, 5, 3]])
    frame = schema.decode(codes, np.random.default_rng(0))
    assert str(frame["t"].dtype) == "datetime64[ms, Europe/Paris]"
    assert frame["t"].iloc[1] == pd.Timestamp("2021-12-01", tz="Europe/Paris")  # the month's first day, midnight
    assert all(re.fullmatch(r"\d+", v) for v in frame["n"])  # whole numbers written as text


def test_without_a_dtype_the_output_is_as_before():
    schema = Schema.from_dict({"attributes": [
        {"name": "c", "kind": "categorical", "categories": [1, 2, "x"]},
        {"name": "n", "kind": "numeric", "lower": 0, "upper": 9, "integer": True},
        {"name": "d", "kind": "date", "lower": "2020-01-01", "upper": "2020-12-31", "missing": "category"}]})
    frame = schema.decode(np.array([[0, 1, 0], [2, 3, 16]]), np.random.default_rng(0))
    assert frame["c"].dtype == object and frame["c"].tolist() == [1, "x"]
    assert str(frame["n"].dtype) == "Int64"
    assert re.fullmatch(r"2020-01-\d\d", frame["d"].iloc[0]) and frame["d"].iloc[1] is None


def test_time_stamps_are_read_as_the_date_they_name():
    from privbayes.schema import date_ordinal

    day = date_ordinal("2020-03-01", "day")
    for text in ("2020-03-01 23:30:00+05:00", "2020-03-01T00:00Z", "2020-03-01 10:00:00.000000000Z",
                 "2020-03-01T23:59:59-0800"):
        assert date_ordinal(text, "day") == day, text
    assert date_ordinal("2020-03-02T00:00Z", "day") == day + 1
    assert date_ordinal(pd.Timestamp("2020-03-01 23:30", tz="Asia/Tokyo"), "day") == day  # its date in its zone
    assert date_ordinal("2020-03-01 10:00+5", "day") is None  # an offset is two digits, then optionally two more
