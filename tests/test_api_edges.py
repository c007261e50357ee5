"""The API's rough edges of issue 29: identifiers regenerated as keys (--keep-ids), data that is not
a table, a fit that keeps no correlation, a target named by its column alone, and an evaluation
naming the file whose values are out of bounds."""

import uuid
import warnings

import numpy as np
import pandas as pd
import pytest

import privbayes
from privbayes import PrivBayes, counting
from privbayes.cli import main
from privbayes.core.errors import IndependentColumnsWarning, InputError
from privbayes.counting.draft import draft_schema
from privbayes.schema import Schema

SCHEMA = {"attributes": [{"name": "age", "kind": "numeric", "lower": 0, "upper": 100, "integer": True},
                         {"name": "g", "kind": "categorical", "categories": ["a", "b", "c"]},
                         {"name": "income", "kind": "binary", "categories": ["<=50K", ">50K"]}],
          "drop": [{"name": "client", "identifier": "integer"}, "notes", {"name": "ref", "identifier": "uuid"}]}


def _frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    return pd.DataFrame({"client": np.arange(n) + 7_000, "age": age, "g": rng.choice(["a", "b", "c"], n),
                         "income": np.where(age + rng.normal(0, 10, n) > 50, ">50K", "<=50K"),
                         "notes": [f"text {i % 97}" for i in range(n)], "ref": [str(uuid.uuid4()) for _ in range(n)]})


# --- identifiers ---------------------------------------------------------------------------------

def test_the_draft_records_an_identifier_and_its_kind_of_key():
    draft = draft_schema(_frame(200))
    assert draft.to_dict()["drop"] == [{"name": "client", "identifier": "integer"}, "notes",
                                       {"name": "ref", "identifier": "uuid"}]
    assert "- {name: client, identifier: integer}" in draft.to_yaml()
    assert draft.schema().identifiers == (("client", "integer"), ("ref", "uuid"))


def test_keep_ids_regenerates_unique_keys_that_carry_no_data():
    model = PrivBayes(1.0, random_state=1).fit(_frame(500), SCHEMA)
    plain = model.sample(300, random_state=2)
    keyed = model.sample(300, random_state=2, keep_ids=True)
    assert list(keyed.columns) == ["client", "ref", "age", "g", "income"]  # the keys in front; 'notes' stays dropped
    assert keyed["client"].tolist() == list(range(1, 301)) and keyed["client"].dtype == np.int64
    assert keyed["ref"].is_unique and all(uuid.UUID(k).version == 4 for k in keyed["ref"])
    pd.testing.assert_frame_equal(keyed[plain.columns], plain)  # the same rows: keys change nothing else
    # the released value does the same; the keys depend on the row's position only, not on the data
    released = model.released_.sample(300, random_state=2, keep_ids=True)
    pd.testing.assert_frame_equal(released, keyed)
    other = PrivBayes(1.0, random_state=1).fit(_frame(500, seed=9), SCHEMA).sample(300, random_state=5, keep_ids=True)
    assert other["client"].tolist() == keyed["client"].tolist() and other["ref"].tolist() == keyed["ref"].tolist()


def test_keep_ids_through_the_command_line_numbers_rows_across_chunks(tmp_path, monkeypatch):
    import privbayes.bayesnet.sampling as sampling

    monkeypatch.setattr(sampling, "BLOCK_ROWS", 64)  # many chunks for a small table
    _frame(400).to_csv(tmp_path / "t.csv", index=False)
    Schema.from_dict(SCHEMA)  # valid as written
    import yaml

    (tmp_path / "s.yaml").write_text(yaml.safe_dump(SCHEMA))
    assert main(["fit", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.yaml"), "--epsilon", "1",
                 "--seed", "1", "-o", str(tmp_path / "m.json")]) == 0
    for suffix in (".csv", ".parquet"):
        out = tmp_path / f"out{suffix}"
        assert main(["sample", str(tmp_path / "m.json"), "-n", "1000", "--seed", "3", "--keep-ids",
                     "-o", str(out)]) == 0
        table = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
        assert table["client"].tolist() == list(range(1, 1001)) and table["ref"].is_unique


def test_keep_ids_without_an_identifier_is_refused_in_one_line(tmp_path, capsys):
    schema = {**SCHEMA, "drop": ["client", "notes", "ref"]}
    model = PrivBayes(1.0, random_state=1).fit(_frame(200), schema)
    with pytest.raises(InputError, match="the schema lists no identifier under drop"):
        model.sample(10, keep_ids=True)
    model.save(tmp_path / "m.json")
    assert main(["sample", str(tmp_path / "m.json"), "-n", "10", "--keep-ids", "-o", str(tmp_path / "o.csv")]) == 2
    assert "no identifier" in capsys.readouterr().err and not (tmp_path / "o.csv").exists()


def test_keep_ids_on_a_private_mrf():
    pytest.importorskip("scipy")
    cliques = [("age", "income"), ("g", "income")]
    model = privbayes.PrivateMRF(cliques=cliques, epsilon=1, random_state=1).fit(_frame(300), SCHEMA)
    keyed = model.released_.sample(50, random_state=1, keep_ids=True)
    assert keyed["client"].tolist() == list(range(1, 51))


@pytest.mark.parametrize("entry,message", [
    ({"name": "client", "identifier": "serial"}, "KIND one of integer, text, uuid"),
    ({"name": "client", "kind": "integer"}, "an entry of drop is a column name or"),
])
def test_a_malformed_identifier_is_refused(entry, message):
    with pytest.raises(InputError, match=message):
        Schema.from_dict({**SCHEMA, "drop": [entry]})


# --- data that is not a table ---------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda data: PrivBayes(1.0).fit(data, SCHEMA),
    lambda data: counting.open(data, SCHEMA),
    lambda data: draft_schema(data),
    lambda data: privbayes.infer_schema(data),
])
def test_a_numpy_array_is_refused_in_one_line_naming_what_is_expected(call):
    with pytest.raises(InputError, match=r"data must be a pandas DataFrame or the path of a CSV, Parquet or \.dat "
                                         r"file, got numpy\.ndarray \(wrap it: pandas\.DataFrame"):
        call(_frame(50).to_numpy())


# --- a fit that keeps no correlation -------------------------------------------------------------

PENGUINS = {"attributes": [
    {"name": "species", "kind": "categorical", "categories": ["Adelie", "Chinstrap", "Gentoo"]},
    {"name": "island", "kind": "categorical", "categories": ["Biscoe", "Dream", "Torgersen"]},
    {"name": "bill_length", "kind": "numeric", "lower": 30, "upper": 60, "decimals": 1},
    {"name": "bill_depth", "kind": "numeric", "lower": 13, "upper": 22, "decimals": 1},
    {"name": "flipper", "kind": "numeric", "lower": 170, "upper": 240, "integer": True},
    {"name": "mass", "kind": "numeric", "lower": 2500, "upper": 6500, "integer": True},
    {"name": "sex", "kind": "binary", "categories": ["female", "male"]}]}


def _penguins(n: int, seed: int = 0) -> pd.DataFrame:
    """A table shaped like the issue's 344-row penguins (7 columns), its columns correlated through species."""
    rng = np.random.default_rng(seed)
    species = rng.integers(0, 3, n)
    return pd.DataFrame({
        "species": np.array(["Adelie", "Chinstrap", "Gentoo"])[species],
        "island": np.array(["Torgersen", "Dream", "Biscoe"])[(species + (rng.random(n) < 0.3)) % 3],
        "bill_length": np.round(np.clip(rng.normal(39 + 5 * species, 2.5), 30, 60), 1),
        "bill_depth": np.round(np.clip(rng.normal(18.5 - 2 * (species == 2), 1), 13, 22), 1),
        "flipper": np.clip(rng.normal(190 + 12 * species, 6), 170, 240).round().astype(int),
        "mass": np.clip(rng.normal(3700 + 700 * (species == 2), 400), 2500, 6500).round().astype(int),
        "sex": rng.choice(["female", "male"], n)})


def test_a_small_table_at_degree_0_says_so_and_a_large_one_does_not():
    small = _penguins(344)
    with pytest.warns(IndependentColumnsWarning, match=r"degree 0: at ε = 1 and θ = 4 the table is too small"):
        model = PrivBayes(1.0, random_state=1).fit(small, PENGUINS)
    assert model.released_.degree == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", IndependentColumnsWarning)
        assert PrivBayes(1.0, random_state=1).fit(_penguins(30_000), PENGUINS).released_.degree >= 1
        PrivBayes(1.0, degree=0, random_state=1).fit(small, PENGUINS)  # asked for: no note
    with pytest.warns(IndependentColumnsWarning) as caught:  # under add/remove: decided on the noisy count
        PrivBayes(1.0, neighbours="add-remove", random_state=1).fit(_penguins(200), PENGUINS)
    assert all("200" not in str(w.message) for w in caught)  # n is private there: never in the note


def test_the_command_line_shows_the_degree_0_note(tmp_path, capsys):
    import yaml

    _penguins(344).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(PENGUINS))
    assert main(["fit", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.yaml"), "--method", "privbayes",
                 "--epsilon", "1",
                 "--seed", "1", "-o", str(tmp_path / "m.json")]) == 0
    err = capsys.readouterr().err
    assert "privbayes: warning: the network has degree 0" in err and "344" not in err.replace(str(tmp_path), "")


# --- evaluate ------------------------------------------------------------------------------------

def test_evaluate_names_the_file_whose_values_are_out_of_bounds(tmp_path, capsys):
    import yaml

    frame = _frame(300)
    frame.to_csv(tmp_path / "real.csv", index=False)
    synthetic = frame.copy()
    synthetic.loc[3, "age"] = 500
    synthetic.to_csv(tmp_path / "synth.csv", index=False)
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(SCHEMA))
    assert main(["evaluate", str(tmp_path / "real.csv"), str(tmp_path / "synth.csv"), "--schema",
                 str(tmp_path / "s.yaml"), "--no-classifier"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'synth.csv'}: column 'age': a value is outside the schema's bounds" in err
    assert "500" not in err.replace(str(tmp_path), "")  # the value, not pytest's numbered folder
    # the documented way: a schema whose numbers are clipped (top-level 'invalid: clip')
    (tmp_path / "clip.yaml").write_text(yaml.safe_dump({**SCHEMA, "invalid": "clip"}))
    assert main(["evaluate", str(tmp_path / "real.csv"), str(tmp_path / "synth.csv"), "--schema",
                 str(tmp_path / "clip.yaml"), "--no-classifier"]) == 0


def test_a_target_named_by_its_column_alone_is_its_last_category_against_the_rest():
    from privbayes.evaluation.report import parse_target

    schema = Schema.from_dict(SCHEMA)
    target = parse_target("income", schema)
    assert target == parse_target("income=>50K", schema)  # the same column, name and positive codes
    assert parse_target("g", schema).positive == frozenset({2})
    with pytest.raises(InputError, match=r"a numeric column needs a threshold, e\.g\. age>=NUMBER"):
        parse_target("age", schema)
    with pytest.raises(InputError, match="must look like COLUMN, COLUMN=VALUE"):
        parse_target("nope", schema)
