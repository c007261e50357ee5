"""estimation="consistent" (issue 18): one model fitted to every noisy table, as post-processing."""

import inspect

import numpy as np
import pandas as pd
import pytest

import privbayes
from privbayes import PrivBayes, counting
from privbayes.bayesnet.conditionals import _normalised, noisy_conditionals
from privbayes.bayesnet.junction import junction_tree_network
from privbayes.bayesnet.measurements import measure_tables
from privbayes.core.errors import InputError
from privbayes.estimation.consistent import GeneralisedModel, estimate
from privbayes.estimation.queries import Query
from privbayes.estimation.tables import conditional_from_joint
from privbayes.inference import BruteForceEngine, Domain, make_engine
from privbayes.methods.privbayes.settings import measured_pairs
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import random_source
from privbayes.schema import Attribute, Schema
from privbayes.schema.encoding import Encoding


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(11)
    n = 3000
    age = rng.integers(18, 91, n)
    cities = ["Paris", "Lyon", "Nice", "Lille"]  # strong dependencies, but every cell possible
    city = np.where(age > 60, rng.choice(cities, n, p=[0.45, 0.05, 0.05, 0.45]), rng.choice(cities, n))
    frame = pd.DataFrame({
        "age": age,
        "city": city,
        "smoker": np.where(rng.random(n) < 0.3 + 0.4 * (city == "Lyon"), "yes", "no"),
        "group": np.where((age > 50) ^ (rng.random(n) < 0.1), "old", "young"),
    })
    schema = Schema((
        Attribute("age", "numeric", lower=18, upper=90, bins=8, integer=True),
        Attribute("city", "categorical", categories=("Paris", "Lyon", "Nice", "Lille"),
                  taxonomy=(("Paris", "Lille"), ("Lyon", "Nice"))),
        Attribute("smoker", "binary", categories=("no", "yes")),
        Attribute("group", "categorical", categories=("young", "old")),
    ))
    return frame, schema


def _table(frame, schema, encoding="hierarchical"):
    return counting.open(frame, schema).encoded(Encoding.build(schema, encoding))


def _bayes_net_joint(network, conditionals, sizes):
    """Brute-force twin: Π_i Pr[X_i | Π_i] over every configuration (parents at leaf level)."""
    joint = np.ones(sizes)
    for pair, cond in zip(network.pairs, conditionals):
        axes = [a for a, level in pair.parents] + [pair.child]
        assert all(level == 0 for _, level in pair.parents)
        aligned = np.transpose(cond, np.argsort(axes))
        joint = joint * aligned.reshape([sizes[v] if v in axes else 1 for v in range(len(sizes))])
    return joint


def _measured_marginal(joint, query):
    everything = tuple(range(joint.ndim))
    leaf = joint.sum(axis=tuple(v for v in everything if v not in query.scope))
    kept = sorted(query.scope)
    return query.project(np.transpose(leaf, [kept.index(v) for v in query.scope]))


def test_exact_measurements_are_reproduced(mixed):
    # Consistent tables (exact counts of one table) are explained with zero loss, so the estimate
    # must reproduce each of them; L = ½ Σ ‖Aμ − y‖² (weights 1) bounds every cell's error by √(2L)
    # (≤ 1.5e-3 here, about four rows of 3000).  Starting from uniform (floor 1), not from the TODS model.
    frame, schema = mixed
    table = _table(frame, schema)
    fitted = PrivBayes(1.0, random_state=4, estimation="projected").fit(table).model_
    budgets = {i: None for i in measured_pairs(fitted.plan)}
    measurements = measure_tables(table, fitted.network, budgets, None, random_source(1))
    assert any(level for m in measurements for _, level in m.variables[:-1]), "want a generalised parent"
    result = estimate(fitted.encoding, measurements, table.n, max_iterations=200, tolerance=1e-14, floor=1.0)
    assert result.loss < 1e-6  # empty cells (e.g. the unused missing codes) need θ → −∞: O(1/t)
    network, conditionals = junction_tree_network(result.calibrated)
    sizes = [a.size for a in fitted.encoding.attributes]
    joint = _bayes_net_joint(network, conditionals, sizes)
    bound = np.sqrt(2 * result.loss) + 1e-9
    for m in measurements:
        error = np.abs(_measured_marginal(joint, Query(fitted.encoding, m)) - m.counts / table.n)
        assert error.max() <= bound
    # From the TODS model with no floor (empty cells impossible from the start) the fit is exact.
    assert estimate(fitted.encoding, measurements, table.n, floor=0.0).loss < 1e-20


def test_the_released_network_is_the_estimated_distribution(mixed):
    # Exact sampling: the junction tree's Bayesian network has the joint ∝ exp(Σ θ_i) that brute
    # force enumerates from the same log-potentials (float error only: 1e-12).
    frame, schema = mixed
    table = _table(frame, schema)
    fitted = PrivBayes(0.5, random_state=2).fit(table).model_
    measurements = measure_tables(table, fitted.network, measured_pairs(fitted.plan), Accountant(1), random_source(3))
    result = estimate(fitted.encoding, measurements, table.n, max_iterations=20)
    sizes = tuple(a.size for a in fitted.encoding.attributes)
    queries = [Query(fitted.encoding, m) for m in measurements]
    brute = BruteForceEngine(Domain(sizes), [q.scope for q in queries]).infer(
        [q.spread(t) for q, t in zip(queries, result.log_potentials)])
    expected = np.exp(brute.log_joint - brute.log_z)
    assert np.abs(_bayes_net_joint(*junction_tree_network(result.calibrated), sizes) - expected).max() < 1e-12


def test_generalised_parents_as_variables_give_the_leaf_models_marginals(mixed):
    # Mirror descent may iterate on the model with one variable per generalised parent, tied to its
    # leaves by 0/−∞ factors: for any log-potentials its measured marginals (and so L and every
    # step) must be the leaf model's, to float error.
    frame, schema = mixed
    table = _table(frame, schema)
    fitted = PrivBayes(1.0, random_state=4, estimation="projected").fit(table).model_
    measurements = measure_tables(table, fitted.network, measured_pairs(fitted.plan), Accountant(1), random_source(5))
    queries = [Query(fitted.encoding, m) for m in measurements]
    assert any(any(q.levels) for q in queries), "want a generalised parent"
    domain = Domain(tuple(a.size for a in fitted.encoding.attributes))
    scopes = [q.scope for q in queries]
    leaf = GeneralisedModel(make_engine(domain, scopes), scopes, [], queries)
    extended = GeneralisedModel._extended(domain, queries, scopes)
    assert extended is not None and extended.queries is None
    rng = np.random.default_rng(0)
    targets = [m.counts / table.n for m in measurements]
    weights = np.ones(len(measurements))
    for _ in range(3):
        theta = [rng.normal(0, 2, m.counts.shape) for m in measurements]
        (mu_leaf, loss_leaf), (mu_ext, loss_ext) = (model.evaluate(theta, targets, weights)
                                                    for model in (leaf, extended))
        assert abs(loss_leaf - loss_ext) < 1e-12
        for a, b in zip(mu_leaf, mu_ext):
            assert a.shape == b.shape and np.abs(a - b).max() < 1e-12


class _Closable:
    """A table that refuses every count once closed: the data 'deleted' after measuring."""

    def __init__(self, inner):
        self.inner, self.closed = inner, False
        self.schema, self.encoding, self.n = inner.schema, inner.encoding, inner.n

    def counts(self, attributes, levels=None):
        if self.closed:
            raise AssertionError("estimation read the data")
        return self.inner.counts(attributes, levels)


def test_estimation_needs_the_measurements_only(mixed):
    frame, schema = mixed
    table = _Closable(_table(frame, schema))
    fitted = PrivBayes(1.0, random_state=5).fit(table.inner).model_
    measurements = measure_tables(table, fitted.network, measured_pairs(fitted.plan), Accountant(1), random_source(6))
    table.closed = True
    del table
    assert "table" not in inspect.signature(estimate).parameters
    result = estimate(fitted.encoding, measurements, fitted.n)
    assert np.isfinite(result.loss)


def test_estimation_only_improves_on_the_paper_model(mixed):
    # Mirror descent starts at the TODS model and accepts only descent steps.
    frame, schema = mixed
    table = _table(frame, schema)
    fitted = PrivBayes(0.2, random_state=7).fit(table).model_
    measurements = measure_tables(table, fitted.network, measured_pairs(fitted.plan), Accountant(1), random_source(8))
    start = estimate(fitted.encoding, measurements, table.n, max_iterations=0)
    assert estimate(fitted.encoding, measurements, table.n).loss < start.loss


@pytest.mark.parametrize("encoding", ["hierarchical", "binary"])
def test_ledger_and_measurements_are_the_papers(mixed, encoding):
    # Same seed: the same network, the same paid-for releases (plan = ledger), the same noisy tables.
    frame, schema = mixed
    paper = PrivBayes(0.8, encoding=encoding, random_state=9).fit(frame, schema).model_
    consistent = PrivBayes(0.8, encoding=encoding, random_state=9, estimation="consistent").fit(frame, schema).model_
    assert [(e.step, e.mechanism, e.epsilon, e.sensitivity, e.measured) for e in consistent.ledger] == \
        [(e.step, e.mechanism, e.epsilon, e.sensitivity, e.measured) for e in paper.ledger]
    consistent.plan.check(consistent.ledger)
    assert consistent.epsilon_spent == pytest.approx(0.8)
    table = _table(frame, schema, encoding)
    budgets = measured_pairs(paper.plan)
    twins = noisy_conditionals(table, paper.network, budgets, Accountant(1), random_source(10),
                               degree=paper.plan.setting("degree"))
    measurements = measure_tables(table, paper.network, budgets, Accountant(1), random_source(10))
    for m in measurements:
        assert np.array_equal(conditional_from_joint(_normalised(m.counts)), twins[m.pair])


def test_save_load_round_trip_and_seeded_reproducibility(tmp_path, mixed):
    frame, schema = mixed
    first = PrivBayes(0.4, random_state=12, estimation="consistent").fit(frame, schema)
    second = PrivBayes(0.4, random_state=12, estimation="consistent").fit(frame, schema)
    assert first.network_ == second.network_
    assert all(np.array_equal(a, b) for a, b in zip(first.conditionals_, second.conditionals_))
    path = tmp_path / "model.json"
    first.save(path)
    loaded = privbayes.load(path)
    assert loaded.parameters["estimation"] == "consistent"
    assert loaded.privacy_report() == first.privacy_report()
    pd.testing.assert_frame_equal(first.sample(400, random_state=3), loaded.sample(400, random_state=3))
    pd.testing.assert_frame_equal(first.sample(400, random_state=3), second.sample(400, random_state=3))


def test_estimation_is_validated(mixed):
    frame, schema = mixed
    with pytest.raises(InputError, match="estimation"):
        PrivBayes(1.0, estimation="best").fit(frame, schema)


def test_a_tree_too_large_falls_back_to_projected_with_a_caveat(mixed, monkeypatch):
    # Force the size check to fail: the fit must neither refuse nor measure again; it keeps the
    # same paid-for tables and turns them into conditionals as estimation="projected" does.
    import privbayes.estimation.consistent as consistent_module

    real = consistent_module.make_engine
    monkeypatch.setattr(consistent_module, "make_engine",
                        lambda domain, scopes: real(domain, scopes, max_exact_cells=1))
    frame, schema = mixed
    fallback = PrivBayes(0.8, random_state=5, estimation="consistent").fit(frame, schema).model_
    projected = PrivBayes(0.8, random_state=5, estimation="projected").fit(frame, schema).model_
    assert fallback.network == projected.network
    assert all(np.array_equal(a, b) for a, b in zip(fallback.conditionals, projected.conditionals))
    assert [e.step for e in fallback.ledger] == [e.step for e in projected.ledger]
    assert any("junction tree" in c and "projected" in c for c in fallback.caveats)
    assert not any("junction tree" in c for c in projected.caveats)


def test_the_learned_network_is_kept_and_round_trips(tmp_path, mixed):
    frame, schema = mixed
    projected = PrivBayes(0.8, random_state=21, estimation="projected").fit(frame, schema)
    consistent = PrivBayes(0.8, random_state=21, estimation="consistent").fit(frame, schema)
    assert projected.model_.learned_network is None and projected.learned_network_ == projected.network_
    # Same seed, same GreedyBayes run: the learned network is the projected fit's, and the sampling
    # network's families contain every learned family.
    assert consistent.learned_network_ == projected.network_
    assert consistent.degree_ == projected.degree_
    families = [{a for a, _ in p.parents} | {p.child} for p in consistent.network_.pairs]
    for pair in consistent.learned_network_.pairs:
        assert any({a for a, _ in pair.parents} | {pair.child} <= f for f in families)
    path = tmp_path / "model.json"
    consistent.save(path)
    loaded = privbayes.load(path)
    assert loaded.learned_network == consistent.learned_network_ and loaded.degree == consistent.degree_
    assert loaded.describe() == consistent.model_.describe()
