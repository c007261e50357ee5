"""Conditional sampling on released models (issue 29): rows given fixed values of some columns,
drawn exactly from the released model's conditional — checked against enumeration of the joint."""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame
from scipy.stats import chisquare

from privbayes import PrivateMRF, PrivBayes
from privbayes.bayesnet.network import APPair, Network
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.schema import Attribute, Schema

N = 100_000
ALPHA = 1e-3
"""χ² goodness of fit at a fixed seed: a correct sampler fails with probability 10⁻³ per test."""


def _random_table(rng, shape):
    table = rng.random(shape) + 0.05
    return table / table.sum(axis=-1, keepdims=True)


def _model_with(network: Network, schema: Schema, encoding: str, seed: int):
    """A released PrivBayes model whose network and conditionals are set by hand (random, known)."""
    frame = correlated_frame([a.size for a in schema.attributes], 200, seed=1)
    frame.columns = schema.names
    fitted = PrivBayes(1.0, encoding=encoding, random_state=1, estimation="paper").fit(frame, schema).released_
    attrs = fitted.encoding.attributes
    rng = np.random.default_rng(seed)
    conditionals = tuple(_random_table(rng, [attrs[a].level_size(lvl) for a, lvl in pair.parents]
                                       + [attrs[pair.child].size]) for pair in network.pairs)
    return dataclasses.replace(fitted, network=network, conditionals=conditionals, learned_network=None)


def _joint(model) -> np.ndarray:
    """p over the schema's leaf codes, by enumerating the encoded domain and decoding."""
    attrs = model.encoding.attributes
    joint = np.zeros([a.size for a in model.schema.attributes])
    for encoded in itertools.product(*(range(a.size) for a in attrs)):
        p = 1.0
        for pair, table in zip(model.network.pairs, model.conditionals):
            index = tuple(attrs[a].levels[lvl][encoded[a]] for a, lvl in pair.parents) + (encoded[pair.child],)
            p *= table[index]
        leaves = model.encoding.decode(np.array([encoded]))[0]
        joint[tuple(leaves)] += p
    return joint


def _check(model, conditions: dict, codes: dict[int, int], seed: int = 3) -> None:
    joint = _joint(model)
    given = joint[tuple(codes.get(j, slice(None)) for j in range(joint.ndim))]
    expected = given.ravel() / given.sum()
    rows = model.sample(N, random_state=seed, bin_labels=True, conditions=conditions)
    leaves = np.column_stack([_leaf(model.schema.attributes[j], rows.iloc[:, j]) for j in range(joint.ndim)])
    for j, code in codes.items():
        assert np.all(leaves[:, j] == code)
    free = [j for j in range(joint.ndim) if j not in codes]
    observed = np.bincount(np.ravel_multi_index(tuple(leaves[:, j] for j in free), given.shape), minlength=given.size)
    keep = expected > 0
    assert observed[~keep].sum() == 0
    assert chisquare(observed[keep], N * expected[keep]).pvalue > ALPHA


def _leaf(attr: Attribute, column: pd.Series) -> np.ndarray:
    labels = [str(c) for c in attr.categories] if not attr.numeric else attr.bin_labels(6)
    return column.astype(str).map({label: i for i, label in enumerate(labels)}).to_numpy()


def test_a_condition_on_a_descendant_reaches_back_through_the_network():
    # a0 → a1 → a2 (a chain) with a2 fixed: the sampler must update a0 and a1 by inference, which
    # forward sampling with the condition plugged in would not do.
    schema = categorical_schema([3, 2, 4])
    network = Network((APPair(0), APPair(1, ((0, 0),)), APPair(2, ((1, 0), (0, 0)))))
    model = _model_with(network, schema, "vanilla", seed=5)
    _check(model, {"a2": 3}, {2: 3})
    _check(model, {"a0": "1", "a2": 0}, {0: 1, 2: 0}, seed=4)


def test_generalised_parents_are_read_through_their_taxonomy():
    attrs = (Attribute("a0", "categorical", categories=(0, 1, 2, 3), taxonomy=((0, 1), (2, 3))),
             Attribute("a1", "categorical", categories=(0, 1, 2)), Attribute("a2", "categorical", categories=(0, 1)))
    schema = Schema(attrs)
    network = Network((APPair(0), APPair(1, ((0, 1),)), APPair(2, ((1, 0), (0, 1)))))  # a0 at level 1 (2 groups)
    model = _model_with(network, schema, "hierarchical", seed=6)
    _check(model, {"a2": 1}, {2: 1})


def test_binary_encodings_condition_on_every_bit_pattern_of_a_value():
    # Sizes 3 and 5 take 2 and 3 bits; the patterns past the last code decode to it (encoding.decode clips),
    # so the condition on the last code is on several bit patterns.
    schema = categorical_schema([3, 5, 2])
    for encoding in ("binary", "gray"):
        bits = 2 + 3 + 1
        pairs = [APPair(0)] + [APPair(b, tuple((p, 0) for p in range(max(0, b - 2), b))) for b in range(1, bits)]
        model = _model_with(Network(tuple(pairs)), schema, encoding, seed=7)
        _check(model, {"a0": 2}, {0: 2})
        _check(model, {"a1": 4}, {1: 4}, seed=8)


def test_a_condition_of_probability_zero_is_refused_in_one_line():
    schema = categorical_schema([3, 2])
    network = Network((APPair(0), APPair(1, ((0, 0),))))
    model = _model_with(network, schema, "vanilla", seed=9)
    root = np.array([0.5, 0.5, 0.0])
    model = dataclasses.replace(model, conditionals=(root, model.conditionals[1]))
    with pytest.raises(InputError, match=r"^the conditions a0 = 2 have probability zero under the model"):
        model.sample(10, conditions={"a0": 2})
    with pytest.raises(InputError, match="is not one of its categories"):
        model.sample(10, conditions={"a0": "seven"})
    with pytest.raises(InputError, match="no attribute named 'zz'"):
        model.sample(10, conditions={"zz": 1})


def test_a_numeric_condition_fixes_the_value_and_conditions_on_its_bin():
    schema = Schema((Attribute("age", "numeric", lower=0, upper=100, bins=4, integer=True),
                     Attribute("c", "categorical", categories=("x", "y"))))
    frame = pd.DataFrame({"age": np.random.default_rng(1).integers(0, 100, 500),
                          "c": np.random.default_rng(2).choice(["x", "y"], 500)})
    model = PrivBayes(1.0, random_state=1).fit(frame, schema).released_
    rows = model.sample(50, random_state=2, conditions={"age": 37})
    assert (rows["age"] == 37).all() and str(rows["age"].dtype) == "Int64"
    with pytest.raises(InputError, match="takes whole numbers"):
        model.sample(5, conditions={"age": 37.5})
    with pytest.raises(InputError, match="outside the domain"):
        model.sample(5, conditions={"age": 400})


def test_mrf_conditional_sampling_matches_enumeration():
    cliques = [("a0", "a1"), ("a1", "a2"), ("a2", "a0")]  # a cycle: the junction tree is one clique
    schema = categorical_schema([3, 2, 3])
    fitted = PrivateMRF(cliques, 1.0, estimation="naive", random_state=1).fit(correlated_frame([3, 2, 3], 300, 1),
                                                                               schema).released_
    rng = np.random.default_rng(4)
    theta = tuple(rng.normal(size=t.shape) for t in fitted.model.theta)
    released = dataclasses.replace(fitted, model=fitted.model.with_theta(theta))
    logp = np.zeros((3, 2, 3))
    for (a, b), table in zip([(0, 1), (1, 2), (2, 0)], theta):
        logp += np.expand_dims(table if a < b else table.T, axis=3 - a - b)
    joint = np.exp(logp - logp.max())
    given = joint[:, 1, :]
    expected = (given / given.sum()).ravel()
    rows = released.sample(N, random_state=5, conditions={"a1": 1})
    assert (rows["a1"] == 1).all()
    observed = np.bincount(rows["a0"].to_numpy(int) * 3 + rows["a2"].to_numpy(int), minlength=9)
    assert chisquare(observed, N * expected).pvalue > ALPHA


def test_the_command_line_samples_given_values(tmp_path, capsys):
    frame = correlated_frame([3, 2, 4], 400, seed=2)
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "s.json").write_text(json.dumps(categorical_schema([3, 2, 4]).to_dict()))
    assert main(["fit", str(tmp_path / "d.csv"), "--schema", str(tmp_path / "s.json"), "--epsilon", "2",
                 "--seed", "1", "-o", str(tmp_path / "m.json")]) == 0
    assert main(["sample", str(tmp_path / "m.json"), "-n", "300", "--given", "a1=1", "--given", "a2=3", "--seed", "2",
                 "-o", str(tmp_path / "s.csv")]) == 0
    rows = pd.read_csv(tmp_path / "s.csv")
    assert len(rows) == 300 and (rows["a1"] == 1).all() and (rows["a2"] == 3).all()
    capsys.readouterr()
    assert main(["sample", str(tmp_path / "m.json"), "--given", "a1=9", "-o", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not one of its categories" in err and not (tmp_path / "x.csv").exists()


def _yaml_spelled_model(tmp_path):
    """A model over a YAML-boolean column ([false, true] in the schema file), a float-category column and a date."""
    (tmp_path / "s.yaml").write_text(
        "attributes:\n"
        "- {name: member, kind: categorical, categories: [false, true]}\n"
        "- {name: score, kind: categorical, categories: [1.0, 2.5]}\n"
        "- {name: day, kind: date, lower: 2020-01-01, upper: 2020-12-31, bins: 4}\n")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"member": rng.choice([True, False], 300), "score": rng.choice([1.0, 2.5], 300),
                          "day": rng.choice(["2020-02-01", "2020-07-01"], 300)})
    frame.to_parquet(tmp_path / "d.parquet")
    assert main(["fit", str(tmp_path / "d.parquet"), "--schema", str(tmp_path / "s.yaml"), "--epsilon", "2",
                 "--seed", "1", "-o", str(tmp_path / "m.json")]) == 0
    return tmp_path / "m.json"


def test_given_values_are_spelled_as_in_the_schema_file(tmp_path, capsys):
    model = _yaml_spelled_model(tmp_path)
    for member, score, day in (("true", "1.0", "2020-02-03"), ("True", "1", "2020-07-01"), ("false", "2.5", None)):
        given = ["--given", f"member={member}", "--given", f"score={score}"]
        given += ["--given", f"day={day}"] if day else []
        assert main(["sample", str(model), "-n", "40", *given, "--seed", "2", "-o", str(tmp_path / "s.csv")]) == 0
        rows = pd.read_csv(tmp_path / "s.csv", dtype=str)
        assert (rows["member"] == str(member.lower() == "true")).all()
        assert (rows["score"].astype(float) == float(score)).all()
        if day:
            assert (rows["day"] == day).all()
    capsys.readouterr()
    for given, expected in (("member=yes", "'yes' is not one of its categories; expected one of false, true"),
                            ("score=3", "expected one of 1.0, 2.5"),
                            ("day=2021-01-01", "outside the domain; expected a date in [2020-01-01, 2020-12-31]")):
        assert main(["sample", str(model), "--given", given, "-o", str(tmp_path / "x.csv")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and expected in err, err


def test_a_large_domain_is_named_by_its_size_and_numbers_by_their_bounds():
    schema = Schema((Attribute("age", "numeric", lower=0, upper=100, bins=4, integer=True),
                     Attribute("c", "categorical", categories=tuple(f"k{i}" for i in range(21)))))
    frame = pd.DataFrame({"age": np.arange(300) % 100, "c": [f"k{i % 21}" for i in range(300)]})
    model = PrivBayes(1.0, random_state=1).fit(frame, schema).released_
    with pytest.raises(InputError, match=r"'zz' is not one of its categories; expected one of its 21 categories"):
        model.sample(5, conditions={"c": "zz"})
    with pytest.raises(InputError, match=r"outside the domain; expected a whole number in \[0, 100\]$"):
        model.sample(5, conditions={"age": 400})


@pytest.mark.parametrize("value", [pd.NA, pd.NaT, float("nan"), None, 10**400, -(10**5000), [1], ("x",), {"a": 1},
                                   np.array([1, 2]), object(), float("inf"), "1e999"],
                         ids=lambda value: type(value).__name__)
def test_hostile_condition_values_are_one_line_errors_naming_the_column(value):
    schema = Schema((Attribute("age", "numeric", lower=0, upper=100, bins=4, integer=True),
                     Attribute("c", "categorical", categories=("x", "y"))))
    frame = pd.DataFrame({"age": np.arange(200) % 100, "c": ["x", "y"] * 100})
    model = PrivBayes(1.0, random_state=1).fit(frame, schema).released_
    for column in ("age", "c"):
        with pytest.raises(InputError, match=f"^attribute '{column}'") as caught:
            model.sample(5, conditions={column: value})
        assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_empty_text_and_the_missing_token_name_the_missing_value_as_in_data():
    from privbayes.schema.values import code_of

    schema = Schema((Attribute("age", "numeric", lower=0, upper=100, bins=4, integer=True, missing="category",
                               missing_token="?"),
                     Attribute("c", "categorical", categories=("x", "y"))))
    age, c = schema.attributes
    assert code_of(age, "") == code_of(age, "?") == code_of(age, None) == age.base_size
    with pytest.raises(InputError, match=r"^attribute 'c' has no missing value to condition on; expected one of x, y$"):
        code_of(c, " ")
