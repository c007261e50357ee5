"""Adult, the paper's §8 setting (Age, Years of education, Work hours per week → Salary):
NBC-equivalence over the whole binned domain and every row, Corollary 4, EST's refusal, and
the ``privbayes nbc`` commands end to end."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from importlib import resources

import numpy as np
import pandas as pd
import pytest
import yaml

from privbayes.cli import program
from privbayes.core.errors import InputError
from privbayes.counting import leaf_codes
from privbayes.counting import open as open_table
from privbayes.methods.nbc.breach import satisfies_corollary4
from privbayes.methods.nbc.equivalence import check_equivalence
from privbayes.methods.nbc.est import est
from privbayes.methods.nbc.safety import safety_transform
from privbayes.methods.nbc.views import views_from_table
from privbayes.schema import Schema
from privbayes.schema.files import load_schema

COLUMNS = ["age", "education-num", "hours-per-week", "income"]


@pytest.fixture(scope="module")
def adult():
    data = resources.files("privbayes") / "data"
    raw = yaml.safe_load((data / "adult.yaml").read_text())
    raw["attributes"] = [a for a in raw["attributes"] if a["name"] in COLUMNS]
    schema = Schema.from_dict(raw)
    with resources.as_file(data / "adult.csv.gz") as path:
        frame = pd.read_csv(path)[COLUMNS]
    views = views_from_table(open_table(frame, schema), "income")
    codes = leaf_codes(frame, schema)  # evaluation only: predictions on every row
    return schema, frame, views, codes


def metrics(predicted: np.ndarray, truth: np.ndarray) -> tuple[float, float, float]:
    tp = int(np.sum((predicted == 1) & (truth == 1)))
    return float(np.mean(predicted == truth)), tp / int(np.sum(truth == 1)), tp / max(1, int(np.sum(predicted == 1)))


@pytest.mark.parametrize("gamma", [Fraction(11, 10), Fraction(283)])
def test_adult_safety_transform_is_exact(adult, gamma):
    _, _, views, codes = adult
    assert views.labels == ("<=50K", ">50K") and views.domain_size == 16**3
    out = safety_transform(views, gamma)
    assert out.method == "safety-transform"
    assert check_equivalence(views, out.views).equivalent  # all 4096 binned tuples, ties included
    assert satisfies_corollary4(out.views, gamma) and out.views.is_realistic()
    original, published = views.classify_many(codes[:, :3]), out.views.classify_many(codes[:, :3])
    assert np.array_equal(original, published)  # every row
    accuracy, recall, precision = metrics(original, codes[:, 3])
    assert metrics(published, codes[:, 3]) == (accuracy, recall, precision)
    assert 0.7 < accuracy < 0.9 and 0 < recall < 1  # a real classifier, not a constant one


def test_adult_est_in_the_papers_setting_refuses(adult):
    """§8.2: r = 1.3 for a 75 % prior on <=50K.  Statement 14 fails by far on Adult."""
    _, _, views, _ = adult
    with pytest.raises(InputError, match=r"^EST: r-closeness r = 1.3 cannot be guaranteed"):
        est(views, (Fraction(3, 4), Fraction(1, 4)), Fraction(13, 10))


def parser() -> argparse.ArgumentParser:
    return program._parser()


@pytest.fixture(scope="module")
def files(adult, tmp_path_factory):
    schema, frame, _, _ = adult
    folder = tmp_path_factory.mktemp("nbc")
    frame.to_csv(folder / "adult.csv", index=False)
    (folder / "adult.yaml").write_text(yaml.safe_dump(schema.to_dict(), sort_keys=False))
    return folder


def run(argv: list[str]) -> None:
    args = parser().parse_args(argv)
    args.run(args)


def test_cli_publish_check_and_synthesize(files, capsys):
    data, schema = str(files / "adult.csv"), str(files / "adult.yaml")
    out, synth = str(files / "views.json"), str(files / "synthetic.csv")
    run(["nbc", "publish", data, "--schema", schema, "--class", "income", "--breach", "0.5", "0.6", "-o", out])
    assert "NOT differential privacy" in capsys.readouterr().out
    run(["nbc", "check", out, data, "--schema", schema])
    verdict = capsys.readouterr().out.strip()
    assert verdict.startswith("OK: NBC-equivalent on all 4096 domain tuples") and "\n" not in verdict
    # a large γ: the original views are already safe (identity, §6.3), small enough to synthesize
    run(["nbc", "publish", data, "--schema", schema, "--class", "income", "--gamma", "100000000000000", "-o", out,
         "--synthesize", synth, "--seed", "1"])
    published = json.loads((files / "views.json").read_text())
    assert published["safety"]["method"] == "identity"
    remade = views_from_table(open_table(synth, load_schema(schema)), "income")
    assert list(remade.prior) == published["prior"]
    assert [[list(r) for r in a.counts] for a in remade.attributes] == [a["counts"] for a in published["attributes"]]


def test_cli_check_rejects_a_tampered_file(files):
    data, schema, out = str(files / "adult.csv"), str(files / "adult.yaml"), str(files / "tampered.json")
    run(["nbc", "publish", data, "--schema", schema, "--class", "income", "--gamma", "2", "-o", out])
    doc = json.loads((files / "tampered.json").read_text())
    doc["attributes"][0]["counts"][0] = doc["attributes"][0]["counts"][0][::-1]  # swap the classes of one age bin
    (files / "tampered.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"^check failed: .* is not NBC-equivalent"):
        run(["nbc", "check", out, data, "--schema", schema])


def test_cli_prior_file_and_argument_errors(files):
    data, schema = str(files / "adult.csv"), str(files / "adult.yaml")
    prior = files / "prior.json"
    prior.write_text(json.dumps({"<=50K": "0.75", ">50K": 0.25}))
    with pytest.raises(InputError, match="Statement 14"):
        run(["nbc", "publish", data, "--schema", schema, "--class", "income", "--prior", str(prior), "--r", "1.3",
             "-o", str(files / "x.json")])
    with pytest.raises(InputError, match="prior and r go together"):
        run(["nbc", "publish", data, "--schema", schema, "--class", "income", "--gamma", "2", "--r", "1.3",
             "-o", str(files / "x.json")])
    prior.write_text(json.dumps({"<=50K": 1}))
    with pytest.raises(InputError, match="prior must give a probability to every class label"):
        run(["nbc", "publish", data, "--schema", schema, "--class", "income", "--prior", str(prior), "--r", "2",
             "-o", str(files / "x.json")])
    with pytest.raises(InputError, match="--class: column 'salary' is not in the schema"):
        run(["nbc", "publish", data, "--schema", schema, "--class", "salary", "--gamma", "2",
             "-o", str(files / "x.json")])
    with pytest.raises(SystemExit):
        parser().parse_args(["nbc", "publish", data, "--schema", schema, "--class", "income",
                             "--gamma", "1e99999999", "-o", "x"])
