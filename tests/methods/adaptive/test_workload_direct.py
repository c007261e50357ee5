"""A small workload's sets measured directly as first tables (``auto_version`` 5; docs/decisions.md, "Workloads"):
which sets, the split of the first share, plan = ledger in both privacy definitions, and files of version 4 keeping
their plan."""

from __future__ import annotations

import json
import os
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema

from privbayes import AdaptiveMarginals
from privbayes.core.errors import InputError
from privbayes.methods.adaptive.settings import AUTO_VERSION, ZCDP_AUTO_VERSION, AdaptiveSettings, first_groups
from privbayes.methods.adaptive.workload import (
    DIRECT_SHARE,
    DIRECT_THETA,
    OUTSIDE_WEIGHT,
    WORKLOAD_SHARE,
    direct_sets,
    split_weight,
)
from privbayes.synthesizers.registry import load

SCHEMA = categorical_schema([3, 3, 3, 3, 4, 5])
WORKLOAD = [["a1", "a3", "a5"], ["a0", "a2"], ["a1", "a3"]]
"""Two maximal sets ((1, 3, 5), (0, 2)); (1, 3) lies inside the first; a4 is outside the workload."""
ZCDP = {"privacy": "zcdp", "delta": Fraction(1, 10**9)}


def frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"a{j}": rng.integers(0, size, n) for j, size in enumerate([3, 3, 3, 3, 4, 5])})


def test_the_maximal_sets_of_a_small_workload_are_measured_directly():
    sets = (((0, 1, 2), Fraction(1)), ((1, 2), Fraction(3)), ((3, 4), Fraction(2)), ((0,), Fraction(1)))
    assert direct_sets(sets, 2) == ((0, 1, 2), (3, 4))  # first-seen order; subsets of a set are left out
    assert direct_sets(sets, 1) == ()  # more maximal sets than the cap: AIM's selection among the closure
    assert direct_sets((), 4) == ()


def test_the_split_weights_are_exact_integer_roots():
    """|Ω|^(2/3) under zCDP, |Ω|^(1/2) under pure ε, floored to two decimals from integer roots."""
    assert split_weight(8, True) == 4 and split_weight(27, True) == 9 and split_weight(1000, True) == 100
    assert split_weight(2, True) == Fraction(158, 100)  # 2^(2/3) = 1.5874…
    assert split_weight(16, False) == 4 and split_weight(2, False) == Fraction(141, 100)
    for cells in range(1, 2000, 37):
        assert abs(float(split_weight(cells, True)) - cells ** (2 / 3)) < 0.01
        assert float(split_weight(cells, True)) <= cells ** (2 / 3) + 1e-9


@pytest.mark.parametrize("privacy", [{}, ZCDP])
def test_the_plan_measures_the_sets_first_and_the_ledger_follows_it(privacy):
    data = frame(2000, 1)
    fitted = AdaptiveMarginals(1.0, neighbours="add-remove", random_state=2, workload=WORKLOAD, **privacy).fit(
        data, SCHEMA).released_
    plan, zcdp = fitted.plan, bool(privacy)
    plan.check(fitted.ledger)
    first = [r for r in plan.releases if r.kind == "oneway"]
    assert [r.step for r in first] == ["first marginal 1/3", "first marginal 2/3", "first marginal 3/3"]
    measured = [e.measured for e in fitted.ledger if e.step.startswith("first marginal")]
    assert measured == ["joint marginal of a1 × a3 × a5", "joint marginal of a0 × a2", "1-way marginal of a4"]
    weights = [split_weight(45, zcdp), split_weight(9, zcdp), OUTSIDE_WEIGHT * split_weight(4, zcdp)]  # 3·3·5 cells…
    budgets = [r.rho if zcdp else r.epsilon for r in first]
    settings = AdaptiveSettings(Fraction(1), neighbours="add-remove", workload=WORKLOAD, **privacy)
    total = settings.total_rho() if zcdp else Fraction(1)
    assert sum(budgets) == DIRECT_SHARE * total * Fraction(99, 100)  # of what the noisy count leaves
    assert all(b * weights[0] == budgets[0] * w for b, w in zip(budgets, weights))  # in proportion to the weights
    assert plan.setting("initial share") == float(DIRECT_SHARE)
    assert plan.setting("first marginals") == "a1 × a3 × a5, a0 × a2, a4"
    assert plan.setting("algorithm").startswith("the 2 workload sets measured directly")
    assert 1 <= plan.setting("rounds") <= 3  # at most one round per workload set, as before


def test_a_given_initial_share_and_the_rounds_are_kept():
    encoding = AdaptiveSettings(1).encoding_for(SCHEMA)
    given = AdaptiveSettings(Fraction(1), workload=WORKLOAD, initial_share=Fraction(3, 5), rounds=4)
    plan = given.plan(5000, encoding)
    assert plan.setting("initial share") == 0.6 and plan.setting("rounds") == 4
    assert plan.setting("first marginals") == "a1 × a3 × a5, a0 × a2, a4"


def test_a_large_workload_or_a_network_start_keeps_the_selection_among_the_closure():
    encoding = AdaptiveSettings(1).encoding_for(SCHEMA)
    large = AdaptiveSettings(Fraction(1), workload=[{"all": 2}])  # 15 maximal sets > 2·d = 12
    assert large.direct_sets(encoding, 5000) == ()
    assert large.first_tables(encoding, 5000)[0] == first_groups(encoding, True)
    assert large.plan(5000, encoding).setting("initial share") == float(WORKLOAD_SHARE)
    network = AdaptiveSettings(Fraction(1), workload=WORKLOAD, init="network")
    assert network.direct_sets(encoding, 5000) == ()


def test_without_a_workload_version_5_plans_as_version_4_below_the_capacity_signal():
    """Version 5's workload rule changes workload fits only; without a workload, version 5 differs from 4 only above
    a signal of 100,000 (the capacity rules), so small fits plan as before."""
    encoding = AdaptiveSettings(1).encoding_for(SCHEMA)
    plain = AdaptiveSettings(1)
    old = AdaptiveSettings.from_parameters(plain.to_parameters() | {"auto_version": 4})
    assert plain.auto_version == AUTO_VERSION == AdaptiveSettings(1, workload=WORKLOAD).auto_version
    assert plain.plan(5000, encoding) == old.plan(5000, encoding)


@pytest.mark.parametrize("privacy", [{}, ZCDP])
def test_files_of_version_4_recompute_their_old_plan(privacy, tmp_path):
    """A workload file written under version 4 re-plans with the first share of 1/4 and the 1-way first tables;
    a version-5 file reloads with its own plan, and one whose version is changed to 4 is refused (its ledger is
    not that plan's)."""
    encoding = AdaptiveSettings(1).encoding_for(SCHEMA)
    fresh = AdaptiveSettings(Fraction(1), neighbours="add-remove", workload=WORKLOAD, **privacy)
    old = AdaptiveSettings.from_parameters(fresh.to_parameters(encoding) | {"auto_version": 4})
    assert old.auto_version == 4 and old.direct_sets(encoding, 5000) == ()
    plan = old.plan(5000, encoding)
    assert plan.setting("initial share") == float(WORKLOAD_SHARE)
    groups = first_groups(encoding, True)
    assert len([r for r in plan.releases if r.kind == "oneway"]) == len(groups)
    assert plan.setting("algorithm").startswith("1-way marginals")
    model = AdaptiveMarginals(1.0, neighbours="add-remove", random_state=4, workload=WORKLOAD, **privacy).fit(
        frame(1500, 3), SCHEMA)
    model.released_.save(tmp_path / "m.json")
    assert load(tmp_path / "m.json").plan == model.released_.plan
    document = json.loads((tmp_path / "m.json").read_text())
    assert document["parameters"]["auto_version"] == (ZCDP_AUTO_VERSION if privacy else AUTO_VERSION)
    document["parameters"]["auto_version"] = 4
    (tmp_path / "v4.json").write_text(json.dumps(document))
    with pytest.raises(InputError):
        load(tmp_path / "v4.json")


@pytest.mark.parametrize("privacy", [{}, ZCDP])
def test_the_sets_are_measured_directly_only_when_each_is_theta_useful(privacy):
    """θ-usefulness (TODS 2017 §4.3) of each set at its planned share: n·ε_i ≥ θ·Δ·|Ω_i| (under zCDP ε_i = 2√ρ_i).
    The 45-cell triple decides here: the threshold n is found from the plan's own budgets, and one row fewer falls
    back to the selection among the closure (the first share of 1/4)."""
    encoding = AdaptiveSettings(1).encoding_for(SCHEMA)
    settings = AdaptiveSettings(Fraction(1, 10), neighbours="add-remove", workload=WORKLOAD, **privacy)
    plan = settings.plan(10**6, encoding)
    triple = next(r for r in plan.releases if r.kind == "oneway" and r.index == 0)
    epsilon = 2 * float(triple.rho) ** 0.5 if privacy else float(triple.epsilon)
    threshold = int(np.ceil(DIRECT_THETA * 45 / epsilon))
    assert settings.direct_sets(encoding, threshold) == ((1, 3, 5), (0, 2))
    assert settings.direct_sets(encoding, threshold - 1) == ()
    assert settings.plan(threshold - 1, encoding).setting("initial share") == float(WORKLOAD_SHARE)


def test_the_maximal_sets_of_the_largest_workload_are_found_in_linear_time():
    """4,096 sets (the cap) of up to 4 columns: each marks its subsets; a pairwise test would be 16 M comparisons."""
    import itertools

    sets = tuple((s, Fraction(1)) for s in itertools.islice(itertools.combinations(range(40), 3), 4096))
    assert direct_sets(sets, 4096) == tuple(s for s, _ in sets)  # 3-way sets: none inside another
    nested = sets[:100] + tuple(((s[0], s[1]), Fraction(1)) for s, _ in sets[:100])
    assert direct_sets(nested, 4096) == tuple(s for s, _ in sets[:100])


def test_sets_whose_junction_tree_is_above_the_model_cap_are_left_to_the_rounds():
    encoding = AdaptiveSettings(1).encoding_for(SCHEMA)
    assert AdaptiveSettings(Fraction(1), workload=WORKLOAD).direct_sets(encoding, 10**5) == ((1, 3, 5), (0, 2))
    capped = AdaptiveSettings(Fraction(1), workload=WORKLOAD, max_model_cells=44)  # the 45-cell triple's clique
    assert capped.direct_sets(encoding, 10**5) == ()
    assert AdaptiveSettings(Fraction(1), workload=WORKLOAD, max_model_cells=60).direct_sets(encoding, 10**5) != ()


def test_the_file_size_bound_holds_with_the_sets_measured_directly(tmp_path):
    """The cost estimate's model-file bound counts the first tables' cells (two 4,096-cell sets, not the 1-way
    tables' 8 cells each: with one round the 1-way count left the file above its bound)."""
    sizes = [8] * 6
    schema = categorical_schema(sizes)
    data = pd.DataFrame({f"a{j}": np.random.default_rng(j).integers(0, 8, 4000) for j in range(6)})
    workload = [["a0", "a1", "a2", "a3"], ["a2", "a3", "a4", "a5"]]
    estimator = AdaptiveMarginals(200.0, random_state=1, rounds=1, workload=workload)
    estimator.fit(data, schema)
    assert estimator.released_.plan.setting("first marginals") == "a0 × a1 × a2 × a3, a2 × a3 × a4 × a5"
    estimator.save(tmp_path / "m.json")
    bound = estimator.cost_estimate(estimator.released_.plan, schema).file_bytes
    assert os.path.getsize(tmp_path / "m.json") <= bound
