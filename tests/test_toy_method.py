"""Adding a method is one folder and one registry line; adding a parameter is one declaration
(docs/decisions.md, "Parameter names"): the toy method of tests/toy_method/ shows both."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pandas as pd
import pytest

import privbayes
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.schema import Attribute, Schema
from privbayes.synthesizers import registry
from privbayes.synthesizers.parameters import Parameter, count, count_check, read_parameters, to_parameters

SCHEMA = Schema((Attribute("a", "categorical", categories=("x", "y", "z")), Attribute("b", "binary")))
FRAME = pd.DataFrame({"a": ["x", "y", "z", "x"] * 50, "b": [0, 1, 1, 0] * 50})
EXTRA = Parameter("pseudocount", "added to every noisy count before normalising", 0, count_check(0, count))


@pytest.fixture
def toy(monkeypatch):
    """The toy registered by its one line, on a copy of the registry (undone after the test)."""
    monkeypatch.setattr(registry, "METHODS", dict(registry.METHODS))
    registry.register(registry.Method("toy", "toy_method.method:ToyMarginals", "toy-marginals",
                                      "toy_method.method:from_document", "toy: noisy 1-way marginals",
                                      parameters="toy_method.parameters:PARAMETERS"))


@pytest.fixture
def extra(monkeypatch, toy):
    """The toy with one more parameter: the one declaration added to its tuple, nothing else touched."""
    parameters = importlib.import_module("toy_method.parameters")
    monkeypatch.setattr(parameters, "PARAMETERS", parameters.PARAMETERS + (EXTRA,))
    yield importlib.reload(importlib.import_module("toy_method.method"))
    monkeypatch.undo()
    importlib.reload(importlib.import_module("toy_method.method"))


def _help(argv, capsys) -> str:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_the_toy_fits_saves_loads_and_samples_through_the_registry(toy, tmp_path):
    model = privbayes.synthesizer("toy", epsilon=2, random_state=1).fit(FRAME, SCHEMA)
    assert [e.step for e in model.released_.record.ledger] == ["marginal a", "marginal b"]
    model.save(tmp_path / "toy.json")
    loaded = privbayes.load(tmp_path / "toy.json")
    assert loaded.settings == model.settings() and len(loaded.sample(10, random_state=0)) == 10
    with pytest.raises(registry.InputError, match="already registered"):
        registry.register(registry.METHODS["toy"])


def test_a_parameter_added_by_one_declaration_is_in_every_derived_place(extra, tmp_path, capsys):
    assert "--pseudocount" not in _help(["fit", "--method", "adaptive", "--help"], capsys)
    estimator_class = extra.ToyMarginals
    # the constructor and its docstring
    assert inspect.signature(estimator_class).parameters["pseudocount"].default == 0
    assert "pseudocount : int ≥ 0, default 0" in estimator_class.__doc__
    # the settings: field, default, check
    assert estimator_class(1.0).settings().pseudocount == 0
    with pytest.raises(InputError, match=r"^pseudocount \(-1\) must be an integer ≥ 0$"):
        estimator_class(1.0, pseudocount=-1).settings()
    # the model file's parameters, both ways
    settings = estimator_class(1.0, pseudocount=3).settings()
    written = to_parameters(settings, "toy")
    assert written["pseudocount"] == 3
    assert extra.ToySettings(**read_parameters(extra.PARAMETERS, written, owner="toy")) == settings
    # the command line: its flag, default and help, and the value reaching the model file
    shown = _help(["fit", "--method", "toy", "--help"], capsys)
    assert "--pseudocount PSEUDOCOUNT added to every noisy count before normalising (default 0)" in shown
    FRAME.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "s.yaml").write_text("attributes:\n- {name: a, kind: categorical, categories: [x, y, z]}\n"
                                     "- {name: b, kind: binary}\n")
    base = ["fit", str(tmp_path / "d.csv"), "--schema", str(tmp_path / "s.yaml"), "--method", "toy", "--seed", "1"]
    assert main([*base, "--pseudocount", "2", "-o", str(tmp_path / "m.json")]) == 0
    assert privbayes.load(tmp_path / "m.json").settings.pseudocount == 2
    with pytest.raises(SystemExit) as refused:
        main([*base, "--pseudocount", "-1", "-o", str(tmp_path / "n.json")])
    assert refused.value.code == 2 and "--pseudocount: expected an integer >= 0, got -1" in capsys.readouterr().err
    assert main([*base, "--method", "toy", "--rounds", "3", "-o", str(tmp_path / "n.json")]) == 2
    assert "--rounds does not apply to --method toy" in capsys.readouterr().err
    assert not (tmp_path / "n.json").exists()


def test_without_the_declaration_the_toy_has_no_such_parameter(toy):
    from toy_method.method import ToyMarginals

    with pytest.raises(InputError, match=r"ToyMarginals has no parameter 'pseudocount'"):
        ToyMarginals(1.0, pseudocount=2)
    assert np.isclose(sum(ToyMarginals(1.0, random_state=2).fit(FRAME, SCHEMA).released_.probabilities[1]), 1.0)
