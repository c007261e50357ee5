"""Score F (TODS 2017, §4.3–4.4): the fast dynamic program against slow references.

References (test-only, written independently of ``privbayes.bayesnet.fscore``):

* ``brute_force_doubled_cost`` enumerates all 2^m assignments of columns to Z₀⁺/Z₁⁺
  and applies Eq. (9) (the SIGMOD 2014 version's Eq. 8);
* ``equivalence_class_min_l1`` enumerates the O(3^m) equivalence classes of §4.4
  (each column in Z₀⁺, Z₁⁺ or neither, with Z₀⁺ and Z₁⁺ non-empty since each must
  carry mass ½) and takes the L1 bound of Eq. (8) in exact fractions;
* ``plain_frontier_doubled_cost`` is the paper's dynamic program C(i, a, b) with
  dominated states removed (Def. 4.6), over the full range a ∈ [0, n], without
  caps, bounds or pruning; it scales to k = 6 and n = 50,000.

F is rational with denominator 2n, so every comparison is exact on the integer
D = n · min ‖Pr − Pr°‖₁ (F = −D / 2n).
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from privbayes.bayesnet import fscore
from privbayes.bayesnet.fscore import (
    MaximumJointDistance,
    f_score,
    f_scores,
    min_l1_counts,
    require_binary,
)

BACKENDS = [False, pytest.param(True, marks=pytest.mark.skipif(not fscore.HAVE_NUMBA, reason="no numba"))]


def brute_force_doubled_cost(joint: np.ndarray) -> int:
    """min over all 2^m column assignments of (n − 2a)₊ + (n − 2b)₊ (Eq. 9 × 2n)."""
    n = int(joint.sum())
    best = None
    for rows in itertools.product((0, 1), repeat=joint.shape[1]):
        rows = np.array(rows)
        a = int(joint[0, rows == 0].sum())
        b = int(joint[1, rows == 1].sum())
        cost = max(n - 2 * a, 0) + max(n - 2 * b, 0)
        best = cost if best is None else min(best, cost)
    return best


def equivalence_class_min_l1(joint: np.ndarray) -> Fraction:
    """min over equivalence classes E of Pr[Z⁻] + |Pr[Z₀⁺] − ½| + |Pr[Z₁⁺] − ½| (Eq. 8)."""
    n = int(joint.sum())
    half = Fraction(1, 2)
    best = None
    for roles in itertools.product(("zero", "row0", "row1"), repeat=joint.shape[1]):
        if "row0" not in roles or "row1" not in roles:
            continue  # Pr°[Z₀⁺] = Pr°[Z₁⁺] = ½ needs a non-zero cell in each row
        k0 = Fraction(sum(int(joint[0, j]) for j, r in enumerate(roles) if r == "row0"), n)
        k1 = Fraction(sum(int(joint[1, j]) for j, r in enumerate(roles) if r == "row1"), n)
        distance = (1 - k0 - k1) + abs(k0 - half) + abs(k1 - half)
        best = distance if best is None else min(best, distance)
    return best


def plain_frontier_doubled_cost(joint: np.ndarray) -> int:
    """C(i, a, b) of §4.4 as best_b[a] = max{b : C(i, a, b)}, a over the whole [0, n]."""
    n = int(joint.sum())
    best_b = np.full(n + 1, -1, dtype=np.int64)
    best_b[0] = 0
    for c0, c1 in joint.T.astype(np.int64):
        reachable = best_b >= 0
        nxt = np.where(reachable, best_b + c1, -1)  # column to Z₁⁺
        nxt[c0:] = np.maximum(nxt[c0:], best_b[: n + 1 - c0])  # column to Z₀⁺
        best_b = nxt
    a = np.flatnonzero(best_b >= 0)
    return int((np.maximum(n - 2 * a, 0) + np.maximum(n - 2 * best_b[a], 0)).min())


def random_table(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    """A 2 × 2^k count table with n tuples, from sparse to nearly uniform."""
    concentration = rng.choice([0.1, 0.5, 2.0, 20.0])
    probabilities = rng.dirichlet(np.full(2 << k, concentration))
    return rng.multinomial(n, probabilities).reshape(2, 1 << k)


@pytest.mark.parametrize("use_numba", BACKENDS)
def test_dynamic_program_equals_brute_force(use_numba: bool) -> None:
    rng = np.random.default_rng(20170101)
    for _ in range(300):
        joint = random_table(rng, k=int(rng.integers(0, 4)), n=int(rng.integers(1, 51)))
        expected = brute_force_doubled_cost(joint)
        assert min_l1_counts(joint, use_numba=use_numba) == expected, joint.tolist()
        assert f_score(joint, use_numba=use_numba) == float(-Fraction(expected, 2 * int(joint.sum())))


AWKWARD = {
    "single tuple": [[1, 0], [0, 0]],
    "one non-zero column": [[3, 0, 0, 0], [2, 0, 0, 0]],
    "already maximal": [[5, 0, 0, 0], [0, 3, 1, 1]],
    "maximal with a shared column": [[2, 3], [0, 5]],
    "independent uniform": [[5, 5, 5, 5], [5, 5, 5, 5]],
    "one row empty": [[4, 1, 0, 2], [0, 0, 0, 0]],
    "odd n, balanced": [[3, 1, 0, 1], [1, 3, 1, 1]],
    "a column per tuple": [[1, 0, 1, 0, 1, 0, 0, 0], [0, 1, 0, 1, 0, 1, 1, 1]],
    "only mixed columns": [[4, 3, 2, 1], [1, 2, 3, 4]],
}


@pytest.mark.parametrize("use_numba", BACKENDS)
@pytest.mark.parametrize("name", sorted(AWKWARD))
def test_awkward_tables(name: str, use_numba: bool) -> None:
    joint = np.array(AWKWARD[name])
    assert min_l1_counts(joint, use_numba=use_numba) == brute_force_doubled_cost(joint)


def test_eq9_equals_equivalence_classes() -> None:
    """Eq. (9) over 2^m assignments = the 3^m classes of §4.4 when |dom Π| ≥ 2 (Lemma 4.3)."""
    rng = np.random.default_rng(44)
    tables = [np.array(t) for t in AWKWARD.values() if len(t[0]) <= 4]
    tables += [random_table(rng, k=int(rng.integers(1, 3)), n=int(rng.integers(1, 41))) for _ in range(200)]
    for joint in tables:
        expected = equivalence_class_min_l1(joint) * int(joint.sum())
        assert min_l1_counts(joint) == expected, joint.tolist()


def test_table_3_of_the_paper() -> None:
    """TODS 2017 Table 3 (printed in the SIGMOD 2014 text): (a) input, (b) a maximum
    joint distribution at L1 distance 0.4, which is the minimum, so F(a) = −0.2."""
    table_a = np.array([[6, 0, 0, 0], [1, 1, 1, 1]])  # .6 0 0 0 / .1 .1 .1 .1, n = 10
    table_b = np.array([[5, 0, 0, 0], [0, 3, 1, 1]])  # .5 0 0 0 / 0 .3 .1 .1
    assert np.abs(table_a - table_b).sum() == 4  # the distance 0.4 stated in the text
    assert min_l1_counts(table_a) == 4
    assert MaximumJointDistance()(table_a) == -0.2
    assert MaximumJointDistance()(table_b) == 0.0


@pytest.mark.parametrize("use_numba", BACKENDS)
def test_empty_parent_set_scores_like_a_constant_parent(use_numba: bool) -> None:
    """m = 1 (Π = ∅): Eq. (9) gives F = −½, as for a binary parent constant in the data."""
    for column in ([7, 3], [0, 4], [5, 5], [1, 0]):
        single = np.array(column).reshape(2, 1)
        padded = np.hstack([single, np.zeros((2, 1), dtype=int)])
        assert f_score(single, use_numba=use_numba) == -0.5
        assert f_score(padded, use_numba=use_numba) == -0.5
        assert equivalence_class_min_l1(padded) == 1  # F = −½ by the definition too


def test_sensitivity_bound_on_neighbouring_tables() -> None:
    """Thm 4.5: moving one tuple between cells (n fixed) changes F by at most 1/n,
    i.e. D by at most 2; the bound is attained."""
    rng = np.random.default_rng(45)
    largest = 0
    for trial in range(600):
        k = int(rng.integers(0, 4)) if trial < 500 else int(rng.integers(4, 7))
        n = int(rng.integers(1, 60)) if trial < 500 else int(rng.integers(100, 5000))
        joint = random_table(rng, k, n)
        source = rng.choice(joint.size, p=joint.ravel() / n)
        neighbour = joint.ravel().copy()
        neighbour[source] -= 1
        neighbour[(source + rng.integers(1, joint.size)) % joint.size if joint.size > 1 else 0] += 1
        neighbour = neighbour.reshape(joint.shape)
        change = abs(min_l1_counts(joint) - min_l1_counts(neighbour))
        assert change <= 2, (joint.tolist(), neighbour.tolist())
        sensitivity = MaximumJointDistance().sensitivity(n, 2, 1 << k)
        assert abs(f_score(joint) - f_score(neighbour)) <= sensitivity + 1e-15
        largest = max(largest, change)
    assert largest == 2


@pytest.mark.skipif(not fscore.HAVE_NUMBA, reason="no numba")
def test_numba_and_numpy_agree_with_the_plain_dynamic_program() -> None:
    rng = np.random.default_rng(46)
    for trial in range(40):
        k = int(rng.integers(1, 7)) if trial >= 4 else 6
        n = int(rng.integers(1000, 50_001)) if trial >= 4 else 50_000
        joint = random_table(rng, k, n)
        if trial % 2:  # skewed child: the frontier is indexed by the lighter row
            joint[0] += joint[1] // 2
            joint[1] -= joint[1] // 2
        expected = plain_frontier_doubled_cost(joint)
        assert min_l1_counts(joint, use_numba=True) == expected
        assert min_l1_counts(joint, use_numba=False) == expected


@pytest.mark.parametrize("use_numba", BACKENDS)
def test_search_finds_the_optimum_just_below_any_upper_bound(use_numba: bool) -> None:
    """The heuristic upper bound is often already optimal and would hide a search that
    loses states; given U = D + 1 (tightest pruning) or U = 2n + 1 (none), the search
    itself must find D."""
    search = fscore._search_numba if use_numba else fscore._search
    rng = np.random.default_rng(48)
    for trial in range(150):
        k = int(rng.integers(0, 4)) if trial < 100 else int(rng.integers(4, 7))
        n = int(rng.integers(1, 60)) if trial < 100 else int(rng.integers(100, 20_000))
        joint = random_table(rng, k, n)
        if trial % 3 == 0:  # skewed child
            joint[0] += joint[1] - joint[1] // 4
            joint[1] //= 4
        expected = brute_force_doubled_cost(joint) if k < 4 else plain_frontier_doubled_cost(joint)
        rows = joint.astype(np.int64)
        n, _, lower, a_free, b_free, x0, x1 = fscore._prepare(rows[0], rows[1])
        for upper in (expected + 1, 2 * n + 1):
            assert search(n, upper, lower, a_free, b_free, x0, x1) == expected, (joint.tolist(), upper)


@pytest.mark.parametrize("use_numba", BACKENDS)
def test_batched_scores_equal_single_scores(use_numba: bool) -> None:
    rng = np.random.default_rng(47)
    for k in (0, 2, 5):
        joints = np.stack([random_table(rng, k, int(rng.integers(1, 3000))) for _ in range(25)])
        batched = f_scores(joints, use_numba=use_numba)
        assert batched.shape == (25,)
        assert batched.tolist() == [f_score(joint, use_numba=use_numba) for joint in joints]


def test_score_function_protocol() -> None:
    score = MaximumJointDistance()
    assert score.name == "F"
    assert score.sensitivity(21_574, 2, 8) == Fraction(1, 21_574)  # exact (TODS Thm 4.5)
    assert score.supports(2, (2, 2, 1))
    assert score.supports(2, ())
    assert not score.supports(2, (2, 3))
    assert not score.supports(16, (2,))
    assert score(np.array([[3.0, 0.0], [0.0, 3.0]])) == 0.0


def test_require_binary_names_the_offending_attribute() -> None:
    require_binary(2, [2, 1, 2], ["x", "p", "q", "r"])
    with pytest.raises(ValueError) as caught:
        require_binary(2, [2, 16], ["income", "sex", "age"])
    assert str(caught.value) == (
        "score F needs binary attributes (TODS 2017 Thm 5.1: NP-hard in general); "
        "attribute 'age' has 16 values — use score R or a binary/Gray encoding"
    )
    with pytest.raises(ValueError, match="attribute 'flag' has 1 values"):
        require_binary(1, [2], ["flag", "sex"])


@pytest.mark.parametrize(
    ("joint", "message"),
    [
        ([[1, 2, 3]], "shape \\(2, m\\)"),
        ([[1, -1], [2, 2]], "non-negative"),
        ([[0, 0], [0, 0]], "no mass"),
        ([[0.5, 1.0], [1.0, 1.0]], "integer counts"),
    ],
)
def test_invalid_tables_are_refused(joint: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        f_score(np.array(joint))


def test_works_without_numba() -> None:
    """numba is optional (``privbayes[fast]``): block its import and score Table 3(a)."""
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import numpy as np\n"
        "from privbayes.bayesnet import fscore\n"
        "assert not fscore.HAVE_NUMBA\n"
        "print(fscore.f_score(np.array([[6, 0, 0, 0], [1, 1, 1, 1]])))\n"
        "print(fscore.f_scores(np.array([[[6, 0, 0, 0], [1, 1, 1, 1]]])).tolist())\n"
        "try:\n"
        "    fscore.f_score(np.array([[1, 0], [0, 1]]), use_numba=True)\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    src = Path(fscore.__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONPATH": str(src)}
    )
    assert result.stdout.splitlines() == [
        "-0.2",
        "[-0.2]",
        "numba is not installed; install the extra 'privbayes[fast]'",
    ]
