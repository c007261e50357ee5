"""schema infer --epsilon: a schema draft released under ε-DP (docs/decisions.md, "Private schema drafts").

The ledger equals the plan and sums to ε exactly, under both relations; the same seed gives the same
draft; bounds lie on the public cell edges; a 30 % mass at 0 is found; a sparse column (92 % zeros)
keeps most of its other values inside its bounds at a small ε; values outside the released bounds are
clipped, not refused; a fit on the draft reports draft + fit ε with no NOT-covered caveat (Python and
command line); a tampered block is refused; relations that do not compose are refused in one line."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import yaml

from privbayes import PrivBayes, load, private_draft
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.counting.private_draft import DECIMAL_CELLS, FIELD_CELLS, draft_source
from privbayes.privacy.neighbours import ADD_REMOVE, REPLACE_ONE
from privbayes.privacy.samplers import discrete_laplace, random_source
from privbayes.schema import Schema
from privbayes.schema.files import load_schema
from privbayes.synthesizers.private_draft import cell_edges, clear_threshold, column_steps, draft_plan


def _frame(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "amount": np.where(rng.random(n) < 0.3, 0, rng.integers(100, 5000, n)),
        "age": rng.integers(18, 90, n),
        "job": rng.choice(["admin", "tech", "retired"], n),
        "note": [f"free text {i}" for i in range(n)],
        "flag": rng.random(n) < 0.4,
    })


CANDIDATES = {"job": ["admin", "tech", "retired", "services"]}


@pytest.mark.parametrize("relation", [REPLACE_ONE, ADD_REMOVE])
def test_the_ledger_equals_the_plan_and_sums_to_epsilon(relation):
    frame = _frame()
    draft = private_draft(frame, "0.3", neighbours=relation.name, categories=CANDIDATES, seed=1)
    ledger = draft.release.ledger
    families = [(name, draft_source(frame).declared(name).family) for name in ("amount", "age", "note")]
    assert [f for _, f in families] == ["int", "int", "text"]
    plan = draft_plan(families, Fraction(3, 10), relation)
    assert [(s, m, e, d) for s, m, e, d, _ in ledger] == [(r.step, r.mechanism, r.epsilon, r.sensitivity)
                                                        for r in plan.releases]
    assert sum(e for _, _, e, _, _ in ledger) == Fraction(3, 10) == draft.release.epsilon
    # integer columns need no count of decimals: one histogram at the column's whole share
    assert [(s, e) for s, _, e, _, _ in ledger] == [("amount: histogram", Fraction(1, 10)),
                                                    ("age: histogram", Fraction(1, 10)),
                                                    ("note: histogram", Fraction(7, 80)),
                                                    ("note: decimals", Fraction(1, 80))]
    assert {(m, d) for _, m, _, d, _ in ledger} == {("discrete Laplace", relation.count_sensitivity)}
    assert draft.release.neighbours == relation.name


def test_the_same_seed_gives_the_same_draft_and_another_seed_another_noise():
    frame = _frame()
    first = private_draft(frame, 0.3, categories=CANDIDATES, seed=5).to_yaml()
    assert private_draft(frame, 0.3, categories=CANDIDATES, seed=5).to_yaml() == first
    drafts = {private_draft(frame, 0.05, categories=CANDIDATES, seed=s).to_yaml() for s in range(4)}
    assert len(drafts) > 1


def test_bounds_lie_on_the_public_cell_edges_and_a_30_percent_mass_at_zero_is_special():
    edges = set(cell_edges(1e9))
    for seed in range(3):
        attributes = {a["name"]: a for a in private_draft(_frame(), 1.0, categories=CANDIDATES, seed=seed)
                      .to_dict()["attributes"]}
        for name in ("amount", "age"):
            assert attributes[name]["kind"] == "numeric" and attributes[name]["integer"] is True
            assert attributes[name]["lower"] in edges and attributes[name]["upper"] in edges
            assert attributes[name]["invalid"] == "clip" and attributes[name]["missing"] == "category"
        assert attributes["amount"]["special_values"] == [0]
        assert "special_values" not in attributes["age"]
        # outward: the cells of 18..89 and of 0, 100..4999
        assert (attributes["age"]["lower"], attributes["age"]["upper"]) == (10, 100)
        assert (attributes["amount"]["lower"], attributes["amount"]["upper"]) == (0, 5000)


def test_a_sparse_column_stays_numeric_with_bounds_around_most_of_its_few_values():
    """92 % zeros and 8 % spread evenly over the decades 10^3..10^5 (45,000 rows) at ε = 0.02 for the column:
    no single cell is clearly above noise, runs of cells are; the column stays numeric with 0 special."""
    rng = np.random.default_rng(0)
    n = 45_000
    values = np.where(rng.random(n) < 0.92, 0, np.round(10 ** rng.uniform(3, 5, n))).astype(np.int64)
    frame = pd.DataFrame({"x": values, "job": rng.choice(CANDIDATES["job"], n)})
    rest = values[values > 0]
    for seed in range(3):
        x = private_draft(frame, 0.02, categories=CANDIDATES, seed=seed).to_dict()["attributes"][0]
        assert x["kind"] == "numeric" and x["special_values"] == [0] and x["invalid"] == "clip"
        assert np.mean((rest >= x["lower"]) & (rest <= x["upper"])) > 0.5, x


def test_amounts_spread_over_decades_with_most_of_them_low_get_log_bins():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"income": np.round(10 ** rng.normal(4, 0.5, 20_000)).astype(np.int64),
                          "job": rng.choice(CANDIDATES["job"], 20_000)})
    for seed in range(2):
        income = private_draft(frame, 0.5, categories=CANDIDATES, seed=seed).to_dict()["attributes"][0]
        assert income["scale"] == "log" and 100 <= income["lower"] <= 279 and 340_000 <= income["upper"] <= 10**6


def test_text_without_candidates_is_dropped_with_a_reason_and_public_lists_cost_nothing():
    draft = private_draft(_frame(), 0.3, categories=CANDIDATES, seed=1)
    reasons = {p.name: p for p in draft.proposals}
    assert reasons["note"].attribute is None and "--categories" in reasons["note"].reason
    job = reasons["job"].attribute
    assert job["categories"] == CANDIDATES["job"] and job["invalid"] == "category"
    assert reasons["flag"].attribute["categories"] == [False, True]
    assert not any(step.startswith(("job:", "flag:")) for step, *_ in draft.release.ledger)


def test_a_schema_file_gives_its_categories_and_taxonomies_as_public_lists(tmp_path):
    public = {"version": 1, "attributes": [
        {"name": "job", "kind": "categorical", "categories": ["admin", "tech", "retired"],
         "taxonomy": [["admin", "tech"], "retired"]},
        {"name": "age", "kind": "numeric", "lower": 0, "upper": 1, "bins": 2}]}
    (tmp_path / "public.yaml").write_text(yaml.safe_dump(public))
    attributes = {a["name"]: a for a in private_draft(_frame(), 0.3, categories=tmp_path / "public.yaml", seed=1)
                  .to_dict()["attributes"]}
    assert attributes["job"]["taxonomy"] == [["admin", "tech"], "retired"]
    assert attributes["age"]["upper"] >= 75  # numeric bounds stay private, whatever a schema says


def test_values_outside_the_released_bounds_are_clipped_not_refused():
    frame = _frame()
    schema = private_draft(frame, 1.0, categories=CANDIDATES, seed=2).schema()
    frame.loc[:4, "age"] = [-10**8, 10**8, 10**7, -5, 10**6]  # far outside any released bounds
    model = PrivBayes(epsilon=0.5, random_state=0).fit(frame.drop(columns=["note"]), schema)
    assert model.privacy_report()["n"] == len(frame)


def test_a_fit_on_the_draft_reports_draft_plus_fit_and_no_not_covered_caveat():
    frame = _frame().drop(columns=["note"])
    schema = private_draft(frame, 0.1, categories=CANDIDATES, seed=1).schema()
    report = PrivBayes(epsilon=0.9, random_state=0).fit(frame, schema).privacy_report()
    assert report["total_epsilon"] == pytest.approx(1.0) and report["draft_epsilon"] == pytest.approx(0.1)
    assert "private schema draft" in report["domain_source"] and "total ε of draft + this release = 1" in \
        report["domain_source"]
    assert not any("NOT" in c or "inferred" in c for c in report["caveats"])
    assert "total epsilon" in str(report) and "sequential composition" in str(report)


def test_python_draft_fit_sample_and_the_evaluation_summary_state_the_total():
    from privbayes import AdaptiveMarginals
    from privbayes.evaluation.caveats import privacy_summary

    frame = _frame().drop(columns=["note"])
    schema = private_draft(frame, 0.2, neighbours="add-remove", categories=CANDIDATES, seed=4).schema()
    model = AdaptiveMarginals(epsilon=0.8, neighbours="add-remove", random_state=0).fit(frame, schema)
    sample = model.sample(200, random_state=1)
    assert list(sample.columns) == ["amount", "age", "job", "flag"] and sample["age"].notna().any()
    summary = privacy_summary(model.released_, schema)
    assert "with the private schema draft, total ε = 1" in summary.guarantee
    assert not any("NOT covered" in text or "inferred" in text for _, text in summary.caveats)


def test_an_add_remove_draft_counts_twice_under_a_replace_one_fit_and_the_converse_is_refused():
    frame = _frame().drop(columns=["note"])
    add_remove = private_draft(frame, 0.1, neighbours="add-remove", categories=CANDIDATES, seed=1).schema()
    report = PrivBayes(epsilon=0.5, random_state=0).fit(frame, add_remove).privacy_report()
    assert report["total_epsilon"] == pytest.approx(0.7)
    both = PrivBayes(epsilon=0.5, neighbours="add-remove", random_state=0).fit(frame, add_remove).privacy_report()
    assert both["total_epsilon"] == pytest.approx(0.6)
    replace_one = private_draft(frame, 0.1, categories=CANDIDATES, seed=1).schema()
    with pytest.raises(InputError, match="replace-one neighbours, which does not cover an add-remove fit"):
        PrivBayes(epsilon=0.5, neighbours="add-remove", random_state=0).fit(frame, replace_one)


def _document(tmp_path) -> dict:
    frame = _frame().drop(columns=["note"])
    return private_draft(frame, 0.2, categories=CANDIDATES, seed=1).to_dict()


def test_the_block_round_trips_through_a_schema_file_and_a_model_file(tmp_path):
    document = _document(tmp_path)
    (tmp_path / "draft.yaml").write_text(yaml.safe_dump(document))
    schema = load_schema(tmp_path / "draft.yaml")
    assert schema.private_draft is not None and not schema.inferred
    assert Schema.from_dict(schema.to_dict()) == schema
    frame = _frame().drop(columns=["note"])
    PrivBayes(epsilon=0.4, random_state=0).fit(frame, schema).save(tmp_path / "m.json")
    assert load(tmp_path / "m.json").privacy_report()["total_epsilon"] == pytest.approx(0.6)


@pytest.mark.parametrize("tamper, message", [
    (lambda b: b["ledger"][0].update(epsilon="1/1000000"), "do not sum"),
    (lambda b: b.update(epsilon="1/100"), "do not sum"),
    (lambda b: b.update(epsilon=0.2), "exact rationals"),
    (lambda b: b.update(neighbours="swap"), "neighbours must be"),
    (lambda b: b["ledger"].clear(), "ledger must be a list"),
    (lambda b: b.update(extra=1), "must be a mapping of"),
    (lambda b: b["ledger"][0].update(step="x" * 1000), "at most 400 characters"),
    (lambda b: b.update(epsilon="1/0"), "zero denominator"),
])
def test_a_tampered_block_is_refused_in_one_line(tmp_path, tamper, message):
    document = _document(tmp_path)
    tamper(document["private_draft"])
    (tmp_path / "draft.yaml").write_text(yaml.safe_dump(document))
    with pytest.raises(InputError, match=message) as refused:
        load_schema(tmp_path / "draft.yaml")
    assert "\n" not in str(refused.value)


def test_a_block_beside_inferred_true_is_refused(tmp_path):
    document = _document(tmp_path) | {"inferred": True}
    with pytest.raises(InputError, match="cannot be 'inferred: true'"):
        Schema.from_dict(document)


def test_nothing_to_measure_and_bad_inputs_are_refused_in_one_line():
    frame = pd.DataFrame({"job": ["admin", "tech"] * 10, "flag": [True, False] * 10})
    with pytest.raises(InputError, match="nothing to pay for"):
        private_draft(frame, 0.1, categories=CANDIDATES)
    with pytest.raises(InputError, match="epsilon"):
        private_draft(frame, 0)
    with pytest.raises(InputError, match="neighbours"):
        private_draft(frame, 0.1, neighbours="swap")
    with pytest.raises(InputError, match="not in the data"):
        private_draft(frame, 0.1, categories={"other": ["a"]})


@pytest.mark.parametrize("neighbours, fit_neighbours, total", [
    ("replace-one", "replace-one", "1"), ("add-remove", "add-remove", "1"), ("add-remove", "replace-one", "1.5")])
def test_the_command_line_drafts_fits_samples_and_reports_the_total(tmp_path, capsys, neighbours, fit_neighbours,
                                                                     total):
    _frame().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "public.yaml").write_text(yaml.safe_dump(CANDIDATES))
    assert main(["schema", "infer", str(tmp_path / "data.csv"), "--epsilon", "0.5", "--neighbours", neighbours,
                 "--categories", str(tmp_path / "public.yaml"), "--seed", "3", "-o", str(tmp_path / "d.yaml")]) == 0
    out = capsys.readouterr()
    assert "epsilon 0.5 spent" in out.out and "note" in out.out and "seeded" in out.err
    document = yaml.safe_load((tmp_path / "d.yaml").read_text())
    assert document["private_draft"]["epsilon"] == "1/2" and "inferred" not in document
    assert [a["name"] for a in document["attributes"]] == ["amount", "age", "job"]
    assert main(["fit", "--method", "privbayes", str(tmp_path / "data.csv"), "--schema", str(tmp_path / "d.yaml"),
                 "--epsilon", "0.5", "--neighbours", fit_neighbours, "--seed", "1", "-o",
                 str(tmp_path / "m.json")]) == 0
    assert "inferred" not in capsys.readouterr().err
    assert main(["sample", str(tmp_path / "m.json"), "-n", "50", "-o", str(tmp_path / "s.csv"), "--seed", "2"]) == 0
    assert len(pd.read_csv(tmp_path / "s.csv")) == 50
    assert main(["inspect", str(tmp_path / "m.json")]) == 0
    shown = capsys.readouterr().out
    assert f"total ε of draft + this release = {total} " in shown and "NOT covered" not in shown


def test_the_command_line_refuses_private_options_without_epsilon(tmp_path, capsys):
    _frame(200).to_csv(tmp_path / "data.csv", index=False)
    assert main(["schema", "infer", str(tmp_path / "data.csv"), "--seed", "1", "-o", str(tmp_path / "d.yaml")]) != 0
    assert "add --epsilon" in capsys.readouterr().err
    assert not (tmp_path / "d.yaml").exists()


def test_the_exact_queries_count_each_row_once():
    frame = pd.DataFrame({"x": ["1", "2.5", "", "2020-01-02", "abc", "-3", "0", "7.125", "1e3", "1799-05-05"]})
    source = draft_source(frame)
    counts = source.histogram("x", [0, 1], [-1, 1, 2, 5], (1800, 2100))
    assert counts.sum() == len(frame) and len(counts) == len(FIELD_CELLS) + 2 + 5 + 301
    # empty, other text | at 0, at 1 | (−∞, −1), [−1, 1), [1, 2), [2, 5), [5, ∞) | years (1799 in 1800's)
    assert counts[:9].tolist() == [1, 1, 1, 1, 1, 0, 0, 1, 2]
    assert counts[9] == 1 and counts[9 + 220] == 1
    assert dict(zip(DECIMAL_CELLS, source.decimal_counts("x"))) == {
        "whole number": 4, "1 decimal": 1, "2 decimals": 0, "3 decimals": 1, "4 decimals": 0, "5 decimals": 0,
        "6+ decimals": 0}


@pytest.mark.parametrize("width", [1, 2, 4])
def test_noise_alone_clears_the_threshold_about_as_often_as_allowed(width):
    """clear_threshold is exact (one cell) or from the exact distribution of the sum: 6,000 sums of pure noise
    pass it about ``alarm`` of the time, not far less (a loose bound would blunt the draft)."""
    scale, alarm = Fraction(40), 0.05
    threshold = clear_threshold(scale, width, 1, alarm)
    noise = discrete_laplace(scale, 6000 * width, random_source(7)).reshape(6000, width).sum(axis=1)
    assert 0.03 < np.mean(noise >= threshold) <= 0.065


def test_dates_get_whole_year_bounds_near_the_data_and_typed_columns_keep_their_dtype():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"day": [str(np.datetime64("1990-01-01") + int(d)) for d in rng.integers(0, 7300, 5000)],
                          "x": rng.normal(0, 1, 5000).round(3), "k": rng.integers(0, 5, 5000).astype("int32")})
    for seed in range(3):
        attributes = {a["name"]: a for a in private_draft(frame, 1.0, seed=seed).to_dict()["attributes"]}
        day = attributes["day"]
        assert day["kind"] == "date" and day["lower"].endswith("-01-01") and day["upper"].endswith("-12-31")
        assert 1989 <= int(day["lower"][:4]) <= 1990 and 2009 <= int(day["upper"][:4]) <= 2010
        assert attributes["x"]["integer"] is False and attributes["x"]["decimals"] == 3
        assert attributes["x"]["lower"] in (-5, -2) and attributes["x"]["upper"] in (2, 5)
        k = attributes["k"]  # five point masses and nothing else: numeric, the masses, one bin between them
        assert k["kind"] == "numeric" and k["special_values"] == [0, 1, 2, 3, 4] and k["bins"] == 1
        assert k["dtype"] == "Int32"


def test_the_public_range_is_bounded():
    with pytest.raises(InputError, match="value range"):
        private_draft(_frame(100), 0.1, value_range=1e300)


def test_column_names_with_colons_keep_their_own_budgets_and_duplicates_are_refused():
    frame = _frame(1000)[["amount", "age"]].rename(columns={"amount": "a", "age": "a: b"})
    draft = private_draft(frame, 0.2, seed=0)
    assert [s for s, *_ in draft.release.ledger if s.startswith("a: b:")] == [f"a: b: {s}" for s, _ in
                                                                              column_steps("int")]
    with pytest.raises(InputError, match="more than once"):
        private_draft(pd.DataFrame([[1, 2]], columns=["x", "x"]), 0.2)
