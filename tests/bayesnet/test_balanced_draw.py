"""The balanced draw (docs/decisions.md, "A balanced draw"): every row still drawn exactly from the model, the
counts of each parent configuration within O(log m) of their expectation, on both samplers, and the model file
records which draw it samples with."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import categorical_schema
from pandas.testing import assert_frame_equal

from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.sampling import ancestral_sample
from privbayes.core.errors import InputError
from privbayes.inference import JunctionTreeEngine
from privbayes.inference.factor import Domain
from privbayes.inference.sampling import BalancedDraw, radical_inverse, sample
from privbayes.schema.encoding import Encoding


def _spread(m: int) -> float:
    """How far a count of m radical-inverse points, shifted mod 1, may stray from m × an interval's length: the
    first m points' star discrepancy is at most (log₂ m / 3 + 1) / m (Niederreiter 1992, Thm 3.5's bound for base
    2), an interval costs twice it and the shift's wrap-around splits one interval in two."""
    return 4 * (math.log2(m) / 3 + 1)


ROOT = np.array([0.5, 0.3, 0.2])
CHILD = np.array([[0.1, 0.9], [0.6, 0.4], [0.35, 0.65]])


def _network() -> tuple[Network, list[np.ndarray], Encoding]:
    encoding = Encoding.build(categorical_schema([3, 2]), "vanilla")
    return Network((APPair(0), APPair(1, ((0, 0),)))), [ROOT, CHILD], encoding


def test_the_radical_inverse_spreads_any_prefix():
    values = radical_inverse(np.arange(64))
    assert sorted(values) == [k / 64 for k in range(64)]  # a power of two: the lattice
    for m in (3, 7, 10, 33, 50, 1000):  # any m: each bin [k/m, (k+1)/m) holds 1 ± the discrepancy's share
        counts = np.bincount(np.floor(radical_inverse(np.arange(m)) * m).astype(int), minlength=m)
        assert counts.max() <= 1 + _spread(m) / 2


def test_each_configuration_counts_within_rounding_of_its_expectation():
    network, conditionals, encoding = _network()
    n = 4096
    for seed in range(5):
        rows = ancestral_sample(network, conditionals, encoding, n, np.random.default_rng(seed), "balanced")
        root = np.bincount(rows[:, 0], minlength=3)
        assert np.all(np.abs(root - n * ROOT) <= 1)  # n a power of two: systematic rounding, within one
        for a, m in enumerate(root):  # m rows of configuration a, any m
            child = np.bincount(rows[rows[:, 0] == a, 1], minlength=2)
            assert np.all(np.abs(child - m * CHILD[a]) <= _spread(m))


def test_every_row_is_still_drawn_from_the_model():
    """Row 3 of a 7-row balanced sample, over R seeds, is a Bernoulli draw of its value's probability: within 4.5
    binomial standard deviations of it (R = 6000; one of the 5 checks fails by chance with probability < 4e-5)."""
    network, conditionals, encoding = _network()
    r = 6000
    rows = np.array([ancestral_sample(network, conditionals, encoding, 7, np.random.default_rng(s), "balanced")[3]
                     for s in range(r)])
    for value, p in enumerate(ROOT):
        assert abs((rows[:, 0] == value).mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / r)
    for value, p in enumerate(ROOT @ CHILD):
        assert abs((rows[:, 1] == value).mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / r)


def test_the_junction_tree_sampler_balances_too():
    domain = Domain((3, 2))
    engine = JunctionTreeEngine(domain, [(0, 1)])
    log_joint = np.log(ROOT[:, None] * CHILD)
    n = 1024
    codes = sample(engine, [log_joint], n, np.random.default_rng(3), draw="balanced")
    cells = np.bincount(codes[:, 0] * 2 + codes[:, 1], minlength=6)
    assert np.all(np.abs(cells - n * (ROOT[:, None] * CHILD).ravel()) <= 1)


def test_a_balanced_draw_orders_rows_by_what_was_drawn():
    rng = np.random.default_rng(0)
    draw = BalancedDraw(8, rng)
    codes = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    draw.drawn(codes)
    assert list(codes[draw.order]) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert np.all((draw.uniforms(np.zeros(8, dtype=np.int64)) >= 0) & (draw.uniforms(np.zeros(8, dtype=np.int64)) < 1))


def test_new_models_record_the_balanced_draw_and_old_files_keep_theirs(tmp_path):
    from helpers import correlated_frame

    from privbayes import PrivBayes, load

    sizes = [3, 4, 2]
    model = PrivBayes(1.0, random_state=0).fit(correlated_frame(sizes, 300, seed=1), categorical_schema(sizes))
    path = tmp_path / "m.json"
    model.save(path)
    doc = json.loads(path.read_text())
    assert doc["fitted"]["draw"] == "balanced"
    assert load(path).draw == "balanced"
    del doc["fitted"]["draw"]
    path.write_text(json.dumps(doc))
    assert load(path).draw == "iid"
    doc["fitted"]["draw"] = "stratified"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="fitted draw must be one of balanced, iid"):
        load(path)


def _with_draw(path, draw: str):
    """The model file at ``path`` with its recorded draw set to ``draw`` (or removed: a file from before the
    balanced draw), loaded."""
    from privbayes import load

    doc = json.loads(path.read_text())
    if draw == "absent":
        del doc["fitted"]["draw"]
    else:
        doc["fitted"]["draw"] = draw
    other = path.with_name(f"{draw}.json")
    other.write_text(json.dumps(doc))
    return load(other)


@pytest.mark.parametrize("method", ["privbayes", "adaptive", "mrf"])
def test_a_sample_asks_for_either_draw_and_gets_what_the_file_would_give(tmp_path, method):
    """``sample(draw=…)`` overrides the file's ``fitted.draw`` exactly: the same rows as a file recording that
    draw, for a new (balanced) file and for one written before the balanced draw; the two draws differ."""
    from helpers import correlated_frame

    import privbayes

    sizes = [3, 4, 2, 3]
    frame, schema = correlated_frame(sizes, 400, seed=2), categorical_schema(sizes)
    extra = {"cliques": [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]} if method == "mrf" else {}
    fitted = privbayes.synthesizer(method, epsilon=2.0, random_state=0, **extra).fit(frame, schema)
    path = tmp_path / "m.json"
    fitted.save(path)
    balanced, iid, old = _with_draw(path, "balanced"), _with_draw(path, "iid"), _with_draw(path, "absent")
    assert balanced.draw == "balanced" and iid.draw == old.draw == "iid"
    own = balanced.sample(500, random_state=4)
    assert not own.equals(iid.sample(500, random_state=4))
    assert_frame_equal(balanced.sample(500, random_state=4, draw="iid"), iid.sample(500, random_state=4))
    assert_frame_equal(old.sample(500, random_state=4, draw="balanced"), own)
    assert_frame_equal(fitted.sample(500, random_state=4, draw="iid"), iid.sample(500, random_state=4))


def test_the_draw_switch_refuses_what_it_cannot_do(tmp_path):
    from helpers import correlated_frame

    from privbayes import PrivBayes

    sizes = [3, 4, 2]
    model = PrivBayes(1.0, random_state=0).fit(correlated_frame(sizes, 300, seed=1), categorical_schema(sizes))
    with pytest.raises(InputError, match=r"^draw \('stratified'\) must be one of balanced, iid$"):
        model.sample(10, draw="stratified")
    with pytest.raises(InputError, match="draw 'balanced' does not apply with conditions"):
        model.sample(10, conditions={"a0": 1}, draw="balanced")
    given = model.sample(50, random_state=1, conditions={"a0": 1}, draw="iid")
    assert given.equals(model.sample(50, random_state=1, conditions={"a0": 1}))
    with pytest.raises(InputError, match="draw 'balanced' does not apply with conditions"):
        model.model_.sample_to(tmp_path / "out.csv", 10, conditions={"a0": 1}, draw="balanced", progress=False)
    assert not (tmp_path / "out.csv").exists()
