"""A fitted PrivateMRF publishes one frozen value (ReleasedMRF); the estimator's fitted attributes are views."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame

import privbayes
from privbayes import PrivateMRF
from privbayes.core.errors import InputError
from privbayes.methods.mrf.released import ReleasedMRF

SIZES = (3, 2, 4, 2)
CHAIN = [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]


@pytest.fixture(scope="module")
def fitted():
    frame = correlated_frame(SIZES, 1200, seed=3)
    return PrivateMRF(CHAIN, 1.0, estimation="naive", random_state=4).fit(frame, categorical_schema(SIZES))


def test_the_release_is_one_frozen_value_and_the_attributes_are_views(fitted):
    released = fitted.released_
    assert isinstance(released, ReleasedMRF)
    with pytest.raises(dataclasses.FrozenInstanceError):
        released.n = 1.0
    with pytest.raises(TypeError):
        released.parameters["epsilon"] = 9.0  # read-only mapping
    assert fitted.schema_ is released.schema and fitted.model_ is released
    assert fitted.cliques_ == released.cliques == ((0, 1), (1, 2), (2, 3))
    assert fitted.ledger_ == released.ledger and len(released.ledger) == 3
    assert fitted.epsilon_spent_ == pytest.approx(1.0) and fitted.delta_spent_ == 0.0
    assert released.privacy_report() == fitted.privacy_report()
    assert released.privacy_report()["seeded"] is True


def test_round_trip_gives_an_equal_value(fitted, tmp_path):
    path = tmp_path / "mrf.json"
    fitted.save(path)
    loaded = privbayes.load(path)
    original = fitted.released_
    assert loaded.cliques == original.cliques and dict(loaded.parameters) == dict(original.parameters)
    assert loaded.n == original.n and loaded.ledger == original.ledger and loaded.seeded == original.seeded
    assert all(np.array_equal(a, b) for a, b in zip(loaded.model.theta, original.model.theta))
    pd.testing.assert_frame_equal(loaded.sample(50, random_state=2), original.sample(50, random_state=2))


def test_an_unfitted_estimator_says_so():
    with pytest.raises(InputError, match="not fitted"):
        PrivateMRF(CHAIN).sample(3)
