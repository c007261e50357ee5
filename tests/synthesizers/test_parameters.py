"""Each parameter declared once (docs/decisions.md, "Parameter names"): what the declarations derive, and the
model-file keys that renamed parameters keep."""

from __future__ import annotations

import inspect
from fractions import Fraction

import pytest

from privbayes import AdaptiveMarginals, PrivBayes, SAPrivBayes
from privbayes.core.errors import InputError
from privbayes.methods.adaptive.settings import AdaptiveSettings
from privbayes.methods.sa_privbayes.settings import SASettings
from privbayes.synthesizers.parameters import (
    EPSILON,
    DeclaredSettings,
    Parameter,
    count_check,
    exact_check,
    fixed,
    read_parameters,
    to_parameters,
)
from privbayes.synthesizers.registry import METHODS

TOY = (EPSILON, Parameter("ratio", "a ratio", Fraction(1, 2), exact_check(Fraction(0), Fraction(1)), stored="exact",
                          optional=True),
       Parameter("steps", "steps", 3, count_check(1), legacy=1, key="n_steps"), fixed("engine", "exact"))


class ToySettings(DeclaredSettings):
    parameters = TOY
    ratio: Fraction | None


def test_settings_fields_defaults_and_checks_come_from_the_declarations():
    settings = ToySettings(0.3)
    assert (settings.epsilon, settings.ratio, settings.steps) == (Fraction(3, 10), Fraction(1, 2), 3)
    assert ToySettings(1, ratio="2/5").ratio == Fraction(2, 5) and ToySettings(1, ratio=None).ratio is None
    with pytest.raises(InputError, match=r"^ratio \(1\) must be in \(0, 1\)$"):
        ToySettings(1, ratio=1)
    with pytest.raises(InputError, match=r"^steps \(0\) must be an integer ≥ 1$"):
        ToySettings(1, steps=0)
    with pytest.raises(TypeError, match="annotates fields no parameter declares"):
        type("Bad", (DeclaredSettings,), {"parameters": TOY, "__annotations__": {"typo": "int"}})


def test_model_file_parameters_in_declaration_order_under_their_keys_and_back():
    settings = ToySettings(1, ratio=Fraction(1, 3), steps=5)
    written = to_parameters(settings, "toy")
    assert list(written) == ["method", "epsilon", "epsilon_exact", "ratio", "ratio_exact", "n_steps", "engine"]
    assert written["ratio_exact"] == "1/3" and written["n_steps"] == 5 and written["engine"] == "exact"
    assert ToySettings(**read_parameters(TOY, written, owner="toy")) == settings
    older = {k: v for k, v in written.items() if k != "n_steps"}  # a file from before the key: its legacy value
    assert read_parameters(TOY, older, owner="toy")["steps"] == 1
    with pytest.raises(InputError, match=r"unknown toy parameters \['extra'\]"):
        read_parameters(TOY, written | {"extra": 1}, owner="toy")
    with pytest.raises(InputError, match=r"engine \('loopy'\) must be one of exact"):
        read_parameters(TOY, written | {"engine": "loopy"}, owner="toy")
    with pytest.raises(InputError, match="disagree"):
        read_parameters(TOY, written | {"ratio_exact": "1/4"}, owner="toy")


@pytest.mark.parametrize("name", list(METHODS))
def test_every_estimator_documents_each_parameter_from_its_declaration(name):
    estimator = METHODS[name].estimator_class()
    doc = inspect.getdoc(estimator)
    assert "Parameters\n----------" in doc
    for parameter in inspect.signature(estimator).parameters:
        assert f"\n{parameter} : " in doc, parameter


def test_renamed_parameters_keep_their_model_file_keys():
    adaptive = AdaptiveMarginals(1.0, marginal_degree=3, rounds_theta=9.0).settings().to_parameters()
    assert adaptive["degree"] == 3 and adaptive["theta"] == 9.0 and "marginal_degree" not in adaptive
    assert AdaptiveSettings.from_parameters(adaptive).rounds_theta == 9.0
    sa = SAPrivBayes(1.0, keep_fraction="1/2").settings().to_parameters()
    assert sa["lambda"] == "1/2" and list(sa)[:3] == ["method", "mode", "epsilon"]
    assert SASettings.from_parameters(sa, version=4).keep_fraction == Fraction(1, 2)


def test_the_estimator_stores_parameters_unmodified_and_validates_in_settings():
    estimator = PrivBayes(0.3, beta="1/4", theta=2)
    assert (estimator.epsilon, estimator.beta, estimator.theta) == (0.3, "1/4", 2)
    assert estimator.settings().beta == Fraction(1, 4) and estimator.settings().theta == 2.0
    assert repr(estimator) == "PrivBayes(epsilon=0.3, beta='1/4', theta=2)"
    with pytest.raises(InputError, match=r"^beta \(1\) must be in \(0, 1\)$"):
        PrivBayes(beta=1).settings()
