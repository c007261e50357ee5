"""privbayes.methods.mrf: MLE, projection, privacy accounting, CGM vs naive, model files, CLI."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame, kl_divergence, random_log_linear

import privbayes
from privbayes import PrivateMRF
from privbayes.core.errors import InputError
from privbayes.files import blocks
from privbayes.inference import make_engine
from privbayes.methods.mrf import (
    CGMOptions,
    LogLinearModel,
    NoisyStatistics,
    cgm_em,
    fit_mle,
    measure,
    naive_mle,
    project_simplex,
)
from privbayes.methods.mrf.model_file import from_document
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import random_source

CHAIN = [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]


@pytest.mark.parametrize("cliques", [[(0, 1), (1, 2), (2, 3)], [(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 1, 2), (2, 3)]],
                         ids=["chain", "cycle", "triple"])
def test_mle_recovers_a_models_own_marginals(cliques):
    truth = random_log_linear((2, 3, 2, 3), cliques, seed=1)
    target = truth.marginals()
    fitted = fit_mle(LogLinearModel.uniform(truth.domain, cliques), target, lam=0.0)
    # A strictly convex problem in the marginals (Prop. 2); L-BFGS stops at gradient 1e-9.
    for got, want in zip(fitted.marginals(), target):
        np.testing.assert_allclose(got, want, atol=1e-6)
    assert kl_divergence(truth, fitted) < 1e-9


def test_regularisation_shrinks_towards_uniform():
    truth = random_log_linear((2, 3, 2), [(0, 1), (1, 2)], seed=2)
    start = LogLinearModel.uniform(truth.domain, truth.cliques)
    weak, strong = (fit_mle(start, truth.marginals(), lam) for lam in (1e-4, 1.0))
    assert np.linalg.norm(np.concatenate([t.ravel() for t in strong.theta])) < \
        np.linalg.norm(np.concatenate([t.ravel() for t in weak.theta]))


def test_simplex_projection_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(50):
        v = rng.normal(size=5) * 2
        w = project_simplex(v)
        assert w.min() >= 0 and w.sum() == pytest.approx(1.0)
        # KKT (Duchi et al. 2008): w = max(v − τ, 0) with one τ; find τ by bisection independently.
        lo, hi = v.min() - 1, v.max()
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if np.maximum(v - mid, 0).sum() > 1 else (lo, mid)
        np.testing.assert_allclose(w, np.maximum(v - lo, 0), atol=1e-9)
    point = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(project_simplex(point), point)


def _fit(method="naive", epsilon=0.7, **kwargs):
    frame = correlated_frame([2, 3, 2, 3], 1500, seed=0)
    return PrivateMRF(CHAIN, epsilon, estimation=method, random_state=3,
                      **kwargs).fit(frame, categorical_schema([2, 3, 2, 3]))


@pytest.mark.parametrize("method", ["auto", "naive", "cgm"])
def test_ledger_spends_epsilon_exactly(method):
    model = _fit(method, epsilon=0.7)
    report = model.privacy_report()
    assert len(report["ledger"]) == len(CHAIN)
    assert sum(Fraction(e["epsilon_exact"]) for e in report["ledger"]) == Fraction(7, 10)  # the decimal written
    assert all(e["mechanism"] == "discrete Laplace" and e["sensitivity"] == 2 for e in report["ledger"])
    assert report["differentially_private"] and report["seeded"] and report["epsilon_spent"] == 0.7
    assert set(report) >= {"mechanism", "differentially_private", "epsilon", "epsilon_spent", "neighbouring_relation",
                           "seeded", "caveats", "ledger"}


@pytest.mark.parametrize("relation,expected", [("replace-one", 2 * 3 / 0.5), ("add-remove", 3 / 0.5)])
def test_noise_scale_per_cell(relation, expected):
    counts = [np.zeros((100, 100), dtype=np.int64)] * 3
    stats = measure(counts, 10_000, [(0, 1), (1, 2), (2, 3)], ["x", "y", "z"], 0.5, relation,  # type: ignore[arg-type]
                    Accountant(0.5), random_source(4))
    assert stats.scale == pytest.approx(expected)
    noise = np.concatenate([t.ravel() for t in stats.tables]).astype(float)
    # Discrete Laplace of scale s: Var = 2e^{-1/s}/(1 − e^{-1/s})² (≈ 2s²).  The sample variance of
    # m = 30,000 draws (kurtosis 6) has relative sd √(5/m) ≈ 1.3 %; 6 sd = 8 %.
    q = math.exp(-1 / expected)
    assert noise.var() == pytest.approx(2 * q / (1 - q) ** 2, rel=0.08)
    assert abs(noise.mean()) < 6 * math.sqrt(2 * q / (1 - q) ** 2 / noise.size)


def test_add_remove_estimates_n_from_the_noisy_tables():
    model = _fit("naive", epsilon=1.0, neighbours="add-remove")
    assert model.privacy_report()["ledger"][0]["sensitivity"] == 1
    # N̂ is the mean of 3 table totals, each with noise sd √(2·6)·3 ≈ 10.4 (6 cells, scale 3): 6 sd ≈ 36.
    assert abs(model.n_ - 1500) < 36


def test_cgm_with_exact_statistics_recovers_the_marginals():
    truth = random_log_linear((2, 3, 2), [(0, 1), (1, 2)], seed=5)
    n, scale = 100_000.0, 50.0
    stats = NoisyStatistics(truth.cliques, tuple(n * m for m in truth.marginals()), scale, n, "replace-one")
    options = CGMOptions(em_max_iters=800, discrepancy=False)
    fitted, trace = cgm_em(LogLinearModel.uniform(truth.domain, truth.cliques), stats, options)
    # Each EM step moves every θ_C(i) by at most 1/b (the Laplace subgradient is sign(y − n)/b),
    # so near the fixed point the iterates hover within a few such steps: each variable is in
    # ≤ 2 cliques, so log-marginals are within ≈ 2·2/b = 0.08 of the target → 8 % relative.
    for got, want in zip(fitted.marginals(), truth.marginals()):
        np.testing.assert_allclose(got, want, rtol=0.08)


@pytest.mark.slow
def test_cgm_beats_naive_on_average_when_noise_dominates():
    """Fixed seeds, 6 noise draws: T = 4, |X| = 3 chain, N = 2000, ε = 0.05 (add-remove: b = 60
    counts per cell against ≈ 220 per cell).  Measured: mean KL naive 1.83, CGM 0.19; the
    per-draw log-ratio log(KL_naive / KL_cgm) is what we test — it is far less heavy-tailed
    than the difference, and its mean over the 6 draws is > 1 (a factor e) with every draw > 0."""
    truth = random_log_linear((3, 3, 3, 3), [(0, 1), (1, 2), (2, 3)], seed=7, scale=1.0)
    rng = np.random.default_rng(8)
    start = LogLinearModel.uniform(truth.domain, truth.cliques)
    log_ratios = []
    for draw in range(6):
        rows = truth.sample(2000, rng)
        counts = [np.bincount(np.ravel_multi_index(tuple(rows[:, v] for v in c), truth.domain.shape(c)),
                              minlength=truth.domain.cells(c)).reshape(truth.domain.shape(c)) for c in truth.cliques]
        stats = measure(counts, 2000, truth.cliques, ["x", "y", "z"], 0.05, "add-remove", Accountant(0.05),
                        random_source(draw))
        log_ratios.append(math.log(kl_divergence(truth, naive_mle(start, stats, 1e-4))
                                   / kl_divergence(truth, cgm_em(start, stats)[0])))
    assert np.mean(log_ratios) > 1.0
    assert np.median(log_ratios) > 0


def test_sample_marginal_and_likelihood():
    model = _fit("cgm", epsilon=1.0)
    rows = model.sample(200, random_state=0)
    assert list(rows.columns) == ["a0", "a1", "a2", "a3"] and len(rows) == 200
    assert set(rows["a1"]) <= {0, 1, 2}
    joint = model.marginal(["a1", "a0"])
    assert joint.shape == (3, 2) and joint.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(joint.sum(axis=0), model.marginal(["a0"]), atol=1e-12)
    # Mean log-likelihood against brute force: log p(x) = Σ θ_C(x_C) − A(θ) per row.
    frame = correlated_frame([2, 3, 2, 3], 50, seed=9)
    inner = model.released_.model
    brute = make_engine(inner.domain, inner.cliques, "brute").infer(inner.theta)
    codes = frame.to_numpy()
    expected = np.mean([sum(t[tuple(row[list(c)])] for t, c in zip(inner.theta, inner.cliques)) for row in codes])
    assert model.log_likelihood(frame) == pytest.approx(expected - brute.log_z, abs=1e-9)


def test_psgd_is_charged_epsilon_and_delta():
    model = _fit("psgd", epsilon=1.0, psgd_steps=5)
    report = model.privacy_report()
    assert len(report["ledger"]) == 1 and report["ledger"][0]["delta"] == pytest.approx(1 / 1500)
    assert report["epsilon_spent"] == 1.0 and any("δ" in c for c in report["caveats"])


def test_model_round_trip(tmp_path):
    model = _fit("cgm")
    path = tmp_path / "mrf.json"
    model.save(path)
    loaded = privbayes.load(path)
    np.testing.assert_allclose(loaded.marginal(["a2", "a3"]), model.marginal(["a2", "a3"]))
    assert loaded.privacy_report()["ledger"] == model.privacy_report()["ledger"]
    pd.testing.assert_frame_equal(loaded.sample(20, random_state=1), model.sample(20, random_state=1))


@pytest.fixture(scope="module")
def naive_document():
    return json.dumps(_fit("naive").released_.to_document())


def _tampered(document_text, change):
    document = json.loads(document_text)
    change(document)
    return document


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(format="privbayes-model"), "'format'"),
    (lambda d: d.update(version=4), "unsupported version"),
    (lambda d: d["theta"][0].update(shape=[3, 2]), "shape"),
    (lambda d: d["theta"][1].update(blocks.encode(np.zeros(d["theta"][1]["shape"][0] * d["theta"][1]["shape"][1]
                                                           + 1))), "shape"),
    (lambda d: d["theta"][1].update(blocks.encode(np.full(d["theta"][1]["shape"], np.nan))), "finite"),
    (lambda d: d["theta"][1].update(blocks.encode(np.full(d["theta"][1]["shape"], 2e6))), "finite"),
    (lambda d: d["theta"][1].update(data="!!"), "base64"),
    (lambda d: d["theta"][1].pop("data"), "must be a block"),
    (lambda d: d["parameters"].update(epsilon=0.1, epsilon_exact="1/10"), "the ledger differs from the plan"),
    (lambda d: d["parameters"].update(epsilon=0.1), "epsilon and epsilon_exact disagree"),
    (lambda d: d["ledger"].pop(), "the ledger differs from the plan"),
    (lambda d: d["ledger"][0].update(sensitivity=1e-9, sensitivity_exact="1/1000000000"), "claims sensitivity"),
    (lambda d: d["parameters"].update(neighbours="add-remove"), "claims sensitivity"),
    (lambda d: d["cliques"][0].__setitem__(0, "nope"), "no attribute named"),
    (lambda d: d["fitted"].update(epsilon_spent=0.01), "epsilon_spent"),
    (lambda d: d["parameters"].update(method="exec"), "method"),
    (lambda d: d["parameters"].update(estimation="exec"), "estimation"),
])
def test_hostile_model_file_is_refused(naive_document, change, message):
    # A ledger that claims a noiseless table (Δ = 1e-9) or another relation's Δ is refused: the plan
    # is recomputed from the parameters, sensitivities included (issue 28).
    with pytest.raises(InputError, match=message):
        from_document(_tampered(naive_document, change), "m.json")


def test_theta_is_stored_as_blocks_and_version_2_files_still_load(naive_document):
    """Issue 32: θ is written as compact blocks (version 3); a version-2 file (θ as JSON numbers) loads
    to the same θ, and a version-3 file must use blocks."""
    document = json.loads(naive_document)
    assert document["version"] == 3 and all(blocks.is_block(t) for t in document["theta"])
    current = from_document(json.loads(naive_document), "m.json")
    old = json.loads(naive_document)
    old["version"] = 2
    old["theta"] = [{"shape": t["shape"], "values": blocks.decode(t, t["shape"], "m", "t").ravel().tolist()}
                    for t in old["theta"]]
    loaded = from_document(old, "old.json")
    for mine, theirs in zip(current.model.theta, loaded.model.theta):
        np.testing.assert_array_equal(mine, theirs)
    with pytest.raises(InputError, match="must be a block"):
        from_document(old | {"version": 3}, "m.json")


def test_huge_declared_model_is_refused_before_allocation(naive_document):
    def grow(document):
        for attribute in document["schema"]["attributes"]:
            attribute["categories"] = list(range(5000))
        document["theta"][0]["shape"] = [5000, 5000]
    with pytest.raises(InputError, match="more than"):
        from_document(_tampered(naive_document, grow), "m.json")


@pytest.mark.parametrize("kwargs,message", [
    ({"epsilon": 0}, "epsilon"), ({"estimation": "magic"}, "estimation"), ({"neighbours": "swap"}, "neighbours"),
    ({"l2": -1.0}, "l2"), ({"cliques": [("a0", "a0")]}, "repeats"), ({"cliques": [("a0", "zz")]}, "zz"),
])
def test_bad_parameters_raise_input_errors(kwargs, message):
    options = {"cliques": CHAIN, "epsilon": 1.0, **kwargs}
    cliques = options.pop("cliques")
    epsilon = options.pop("epsilon")
    with pytest.raises(InputError, match=message):
        PrivateMRF(cliques, epsilon, **options).fit(correlated_frame([2, 3, 2, 3], 50, 0),
                                                    categorical_schema([2, 3, 2, 3]))


def test_cli_fit_writes_a_model(tmp_path, capsys):
    from privbayes.cli import main

    data = tmp_path / "data.csv"
    correlated_frame([2, 3, 2, 3], 300, seed=1).to_csv(data, index=False)
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(categorical_schema([2, 3, 2, 3]).to_dict()))
    fit = ["fit", str(data), "--schema", str(schema), "--method", "mrf", "--epsilon", "1"]
    assert main([*fit, "--cliques", "a0, a1; a1,a2;a2,a3", "--estimation", "naive", "--seed", "2",
                 "-o", str(tmp_path / "m.json")]) == 0
    assert "ε spent 1 of 1" in capsys.readouterr().out
    assert privbayes.load(tmp_path / "m.json").cliques == ((0, 1), (1, 2), (2, 3))
    assert main([*fit, "-o", str(tmp_path / "x.json")]) == 2
    assert "--method mrf needs --cliques" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*fit, "--cliques", "a0,;a1", "-o", str(tmp_path / "x.json")])
    assert "expected cliques such as 'a,b;b,c'" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_loopy_inference_path_matches_exact_on_a_chain():
    loopy = _fit("naive", epsilon=1.0, inference="loopy", l2=1e-2)  # strong λ: few L-BFGS steps
    inner = loopy.released_.model
    assert not inner.engine.exact
    # Loopy BP is exact on a chain (messages converge to 1e-8): its marginals match the
    # junction tree's on the fitted θ.
    exact = make_engine(inner.domain, inner.cliques, "exact").infer(inner.theta)
    np.testing.assert_allclose(loopy.marginal(["a1", "a2"]), exact.marginal((1, 2)), atol=1e-7)
    rows = loopy.sample(100, random_state=0)  # Gibbs path
    assert list(rows.columns) == ["a0", "a1", "a2", "a3"]
    assert loopy.sample(100, random_state=0, draw="iid").equals(rows)  # Gibbs chains: independent rows already
    with pytest.raises(InputError, match="draw 'balanced' needs exact inference"):
        loopy.sample(100, random_state=0, draw="balanced")
