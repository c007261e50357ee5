"""Model files: save → load → sample reproduces the fitted model's samples; values stay in the domain."""

import json

import numpy as np
import pandas as pd
import pytest

import privbayes
from privbayes import PrivBayes
from privbayes.core.errors import InferredDomainWarning, InputError
from privbayes.counting import leaf_codes
from privbayes.schema import Attribute, Schema


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(5)
    n = 2000
    age = rng.integers(18, 91, n)
    frame = pd.DataFrame({
        "age": age,
        "income": np.round(rng.gamma(2.0, 15000, n).clip(0, 200000), 2),
        "city": rng.choice(["Paris", "Lyon", "Nice", "Lille"], n),
        "smoker": rng.choice(["yes", "no"], n),
        "group": np.where(age > 50, "old", "young"),
    })
    frame.loc[rng.random(n) < 0.05, "city"] = None
    schema = Schema((
        Attribute("age", "numeric", lower=18, upper=90, bins=8, integer=True),
        Attribute("income", "numeric", lower=0, upper=200000, bins=16),
        Attribute("city", "categorical", categories=("Paris", "Lyon", "Nice", "Lille"),
                  taxonomy=(("Paris", "Lille"), ("Lyon", "Nice")), missing="category"),
        Attribute("smoker", "binary", categories=("no", "yes")),
        Attribute("group", "categorical", categories=("young", "old")),
    ))
    return frame, schema


@pytest.mark.parametrize("encoding", ["hierarchical", "vanilla", "binary", "gray"])
def test_save_load_sample_is_identical(tmp_path, mixed, encoding):
    frame, schema = mixed
    model = PrivBayes(2.0, encoding=encoding, random_state=3).fit(frame, schema)
    path = tmp_path / "model.json"
    model.save(path)
    loaded = privbayes.load(path)
    pd.testing.assert_frame_equal(model.sample(500, random_state=8), loaded.sample(500, random_state=8))
    assert loaded.privacy_report() == model.privacy_report()
    assert json.loads(path.read_text())["format"] == "privbayes-model"


@pytest.mark.parametrize("encoding", ["hierarchical", "binary"])
def test_sampled_values_lie_in_the_domain(mixed, encoding):
    frame, schema = mixed
    out = PrivBayes(1.0, encoding=encoding, random_state=1).fit(frame, schema).sample(5000, random_state=2)
    assert list(out.columns) == schema.names
    assert out["age"].between(18, 90).all() and (out["age"] % 1 == 0).all()
    assert out["income"].between(0, 200000).all()
    assert set(out["city"].dropna()) <= {"Paris", "Lyon", "Nice", "Lille"}
    assert set(out["smoker"]) <= {"yes", "no"} and set(out["group"]) <= {"young", "old"}
    leaf_codes(out.rename(columns=str), schema)  # re-encodes without error


def test_bin_labels_on_request(mixed):
    frame, schema = mixed
    out = PrivBayes(1.0, random_state=1).fit(frame, schema).sample(50, random_state=2, bin_labels=True)
    assert out["age"].str.match(r"^\[\d+(\.\d+)?, \d+(\.\d+)?\)$").all()


def test_unseeded_runs_differ_and_seeded_runs_repeat(mixed):
    frame, schema = mixed
    a = PrivBayes(1.0).fit(frame, schema)
    b = PrivBayes(1.0).fit(frame, schema)
    assert not all(np.array_equal(x, y) for x, y in zip(a.conditionals_, b.conditionals_))
    assert not a.privacy_report()["seeded"]
    c = PrivBayes(1.0, random_state=4).fit(frame, schema)
    d = PrivBayes(1.0, random_state=4).fit(frame, schema)
    assert all(np.array_equal(x, y) for x, y in zip(c.conditionals_, d.conditionals_))
    assert c.privacy_report()["seeded"]


def test_tampered_epsilon_is_refused(tmp_path, mixed):
    frame, schema = mixed
    path = tmp_path / "m.json"
    PrivBayes(1.0, random_state=1).fit(frame, schema).save(path)
    doc = json.loads(path.read_text())
    doc["parameters"]["epsilon"], doc["parameters"]["epsilon_exact"] = 0.1, "1/10"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="the ledger differs from the plan its parameters imply"):
        privbayes.load(path)


def test_inferred_schema_is_flagged(mixed):
    frame, _ = mixed
    with pytest.warns(InferredDomainWarning, match="NOT covered by epsilon"):  # the Python API says it too
        model = PrivBayes(1.0, random_state=1).fit(frame, infer_schema_from_data=True)
    report = model.privacy_report()
    assert "NOT covered" in report["domain_source"]
    assert any("not covered by epsilon" in c for c in report["caveats"])
    with pytest.raises(InputError, match="fit needs a schema"):
        PrivBayes(1.0).fit(frame)
