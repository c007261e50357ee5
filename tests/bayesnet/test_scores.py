"""Score functions I and R against the paper's worked numbers (TODS 2017, Lemma 4.1, Example 4.4, §5.3)."""

import math

import numpy as np
import pytest

from privbayes.bayesnet.scores import IndependenceDistance, MutualInformation, mutual_information_sensitivity

I = MutualInformation()
R = IndependenceDistance()


@pytest.mark.parametrize("n", [2, 10, 1000, 45222])
def test_lemma_4_1_binary_example_attains_the_sensitivity(n):
    # Left table: every tuple at (X=1, Π=1): I = 0.  Right: one tuple moved to (X=0, Π=0).
    left = np.array([[0, 0], [0, n]])
    right = np.array([[1, 0], [0, n - 1]])
    expected = math.log2(n) / n + (n - 1) / n * math.log2(n / (n - 1))
    assert I(left) == 0.0
    assert I(right) == pytest.approx(expected, rel=1e-12)
    assert mutual_information_sensitivity(n, binary=True) == pytest.approx(I(right) - I(left), rel=1e-12)


def test_lemma_4_1_general_formula():
    n = 100
    expected = 2 / n * math.log2((n + 1) / 2) + (n - 1) / n * math.log2((n + 1) / (n - 1))
    assert mutual_information_sensitivity(n, binary=False) == pytest.approx(expected)
    assert I.sensitivity(n, 3, 4) == pytest.approx(expected)
    assert I.sensitivity(n, 2, 4) == pytest.approx(mutual_information_sensitivity(n, binary=True))


def test_example_4_4_maximum_joint_distributions_have_one_bit():
    # Both tables of Example 4.4 (TODS 2017; Example 2 of SIGMOD 2014), in tenths.
    first = np.array([[5, 0, 0], [0, 5, 0]])
    second = np.array([[0, 2, 3], [5, 0, 0]])
    assert I(first) == pytest.approx(1.0)
    assert I(second) == pytest.approx(1.0)


def test_r_on_hand_made_tables():
    # Independent table: R = 0.
    assert R(np.outer([1, 3], [2, 2, 4])) == pytest.approx(0.0)
    # Perfectly correlated 2x2 with uniform margins: Pr = diag(.5, .5), product = all .25 → ½·(4·.25) = 0.5.
    assert R(np.array([[5, 0], [0, 5]])) == pytest.approx(0.5)
    # Pr = [[.4,.1],[.1,.4]]: margins .5 → |.4-.25|·2 + |.1-.25|·2 = .6 → R = .3.
    assert R(np.array([[4, 1], [1, 4]])) == pytest.approx(0.3)
    assert R.sensitivity(100, 2, 2) == pytest.approx(3 / 100 + 2 / 100**2)


def test_r_is_bounded_by_pinsker():
    rng = np.random.default_rng(7)
    for _ in range(200):
        table = rng.integers(0, 20, size=(3, 4))
        if table.sum() == 0:
            continue
        assert R(table) <= math.sqrt(math.log(2) / 2 * I(table)) + 1e-12
