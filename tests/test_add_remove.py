"""PrivBayes under add/remove neighbours (n private): sensitivities, bookkeeping, model files, audit."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import privbayes
import privbayes.privacy.mechanisms as mechanisms_module
from privbayes import counting
from privbayes.audit.distinguish import binary_schema, cells_pair, distinguish, miss_probability, support_event
from privbayes.bayesnet.registry import get_score
from privbayes.bayesnet.scores import CountIndependenceDistance
from privbayes.bayesnet.usefulness import binary_usefulness, domain_bound
from privbayes.core.errors import InputError
from privbayes.estimation.measurements import NoisyTable, estimated_total
from privbayes.methods.privbayes.estimator import PrivBayes
from privbayes.methods.privbayes.settings import COUNT_SHARE, COUNT_STEP
from privbayes.privacy.mechanisms import discrete_laplace_variance
from privbayes.privacy.neighbours import ADD_REMOVE, REPLACE_ONE, neighbours
from privbayes.privacy.samplers import discrete_laplace, random_source
from privbayes.schema import Attribute, Schema

LN3 = math.log(3)


def _count_score(table: np.ndarray) -> Fraction:
    """n·R of a count table as an exact rational (numerator over 2n; 0 for the empty table)."""
    score = CountIndependenceDistance()
    n = int(table.sum())
    return Fraction(0) if n == 0 else Fraction(int(score.exact_batch(table[None])[0]), score.denominator(n))


@pytest.mark.parametrize("shape, most", [((2, 2), 9), ((2, 3), 7), ((3, 4), 5), ((4, 2), 6)])
def test_count_scaled_r_moves_by_less_than_its_declared_sensitivity(shape, most):
    # Every table of up to ``most`` tuples in small shapes, every added tuple: |Δ(n·R)| < 2 exactly
    # (removal is the same pair read backwards).  A bound that is wrong for any table fails here.
    sensitivity = CountIndependenceDistance().sensitivity(0, *shape)
    cells = math.prod(shape)
    largest = Fraction(0)
    for n in range(0, most):
        for placement in itertools.combinations_with_replacement(range(cells), n):
            table = np.bincount(np.array(placement, dtype=np.int64), minlength=cells).reshape(shape)
            before = _count_score(table)
            for cell in range(cells):
                grown = table.copy()
                grown.flat[cell] += 1
                change = abs(_count_score(grown) - before)
                assert change < sensitivity, (table.tolist(), cell)
                largest = max(largest, change)
    assert largest > 1  # the bound is not vacuous: some additions move n·R by more than 1


def test_count_scaled_r_is_r_times_n():
    rng = np.random.default_rng(3)
    tables = rng.integers(0, 9, size=(5, 3, 4))
    score = CountIndependenceDistance()
    exact = [Fraction(int(v), score.denominator(int(t.sum()))) for v, t in zip(score.exact_batch(tables), tables)]
    np.testing.assert_allclose(score.batch(tables), [float(x) for x in exact])
    r = get_score("R")
    np.testing.assert_allclose(score.batch(tables), r.batch(tables) * tables.sum(axis=(1, 2)))


def test_scores_without_an_add_remove_bound_are_refused():
    for name in ("I", "F"):
        with pytest.raises(InputError, match="add-remove"):
            get_score(name, ADD_REMOVE)
        with pytest.raises(InputError, match="score"):
            PrivBayes(1.0, score=name, neighbours="add-remove").check_parameters()
    with pytest.raises(InputError, match="neighbours"):
        PrivBayes(1.0, neighbours="swap").check_parameters()
    assert neighbours(None) is REPLACE_ONE


def test_usefulness_bounds_scale_with_the_count_sensitivity():
    # Half the noise (Δ = 1) allows tables twice as large at the same θ.
    assert domain_bound(1000, 5, Fraction(4, 5), 4, 4, ADD_REMOVE.count_sensitivity) == 2 * domain_bound(
        1000, 5, Fraction(4, 5), 4, 4)
    assert binary_usefulness(1000, 10, Fraction(1, 2), 2, Fraction(1)) == 2 * binary_usefulness(
        1000, 10, Fraction(1, 2), 2)


def _table(counts, scale):
    counts = np.asarray(counts)
    return NoisyTable(0, tuple((i, 0) for i in range(counts.ndim)), counts, scale)


def test_estimated_total_weights_by_inverse_variance():
    small, large = _table([40, 60], Fraction(1)), _table(np.full((4, 5), 7), Fraction(3))
    total = estimated_total([small, large], 90, Fraction(10))
    variances = np.array([discrete_laplace_variance(Fraction(10)), 2 * small.variance, 20 * large.variance])
    expected = np.dot(1 / variances, [90, 100, 140]) / np.sum(1 / variances)
    assert total == pytest.approx(expected)
    assert estimated_total([_table([3, 4], None), large], 90, Fraction(10)) == 7  # exact table: its total
    assert estimated_total([], -50, Fraction(10)) == 1  # never below one tuple


def test_estimated_total_is_unbiased_and_beats_the_noisy_count():
    # 2000 draws of a noisy count (scale 20) and two noisy tables (scales 2 and 5) of n = 600: the
    # combination's mean is within 5 standard errors of n (false failure < 1e-6) and its spread is
    # well below the count's alone (the tables' sums have variances 2·2·2² and 6·2·5², vs 2·20²).
    rng = random_source(11)
    n, scales = 600, [Fraction(2), Fraction(5)]
    truth = [np.array([250, 350]), np.array([[100, 150, 0], [200, 100, 50]])]
    estimates, counts = [], []
    for _ in range(2000):
        count = n + int(discrete_laplace(Fraction(20), 1, rng)[0])
        tables = [_table(t + discrete_laplace(s, t.size, rng).reshape(t.shape), s) for t, s in zip(truth, scales)]
        estimates.append(estimated_total(tables, count, Fraction(20)))
        counts.append(count)
    weights = 1 / np.array([discrete_laplace_variance(Fraction(20)), 2 * discrete_laplace_variance(scales[0]),
                            6 * discrete_laplace_variance(scales[1])])
    sd = math.sqrt(1 / weights.sum())
    assert abs(np.mean(estimates) - n) < 5 * sd / math.sqrt(2000)
    assert np.std(estimates) < 1.2 * sd < 0.5 * np.std(counts)


def test_fit_under_add_remove_pays_for_the_count_and_uses_sensitivity_one(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 2, 500), "b": rng.integers(0, 2, 500), "c": rng.integers(0, 2, 500)})
    schema = binary_schema("abc")
    model = PrivBayes(1.0, neighbours="add-remove", random_state=4).fit(counting.open(frame, schema))
    report = model.privacy_report()
    ledger = report["ledger"]
    assert ledger[0]["step"] == COUNT_STEP and ledger[0]["sensitivity"] == 1
    assert Fraction(ledger[0]["epsilon_exact"]) == Fraction(1.0) * COUNT_SHARE
    assert all(e["sensitivity"] == 1 for e in ledger if e["step"].startswith("conditional"))
    assert all(e["sensitivity"] == 2 for e in ledger if e["step"].startswith("network"))
    assert sum(Fraction(e["epsilon_exact"]) for e in ledger) == Fraction(1.0)
    assert report["score"] == "R" and "add or remove" in report["neighbouring_relation"]
    assert report["plan"]["settings"]["n"] == model.model_.n  # the noisy count, not the input's size
    assert report["n_public"] is False and "rows (noisy count)" in str(report)
    path = tmp_path / "m.json"
    model.save(path)
    loaded = privbayes.load(path)
    assert loaded.privacy_report()["neighbouring_relation"] == report["neighbouring_relation"]
    assert loaded.sample(5, random_state=1).shape == (5, 3)
    doc = json.loads(path.read_text())
    doc["parameters"]["neighbours"] = "replace-one"  # claim the other relation: the ledger no longer fits
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="ledger"):
        privbayes.load(path)


def test_replace_one_fits_are_unchanged_by_the_option():
    frame = pd.DataFrame({"a": [0, 1, 1, 0] * 50, "b": [1, 1, 0, 0] * 50})
    table = counting.open(frame, binary_schema("ab"))
    one = PrivBayes(1.0, random_state=2).fit(table)
    two = PrivBayes(1.0, random_state=2, neighbours="replace-one").fit(table)
    assert one.model_.n == 200 and one.privacy_report()["ledger"] == two.privacy_report()["ledger"]
    assert all(np.array_equal(x, y) for x, y in zip(one.conditionals_, two.conditionals_))


def test_tiny_tables_fit_under_add_remove():
    # n = 1: the noisy count may be far off; the fit still succeeds (success must not depend on n).
    frame = pd.DataFrame({"a": [1], "b": [0]})
    for seed in range(20):
        model = PrivBayes(0.1, neighbours="add-remove",
                          random_state=seed).fit(counting.open(frame, binary_schema("ab")))
        assert model.model_.n >= 1


@pytest.mark.parametrize("backend", ["numpy", "duckdb"])
def test_the_empty_table_fits_under_add_remove(tmp_path, backend):
    # The empty table is a neighbour of every one-row table under add/remove: refusing it would
    # tell them apart.  Under replace-one (n public) it is refused with one line.
    schema = Schema((Attribute("a", "categorical", categories=("x", "y", "z")), Attribute("b", "binary"),
                     Attribute("c", "numeric", lower=0, upper=10, bins=8)))
    (tmp_path / "empty.csv").write_text("a,b,c\n")
    (tmp_path / "one.csv").write_text("a,b,c\ny,1,3.5\n")
    for name in ("empty.csv", "one.csv"):
        model = PrivBayes(0.5, neighbours="add-remove", random_state=2).fit(tmp_path / name, schema, backend=backend)
        assert model.model_.n >= 1 and model.sample(3, random_state=0).shape == (3, 3)
    with pytest.raises(InputError, match="no rows"):
        PrivBayes(0.5).fit(tmp_path / "empty.csv", schema, backend=backend)


# Cells scenario under add/remove: B is A without its tuple in cell (0,1), so that cell holds 1 + Z
# in A and Z in B, a table of sensitivity 1 at ε_t = (1 − β)(1 − 1/100)ε; on E = {(0,1) > 0} the
# likelihood ratio is exactly e^{ε_t} ≤ e^ε.  α = 1e-3; N = 1500 (τ ≈ 0.23) as the replace-one audit.
def _add_remove_cells_audit(runs: int):
    a, _ = cells_pair()
    b = a.iloc[:3]
    schema = binary_schema("ab")

    def release(frame, seed_base):
        table = counting.open(frame, schema)

        def run(i):
            model = PrivBayes(LN3, degree=1, beta=0.05, estimation="paper", neighbours="add-remove",
                              random_state=seed_base + i).fit(table)
            return support_event(model, [(0, 1), (1, 0)])
        return run
    return distinguish(release(a, 10**6), release(b, 2 * 10**6), epsilon=LN3, runs=runs, events=4,
                       false_failure=1e-3)


def test_end_to_end_add_remove_cells_audit_passes():
    result = _add_remove_cells_audit(1500)
    print(result.summary())
    assert result.passed, result.summary()


def test_end_to_end_add_remove_audit_rejects_half_noise(monkeypatch):
    # Half scale: q = e^{−2ε_t}, Pr_A[E] = 1/(1+q), Pr_B[E] = q/(1+q), so δ_ε = (1 − e^ε q)/(1+q) ≈ 0.55
    # (the cell (1,0) is pure noise in both and does not dilute it); at N = 1200 the miss bound is < 1e-4.
    real = mechanisms_module.discrete_laplace
    monkeypatch.setattr(mechanisms_module, "discrete_laplace", lambda scale, size, rng: real(scale / 2, size, rng))
    q = math.exp(-2 * 0.95 * 0.99 * LN3)
    assert (1 - 3 * q) / (1 + q) > 0.5 and miss_probability(0.5, 1200, LN3, 4, 1e-3) < 1e-4
    result = _add_remove_cells_audit(1200)
    print(result.summary())
    assert not result.passed, result.summary()
