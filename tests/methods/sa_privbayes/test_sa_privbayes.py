"""The SA-PrivBayes estimator (issue 13, phase 2): budgets, reports, model files, CLI options, and an
end-to-end distinguishing audit.  The building blocks are tested in tests/methods/sa_privbayes/test_sa_parts.py.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame

import privbayes
from privbayes import SAPrivBayes, counting
from privbayes.audit.distinguish import binary_schema, distinguish, miss_probability, network_event, network_pair
from privbayes.core.errors import InputError
from privbayes.counting import PrivateTable
from privbayes.methods.sa_privbayes.allocation import cluster_budgets, cluster_sizes
from privbayes.methods.sa_privbayes.ami import mutual_information_matrix, planned_releases
from privbayes.methods.sa_privbayes.greedy import list_sensitivity, total_sensitivity
from privbayes.methods.sa_privbayes.settings import FAITHFUL_CAVEATS
from privbayes.privacy.accountant import LedgerEntry
from privbayes.privacy.plan import BudgetPlan, PlanMismatchError, PlannedRelease

SIZES = [2, 3, 4, 2, 5, 3]  # d = 6; pairs of ≤ 30 cells and one of more (none here: 5·4 = 20), all by table
LN3 = math.log(3)
DOC = Path(__file__).resolve().parents[3] / "docs" / "sa_privbayes.md"


@pytest.fixture(scope="module")
def table():
    return counting.open(correlated_frame(SIZES, 2000, seed=3), categorical_schema(SIZES))


@pytest.fixture(scope="module")
def fitted(table):
    return {mode: SAPrivBayes(1.0, mode=mode, random_state=11).fit(table) for mode in ("strict", "faithful")}


# =============================================================================== budgets

def test_strict_ledger_is_epsilon_exactly_and_equals_the_plan(table, fitted):
    model = fitted["strict"].model_
    d, k = len(SIZES), 2
    ledger = model.ledger
    assert sum(e.epsilon for e in ledger) == Fraction(1)  # exact, not float-close
    plan = SAPrivBayes(1.0).plan(table.n, table.schema)  # before any data
    plan.check(ledger)
    assert [(r.step, r.mechanism) for r in plan.releases] == [(e.step, e.mechanism) for e in ledger]
    # ε1 = 0.3, ε_τ = 0.09 on the noisy MIM, ε_exp = 0.21 over d − 1 = 5 steps, ε2 = 0.7 over d − k = 4 tables.
    mim = [e for e in ledger if e.step.startswith("mutual-information matrix")]
    steps = [e for e in ledger if e.step.startswith("network step")]
    tables = [e for e in ledger if e.step.startswith("conditional")]
    assert sum(e.epsilon for e in mim) == Fraction(9, 100)
    assert [(s, e.epsilon) for s, e in enumerate(steps, 1)] == [(s, Fraction(21, 100) / 5) for s in range(1, d)]
    assert [e.step for e in tables] == [f"conditional {i + 1}/{d}" for i in range(k, d)]
    # The table budgets are the q-clusters of 4 nodes (sizes 1, 1, 2 from C1 up), as a multiset.
    per_node = sorted(b / s for b, s in zip(cluster_budgets(Fraction(7, 10), Fraction(11, 10), 4), cluster_sizes(4))
                      for _ in range(s))
    assert sorted(e.epsilon for e in tables) == per_node and sum(per_node) == Fraction(7, 10)
    assert [(e.step, e.mechanism, e.epsilon) for e in mim] == list(planned_releases(SIZES, Fraction(9, 100)))
    report = fitted["strict"].privacy_report()
    assert report["differentially_private"] is True and report["epsilon_spent"] == pytest.approx(1.0, abs=1e-15)
    assert report["caveats"] == ["the DP noise was seeded (reproducible run): do not publish seeded releases"]
    settings = report["plan"]["settings"]
    assert settings["mode"] == "strict" and settings["q"] == "11/10" and settings["lambda"] == "2/3"
    assert "SA-PrivBayes" in report["mechanism"] and "strict" in report["mechanism"]


def test_faithful_report_flags_each_uncharged_step(fitted):
    # The exact strings of docs/sa_privbayes.md ("Faithful mode: the uncharged steps"), read from the doc.
    documented = re.findall(r'^\d\. `"(faithful mode: .*)"`$', DOC.read_text(encoding="utf-8"), flags=re.M)
    assert len(documented) == 5 and tuple(documented) == FAITHFUL_CAVEATS
    report = fitted["faithful"].privacy_report()
    assert report["differentially_private"] is False and "NOT differentially private" in report["mechanism"]
    assert report["caveats"][:5] == documented
    # What it does charge adds up to ε as Theorem 1 accounts: threshold ε_τ/(d − 1) before each selection.
    ledger = fitted["faithful"].ledger_
    assert sum(e.epsilon for e in ledger) == 1
    screening = [e for e in ledger if e.step.startswith("screening step")]
    assert len(screening) == 5 and all(e.epsilon == Fraction(9, 100) / 5 for e in screening)
    assert [e.step.split()[0] for e in ledger[:4]] == ["screening", "network", "screening", "network"]


def test_grouped_plan_releases_compare_as_a_multiset():
    plan = BudgetPlan(Fraction(1), (PlannedRelease("a", "m", Fraction(1, 2)),
                                    PlannedRelease("t1", "m", Fraction(1, 5), "g"),
                                    PlannedRelease("t2", "m", Fraction(3, 10), "g")))

    def entry(step, eps):
        return LedgerEntry(step, "m", Fraction(eps), Fraction(2), "x")
    plan.check([entry("a", Fraction(1, 2)), entry("t1", Fraction(3, 10)), entry("t2", Fraction(1, 5))])  # swapped: ok
    with pytest.raises(PlanMismatchError, match="multiset"):
        plan.check([entry("a", Fraction(1, 2)), entry("t1", Fraction(3, 10)), entry("t2", Fraction(3, 10))])
    with pytest.raises(PlanMismatchError):  # ungrouped releases still compare exactly, in order
        plan.check([entry("a", Fraction(1, 5)), entry("t1", Fraction(1, 2)), entry("t2", Fraction(3, 10))])
    with pytest.raises(PlanMismatchError):  # grouped releases still need their step names
        plan.check([entry("a", Fraction(1, 2)), entry("t2", Fraction(1, 5)), entry("t1", Fraction(3, 10))])
    assert plan.to_dict()["releases"][1]["group"] == "g" and "group" not in plan.to_dict()["releases"][0]


# =============================================================================== the algorithm

def test_the_network_follows_the_ami_order_with_parent_sets_of_min_k_placed(table, fitted):
    # Faithful mode: exact AMI order; step i's child is order[i] and Π ⊆ placed with |Π| = min(k, i).
    order = mutual_information_matrix(table, len(SIZES)).order()
    pairs = fitted["faithful"].network_.pairs
    assert tuple(p.child for p in pairs) == order
    for i, pair in enumerate(pairs):
        assert len(pair.parents) == min(2, i) and {a for a, _ in pair.parents} <= set(order[:i])
    # Strict mode at ε = 10^6: the noisy MIM is exact to within 1e-4 bits (noise scale 2·15/(0.09·10^6) counts
    # on tables of 2000 rows), far below the smallest AMI gap here (> 1e-3), so the order is the exact one.
    gaps = np.diff(np.sort(mutual_information_matrix(table, len(SIZES)).ami()))
    assert gaps.min() > 1e-3
    strict = SAPrivBayes(10**6, random_state=2).fit(table)
    assert tuple(p.child for p in strict.network_.pairs) == order


def test_quality_sensitivity_bounds_every_neighbour():
    # Brute-force twin of the EM's Δ: over every replace-one neighbour of a small table, Σ_{p∈Π} I(X; p)
    # moves by at most Σ_{p∈Π} S_{X,p} (Lemma 4.1 per pair) for every (X, Π) with |Π| = 2.
    sizes = [3, 2, 2]
    schema = categorical_schema(sizes)
    base = [(0, 0, 0), (1, 1, 0), (2, 1, 1), (0, 0, 1), (1, 0, 0)]
    domain = list(itertools.product(*[range(s) for s in sizes]))

    def mim(rows):
        frame = pd.DataFrame(rows, columns=schema.names)
        return mutual_information_matrix(counting.open(frame, schema), 3)
    ref = mim(base)
    neighbours = [mim(base[:i] + [row] + base[i + 1:]) for i in range(len(base)) for row in domain]
    for child in range(3):
        parents = [p for p in range(3) if p != child]
        bound = float(total_sensitivity(len(base), sizes, child, parents))
        worst = max(abs(m.total(child, parents) - ref.total(child, parents)) for m in neighbours)
        assert 0 < worst <= bound


def test_list_sensitivity_is_the_largest_candidate_bound():
    # Brute-force twin: the max over every candidate of Σ_{p∈Π} S_{X,p}, on mixed binary/non-binary sizes.
    sizes = [2, 5, 2, 3, 7, 2]
    for k in (1, 2, 3):
        sets = [list(c) for c in itertools.combinations(range(1, 6), k)]
        assert list_sensitivity(100, sizes, 0, sets) == max(total_sensitivity(100, sizes, 0, s) for s in sets)
        assert list_sensitivity(100, sizes, 3, [[1, 4]]) == total_sensitivity(100, sizes, 3, [1, 4])


def test_seeded_fits_are_reproducible(table, fitted):
    again = SAPrivBayes(1.0, random_state=11).fit(table)
    first = fitted["strict"]
    assert again.network_ == first.network_ and again.ledger_ == first.ledger_
    assert all(np.array_equal(x, y) for x, y in zip(again.conditionals_, first.conditionals_))
    assert again.sample(50, random_state=1).equals(first.sample(50, random_state=1))
    other = SAPrivBayes(1.0, random_state=12).fit(table)
    assert not all(np.array_equal(x, y) for x, y in zip(other.conditionals_, first.conditionals_))


@pytest.mark.parametrize("kwargs,message", [({"keep_fraction": 0}, r"keep_fraction \(0\) must be in \(0, 1\]"),
                                            ({"q": -1}, r"q \(-1\) must be positive"),
                                            ({"q": "highest"}, "q .* must be a number or a fraction"),
                                            ({"mode": "exact"}, "mode .* must be one of strict, faithful"),
                                            ({"degree": 0}, r"degree \(0\) must be an integer ≥ 1"),
                                            ({"alpha": 1, "mode": "faithful"}, r"alpha \(1\) must be in \(0, 1\)"),
                                            ({"alpha": 0.3}, "alpha applies to mode 'faithful' only"),
                                            ({"epsilon": 0}, "epsilon")])
def test_parameters_are_checked_before_the_data(kwargs, message):
    params = {"epsilon": 1.0} | kwargs
    with pytest.raises(InputError, match=message):
        SAPrivBayes(params.pop("epsilon"), **params).plan(100, categorical_schema(SIZES))


def test_q_presets_by_name(table):
    plans = {q: SAPrivBayes(1.0, q=q).plan(table.n, table.schema) for q in ("high", "medium", "low", 1.1)}
    assert plans["medium"].setting("q") == plans[1.1].setting("q") == "11/10"
    assert plans["high"].setting("q") == "13/10" and plans["low"].setting("q") == "9/10"


# =============================================================================== model files

@pytest.mark.parametrize("mode", ["strict", "faithful"])
def test_save_load_round_trip(fitted, mode, tmp_path):
    path = tmp_path / f"{mode}.json"
    fitted[mode].save(path)
    loaded = privbayes.load(path)
    original = fitted[mode].model_
    assert loaded.network == original.network and loaded.ledger == original.ledger
    assert loaded.plan == original.plan and loaded.mechanism == original.mechanism
    assert loaded.differentially_private is (mode == "strict") and loaded.caveats == original.caveats
    assert dict(loaded.parameters) == dict(original.parameters) and loaded.parameters["method"] == "sa-privbayes"
    assert all(np.array_equal(x, y) for x, y in zip(loaded.conditionals, original.conditionals))
    assert loaded.sample(40, random_state=3).equals(original.sample(40, random_state=3))


def _tamper(fitted, tmp_path, mode, change):
    path = tmp_path / "model.json"
    fitted[mode].save(path)
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    return path


def _conditional_entries(doc):
    return [e for e in doc["ledger"] if e["step"].startswith("conditional")]


def _set_epsilon(entry, value):
    entry["epsilon"], entry["epsilon_exact"] = float(value), str(value)


@pytest.mark.parametrize("mode,change,message", [
    # a table budget outside the planned multiset (the spend then no longer adds up either)
    ("strict", lambda d: _set_epsilon(_conditional_entries(d)[0], Fraction(1, 1000)), "differs from the plan"),
    # claims strict mode for a faithful model: the plan (no screening charges) differs
    ("faithful", lambda d: d["parameters"].update(mode="strict"), "differs from the plan"),
    # a different q implies different table budgets
    ("strict", lambda d: d["parameters"].update(q="6/5"), "differs from the plan"),
    # a faithful model that hides one of its caveats
    ("faithful", lambda d: d["fitted"]["caveats"].pop(1), "caveats of a faithful-mode model are missing"),
    # a faithful model that claims to be DP
    ("faithful", lambda d: d["fitted"].update(differentially_private=True), "differentially_private contradicts"),
    # an unknown parameter
    ("strict", lambda d: d["parameters"].update(theta=4), "unknown SA-PrivBayes parameters"),
])
def test_a_tampered_sa_model_file_is_refused(fitted, tmp_path, mode, change, message):
    with pytest.raises(InputError, match=message):
        privbayes.load(_tamper(fitted, tmp_path, mode, change))


def test_swapping_table_budgets_within_the_multiset_still_loads(fitted, tmp_path):
    # The plan cannot know which table gets which cluster budget (that follows noisy scores), so a
    # permutation of the ledger's table budgets is accepted; the total spent is unchanged.
    def swap(doc):
        entries = _conditional_entries(doc)
        low, high = min(entries, key=lambda e: Fraction(e["epsilon_exact"])), max(
            entries, key=lambda e: Fraction(e["epsilon_exact"]))
        a, b = Fraction(low["epsilon_exact"]), Fraction(high["epsilon_exact"])
        _set_epsilon(low, b)
        _set_epsilon(high, a)
    assert privbayes.load(_tamper(fitted, tmp_path, "strict", swap)).epsilon_spent == pytest.approx(1.0)


# =============================================================================== CLI options

def _build(argv):
    """The estimator ``privbayes fit --method … <argv>`` builds, its parameters checked."""
    from privbayes.cli.arguments import checked, estimator_arguments
    from privbayes.cli.program import _parser
    from privbayes.synthesizers.registry import DEFAULT_METHOD, method

    args = _parser().parse_args(["fit", "data.csv", *argv])
    chosen = method(args.method or DEFAULT_METHOD)
    estimator = chosen.estimator_class()(**estimator_arguments(args, chosen.estimator_class(), chosen.name))
    checked(estimator)
    return estimator


def test_cli_builds_either_estimator():
    sa = _build("--epsilon 0.5 --method sa-privbayes --mode faithful --q high --keep-fraction 1/2 --alpha 0.3".split())
    settings = sa.settings()
    assert isinstance(sa, SAPrivBayes) and settings.mode == "faithful" and settings.degree == 2
    assert (settings.q, settings.keep_fraction, settings.alpha) == (Fraction(13, 10), Fraction(1, 2), Fraction(3, 10))
    assert isinstance(_build(["--epsilon", "1", "--method", "privbayes"]), privbayes.PrivBayes)
    assert isinstance(_build(["--epsilon", "1"]), privbayes.AdaptiveMarginals)  # the default (issue 31)
    for argv, message in ((["--method", "privbayes", "--q", "1.2"], "--q does not apply to --method privbayes"),
                          (["--method", "sa-privbayes", "--score", "R"], "--score does not apply"),
                          (["--method", "sa-privbayes", "--theta", "2"], "--theta does not apply"),
                          (["--method", "sa-privbayes", "--alpha", "0.3"], "alpha applies to mode 'faithful'"),
                          (["--method", "sa-privbayes", "--keep-fraction", "3/2"],
                           r"--keep-fraction \(1.5\) must be in")):
        with pytest.raises(InputError, match=message):
            _build(["--epsilon", "1"] + argv)


# =============================================================================== privacy audit
# End to end through SAPrivBayes.fit on neighbouring tables (n = 6, three binary attributes) whose exact
# AMI orders differ: A gives (c, b, a), B gives (b, c, a) (the test checks).  With k = 2 and d = 3 the
# network is a function of the order, so the event "released network" has K ≤ 3! = 6 values.
# Faithful mode's network is a deterministic function of the exact order: disjoint on A and B, δ = 1.
# Strict mode is ε-DP at the fit's ε = ln 3: the test fails with probability ≤ 1e-3.
# N = 400 runs per side for strict mode: τ ≈ 0.49; a violation of 1 is missed with probability < 1e-9.
#
# The screening rule on its own (exact scores against a noisy threshold) is audited at the parts level
# (test_sa_parts.py): end to end its threshold gets ε_τ/(d − 1), and its leak shows only in runs
# where the threshold lands within one score gap of the band edge, probability ≈ α·gap·ε_τ/(2(d − 1)Δf)
# per step (~1e-3 here) — far below the τ ≈ 0.1-0.5 an end-to-end run affords in CI time.
AUDIT_RUNS = 400
AUDIT_ALPHA = 1e-3


class _Cached(PrivateTable):
    """A PrivateTable whose exact counts are computed once (they are deterministic, so every fit sees exactly
    what it would see uncached); only for the vanilla encoding SA-PrivBayes uses."""

    def __init__(self, table) -> None:
        self.table, self.schema, self.encoding, self._memo = table, table.schema, table.encoding, {}

    @property
    def n(self) -> int:
        return self.table.n

    def counts(self, attributes, levels=None):
        key = (tuple(attributes), None if levels is None else tuple(levels))
        if key not in self._memo:
            self._memo[key] = self.table.counts(attributes, levels)
        return self._memo[key]

    def encoded(self, encoding):
        assert encoding.name == self.encoding.name == "vanilla" and encoding.schema == self.schema
        return self


def _audit(mode, runs=AUDIT_RUNS):
    frames = network_pair()
    schema = binary_schema("abc")
    vanilla = SAPrivBayes.encoding_for(schema)
    tables = [_Cached(counting.open(frame, schema).encoded(vanilla)) for frame in frames]
    assert [mutual_information_matrix(t, 3).order() for t in tables] == [(2, 1, 0), (1, 2, 0)]

    def mechanism(table, base):
        return lambda i: network_event(SAPrivBayes(LN3, mode=mode, random_state=base + i).fit(table))
    return distinguish(mechanism(tables[0], 10**6), mechanism(tables[1], 2 * 10**6), epsilon=LN3, runs=runs,
                       events=6, false_failure=AUDIT_ALPHA)


def test_end_to_end_audit_passes_strict_mode():
    assert miss_probability(1.0, AUDIT_RUNS, LN3, 6, AUDIT_ALPHA) < 1e-9
    result = _audit("strict")
    print(result.summary())
    assert result.passed, result.summary()


def test_end_to_end_audit_rejects_faithful_mode():
    # δ̂ = 1 exactly whatever N (the faithful network is a function of the exact order), and τ(N = 150) ≈ 0.79.
    result = _audit("faithful", runs=150)
    assert not result.passed and result.violation == 1.0, result.summary()
