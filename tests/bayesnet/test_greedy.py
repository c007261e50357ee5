"""GreedyBayes (TODS 2017, Alg. 2 and Alg. 4) against a brute-force twin.

Noise-free GreedyBayes (``epsilon1=None``) must pick, at every step, a pair in the
argmax set of an independent enumeration: every unplaced child X with, for a fixed
degree k, every Π ⊆ V of size min(k, |V|) (Alg. 2, line 5), or, under θ-usefulness,
every maximal generalised parent set within τ = nε2 / (2dθ·|dom X|) found by
enumerating all subsets × level choices, or Π = ∅ when there is none (Alg. 4,
lines 5-10 and §5.2's definition of maximality).  The twin counts ``joint[x, π]``
itself with ``np.add.at`` on the integer codes and scores it with the library's
score functions (their formulas have their own tests); R and F it also computes
exactly on its own (R from its formula in integers, F by brute force over the 2^m
column assignments, Def. 4.2 and Lemma 4.3), so their picks are compared exactly.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import prod

import numpy as np
import pandas as pd
import pytest

from privbayes import counting
from privbayes.bayesnet.fscore import MaximumJointDistance
from privbayes.bayesnet.greedy import (
    fixed_degree_candidates,
    greedy_bayes,
    maximal_parent_candidates,
)
from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.scores import IndependenceDistance, MutualInformation
from privbayes.counting import PrivateTable, leaf_codes, memory
from privbayes.counting.families import HAVE_NUMBA
from privbayes.privacy.samplers import SeededRandomSource
from privbayes.schema import Attribute, Schema
from privbayes.schema.encoding import Encoding


def build_table(schema: Schema, frame: pd.DataFrame, encoding: str) -> PrivateTable:
    """The library's private table, built as the synthesizer builds it (the one place to
    change if the counting layer's constructors change again)."""
    return counting.open(frame, schema).encoded(Encoding.build(schema, encoding))


# R and F are rationals (numerators over 2n², resp. 2n): the twin computes them exactly
# (as Fractions, from its own counts) and compares picks with no tolerance.  I is
# irrational: twin and library run the same float code on equal integer tables, and only
# numpy's summation order may differ (a batch of tables vs one table, a table vs its
# transpose for a symmetric tie).  Summing m ≤ 64 terms with Σ|term| ≤ log2(n) < 10 in
# any order errs by at most (m − 1)·2^-53·10 < 1e-13, so a pick within 1e-12 of the
# twin's best is an argmax up to rounding (distinct I values here differ by ≫ 1e-9).
TOLERANCE_I = 1e-12

# ------------------------------------------------------------------ the tiny tables

VANILLA = Schema((
    Attribute("a", "categorical", categories=("x", "y", "z")),
    Attribute("b", "binary"),
    Attribute("c", "categorical", categories=tuple("pqrs")),
    Attribute("d", "categorical", categories=("u", "v", "w")),
    Attribute("e", "binary"),
))

TAXONOMIES = Schema((
    Attribute("a", "categorical", categories=tuple("pqrstu"), taxonomy=(("p", "q"), ("r", "s", "t"), "u")),
    Attribute("b", "numeric", lower=0.0, upper=10.0, bins=5),  # binary tree over its bins
    Attribute("c", "categorical", categories=tuple("wxyz"), taxonomy=(("w", "z"), ("x", "y")),
              missing="category"),  # non-contiguous groups and a missing code at every level
    Attribute("d", "binary"),
    Attribute("e", "categorical", categories=tuple("abcde"), taxonomy=(("a", ("b", "c")), ("d", "e"))),
))

BINARY = Schema(tuple(Attribute(f"b{j}", "binary") for j in range(5)))

SMALL = Schema((  # binary encoding: 2 + 2 + 1 bits, one bit pattern of "c" never occurs
    Attribute("c", "categorical", categories=tuple("pqr")),
    Attribute("f", "categorical", categories=tuple("wxyz")),
    Attribute("g", "binary"),
))


def planted_frame(schema: Schema, n: int, seed: int) -> pd.DataFrame:
    """Each column copies (mod its size) a random earlier column with probability 0.6,
    else is uniform; so scores differ and the argmax is rarely a tie."""
    rng = np.random.default_rng(seed)
    leaves = np.zeros((n, len(schema.attributes)), np.int64)
    columns = {}
    for j, attr in enumerate(schema.attributes):
        fresh = rng.integers(0, attr.base_size, n)
        if j:
            copy = rng.random(n) < 0.6
            fresh = np.where(copy, leaves[:, rng.integers(0, j)] % attr.base_size, fresh)
        leaves[:, j] = fresh
        if attr.kind == "numeric":
            step = (attr.upper - attr.lower) / attr.bins
            values = pd.Series(attr.lower + (fresh + 0.5) * step)
        else:
            values = pd.Series(np.array(attr.categories, dtype=object)[fresh])
        if attr.missing == "category":
            values[rng.random(n) < 0.15] = None
        columns[attr.name] = values
    return pd.DataFrame(columns)


# ------------------------------------------------------------------ the twin


class Twin:
    """Brute-force enumeration of GreedyBayes's candidates and their scores."""

    def __init__(self, schema: Schema, frame: pd.DataFrame, encoding: str, score, theta_rule=None) -> None:
        enc = Encoding.build(schema, encoding)
        self.codes = enc.encode(leaf_codes(frame, schema))
        self.maps = [attr.levels for attr in enc.attributes]
        self.sizes = [[int(m.max()) + 1 for m in attr.levels] for attr in enc.attributes]
        self.n, self.d = self.codes.shape
        self.score = score
        self.theta_rule = theta_rule  # (ε2, θ) for Alg. 4, None for a fixed k

    def joint(self, child: int, parents: tuple) -> np.ndarray:
        """Exact counts ``joint[x, π]`` built from the codes (parents at their levels)."""
        index = [self.codes[:, child]] + [self.maps[a][lvl][self.codes[:, a]] for a, lvl in parents]
        shape = [self.sizes[child][0]] + [self.sizes[a][lvl] for a, lvl in parents]
        counts = np.zeros(shape, np.int64)
        np.add.at(counts, tuple(index), 1)
        return counts.reshape(shape[0], -1)

    def value(self, child: int, parents: tuple) -> Fraction | float:
        """The score of (X, Π): exact for R and F (checked against the library's float
        value on the same table), the library's float for I."""
        joint = self.joint(child, parents)
        if isinstance(self.score, MaximumJointDistance):
            exact = brute_force_f(joint)
            assert float(exact) == self.score(joint)  # −D/(2n), one correctly rounded division
        elif isinstance(self.score, IndependenceDistance):
            exact = exact_r(joint)
            assert abs(float(exact) - self.score(joint)) <= 1e-13  # the float bound above
        else:
            return self.score(joint)
        return exact

    def tau(self, child: int) -> Fraction:
        """Alg. 4, line 6: |dom Π| ≤ nε2 / (2dθ·|dom X|) keeps Pr[X, Π] θ-useful (§5.2)."""
        epsilon2, theta = self.theta_rule
        return Fraction(self.n) * Fraction(epsilon2) / (2 * self.d * Fraction(theta) * self.sizes[child][0])

    def parent_sets(self, child: int, placed: list[int], k: int | None) -> set[tuple]:
        if self.theta_rule is None:
            return {tuple((a, 0) for a in subset)
                    for subset in itertools.combinations(sorted(placed), min(k, len(placed)))}
        tau = self.tau(child)
        feasible = []
        for choice in itertools.product(*[[None] + list(range(len(self.sizes[a]))) for a in placed]):
            chosen = {a: lvl for a, lvl in zip(placed, choice) if lvl is not None}
            if prod(self.sizes[a][lvl] for a, lvl in chosen.items()) <= tau:
                feasible.append(chosen)
        maximal = {tuple(sorted(s.items())) for s in feasible if not any(dominates(o, s) for o in feasible)}
        return maximal or {()}

    def candidates(self, placed: list[int], k: int | None) -> dict[tuple, Fraction | float]:
        """Score of every candidate AP pair (child, sorted parents) of the step after ``placed``."""
        return {(x, parents): self.value(x, parents)
                for x in range(self.d) if x not in placed for parents in self.parent_sets(x, placed, k)}

    def violations(self, network: Network, k: int | None, table: PrivateTable | None = None) -> tuple[list[str], int]:
        """Steps whose pick is not a twin argmax (or, given the table, where its exact counts
        of a candidate differ from the twin's), and the number of steps where the argmax
        set was a strict subset of the candidates (steps where a wrong pick shows)."""
        problems, telling = [], 0
        first = network.pairs[0]
        if first.parents:
            problems.append(f"first pair {first} has parents")
        placed = [first.child]
        for step, pair in enumerate(network.pairs[1:], start=1):
            scores = self.candidates(placed, k)
            for x, parents in scores if table is not None else ():
                counts = table.counts([x] + [a for a, _ in parents], [0] + [lvl for _, lvl in parents])
                if not np.array_equal(counts.reshape(counts.shape[0], -1), self.joint(x, parents)):
                    problems.append(f"step {step}: the table's counts of {(x, parents)} differ")
            best = max(scores.values())
            slack = TOLERANCE_I if isinstance(best, float) else 0
            winners = {c for c, s in scores.items() if s >= best - slack}
            telling += len(winners) < len(scores)
            picked = (pair.child, tuple(sorted(pair.parents)))
            if picked not in scores:
                problems.append(f"step {step}: {picked} is not a candidate")
            elif picked not in winners:
                problems.append(f"step {step}: {picked} scores {scores[picked]}, best {best}")
            placed.append(pair.child)
        if sorted(placed) != list(range(self.d)):
            problems.append(f"children {placed} are not every attribute once")
        return problems, telling


def dominates(big: dict, small: dict) -> bool:
    """§5.2: ``big`` adds an attribute or holds a shared one at a lower level (and loses none)."""
    return big != small and set(small) <= set(big) and all(big[a] <= small[a] for a in small)


def exact_r(joint: np.ndarray) -> Fraction:
    """R = ½ Σ |Pr[x, π] − Pr[x]·Pr[π]| (TODS 2017, §5.3) in exact arithmetic."""
    c = [[int(v) for v in row] for row in joint]
    n = sum(map(sum, c))
    rows, columns = [sum(row) for row in c], [sum(col) for col in zip(*c)]
    total = sum(abs(n * c[x][p] - rows[x] * columns[p]) for x in range(len(c)) for p in range(len(columns)))
    return Fraction(total, 2 * n * n)


def brute_force_f(joint: np.ndarray) -> Fraction:
    """F = −½ min ‖Pr − Pr°‖₁ over maximum joint distributions Pr° (TODS 2017, Eq. 7).

    By Lemma 4.3 a Pr° for binary X has one non-zero cell per column π and rows of
    mass ½ each.  For a fixed choice of the non-zero row of every column, the nearest
    such Pr° costs the mass off that support plus, per row, the gap between its mass
    on the support and ½ (spread the gap over the chosen cells).  Doubled and times n:
    2n‖·‖₁ = 2(n − a − b) + |2a − n| + |2b − n|, a, b the counts on the support."""
    c0, c1 = (np.asarray(row, np.int64) for row in joint)
    n = int(c0.sum() + c1.sum())
    m = joint.shape[1]
    to_row1 = (np.arange(2**m)[:, None] >> np.arange(m)) & 1  # every assignment, one per row
    a, b = (1 - to_row1) @ c0, to_row1 @ c1
    doubled = 2 * (n - a - b) + np.abs(2 * a - n) + np.abs(2 * b - n)
    return Fraction(-int(doubled.min()), 4 * n)


# ------------------------------------------------------------------ the cases

SEEDS = (0, 1, 2)  # SeededRandomSource seeds: different first attributes


def fixed_cases():
    for score in ("I", "R"):
        for schema_name, schema, encoding in (("vanilla", VANILLA, "vanilla"),
                                              ("taxonomies", TAXONOMIES, "hierarchical")):
            for k in (1, 2, 3):
                yield pytest.param(score, schema, encoding, k, id=f"{score}-{schema_name}-k{k}")
    for schema_name, schema, encoding in (("binary", BINARY, "vanilla"), ("small", SMALL, "binary")):
        for k in (1, 2, 3):
            yield pytest.param("F", schema, encoding, k, id=f"F-{schema_name}-k{k}")


# n = 400, d = 5: τ = 40·ε2/(θ·|dom X|), |dom X| ∈ [2, 6].  With θ = 4: ε2 = 1/20 gives
# τ < 1 (Π = ∅ for all); 1 gives τ ∈ [1.7, 5] (generalised parents, often one); 2 gives
# [3.3, 10] (the non-contiguous groups of TAXONOMIES' "c" enter at level 1); 8 gives
# [13, 40]; 100 lets every placed attribute in at level 0.  θ = 2.5, ε2 = 1: [2.7, 8].
THETA_SETTINGS = ((Fraction(1, 20), 4.0), (Fraction(1), 4.0), (Fraction(2), 4.0), (Fraction(8), 4.0),
                  (Fraction(100), 4.0), (Fraction(1), 2.5))


def theta_cases():
    for score in ("I", "R"):
        for schema_name, schema, encoding in (("vanilla", VANILLA, "vanilla"),
                                              ("taxonomies", TAXONOMIES, "hierarchical")):
            for epsilon2, theta in THETA_SETTINGS:
                yield pytest.param(score, schema, encoding, epsilon2, theta,
                                   id=f"{score}-{schema_name}-e{epsilon2}-t{theta}")
    for epsilon2, theta in THETA_SETTINGS[1:4]:  # τ = 5, 10, 40 for binary X: 2, 3, 4 parents
        yield pytest.param("F", BINARY, "vanilla", epsilon2, theta, id=f"F-binary-e{epsilon2}-t{theta}")


def make_score(name: str, use_numba: bool):
    if name == "I":
        return MutualInformation()
    if name == "R":
        return IndependenceDistance()
    return MaximumJointDistance(use_numba=use_numba)


NUMBA = [pytest.param(True, id="numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason="no numba")),
         pytest.param(False, id="numpy")]


@pytest.fixture(params=NUMBA)
def use_numba(request, monkeypatch) -> bool:
    """With numba: batched counting (and ``binary_families`` on binary data); without:
    one ``np.bincount`` per table and F's numpy dynamic program."""
    if request.param:
        monkeypatch.setattr(memory, "_NUMPY_VISITS", 0)  # no numpy allowance: numba from the first count
    else:
        monkeypatch.setattr(memory, "HAVE_NUMBA", False)
    return request.param


def run_and_check(twin: Twin, table_of, score, rule_of, k: int | None) -> None:
    telling, with_parents = 0, 0
    for seed in SEEDS:
        table = table_of()
        network = greedy_bayes(table, score, rule_of(table), None, None, SeededRandomSource(seed))
        problems, told = twin.violations(network, k, table)
        assert problems == []
        telling += told
        with_parents += sum(bool(pair.parents) for pair in network.pairs)
    if with_parents:
        assert telling >= len(SEEDS)  # the data leave room for a wrong pick to be seen
    else:  # τ < 1 for every child: only (X, ∅) pairs, all scoring the same (I = R = 0, F = −½)
        assert telling == 0


@pytest.mark.parametrize("score_name, schema, encoding, k", list(fixed_cases()))
def test_fixed_degree_picks_a_brute_force_argmax(score_name, schema, encoding, k, use_numba):
    frame = planted_frame(schema, 300, seed=k)
    score = make_score(score_name, use_numba)
    twin = Twin(schema, frame, encoding, score)
    run_and_check(twin, lambda: build_table(schema, frame, encoding), score, lambda _: fixed_degree_candidates(k), k)


@pytest.mark.parametrize("score_name, schema, encoding, epsilon2, theta", list(theta_cases()))
def test_theta_usefulness_picks_a_brute_force_argmax(score_name, schema, encoding, epsilon2, theta, use_numba):
    frame = planted_frame(schema, 400, seed=7)
    score = make_score(score_name, use_numba)
    twin = Twin(schema, frame, encoding, score, theta_rule=(epsilon2, theta))
    run_and_check(twin, lambda: build_table(schema, frame, encoding), score,
                  lambda table: maximal_parent_candidates(table, epsilon2, theta), None)


def test_theta_settings_reach_empty_generalised_and_full_parent_sets():
    """The θ cases above exercise Π = ∅ (τ < 1), generalised parents and level-0 parents."""
    frame = planted_frame(TAXONOMIES, 400, seed=7)
    kinds = set()
    for epsilon2, theta in THETA_SETTINGS:
        twin = Twin(TAXONOMIES, frame, "hierarchical", IndependenceDistance(), theta_rule=(epsilon2, theta))
        for x in range(1, 5):
            for parents in twin.parent_sets(x, list(range(x)), None):
                kinds.add("empty" if not parents else "generalised" if any(l for _, l in parents) else "leaves")
    assert kinds == {"empty", "generalised", "leaves"}


@pytest.mark.parametrize("schema, encoding", [(VANILLA, "vanilla"), (TAXONOMIES, "hierarchical")],
                         ids=["vanilla", "taxonomies"])
def test_candidate_rules_list_exactly_the_enumerated_parent_sets(schema, encoding):
    """The rules' lists (Alg. 2 line 5; Alg. 4 lines 5-10) equal the twin's, as sets, at
    every step of a random placement order."""
    frame = planted_frame(schema, 400, seed=3)
    table = build_table(schema, frame, encoding)
    order = np.random.default_rng(5).permutation(5).tolist()
    for epsilon2, theta in THETA_SETTINGS:
        twin = Twin(schema, frame, encoding, IndependenceDistance(), theta_rule=(epsilon2, theta))
        rule = maximal_parent_candidates(table, epsilon2, theta)
        for i in range(1, 5):
            for x in order[i:]:
                listed = [tuple(sorted(p)) for p in rule(x, order[:i])]
                assert len(listed) == len(set(listed))
                assert set(listed) == twin.parent_sets(x, order[:i], None)
    twin = Twin(schema, frame, encoding, IndependenceDistance())
    for k in (1, 2, 3):
        rule = fixed_degree_candidates(k)
        for i in range(1, 5):
            listed = [tuple(sorted(p)) for p in rule(order[i], order[:i])]
            assert len(listed) == len(set(listed))
            assert set(listed) == twin.parent_sets(order[i], order[:i], k)


def test_twin_flags_a_wrong_pick():
    """The checker is not vacuous: a network taking the worst candidate at one step fails."""
    frame = planted_frame(VANILLA, 300, seed=1)
    twin = Twin(VANILLA, frame, "vanilla", IndependenceDistance())
    network = greedy_bayes(build_table(VANILLA, frame, "vanilla"), IndependenceDistance(), fixed_degree_candidates(2),
                           None, None, SeededRandomSource(0))
    placed = [p.child for p in network.pairs[:2]]
    scores = twin.candidates(placed, 2)
    worst = min(scores, key=scores.get)
    assert scores[worst] < max(scores.values()) - 1e-3
    rest = [x for x in range(5) if x not in placed and x != worst[0]]
    pairs = list(network.pairs[:2]) + [APPair(worst[0], worst[1])]
    for x in rest:  # finish with any valid pairs; only step 2 is wrong
        pairs.append(APPair(x, tuple((a, 0) for a in [p.child for p in pairs][-2:])))
    problems, _ = twin.violations(Network(tuple(pairs)), 2)
    assert any(p.startswith("step 2:") for p in problems)


def test_brute_force_f_on_a_hand_computed_table():
    """n = 10, columns (3,0) (1,2) (2,1) (0,1): the best support is rows 0,1,0,1 (a = 5,
    b = 3), at L1 distance 2/10 off the support + |5/10 − ½| + |3/10 − ½| = 0.4, so F = −0.2."""
    joint = np.array([[3, 1, 2, 0], [0, 2, 1, 1]])
    assert brute_force_f(joint) == Fraction(-1, 5)
    assert MaximumJointDistance(use_numba=False)(joint) == -0.2
    # Constant Π (m = 1): no column split helps; F = −½ (see fscore.min_l1_counts).
    assert brute_force_f(np.array([[7], [3]])) == Fraction(-1, 2)


def test_exact_r_on_a_hand_computed_table():
    """n = 4, joint [[2, 0], [0, 2]]: Pr[x]·Pr[π] = ¼ in every cell, so R = ½ · 4 · ¼ = ½."""
    assert exact_r(np.array([[2, 0], [0, 2]])) == Fraction(1, 2)
    assert exact_r(np.array([[1, 1], [1, 1]])) == 0
