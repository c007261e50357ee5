"""PrivBayes under zCDP (``privacy="zcdp"``; docs/decisions.md, "zCDP for PrivBayes"): the plan priced in ρ and
equal to the ledger under both relations, the Gaussian tables' L2 sensitivity, θ-usefulness at the Gaussian's
noise, the report's (ε, δ), model files that re-plan on load, the settings' one-line refusals and the command
line's flags."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import (
    ZCDP_SIZES,
    categorical_schema,
    check_rho_spent_as_planned,
    correlated_frame,
    run_cli,
    write_zcdp_table,
    zcdp_fit,
)

import privbayes
from privbayes import PrivBayes, cli
from privbayes.audit.distinguish import binary_schema
from privbayes.core.errors import InputError
from privbayes.methods.privbayes.settings import (
    PrivBayesSettings,
    laplace_epsilon,
    usefulness_epsilon,
    zcdp_degree,
)
from privbayes.privacy.mechanisms import COUNT_SHARE
from privbayes.privacy.neighbours import ADD_REMOVE, REPLACE_ONE
from privbayes.privacy.zcdp import epsilon_for, rho_for
from privbayes.privacy.zcdp_mechanisms import REPLACE_ONE_L2, selection_epsilon
from privbayes.schema.encoding import Encoding


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_a_zcdp_fit_spends_its_rho_plan_exactly(relation):
    model = zcdp_fit(PrivBayes, relation, delta=1e-6)
    ledger = model.released_.record.ledger
    rho = rho_for(Fraction(1), Fraction(1, 10**6))
    check_rho_spent_as_planned(model, rho)
    d = len(ZCDP_SIZES)
    steps = [e for e in ledger if e.mechanism == "exponential"]
    tables = [e for e in ledger if e.mechanism == "discrete Gaussian" and e.step != "count n"]
    assert [e.step for e in steps] == [f"network step {s}/{d - 1}" for s in range(1, d)]
    assert len(tables) == d and len({e.rho for e in tables}) == 1  # the tables' ρ split evenly
    assert len({e.rho for e in steps}) == 1 and selection_epsilon(steps[0].rho) ** 2 / 8 == steps[0].rho
    count = rho * COUNT_SHARE if relation == "add-remove" else 0
    assert float(sum(e.rho for e in steps)) == pytest.approx(0.2 * float(rho - count), rel=1e-9)  # β of the rest
    assert model.released_.plan.setting("beta") == 0.2  # zCDP's default β (pure ε: 0.3)
    l2 = REPLACE_ONE_L2 if relation == "replace-one" else Fraction(1)
    assert {e.sensitivity for e in tables} == {l2} and REPLACE_ONE_L2**2 > 2
    assert (ledger[0].step == "count n") == (relation == "add-remove")
    if relation == "add-remove":
        assert ledger[0].rho == count and ledger[0].mechanism == "discrete Gaussian"
    report = model.privacy_report()
    assert report["privacy_definition"] == "zCDP" and report["rho_exact"] == str(rho)
    assert report["guarantee"].startswith(f"ρ-zCDP with ρ = {float(rho):.6g} ({relation} neighbours)")
    assert report["delta"] == 1e-6 and 0.99 < report["epsilon"] <= 1.0
    assert "discrete-Gaussian" in report["mechanism"]


def test_binary_data_take_a_fixed_degree_and_the_plan_still_equals_the_ledger():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.integers(0, 2, size=(2000, 6)), columns=list("abcdef"))
    frame["b"] = frame["a"]
    model = PrivBayes(2.0, privacy="zcdp", delta=1e-6, random_state=3).fit(frame, binary_schema("abcdef"))
    plan = model.released_.plan
    plan.check(model.released_.record.ledger)
    k = plan.setting("degree")
    assert k is not None and k >= 1
    assert len([r for r in plan.releases if r.kind == "table"]) == 6 - k  # Alg. 1: tables k+1..d


def test_theta_usefulness_reads_the_gaussian_tables_standard_deviation():
    # A Gaussian table at ρ has σ = Δ₂/√(2ρ); the discrete Laplace table of the same standard deviation has ε with
    # √2·Δ/ε = σ.  θ-usefulness then sees that ε, d tables of it.
    for relation, l2 in ((ADD_REMOVE, Fraction(1)), (REPLACE_ONE, REPLACE_ONE_L2)):
        rho = Fraction(1, 50)
        sigma = float(l2) / (2 * float(rho)) ** 0.5
        epsilon = float(laplace_epsilon(rho, relation))
        assert 2**0.5 * float(relation.count_sensitivity) / epsilon == pytest.approx(sigma, rel=1e-12)
        assert float(usefulness_epsilon(rho * 5, 5, relation)) == pytest.approx(5 * epsilon, rel=1e-12)
    # Lemma 4.8 at the Gaussian's noise: more ρ, a larger degree; the degree falls when the tables' ρ does.
    encoding = Encoding.build(binary_schema("abcdefgh"), "vanilla")
    degrees = [zcdp_degree(1000, encoding, Fraction(rho), 4.0, None, ADD_REMOVE) for rho in ("1/10000", "1/100", "1")]
    # ρ = 1: k = 7 has one table at ε_t = 2√1 = 2, n·ε_t/2^(k+1) = 7.8 ≥ θ; ρ = 10⁻⁴: k = 1 has 7 tables at
    # ε_t = 2√(10⁻⁴/7) ≈ 0.0076, n·ε_t/4 ≈ 1.9 < θ, so no degree is useful.
    assert degrees[0] == 0 and degrees[-1] == 7 and degrees == sorted(degrees)


def test_the_settings_usefulness_epsilon_is_that_of_the_planned_tables():
    settings = PrivBayesSettings(1.0, privacy="zcdp", rho="1/100", neighbours="add-remove")
    plan = settings.plan(5000, Encoding.build(categorical_schema([10] * 5), "vanilla"))
    tables = sum(r.rho for r in plan.releases if r.kind == "table")
    assert settings.usefulness_epsilon(5) == usefulness_epsilon(tables, 5, ADD_REMOVE)
    assert plan.setting("usefulness epsilon2") == float(settings.usefulness_epsilon(5))
    pure = PrivBayesSettings(1.0, neighbours="add-remove")
    assert pure.usefulness_epsilon(5) == pure.phase_budgets()[1]  # pure ε: the tables' ε2, as before


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_a_saved_zcdp_model_reloads_its_plan_and_samples(relation, tmp_path):
    model = zcdp_fit(PrivBayes, relation, delta=1e-6)
    path = tmp_path / "m.json"
    model.save(path)
    original = path.read_text()
    document = json.loads(original)
    assert document["parameters"]["privacy"] == "zcdp" and document["parameters"]["delta_exact"] == "1/1000000"
    assert document["parameters"]["rho"] is None
    loaded = privbayes.load(path)
    assert loaded.plan == model.released_.plan
    assert loaded.privacy_report()["rho_exact"] == model.privacy_report()["rho_exact"]
    assert len(loaded.sample(50, random_state=1)) == 50
    document["ledger"][-1]["rho_exact"] = str(Fraction(document["ledger"][-1]["rho_exact"]) / 2)
    document["ledger"][-1]["rho"] /= 2
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match="ledger differs from the plan"):
        privbayes.load(path)
    document = json.loads(original)
    for key in ("delta", "delta_exact"):  # a zCDP file that names no budget is refused, not read as pure ε
        document["parameters"][key] = None
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match="privacy 'zcdp' needs delta"):
        privbayes.load(path)


def test_pure_model_files_have_no_zcdp_keys_and_the_papers_beta(tmp_path):
    frame = correlated_frame(ZCDP_SIZES, 400, seed=1)
    PrivBayes(1.0, random_state=3).fit(frame, categorical_schema(ZCDP_SIZES)).save(tmp_path / "m.json")
    parameters = json.loads((tmp_path / "m.json").read_text())["parameters"]
    assert not {"privacy", "delta", "delta_exact", "rho", "rho_exact"} & set(parameters)
    assert parameters["beta_exact"] == "3/10"
    assert PrivBayes(1.0, privacy="zcdp", delta=1e-9, beta=0.3).settings().beta == Fraction(3, 10)  # given: kept


def test_rho_given_is_the_budget_and_the_report_states_epsilon_at_its_delta():
    model = zcdp_fit(PrivBayes, "add-remove", rho="1/100")
    report = model.privacy_report()
    assert model.released_.plan.total_rho == Fraction(1, 100) == sum(e.rho for e in model.released_.record.ledger)
    assert report["delta"] == 1e-9
    assert report["epsilon"] == pytest.approx(epsilon_for(Fraction(1, 100), 1e-9))


@pytest.mark.parametrize("params, message", [
    ({"delta": 1e-9}, "delta and rho apply to privacy 'zcdp' only"),
    ({"rho": 0.1}, "delta and rho apply to privacy 'zcdp' only"),
    ({"privacy": "zcdp"}, "privacy 'zcdp' needs delta"),
    ({"privacy": "zcdp", "delta": 1e-9, "rho": 0.1}, "delta and rho: give one"),
    ({"privacy": "zcdp", "delta": 1.5}, r"delta \(1.5\) must be in \(0, 1\)"),
    ({"privacy": "zcdp", "rho": -1}, r"rho \(-1\) must be in"),
    ({"privacy": "zcdp", "delta": 1e-9, "non_private_phase": "network"}, "non_private_phase is an analysis of pure"),
    ({"privacy": "approximate"}, "privacy"),
])
def test_settings_refuse_in_one_line(params, message):
    with pytest.raises(InputError, match=message) as caught:
        PrivBayes(1.0, **params).settings()
    assert "\n" not in str(caught.value)


def test_the_command_line_fits_under_zcdp_and_prints_rho(tmp_path, capsys):
    data, schema = write_zcdp_table(tmp_path)
    out = tmp_path / "m.json"
    assert cli.main(["fit", "--method", "privbayes", str(data), "--schema", str(schema), "--epsilon", "1",
                     "--privacy", "zcdp", "--delta", "1e-6", "--neighbours", "add-remove", "--seed", "1",
                     "-o", str(out)]) == 0
    assert "ρ spent" in capsys.readouterr().out  # the fit's line speaks in the guarantee's unit
    report = privbayes.load(out).privacy_report()
    assert report["rho_exact"] == str(rho_for(Fraction(1), Fraction(1, 10**6))) and report["epsilon"] <= 1
    code, text = run_cli(["fit", "--method", "privbayes", str(data), "--schema", str(schema), "--delta", "1e-6",
                          "-o", str(tmp_path / "n.json")], capsys)
    assert code != 0 and "delta and rho apply to privacy 'zcdp' only" in text and "Traceback" not in text
    assert not (tmp_path / "n.json").exists()
