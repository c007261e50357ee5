"""NBC publishing works on every schema we write (issue 28): the views' value list follows the
schema's leaf codes exactly — bins of equal width, log-spaced or declared edges, special values,
dates, categories with a taxonomy, the missing code (also for invalid values) — and the unedited
``schema infer`` draft of Adult publishes and checks from the command line."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pandas as pd
import pytest
import yaml

from privbayes.cli import main
from privbayes.counting import open as open_table
from privbayes.methods.nbc.equivalence import check_equivalence
from privbayes.methods.nbc.safety import safety_transform
from privbayes.methods.nbc.views import attribute_values, views_from_table
from privbayes.methods.nbc.viewsfile import load_views, save_views
from privbayes.schema import MISSING_LABEL, Schema
from privbayes.schema.decoding import decode

SCHEMA = {"version": 1, "attributes": [
    {"name": "hours", "kind": "numeric", "lower": 0, "upper": 80, "bins": 4, "integer": True,
     "special_values": [40, 999]},
    {"name": "gain", "kind": "numeric", "lower": 0, "upper": 999, "bins": 3, "scale": "log"},
    {"name": "score", "kind": "numeric", "edges": [0, 10, 50, 100], "decimals": 1},
    {"name": "day", "kind": "date", "lower": "2020-01-01", "upper": "2020-12-31", "bins": 4},
    {"name": "job", "kind": "categorical", "categories": ["c", "a", "d", "b"], "taxonomy": [["a", "c"], ["b", "d"]],
     "missing": "category"},
    {"name": "flag", "kind": "categorical", "categories": ["x", "y"], "missing": "category", "invalid": "category"},
    {"name": "y", "kind": "binary", "categories": ["no", "yes"]}]}


def frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], n)
    hours = np.where(rng.random(n) < 0.3, 40, rng.integers(0, 81, n))
    hours = np.where(rng.random(n) < 0.05, 999, hours)
    return pd.DataFrame({
        "hours": hours,
        "gain": np.round(np.expm1(rng.uniform(0, 6.9, n) * np.where(y == "yes", 1.0, 0.9)), 2),
        "score": np.round(rng.uniform(0, 100, n), 1),
        "day": [str(np.datetime64("2020-01-01") + int(d)) for d in rng.integers(0, 366, n)],
        "job": np.where(rng.random(n) < 0.1, None, rng.choice(["a", "b", "c", "d"], n)),
        "flag": np.where(rng.random(n) < 0.1, "neither", rng.choice(["x", "y"], n)),  # invalid → the missing code
        "y": y,
    })


def test_value_names_follow_the_leaf_codes():
    schema = Schema.from_dict(SCHEMA)
    table = open_table(frame(), schema)
    views = views_from_table(table, "y")
    names = {a.name: a.values for a in views.attributes}
    assert names["hours"] == ("[0, 20)", "[20, 40)", "[40, 60)", "[60, 80)", "=40", "=999")
    assert names["score"] == ("[0, 10)", "[10, 50)", "[50, 100)")
    assert names["day"] == ("[2020-01-01, 2020-04-02)", "[2020-04-02, 2020-07-02)", "[2020-07-02, 2020-10-01)",
                            "[2020-10-01, 2020-12-31)")
    assert names["job"] == ("c", "a", "d", "b", MISSING_LABEL)  # declared order; the taxonomy reorders nothing
    assert names["flag"] == ("x", "y", MISSING_LABEL)
    assert len(names["gain"]) == 3 and names["gain"][0].startswith("[0, ")
    k = schema.index("y")
    for attr, counted in zip(views.attributes, [a for a in schema.attributes if a.name != "y"]):
        assert len(attr.values) == counted.size
        # the decoder's own labels of every leaf code (missing → None)
        decoded = decode(counted, np.arange(counted.size), np.random.default_rng(0), bin_labels=True)
        assert list(attr.values) == [MISSING_LABEL if v is None or v != v else str(v) for v in decoded]
        rows = np.asarray(table.counts([schema.index(attr.name), k]))
        assert [list(r) for r in attr.counts] == rows.tolist()
    flag = next(a for a in views.attributes if a.name == "flag")
    assert sum(flag.counts[2]) > 0  # the invalid values are counted under the missing code


def test_every_kind_publishes_checks_and_synthesizes(tmp_path, capsys):
    data, schema_path = tmp_path / "t.csv", tmp_path / "s.yaml"
    frame().to_csv(data, index=False)
    schema_path.write_text(yaml.safe_dump(SCHEMA, sort_keys=False))
    views_path, synth = tmp_path / "v.json", tmp_path / "synth.csv"
    assert main(["nbc", "publish", str(data), "--schema", str(schema_path), "--class", "y", "--gamma", "2",
                 "-o", str(views_path)]) == 0
    assert main(["nbc", "check", str(views_path), str(data), "--schema", str(schema_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("OK: NBC-equivalent on all ")
    # a large γ leaves the (small) counts unchanged: the synthetic table has exactly these views
    assert main(["nbc", "publish", str(data), "--schema", str(schema_path), "--class", "y", "--gamma",
                 "1000000000000000000000", "-o", str(views_path), "--synthesize", str(synth),
                 "--seed", "3"]) == 0
    published, _ = load_views(views_path)
    remade = views_from_table(open_table(str(synth), Schema.from_dict(SCHEMA)), "y")
    assert remade == published


def test_names_stay_distinct_when_bins_are_narrow():
    attr = Schema.from_dict({"attributes": [
        {"name": "x", "kind": "numeric", "lower": 1_000_000, "upper": 1_000_001, "bins": 8},
        {"name": "y", "kind": "binary"}]}).attributes[0]
    names = attribute_values(attr)
    assert len(set(names)) == len(names) == attr.size


@pytest.fixture(scope="module")
def adult_csv(tmp_path_factory):
    folder = tmp_path_factory.mktemp("adult")
    with resources.as_file(resources.files("privbayes") / "data" / "adult.csv.gz") as path:
        pd.read_csv(path).to_csv(folder / "adult.csv", index=False)
    return folder / "adult.csv"


def test_the_unedited_adult_draft_publishes_and_checks(adult_csv, tmp_path, capsys):
    draft, views = tmp_path / "draft.yaml", tmp_path / "v.json"
    assert main(["schema", "infer", str(adult_csv), "-o", str(draft)]) == 0
    assert "special_values" in draft.read_text()  # hours-per-week, capital-gain, capital-loss
    capsys.readouterr()
    assert main(["nbc", "publish", str(adult_csv), "--schema", str(draft), "--class", "income", "--gamma", "283",
                 "-o", str(views)]) == 0
    assert main(["nbc", "check", str(views), str(adult_csv), "--schema", str(draft)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("OK: NBC-equivalent on all ") and "NOT differential privacy" in out[-1]
    doc = json.loads(views.read_text())
    hours = next(a for a in doc["attributes"] if a["name"] == "hours-per-week")
    # hours-per-week: the 8 heaviest point masses of at least 2 % (20, 30, 35, 40, 45, 50, 55, 60 hours)
    assert hours["values"][-3:] == ["=50", "=55", "=60"] and len(hours["values"]) == len(hours["counts"])


def test_save_and_load_keep_special_value_names(tmp_path):
    schema = Schema.from_dict(SCHEMA)
    views = views_from_table(open_table(frame(), schema), "y")
    out = safety_transform(views, 3)
    save_views(out, tmp_path / "v.json")
    loaded, _ = load_views(tmp_path / "v.json")
    assert loaded == out.views and check_equivalence(views, loaded).equivalent


def test_synthetic_values_rounded_to_decimals_stay_in_their_bins():
    """Bin [0, 0.1) at one decimal: a value drawn in it rounds to 0.1 half the time, which is the
    next bin; the synthetic table must still have exactly the published views."""
    from privbayes.methods.nbc.synthesis import synthetic_table

    schema = Schema.from_dict({"attributes": [
        {"name": "x", "kind": "numeric", "edges": [0, 0.1, 1], "decimals": 1},
        {"name": "k", "kind": "numeric", "lower": 0, "upper": 10, "bins": 3, "integer": True, "special_values": [5]},
        {"name": "y", "kind": "binary", "categories": ["no", "yes"]}]})
    data = pd.DataFrame({"x": [0.05] * 40 + [0.5] * 30, "k": [1, 5, 9, 4, 7] * 14, "y": ["no", "yes"] * 35})
    views = views_from_table(open_table(data, schema), "y")
    synthetic = synthetic_table(views, schema, np.random.default_rng(0))
    assert views_from_table(open_table(synthetic, schema), "y") == views
