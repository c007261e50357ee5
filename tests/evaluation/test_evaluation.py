"""Tests for privbayes.evaluation: marginal TVD, the SVM task and information measures."""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privbayes.evaluation import (
    PAPER_TARGETS,
    Target,
    all_marginals,
    average_marginal_tvd,
    average_tvd_of_marginals,
    kl_divergence,
    marginal,
    marginal_tvd_table,
    mutual_information,
    network_mutual_information,
    svm_misclassification,
    train_test_split_indices,
)

# Hand-computed example.  2-way marginals over (col0, col1), cells 00 01 10 11:
#   real  .25 .25 0  .5      synth .25 0 .5 .25   ->  TVD = ½(0 + .25 + .5 + .25) = 0.5
# 1-way: col0 real (.5, .5) vs synth (.25, .75) -> 0.25; col1 (.25, .75) vs (.75, .25) -> 0.5
REAL = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
SYNTH = np.array([[0, 0], [1, 0], [1, 0], [1, 1]])


# ---------------------------------------------------------------- data helpers


@functools.cache
def _load(data: Path, name: str) -> tuple[np.ndarray, list[int], list[list[str]]]:
    """Integer-code the released ``data/name/name.dat`` using its .domain file.

    Returns (codes, sizes, leaves) where leaves[j] lists a categorical
    attribute's leaves in code order (empty for continuous attributes).
    """
    domain = [line.strip() for line in (data / name / f"{name}.domain").read_text().splitlines()]
    domain = [line for line in domain if line]
    raw = pd.read_csv(data / name / f"{name}.dat", sep=r"\s+", header=None, dtype=str)
    columns, sizes, leaves = [], [], []
    for j, line in enumerate(domain):
        kind, *tokens = line.split()
        values = raw[j].str.strip()
        if kind == "C":
            low, high = float(tokens[0]), float(tokens[1])
            bins = np.floor((values.astype(float).to_numpy() - low) / ((high - low) / 16))
            columns.append(np.minimum(bins, 15).astype(np.int64))
            sizes.append(16)
            leaves.append([])
        else:
            names = line[1:].replace("{", " ").replace("}", " ").split()
            codes = values.map({leaf: i for i, leaf in enumerate(names)})
            assert not codes.isna().any(), f"{name} column {j} has values outside its domain"
            columns.append(codes.to_numpy(dtype=np.int64))
            sizes.append(len(names))
            leaves.append(names)
    return np.column_stack(columns), sizes, leaves


def _reference_tvd(real: np.ndarray, synth: np.ndarray, attrs: tuple[int, ...]) -> float:
    """TVD of one marginal from Counters of row tuples (independent of the library)."""
    p = Counter(tuple(row) for row in real[:, attrs])
    q = Counter(tuple(row) for row in synth[:, attrs])
    return 0.5 * sum(abs(p[c] / len(real) - q[c] / len(synth)) for c in set(p) | set(q))


def _random_tables(seed: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    rng = np.random.default_rng(seed)
    sizes = [2, 3, 4, 2, 5]
    real = np.column_stack([rng.integers(0, s, 60) for s in sizes])
    synth = np.column_stack([rng.integers(0, s, 45) for s in sizes])
    synth[:, 1] = synth[:, 0]  # correlated columns, unlike the real table
    return real, synth, sizes


# ---------------------------------------------------------------- marginals


def test_marginal_by_hand():
    np.testing.assert_allclose(marginal(REAL, [2, 2], (0, 1)), [[0.25, 0.25], [0.0, 0.5]])
    np.testing.assert_allclose(marginal(REAL, [2, 2], (1, 0)), [[0.25, 0.0], [0.25, 0.5]])
    np.testing.assert_allclose(marginal(REAL, [2, 3], (1,)), [0.25, 0.75, 0.0])


@pytest.mark.parametrize(("alpha", "expected"), [(1, 0.375), (2, 0.5)])
def test_average_tvd_by_hand(alpha, expected):
    assert average_marginal_tvd(REAL, SYNTH, [2, 2], alpha) == pytest.approx(expected)


def test_identical_and_disjoint_tables():
    doubled = np.concatenate([REAL, REAL[::-1]])  # same distribution, different n
    for alpha in (1, 2):
        assert average_marginal_tvd(REAL, doubled, [2, 2], alpha) == 0.0
        assert average_marginal_tvd(np.zeros((3, 2), int), np.ones((5, 2), int), [2, 2], alpha) == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [1, 2, 3, 4])
def test_average_tvd_matches_slow_reference(seed, alpha):
    real, synth, sizes = _random_tables(seed)
    combos = list(itertools.combinations(range(len(sizes)), alpha))
    expected = sum(_reference_tvd(real, synth, c) for c in combos) / len(combos)
    assert average_marginal_tvd(real, synth, sizes, alpha) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("alpha", [2, 3])
def test_marginal_tvd_table(alpha):
    real, synth, sizes = _random_tables(3)
    table = marginal_tvd_table(real, synth, sizes, alpha)
    d = len(sizes)
    assert table.shape == (d, d)
    np.testing.assert_array_equal(table, table.T)
    np.testing.assert_array_equal(np.diag(table), 0.0)
    for i, j in itertools.combinations(range(d), 2):
        containing = [c for c in itertools.combinations(range(d), alpha) if i in c and j in c]
        expected = np.mean([_reference_tvd(real, synth, c) for c in containing])
        assert table[i, j] == pytest.approx(expected, abs=1e-12)


def test_wide_tables_are_merged_on_every_column():
    # 66 binary columns need two int64 keys when rows are merged; the rows below
    # differ only in the last column, i.e. only in the second key.
    real = np.zeros((2, 66), dtype=np.int64)
    real[1, -1] = 1
    synth = np.zeros((2, 66), dtype=np.int64)
    assert average_marginal_tvd(real, synth, [2] * 66, 1) == pytest.approx(0.5 / 66)
    np.testing.assert_allclose(all_marginals(real, [2] * 66, 1)[(65,)], [0.5, 0.5])


@pytest.mark.parametrize("alpha", [1, 2, 3, 5])
def test_all_marginals_match_marginal(alpha):
    real, _, sizes = _random_tables(5)
    result = all_marginals(real, sizes, alpha)
    assert list(result) == list(itertools.combinations(range(len(sizes)), alpha))
    for attrs, table in result.items():
        np.testing.assert_allclose(table, marginal(real, sizes, attrs), atol=1e-15)


def test_average_tvd_of_released_marginals():
    uniform = {(0, 1): np.full((2, 2), 0.25)}  # ½(0 + 0 + .25 + .25)
    assert average_tvd_of_marginals(REAL, [2, 2], uniform) == pytest.approx(0.25)
    counts = {(0, 1): np.array([1.0, 0.0, 2.0, 1.0]), (1,): np.array([3.0, 1.0])}  # SYNTH, as counts
    assert average_tvd_of_marginals(REAL, [2, 2], counts) == pytest.approx((0.5 + 0.5) / 2)
    real, synth, sizes = _random_tables(4)
    truth = {c: marginal(real, sizes, c) for c in itertools.combinations(range(5), 3)}
    assert average_tvd_of_marginals(real, sizes, truth) == pytest.approx(0.0, abs=1e-12)
    released = {c: marginal(synth, sizes, c) for c in truth}
    assert average_tvd_of_marginals(real, sizes, released) == pytest.approx(
        average_marginal_tvd(real, synth, sizes, 3), abs=1e-12
    )


def test_marginal_errors():
    with pytest.raises(ValueError, match=r"alpha \(3\) must be between 1 and d \(2\)"):
        average_marginal_tvd(REAL, SYNTH, [2, 2], 3)
    with pytest.raises(ValueError, match=r"alpha \(1\) must be between 2 and d \(2\)"):
        marginal_tvd_table(REAL, SYNTH, [2, 2], 1)
    with pytest.raises(ValueError, match=r"synth column 1 .* outside 0\.\.0"):
        average_marginal_tvd(REAL[:, :1].repeat(2, axis=1) * 0, SYNTH, [2, 1], 1)
    with pytest.raises(ValueError, match="3 columns but sizes has 2"):
        marginal(np.zeros((2, 3), int), [2, 2], (0,))
    with pytest.raises(ValueError, match="repeated"):
        marginal(REAL, [2, 2], (0, 0))
    with pytest.raises(ValueError, match=r"released\[\(0, 1\)\] has 3 cells, expected 4"):
        average_tvd_of_marginals(REAL, [2, 2], {(0, 1): np.ones(3)})
    with pytest.raises(ValueError, match="non-negative"):
        average_tvd_of_marginals(REAL, [2, 2], {(0,): np.array([1.5, -0.5])})


# ---------------------------------------------------------------- SVM task


def _majority_of_three(n: int, seed: int) -> np.ndarray:
    """Binary table: columns 1-3 uniform bits, column 0 = majority of them (separable)."""
    bits = np.random.default_rng(seed).integers(0, 2, (n, 4))
    bits[:, 0] = bits[:, 1:].sum(axis=1) >= 2
    return bits


def test_split_indices():
    train, test = train_test_split_indices(101, seed=7)
    assert (len(train), len(test)) == (80, 21)
    np.testing.assert_array_equal(np.sort(np.concatenate([train, test])), np.arange(101))
    again, _ = train_test_split_indices(101, seed=7)
    other, _ = train_test_split_indices(101, seed=8)
    np.testing.assert_array_equal(train, again)
    assert not np.array_equal(train, other)


def test_svm_separable_and_shuffled():
    target = Target("majority", 0, frozenset({1}))
    train, test = _majority_of_three(2000, 0), _majority_of_three(4000, 1)
    assert svm_misclassification(train, test, [2] * 4, target) < 0.01
    # Shuffled labels (train and test) carry no signal, and are balanced: any
    # classifier errs about half the time unless the label leaks into the features.
    rng = np.random.default_rng(2)
    for table in (train, test):
        table[:, 0] = rng.permutation(table[:, 0])
    assert 0.45 < svm_misclassification(train, test, [2] * 4, target) < 0.55


def test_svm_one_class_and_unseen_codes():
    test = _majority_of_three(1000, 3)
    constant = test.copy()
    constant[:, 0] = 0
    target = Target("majority", 0, frozenset({1}))
    assert svm_misclassification(constant, test, [2] * 4, target) == pytest.approx(test[:, 0].mean())
    # Training data never shows code 2 of column 3, which the test data (and sizes) allow.
    test3 = test.copy()
    test3[::7, 3] = 2
    assert svm_misclassification(_majority_of_three(500, 4), test3, [2, 2, 2, 3], target) < 0.2


def test_svm_errors():
    table = _majority_of_three(10, 0)
    with pytest.raises(ValueError, match=r"target.column \(4\)"):
        svm_misclassification(table, table, [2] * 4, Target("x", 4, frozenset({1})))
    with pytest.raises(ValueError, match=r"target.positive \[2\]"):
        svm_misclassification(table, table, [2] * 4, Target("x", 0, frozenset({2})))


# ---------------------------------------------------------------- real datasets

# Positive rates measured on the full released tables (counts / rows).
MEASURED_RATES = {
    "nltcs": {"outside": 0.5546, "money": 0.2294, "bathing": 0.4388, "traveling": 0.4931},
    "acs": {"dwelling": 0.7054, "mortgage": 0.4812, "multigen": 0.5981, "school": 0.2460},
    "adult": {"female": 0.3250, "salary": 0.2478, "education": 0.5479, "never_married": 0.3228},
    "br2000": {"religion": 0.6798, "car": 0.3755, "child": 0.6504, "age": 0.6065},
}


@pytest.mark.parametrize("name", sorted(PAPER_TARGETS))
def test_paper_target_positive_rates(shared_data, name):
    codes, sizes, _ = _load(shared_data, name)
    assert [t.name for t in PAPER_TARGETS[name]] == list(MEASURED_RATES[name])
    for target in PAPER_TARGETS[name]:
        assert max(target.positive) < sizes[target.column]
        rate = target.labels(codes).mean()
        assert rate == pytest.approx(MEASURED_RATES[name][target.name], abs=0.01), target.name


def test_adult_targets_match_domain_leaves_and_uci_figures(shared_data):
    codes, _, leaves = _load(shared_data, "adult")
    targets = {t.name: t for t in PAPER_TARGETS["adult"]}
    assert [leaves[9][c] for c in targets["female"].positive] == ["Female"]
    assert [leaves[14][c] for c in targets["salary"].positive] == [">50K"]
    assert [leaves[5][c] for c in targets["never_married"].positive] == ["Never-married"]
    assert [leaves[3][c] for c in sorted(targets["education"].positive)] == [
        "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate",
    ]  # fmt: skip
    # adult.names: "Probability for the label '>50K': 24.78% (without unknowns)".
    assert targets["salary"].labels(codes).mean() == pytest.approx(0.2478, abs=5e-5)
    # Female count in the raw UCI files, rows with missing values ('?') dropped.
    raw = [shared_data / "adult" / "raw" / "adult.data", shared_data / "adult" / "raw" / "adult.test"]
    lines = [line for path in raw for line in path.read_text().splitlines() if line.count(",") == 14]
    females = sum(1 for line in lines if "?" not in line and line.split(",")[9].strip() == "Female")
    assert targets["female"].labels(codes).sum() == females == 14695


def test_no_privacy_svm_beats_majority_on_real_data(shared_data):
    for name, target_names in (("nltcs", None), ("adult", {"salary"})):
        codes, sizes, _ = _load(shared_data, name)
        train, test = train_test_split_indices(len(codes), seed=0)
        for target in PAPER_TARGETS[name]:
            if target_names and target.name not in target_names:
                continue
            error = svm_misclassification(codes[train], codes[test], sizes, target)
            positive = target.labels(codes[test]).mean()
            assert error < min(positive, 1 - positive) - 0.03, (name, target.name, error)


def test_acs_q3_two_code_paths_agree(shared_data):
    codes, sizes, _ = _load(shared_data, "acs")
    first, second = codes[::2], codes[1::2]
    released = all_marginals(second, sizes, 3)
    tvd = average_marginal_tvd(first, second, sizes, 3)
    assert tvd == pytest.approx(average_tvd_of_marginals(first, sizes, released), abs=1e-12)
    assert 0 < tvd < 0.02  # two random halves of the same table are close


# ---------------------------------------------------------------- information


def test_mutual_information_by_hand():
    grid = np.array(list(itertools.product(range(3), range(4))) * 5)  # exactly independent
    assert mutual_information(grid, [3, 4], 0, (1,)) == pytest.approx(0.0, abs=1e-12)
    same = np.array([[0, 0], [1, 1]] * 10)
    assert mutual_information(same, [2, 2], 0, (1,)) == pytest.approx(1.0)
    xor = np.array([[a ^ b, a, b] for a in (0, 1) for b in (0, 1)])
    assert mutual_information(xor, [2, 2, 2], 0, (1,)) == pytest.approx(0.0, abs=1e-12)
    assert mutual_information(xor, [2, 2, 2], 0, (1, 2)) == pytest.approx(1.0)
    assert mutual_information(xor, [2, 2, 2], 0, ()) == 0.0
    network = [(1, ()), (2, (1,)), (0, (1, 2))]
    assert network_mutual_information(xor, [2, 2, 2], network) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="repeated"):
        mutual_information(xor, [2, 2, 2], 0, (0,))
    with pytest.raises(ValueError, match=r"network\[0\] must be a \(child, parents\) pair"):
        network_mutual_information(xor, [2, 2, 2], [(0, (1,), 2)])


def test_kl_divergence():
    p = np.array([0.5, 0.5])
    assert kl_divergence(p, p) == 0.0
    expected = 0.5 * math.log2(0.5 / 0.25) + 0.5 * math.log2(0.5 / 0.75)
    assert kl_divergence(p, np.array([0.25, 0.75])) == pytest.approx(expected)
    assert kl_divergence(np.array([1.0, 0.0]), p) == pytest.approx(1.0)  # p = 0 cells contribute 0
    with pytest.raises(ValueError, match=r"infinite: q is 0 at 1 cell\(s\) .* index \(1,\)"):
        kl_divergence(p, np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="q must sum to 1"):
        kl_divergence(p, np.array([0.5, 0.6]))
    with pytest.raises(ValueError, match="shape"):
        kl_divergence(p, np.ones((2, 1)) / 2)
