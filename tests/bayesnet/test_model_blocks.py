"""Issue 32: model files that load (compact blocks, potentials), fit never writes what load refuses,
the file size in the cost estimate, and consistent estimation as ε → ∞ (zero noise variances).

The suite treats warnings as errors, so the zero-variance tests fail on the NaN-weight RuntimeWarning
of main at 2dcb117 (``variances.min() / variances``)."""

from __future__ import annotations

import base64
import json
import os
import tracemalloc
import zlib
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame, run_cli

import privbayes
from privbayes.bayesnet.junction import junction_tree_network, network_of
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.estimation.consistent import NOISELESS, estimate, noise_weights
from privbayes.estimation.measurements import NoisyTable
from privbayes.estimation.potentials import potentials_of
from privbayes.files import blocks
from privbayes.methods.adaptive.estimator import AdaptiveMarginals
from privbayes.methods.privbayes.estimator import PrivBayes
from privbayes.privacy.mechanisms import discrete_laplace_variance
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.registry import load_document

SIZES = [3, 4, 2, 5, 3, 2]


@pytest.fixture(scope="module")
def data():
    return correlated_frame(SIZES, 600, seed=5), categorical_schema(SIZES)


def one_line_refusal(code, err, mentions=""):
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("privbayes: error: "), err
    assert mentions in lines[0], lines[0]


# --- blocks -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("codec", blocks.CODECS)
def test_blocks_round_trip_every_float64_exactly(codec):
    rng = np.random.default_rng(0)
    array = rng.dirichlet(np.ones(7), size=(3, 5))
    array[0] = 0.0
    array[1, 2, 3] = -np.inf  # a log-potential's impossible cell
    array[2, 0, 0] = 5e-324  # the smallest subnormal
    block = blocks.encode(array, codec)
    assert block["shape"] == [3, 5, 7] and block["dtype"] == "float64"
    back = blocks.decode(json.loads(json.dumps(block)), [3, 5, 7], "m.json", "a table")
    assert back.dtype == np.float64 and np.array_equal(back, array) and np.signbit(back).tolist() == \
        np.signbit(array).tolist()


def test_zero_heavy_tables_compress_to_a_small_fraction():
    array = np.zeros((64, 64, 16))
    array[::7, ::5, 3] = np.random.default_rng(1).random((10, 13))
    text = blocks.encode(array)["data"]
    assert len(text) < array.size * 8 / 50  # deflate of the shuffled bytes: runs of zeros are nearly free


@pytest.mark.parametrize("change, mentions", [
    (lambda b: b.update(shape=[2, 3]), "must have shape [3, 4]"),
    (lambda b: b.update(shape=[3, True]), "must have shape"),
    (lambda b: b.update(dtype="float32"), "dtype"),
    (lambda b: b.update(codec="pickle"), "codec"),
    (lambda b: b.update(extra=1), "must be an object"),
    (lambda b: b.update(data="@@@@"), "not valid base64"),
    (lambda b: b.update(data=base64.b64encode(b"not deflate").decode()), "not valid deflate"),
    (lambda b: b.update(data=blocks.encode(np.zeros(11))["data"]), "does not hold exactly the 96 bytes"),
    (lambda b: b.update(data=blocks.encode(np.zeros(13))["data"]), "does not hold exactly the 96 bytes"),
    (lambda b: b.update(codec="raw", data=base64.b64encode(b"\0" * 88).decode()), "does not hold exactly"),
    (lambda b: b.update(data=b["data"] + "A" * 200), "more data than its shape"),
], ids=["shape", "bool-shape", "dtype", "codec", "extra-key", "base64", "deflate", "short", "long", "raw-short",
        "overlong-text"])
def test_a_block_that_disagrees_with_its_shape_is_refused_in_one_line(change, mentions):
    block = blocks.encode(np.full((3, 4), 0.25))
    change(block)
    with pytest.raises(InputError, match="^m.json: invalid model file: a table") as info:
        blocks.decode(block, [3, 4], "m.json", "a table")
    assert mentions in str(info.value) and "\n" not in str(info.value)


def test_a_deflate_bomb_is_refused_without_inflating_it():
    """10⁸ zero bytes deflate to 97 KB; declared as 12 numbers, inflation stops after 96 bytes."""
    bomb = {"dtype": "float64", "shape": [3, 4], "codec": "shuffle-deflate",
            "data": base64.b64encode(zlib.compress(b"\0" * 10**8, 9)).decode()}
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="more data than its shape"):
            blocks.decode(bomb, [3, 4], "m.json", "a table")
        bomb["data"] = base64.b64encode(zlib.compress(b"\0" * 10**6, 9)[:90]).decode()  # short enough to try
        with pytest.raises(InputError, match="does not hold exactly the 96 bytes"):
            blocks.decode(bomb, [3, 4], "m.json", "a table")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 10**6


def test_a_declared_size_over_the_cell_cap_is_refused_before_decoding(caps):
    caps(max_table_cells=1000)
    block = {"dtype": "float64", "shape": [100, 100], "codec": "raw", "data": ""}
    with pytest.raises(InputError, match=r"would have 1e\+04 cells, more than the limit of 1,000 "
                                         r"\(PRIVBAYES_MAX_TABLE_CELLS\)"):
        blocks.decode(block, [100, 100], "m.json", "a table")


# --- version 4 model files --------------------------------------------------------------------------

def _fit(data, **kwargs):
    frame, schema = data
    return PrivBayes(**{"epsilon": 1.0, "random_state": 3, **kwargs}).fit(frame, schema).released_


def test_a_consistent_model_is_stored_as_its_potentials_and_rebuilt_exactly(data, tmp_path):
    model = _fit(data)
    assert model.potentials is not None
    model.save(tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["version"] == 4 and "conditionals" not in doc
    loaded = privbayes.load(tmp_path / "m.json")
    assert all(np.array_equal(a, b) for a, b in zip(model.conditionals, loaded.conditionals))
    assert loaded.sample(500, random_state=9).equals(model.sample(500, random_state=9))


def test_the_rebuilt_network_is_the_estimators_own(data):
    """potentials.network_of repeats estimate()'s last calibration: the same numbers, bit for bit."""
    _, schema = data
    encoding = Encoding.build(schema, "vanilla")
    rng = np.random.default_rng(2)
    network = [((0, 0),), ((0, 0), (1, 0)), ((1, 0), (2, 0), (3, 0)), ((3, 0), (4, 0)), ((5, 0),), ((5, 0),)]
    tables = [NoisyTable(i, v, rng.poisson(40, [SIZES[a] for a, _ in v]).astype(float), Fraction(2))
              for i, v in enumerate(network)]
    fit = estimate(encoding, tables, 600.0)
    expected = junction_tree_network(fit.calibrated)
    rebuilt = network_of(encoding, potentials_of(tables, fit.log_potentials))
    assert expected[0] == rebuilt[0]
    assert all(np.array_equal(a, b) for a, b in zip(expected[1], rebuilt[1]))


@pytest.mark.parametrize("kwargs", [{"estimation": "projected"}, {"estimation": "paper"},
                                    {"estimation": "paper", "degree": 0}])
def test_other_models_store_their_conditionals_as_blocks(data, tmp_path, kwargs):
    model = _fit(data, **kwargs)
    model.save(tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert "potentials" not in doc and all(blocks.is_block(c) for c in doc["conditionals"])
    loaded = privbayes.load(tmp_path / "m.json")
    assert all(np.array_equal(a, b) for a, b in zip(model.conditionals, loaded.conditionals))


@pytest.mark.parametrize("kwargs", [{}, {"estimation": "projected"}])
def test_the_same_model_in_version_3_text_and_version_4_blocks_samples_the_same(data, tmp_path, kwargs):
    """Before and after the format change: the model written as version 3 did (JSON text of every
    probability) and as version 4 loads to the same numbers and the same seeded rows."""
    model = _fit(data, **kwargs)
    doc = model.to_document()
    doc.pop("potentials", None)
    doc["version"] = 3
    doc["conditionals"] = [{"shape": list(c.shape), "probabilities": c.ravel().tolist()} for c in model.conditionals]
    (tmp_path / "v3.json").write_text(json.dumps(doc))
    model.save(tmp_path / "v4.json")
    old, new = privbayes.load(tmp_path / "v3.json"), privbayes.load(tmp_path / "v4.json")
    assert old.sample(800, random_state=11).equals(new.sample(800, random_state=11))


def test_an_adaptive_model_is_stored_as_its_potentials(data, tmp_path):
    frame, schema = data
    model = AdaptiveMarginals(1.0, rounds=3, random_state=1).fit(frame, schema).released_
    model.save(tmp_path / "a.json")
    assert "potentials" in json.loads((tmp_path / "a.json").read_text())
    loaded = privbayes.load(tmp_path / "a.json")
    assert loaded.sample(300, random_state=2).equals(model.sample(300, random_state=2))


def _document(data):
    return _fit(data).to_document()


def _refused(doc, mentions):
    with pytest.raises(InputError, match="^m.json: invalid model file: ") as info:
        load_document(json.loads(json.dumps(doc)), "m.json")
    assert mentions in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("change, mentions", [
    (lambda d: d.update(conditionals=[]), "either 'conditionals' or 'potentials'"),
    (lambda d: d.pop("potentials"), "either 'conditionals' or 'potentials'"),
    (lambda d: d.update(potentials=[]), "non-empty list"),
    (lambda d: d["potentials"][0].update(variables=[[99, 0]]), "out of range"),
    (lambda d: d["potentials"][0].update(variables=[[0, 0], [0, 0]]), "names an attribute twice"),
    (lambda d: d["potentials"][0].update(variables="x"), "[attribute, level] pairs"),
    (lambda d: d["potentials"][0]["theta"].update(shape=[1]), "must have shape"),
    (lambda d: d["potentials"][0]["theta"].update(blocks.encode(np.full(d["potentials"][0]["theta"]["shape"],
                                                                        np.nan))), "finite or -inf"),
    (lambda d: d["potentials"][0]["theta"].update(blocks.encode(np.full(d["potentials"][0]["theta"]["shape"],
                                                                        np.inf))), "finite or -inf"),
    (lambda d: d.update(network=[{"child": i, "parents": []} for i in range(len(SIZES))]),
     "not the one its potentials define"),
], ids=["both", "neither", "empty", "range", "twice", "variables", "shape", "nan", "inf", "other-network"])
def test_hostile_potentials_are_refused_in_one_line(data, change, mentions):
    doc = _document(data)
    change(doc)
    _refused(doc, mentions)


def test_potentials_whose_junction_tree_is_over_the_cap_are_refused_before_any_theta_is_decoded():
    """40 attributes of 64 values, one potential per pair: the triangulated tree of the declared
    families is astronomically large; refused from the variables alone (θ is never read).  The loader
    reaches this check after the ledger's (tests/test_hostile_input.py refuses tampered ledgers)."""
    from privbayes.bayesnet.model_file import _potentials

    encoding = Encoding.build(categorical_schema([64] * 40), "vanilla")
    raw = [{"variables": [[i, 0], [j, 0]], "theta": {"dtype": "float64", "shape": [64, 64], "codec": "raw",
                                                    "data": "never read"}}
           for i in range(40) for j in range(i + 1, 40)]
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="junction tree of its potentials has more than"):
            _potentials(raw, encoding, "m.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20


def test_blocks_declaring_more_cells_in_total_than_the_cap_are_refused_before_decoding(data, caps):
    doc = _fit(data, estimation="projected").to_document()
    total = sum(np.prod(c["shape"]) for c in doc["conditionals"])
    caps(max_model_cells=int(total) - 1)
    for c in doc["conditionals"]:
        c["data"] = "never decoded"
    _refused(doc, "cells in total, more than the limit of")


# --- fit never writes what load refuses; the cost estimate holds the file's size -----------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory, data):
    w = tmp_path_factory.mktemp("blocks_cli")
    frame, _ = data
    frame.to_csv(w / "data.csv", index=False)
    (w / "schema.yaml").write_text("attributes:\n" + "".join(
        f"  - {{name: {c}, kind: categorical, categories: [{', '.join(map(str, range(s)))}]}}\n"
        for c, s in zip(frame.columns, SIZES)))
    return w


@pytest.mark.parametrize("cap, variable", [("max_file_bytes", "PRIVBAYES_MAX_FILE_MB"),
                                           ("max_model_cells", "PRIVBAYES_MAX_MODEL_CELLS")])
def test_fit_refuses_to_write_a_model_that_loading_would_refuse(files, tmp_path, capsys, caps, cap, variable):
    out = tmp_path / "out"
    out.mkdir()
    args = ["fit", str(files / "data.csv"), "--schema", str(files / "schema.yaml"), "--epsilon", "1", "--seed", "1",
            "-o", str(out / "m.json")]
    assert run_cli(args, capsys)[0] == 0
    size = os.path.getsize(out / "m.json")
    cells = sum(c.size for c in privbayes.load(out / "m.json").conditionals)
    os.remove(out / "m.json")
    caps(**{cap: size - 1 if cap == "max_file_bytes" else cells - 1})
    code, err = run_cli(args, capsys)
    one_line_refusal(code, err, variable)
    assert "not written" in err and os.listdir(out) == []


def test_the_dry_run_bounds_the_model_file_from_public_inputs(files, tmp_path, capsys):
    args = ["fit", "--method", "privbayes", str(files / "data.csv"), "--schema", str(files / "schema.yaml"),
            "--epsilon", "2"]
    capsys.readouterr()
    assert main(args + ["--dry-run"]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if "model file at most" in x]
    assert len(line) == 1 and "public inputs only" in line[0]


@pytest.mark.parametrize("kwargs", [{}, {"estimation": "projected"}, {"estimation": "paper"}, {"degree": 2},
                                    {"epsilon": 50.0}, {"encoding": "binary"}])
def test_the_file_size_bound_holds(data, tmp_path, kwargs):
    from privbayes.methods.privbayes.cost import cost_estimate

    frame, schema = data
    estimator = PrivBayes(**{"epsilon": 1.0, "random_state": 4, **kwargs})
    model = estimator.fit(frame, schema).released_
    model.save(tmp_path / "m.json")
    settings = estimator.settings()
    bound = cost_estimate(settings, model.plan, settings.encoding_for(schema)).file_bytes
    assert os.path.getsize(tmp_path / "m.json") <= bound


# --- consistent estimation as ε → ∞ -------------------------------------------------------------------

def test_noise_weights_as_variances_vanish():
    assert noise_weights(np.array([2.0, 8.0, 4.0])).tolist() == [1.0, 0.25, 0.5]  # σ_min²/σ_i², unchanged
    assert noise_weights(np.zeros(3)).tolist() == [1.0, 1.0, 1.0]
    mixed = noise_weights(np.array([0.0, 4.0, NOISELESS / 2]))
    assert mixed[0] == mixed[2] == 1.0 and 0 < mixed[1] == NOISELESS / 4
    assert discrete_laplace_variance(Fraction(1, 10**9)) == 0.0  # the underflow that made 0/0


def test_consistent_estimation_with_noiseless_tables_matches_them_without_warnings():
    """ε = 10⁹: every table's noise variance underflows to 0; the estimate must match the tables
    (they are exact and agree), with no NaN and no RuntimeWarning (the suite's warnings are errors)."""
    schema = categorical_schema([3, 4, 2])
    encoding = Encoding.build(schema, "vanilla")
    rng = np.random.default_rng(7)
    joint = rng.multinomial(1000, rng.dirichlet(np.ones(24))).reshape(3, 4, 2).astype(float)
    tables = [NoisyTable(0, ((0, 0), (1, 0)), joint.sum(axis=2), Fraction(2, 10**9)),
              NoisyTable(1, ((1, 0), (2, 0)), joint.sum(axis=0), Fraction(2, 10**9))]
    fit = estimate(encoding, tables, 1000.0)
    _, conditionals = junction_tree_network(fit.calibrated)
    assert all(np.isfinite(c).all() for c in conditionals)
    assert np.allclose(fit.calibrated.marginal((0, 1)) * 1000, tables[0].counts, atol=0.05)
    assert np.allclose(fit.calibrated.marginal((1, 2)) * 1000, tables[1].counts, atol=0.05)


@pytest.mark.parametrize("method", ["privbayes", "adaptive"])
def test_a_fit_at_epsilon_1e9_runs_without_warnings_and_saves(files, tmp_path, capsys, method):
    out = tmp_path / "m.json"
    code, err = run_cli(["fit", str(files / "data.csv"), "--schema", str(files / "schema.yaml"), "--method", method,
                         "--epsilon", "1e9", "--seed", "2", "-o", str(out)], capsys)
    assert code == 0 and "Warning" not in err, err
    model = privbayes.load(out)
    assert all(np.isfinite(c).all() for c in model.conditionals)
    frame = pd.read_csv(files / "data.csv")
    rows = model.sample(20000, random_state=1)
    # noiseless 1-way marginals: the sample's shares within 4 binomial standard deviations of the data's
    for column in frame.columns:
        p = frame[column].value_counts(normalize=True).sort_index()
        q = rows[column].astype(int).value_counts(normalize=True).reindex(p.index, fill_value=0.0)
        assert np.all(np.abs(p - q) <= 4 * np.sqrt(p * (1 - p) / 20000) + 1e-9), column
