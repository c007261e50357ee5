"""The draft fits its own data exactly and is honest: irrational point masses survive the round
trip through the command line (CSV, Parquet, DataFrame), bounds are never a non-round extreme,
point masses from 2 % are proposed, questions only where the answer changes the model
(docs/decisions.md, "Schema drafts: exact spelling, outward rounding, point masses")."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import yaml

from privbayes import PrivBayes
from privbayes.cli import main
from privbayes.core.errors import InferredDomainWarning, InputError
from privbayes.counting.draft import draft_schema
from privbayes.evaluation.report import average_tvd_against, verdict_against
from privbayes.schema.rounding import outward_bounds

MASSES = {"ln": math.log(0.1), "pi": -math.pi, "third": 1 / 3}


def _masses(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    out = {name: np.where(rng.random(n) < 0.25, mass, rng.normal(5, 1, n)) for name, mass in MASSES.items()}
    return pd.DataFrame({**out, "g": rng.choice(["a", "b"], n)})


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_an_irrational_point_mass_round_trips_through_the_command_line(tmp_path, kind):
    frame = _masses()
    real = tmp_path / f"real.{kind}"
    frame.to_csv(real, index=False) if kind == "csv" else frame.to_parquet(real, index=False)
    draft, model, synth = tmp_path / "draft.yaml", tmp_path / "m.json", tmp_path / f"synth.{kind}"
    assert main(["schema", "infer", str(real), "-o", str(draft)]) == 0
    attributes = {a["name"]: a for a in yaml.safe_load(draft.read_text())["attributes"]}
    for name, mass in MASSES.items():
        assert attributes[name]["special_values"] == [mass]  # exactly the data's float, not 12 digits of it
    assert main(["fit", str(real), "--schema", str(draft), "--method", "privbayes", "--epsilon", "1", "--seed", "1",
                 "-o", str(model)]) == 0
    assert main(["sample", str(model), "-n", "500", "--seed", "1", "-o", str(synth)]) == 0
    sampled = pd.read_csv(synth) if kind == "csv" else pd.read_parquet(synth)
    for name, mass in MASSES.items():
        assert (sampled[name] == mass).any()  # drawn back exactly
    assert main(["evaluate", str(real), str(synth), "--schema", str(draft), "--no-classifier"]) == 0


def test_an_irrational_point_mass_round_trips_from_a_dataframe():
    frame = _masses()
    schema = draft_schema(frame).schema()
    assert [a.special_values for a in schema.attributes[:3]] == [(m,) for m in MASSES.values()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferredDomainWarning)
        sampled = PrivBayes(1.0, random_state=1).fit(frame, schema).sample(500, random_state=1)
    assert all((sampled[name] == mass).any() for name, mass in MASSES.items())
    assert average_tvd_against(frame, [sampled], schema)[0] < 1  # evaluate reads both frames on the draft
    assert verdict_against(frame, sampled, schema)


def test_a_value_outside_the_bounds_and_the_special_values_is_refused_saying_why(tmp_path):
    frame = _masses()
    schema = draft_schema(frame).schema()
    frame.loc[0, "ln"] = -2.30258509299  # the old draft's spelling: neither in the bounds nor special
    with pytest.raises(InputError, match="outside the schema's bounds .* and is not one of its 1 special values") \
            as refused:
        PrivBayes(1.0, random_state=1).fit(frame, schema)
    assert "2.3025" not in str(refused.value)


@pytest.mark.parametrize(("low", "high", "integer", "expected"), [
    (19, 91, True, (10, 100)), (0, 24, True, (0, 25)), (5, 77, True, (0, 80)), (10, 90, True, (0, 100)),
    (0.0951, 8.9, False, (0, 9)), (-0.3, 0.7, False, (-0.4, 0.8)), (5, 5, True, (5, 6)), (0, 100, True, (0, 100)),
])
def test_bounds_are_rounded_outward_on_the_grid(low, high, integer, expected):
    assert outward_bounds(low, high, integer) == expected


def test_no_bound_is_a_non_round_extreme_of_the_data():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"age": rng.integers(19, 92, 500), "income": rng.integers(0, 25, 500),
                          "count": rng.integers(5, 78, 500), "x": rng.normal(3.3, 1.7, 500),
                          "tiny": rng.normal(0, 1e-7, 500), "huge": rng.lognormal(60, 1, 500)})
    for attr in draft_schema(frame).schema().attributes:
        column = frame[attr.name]
        assert attr.lower <= column.min() and attr.upper >= column.max()
        assert attr.lower != column.min() or column.min() == 0
        assert attr.upper != column.max()


def test_a_point_mass_holding_2_percent_is_proposed_and_a_uniform_integer_gets_none():
    rng = np.random.default_rng(4)
    n = 5000
    heavy = np.where(rng.random(n) < 0.03, 7.25, rng.normal(0, 3, n))
    ages = rng.integers(19, 92, n)  # 73 values of about 1.4 % each: no point mass
    counts = np.where(rng.random(n) < 0.094, 30, rng.integers(0, 30, n))  # 9.4 % among 31 values (old rule: 3/31)
    draft = draft_schema(pd.DataFrame({"x": heavy, "age": ages, "count": counts})).to_dict()["attributes"]
    assert draft[0]["special_values"] == [7.25] and "special_values" not in draft[1]
    assert draft[2]["special_values"] == [30]


def test_questions_only_where_the_answer_changes_the_model():
    rng = np.random.default_rng(5)
    n = 300
    frame = pd.DataFrame({"flag": rng.integers(0, 2, n), "x": rng.normal(0, 1, n),
                          "day": pd.to_datetime(np.array(rng.integers(0, 900, n), dtype="datetime64[D]")),
                          "size": rng.integers(1, 6, n),
                          "sentinel": np.where(rng.random(n) < 0.5, 999, rng.normal(0, 1, n))})
    questions = {p.name: p.question for p in draft_schema(frame).proposals}
    assert questions["flag"] is None  # a 0/1 column is not asked whether it is an amount
    assert questions["x"] is None and questions["day"] is None
    assert questions["size"] is not None and questions["sentinel"] is not None


@pytest.mark.parametrize("kind", ["frame", "csv", "parquet"])
def test_a_date_holding_a_large_share_is_a_special_date_sampled_exactly(tmp_path, kind):
    rng = np.random.default_rng(6)
    n = 2000
    days = np.where(rng.random(n) < 0.094, 0, rng.integers(-3000, 3000, n))  # 9.4 % on 1970-01-01
    frame = pd.DataFrame({"day": pd.to_datetime(np.array(days, dtype="datetime64[D]")), "g": rng.choice(["a", "b"], n)})
    data = {"frame": frame, "csv": tmp_path / "t.csv", "parquet": tmp_path / "t.parquet"}[kind]
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    draft = draft_schema(data)
    attribute = draft.to_dict()["attributes"][0]
    assert attribute["special_values"] == ["1970-01-01"] and draft.proposals[0].question is not None
    schema = draft.schema()
    assert schema.to_dict()["attributes"][0]["special_values"] == ["1970-01-01"]  # written back as a date
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferredDomainWarning)
        sampled = PrivBayes(1.0, random_state=1).fit(data, schema).sample(2000, random_state=1)
    share = float((pd.to_datetime(sampled["day"]) == pd.Timestamp("1970-01-01")).mean())
    assert abs(share - 0.094) < 0.03


def test_the_special_values_of_a_date_attribute_are_iso_dates():
    from privbayes.schema import Attribute

    attr = Attribute("d", "date", lower="2020-01-01", upper="2020-12-31", special_values=("2019-06-30",))
    assert attr.number_codes(np.array([attr.special_values[0]]))[0] == attr.bins  # its own code, outside the bounds
    assert attr.bin_labels()[-1] == "=2019-06-30"
    with pytest.raises(InputError, match="special_values of a date attribute must be ISO dates"):
        Attribute("d", "date", lower="2020-01-01", upper="2020-12-31", special_values=(18000,))


def _engine_counts(path, schema, backend):
    from privbayes import counting

    table = counting.open(path, schema, backend=backend)
    return [table.counts([i]) for i in range(len(schema.attributes))]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_duckdb_reads_the_draft_as_numpy_does(tmp_path, kind):
    frame = _masses()
    path = tmp_path / f"t.{kind}"
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    schema = draft_schema(path).schema()
    expected = _engine_counts(path, schema, "numpy")
    assert all(int(c[-1]) > 0 for c in expected[:3])  # each point mass has rows in its own code
    for want, have in zip(expected, _engine_counts(path, schema, "duckdb")):
        np.testing.assert_array_equal(have, want)


@pytest.mark.slow
def test_spark_reads_the_draft_as_numpy_does(tmp_path):
    pytest.importorskip("pyspark")
    from privbayes.counting.spark import local_session

    frame = _masses()
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    schema = draft_schema(tmp_path / "t.parquet").schema()
    session = local_session()
    for want, have in zip(_engine_counts(tmp_path / "t.parquet", schema, "numpy"),
                          _engine_counts(tmp_path / "t.parquet", schema, session)):
        np.testing.assert_array_equal(have, want)
