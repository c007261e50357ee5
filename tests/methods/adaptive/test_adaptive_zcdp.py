"""The adaptive method under zCDP (``privacy="zcdp"``): the plan priced in ρ, the ledger equal to it, the report's
(ε, δ) within the asked ones, model files that re-plan on load, and pure-ε files without the new keys."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from helpers import (
    ZCDP_SIZES,
    categorical_schema,
    check_rho_spent_as_planned,
    correlated_frame,
    write_zcdp_table,
    zcdp_fit,
)

import privbayes
from privbayes import AdaptiveMarginals, cli
from privbayes.core.errors import InputError
from privbayes.estimation.measurements import NoisyTable
from privbayes.methods.adaptive.zcdp import REPLACE_ONE_L2, selection_epsilon, selection_rho
from privbayes.privacy.mechanisms import discrete_gaussian_variance
from privbayes.privacy.zcdp import epsilon_for, rho_for


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_a_zcdp_fit_spends_its_rho_plan_exactly_and_reports_the_epsilon_within_the_asked(relation):
    model = zcdp_fit(AdaptiveMarginals, relation, delta=1e-6)
    plan, ledger = model.released_.plan, model.released_.record.ledger
    rho = rho_for(Fraction(1), Fraction(1, 10**6))
    check_rho_spent_as_planned(model, rho)
    report = model.privacy_report()
    assert report["privacy_definition"] == "zCDP" and report["rho_exact"] == str(rho)
    assert report["guarantee"].startswith(f"ρ-zCDP with ρ = {float(rho):.6g} ({relation} neighbours)")
    assert report["delta"] == 1e-6 and 0.99 < report["epsilon"] <= 1.0
    assert report["epsilon_spent"] <= 1.0
    gaussians = [e for e in ledger if e.mechanism == "discrete Gaussian"]
    selections = [e for e in ledger if e.mechanism == "exponential"]
    assert len(selections) == plan.setting("rounds") >= 1
    assert len(gaussians) + len(selections) == len(ledger)
    l2 = REPLACE_ONE_L2 if relation == "replace-one" else Fraction(1)
    assert {e.sensitivity for e in gaussians if e.step != "count n"} == {l2}
    assert REPLACE_ONE_L2**2 > 2
    assert (ledger[0].step == "count n") == (relation == "add-remove")


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_a_saved_zcdp_model_reloads_its_plan_and_samples(relation, tmp_path):
    model = zcdp_fit(AdaptiveMarginals, relation, delta=1e-6)
    path = tmp_path / "m.json"
    model.save(path)
    document = json.loads(path.read_text())
    assert document["parameters"]["privacy"] == "zcdp" and document["parameters"]["delta_exact"] == "1/1000000"
    loaded = privbayes.load(path)
    assert loaded.plan == model.released_.plan
    assert len(loaded.sample(50, random_state=1)) == 50
    document["ledger"][-1]["rho_exact"] = str(Fraction(document["ledger"][-1]["rho_exact"]) / 2)
    document["ledger"][-1]["rho"] /= 2
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match="ledger differs from the plan"):
        privbayes.load(path)
    document["ledger"][-1]["rho"] = "a lot"  # checked before anything converts it, like the ledger's ε
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match="ledger rho must be a finite number"):
        privbayes.load(path)


def test_rho_given_is_the_budget_and_the_report_states_epsilon_at_its_delta():
    model = zcdp_fit(AdaptiveMarginals, "add-remove", rho="1/100")
    report = model.privacy_report()
    assert model.released_.plan.total_rho == Fraction(1, 100)
    assert report["delta"] == 1e-9
    assert report["epsilon"] == pytest.approx(epsilon_for(Fraction(1, 100), 1e-9))


def test_pure_model_files_have_no_zcdp_keys(tmp_path):
    frame = correlated_frame(ZCDP_SIZES, 400, seed=1)
    model = AdaptiveMarginals(1.0, random_state=3).fit(frame, categorical_schema(ZCDP_SIZES))
    model.save(tmp_path / "m.json")
    params = json.loads((tmp_path / "m.json").read_text())["parameters"]
    assert not {"privacy", "delta", "delta_exact", "rho", "rho_exact"} & set(params)
    assert "privacy_definition" not in model.privacy_report()


@pytest.mark.parametrize("params, message", [
    ({"privacy": "zcdp"}, "needs delta"),
    ({"delta": 1e-9}, "apply to privacy 'zcdp' only"),
    ({"rho": 0.1}, "apply to privacy 'zcdp' only"),
    ({"privacy": "zcdp", "delta": 1.5}, "delta"),
    ({"privacy": "zcdp", "delta": 1e-9, "init": "network"}, "pure ε only"),
    ({"privacy": "zcdp", "delta": 1e-9, "rho": 0.1}, "give one"),
    ({"privacy": "renyi"}, "privacy"),
])
def test_bad_zcdp_parameters_are_one_line_errors(params, message):
    with pytest.raises(InputError, match=message):
        AdaptiveMarginals(1.0, **params).settings()


def test_zcdp_selects_with_the_exponential_mechanism_even_when_permute_and_flip_is_asked():
    settings = AdaptiveMarginals(1.0, privacy="zcdp", delta=1e-9, selection="permute-and-flip").settings()
    assert settings.selection == "exponential"
    assert settings.to_parameters()["selection"] == "exponential"


@pytest.mark.parametrize("budget", [Fraction(1, 3), Fraction(7, 10**9), Fraction(12345, 678)])
def test_a_selection_rho_is_exactly_eps_squared_over_8_and_within_its_budget(budget):
    rho = selection_rho(budget)
    assert rho <= budget and rho > budget * (1 - Fraction(1, 10**9))
    assert selection_epsilon(rho) ** 2 / 8 == rho


def test_a_gaussian_measurement_is_weighted_by_its_own_variance():
    table = NoisyTable(0, ((0, 0),), [1, 2, 3], Fraction(3), Fraction(1, 3))
    assert table.variance == discrete_gaussian_variance(Fraction(1, 3)) < 1 / 3
    assert NoisyTable(0, ((0, 0),), [1, 2, 3], Fraction(3), Fraction(9)).variance == 9


def test_cli_fits_under_zcdp(tmp_path, capsys):
    data, schema = write_zcdp_table(tmp_path)
    out = tmp_path / "m.json"
    assert cli.main(["fit", "--method", "adaptive", str(data), "--schema", str(schema), "--epsilon", "0.5",
                     "--privacy", "zcdp", "--delta", "1e-9", "--neighbours", "add-remove", "--seed", "2",
                     "-o", str(out)]) == 0
    assert "ρ spent" in capsys.readouterr().out  # the fit's line speaks in the guarantee's unit
    report = privbayes.load(out).privacy_report()
    assert report["rho_exact"] == str(rho_for(Fraction(1, 2), Fraction(1, 10**9)))
    assert report["epsilon"] <= 0.5


def test_a_planned_zcdp_measurement_is_the_gaussian_of_its_rho_and_its_penalty_is_sigma_root_2_over_pi():
    import math

    from privbayes.methods.adaptive.rounds import _measurer, _selector, noise_penalty
    from privbayes.privacy.plan import PlannedRelease

    measure = PlannedRelease("round 1/1: measure", "discrete Gaussian", Fraction(0), kind="measure", index=1,
                             sensitivity=REPLACE_ONE_L2, rho=Fraction(1, 50))
    gaussian = _measurer(measure, Fraction(2))
    assert gaussian.zcdp_cost() == Fraction(1, 50) and gaussian.sensitivity == REPLACE_ONE_L2
    assert gaussian.sigma2 == REPLACE_ONE_L2**2 * 25
    assert noise_penalty(gaussian) == pytest.approx(math.sqrt(float(gaussian.sigma2) * 2 / math.pi))
    select = PlannedRelease("round 1/1: select", "exponential", Fraction(0), kind="select", index=1,
                            sensitivity=Fraction(2), rho=selection_rho(Fraction(1, 200)))
    chosen = _selector(select, Fraction(2))
    assert chosen.name == "exponential" and chosen.zcdp_cost() == select.rho and chosen.sensitivity == 2


def test_a_workload_works_under_zcdp(tmp_path):
    model = zcdp_fit(AdaptiveMarginals, "add-remove", delta=1e-6, workload=[["a0", "a1", "a3"], ["a1", "a2"]])
    plan = model.released_.plan
    plan.check(model.released_.record.ledger)
    assert plan.setting("workload sets") == 2  # at this small signal, not measured directly: d rounds (version 7)
    assert plan.setting("rounds") == len(ZCDP_SIZES)
    model.save(tmp_path / "m.json")
    parameters = json.loads((tmp_path / "m.json").read_text())["parameters"]
    assert parameters["privacy"] == "zcdp" and len(parameters["workload"]) == 2
    assert privbayes.load(tmp_path / "m.json").plan == plan


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_version_6_zcdp_rules_and_a_version_5_file_recomputes_its_own_plan(relation):
    """auto_version 6 under zCDP: each round's selection gets half of select_share, the 1-way start 2/5 of ρ (scaled
    above the large signal as before), the plan carries the score's penalty scale 1/2; the plan still spends ρ
    exactly.  A version-5 file recomputes version 5's plan (select share 1/5, 11/20 below the small signal, no
    penalty scale), and pure-ε plans are version 5's."""
    from privbayes.methods.adaptive.settings import (
        SMALL_SIGNAL,
        SMALL_SIGNAL_SHARE,
        ZCDP_FIRST_SHARE,
        AdaptiveSettings,
        large_signal_share,
    )

    settings = AdaptiveSettings(1, neighbours=relation, privacy="zcdp", delta=1e-9, auto_version=6)
    old = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 5})
    encoding = settings.encoding_for(categorical_schema(ZCDP_SIZES))
    assert settings.zcdp_rules and not old.zcdp_rules
    for n in (400, 10**4, 10**5, 10**7):
        plan, before, signal = settings.plan(n, encoding), old.plan(n, encoding), settings.signal(n)
        assert plan.setting("select share") == 0.1 and before.setting("select share") == 0.2
        assert plan.setting("penalty scale") == 0.5 and before.setting("penalty scale") is None
        assert plan.setting("initial share") == float(large_signal_share(ZCDP_FIRST_SHARE, signal))
        assert before.setting("initial share") == float(large_signal_share(
            SMALL_SIGNAL_SHARE if signal < SMALL_SIGNAL else Fraction(1, 2), signal))
        selects = [r for r in plan.releases if r.kind == "select"]
        measures = [r for r in plan.releases if r.kind == "measure"]
        assert all(s.rho == selection_rho((s.rho + m.rho) / 10) for s, m in zip(selects, measures))
        assert plan.total_rho == before.total_rho == sum(r.rho for r in plan.releases)
        assert plan != before
        pure = AdaptiveSettings(1, neighbours=relation)
        pure_old = AdaptiveSettings.from_parameters(pure.to_parameters() | {"auto_version": 5})
        if n <= 10**4:  # below the large signal (pure ε's own version-6 rules are above it)
            assert pure.plan(n, encoding) == pure_old.plan(n, encoding) and not pure.zcdp_rules
    binary = settings.encoding_for(categorical_schema([2, 2, 2, 2]))
    assert settings.plan(400, binary).setting("initial share") == 0.3  # binary data keeps its share


def test_version_6_zcdp_refits_are_short_and_start_matched_and_the_fit_reads_the_penalty_scale(monkeypatch):
    """Under the zCDP rules every re-fit starts matched and runs ZCDP_ROUND_ITERATIONS steps (pure ε and version 5
    as before); the rounds score candidates with the plan's penalty scale times σ·√(2/π)·|Ω|."""
    from privbayes.methods.adaptive import rounds
    from privbayes.methods.adaptive.settings import LARGE_SIGNAL

    assert rounds.refits_for(10.0, True) == rounds.Refits(rounds.ZCDP_ROUND_ITERATIONS, matched=True)
    assert rounds.refits_for(10.0) == rounds.Refits() and rounds.refits_for(2.0 * LARGE_SIGNAL).matched
    seen: list[float] = []
    quality = rounds.quality
    monkeypatch.setattr(rounds, "quality", lambda exact, model, weight, penalty: seen.append(penalty) or quality(
        exact, model, weight, penalty))
    model = zcdp_fit(AdaptiveMarginals, "add-remove", delta=1e-6, rounds=1)
    plan = model.released_.plan
    measure = next(r for r in plan.releases if r.kind == "measure")
    full = rounds.noise_penalty(rounds._measurer(measure, Fraction(1)))
    assert plan.setting("penalty scale") == 0.5 and seen
    assert seen == pytest.approx([0.5 * full] * len(seen))


def test_the_cost_of_version_6_zcdp_refits_is_half_of_version_5s():
    """The cost model prices the zCDP rules' re-fits (half the mirror-descent steps) at half the re-fit term of the same
    plan under version 5; the other terms are the same."""
    from privbayes.methods.adaptive.cost import adaptive_cost
    from privbayes.methods.adaptive.settings import AdaptiveSettings

    settings = AdaptiveSettings(1, neighbours="add-remove", privacy="zcdp", delta=1e-9)
    old = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 5})
    encoding = settings.encoding_for(categorical_schema(ZCDP_SIZES))
    plan = settings.plan(10**4, encoding)
    new_work, old_work = (adaptive_cost(s, plan, encoding).work for s in (settings, old))
    assert new_work["round_model2"] == pytest.approx(old_work["round_model2"] / 2) and old_work["round_model2"] > 0
    assert {k: v for k, v in new_work.items() if k != "round_model2"} == {
        k: v for k, v in old_work.items() if k != "round_model2"}


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_version_7_gives_d_rounds_and_half_of_rho_first_where_the_rule_gives_fewer(relation):
    """auto_version 7 (a new zCDP fit's; pure-ε fits stay at 6 and refuse 7): where the rounds rule gives fewer
    rounds than attributes, T = d and the 1-way start gets 1/2 of ρ; above the small signal the first share falls as
    √(SMALL_SIGNAL / signal); between the two the plan is version 6's.  A version-6 file recomputes version 6's plan;
    ``rounds`` given is kept; a workload not measured directly gets d rounds and keeps its share, one measured
    directly keeps version 6's plan; the plan still spends ρ exactly."""
    from privbayes.methods.adaptive.settings import (
        SMALL_SIGNAL,
        ZCDP_AUTO_VERSION,
        ZCDP_FEW_SHARE,
        ZCDP_FIRST_SHARE,
        AdaptiveSettings,
        large_signal_share,
    )

    settings = AdaptiveSettings(Fraction(1, 10), neighbours=relation, privacy="zcdp", delta=1e-9, auto_version=7)
    old = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 6})
    assert settings.to_parameters()["auto_version"] == 7 < ZCDP_AUTO_VERSION
    encoding = settings.encoding_for(categorical_schema(ZCDP_SIZES))
    d = len(ZCDP_SIZES)
    few, middle, large = 2000, 50_000, 10**7
    plan, before = settings.plan(few, encoding), old.plan(few, encoding)
    assert before.setting("rounds") < d == plan.setting("rounds")
    assert plan.setting("initial share") == float(ZCDP_FEW_SHARE) and before.setting("initial share") == float(
        ZCDP_FIRST_SHARE)
    assert plan.total_rho == before.total_rho == sum(r.rho for r in plan.releases)
    assert settings.signal(middle) < SMALL_SIGNAL and old.plan(middle, encoding).setting("rounds") >= d
    assert settings.plan(middle, encoding) == old.plan(middle, encoding)
    signal = settings.signal(large)
    plan, before = settings.plan(large, encoding), old.plan(large, encoding)
    assert before.setting("initial share") == float(large_signal_share(ZCDP_FIRST_SHARE, signal))
    assert plan.setting("initial share") == pytest.approx(0.4 * math.sqrt(SMALL_SIGNAL / signal), abs=1e-4)
    assert plan.setting("initial share") < before.setting("initial share")
    assert plan.total_rho == sum(r.rho for r in plan.releases)
    given = AdaptiveSettings(Fraction(1, 10), neighbours=relation, privacy="zcdp", delta=1e-9, rounds=3)
    assert given.plan(few, encoding).setting("rounds") == 3
    assert given.plan(few, encoding).setting("initial share") == float(ZCDP_FIRST_SHARE)
    workload = AdaptiveSettings(Fraction(1, 10), neighbours=relation, privacy="zcdp", delta=1e-9, auto_version=7,
                                workload=[["a0", "a1"], ["a1", "a2"], ["a2", "a3"]])
    workload_v6 = AdaptiveSettings.from_parameters(workload.to_parameters(encoding) | {"auto_version": 6})
    assert not workload.direct_sets(encoding, few)  # a workload whose sets are not measured directly: d rounds,
    plan, before = workload.plan(few, encoding), workload_v6.plan(few, encoding)  # its own first share kept
    assert before.setting("rounds") <= 3 < d == plan.setting("rounds")
    assert plan.setting("initial share") == before.setting("initial share")
    assert plan.total_rho == sum(r.rho for r in plan.releases)
    assert workload.direct_sets(encoding, large)  # measured directly: version 6's plan
    assert workload.plan(large, encoding) == workload_v6.plan(large, encoding)
    assert AdaptiveSettings(1, neighbours=relation).auto_version == 6
    with pytest.raises(InputError, match="^auto_version \\(7\\) is zCDP only"):
        AdaptiveSettings(1, neighbours=relation, auto_version=7)


@pytest.mark.parametrize(("relation", "between"), [("replace-one", 6000), ("add-remove", 3000)])
def test_version_8_caps_the_zcdp_rounds_at_three_per_attribute(relation, between):
    """auto_version 8 (a new zCDP fit's): where the zCDP rounds rule asks for more than 2·d rounds, T is the rule's,
    at most 3·d, where version 7 stopped at 2·d; below 2·d the plans are version 7's; ``rounds`` given is kept; the
    plan still spends ρ exactly, and version 7 stays a valid zCDP version."""
    from privbayes.methods.adaptive.settings import (
        MAX_ROUNDS_PER_ATTRIBUTE,
        ZCDP_AUTO_VERSION,
        ZCDP_CAP_VERSION,
        ZCDP_ROUNDS_PER_ATTRIBUTE,
        AdaptiveSettings,
        zcdp_rounds_rule,
    )

    settings = AdaptiveSettings(Fraction(8, 5), neighbours=relation, privacy="zcdp", delta=1e-9, auto_version=8)
    v7 = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 7})
    assert ZCDP_AUTO_VERSION > ZCDP_CAP_VERSION == 8
    assert (MAX_ROUNDS_PER_ATTRIBUTE, ZCDP_ROUNDS_PER_ATTRIBUTE) == (2, 3)
    encoding = settings.encoding_for(categorical_schema(ZCDP_SIZES))
    d = len(ZCDP_SIZES)
    below, above = 400, 10**6  # the rule below 2·d and above 3·d (``between``: between the two)

    def rule(s: AdaptiveSettings, n: int) -> float:
        plan = s.plan(n, encoding)
        rounds_rho = sum(r.rho for r in plan.releases if r.kind not in ("count", "oneway"))
        return zcdp_rounds_rule(s, n, rounds_rho)

    assert rule(settings, below) < 2 * d
    assert settings.plan(below, encoding) == v7.plan(below, encoding)
    assert 2 * d < rule(settings, between) < 3 * d
    assert settings.plan(between, encoding).setting("rounds") == round(rule(settings, between)) > 2 * d
    assert v7.plan(between, encoding).setting("rounds") == 2 * d
    assert rule(settings, above) > 3 * d
    plan = settings.plan(above, encoding)
    assert plan.setting("rounds") == 3 * d and v7.plan(above, encoding).setting("rounds") == 2 * d
    assert plan.total_rho == sum(r.rho for r in plan.releases)
    given = AdaptiveSettings(Fraction(8, 5), neighbours=relation, privacy="zcdp", delta=1e-9, rounds=5)
    assert given.plan(above, encoding).setting("rounds") == 5
    with pytest.raises(InputError, match="^auto_version \\(8\\) is zCDP only"):
        AdaptiveSettings(1, neighbours=relation, auto_version=8)


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_version_9_gives_every_zcdp_round_the_same_rho(relation):
    """auto_version 9 (a new zCDP fit's): the rounds' measurements and selections get equal ρ where version 8's rose
    4 times from the first round to the last; every other release, the rounds' number and their total are version 8's;
    the stored ``ramp`` (pure ε's, and version 8's) is unchanged, so a version-8 file still rises, and pure-ε plans
    keep their ramp; the plan spends ρ exactly."""
    from privbayes.methods.adaptive.parameters import RAMP
    from privbayes.methods.adaptive.settings import ZCDP_AUTO_VERSION, ZCDP_FLAT_VERSION, AdaptiveSettings

    settings = AdaptiveSettings(Fraction(8, 5), neighbours=relation, privacy="zcdp", delta=1e-9)
    v8 = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 8})
    assert settings.auto_version == ZCDP_AUTO_VERSION == ZCDP_FLAT_VERSION == 9
    assert settings.to_parameters()["ramp_exact"] == str(RAMP) == "4"
    encoding = settings.encoding_for(categorical_schema(ZCDP_SIZES))

    def round_rho(plan):  # each round's selection + measurement: the round's budget
        return [sum(r.rho for r in plan.releases if r.index == t and r.kind in ("select", "measure"))
                for t in range(1, plan.setting("rounds") + 1)]

    for n in (400, 3000, 10**6):
        plan, before = settings.plan(n, encoding), v8.plan(n, encoding)
        assert plan.setting("rounds") == before.setting("rounds") > 1
        assert (plan.setting("last round over first"), before.setting("last round over first")) == (1, 4)
        now, then = round_rho(plan), round_rho(before)
        assert len(set(now)) == 1 and sum(now) == sum(then) and then[-1] == 4 * then[0]
        assert len({r.rho for r in plan.releases if r.kind == "measure"}) == 1
        assert [r for r in plan.releases if r.kind not in ("select", "measure")] == \
            [r for r in before.releases if r.kind not in ("select", "measure")]
        assert plan.total_rho == sum(r.rho for r in plan.releases) == before.total_rho
    pure = AdaptiveSettings(Fraction(8, 5), neighbours=relation)
    budgets = [r.epsilon for r in pure.plan(10**6, encoding).releases if r.kind == "measure"]
    assert pure.ramp_for() == RAMP and budgets[-1] == RAMP * budgets[0]


def test_a_zcdp_file_reloads_its_plan_and_an_earlier_version_its_own(tmp_path):
    """A fit at few rounds writes the latest zCDP auto_version and reloads its plan; the same file marked version 8
    (rising rounds) or 6 (fewer rounds) re-plans that version, which its ledger does not match, so it is refused."""
    from privbayes.methods.adaptive.settings import ZCDP_AUTO_VERSION

    model = zcdp_fit(AdaptiveMarginals, "add-remove", delta=1e-9)
    plan = model.released_.plan
    path = tmp_path / "m.json"
    model.save(path)
    document = json.loads(path.read_text())
    assert document["parameters"]["auto_version"] == ZCDP_AUTO_VERSION and plan.setting("rounds") == len(ZCDP_SIZES)
    assert privbayes.load(path).plan == plan
    for version in (8, 6):
        document["parameters"]["auto_version"] = version
        (tmp_path / f"v{version}.json").write_text(json.dumps(document))
        with pytest.raises(InputError, match="ledger differs from the plan"):
            privbayes.load(tmp_path / f"v{version}.json")
