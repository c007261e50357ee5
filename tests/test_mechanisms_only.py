"""The data reaches a release only through its mechanisms.

Every mechanism's output is pinned to a value that ignores its input (a count table gets fixed
integers chosen by the step's name, the exponential mechanism an index chosen by the step's name,
the noisy count of add/remove fits a given number).  Then two *different* tables — under add/remove
with different numbers of rows — must give byte-identical model files, and fit or fail together.
Anything else that reads the data (the exact n after the noisy count was bought, an exact
mutual-information matrix in SA-PrivBayes's screening or budgets, the exact N of an MRF, a CLI that
plans or checks its cost at the true n) makes the two releases differ, so each such mutant fails
here (issue 27).
"""

from __future__ import annotations

import json
import math
import zlib
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame, random_frame

import privbayes.core.limits as limits_module
from privbayes import AdaptiveMarginals, PrivateMRF, cli
from privbayes.bayesnet.candidates import candidate_cap, parent_bound
from privbayes.methods.privbayes.estimator import PrivBayes
from privbayes.methods.privbayes.settings import COUNT_STEP, phase_budgets
from privbayes.methods.sa_privbayes.estimator import SAPrivBayes
from privbayes.privacy.mechanisms import DiscreteGaussian, DiscreteLaplace, Exponential, PermuteAndFlip
from privbayes.privacy.neighbours import ADD_REMOVE
from privbayes.schema.encoding import Encoding

SIZES = [3, 4, 2, 5]
PINNED_COUNT = 400


def _seed_of(step: str) -> int:
    return zlib.crc32(step.encode())


@pytest.fixture
def oblivious(monkeypatch):
    """Mechanisms that charge the accountant as usual but release values independent of the data."""
    def laplace(self, counts, accountant, rng, *, step, measured):
        accountant.charge(self, step=step, measured=measured)
        shape = np.shape(counts)
        if step == COUNT_STEP:
            return np.full(shape, PINNED_COUNT, dtype=np.int64)
        return np.random.default_rng(_seed_of(step)).integers(-3, 60, size=shape)

    def exponential(self, scores, accountant, rng, *, step, measured):
        accountant.charge(self, step=step, measured=measured)
        return _seed_of(step) % len(scores)

    monkeypatch.setattr(DiscreteLaplace, "release", laplace)
    monkeypatch.setattr(DiscreteGaussian, "release", laplace)  # the same pinned integers, charged in rho
    monkeypatch.setattr(Exponential, "release", exponential)
    monkeypatch.setattr(PermuteAndFlip, "release", exponential)


def _two_tables(n_first: int, n_second: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Different contents (one correlated, one independent) over the same public domain."""
    return correlated_frame(SIZES, n_first, seed=1), random_frame(SIZES, n_second, seed=2)


def _privbayes_file(estimator, frame: pd.DataFrame, path) -> str:
    estimator.fit(frame, categorical_schema(SIZES))
    estimator.save(path)
    return path.read_text()


@pytest.mark.parametrize("estimation", ["consistent", "projected", "paper"])
@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_privbayes_releases_depend_on_the_mechanisms_only(oblivious, tmp_path, relation, estimation):
    # Under add/remove the tables also differ in n (300 vs 301 rows): n is private there.
    first, second = _two_tables(300, 300 if relation == "replace-one" else 301)
    make = lambda: PrivBayes(1.0, neighbours=relation, estimation=estimation, random_state=5)  # noqa: E731
    a = _privbayes_file(make(), first, tmp_path / "a.json")
    b = _privbayes_file(make(), second, tmp_path / "b.json")
    assert a == b
    if relation == "add-remove":
        assert json.loads(a)["fitted"]["n"] == PINNED_COUNT  # the model's n is the noisy count


def test_sa_privbayes_strict_uses_the_exact_mutual_information_only_in_the_exponential_mechanism(
        oblivious, tmp_path):
    first, second = _two_tables(300, 300)
    make = lambda: SAPrivBayes(1.0, mode="strict", random_state=5)  # noqa: E731
    assert _privbayes_file(make(), first, tmp_path / "a.json") == _privbayes_file(make(), second, tmp_path / "b.json")


def test_sa_privbayes_faithful_is_not_private_and_the_check_sees_it(oblivious, tmp_path):
    # The control: faithful mode screens and weights budgets by the exact matrix (documented as not
    # DP), so the same check must tell the two tables apart — the check has teeth.
    first, second = _two_tables(300, 300)
    make = lambda: SAPrivBayes(1.0, mode="faithful", random_state=5)  # noqa: E731
    assert _privbayes_file(make(), first, tmp_path / "a.json") != _privbayes_file(make(), second, tmp_path / "b.json")


@pytest.mark.parametrize("degree", [2, 3])
@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_adaptive_releases_depend_on_the_mechanisms_only(oblivious, tmp_path, relation, degree):
    # The selection's scores and every measured table are computed from the data, but reach the
    # release only through the (pinned) exponential and discrete Laplace mechanisms; the rounds,
    # the candidate filter and every re-fit read released values only.
    first, second = _two_tables(300, 300 if relation == "replace-one" else 301)
    make = lambda: AdaptiveMarginals(1.0, neighbours=relation, marginal_degree=degree, random_state=5)  # noqa: E731
    a = _privbayes_file(make(), first, tmp_path / "a.json")
    b = _privbayes_file(make(), second, tmp_path / "b.json")
    assert a == b
    if relation == "add-remove":
        assert json.loads(a)["fitted"]["n"] == PINNED_COUNT


@pytest.mark.parametrize("method", [PrivBayes, AdaptiveMarginals])
@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_zcdp_releases_depend_on_the_mechanisms_only(oblivious, tmp_path, relation, method):
    # Under zCDP the count and the tables go through the (pinned) discrete Gaussian and the selections (PrivBayes's
    # network steps, adaptive's rounds) through the exponential mechanism; θ-usefulness reads the noisy count only.
    # (The estimations are the same post-processing under both definitions: the pure-ε tests cover them.)
    first, second = _two_tables(300, 300 if relation == "replace-one" else 301)
    make = lambda: method(1.0, neighbours=relation, privacy="zcdp", delta=1e-6, random_state=5)  # noqa: E731
    a = _privbayes_file(make(), first, tmp_path / "a.json")
    b = _privbayes_file(make(), second, tmp_path / "b.json")
    assert a == b
    document = json.loads(a)
    assert {e["mechanism"] for e in document["ledger"]} == {"discrete Gaussian", "exponential"}
    if relation == "add-remove":
        assert document["fitted"]["n"] == PINNED_COUNT


@pytest.mark.parametrize("init, resolved", [("network", "network"), ("auto", "oneway")])
@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_adaptive_binary_starts_depend_on_the_mechanisms_only(oblivious, tmp_path, relation, init, resolved):
    # Binary data: PrivBayes's network and tables (init "network"), or by default joint first tables and
    # 3-way candidates: the same check.
    from privbayes.audit.distinguish import binary_schema

    rng = np.random.default_rng(1)
    frames = [pd.DataFrame(rng.integers(0, 2, size=(n, 5)), columns=list("abcde"))
              for n in (300, 300 if relation == "replace-one" else 301)]
    files = []
    for i, frame in enumerate(frames):
        model = AdaptiveMarginals(1.0, neighbours=relation, init=init, random_state=5).fit(frame,
                                                                                           binary_schema("abcde"))
        model.save(tmp_path / f"{i}.json")
        files.append((tmp_path / f"{i}.json").read_text())
    assert files[0] == files[1] and json.loads(files[0])["plan"]["settings"]["init"] == resolved


def test_adaptive_with_an_exact_selection_is_caught(oblivious, tmp_path, monkeypatch):
    # The control: a selection that skips the exponential mechanism (the exact argmax of the scores)
    # lets the data choose what is measured, so the same check must tell the two tables apart.
    import privbayes.methods.adaptive.rounds as rounds_module

    def argmax(self, scores, accountant, rng, *, step, measured):
        accountant.charge(self, step=step, measured=measured)
        return int(np.argmax(scores))
    for name, selector in (("Exponential", Exponential), ("PermuteAndFlip", PermuteAndFlip)):  # either selection
        monkeypatch.setattr(rounds_module, name, type("Argmax", (selector,), {"release": argmax}))
    first, second = _two_tables(300, 300)
    make = lambda: AdaptiveMarginals(1.0, random_state=5)  # noqa: E731
    assert _privbayes_file(make(), first, tmp_path / "a.json") != _privbayes_file(make(), second, tmp_path / "b.json")


@pytest.mark.parametrize("method", ["naive", "cgm"])
@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_mrf_releases_depend_on_the_mechanisms_only(oblivious, relation, method):
    first, second = _two_tables(300, 300 if relation == "replace-one" else 301)
    cliques = [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]
    fits = [PrivateMRF(cliques, 1.0, estimation=method, neighbours=relation,
                       random_state=5).fit(f, categorical_schema(SIZES))
            for f in (first, second)]
    assert json.dumps(fits[0].released_.to_document()) == json.dumps(fits[1].released_.to_document())


@pytest.mark.parametrize("method", ["naive", "cgm"])
def test_mrf_under_add_remove_fits_the_empty_table(method):
    # The empty table is a neighbour of every one-row table under add/remove: refusing it would
    # reveal that the data has no rows (issue 27).  Replace-one keeps n public and refuses it.
    schema = categorical_schema(SIZES)
    empty = random_frame(SIZES, 0, seed=1)
    chain = [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]
    model = PrivateMRF(chain, 1.0, estimation=method, neighbours="add-remove", random_state=1).fit(empty, schema)
    assert model.sample(5, random_state=1).shape == (5, len(SIZES))
    with pytest.raises(Exception, match="no rows"):
        PrivateMRF(chain, 1.0, estimation=method, neighbours="replace-one").fit(empty, schema)


# --- the command line: n must not reach a decision before the noisy count ------------------------------

def _table_cells(n: int, epsilon: float) -> int:
    """The largest noisy table θ-usefulness allows at n (the plan's refusal test, public inputs)."""
    encoding = Encoding.build(categorical_schema(SIZES), "vanilla")
    _, eps2 = phase_budgets(Fraction(epsilon), 0.3, ADD_REMOVE)
    largest = max(SIZES)
    bound = parent_bound(n, len(SIZES), eps2, 4.0, largest, candidate_cap(encoding), ADD_REMOVE.count_sensitivity)
    return min(bound * largest, math.prod(SIZES))


def _threshold(epsilon: float) -> tuple[int, int]:
    """(n0, cells at n0) with more cells at n0 + 1: a cap at those cells admits n0 rows, not n0 + 1
    (the first such step with room for pair tables, ≥ 20 cells)."""
    for n in range(50, 20_000):
        if 20 <= _table_cells(n, epsilon) < _table_cells(n + 1, epsilon):
            return n, _table_cells(n, epsilon)
    raise AssertionError("no step in the table bound")  # pragma: no cover


def _cli_fit(frame: pd.DataFrame, tmp_path, name: str, *extra: str) -> int:
    data, schema = tmp_path / f"{name}.csv", tmp_path / "schema.json"
    frame.to_csv(data, index=False)
    schema.write_text(json.dumps(categorical_schema(SIZES).to_dict()))
    return cli.main(["fit", "--method", "privbayes", str(data), "--schema", str(schema), "--epsilon", "1",
                     "--neighbours", "add-remove",
                     "-o", str(tmp_path / f"{name}.json"), *extra])


def test_cli_add_remove_fits_tables_either_side_of_a_cap_alike(oblivious, tmp_path, monkeypatch, capsys):
    # n0 rows pass the table-size cap and n0 + 1 do not: a CLI that plans (or checks its cost) at
    # the true n fits one and refuses the other.  With the noisy count pinned below the cap both fit.
    n0, cells = _threshold(1.0)
    assert PINNED_COUNT <= n0
    monkeypatch.setattr(limits_module, "_current", limits_module.Limits(max_table_cells=cells))
    codes = [_cli_fit(correlated_frame(SIZES, n, seed=1), tmp_path, f"d{n}", "--seed", "5") for n in (n0, n0 + 1)]
    assert codes == [0, 0], capsys.readouterr().err
    assert (tmp_path / f"d{n0}.json").read_text() == (tmp_path / f"d{n0 + 1}.json").read_text()


def test_cli_dry_run_under_add_remove_reads_no_data(tmp_path, capsys):
    # The data file does not even exist: nothing is read, and no n is printed.
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(categorical_schema(SIZES).to_dict()))
    args = ["fit", "--method", "privbayes", str(tmp_path / "absent.csv"), "--schema", str(schema), "--epsilon", "1",
            "--neighbours",
            "add-remove", "--dry-run"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "n is private" in out and "--assume-n" in out
    assert cli.main(args + ["--assume-n", "1000"]) == 0
    out = capsys.readouterr().out
    assert "assumed n = 1000" in out and "count n" in out and "conditional" in out


def test_cli_add_remove_success_frequency_does_not_reveal_one_row(tmp_path, monkeypatch):
    # Issue 27's acceptance, with real (seeded) noise: a cap between n0 and n0 + 1 rows.  The fit
    # succeeds when the noisy count (scale 100 at ε = 1) is at most n0, so with probability ≈ 1/2 for
    # both tables; a CLI that used the true n would fit D always... and D + 1 never.  40 seeds each;
    # the two-sided Fisher test at α = 10⁻³ keeps a correct CLI failing this once in a thousand seeds
    # sets, while the old CLI (40/40 vs 0/40-ish) gives p < 10⁻²⁰.
    from scipy.stats import fisher_exact

    n0, cells = _threshold(1.0)
    monkeypatch.setattr(limits_module, "_current", limits_module.Limits(max_table_cells=cells))
    successes = []
    for n, seeds in ((n0, range(0, 40)), (n0 + 1, range(1000, 1040))):
        frame = correlated_frame(SIZES, n, seed=1)
        successes.append(sum(_cli_fit(frame, tmp_path, f"r{n}_{s}", "--seed", str(s)) == 0 for s in seeds))
    print(f"successes out of 40: n0 = {n0}: {successes[0]}, n0 + 1: {successes[1]}")
    assert 0 < successes[0] < 40 and 0 < successes[1] < 40, successes
    assert fisher_exact([[successes[0], 40 - successes[0]], [successes[1], 40 - successes[1]]]).pvalue > 1e-3


@pytest.mark.parametrize("neighbours", ["replace-one", "add-remove"])
def test_private_schema_draft_depends_on_the_data_only_through_its_mechanisms(oblivious, tmp_path, neighbours):
    """``schema infer --epsilon``: two different tables (different rows, values and n) give the same draft."""
    from privbayes import private_draft

    drafts = []
    for seed, n in ((0, 300), (1, 5200)):
        rng = np.random.default_rng(seed)
        frame = pd.DataFrame({"x": rng.normal(50 * seed, 10 + seed, n).round(seed + 1),
                              "k": rng.integers(0, 3 + 7 * seed, n), "job": rng.choice(["a", "b", "zz"], n),
                              "day": [f"{1990 + 30 * seed + i % 9}-01-0{1 + i % 9}" for i in range(n)]})
        frame.to_csv(tmp_path / f"t{seed}.csv", index=False)
        drafts.append(private_draft(tmp_path / f"t{seed}.csv", 20, neighbours=neighbours,
                                    categories={"job": ["a", "b"]}, seed=3).to_yaml())
    assert drafts[0] == drafts[1]
