"""Privacy bookkeeping of PrivBayes fits (TODS 2017, §3-§5): what is spent, where, at which scale."""

from fractions import Fraction

import pytest
from helpers import categorical_schema, correlated_frame

import privbayes.privacy.mechanisms as mechanisms
from privbayes import PrivBayes
from privbayes.core.validation import exact
from privbayes.privacy.accountant import Accountant, BudgetExceededError
from privbayes.privacy.mechanisms import DiscreteLaplace

SIZES = [2, 3, 4, 2, 5]
CONFIGS = [
    dict(epsilon=1.0),
    dict(epsilon=0.05),
    dict(epsilon=0.3, beta=0.5, theta=2.0),
    dict(epsilon=2.0, encoding="binary"),
    dict(epsilon=2.0, encoding="gray", score="I"),
    dict(epsilon=0.01, encoding="binary"),          # θ-usefulness gives k = 0
    dict(epsilon=1.0, degree=2, score="R"),
    dict(epsilon=1.0, degree=0),
    dict(epsilon=1.6, score="I"),
    dict(epsilon=7.3, beta=0.9, theta=12.0),
]


@pytest.fixture(scope="module")
def data():
    return correlated_frame(SIZES, 3000, seed=3), categorical_schema(SIZES)


@pytest.fixture
def laplace_scales(monkeypatch):
    """Record the scale and size of every discrete Laplace draw that the mechanisms make."""
    calls = []
    real = mechanisms.discrete_laplace

    def spy(scale, size, rng):
        calls.append((Fraction(scale), size))
        return real(scale, size, rng)

    monkeypatch.setattr(mechanisms, "discrete_laplace", spy)
    return calls


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_ledger_total_is_exactly_epsilon(data, config):
    frame, schema = data
    model = PrivBayes(random_state=1, **config).fit(frame, schema)
    total = sum(Fraction(e.epsilon) for e in model.ledger_)
    assert float(total) == pytest.approx(config["epsilon"], rel=1e-12)
    assert model.epsilon_spent_ <= config["epsilon"] * (1 + 1e-12)
    assert model.privacy_report()["epsilon_spent"] == model.epsilon_spent_


def test_alg_4_and_3_split_evenly(data, laplace_scales):
    frame, schema = data
    eps, beta = 1.0, 0.3
    # estimation="projected": one conditional per measured table, so the noised cells are the conditionals' cells.
    model = PrivBayes(eps, beta=beta, random_state=5, estimation="projected").fit(frame, schema)
    d, n = len(SIZES), len(frame)
    eps1, eps2 = exact(beta, 'beta') * exact(eps, 'eps'), exact(eps, 'eps') - exact(beta, 'beta') * exact(eps, 'eps')
    selections = [e for e in model.ledger_ if e.mechanism == "exponential"]
    releases = [e for e in model.ledger_ if e.mechanism == "discrete Laplace"]
    assert len(selections) == d - 1
    assert all(e.epsilon == pytest.approx(float(eps1 / (d - 1)), rel=1e-12) for e in selections)
    assert len(releases) == d
    # Alg. 3: Lap(2d/(nε2)) on probabilities = scale 2d/ε2 on counts, on every cell.
    assert {scale for scale, _ in laplace_scales} == {2 * d / eps2}
    assert all(scale / n == 2 * d / (n * eps2) for scale, _ in laplace_scales)
    table_sizes = [c.size for c in model.conditionals_]
    assert sorted(size for _, size in laplace_scales) == sorted(table_sizes)


def test_alg_2_and_1_use_d_minus_k_tables(data, laplace_scales):
    frame, schema = data
    k, eps = 2, 1.0
    model = PrivBayes(eps, degree=k, random_state=2).fit(frame, schema)
    d = len(SIZES)
    eps2 = exact(eps, 'eps') * (1 - Fraction(3, 10))  # ε and β are the decimals written
    releases = [e for e in model.ledger_ if e.mechanism == "discrete Laplace"]
    assert len(releases) == d - k
    # Alg. 1: Lap(2(d−k)/(nε2)) on probabilities = 2(d−k)/ε2 on counts.
    assert {scale for scale, _ in laplace_scales} == {2 * (d - k) / eps2}
    assert len([e for e in model.ledger_ if e.mechanism == "exponential"]) == d - 1


def test_binary_encoding_uses_lemma_4_8_degree(data):
    frame, schema = data
    model = PrivBayes(2.0, encoding="binary", random_state=4).fit(frame, schema)
    from privbayes.bayesnet.usefulness import binary_degree

    d = len(model.encoding_.attributes)
    assert model.score_ == "F"
    assert model.degree_ == binary_degree(len(frame), d, Fraction(2) * (1 - Fraction(3, 10)), 4.0)
    assert model.network_.degree == model.degree_


def test_degree_zero_spends_everything_on_marginals(data):
    frame, schema = data
    model = PrivBayes(1.0, degree=0, random_state=4).fit(frame, schema)
    assert all(e.mechanism == "discrete Laplace" for e in model.ledger_)
    assert len(model.ledger_) == len(SIZES)
    assert model.network_.degree == 0


def test_accountant_refuses_to_overspend():
    accountant = Accountant(1.0)
    accountant.charge(DiscreteLaplace(Fraction(7, 10), 1), step="a", measured="x")
    with pytest.raises(BudgetExceededError, match="step 'b' needs ε = 0.4 but only 0.3 of 1 is left"):
        accountant.charge(DiscreteLaplace(0.4, 1), step="b", measured="x")
    assert accountant.spent == Fraction(7, 10)
    assert len(accountant.ledger) == 1


def test_tenths_sum_without_drift():
    accountant = Accountant(1.0)
    for i in range(10):
        accountant.charge(DiscreteLaplace(Fraction(1.0) / 10, 1), step=str(i), measured="x")
    assert accountant.spent == accountant.total
