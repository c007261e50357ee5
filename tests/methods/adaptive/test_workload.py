"""A steward's workload for the adaptive method: parsing and refusals, AIM's candidates and weights, the plan and
ledger unchanged, selection toward the workload, model files and the command line."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema

from privbayes import AdaptiveMarginals
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.evaluation import workload_tvd
from privbayes.methods.adaptive.candidates import Candidate, set_weights, workload_candidates
from privbayes.methods.adaptive.settings import BINARY_SHARE, LARGE_SIGNAL, AdaptiveSettings, large_signal_share
from privbayes.methods.adaptive.workload import MAX_SET_SIZE, MAX_SETS, WORKLOAD_SHARE, parse_workload
from privbayes.schema.files import save_schema
from privbayes.synthesizers.registry import load

NAMES = ["a0", "a1", "a2", "a3"]


def xor_frame(n: int, seed: int) -> pd.DataFrame:
    """Six 3-valued columns; a5 = a1 + a3 (mod 3) for 90 % of the rows: a 3-way relation that every 2-way
    marginal of (a1, a3, a5) hides (each pair is near uniform)."""
    rng = np.random.default_rng(seed)
    columns = {f"a{j}": rng.integers(0, 3, n) for j in range(6)}
    columns["a5"] = np.where(rng.random(n) < 0.9, (columns["a1"] + columns["a3"]) % 3, columns["a5"])
    return pd.DataFrame(columns)


SCHEMA6 = categorical_schema([3] * 6)


# --- parsing ------------------------------------------------------------------------------------------------

def test_items_shorthands_and_weights_resolve_to_sets_with_added_weights():
    workload = parse_workload([["a2", "a0"], {"attributes": ["a0", "a2"], "weight": 2}, {"all": 2, "weight": 0.5},
                               {"containing": "a3", "size": 3}])
    sets = dict(workload.resolve(NAMES))
    pairs = {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}
    triples_with_a3 = {(0, 1, 3), (0, 2, 3), (1, 2, 3)}
    assert set(sets) == pairs | triples_with_a3
    assert sets[(0, 2)] == 1 + 2 + Fraction(1, 2)  # listed twice and in all 2-way sets: the weights add
    assert sets[(1, 3)] == Fraction(1, 2) and all(sets[t] == 1 for t in triples_with_a3)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_workload_files_in_yaml_and_json(tmp_path, suffix):
    items = [["a0", "a1"], {"attributes": ["a2", "a3"], "weight": 3}]
    path = tmp_path / f"w{suffix}"
    path.write_text(json.dumps(items) if suffix == ".json" else "- [a0, a1]\n- {attributes: [a2, a3], weight: 3}\n")
    assert parse_workload(str(path)).resolve(NAMES) == (((0, 1), Fraction(1)), ((2, 3), Fraction(3)))


@pytest.mark.parametrize("item, message", [
    (["a0", "nope"], "item 2: column 'nope' is not in the schema"),
    ([], "item 2 is an empty attribute set"),
    (["a0", "a1", "a2", "a3", "a4"], f"item 2 has 5 attributes; a workload set has at most {MAX_SET_SIZE}"),
    ({"attributes": ["a0"], "weight": 0}, "item 2: weight must be positive"),
    ({"attributes": ["a0"], "weight": -1}, "item 2: weight must be positive"),
    ({"attributes": ["a0"], "weight": True}, "item 2: weight must be a positive number"),
    ({"attributes": ["a0"], "size": 2}, "item 2 has keys"),
    ({"containing": "a0"}, "item 2 has keys"),
    ({"all": 9}, f"item 2: all must be an integer from 1 to {MAX_SET_SIZE}"),
    ({"containing": "zz", "size": 2}, "item 2: column 'zz' is not in the schema"),
    (["a0", "a0"], "item 2 names a column twice"),
    (7, "item 2 must be a list of column names"),
])
def test_bad_items_are_one_line_errors_naming_the_file_and_item(tmp_path, item, message):
    path = tmp_path / "w.json"
    path.write_text(json.dumps([["a0"], item]))
    with pytest.raises(InputError) as caught:
        parse_workload(str(path)).resolve(NAMES)
    assert str(caught.value).startswith(f"{path}: {message}")
    assert "\n" not in str(caught.value)


def test_sizes_are_capped_before_the_sets_are_expanded(tmp_path):
    names = [f"c{j}" for j in range(100)]  # C(100, 3) = 161,700 sets
    with pytest.raises(InputError, match=f"item 1: the workload expands to more than {MAX_SETS:,}"):
        parse_workload([{"all": 3}]).resolve(names)
    with pytest.raises(InputError, match="more than 4,096 items"):
        parse_workload([["c0"]] * 4097)
    with pytest.raises(InputError, match="non-empty list"):
        parse_workload([])
    (tmp_path / "w.yaml").write_text("- &x [a0]\n- *x\n")
    with pytest.raises(InputError, match="anchors or aliases"):
        parse_workload(str(tmp_path / "w.yaml"))
    with pytest.raises(InputError, match="no such workload file"):
        parse_workload(str(tmp_path / "missing.yaml"))


def test_a_set_above_the_table_cap_is_refused():
    from privbayes.core.limits import configure, limits

    before = limits().max_table_cells
    configure(max_table_cells=20)
    try:
        with pytest.raises(InputError, match=r"item 1: the marginal over a0 × a1 × a2 has more than 20 cells"):
            parse_workload([["a0", "a1", "a2"]]).resolve(NAMES, [3, 3, 3, 3])
    finally:
        configure(max_table_cells=before)


# --- AIM's candidates and weights -----------------------------------------------------------------------------

def test_candidates_are_the_downward_closure_and_weights_aims_overlaps():
    sets = (((0, 1, 2), Fraction(1)), ((2, 3), Fraction(2)))
    candidates = workload_candidates(sets)
    assert [c.attributes for c in candidates] == [(0,), (1,), (2,), (3,), (0, 1), (0, 2), (1, 2), (2, 3), (0, 1, 2)]
    weights = dict(zip(candidates, set_weights(candidates, sets)))
    # w_r = Σ_q c_q·|r ∩ q|, by hand, then scaled by the largest (r = {0, 1, 2}: 1·3 + 2·1 = 5; {2, 3}: 1 + 4 = 5)
    raw = {r: sum(w * len(set(r) & set(q)) for q, w in sets) for r in [c.attributes for c in candidates]}
    assert max(raw.values()) == 5
    assert all(weights[Candidate(r, (0,) * len(r))] == Fraction(v, 5) for r, v in raw.items())


def test_the_weights_keep_the_selections_sensitivity_over_random_workloads():
    """The score's sensitivity is max w·Δ: the weights must reach 1 and never exceed it (weights above 1 were a
    mutant the score test kills: docs/privacy-assurance.md)."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        count = int(rng.integers(1, 9))
        sets = tuple((tuple(sorted(rng.choice(8, size=int(rng.integers(1, 5)), replace=False).tolist())),
                      Fraction(int(rng.integers(1, 100)), int(rng.integers(1, 10)))) for _ in range(count))
        weights = set_weights(workload_candidates(sets), sets)
        assert max(weights) == 1 and min(weights) > 0


def test_candidates_covered_by_a_measured_set_are_left_out_unless_all_are():
    from privbayes.methods.adaptive.rounds import _uncovered

    candidates = list(workload_candidates((((0, 1, 2), Fraction(1)),)))
    kept = _uncovered(candidates, [(0, 1), (3,)])
    # (0,) and (1,) lie inside (0, 1); (0, 1) itself may be measured again (a later round has more budget)
    assert [c.attributes for c in kept] == [(2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]
    assert _uncovered(candidates[:2], [(0, 1)]) == candidates[:2]  # nothing left: the selection keeps them all


# --- settings, plan and ledger --------------------------------------------------------------------------------

def test_a_workload_and_a_marginal_degree_are_refused_together():
    with pytest.raises(InputError, match="^marginal_degree and workload: give one"):
        AdaptiveMarginals(1.0, marginal_degree=2, workload=[["a0"]]).settings()


def test_an_unknown_column_is_refused_before_the_data_is_counted():
    frame = xor_frame(200, 0)
    for relation in ("replace-one", "add-remove"):
        with pytest.raises(InputError, match="^workload: item 1: column 'x' is not in the schema$"):
            AdaptiveMarginals(1.0, neighbours=relation, workload=[["x"]]).fit(frame, SCHEMA6)


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_the_plan_and_ledger_are_those_without_a_workload_for_the_same_rounds_and_first_share(relation):
    """For a workload of more maximal sets than the rounds cap (13 > 2·d here: none measured directly) the weights
    steer the selections only: the plan is the one without a workload."""
    frame = xor_frame(1500, 1)
    workload = [["a1", "a3", "a5"], {"all": 2, "weight": 2}]
    plain = AdaptiveMarginals(1.0, neighbours=relation, rounds=5, initial_share=0.3, random_state=3).fit(
        frame, SCHEMA6).released_
    steered = AdaptiveMarginals(1.0, neighbours=relation, rounds=5, initial_share=0.3, random_state=3,
                                workload=workload).fit(frame, SCHEMA6).released_
    assert plain.plan.releases == steered.plan.releases
    assert [(e.step, e.mechanism, e.epsilon, e.sensitivity) for e in plain.ledger] == \
        [(e.step, e.mechanism, e.epsilon, e.sensitivity) for e in steered.ledger]
    steered.plan.check(steered.ledger)
    assert steered.plan.setting("workload sets") == 16 and "workload sets" not in dict(plain.plan.settings)


def test_the_rounds_rule_gives_at_most_one_round_per_workload_set():
    settings = AdaptiveSettings(Fraction(8), workload=[["a1", "a3", "a5"], ["a0", "a2"], ["a4"]])
    encoding = settings.encoding_for(SCHEMA6)
    assert AdaptiveSettings(Fraction(8)).plan(10**4, encoding).setting("rounds") == 12  # the rule: 2·d (signal 40,000)
    assert settings.plan(10**5, encoding).setting("rounds") == 3
    assert AdaptiveSettings(Fraction(8), rounds=7, workload=[["a0"]]).plan(10**5, encoding).setting("rounds") == 7


@pytest.mark.parametrize("privacy", [{}, {"privacy": "zcdp", "delta": Fraction(1, 10**9)}])
def test_the_automatic_first_share_with_a_workload_is_a_quarter(privacy):
    """1/4 (WORKLOAD_SHARE) instead of 1/2 (11/20 at a small signal), in both definitions, and scaled down above a
    large signal as without a workload; a given initial_share and binary data keep their rules.  A workload of more
    maximal sets than the rounds cap (the 15 pairs of 6 columns > 2·d), whose sets are not measured directly (those
    are tests/methods/adaptive/test_workload_direct.py's)."""
    encoding = AdaptiveSettings(Fraction(1)).encoding_for(SCHEMA6)
    workload = [{"all": 2}]
    shares = set()
    for n in (2000, 10**4):  # signals below LARGE_SIGNAL, on both sides of SMALL_SIGNAL under pure ε
        plain = AdaptiveSettings(Fraction(1), neighbours="add-remove", **privacy).plan(n, encoding)
        steered = AdaptiveSettings(Fraction(1), neighbours="add-remove", workload=workload, **privacy).plan(n, encoding)
        shares.add(plain.setting("initial share"))
        assert steered.setting("initial share") == WORKLOAD_SHARE
    assert shares == ({0.4} if privacy else {0.5, 0.55})  # zCDP (version 6): ZCDP_FIRST_SHARE at both
    large = AdaptiveSettings(Fraction(1), workload=workload, **privacy)
    assert large.share_for("oneway", 8 * LARGE_SIGNAL) == large_signal_share(WORKLOAD_SHARE, 8 * LARGE_SIGNAL) < 0.25
    given = AdaptiveSettings(Fraction(1), workload=workload, initial_share=Fraction(3, 5), **privacy)
    assert given.plan(10**4, encoding).setting("initial share") == 0.6
    binary = AdaptiveSettings(Fraction(1), workload=workload, **privacy)
    assert binary.share_for("oneway", 1000.0, binary=True) == BINARY_SHARE
    fresh = AdaptiveSettings(Fraction(1), neighbours="add-remove", workload=workload, **privacy)
    older = AdaptiveSettings.from_parameters(fresh.to_parameters() | {"auto_version": 3})
    before = {0.55} if privacy else shares  # zCDP's signal 2n√ρ was below SMALL_SIGNAL at both
    assert older.plan(10**4, encoding).setting("initial share") in before  # files written before keep their plan


def test_the_rounds_select_among_the_workload_and_lower_its_error():
    """Every selection is a subset of a workload set (AIM's candidates), and the workload's error falls.  The
    default's candidates are pairs, which cannot hold a5 = a1 + a3 (mod 3): its workload error stays near the
    independent model's (0.31-0.32 on these seeds), while with the triple measured on 3,000 rows at ε = 1 it is
    0.04-0.06 (sampling error of the 3,000 synthetic rows included); half is a margin the noise never nears."""
    workload = [["a1", "a3", "a5"], ["a0", "a2"]]
    sets = parse_workload(workload).resolve(SCHEMA6.names)
    for seed in range(3):
        frame = xor_frame(3000, seed)
        real = frame.to_numpy()
        errors = []
        for given in (None, workload):
            model = AdaptiveMarginals(1.0, random_state=seed, workload=given).fit(frame, SCHEMA6)
            if given is not None:
                measured = [e.measured.split(" marginal ")[-1].split(" × ") for e in model.released_.ledger
                            if e.step.endswith(": measure")]
                assert all(set(m) <= {"a1", "a3", "a5"} or set(m) <= {"a0", "a2"} for m in measured)
                first = [e.measured.split(" of ")[-1].split(" × ") for e in model.released_.ledger
                         if e.step.startswith("first marginal")]
                assert ["a1", "a3", "a5"] in first  # the triple itself is measured (directly: version 5)
            synth = model.sample(3000, random_state=seed).to_numpy().astype(np.int64)
            errors.append(workload_tvd(real, synth, [3] * 6, sets)[0])
        assert errors[1] < 0.5 * errors[0], (seed, errors)


# --- model files and the command line ----------------------------------------------------------------------

def test_a_saved_model_records_its_workload_and_reloads_with_the_plan_recomputed(tmp_path):
    frame = xor_frame(800, 2)
    model = AdaptiveMarginals(1.0, random_state=1, workload=[{"all": 2, "weight": 2}, ["a1", "a3", "a5"]]).fit(
        frame, SCHEMA6)
    model.released_.save(tmp_path / "m.json")
    document = json.loads((tmp_path / "m.json").read_text())
    recorded = document["parameters"]["workload"]
    assert len(recorded) == 16 and recorded[-1] == {"attributes": ["a1", "a3", "a5"], "weight": 1}
    assert {"attributes": ["a0", "a1"], "weight": 2} in recorded  # the shorthand expanded: its sets and weights
    loaded = load(tmp_path / "m.json")
    assert loaded.plan == model.released_.plan and loaded.plan.setting("workload sets") == 16
    assert "workload" not in AdaptiveMarginals(1.0).settings().to_parameters()
    assert loaded.privacy_report()["workload"].startswith("public input, like the schema: 16 attribute sets")
    assert "16 workload sets and their subsets" in loaded.privacy_report()["algorithm"]
    # a tampered workload changes the plan's settings: the loader recomputes the plan from it
    document["parameters"]["workload"] = [["a0", "zz"]]
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(InputError, match="column 'zz' is not in the schema"):
        load(tmp_path / "bad.json")
    assert AdaptiveSettings.from_parameters(model.released_.parameters).workload == parse_workload(recorded)


def test_fit_and_evaluate_take_a_workload_file(tmp_path, capsys):
    frame = xor_frame(600, 3)
    frame.to_csv(tmp_path / "data.csv", index=False)
    save_schema(SCHEMA6, tmp_path / "schema.yaml")
    (tmp_path / "w.yaml").write_text("- [a1, a3, a5]\n- {attributes: [a0, a2], weight: 3}\n")
    assert main(["fit", str(tmp_path / "data.csv"), "--schema", str(tmp_path / "schema.yaml"), "--epsilon", "1",
                 "--workload", str(tmp_path / "w.yaml"), "--seed", "1", "-o", str(tmp_path / "m.json")]) == 0
    assert main(["sample", str(tmp_path / "m.json"), "-n", "600", "-o", str(tmp_path / "s.csv"), "--seed", "2"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "data.csv"), str(tmp_path / "s.csv"), "--schema",
                 str(tmp_path / "schema.yaml"), "--workload", str(tmp_path / "w.yaml"), "--no-classifier",
                 "--json", str(tmp_path / "e.json")]) == 0
    out = capsys.readouterr().out
    document = json.loads((tmp_path / "e.json").read_text())
    assert f"  workload {document['workload']['tvd']:.4f}   (2 sets of {tmp_path / 'w.yaml'}" in out
    assert [s["weight"] for s in document["workload"]["sets"]] == [1.0, 3.0]
    (tmp_path / "bad.yaml").write_text("- [a0, nope]\n")
    assert main(["fit", str(tmp_path / "data.csv"), "--schema", str(tmp_path / "schema.yaml"),
                 "--workload", str(tmp_path / "bad.yaml"), "-o", str(tmp_path / "m2.json")]) != 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'bad.yaml'}: item 1: column 'nope' is not in the schema" in err
    assert "Traceback" not in err and not (tmp_path / "m2.json").exists()
