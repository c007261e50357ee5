"""Numeric attributes: special values, explicit edges, log scale, precision, dates;
and evaluate's raw-value checks (point masses, quantiles, KS) with a brute-force twin."""

import numpy as np
import pandas as pd
import pytest

import privbayes
from privbayes.core.errors import InputError
from privbayes.counting import leaf_codes
from privbayes.evaluation.numeric import ks_distance, numeric_check
from privbayes.schema import Attribute, Schema
from privbayes.schema.decoding import decode
from privbayes.schema.serialisation import attribute_from_dict, attribute_to_dict


def _schema(attr: Attribute) -> Schema:
    return Schema((attr, Attribute("c", "binary")))


def test_special_values_get_their_own_codes_beside_the_bins_even_outside_the_bounds():
    attr = Attribute("p", "numeric", lower=0, upper=30, bins=3, integer=True, special_values=(999, 0),
                     missing="category")
    assert attr.size == 3 + 2 + 1  # bins, then the special values in declared order, then missing
    frame = pd.DataFrame({"p": ["999", "0", "0.0", "5", "30", "", "999.0"], "c": [0, 1, 0, 1, 0, 1, 0]})
    codes = leaf_codes(frame, _schema(attr))[:, 0]
    assert codes.tolist() == [3, 4, 4, 0, 2, 5, 3]
    # every level keeps each special value (and the missing code) as its own node
    for level in attr.levels:
        assert len(set(level[[3, 4, 5]].tolist())) == 3 and not set(level[[3, 4, 5]]) & set(level[:3])


def test_special_values_are_sampled_exactly_and_never_drawn_from_a_bin():
    attr = Attribute("p", "numeric", lower=0, upper=3, bins=1, integer=True, special_values=(0,))
    values = decode(attr, np.array([0] * 2000 + [1] * 500), np.random.default_rng(0))
    assert (values[2000:] == 0).all()
    assert set(values[:2000].tolist()) == {1, 2, 3}  # the bin [0, 3] holds 0..3, but 0 has its own code


def test_irregular_edges_bin_as_declared_and_give_the_bin_count():
    attr = attribute_from_dict({"name": "x", "kind": "numeric", "edges": [0, 1, 10, 100, 1000]}, "s")
    assert (attr.lower, attr.upper, attr.bins) == (0, 1000, 4)
    assert attr.bin_codes(np.array([0, 0.99, 1, 9.9, 10, 999, 1000])).tolist() == [0, 0, 1, 1, 2, 3, 3]
    draws = decode(attr, np.array([2] * 500), np.random.default_rng(1))
    assert draws.between(10, 100).all()
    assert attribute_from_dict(attribute_to_dict(attr), "s") == attr
    with pytest.raises(InputError, match="strictly increasing"):
        attribute_from_dict({"name": "x", "kind": "numeric", "edges": [0, 5, 5]}, "s")
    with pytest.raises(InputError, match="differs from the 4 bins"):
        attribute_from_dict({"name": "x", "kind": "numeric", "edges": [0, 1, 10, 100, 1000], "bins": 16}, "s")


def test_log_scale_edges_are_equal_in_log_of_one_plus_the_offset():
    attr = Attribute("x", "numeric", lower=0, upper=999, bins=3, scale="log")
    assert np.allclose(attr.bin_edges(), [0, 9, 99, 999])
    assert attr.bin_codes(np.array([5, 50, 500])).tolist() == [0, 1, 2]


def test_decimals_round_the_output():
    attr = Attribute("x", "numeric", lower=0, upper=1, bins=4, decimals=2)
    values = decode(attr, np.arange(4).repeat(50), np.random.default_rng(2)).to_numpy()
    assert np.allclose(values, np.round(values, 2)) and not np.allclose(values, np.round(values, 1))


def test_size_caps_apply_to_edges_and_special_values():
    from privbayes.core.limits import limits

    cap = limits().max_bins
    with pytest.raises(InputError, match="PRIVBAYES_MAX_BINS"):
        attribute_from_dict({"name": "x", "kind": "numeric", "lower": 0, "upper": 1,
                             "special_values": list(range(cap + 1))}, "s")
    with pytest.raises(InputError, match="PRIVBAYES_MAX_BINS"):
        attribute_from_dict({"name": "x", "kind": "numeric", "edges": list(range(cap + 3))}, "s")


def test_dates_are_read_by_value_and_written_back_as_iso_text():
    attr = attribute_from_dict({"name": "d", "kind": "date", "lower": "2020-01-01", "upper": "2020-12-31",
                                "bins": 12, "granularity": "day"}, "s")
    frame = pd.DataFrame({"d": ["2020-01-01", "2020-06-15T10:00:00", "2020-12-31"], "c": [0, 1, 0]})
    codes = leaf_codes(frame, _schema(attr))[:, 0]
    assert codes[0] == 0 and codes[2] == attr.bins - 1 and 0 < codes[1] < attr.bins - 1
    typed = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-06-15", "2020-12-31"]), "c": [0, 1, 0]})
    assert (leaf_codes(typed, _schema(attr))[:, 0] == codes).all()
    out = decode(attr, codes, np.random.default_rng(0))
    assert all(len(v) == 10 and v.startswith("2020-") for v in out)
    month = Attribute("m", "date", lower="2019-01", upper="2020-12", granularity="month")
    assert all(len(v) == 7 for v in decode(month, np.arange(month.bins), np.random.default_rng(0)))
    assert attribute_from_dict(attribute_to_dict(attr), "s") == attr
    for bad in ("31/01/2020", "2020-02-30", "2020-05"):
        with pytest.raises(InputError, match="not an ISO date") as exc:
            leaf_codes(pd.DataFrame({"d": [bad], "c": [0]}), _schema(attr))
        assert bad not in str(exc.value)  # messages never carry a data value


def test_ks_distance_matches_a_brute_force_twin():
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = rng.integers(0, 6, rng.integers(1, 30)), rng.integers(0, 6, rng.integers(1, 30))
        brute = max(abs(np.mean(a <= x) - np.mean(b <= x)) for x in np.concatenate([a, b]))
        assert ks_distance(a.astype(float), b.astype(float)) == pytest.approx(brute)


def test_raw_value_checks_show_a_lost_point_mass():
    attr = Attribute("g", "numeric", lower=0, upper=100, bins=4, integer=True)
    real = pd.Series(["0"] * 90 + [str(v) for v in range(1, 11)])
    synth = pd.Series([str(v) for v in range(0, 100)])  # the zeros spread over the bin: the mass is gone
    check = numeric_check(attr, real, synth)
    assert check.masses[0] == ("0", 0.9, 0.01)
    assert check.ks > 0.8 and check.worst_mass_gap == pytest.approx(0.89)


def test_a_model_with_special_values_edges_and_dates_round_trips_and_samples_them(tmp_path):
    from privbayes import PrivBayes

    rng = np.random.default_rng(5)
    n = 3000
    frame = pd.DataFrame({
        "p": np.where(rng.random(n) < 0.7, 999, rng.integers(0, 30, n)),
        "amt": np.where(rng.random(n) < 0.3, 0.0, np.round(rng.uniform(1, 900, n), 2)),
        "d": [str(np.datetime64("2020-01-01") + int(k)) for k in rng.integers(0, 366, n)],
        "c": rng.integers(0, 2, n)})
    schema = {"attributes": [
        {"name": "p", "kind": "numeric", "lower": 0, "upper": 30, "bins": 4, "integer": True, "special_values": [999]},
        {"name": "amt", "kind": "numeric", "edges": [0, 10, 100, 1000], "decimals": 2, "special_values": [0]},
        {"name": "d", "kind": "date", "lower": "2020-01-01", "upper": "2020-12-31", "bins": 6},
        {"name": "c", "kind": "binary"}]}
    model = PrivBayes(2.0, random_state=4).fit(frame, schema)
    model.save(tmp_path / "m.json")
    loaded = privbayes.load(tmp_path / "m.json")
    assert loaded.schema == model.schema_
    a, b = model.sample(2000, random_state=1), loaded.sample(2000, random_state=1)
    pd.testing.assert_frame_equal(a, b)
    # shares of the point masses: noise of scale 2d/ε2 = 5.7 counts per cell on 3000 rows -> well within 5 points
    assert abs((a["p"] == 999).mean() - 0.7) < 0.05 and abs((a["amt"] == 0).mean() - 0.3) < 0.05
    assert a["d"].str.fullmatch(r"2020-\d\d-\d\d").all()
