"""Three privacy-relevant mutants that once survived every test, and their siblings
(docs/privacy-assurance.md, "Mutation testing").

* The rounds' selection scores (AIM's quality, VLDB 2022, §4.2) move by at most the charged Δ between
  neighbours only when the model's expected counts are scaled by N̂ (the released estimate of n under
  add/remove), never by the true n: checked on the actual score vectors of neighbouring fits whose
  released values are pinned equal (so the model and N̂ are held equal).
* Every discrete Laplace draw of every method is made at the plan's scale Δ/ε for its ledger entry, and
  the noise actually added (released − exact counts) has the discrete Laplace variance of that scale.
* The network start under add/remove picks θ-useful parent sets (TODS 2017, Alg. 4) at N̂, not at the true
  n: checked on a table whose n and N̂ fall on opposite sides of a θ-usefulness step.
"""

from __future__ import annotations

import functools
import itertools
import math
import zlib
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import privbayes.methods.adaptive.network as network_module
import privbayes.methods.adaptive.rounds as rounds_module
import privbayes.privacy.mechanisms as mechanisms_module
import privbayes.synthesizers.contract as template
from privbayes import AdaptiveMarginals, PrivateMRF
from privbayes.bayesnet.greedy import maximal_parent_candidates
from privbayes.counting import InMemoryTable
from privbayes.methods.adaptive.network import THETA
from privbayes.methods.adaptive.settings import COUNT_STEP, AdaptiveSettings
from privbayes.methods.privbayes.estimator import PrivBayes
from privbayes.methods.sa_privbayes.estimator import SAPrivBayes
from privbayes.privacy.accountant import Accountant, BudgetExceededError
from privbayes.privacy.mechanisms import (
    DiscreteLaplace,
    Exponential,
    PermuteAndFlip,
    count_mechanism,
    permute_and_flip_choice,
)
from privbayes.privacy.neighbours import ADD_REMOVE
from privbayes.privacy.samplers import RationalScores, exponential_choice, lattice_scale, random_source
from tests.helpers import categorical_schema, correlated_frame

SIZES = [3, 4, 2, 5]
WIDE = [8, 8, 6, 7, 5]
"""A wider domain: more noisy cells per fit, and 2-way marginals with empty cells at 300 rows."""
PINNED_COUNT = 400


def _seed_of(step: str) -> int:
    return zlib.crc32(step.encode())


# --- M14: the rounds' scores on neighbouring tables ----------------------------------------------------------


@pytest.fixture
def recorded(monkeypatch):
    """Mechanisms pinned as in tests/test_mechanisms_only.py (values independent of the data, so the model
    and N̂ of two neighbouring fits are equal), recording every selection's scores, the expected counts
    N̂·p̂_r each round scores against, and each N̂ the rounds compute."""
    log: dict[str, list] = {"scores": [], "sizes": [], "expected": [], "totals": [], "count": [PINNED_COUNT]}

    def laplace(self, counts, accountant, rng, *, step, measured):
        accountant.charge(self, step=step, measured=measured)
        shape = np.shape(counts)
        if step == COUNT_STEP:
            return np.full(shape, log["count"][0], dtype=np.int64)
        return np.random.default_rng(_seed_of(step)).integers(0, 60, size=shape)

    def select(self, scores, accountant, rng, *, step, measured):
        accountant.charge(self, step=step, measured=measured)
        log["sizes"].append((step, len(scores)))
        if step.startswith("round"):
            log["scores"].append((step, np.array([float(s) for s in scores])))
        return _seed_of(step) % len(scores)

    real_quality, real_total = rounds_module.quality, rounds_module.estimated_total

    def quality(exact, model, weight, penalty):
        log["expected"].append((len(log["totals"]), np.array(model, dtype=float)))
        return real_quality(exact, model, weight, penalty)

    def total(measurements, count, *noise):
        log["totals"].append(real_total(measurements, count, *noise))
        return log["totals"][-1]

    monkeypatch.setattr(DiscreteLaplace, "release", laplace)
    for selector in (Exponential, PermuteAndFlip):
        monkeypatch.setattr(selector, "release", select)
    monkeypatch.setattr(rounds_module, "quality", quality)
    monkeypatch.setattr(rounds_module, "estimated_total", total)
    return log


def _record(log: dict, estimator, frame: pd.DataFrame, sizes: list[int] = WIDE) -> dict:
    for key, values in log.items():
        if key != "count":
            values.clear()
    estimator.fit(frame, categorical_schema(sizes))
    return {key: list(values) for key, values in log.items()}


def _neighbours(relation: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """D and a neighbour: D plus one row (add/remove) or D with its first row replaced (replace-one).  The row
    takes each attribute's rarest value, so it lands in 2-way cells that D leaves empty (where a score that
    read the data's support, not only its counts, would jump) and that the model under-fills."""
    frame = correlated_frame(WIDE, 300, seed=1)
    row = pd.DataFrame([{c: int(np.argmin(np.bincount(frame[c], minlength=s))) for c, s in zip(frame, WIDE)}])
    empty = [(a, b) for a, b in itertools.combinations(frame.columns, 2)
             if not ((frame[a] == row[a][0]) & (frame[b] == row[b][0])).any()]
    assert len(empty) >= 2
    if relation == "add-remove":
        return frame, pd.concat([frame, row], ignore_index=True)
    return frame, pd.concat([row, frame.iloc[1:]], ignore_index=True)


@pytest.mark.parametrize("init", ["oneway", "network"])
@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_round_scores_of_neighbours_move_by_at_most_the_charged_sensitivity(recorded, relation, init):
    # Step 2 of the proof (docs/privacy-assurance.md, "Adaptive marginals"): given the released values, each
    # candidate's quality moves by at most Δ. With every release pinned, the two fits see the same model and
    # the same N̂, so the whole score vector of each round may move by Δ per candidate and no more.
    make = lambda: AdaptiveMarginals(1.0, neighbours=relation, marginal_degree=2, rounds=4, init=init,  # noqa: E731
                                     random_state=5)
    first, second = (_record(recorded, make(), frame) for frame in _neighbours(relation))
    delta = ADD_REMOVE.count_sensitivity if relation == "add-remove" else 2
    assert [step for step, _ in first["scores"]] == [step for step, _ in second["scores"]]
    assert len(first["scores"]) == 4
    moved = []
    for (_, a), (_, b) in zip(first["scores"], second["scores"]):
        assert a.shape == b.shape
        moved.append(float(np.max(np.abs(a - b))))
    assert max(moved) <= delta + 1e-9, moved
    assert max(moved) == pytest.approx(delta)  # attained (as row 74's enumeration finds): the scores read the data


@pytest.mark.parametrize("init", ["oneway", "network"])
def test_round_scores_use_the_released_estimate_of_n_not_the_true_n(recorded, init):
    # Under add/remove N̂ is the inverse-variance estimate from the noisy count and the released tables
    # (post-processing). The expected counts each round scores against are N̂·p̂_r: they sum to N̂, are the
    # same for two neighbouring tables (n = 300 and 301) whose releases are equal, and follow N̂ when only
    # the released count changes.
    make = lambda: AdaptiveMarginals(1.0, neighbours="add-remove", marginal_degree=2, rounds=3, init=init,  # noqa: E731
                                     random_state=5)
    d, d_plus = _neighbours("add-remove")
    first, second = _record(recorded, make(), d), _record(recorded, make(), d_plus)
    assert first["expected"] and len(first["expected"]) == len(second["expected"])
    for (t, a), (u, b) in zip(first["expected"], second["expected"]):
        assert t == u and np.array_equal(a, b)
        n_hat = first["totals"][t - 1]
        assert a.sum() == pytest.approx(n_hat, rel=1e-9)
        assert abs(n_hat - len(d)) > 5  # N̂ is not the true n here, so the two cannot be confused
    # The released count moves N̂, and the scores' expected counts follow it.
    recorded["count"][0] = 4 * PINNED_COUNT
    moved = _record(recorded, make(), d)
    n_hat = [moved["totals"][t - 1] for t, _ in moved["expected"]]
    assert all(m.sum() == pytest.approx(n, rel=1e-9) for (_, m), n in zip(moved["expected"], n_hat))
    assert n_hat[0] > first["totals"][first["expected"][0][0] - 1]


# --- M15: the shipped noise scale, per ledger entry and in distribution ------------------------------------------


@pytest.fixture
def draws(monkeypatch):
    """Every discrete Laplace release as (scale drawn at, exact counts, released counts), in order; the
    sampler is the real one, observed where the mechanism calls it."""
    log: list[list] = []
    real_sampler, real_release = mechanisms_module.discrete_laplace, DiscreteLaplace.release

    def sampler(scale, size, rng):
        log[-1][0] = Fraction(scale)
        return real_sampler(scale, size, rng)

    def release(self, counts, accountant, rng, *, step, measured):
        log.append([None, np.array(counts, dtype=np.int64).copy(), None])
        out = real_release(self, counts, accountant, rng, step=step, measured=measured)
        log[-1][2] = np.array(out, dtype=np.int64)
        return out

    monkeypatch.setattr(mechanisms_module, "discrete_laplace", sampler)
    monkeypatch.setattr(DiscreteLaplace, "release", release)
    return log


NOISY_CELLS = 1500
"""Noisy cells pooled per method: half the scale then gives S ≈ −0.34·√cells ≈ −13 (below)."""


def _estimator(method: str, seed: int):
    """A fit of ``method`` (every method with discrete Laplace measurements, both relations where it has them)."""
    cliques = [("a0", "a1", "a2"), ("a2", "a3", "a4")]
    return {
        "adaptive": lambda: AdaptiveMarginals(1.0, rounds=3, random_state=seed),
        "adaptive-add-remove": lambda: AdaptiveMarginals(1.0, neighbours="add-remove", rounds=3, random_state=seed),
        "adaptive-network-add-remove": lambda: AdaptiveMarginals(1.0, neighbours="add-remove", init="network",
                                                                 rounds=3, random_state=seed),
        "privbayes": lambda: PrivBayes(1.0, random_state=seed),
        "privbayes-add-remove": lambda: PrivBayes(1.0, neighbours="add-remove", random_state=seed),
        "sa-privbayes": lambda: SAPrivBayes(1.0, mode="strict", random_state=seed),
        "mrf": lambda: PrivateMRF(cliques, 1.0, estimation="naive", random_state=seed),
        "mrf-add-remove": lambda: PrivateMRF(cliques, 1.0, estimation="naive", neighbours="add-remove",
                                             random_state=seed),
    }[method]()


METHODS = ["adaptive", "adaptive-add-remove", "adaptive-network-add-remove", "privbayes", "privbayes-add-remove",
           "sa-privbayes", "mrf", "mrf-add-remove"]


def _moments(scale: Fraction) -> tuple[float, float]:
    """E Z² and Var Z² of discrete Laplace noise of ``scale`` (pmf ∝ q^|z|, q = e^(−1/scale)), by summation."""
    q = math.exp(-1.0 / float(scale))
    z = np.arange(1, int(80 * float(scale)) + 200, dtype=float)
    weight = 2 * (1 - q) / (1 + q) * q ** z
    second, fourth = float(np.sum(weight * z**2)), float(np.sum(weight * z**4))
    return second, fourth - second**2


def test_discrete_laplace_moments_match_the_closed_form():
    # The summed moments against 2q/(1 − q)² and 2q(1 + 10q + q²)/(1 − q)⁴ (the two-sided geometric law).
    for scale in (Fraction(1, 3), Fraction(2), Fraction(157, 10)):
        q = math.exp(-1 / float(scale))
        second, variance = _moments(scale)
        assert second == pytest.approx(mechanisms_module.discrete_laplace_variance(scale), rel=1e-9)
        assert variance + second**2 == pytest.approx(2 * q * (1 + 10 * q + q * q) / (1 - q) ** 4, rel=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_every_draw_is_at_the_plans_scale_and_the_noise_added_has_its_variance(draws, method):
    # Scale: the k-th draw of a fit belongs to its k-th discrete Laplace ledger entry (each release charges,
    # then draws); it must be drawn at that entry's Δ/ε exactly, with the plan's ε (one of its group's multiset
    # for SA-PrivBayes's tables) and the plan's Δ wherever the relation fixes it before the data.
    # Variance: released − exact over every cell of the fits, z_i at scale b_i, gives
    # S = Σ (z_i²/v_i − 1) / √Σ (Var z_i²)/v_i² with v_i = E z_i², ≈ N(0, 1) for the shipped scales (each
    # term has mean 0 and finite variance ≈ 5); |S| < 6 fails falsely with probability ≈ 2e-9 under the normal
    # approximation (≤ 1/36 by Chebyshev alone; the seeds are fixed). Half the scale makes each term's mean
    # ≈ −3/4, so S ≈ −0.75·cells/√(5·cells) ≈ −13 at 1,500 cells.
    frame, schema = correlated_frame(WIDE, 2000, seed=1), categorical_schema(WIDE)
    seed = 10
    while len(draws) == 0 or sum(exact.size for _, exact, _ in draws) < NOISY_CELLS:
        seed += 1
        assert seed < 40
        before = len(draws)
        released = _estimator(method, seed).fit(frame, schema).released_
        released.plan.check(released.ledger)  # the ledger is the plan, release by release
        pairs = [(planned, entry) for planned, entry in zip(released.plan.releases, released.ledger)
                 if entry.mechanism == DiscreteLaplace.name]
        assert len(pairs) == len(draws) - before > 0
        for (planned, entry), (scale, _, _) in zip(pairs, draws[before:]):
            assert planned.step == entry.step and (planned.group is not None or planned.epsilon == entry.epsilon)
            assert planned.sensitivity in (None, entry.sensitivity)
            assert scale == entry.sensitivity / entry.epsilon, entry.step
    excess, spread = 0.0, 0.0
    for scale, exact, released in draws:
        noise = (released - exact).astype(float)
        second, variance = _moments(scale)
        excess += float(np.sum(noise**2)) / second - noise.size
        spread += noise.size * variance / second**2
    statistic = excess / math.sqrt(spread)
    assert abs(statistic) < 6, (statistic, seed)


# --- M17: the network start's θ-useful parent sets at N̂ ----------------------------------------------------------


def _parent_lists(n_hat: int, n: int) -> tuple:
    """The network start's θ-useful parent sets (TODS 2017, Alg. 4) of each attribute of SIZES given all the
    others, under add/remove at ε = 1: the plan made at N̂ = ``n_hat``, the rule evaluated at ``n``."""
    settings = AdaptiveSettings(Fraction(1), neighbours="add-remove", init="network")
    encoding = settings.encoding_for(categorical_schema(SIZES))
    tables = sum(settings.plan(n_hat, encoding).budgets("table").values(), Fraction(0))
    stub = InMemoryTable(np.zeros((1, len(SIZES)), dtype=np.int64), encoding)
    rule = maximal_parent_candidates(stub, tables, THETA, n=n, sensitivity=ADD_REMOVE.count_sensitivity)
    d = len(SIZES)
    return tuple(tuple(rule(child, [p for p in range(d) if p != child])) for child in range(d))


@functools.cache
def _theta_step() -> int:
    """The first N̂ above 320 where the θ-useful parent sets at N̂ differ from those at N̂ − 1 (τ = n·ε₂/(Δ·d·θ·|X|)
    crosses a parent domain's size; 370 with the current plan): a table of N̂ − 1 rows straddles it."""
    return next(n for n in range(321, 2000) if _parent_lists(n, n) != _parent_lists(n, n - 1))


@pytest.mark.parametrize("rows", ["below the step", "at the step", "300"])
def test_the_network_start_picks_theta_useful_parent_sets_at_the_noisy_count(monkeypatch, rows):
    # N̂ is pinned at the θ step; tables of N̂ − 1 rows (across the step), N̂ and 300 rows (controls).
    n_hat = _theta_step()
    n = {"below the step": n_hat - 1, "at the step": n_hat, "300": 300}[rows]
    schema = categorical_schema(SIZES)
    at_n_hat = _parent_lists(n_hat, n_hat)
    assert at_n_hat != _parent_lists(n_hat, n_hat - 1)  # the table of N̂ − 1 rows straddles the step

    def pinned_count(true_n, epsilon, accountant, rng, *, step):
        accountant.charge(count_mechanism(epsilon), step=step, measured="number of tuples")
        return n_hat

    rules = []
    real_greedy = network_module.greedy_bayes

    def greedy(table, score, rule, learn, accountant, rng):
        rules.append(rule)
        return real_greedy(table, score, rule, learn, accountant, rng)

    monkeypatch.setattr(template, "noisy_count", pinned_count)  # the fit template releases the count
    monkeypatch.setattr(network_module, "greedy_bayes", greedy)
    model = AdaptiveMarginals(1.0, neighbours="add-remove", init="network", marginal_degree=2, rounds=1,
                              random_state=3).fit(correlated_frame(SIZES, n, seed=4), schema)
    assert model.released_.n == n_hat and len(rules) == 1
    d = len(SIZES)
    used = tuple(tuple(rules[0](child, [p for p in range(d) if p != child])) for child in range(d))
    assert used == at_n_hat


def test_the_network_start_on_either_side_of_a_theta_step_depends_on_the_releases_only(recorded, tmp_path):
    # Black-box twin of the test above: every release pinned (N̂ at the θ step), tables of N̂ − 1 and N̂ rows; the
    # candidate lists each selection draws from, and so the whole model file, must be the same.
    step = recorded["count"][0] = _theta_step()
    files, sizes = [], []
    for rows in (step - 1, step):
        estimator = AdaptiveMarginals(1.0, neighbours="add-remove", init="network", marginal_degree=2, rounds=2,
                                      random_state=3)
        sizes.append(_record(recorded, estimator, correlated_frame(SIZES, rows, seed=4), SIZES)["sizes"])
        estimator.save(tmp_path / f"{rows}.json")
        files.append((tmp_path / f"{rows}.json").read_text())
    assert [s for s, _ in sizes[0]][:3] == [f"network step {i}/3" for i in (1, 2, 3)]
    assert sizes[0] == sizes[1] and files[0] == files[1]


# --- Charge before release ---------------------------------------------------------------------------------------


class _CountingSource:
    """A seeded source that counts its draws."""

    def __init__(self) -> None:
        self.inner, self.draws, self.seeded = random_source(0), 0, True

    def randbelow(self, n: int) -> int:
        self.draws += 1
        return self.inner.randbelow(n)

    def below(self, bounds: np.ndarray) -> np.ndarray:
        self.draws += 1
        return self.inner.below(bounds)


@pytest.mark.parametrize("mechanism", [DiscreteLaplace(Fraction(1, 2), Fraction(1)),
                                       Exponential(Fraction(1, 2), Fraction(1)),
                                       PermuteAndFlip(Fraction(1, 2), Fraction(1))], ids=lambda m: m.name)
def test_a_refused_charge_draws_no_noise_and_releases_nothing(mechanism):
    # The accountant's contract (privacy/accountant.py): every mechanism is charged before it touches the data
    # or its randomness, so a release the budget cannot pay for raises before any draw and leaves no entry.
    accountant, rng = Accountant(Fraction(1, 4)), _CountingSource()
    with pytest.raises(BudgetExceededError):
        mechanism.release(np.array([3, 1, 4]), accountant, rng, step="s", measured="x")
    assert rng.draws == 0 and accountant.ledger == () and accountant.spent == 0


# --- Exact rationals in the samplers ------------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.3, 0.07, 1 / 3, 2.9, 1e-3])
@pytest.mark.parametrize("sensitivity", [Fraction(1), Fraction(2), Fraction(3, 7)])
def test_the_samplers_lattice_never_rounds_a_scale_down(epsilon, sensitivity):
    # A float ε makes Δ/ε a rational with a ~2^50 denominator; the sampler draws at t/s on a 2^-20 lattice,
    # rounded up (more noise, never less than the ledger pays for) and by less than one lattice step.
    scale = DiscreteLaplace(epsilon, sensitivity).scale
    t, s = lattice_scale(scale)
    assert scale.denominator > 2**20  # the rounding branch, not an exact scale passed through
    assert 0 <= Fraction(t, s) - scale < Fraction(1, s) and s == 2**20


@pytest.mark.parametrize("container", ["list", "ndarray", "rational"])
@pytest.mark.parametrize("choose", [exponential_choice, permute_and_flip_choice], ids=["exponential", "pf"])
def test_selections_take_the_top_score_exactly_from_every_container(container, choose):
    # Scores 4·10⁻⁴ apart at factor 10⁴: the lower one has weight e⁻⁴ (exponential: P = e⁻⁴/(1 + e⁻⁴) = 0.0180;
    # permute-and-flip: visited first and accepted, P = e⁻⁴/2 = 0.0092). A top score rounded by even 10⁻³
    # makes both gaps ≤ 0 and the choice uniform (P = 1/2). 4,000 draws: 6 binomial s.d. ≤ 50 counts.
    scores = {"list": [0.0004, 0.0], "ndarray": np.array([0.0004, 0.0]),
              "rational": RationalScores(np.array([4, 0]), 10**4)}[container]
    rng, factor = random_source(8), Fraction(10**4)
    low = sum(choose(scores, factor, rng) == 1 for _ in range(4000))
    q = math.exp(-float(factor * Fraction(4, 10**4)))  # the float 0.0004 is 4·10⁻⁴ within 10⁻¹⁹: immaterial
    p = q / (1 + q) if choose is exponential_choice else q / 2
    assert abs(low - 4000 * p) < 6 * math.sqrt(4000 * p * (1 - p)), (low, 4000 * p)
