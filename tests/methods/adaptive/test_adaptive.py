"""Adaptive marginals (issue 31): plan, ledger, candidates, the marginal oracle, the score's sensitivity."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame

from privbayes import AdaptiveMarginals, counting
from privbayes.core.errors import InputError
from privbayes.core.limits import limits
from privbayes.inference import Domain, make_engine
from privbayes.methods.adaptive.candidates import Candidate, leaf_candidates, workload_weights
from privbayes.methods.adaptive.marginals import MarginalOracle, tree_cells
from privbayes.methods.adaptive.rounds import (
    FINAL_MAX_ITERATIONS,
    FINAL_WORK,
    ROUND_ITERATIONS,
    Refits,
    final_iterations,
    matched_start,
    mean_absolute_noise,
    quality,
    refits_for,
)
from privbayes.methods.adaptive.settings import (
    AUTO_VERSION,
    CAPACITY_SIGNAL,
    COUNT_STEP,
    LARGE_SIGNAL,
    MAX_ROUNDS_PER_ATTRIBUTE,
    ROUNDS_SIGNAL,
    SELECT_SCALE,
    ZCDP_FIRST_SHARE,
    AdaptiveSettings,
    capacity_cap,
    first_groups,
    large_signal_share,
    oneway_weights,
    round_budgets,
    rounds_cap,
)
from privbayes.privacy.mechanisms import discrete_laplace_variance
from privbayes.privacy.plan import PlanMismatchError
from privbayes.privacy.samplers import discrete_laplace, random_source
from privbayes.schema.encoding import Encoding

SIZES = [3, 4, 2, 5]
SCHEMA = categorical_schema(SIZES)
FRAME = correlated_frame(SIZES, 800, seed=4)


# --- settings and plan ------------------------------------------------------------------------------

@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
@pytest.mark.parametrize("epsilon", [Fraction(1, 10), Fraction(2, 5), Fraction(8, 5)])
def test_the_plan_spends_exactly_epsilon_in_its_stated_shares(relation, epsilon):
    settings = AdaptiveSettings(epsilon, neighbours=relation)
    encoding = settings.encoding_for(SCHEMA)
    plan = settings.plan(1000, encoding)
    assert plan.spent == epsilon == plan.total
    delta = settings.relation.count_sensitivity
    rest = epsilon - (0 if relation == "replace-one" else epsilon / 100)
    oneway = plan.budgets("oneway")
    groups = first_groups(encoding, True)  # sizes 3, 4, 2, 5: the 2 with the 3, then the 4 with the 5
    assert groups == ((0, 2), (1, 3))
    # joint first tables at a small signal n·ε/Δ < 5000 get 11/20 of the rest, else 1/2
    share = Fraction(11, 20) if 1000 * rest / delta < 5000 else Fraction(1, 2)
    assert plan.setting("initial share") == float(share)
    assert sorted(oneway) == list(range(len(groups))) and sum(oneway.values()) == rest * share
    # split in proportion to √|Ω_g| (two decimals): the larger table gets more
    cells = [6, 20]
    assert [oneway[g] / oneway[0] for g in range(2)] == [Fraction(math.isqrt(10**4 * c), math.isqrt(10**4 * 6))
                                                       for c in cells]
    assert {r.mechanism for r in plan.releases if r.kind == "select"} == {"permute-and-flip"}
    T = plan.setting("rounds")
    select, measure = plan.budgets("select"), plan.budgets("measure")
    assert sorted(select) == sorted(measure) == list(range(1, T + 1))
    rounds = [select[t] + measure[t] for t in range(1, T + 1)]
    assert sum(rounds) == rest * (1 - share)
    if T > 1:  # linearly rising budgets, the last 4 times the first (the ramp)
        assert rounds[-1] == 4 * rounds[0]
        assert len({b - a for a, b in zip(rounds, rounds[1:])}) == 1
    assert all(select[t] == (select[t] + measure[t]) / 5 for t in select)  # select_share = 1/5
    assert all(r.sensitivity == (1 if r.kind == "count" else delta) for r in plan.releases)
    assert (plan.releases[0].step == COUNT_STEP) == (relation == "add-remove")


def test_the_rounds_rule_grows_with_the_square_root_of_the_signal():
    settings = AdaptiveSettings(Fraction(1, 10))
    encoding = settings.encoding_for(SCHEMA)
    rounds = []
    for n in (4000, 16000, 64000):
        plan = settings.plan(n, encoding)
        measure = float(sum(plan.budgets("measure").values()))
        expected = round(math.sqrt(n * measure / (2 * 25)))  # Δ = 2 (replace-one), θ = 25
        assert plan.setting("rounds") == min(max(1, expected), MAX_ROUNDS_PER_ATTRIBUTE * 4)
        rounds.append(plan.setting("rounds"))
    assert rounds[0] < rounds[1] < rounds[2]
    assert AdaptiveSettings(1, rounds=3).plan(10**6, encoding).setting("rounds") == 3  # given: no rule
    old = AdaptiveSettings.from_parameters(AdaptiveSettings(1).to_parameters() | {"auto_version": 3})
    assert old.plan(10**9, encoding).setting("rounds") == MAX_ROUNDS_PER_ATTRIBUTE * 4  # capped (version 4: below)
    assert AdaptiveSettings(1).plan(1, encoding).setting("rounds") == 1  # at least one


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_the_rounds_cap_follows_the_signal_above_the_rounds_signal_and_old_files_keep_theirs(relation):
    """auto_version 4: above ROUNDS_SIGNAL the rule's cap of 2 rounds per attribute is scaled by
    (signal / ROUNDS_SIGNAL)^(1/6), rounded down; at or below it the plan is version 3's (so every paper dataset's
    and the release pins'); a version-3 file recomputes its own; the plan still spends ε."""
    settings = AdaptiveSettings.from_parameters(AdaptiveSettings(1, neighbours=relation).to_parameters()
                                                | {"auto_version": 4})
    encoding = settings.encoding_for(SCHEMA)
    old = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 3})
    d, delta = len(SIZES), float(settings.relation.count_sensitivity)
    rounds = []
    for n in (10**4, 10**5, 2 * 10**5, 10**6, 10**8):
        plan, signal = settings.plan(n, encoding), settings.signal(n)
        measure = n * float(sum(plan.budgets("measure").values())) / delta
        cap = MAX_ROUNDS_PER_ATTRIBUTE * d * max(1.0, (signal / ROUNDS_SIGNAL) ** (1 / 6))
        assert plan.setting("rounds") == round(min(math.sqrt(measure / 25), math.floor(cap)))
        assert (plan == old.plan(n, encoding)) == (signal <= ROUNDS_SIGNAL) and plan.spent == 1
        rounds.append(plan.setting("rounds"))
    assert rounds == sorted(rounds) and rounds[-1] > MAX_ROUNDS_PER_ATTRIBUTE * d  # the cap grows, never falls
    assert old.plan(10**8, encoding).setting("rounds") == MAX_ROUNDS_PER_ATTRIBUTE * d
    assert AdaptiveSettings(1, rounds=5).plan(10**8, encoding).setting("rounds") == 5  # given: no rule
    assert rounds_cap(8, ROUNDS_SIGNAL) == 8 and rounds_cap(8, 64 * ROUNDS_SIGNAL) == 16  # 64^(1/6) = 2
    assert rounds_cap(8, 1e300) == limits().max_rounds and rounds_cap(20_000, 1e300) == 20_000  # never a refusal


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_above_the_capacity_signal_the_rounds_grow_and_the_selection_shrinks_and_old_files_keep_theirs(relation):
    """auto_version 5: above CAPACITY_SIGNAL (100,000) the rounds cap grows as (signal / CAPACITY_SIGNAL)^(1/6), held
    from ROUNDS_SIGNAL until version 4's growth passes it (capacity_cap), and each round's selection gets a quarter
    of select_share; at or below it (every paper dataset on the grid, the
    release pins) the plan is version 4's; a version-4 file recomputes its own; the plan still spends ε."""
    settings = AdaptiveSettings.from_parameters(AdaptiveSettings(1, neighbours=relation).to_parameters()
                                                | {"auto_version": 5})
    encoding = settings.encoding_for(SCHEMA)
    old = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 4})
    d, delta = len(SIZES), float(settings.relation.count_sensitivity)
    rounds = []
    for n in (10**4, 10**5, 2 * 10**5, 10**6, 10**8):
        plan, signal = settings.plan(n, encoding), settings.signal(n)
        above = signal > CAPACITY_SIGNAL
        share = Fraction(1, 5) * (SELECT_SCALE if above else 1)
        assert settings.select_share_for(n) == share and plan.setting("select share") == float(share)
        assert all(r.epsilon == (r.epsilon + m.epsilon) * share for r, m in zip(
            [r for r in plan.releases if r.kind == "select"], [r for r in plan.releases if r.kind == "measure"]))
        measure = n * float(sum(plan.budgets("measure").values())) / delta
        cap = MAX_ROUNDS_PER_ATTRIBUTE * d * max(1.0, (min(signal, ROUNDS_SIGNAL) / CAPACITY_SIGNAL) ** (1 / 6),
                                                 (signal / ROUNDS_SIGNAL) ** (1 / 6))
        assert plan.setting("rounds") == round(min(math.sqrt(measure / 25), math.floor(cap)))
        assert (plan == old.plan(n, encoding)) == (not above) and plan.spent == 1
        rounds.append(plan.setting("rounds"))
    assert rounds == sorted(rounds) and rounds[-2] > old.plan(10**6, encoding).setting("rounds")
    assert rounds[-1] == old.plan(10**8, encoding).setting("rounds")  # from 10⁷ on, version 4's measured rounds
    assert capacity_cap(8, 64 * ROUNDS_SIGNAL) == rounds_cap(8, 64 * ROUNDS_SIGNAL) == 16
    assert capacity_cap(8, 2 * ROUNDS_SIGNAL) == capacity_cap(8, ROUNDS_SIGNAL) == rounds_cap(8, ROUNDS_SIGNAL,
                                                                                           CAPACITY_SIGNAL) == 11
    assert rounds_cap(8, CAPACITY_SIGNAL, CAPACITY_SIGNAL) == 8 and rounds_cap(8, 64 * CAPACITY_SIGNAL,
                                                                               CAPACITY_SIGNAL) == 16
    zcdp = AdaptiveSettings(1, privacy="zcdp", delta=1e-9)
    assert zcdp.select_share_for(10**8) == zcdp.select_share / 2  # zCDP: half at every signal (version 6)
    assert AdaptiveSettings(1, select_share=0.4).select_share_for(10**8) == Fraction(1, 10)  # a given share: scaled
    assert old.select_share_for(10**8) == Fraction(1, 5)


def test_a_fit_above_the_rounds_signal_spends_its_larger_plan():
    """A fit whose signal passes ROUNDS_SIGNAL (800 rows at ε = 10,000: 4·10⁶) runs more rounds than the version-3
    cap, and its ledger is its plan release by release."""
    fitted = AdaptiveMarginals(10_000.0, random_state=3).fit(FRAME, SCHEMA)
    plan = fitted.released_.plan
    assert plan.setting("rounds") > MAX_ROUNDS_PER_ATTRIBUTE * len(SIZES)
    plan.check(fitted.released_.ledger)
    assert fitted.released_.to_document()["parameters"]["auto_version"] == AUTO_VERSION == 6


@pytest.mark.parametrize("bad, message", [
    (dict(marginal_degree=4), "marginal_degree"), (dict(rounds=0), "rounds"),
    (dict(initial_share=1), "initial_share"), (dict(select_share=0), "select_share"),
    (dict(rounds_theta=-1), "rounds_theta"), (dict(neighbours="swap"), "neighbours"),
    (dict(max_model_cells=2**30), "max_model_cells"), (dict(epsilon=0), "epsilon")])
def test_bad_parameters_are_one_line_errors_naming_the_parameter(bad, message):
    params = {"epsilon": 1.0, **bad}
    with pytest.raises(InputError, match=f"^{message} "):
        AdaptiveMarginals(**params).settings()


def test_settings_round_trip_through_the_model_parameters():
    settings = AdaptiveSettings(Fraction(3, 10), marginal_degree=3, rounds=4, initial_share=Fraction(2, 5),
                                select_share=Fraction(1, 10), rounds_theta=0.5, max_model_cells=1000,
                                neighbours="add-remove")
    assert AdaptiveSettings.from_parameters(settings.to_parameters()) == settings
    tampered = settings.to_parameters() | {"select_share_exact": "1/20"}
    with pytest.raises(InputError, match="disagree"):
        AdaptiveSettings.from_parameters(tampered)
    with pytest.raises(InputError, match="unknown adaptive parameters"):
        AdaptiveSettings.from_parameters(settings.to_parameters() | {"beta": 0.3})



@pytest.mark.parametrize("rounds", [1, 2, 7])
@pytest.mark.parametrize("ramp", [Fraction(1), Fraction(4), Fraction(5, 2)])
def test_round_budgets_rise_linearly_to_the_ramp_and_sum_to_the_total(rounds, ramp):
    total = Fraction(3, 70)
    budgets = round_budgets(total, rounds, ramp)
    assert len(budgets) == rounds and sum(budgets) == total and all(b > 0 for b in budgets)
    if rounds > 1:
        assert budgets[-1] == ramp * budgets[0]
        steps = {b - a for a, b in zip(budgets, budgets[1:])}
        assert len(steps) == 1 and (steps == {0}) == (ramp == 1)


def test_model_files_written_before_the_ramp_keep_equal_rounds():
    """A file without ``ramp`` (written before it existed) recomputes the plan it was fitted with."""
    settings = AdaptiveSettings(Fraction(1, 2), rounds=5)
    old = {k: v for k, v in settings.to_parameters().items() if k not in ("ramp", "ramp_exact")}
    loaded = AdaptiveSettings.from_parameters(old)
    assert loaded.ramp == 1 and settings.ramp == 4
    encoding = settings.encoding_for(SCHEMA)
    measure = loaded.plan(1000, encoding).budgets("measure")
    assert len(set(measure.values())) == 1
    with pytest.raises(InputError, match="^ramp "):
        AdaptiveSettings(Fraction(1, 2), ramp=Fraction(1, 2))


def test_model_files_written_before_joint_first_marginals_and_permute_and_flip_keep_their_plan():
    """A file without ``selection`` and ``joint`` was fitted with the exponential mechanism and one 1-way table
    per attribute: its plan is recomputed as such."""
    settings = AdaptiveSettings(Fraction(1, 2), rounds=3)
    old = {k: v for k, v in settings.to_parameters().items() if k not in ("selection", "joint")}
    loaded = AdaptiveSettings.from_parameters(old)
    assert (loaded.selection, loaded.joint) == ("exponential", False)
    plan = loaded.plan(1000, settings.encoding_for(SCHEMA))
    assert plan.setting("initial share") == 0.5  # the small-signal share comes with the joint tables only
    assert settings.plan(1000, settings.encoding_for(SCHEMA)).setting("initial share") == 0.55
    assert settings.plan(3 * 10**4, settings.encoding_for(SCHEMA)).setting("initial share") == 0.5
    assert {r.mechanism for r in plan.releases if r.kind == "select"} == {"exponential"}
    assert [r.step for r in plan.releases if r.kind == "oneway"] == [f"1-way marginal {a}/4" for a in range(1, 5)]
    with pytest.raises(InputError, match="^selection "):
        AdaptiveSettings(1, selection="report-noisy-max")
    with pytest.raises(InputError, match="^joint "):
        AdaptiveSettings(1, joint="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("sizes", [[2] * 7, [3, 4, 2, 5], [16, 7, 2, 2, 5, 41, 6], [2, 2, 2, 4, 16, 10], [9, 3]])
def test_first_groups_partition_the_attributes_and_never_add_noise_to_a_1way_beyond_the_rule(sizes):
    # Each merge keeps √|Ω_g|+√|Ω_h| − √(|Ω_g||Ω_h|) above MERGE_GAIN, so Σ_g √|Ω_g| (the 1-way noise's
    # standard deviation per cell, times ε·√|Ω_a|) grows by at most |MERGE_GAIN| per merge, and the groups
    # partition the attributes; without ``joint`` every attribute is alone.
    from privbayes.methods.adaptive.settings import MERGE_GAIN

    encoding = AdaptiveSettings(1).encoding_for(categorical_schema(sizes))
    groups = first_groups(encoding, True)
    assert sorted(a for g in groups for a in g) == list(range(len(sizes)))
    merges = len(sizes) - len(groups)
    alone, joint = sum(math.sqrt(s) for s in sizes), sum(math.sqrt(math.prod(sizes[a] for a in g)) for g in groups)
    assert joint <= alone + merges * abs(MERGE_GAIN) + 1e-9
    assert first_groups(encoding, False) == tuple((a,) for a in range(len(sizes)))
    assert len(oneway_weights(encoding, groups)) == len(groups)
    if sizes == [2] * 7:  # pairs of binaries, then 4-cell tables with a binary or with each other
        assert all(math.prod(sizes[a] for a in g) in (8, 16) for g in groups)


# --- fits: the ledger is the plan --------------------------------------------------------------------

@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
@pytest.mark.parametrize("degree, rounds", [(2, None), (3, 2), (2, 1)])
def test_the_ledger_equals_the_plan_for_every_round_structure(relation, degree, rounds):
    model = AdaptiveMarginals(0.8, neighbours=relation, marginal_degree=degree, rounds=rounds, random_state=1).fit(
        FRAME, SCHEMA)
    released = model.released_
    n = len(FRAME) if relation == "replace-one" else released.n
    plan = model.plan(n, SCHEMA)
    assert plan == released.plan
    plan.check(released.ledger)
    assert sum((e.epsilon for e in released.ledger), Fraction(0)) == Fraction(4, 5)
    measured = [e.measured for e in released.ledger if e.step.endswith(": measure")]
    assert len(measured) == plan.setting("rounds")
    assert all("-cell marginal " in m for m in measured)
    if rounds is not None:  # a different round count is a different plan: refused
        other = AdaptiveMarginals(0.8, neighbours=relation, marginal_degree=degree, rounds=rounds + 1).plan(n, SCHEMA)
        with pytest.raises(PlanMismatchError):
            other.check(released.ledger)


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_binary_data_start_from_joint_tables_with_3_way_candidates_and_the_ledger_is_the_plan(relation):
    from privbayes.audit.distinguish import binary_schema

    rng = np.random.default_rng(3)
    first = rng.integers(0, 2, 1500)
    frame = pd.DataFrame({c: np.where(rng.random(1500) < 0.8, first, rng.integers(0, 2, 1500)) for c in "abcdef"})
    schema = binary_schema("abcdef")
    model = AdaptiveMarginals(1.0, neighbours=relation, random_state=2).fit(frame, schema)
    released = model.released_
    # "auto" on an all-binary domain: joint first tables (two 8-cell tables), 3/10 of ε, 3-way candidates
    assert released.plan.setting("init") == "oneway" and released.plan.setting("marginal degree") == 3
    assert released.plan.setting("initial share") == pytest.approx(0.3)
    n = len(frame) if relation == "replace-one" else released.n
    assert model.plan(n, schema) == released.plan
    released.plan.check(released.ledger)
    first_tables = [e for e in released.ledger if e.step.startswith("first marginal")]
    assert len(first_tables) == 2 and all(e.measured.startswith("joint marginal of") for e in first_tables)
    rest = 1 if relation == "replace-one" else Fraction(99, 100)
    assert sum((e.epsilon for e in first_tables), Fraction(0)) == rest * Fraction(3, 10)
    assert sum((e.epsilon for e in released.ledger), Fraction(0)) == 1
    separate = AdaptiveMarginals(1.0, neighbours=relation, joint=False, random_state=2).fit(frame, schema)
    assert any(e.step.startswith("1-way") for e in separate.released_.ledger)
    assert separate.released_.plan.setting("initial share") == pytest.approx(0.5)  # 3/10 is for joint tables
    network = AdaptiveMarginals(1.0, neighbours=relation, init="network", random_state=2).fit(frame, schema)
    steps = [e.step for e in network.released_.ledger]
    assert any(s.startswith("network step") for s in steps) and any(s.startswith("conditional") for s in steps)
    assert not any(s.startswith(("1-way", "first marginal")) for s in steps)
    network.released_.plan.check(network.released_.ledger)


def test_model_files_before_versioned_automatic_choices_keep_the_network_start_on_binary_data():
    """A file without ``auto_version`` (written before it) recomputes the plan it was fitted with: PrivBayes's
    network first on binary data and 2-way candidates; other domains are unchanged by the version."""
    from privbayes.audit.distinguish import binary_schema

    binary = AdaptiveSettings(1).encoding_for(binary_schema([f"b{i}" for i in range(8)]))
    settings = AdaptiveSettings(Fraction(1, 2), neighbours="add-remove")
    assert settings.auto_version == AUTO_VERSION and settings.to_parameters()["auto_version"] == AUTO_VERSION
    old = {k: v for k, v in settings.to_parameters().items() if k != "auto_version"} | {"degree": 2}
    loaded = AdaptiveSettings.from_parameters(old)
    assert loaded.auto_version == 1
    assert loaded.plan(5000, binary).setting("init") == "network"
    assert loaded.plan(5000, binary).setting("marginal degree") == 2
    assert settings.plan(5000, binary).setting("init") == "oneway"
    assert settings.plan(5000, binary).setting("marginal degree") == 3
    assert AdaptiveSettings.from_parameters(settings.to_parameters()) == settings
    encoding = AdaptiveSettings(1).encoding_for(SCHEMA)  # not binary: both versions plan alike
    current = AdaptiveSettings.from_parameters(old | {"auto_version": 2})
    assert loaded.plan(5000, encoding) == current.plan(5000, encoding)
    for bad in (AUTO_VERSION + 1, True, "2"):
        with pytest.raises(InputError, match="^auto_version "):
            AdaptiveSettings(1, auto_version=bad)


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_the_first_share_falls_with_the_signal_above_the_large_signal_and_old_files_keep_theirs(relation):
    """Under auto_version 3 the first share is 1/2 · √(LARGE_SIGNAL / (n·ε/Δ)) above that signal (floored to
    1/10,000), unchanged below it; a version-2 model file recomputes the fixed half; the plan still spends ε."""
    settings = AdaptiveSettings(1, neighbours=relation)
    encoding = settings.encoding_for(SCHEMA)
    delta = settings.relation.count_sensitivity
    rest = 1 if relation == "replace-one" else Fraction(99, 100)
    old = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 2})
    shares = []
    for n in (10**4, 2 * 10**4, 10**6, 10**7):
        signal = n * float(rest) / delta
        plan = settings.plan(n, encoding)
        expected = 0.5 if signal <= LARGE_SIGNAL else math.floor(10**4 * 0.5 * math.sqrt(LARGE_SIGNAL / signal)) / 10**4
        assert plan.setting("initial share") == pytest.approx(expected)
        assert old.plan(n, encoding).setting("initial share") == 0.5
        assert plan.spent == 1 and sum(plan.budgets("oneway").values()) == rest * Fraction(expected).limit_denominator()
        shares.append(plan.setting("initial share"))
        assert (plan == old.plan(n, encoding)) == (signal <= LARGE_SIGNAL)
    assert shares[0] == shares[1] == 0.5 > shares[2] > shares[3] >= 0.01  # falls as n·ε grows
    assert AdaptiveSettings(1, initial_share=0.5).plan(10**7, encoding).setting("initial share") == 0.5  # given


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_the_oneway_share_falls_as_the_signal_to_a_fifth_at_the_capacity_signal_and_old_files_keep_theirs(relation):
    """auto_version 6 (pure ε, the 1-way start of a domain not all binary): above LARGE_SIGNAL the first share is
    1/2 · min(√(L/s), max(L/s, 1/5)) (floored to 1/10,000): 1/5 of the half at CAPACITY_SIGNAL and version 5's
    share from 25·L, where the root falls below 1/5; unchanged at or below L (the release pins, the grid at ε ≤ 0.4);
    a version-5 file recomputes its own plan; binary data, zCDP and a given share are as before."""
    settings = AdaptiveSettings(1, neighbours=relation)
    encoding = settings.encoding_for(SCHEMA)
    rest = 1 if relation == "replace-one" else Fraction(99, 100)
    old = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 5})
    shares, lower = [], []
    for signal in (LARGE_SIGNAL, 50_000, CAPACITY_SIGNAL, 300_000, 25 * LARGE_SIGNAL, 10**6, 10**8):
        n = math.floor(signal * settings.relation.count_sensitivity / rest)
        s = settings.signal(n)
        factor = 1.0 if s <= LARGE_SIGNAL else min(math.sqrt(LARGE_SIGNAL / s), max(LARGE_SIGNAL / s, 0.2))
        plan, before = settings.plan(n, encoding), old.plan(n, encoding)
        share, share_before = plan.setting("initial share"), before.setting("initial share")
        assert share == max(0.01, math.floor(10**4 * 0.5 * factor) / 10**4) and plan.spent == 1
        assert share <= share_before and (plan == before) == (share == share_before)
        shares.append(share)
        lower.append(share < share_before)
    assert shares[:3] == [0.5, 0.2, 0.1] and shares == sorted(shares, reverse=True)
    assert lower == [False, True, True, True, False, False, False]  # v5's share from 25·L on
    binary = categorical_schema([2, 2, 2, 2])
    given = AdaptiveSettings(1, neighbours=relation, initial_share=0.4)
    below = AdaptiveSettings.from_parameters(given.to_parameters() | {"auto_version": 5})
    assert given.plan(10**5, encoding) == below.plan(10**5, encoding)
    zcdp = AdaptiveSettings(1, neighbours=relation, privacy="zcdp", delta=1e-9, auto_version=6)  # its own share
    assert zcdp.share_for("oneway", 50_000, False) == large_signal_share(ZCDP_FIRST_SHARE, 50_000)
    bits = settings.encoding_for(binary)
    assert settings.plan(10**5, bits) == old.plan(10**5, bits)


def test_the_last_fit_may_run_longer_within_a_work_bound():
    assert final_iterations(1) == FINAL_MAX_ITERATIONS
    assert final_iterations(10**9) == 200  # never below the estimator's own bound
    cells = 800_000
    assert final_iterations(cells) == FINAL_WORK // cells < FINAL_MAX_ITERATIONS
    assert all(final_iterations(c) >= final_iterations(c + 10**5) for c in range(1, 3 * 10**6, 10**5))


def test_the_automatic_degree_is_3_only_on_binary_data_with_few_triples():
    from privbayes.audit.distinguish import binary_schema

    def degree(schema, **options):
        settings = AdaptiveSettings(1, **options)
        return settings.degree_for(settings.encoding_for(schema))

    assert degree(binary_schema([f"b{i}" for i in range(30)])) == 3  # C(30, 3) = 4,060 ≤ 4,096
    assert degree(binary_schema([f"b{i}" for i in range(31)])) == 2  # 4,495 triples: too many to score each round
    assert degree(SCHEMA) == 2
    assert degree(binary_schema("abcd"), marginal_degree=2) == 2 and degree(SCHEMA, marginal_degree=3) == 3


def test_a_fit_samples_the_schema_and_keeps_strong_dependence():
    model = AdaptiveMarginals(4.0, random_state=2).fit(FRAME, SCHEMA)
    synthetic = model.sample(4000, random_state=3)
    assert list(synthetic.columns) == list(FRAME.columns) and len(synthetic) == 4000
    # a1 copies a0 (mod 4) 70 % of the time: the model must see it (independence gives ≈ 1/4 + ...)
    agree_real = np.mean(FRAME["a1"] == FRAME["a0"] % 4)
    agree_synth = np.mean(synthetic["a1"] == synthetic["a0"] % 4)
    assert abs(agree_synth - agree_real) < 0.08
    assert model.privacy_report()["method"] == "adaptive"


def test_seeded_fits_are_reproducible_and_flagged():
    a = AdaptiveMarginals(1.0, random_state=9).fit(FRAME, SCHEMA).released_.to_document()
    b = AdaptiveMarginals(1.0, random_state=9).fit(FRAME, SCHEMA).released_.to_document()
    assert a == b and any("seeded" in c for c in a["fitted"]["caveats"])


# --- candidates and weights --------------------------------------------------------------------------

def test_leaf_candidates_are_every_subset_up_to_the_degree():
    encoding = Encoding.build(SCHEMA, "hierarchical")
    for degree in (2, 3):
        candidates = leaf_candidates(encoding, degree)
        expected = [s for k in range(1, degree + 1) for s in itertools.combinations(range(4), k)]
        assert [c.attributes for c in candidates] == expected
        assert all(c.levels == (0,) * len(c.attributes) for c in candidates)


@pytest.mark.parametrize("d, degree", [(4, 2), (4, 3), (15, 3), (2, 2)])
def test_workload_weights_are_aims_overlap_counts(d, degree):
    candidates = [Candidate(s, (0,) * len(s)) for k in range(1, degree + 1)
                  for s in itertools.combinations(range(d), k)]
    weights = workload_weights(candidates, d, degree)
    workload = list(itertools.combinations(range(d), min(degree, d)))
    raw = {k: sum(len(set(range(k)) & set(q)) for q in workload) for k in range(1, degree + 1)}  # by brute force
    top = max(raw.values())
    assert weights == {k: Fraction(raw[k], top) for k in raw}
    assert max(weights.values()) == 1


# --- the marginal oracle against brute force ---------------------------------------------------------

def _brute_joint(sizes, scopes, potentials):
    joint = np.zeros(sizes)
    for cell in itertools.product(*(range(s) for s in sizes)):
        joint[cell] = math.exp(sum(float(p[tuple(cell[v] for v in scope)]) for scope, p in zip(scopes, potentials)))
    return joint / joint.sum()


@pytest.mark.parametrize("sizes, scopes", [
    ([2, 3, 2, 2, 3], [(0, 1), (1, 2), (2, 3), (3, 4)]),          # a chain: far ends in different cliques
    ([3, 2, 2, 2, 2], [(0, 1), (0, 2), (0, 3), (3, 4)]),          # a star with a tail
    ([2, 2, 3, 2, 2], [(0, 1, 2), (2, 3), (1, 4)]),               # a 3-clique and a cycle-free rest
    ([2, 3, 2, 2, 2], [(0, 1), (2, 3), (4,)]),                    # disconnected components
    ([2, 2, 2, 2], [(0, 1), (1, 2), (2, 3), (3, 0)]),             # a cycle (triangulated)
])
def test_the_marginal_oracle_matches_brute_force_for_every_subset(sizes, scopes):
    rng = np.random.default_rng(len(sizes) + len(scopes))
    domain = Domain(tuple(sizes))
    potentials = [rng.normal(size=domain.shape(s)) for s in scopes]
    engine = make_engine(domain, scopes, method="exact")
    oracle = MarginalOracle(engine.infer(potentials))
    joint = _brute_joint(sizes, scopes, potentials)
    for k in (1, 2, 3):
        for subset in itertools.permutations(range(len(sizes)), k):
            expected = joint.sum(axis=tuple(v for v in range(len(sizes)) if v not in subset))
            expected = np.transpose(expected, np.argsort(np.argsort(subset)))
            np.testing.assert_allclose(oracle.marginal(subset), expected, atol=1e-12)


def test_tree_cells_counts_the_cliques_of_the_triangulated_model():
    assert tree_cells([2, 3, 4], [(0,), (1,), (2,)]) == 2 + 3 + 4
    assert tree_cells([2, 3, 4], [(0, 1), (1, 2)]) == 6 + 12
    assert tree_cells([2, 3, 4, 5], [(0, 1), (1, 2), (2, 3), (3, 0)]) >= 2 * 3 * 4  # a cycle gets a chord


# --- the selection's sensitivity --------------------------------------------------------------------

def _neighbours(counts: np.ndarray, relation: str):
    cells = list(itertools.product(*(range(s) for s in counts.shape)))
    for c in cells:
        if relation == "add-remove":
            added = counts.copy()
            added[c] += 1
            yield added
            if counts[c] > 0:
                removed = counts.copy()
                removed[c] -= 1
                yield removed
        else:
            for target in cells:
                if counts[c] > 0 and target != c:
                    moved = counts.copy()
                    moved[c] -= 1
                    moved[target] += 1
                    yield moved


@pytest.mark.parametrize("relation, delta", [("add-remove", 1), ("replace-one", 2)])
def test_the_quality_moves_by_at_most_the_count_sensitivity_and_reaches_it(relation, delta):
    rng = np.random.default_rng(7)
    attained = 0.0
    for shape in [(2,), (2, 2), (3, 2), (2, 2, 2)]:
        for _ in range(5):
            counts = rng.integers(0, 4, size=shape)
            model = rng.random(shape) * counts.sum()  # any released model, held fixed between neighbours
            for weight in (Fraction(1), Fraction(1, 2)):
                penalty = mean_absolute_noise(Fraction(3))
                base = quality(counts, model, weight, penalty)
                for other in _neighbours(counts, relation):
                    change = abs(quality(other, model, weight, penalty) - base)
                    assert change <= float(weight) * delta + 1e-9
                    attained = max(attained, change)
    assert attained == pytest.approx(delta)  # the bound is tight: Δ is not an overestimate


def test_mean_absolute_noise_is_the_discrete_laplace_mean_of_abs():
    for scale in (Fraction(1, 2), Fraction(3), Fraction(40)):
        q = math.exp(-1 / float(scale))
        pmf = lambda z: (1 - q) / (1 + q) * q ** abs(z)  # noqa: B023, E731
        direct = sum(abs(z) * pmf(z) for z in range(-4000, 4001))
        assert mean_absolute_noise(scale) == pytest.approx(direct, rel=1e-9)
        draws = discrete_laplace(scale, 20000, random_source(3))
        # 5 standard errors of the mean of |Z| (its variance ≤ E Z² = the discrete Laplace variance)
        assert abs(np.abs(draws).mean() - direct) < 5 * math.sqrt(discrete_laplace_variance(scale) / 20000)


# --- estimation pieces -------------------------------------------------------------------------------

def test_repeated_one_attribute_measurements_are_solved_in_closed_form():
    from privbayes.estimation.consistent import estimate
    from privbayes.estimation.measurements import NoisyTable

    encoding = Encoding.build(categorical_schema([4, 2]), "vanilla")
    tables = [NoisyTable(0, ((0, 0),), np.array([50, 30, -5, 25]), Fraction(2)),
              NoisyTable(1, ((0, 0),), np.array([40, 45, 3, 12]), Fraction(1))]
    fitted = estimate(encoding, tables, 100)
    w = np.array([discrete_laplace_variance(Fraction(1)) / discrete_laplace_variance(Fraction(2)), 1.0])
    mean = (w[0] * tables[0].counts + w[1] * tables[1].counts) / w.sum() / 100
    from privbayes.inference.projection import project_simplex
    np.testing.assert_allclose(fitted.calibrated.marginal([0]), project_simplex(mean), atol=1e-12)
    assert fitted.iterations == 0


def test_a_matched_start_gives_the_model_the_new_measurements_marginal():
    """One IPF step: the warm model's potentials plus the matched start have the new table (floored, negatives
    clipped) as their marginal, where the paper's conditional start leaves the model's first marginal counted
    twice."""
    from privbayes.estimation.consistent import FLOOR, estimate
    from privbayes.estimation.measurements import NoisyTable

    encoding = Encoding.build(categorical_schema([3, 4]), "vanilla")
    first = [NoisyTable(0, ((0, 0),), np.array([500, 300, 200]), Fraction(2)),
             NoisyTable(1, ((1, 0),), np.array([100, 400, 250, 250]), Fraction(2))]
    warm = estimate(encoding, first, 1000)
    pair = NoisyTable(2, ((0, 0), (1, 0)), np.array([[90, 210, 150, 30], [5, 120, 60, 140], [-3, 70, 40, 88]]),
                      Fraction(2))
    start = matched_start(pair, MarginalOracle(warm.calibrated).marginal([0, 1]))
    fitted = estimate(encoding, first + [pair], 1000, start=list(warm.log_potentials) + [start], max_iterations=0)
    target = np.maximum(pair.counts, 0) / np.maximum(pair.counts, 0).sum()
    target = (1 - FLOOR) * target + FLOOR / target.size
    np.testing.assert_allclose(fitted.calibrated.marginal([0, 1]), target, atol=1e-12)
    paper = estimate(encoding, first + [pair], 1000, start=list(warm.log_potentials) + [None], max_iterations=0)
    assert np.abs(paper.calibrated.marginal([0, 1]) - target).sum() > 0.05


def test_re_fits_start_matched_only_above_the_large_signal():
    """Small fits (the release pins) keep the paper's start and 50 iterations per re-fit."""
    assert refits_for(LARGE_SIGNAL) == refits_for(100.0) == Refits() == Refits(ROUND_ITERATIONS, matched=False)
    assert refits_for(LARGE_SIGNAL * 1.01).matched and refits_for(10**9).matched


def test_fits_need_rows_under_replace_one_only():
    empty = FRAME.iloc[:0]
    with pytest.raises(InputError, match="no rows"):
        AdaptiveMarginals(1.0).fit(empty, SCHEMA)
    model = AdaptiveMarginals(1.0, neighbours="add-remove", random_state=0).fit(empty, SCHEMA)
    assert model.model_.n >= 1 and len(model.sample(7, random_state=0)) == 7


def test_counting_layer_tables_give_the_same_model_as_frames():
    table = counting.open(FRAME, SCHEMA)
    a = AdaptiveMarginals(1.0, random_state=4).fit(table).released_.to_document()
    b = AdaptiveMarginals(1.0, random_state=4).fit(FRAME, SCHEMA).released_.to_document()
    assert a == b and isinstance(FRAME, pd.DataFrame)


def test_the_network_start_caps_its_degree_and_old_files_keep_lemma_4_8s():
    # On binary data the network start uses Lemma 4.8's k, at most max_network_degree (5 by default); a model
    # file without the key (written before the cap) recomputes the uncapped plan.
    from privbayes.audit.distinguish import binary_schema

    schema = binary_schema([f"b{i}" for i in range(16)])
    capped = AdaptiveSettings(Fraction(8, 5), neighbours="add-remove", init="network")
    uncapped = AdaptiveSettings(Fraction(8, 5), neighbours="add-remove", init="network", max_network_degree=None)
    encoding = capped.encoding_for(schema)
    k = uncapped.plan(10**5, encoding).setting("network degree")
    assert k > 5 and capped.plan(10**5, encoding).setting("network degree") == 5
    assert AdaptiveSettings(Fraction(8, 5), init="network", max_network_degree=2).plan(
        10**5, encoding).setting("network degree") == 2
    old = {key: v for key, v in capped.to_parameters().items() if key != "max_network_degree"}
    assert AdaptiveSettings.from_parameters(old).plan(10**5, encoding).setting("network degree") == k
    assert AdaptiveSettings.from_parameters(capped.to_parameters()) == capped
    with pytest.raises(InputError, match="^max_network_degree "):
        AdaptiveSettings(1, max_network_degree=0)
