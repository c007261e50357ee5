"""views.json: round trip, the privacy report's wording, and hostile files (one-line errors)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from helpers_nbc import random_views

from privbayes.core.errors import InputError
from privbayes.methods.nbc import viewsfile
from privbayes.methods.nbc.safety import safety_transform
from privbayes.methods.nbc.viewsfile import load_views, save_views, to_document


@pytest.fixture()
def published():
    return safety_transform(random_views(np.random.default_rng(11), "skewed"), Fraction(11, 10))


def test_round_trip(tmp_path, published):
    path = tmp_path / "views.json"
    save_views(published, path)
    views, safety = load_views(path)
    assert views == published.views
    assert safety["method"] == "safety-transform" and safety["gamma_exact"] == Fraction(11, 10)
    raw = json.loads(path.read_text())
    assert raw["format"] == "privbayes-nbc-views" and raw["version"] == 2
    assert raw["privacy_report"]["differentially_private"] is False
    assert "NOT differential privacy" in raw["privacy_report"]["not_differential_privacy"]


def write(tmp_path, document) -> str:
    path = tmp_path / "bad.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def mutate(published, **changes):
    doc = to_document(published)
    for key, value in changes.items():
        if value is None:
            del doc[key]
        else:
            doc[key] = value
    return doc


@pytest.mark.parametrize("change, message", [
    ({"format": "other"}, "not a views file"),
    ({"version": 3}, "unsupported views file version 3"),
    ({"class": 3}, "'class' must be a string"),
    ({"labels": []}, "'labels' must have between 1 and"),
    ({"labels": ["a"] * 2000}, "'labels' must have between 1 and 1024"),
    ({"prior": [1, True]}, "prior: counts must be non-negative integers"),
    ({"prior": [1, -2]}, "prior: counts must be non-negative integers"),
    ({"prior": [1, 2, 3]}, "'prior' needs one count per label"),
    ({"prior": [0, 2]}, "counts must be positive"),
    ({"attributes": [{"name": "A", "values": ["x"], "counts": [[1, 2.5]]}]}, "counts must be non-negative integers"),
    ({"attributes": [{"name": "A", "values": ["x"], "counts": [[1]]}]}, "one count per label"),
    ({"attributes": [{"name": "A", "values": ["x", "y"], "counts": [[1, 1]]}]}, "'values' and 'counts' differ"),
    ({"attributes": [{"values": ["x"], "counts": [[1, 1]]}]}, "needs a string 'name'"),
    ({"attributes": "x"}, "'attributes' must be a list"),
    ({"safety": {"method": "dp"}}, "'safety' must name the method"),
    ({"safety": {"method": "est"}}, "safety.condition must be one of posterior, corollary4"),
    ({"safety": {"method": "est", "condition": "posterior", "prior": ["1/2"]}}, "one probability per label"),
    ({"safety": {"method": "est", "condition": "posterior", "r_exact": "1e999999"}}, "expected a number such as"),
    ({"safety": {"method": "est", "condition": "posterior", "r_exact": "1/0"}}, "the denominator is zero"),
])
def test_hostile_documents(tmp_path, published, change, message):
    with pytest.raises(InputError, match=message) as info:
        load_views(write(tmp_path, mutate(published, **change)))
    assert "\n" not in str(info.value)


def test_oversized_list_is_refused_before_building(tmp_path, published, monkeypatch):
    monkeypatch.setattr(viewsfile, "MAX_VALUES", 3)
    doc = mutate(published, attributes=[{"name": "A", "values": ["x"] * 4, "counts": [[1, 1]] * 4}])
    with pytest.raises(InputError, match="'counts' must have between 1 and 3 entries"):
        load_views(write(tmp_path, doc))


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ("[" * 100000 + "]" * 100000, "not valid JSON"),
    ('{"prior": [' + "9" * 5000 + "]}", "not valid JSON"),
    ("[]", "expected a JSON object"),
])
def test_hostile_text(tmp_path, text, message):
    with pytest.raises(InputError, match=message) as info:
        load_views(write(tmp_path, text))
    assert "\n" not in str(info.value)


def test_file_size_is_checked_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(viewsfile, "MAX_BYTES", 10)
    with pytest.raises(InputError, match="larger than 10 bytes"):
        load_views(write(tmp_path, '{"format": "privbayes-nbc-views"}'))


def test_not_utf8_and_missing(tmp_path):
    path = tmp_path / "v.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_views(path)
    with pytest.raises(InputError, match="no such views file"):
        load_views(tmp_path / "absent.json")
