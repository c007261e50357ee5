"""Releases do not change with the code's layout: every method's model file and sampled rows for fixed seeds are
the ones recorded in ``tests/data/release_digests.json`` (by ``tests/release_pins.py --record``), and model files
written before (the recorded ones, version 4 and MRF version 3, and the v1-v2 fixtures) load and sample
the same rows."""

from __future__ import annotations

import json

import pytest
from release_pins import CASES, DATA, DIGESTS, OLD_FIXTURES, PINS, file_digest, fit_case, rows_digest

RECORDED = json.loads(DIGESTS.read_text())


def test_every_case_and_fixture_is_recorded() -> None:
    assert sorted(RECORDED["fits"]) == sorted(CASES)
    assert sorted(RECORDED["old"]) == OLD_FIXTURES and len(OLD_FIXTURES) == 9


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fit_writes_the_recorded_file_and_rows(name: str, tmp_path) -> None:
    path = fit_case(name, tmp_path)
    assert file_digest(path) == RECORDED["fits"][name]["file"]
    assert rows_digest(path) == RECORDED["fits"][name]["rows"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_recorded_file_samples_the_recorded_rows(name: str) -> None:
    assert rows_digest(PINS / f"{name}.json") == RECORDED["fits"][name]["rows"]


@pytest.mark.parametrize("fixture", OLD_FIXTURES)
def test_an_old_model_file_samples_the_recorded_rows(fixture: str) -> None:
    assert rows_digest(DATA / fixture) == RECORDED["old"][fixture]["rows"]
