"""The release contract, for every registered method (docs/architecture.md, "The release contract").

Each case is a method of :mod:`privbayes.synthesizers.registry` with small parameters; a method
added to the registry without a case here fails ``test_every_registered_method_has_a_case``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame
from sklearn.base import clone

import privbayes
from privbayes import AdaptiveMarginals, PrivateMRF, PrivBayes, SAPrivBayes
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.methods.nbc.estimator import SafeNBC
from privbayes.synthesizers.registry import METHODS

SIZES = [3, 4, 2, 5]
CHAIN = [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]
CASES = {
    "privbayes": lambda **kw: PrivBayes(1.0, random_state=3, **kw),
    "privbayes-add-remove": lambda **kw: PrivBayes(1.0, neighbours="add-remove", random_state=3, **kw),
    "sa-privbayes": lambda **kw: SAPrivBayes(1.0, random_state=3, **kw),
    "sa-privbayes-faithful": lambda **kw: SAPrivBayes(1.0, mode="faithful", random_state=3, **kw),
    "mrf": lambda **kw: PrivateMRF(CHAIN, 1.0, random_state=3, **kw),
    "mrf-add-remove": lambda **kw: PrivateMRF(CHAIN, 1.0, estimation="naive", neighbours="add-remove",
                                              random_state=3, **kw),
    "mrf-psgd": lambda **kw: PrivateMRF(CHAIN, 1.0, estimation="psgd", psgd_steps=3, random_state=3, **kw),
    # not DP: an empty plan, a privacy-breach bound; γ so large that the counts are published as they are
    # (SafetyTransform's identity case), so that the synthetic table has the table's own size
    "nbc": lambda **kw: SafeNBC("a3", gamma=10**14, **kw),
    "adaptive": lambda **kw: AdaptiveMarginals(1.0, random_state=3, **kw),
    "adaptive-add-remove": lambda **kw: AdaptiveMarginals(1.0, neighbours="add-remove", random_state=3, **kw),
}
CLI = {"privbayes": ["--method", "privbayes"], "privbayes-add-remove": ["--method", "privbayes", "--neighbours",
                     "add-remove"],
       "sa-privbayes": ["--method", "sa-privbayes"], "sa-privbayes-faithful": ["--method", "sa-privbayes", "--mode",
                                                                               "faithful"],
       "mrf": ["--method", "mrf", "--cliques", "a0,a1;a1,a2;a2,a3"],
       "mrf-add-remove": ["--method", "mrf", "--cliques", "a0,a1;a1,a2;a2,a3", "--estimation", "naive",
                          "--neighbours", "add-remove"],
       "mrf-psgd": ["--method", "mrf", "--cliques", "a0,a1;a1,a2;a2,a3", "--estimation", "psgd", "--psgd-steps", "3"],
       "nbc": ["--method", "nbc", "--class", "a3", "--gamma", "100000000000000"],
       "adaptive": ["--method", "adaptive"],
       "adaptive-add-remove": ["--method", "adaptive", "--neighbours", "add-remove"]}
NOT_DP_FLAGS = {"nbc"}
"""Cases that take no --epsilon and no --seed."""
PARAMETER = {"privbayes": ("beta", 0.4), "sa-privbayes": ("beta", 0.4), "mrf": ("l2", 0.5),
             "nbc": ("condition", "corollary4"),
             "adaptive": ("select_share", 0.3)}
"""A parameter to set, by method, for the clone test."""
SCHEMA = categorical_schema(SIZES)
FRAME = correlated_frame(SIZES, 600, seed=1)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("contract")
    FRAME.to_csv(folder / "data.csv", index=False)
    (folder / "schema.json").write_text(json.dumps(SCHEMA.to_dict()))
    return folder


@pytest.fixture(scope="module")
def fitted():
    return {name: make().fit(FRAME, SCHEMA) for name, make in CASES.items()}


def test_every_registered_method_has_a_case():
    assert {type(make()).method for make in CASES.values()} == set(METHODS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_clone_round_trips_and_repr_shows_the_parameters(name):
    key, value = PARAMETER[type(CASES[name]()).method]
    estimator = CASES[name](**{key: value})
    twin = clone(estimator)
    assert type(twin) is type(estimator) and twin.get_params() == estimator.get_params()
    assert twin is not estimator
    shown = repr(estimator)
    assert shown.startswith(type(estimator).__name__ + "(") and f"{key}={value!r}" in shown
    assert estimator.set_params(**{key: value}) is estimator and getattr(estimator, key) == value
    with pytest.raises(InputError, match="has no parameter 'nope'"):
        estimator.set_params(nope=1)


@pytest.mark.parametrize("make, meant", [(lambda: privbayes.synthesizer("privbayes", thetta=4), "theta"),
                                         (lambda: PrivBayes(1.0, thetta=4), "theta"),
                                         (lambda: AdaptiveMarginals(1.0, thetta=4), "rounds_theta"),
                                         (lambda: privbayes.synthesizer(thetta=4), "rounds_theta")])
def test_a_misspelt_parameter_is_one_line_naming_it_and_its_close_match(make, meant):
    with pytest.raises(InputError, match=rf"has no parameter 'thetta' \(did you mean '{meant}'\?\); its parameters: "
                                         r"epsilon, ") as caught:
        make()
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("make, old, new", [(lambda: AdaptiveMarginals(1.0, theta=4), "theta", "rounds_theta"),
                                            (lambda: AdaptiveMarginals(1.0, degree=3), "degree", "marginal_degree"),
                                            (lambda: SAPrivBayes(1.0, lam=0.5), "lam", "keep_fraction")])
def test_a_renamed_parameters_old_name_points_to_the_new_one(make, old, new):
    with pytest.raises(InputError, match=rf"has no parameter '{old}' \(renamed '{new}'\); its parameters: epsilon, "):
        make()


def test_missing_and_extra_positional_parameters_are_one_line_errors():
    with pytest.raises(InputError, match=r"^PrivateMRF needs the parameter 'cliques'$"):
        PrivateMRF(epsilon=1.0)
    with pytest.raises(InputError, match=r"^PrivBayes takes 'epsilon' by position and every other parameter by name"):
        PrivBayes(1.0, 0.3)
    with pytest.raises(InputError, match=r"has no parameter 'class_nme' \(did you mean 'class_name'\?\)"):
        SafeNBC(class_nme="y")
    with pytest.raises(InputError, match=r"has no parameter 'mdoe' \(did you mean 'mode'\?\)"):
        SAPrivBayes(1.0, mdoe="strict")
    with pytest.raises(InputError, match=r"has no parameter 'theat' \(did you mean 'theta'\?\)"):
        PrivBayes(1.0).set_params(theat=3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_plan_made_before_the_data_is_the_ledger_after(name, fitted):
    estimator = fitted[name]
    released = estimator.released_
    n_public = estimator.n_public(estimator.settings())
    # Under add/remove the plan is made at the noisy count (PrivBayes) or does not depend on n (MRF).
    before = estimator.plan(len(FRAME) if n_public else round(released.n), SCHEMA)
    assert before == released.plan
    before.check(released.ledger)
    assert sum((e.epsilon for e in released.ledger), Fraction(0)) == before.spent
    assert released.privacy_report()["method"] == type(estimator).method


@pytest.mark.parametrize("name", sorted(CASES))
def test_save_load_gives_the_same_samples(name, fitted, tmp_path):
    released = fitted[name].released_
    released.save(tmp_path / "m.json")
    loaded = privbayes.load(tmp_path / "m.json")
    assert type(loaded) is type(released) and loaded.ledger == released.ledger and loaded.plan == released.plan
    pd.testing.assert_frame_equal(loaded.sample(random_state=7), released.sample(random_state=7))
    assert loaded.privacy_report().to_dict() == released.privacy_report().to_dict()


def _tamper_ledger(document):
    entry = document["ledger"][-1]
    entry["epsilon_exact"] = str(Fraction(entry["epsilon_exact"]) / 2)
    entry["epsilon"] = float(Fraction(entry["epsilon_exact"]))


def _tamper_plan_parameters(document):
    document["parameters"]["epsilon"], document["parameters"]["epsilon_exact"] = 2.0, "2"


def _tamper_views(document):
    """NBC: a tighter bound than the counts satisfy (its 'ledger' is the bound it states)."""
    document["safety"]["gamma"], document["safety"]["gamma_exact"] = 1.0001, "10001/10000"


@pytest.mark.parametrize("name", list(CASES))
def test_every_release_takes_the_draw_switch(name, fitted):
    """``sample(draw=…)`` is part of the contract: a name other than balanced or iid is a one-line error on every
    method; both draws give rows, or, where rows are not drawn (NBC views), a one-line refusal."""
    model, n = fitted[name], None if name == "nbc" else 20  # NBC views: exactly the published rows
    with pytest.raises(InputError, match="draw"):
        model.sample(n, random_state=0, draw="stratified")
    for draw in ("iid", "balanced"):
        if name == "nbc":
            with pytest.raises(InputError, match="draw does not apply to NBC views"):
                model.sample(n, random_state=0, draw=draw)
        else:
            assert list(model.sample(n, random_state=0, draw=draw).columns) == list(SCHEMA.names)


@pytest.mark.parametrize("tamper", [_tamper_ledger, _tamper_plan_parameters])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_tampered_ledger_or_plan_is_refused(name, tamper, fitted, tmp_path):
    document = fitted[name].released_.to_document()
    views = fitted[name].released_.method == "nbc"
    (_tamper_views if views else tamper)(document)
    (tmp_path / "t.json").write_text(json.dumps(document))
    with pytest.raises(InputError, match="do not satisfy the bound" if views else "ledger differs from the plan"):
        privbayes.load(tmp_path / "t.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_empty_table_behaves_as_the_relation_demands(name):
    estimator = CASES[name]()
    empty = FRAME.iloc[:0]
    if estimator.n_public(estimator.settings()):
        with pytest.raises(InputError, match="no rows"):
            estimator.fit(empty, SCHEMA)
    else:  # a neighbour of every one-row table: it must fit like any other table
        assert len(estimator.fit(empty, SCHEMA).sample(5, random_state=1)) == 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_and_duckdb_give_the_same_seeded_model(name, files):
    models = [CASES[name]().fit(files / "data.csv", SCHEMA, backend=backend).released_.to_document()
              for backend in ("numpy", "duckdb")]
    assert models[0] == models[1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_command_line_verbs_work_for_every_method(name, files, tmp_path, capsys):
    data, schema, model = str(files / "data.csv"), str(files / "schema.json"), str(tmp_path / "m.json")
    budget = [] if name in NOT_DP_FLAGS else ["--epsilon", "1", "--seed", "3"]
    fit = ["fit", data, "--schema", schema, *budget, *CLI[name]]
    assert main([*fit, "--dry-run"]) == 0
    assert "budget plan" in capsys.readouterr().out  # NBC: an empty one ("nothing is paid for")
    assert main([*fit, "-o", model]) == 0
    assert f"wrote {model}" in capsys.readouterr().out
    assert main(["inspect", model]) == 0
    out = capsys.readouterr().out
    assert "ledger:" in out and "budget plan:" in out
    assert main(["inspect", model, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == type(CASES[name]()).method
    assert main(["sample", model, "--seed", "1", "-o", str(tmp_path / "s.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "s.csv")) == round(privbayes.load(model).n)
    capsys.readouterr()
    assert main(["evaluate", data, str(tmp_path / "s.csv"), "--model", model, "--no-classifier"]) == 0
    assert "verdict" in capsys.readouterr().out


def test_the_default_method_is_the_same_for_the_command_line_and_python():
    """``privbayes fit`` without --method and ``privbayes.synthesizer()`` build the registry's default,
    the adaptive method of issue 31; ``--method privbayes`` keeps TODS 2017's algorithm."""
    import privbayes
    from privbayes.cli.program import _parser
    from privbayes.synthesizers.registry import DEFAULT_METHOD

    assert DEFAULT_METHOD == "adaptive"
    assert type(privbayes.synthesizer(epsilon=1.0)) is AdaptiveMarginals
    assert type(privbayes.synthesizer("privbayes", epsilon=1.0, estimation="paper")) is PrivBayes
    assert _parser().parse_args(["fit", "d.csv"]).method is None  # resolved to DEFAULT_METHOD by fit
