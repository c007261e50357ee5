"""The one-call publishing entry point (issue 28): NBCSettings validated once (exact rationals,
one-line errors naming the parameter), publish(table, class, settings) reads only ``counts`` and
returns the released views with a report that says plainly it is NOT differential privacy."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from privbayes.core.errors import InputError
from privbayes.counting import open as open_table
from privbayes.methods.nbc import NBCRelease, NBCSettings, publish
from privbayes.methods.nbc.equivalence import check_equivalence
from privbayes.methods.nbc.est import est
from privbayes.methods.nbc.safety import safety_transform
from privbayes.methods.nbc.views import views_from_table
from privbayes.methods.nbc.viewsfile import load_views
from privbayes.schema import Schema

SCHEMA = {"attributes": [
    {"name": "age", "kind": "numeric", "lower": 0, "upper": 100, "bins": 5, "integer": True, "special_values": [-1]},
    {"name": "job", "kind": "categorical", "categories": ["a", "b", "c"], "missing": "category"},
    {"name": "y", "kind": "binary", "categories": ["no", "yes"]}]}
CORE = ("method", "mechanism", "guarantee", "differentially_private", "epsilon", "epsilon_spent", "delta_spent",
        "neighbouring_relation", "n", "n_public", "domain_source", "seeded", "algorithm", "caveats", "plan", "ledger",
        "library_version")


def table(inferred: bool = False, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.choice(["no", "yes"], n, p=[0.6, 0.4])
    frame = pd.DataFrame({"age": np.where(rng.random(n) < 0.1, -1,
                                          rng.integers(0, 101, n) // np.where(y == "no", 1, 2)),
                          "job": np.where(rng.random(n) < 0.1, None, rng.choice(["a", "b", "c"], n)), "y": y})
    return open_table(frame, Schema.from_dict({**SCHEMA, "inferred": inferred}))


@pytest.mark.parametrize("given, exact", [(1.1, Fraction(11, 10)), ("1.1", Fraction(11, 10)),
                                          ("11/10", Fraction(11, 10)), (3, Fraction(3)),
                                          (Fraction(7, 5), Fraction(7, 5))])
def test_numbers_are_the_exact_decimals_written(given, exact):
    assert NBCSettings(gamma=given).gamma == exact


@pytest.mark.parametrize("kwargs, message", [
    ({}, "give exactly one of gamma, breach .* got none"),
    ({"gamma": 2, "breach": (0.1, 0.2)}, "give exactly one of .* got gamma, breach"),
    ({"gamma": 1}, r"gamma \(1\) must be > 1"),
    ({"gamma": "abc"}, r"gamma \('abc'\) must be a positive number"),
    ({"gamma": True}, r"gamma \(True\) must be a number"),
    ({"gamma": float("inf")}, r"gamma \(inf\) must be a finite number"),
    ({"gamma": -2}, r"gamma \(-2\) must be > 0"),
    ({"breach": (0.6, 0.5)}, r"breach \(0.6, 0.5\) must be two numbers L1 < L2 in \(0, 1\)"),
    ({"breach": 0.5}, r"breach \(0.5\) must be two numbers"),
    ({"gamma": 2, "r": 2}, "prior and r go together"),
    ({"prior": {"no": 0.5, "yes": 0.5}}, "prior and r go together"),
    ({"prior": {"no": 0.5, "yes": 0.6}, "r": 2}, "must sum to 1"),
    ({"prior": {"no": 1}, "r": 1}, r"r \(1\) must be > 1"),
    ({"gamma": 2, "condition": "strict"}, r"condition \('strict'\) must be one of posterior, corollary4"),
])
def test_settings_refuse_bad_parameters_in_one_line(kwargs, message):
    with pytest.raises(InputError, match=message) as info:
        NBCSettings(**kwargs)
    assert "\n" not in str(info.value)


def test_settings_are_frozen_values():
    settings = NBCSettings(breach=("0.5", "0.6"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.gamma = Fraction(2)  # type: ignore[misc]
    assert settings == NBCSettings(breach=(Fraction(1, 2), Fraction(3, 5))) and hash(settings)
    assert settings.method == "safety-transform" and settings.gamma_for(2) == Fraction(1499999, 1000000)
    assert NBCSettings(prior={"a": "0.25", "b": "0.75"}, r="2").to_parameters() == {
        "method": "nbc", "condition": "posterior", "prior": {"a": "1/4", "b": "3/4"}, "r": "2"}


def test_publish_is_safety_transform_on_the_tables_views(tmp_path):
    t = table()
    release = publish(t, "y", NBCSettings(gamma="1.1"))
    assert isinstance(release, NBCRelease)
    assert release.safe == safety_transform(views_from_table(t, "y"), Fraction(11, 10))
    assert check_equivalence(views_from_table(t, "y"), release.views).equivalent
    report = release.privacy_report()
    assert all(key in report for key in CORE)
    assert report["differentially_private"] is False and report["epsilon"] is None and report["ledger"] == []
    assert report["caveats"][0].startswith("NOT differential privacy")
    assert report["domain_source"] == "given by the user (public)" and report["parameters"]["gamma"] == "11/10"
    release.save(tmp_path / "v.json")
    loaded, safety = load_views(tmp_path / "v.json")
    assert loaded == release.views and safety["gamma_exact"] == Fraction(11, 10)
    assert json.loads((tmp_path / "v.json").read_text())["privacy_report"] == json.loads(json.dumps(report.to_dict()))


def test_publish_with_a_prior_is_est():
    t = table(seed=1)
    views = views_from_table(t, "y")
    prior = {"yes": "0.500001", "no": "0.499999"}  # any order: matched to the schema's labels
    release = publish(t, "y", NBCSettings(prior=prior, r=50))
    assert release.safe == est(views, (Fraction(499999, 1000000), Fraction(500001, 1000000)), Fraction(50))
    assert release.privacy_report()["mechanism"].startswith("EST")
    with pytest.raises(InputError, match="every class label of the schema, and only to those"):
        publish(t, "y", NBCSettings(prior={"no": 0.5, "maybe": 0.5}, r=2))


def test_a_draft_schema_is_named_in_the_report():
    report = publish(table(inferred=True), "y", NBCSettings(gamma=2)).privacy_report()
    assert "inferred" in report["domain_source"] and any("draft" in c for c in report["caveats"])


class CountsOnly:
    """A PrivateTable with ``schema`` and ``counts`` only: publishing needs nothing else."""

    def __init__(self, base) -> None:
        self.schema, self._base = base.schema, base

    def counts(self, attributes, levels=None):
        return self._base.counts(attributes, levels)


def test_publish_reads_the_table_through_counts_only():
    t = table(seed=2)
    assert publish(CountsOnly(t), "y", NBCSettings(gamma=3)).safe == publish(t, "y", NBCSettings(gamma=3)).safe
    with pytest.raises(InputError, match="settings must be NBCSettings"):
        publish(t, "y", {"gamma": 3})  # type: ignore[arg-type]
