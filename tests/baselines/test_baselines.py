"""Tests for privbayes.baselines: budgets, accuracy at extreme ε, Fourier exactness, consistency."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from privbayes.baselines.classification import majority, no_privacy, private_erm
from privbayes.baselines.common import consistent, project_marginals, resolve_subsets, walsh_hadamard
from privbayes.baselines.contingency import contingency_marginals
from privbayes.baselines.fourier import exact_fourier_coefficients, fourier_marginals, marginals_from_coefficients
from privbayes.baselines.laplace import laplace_marginals
from privbayes.baselines.mwem import mwem_marginals, mwem_rounds
from privbayes.baselines.uniform import uniform_marginals
from privbayes.core.validation import exact
from privbayes.counting import InMemoryTable
from privbayes.evaluation import Target
from privbayes.privacy.accountant import Accountant, BudgetExceededError
from privbayes.schema import Attribute, Schema
from privbayes.schema.encoding import Encoding

D, N, ALPHA = 5, 2000, 2


def _table(codes: np.ndarray, sizes: list[int]) -> InMemoryTable:
    attrs = tuple(
        Attribute(f"a{j}", "binary") if s == 2 else Attribute(f"a{j}", "categorical", categories=tuple(range(s)))
        for j, s in enumerate(sizes)
    )
    return InMemoryTable(codes, Encoding.build(Schema(attrs), "vanilla"))


def _skewed_codes(seed: int = 0) -> np.ndarray:
    """A Markov chain of bits: P(a0 = 1) = 0.85, each next bit copies the last w.p. 0.9.
    Its 2-way marginals are far from uniform (average TVD to uniform 0.39)."""
    rng = np.random.default_rng(seed)
    cols = [(rng.random(N) < 0.85).astype(np.int64)]
    for _ in range(D - 1):
        cols.append(np.where(rng.random(N) < 0.1, 1 - cols[-1], cols[-1]))
    return np.column_stack(cols)


TABLE = _table(_skewed_codes(), [2] * D)


def _mwem_many_rounds(table, marginals, epsilon, rng):
    """MWEM with 40 rounds whatever ε (the paper's 0.05 per round would give 2·10^7 at ε = 10^6)."""
    return mwem_marginals(table, marginals, epsilon, rng, epsilon_per_round=Fraction(epsilon) / 40)


NOISY = {
    "laplace": laplace_marginals,
    "fourier": fourier_marginals,
    "contingency": contingency_marginals,
    "mwem": mwem_marginals,
}


def _avg_tvd(marginals: dict, reference) -> float:
    return float(np.mean([0.5 * np.abs(m - reference(s)).sum() for s, m in marginals.items()]))


def _truth(s):
    return TABLE.counts(s) / N


def _uniform(s):
    return np.full((2,) * len(s), 0.5 ** len(s))


# ---------------------------------------------------------------- budget


@pytest.mark.parametrize("name", sorted(NOISY))
@pytest.mark.parametrize("epsilon", [0.3, Fraction(1, 3), 1.6])
def test_ledger_total_is_epsilon_exactly(name, epsilon):
    release = NOISY[name](TABLE, ALPHA, epsilon, 7)
    acc = release.accountant
    assert acc.total == exact(epsilon, "epsilon")  # the decimal written: 0.3 is 3/10
    assert acc.spent == acc.total and acc.remaining == 0  # all of ε, never more
    assert math.isclose(math.fsum(e.epsilon for e in acc.ledger), float(epsilon), rel_tol=1e-12)
    assert all(e.epsilon > 0 for e in acc.ledger)
    entries = {
        "laplace": math.comb(D, ALPHA),
        "fourier": 1,
        "contingency": 1,
        "mwem": 2 * mwem_rounds(epsilon, 0.05),
    }[name]
    assert len(acc.ledger) == entries


def test_laplace_splits_evenly_with_sensitivity_two():
    acc = laplace_marginals(TABLE, ALPHA, 1.0, 1).accountant
    share = 1.0 / math.comb(D, ALPHA)
    assert all(e.epsilon == Fraction(1, math.comb(D, ALPHA)) and e.sensitivity == 2 for e in acc.ledger)
    assert all(float(e.epsilon) == share for e in acc.ledger)


def test_fourier_sensitivity_is_two_per_coefficient():
    (entry,) = fourier_marginals(TABLE, ALPHA, 1.0, 1).accountant.ledger
    assert entry.sensitivity == 2 * (D + math.comb(D, 2))  # every β with 1 ≤ |β| ≤ 2


def test_mwem_rounds_follow_the_per_round_budget():
    assert mwem_rounds(0.4, 0.05) == 8
    assert mwem_rounds(1.6, 0.05) == 32
    assert mwem_rounds(0.01, 0.05) == 1  # at least one round (TODS §6.5)
    ledger = mwem_marginals(TABLE, ALPHA, 0.2, 1).accountant.ledger
    assert [e.mechanism for e in ledger] == ["exponential", "discrete Laplace"] * 4
    assert all(e.epsilon == Fraction(1, 40) and e.sensitivity == 1 for e in ledger)


def test_uniform_spends_nothing_and_reads_nothing():
    class DomainOnly:
        encoding = TABLE.encoding

        @property
        def n(self):
            raise AssertionError("Uniform read n")

        def counts(self, attributes, levels=None):
            raise AssertionError("Uniform read counts")

    release = uniform_marginals(DomainOnly(), ALPHA, 0.5)
    assert release.accountant.spent == 0 and release.accountant.ledger == ()
    assert all(np.array_equal(m, _uniform(s)) for s, m in release.marginals.items())


def test_classifiers_spend_their_epsilon_and_can_share_one_accountant():
    codes = _skewed_codes(1)
    sizes, target = [2] * D, Target("t", 0, frozenset({1}))
    assert majority(codes, codes, sizes, target, 0.25, 1).accountant.spent == Fraction(0.25)
    assert private_erm(codes, codes, sizes, target, 0.25, 1).accountant.spent == Fraction(0.25)
    shared = Accountant(1.6)
    for column in range(4):  # the paper's four classifiers at ε/4 each
        private_erm(codes, codes, sizes, Target("t", column, frozenset({1})), Fraction(1.6) / 4, 2, accountant=shared)
    assert shared.spent == Fraction(1.6) and len(shared.ledger) == 4
    with pytest.raises(BudgetExceededError):
        majority(codes, codes, sizes, target, 0.1, 1, accountant=shared)
    assert no_privacy(codes, codes, sizes, target).accountant is None


# ---------------------------------------------------------------- accuracy at extreme ε


@pytest.mark.parametrize("name", sorted(NOISY))
@pytest.mark.parametrize("alpha", [2, 3])
def test_huge_epsilon_recovers_the_true_marginals(name, alpha):
    method = _mwem_many_rounds if name == "mwem" else NOISY[name]
    release = method(TABLE, alpha, 1e6, 3)
    assert _avg_tvd(release.marginals, _truth) < 0.01


RUNS = 200


@pytest.mark.parametrize("name", sorted(NOISY))
def test_tiny_epsilon_is_uniform_on_average(name):
    """At ε = 1e-4 a release carries (almost) no information about the data.

    A *single* release is not close to uniform: clipping pure noise at 0 leaves a
    random, often sparse, marginal (about half the cells are zeroed), whose TVD to
    uniform is 0.2-0.55 depending on the method.  What holds is symmetry: the noise is
    exchangeable across cells (Laplace, Contingency), symmetric under XOR shifts
    (Fourier), or picks a uniformly random cell and sign (MWEM's one round), so the
    *expected* release is uniform.  Tolerance: a cell of the mean of R releases has
    variance ≤ E[p²]/R ≤ (1/m)/R for an m-cell marginal, so E[TVD(mean, uniform)] ≤
    ½·m·sqrt(1/(mR)) = ½·sqrt(m/R) = 0.071 (m = 4, R = 200); the data's own pull is
    ≤ n/scale ≈ 1% (scale ≥ 2/ε = 2·10^4 vs n = 2000).  We allow 0.15, about twice
    that, while the true marginals sit far away (TVD 0.39), so leaking the data fails.
    """
    assert _avg_tvd({s: _truth(s) for s in resolve_subsets(TABLE.encoding, ALPHA)}, _uniform) > 0.35
    total: dict = {}
    for seed in range(RUNS):
        for s, m in NOISY[name](TABLE, ALPHA, 1e-4, seed).marginals.items():
            total[s] = total.get(s, 0) + m / RUNS
    assert _avg_tvd(total, _uniform) < 0.15


# ---------------------------------------------------------------- Fourier and projections


@pytest.mark.parametrize("sizes", [[2, 2, 2, 2, 2], [3, 5, 2, 4, 1]])
@pytest.mark.parametrize("alpha", [1, 2, 3])
def test_fourier_reconstruction_is_exact_without_noise(sizes, alpha):
    rng = np.random.default_rng(alpha)
    codes = np.column_stack([rng.integers(0, s, 500) for s in sizes])
    table = _table(codes, sizes)
    subsets = resolve_subsets(table.encoding, alpha) + ([(4, 0)] if alpha == 1 else [])
    coefficients = exact_fourier_coefficients(table, subsets)
    tables = marginals_from_coefficients(coefficients, table.n, table.encoding, subsets)
    for s in subsets:
        np.testing.assert_allclose(tables[s], table.counts(s), atol=1e-9)


def test_fourier_coefficients_match_their_definition():
    """f_β = Σ_rows (-1)^{β·bits(row)}, brute force over the rows' binary codes."""
    sizes = [3, 2, 4]
    rng = np.random.default_rng(5)
    codes = np.column_stack([rng.integers(0, s, 300) for s in sizes])
    bits = np.column_stack([(codes[:, 0] >> 1) & 1, codes[:, 0] & 1, codes[:, 1],
                            (codes[:, 2] >> 1) & 1, codes[:, 2] & 1])
    coefficients = exact_fourier_coefficients(_table(codes, sizes), [(0, 1, 2)])
    assert len(coefficients) == 2**5 - 1
    for mask, value in coefficients.items():
        beta = np.array([(mask >> b) & 1 for b in range(5)])
        assert value == int(np.sum((-1) ** (bits @ beta)))


def test_walsh_hadamard_is_an_involution_up_to_scale():
    values = np.random.default_rng(0).integers(-50, 50, 64)
    np.testing.assert_array_equal(walsh_hadamard(walsh_hadamard(values)), 64 * values)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_projection_by_transform_matches_plain_sums(dtype):
    full = np.random.default_rng(1).integers(0, 9, (2,) * 6).astype(dtype)
    subsets = [(0,), (5, 2), (1, 3, 4), (4, 0, 2, 5)] + list(itertools.combinations(range(6), 2))
    for chosen in (subsets[:4], subsets):  # plain sums for few subsets, the transform for many
        for s, marginal in zip(chosen, project_marginals(full, chosen)):
            others = tuple(a for a in range(6) if a not in s)
            expected = np.transpose(full.sum(axis=others), np.argsort(np.argsort(s)))
            np.testing.assert_allclose(marginal, expected)
            assert marginal.dtype == dtype


# ---------------------------------------------------------------- consistency


def test_consistent_clips_then_normalises():
    np.testing.assert_allclose(consistent(np.array([-3, 1, 3, 0])), [0, 0.25, 0.75, 0])
    np.testing.assert_allclose(consistent(np.array([[-1, -2], [0, -5]])), np.full((2, 2), 0.25))


@pytest.mark.parametrize("name", sorted(NOISY) + ["uniform"])
def test_releases_are_probability_arrays(name):
    method = NOISY.get(name, uniform_marginals)
    release = method(TABLE, [(0, 1), (4, 2, 3), (1,)], 0.05, 11)  # small ε: plenty of negative noise
    assert list(release.marginals) == [(0, 1), (4, 2, 3), (1,)]
    for s, m in release.marginals.items():
        assert m.shape == (2,) * len(s)
        assert np.all(m >= 0) and math.isclose(m.sum(), 1.0, rel_tol=1e-12)


# ---------------------------------------------------------------- data access and validation


class Spy:
    """A PrivateTable that records which count tables were asked for."""

    def __init__(self, table):
        self.encoding, self._table, self.asked = table.encoding, table, []

    @property
    def n(self):
        return self._table.n

    def counts(self, attributes, levels=None):
        self.asked.append(tuple(attributes))
        return self._table.counts(attributes, levels)


def test_mwem_reads_only_the_workload_never_the_full_table():
    spy = Spy(TABLE)
    mwem_marginals(spy, ALPHA, 0.5, 1)
    assert sorted(spy.asked) == resolve_subsets(TABLE.encoding, ALPHA)


@pytest.mark.parametrize("method", [mwem_marginals, contingency_marginals])
def test_full_domain_methods_refuse_large_domains(method):
    with pytest.raises(ValueError, match=r"full domain, which has 32 cells, more than max_cells \(16\)"):
        method(TABLE, ALPHA, 1.0, 1, max_cells=16)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "1"])
def test_epsilon_is_validated(bad):
    with pytest.raises(ValueError, match=r"^epsilon \(.*\) must be a finite number > 0$"):
        laplace_marginals(TABLE, ALPHA, bad, 1)


@pytest.mark.parametrize(
    "marginals, message",
    [(0, r"alpha = 0"), (6, r"alpha = 6"), ([(0, 0)], "repeats"), ([(0, 9)], "0..4"), ([(0, 1), (1, 0)], "twice"),
     ([], "at least one")],
)
def test_subsets_are_validated(marginals, message):
    with pytest.raises(ValueError, match=message):
        fourier_marginals(TABLE, marginals, 1.0, 1)


# ---------------------------------------------------------------- classification


def test_majority_predicts_the_majority_class():
    rng = np.random.default_rng(2)
    for rate, label in [(0.7, True), (0.3, False)]:
        codes = np.column_stack([(rng.random(N) < rate).astype(np.int64), rng.integers(0, 2, N)])
        result = majority(codes[:1600], codes[1600:], [2, 2], Target("y", 0, frozenset({1})), 1e6, 1)
        assert np.all(result.predictions == label)
        assert result.error == pytest.approx(np.mean((codes[1600:, 0] == 1) != label))


def test_private_erm_at_huge_epsilon_matches_no_privacy_on_separable_data():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, (N, 5))
    codes[:, 4] = (codes[:, 1] == 2).astype(np.int64)  # the target is a function of one feature
    sizes, target = [3, 3, 3, 3, 2], Target("y", 4, frozenset({1}))
    train, test = codes[:1600], codes[1600:]
    baseline = no_privacy(train, test, sizes, target).error
    result = private_erm(train, test, sizes, target, 1e6, 1)
    assert baseline == 0.0 and result.error <= baseline + 0.02
    again = private_erm(train, test, sizes, target, 1e6, 1)
    np.testing.assert_array_equal(result.predictions, again.predictions)  # seeded: reproducible


def test_private_erm_validates_its_parameters():
    codes = _skewed_codes(1)
    with pytest.raises(ValueError, match=r"^regularization \(0\) must be a number > 0$"):
        private_erm(codes, codes, [2] * D, Target("t", 0, frozenset({1})), 1.0, 1, regularization=0)
    with pytest.raises(ValueError, match=r"target.positive \[2\]"):
        private_erm(codes, codes, [2] * D, Target("t", 0, frozenset({2})), 1.0, 1)


def test_results_record_whether_their_noise_was_seeded():
    assert laplace_marginals(TABLE, ALPHA, 1.0, 1).seeded is True
    assert laplace_marginals(TABLE, ALPHA, 1.0, None).seeded is False
