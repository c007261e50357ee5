"""Input handling that cannot leak (issue 12): values typed by the schema, one by one.

Whether ``fit`` succeeds, and which code a value gets, must depend on that value and the
public schema only — never on the other rows — for every input form; and no message may
carry a private value or a count of rows.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import privbayes
import privbayes.privacy.mechanisms as mechanisms_module
from privbayes import InputError, PrivBayes
from privbayes.cli import main
from privbayes.core.errors import ColumnsLeftOut
from privbayes.counting import InvalidValuesError, leaf_codes
from privbayes.schema import Attribute, Schema

PANDAS_NA_WORDS = ["#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
                   "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]
FORMATS = ["csv", "parquet", "dat", "frame"]


def source(values: list, fmt: str, tmp: Path, name: str = "t"):
    """A two-column table (``v`` holding ``values`` as text, ``z`` a constant) in the given form."""
    frame = pd.DataFrame({"v": pd.Series([str(v) for v in values], dtype=object), "z": ["0"] * len(values)})
    if fmt == "frame":
        return frame
    path = tmp / f"{name}.{fmt}"
    if fmt == "csv":
        path.write_text("v,z\n" + "".join(f'"{v}",0\n' for v in frame["v"]), encoding="utf-8")
    elif fmt == "dat":
        path.write_text("".join(f"{v} 0\n" for v in frame["v"]), encoding="utf-8")
    else:
        pq.write_table(pa.table({"v": pa.array(list(frame["v"]), pa.string()), "z": pa.array(frame["z"])}), path)
    return path


def schema_of(categories: list, **policies) -> Schema:
    return Schema((Attribute("v", "categorical", categories=tuple(categories), **policies),
                   Attribute("z", "categorical", categories=("0",))))


def outcome(src, schema: Schema):
    """The codes of column v, or the error text (with the source's name made neutral)."""
    try:
        return leaf_codes(src, schema)[:, 0].tolist()
    except InputError as exc:
        return "error: " + str(exc).replace(str(src), "SOURCE")


@pytest.mark.parametrize("fmt", FORMATS)
def test_text_names_a_yaml_boolean_category_as_the_schema_file_spells_it(tmp_path, fmt):
    """Categories [false, true] (YAML booleans): text true/false names them as True/False does, in every
    form (the same rule as ``sample --given``); other words are still not categories."""
    assert outcome(source(["true", "false", "True", "False"], fmt, tmp_path), schema_of([False, True])) == [1, 0, 1, 0]
    assert outcome(source(["yes"], fmt, tmp_path, "w"), schema_of([False, True])).startswith("error: ")
    assert outcome(source(["true", "True"], fmt, tmp_path, "s"), schema_of(["true", "True"])) == [0, 1]  # exact first


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("categories, table, neighbour, expected", [
    # leading zeros: "01" must name category "01" whether or not an "x" row exists (issue 12, case 1)
    (["01", "02", "x"], ["01", "02", "x", "02"], ["01", "02", "01", "02"], [[0, 1, 2, 1], [0, 1, 0, 1]]),
    # integer- and float-like categories: "2" is category 2 whether or not a 1.5 row exists
    ([1.5, 2, 3], ["1.5", "2", "3", "2"], ["2", "2", "3", "2"], [[0, 1, 2, 1], [1, 1, 2, 1]]),
    # integer categories written as 1.0 or 01 in the data name the same category, row by row
    ([1, 2, 10], ["1", "2.0", "10", "02"], ["1.0", "2", "10", "02"], [[0, 1, 2, 1], [0, 1, 2, 1]]),
])
def test_neighbouring_tables_get_the_same_codes(tmp_path, fmt, categories, table, neighbour, expected):
    schema = schema_of(categories)
    assert [outcome(source(table, fmt, tmp_path, "a"), schema),
            outcome(source(neighbour, fmt, tmp_path, "b"), schema)] == expected


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("missing", ["refuse", "category"])
def test_every_pandas_na_word_is_an_ordinary_category(tmp_path, fmt, missing):
    words = [w for w in PANDAS_NA_WORDS if not (fmt == "dat" and " " in w)]  # .dat separates on blanks
    schema = schema_of(words, missing=missing)
    for i, word in enumerate(words):  # each word alone, and beside every other one: same code
        assert outcome(source([word, word], fmt, tmp_path, f"w{i}"), schema) == [i, i]
    assert outcome(source(words, fmt, tmp_path, "all"), schema) == list(range(len(words)))


@pytest.mark.parametrize("fmt", ["csv", "parquet", "frame"])
def test_the_empty_field_is_missing_unless_declared(tmp_path, fmt):
    assert outcome(source(["a", ""], fmt, tmp_path, "e1"), schema_of(["a", ""])) == [0, 1]
    assert outcome(source(["a", ""], fmt, tmp_path, "e2"), schema_of(["a", "b"], missing="category")) == [0, 2]
    refused = [outcome(source(rows, fmt, tmp_path, f"e{i}"), schema_of(["a", "b"]))
               for i, rows in enumerate((["a", ""], ["", "b"]))]
    assert refused[0] == refused[1] and refused[0].startswith("error: ")
    token = schema_of(["a", "b"], missing="category", missing_token="?")
    assert outcome(source(["?", "a", " ? "], fmt, tmp_path, "e9"), token) == [2, 0, 2]


@pytest.mark.parametrize("fmt", FORMATS)
def test_neighbours_that_both_fail_fail_with_identical_text(tmp_path, fmt):
    schema = schema_of(["a", "b"])
    first = outcome(source(["a", "SENTINEL_ALPHA_7301", "b"], fmt, tmp_path, "f1"), schema)
    second = outcome(source(["a", "QX_OTHER_VALUE_4417", "b"], fmt, tmp_path, "f1"), schema)
    assert first == second and first.startswith("error: ")


def test_typed_numbers_in_parquet_and_frames_match_by_value(tmp_path):
    schema = Schema((Attribute("v", "categorical", categories=(1, 2, 10)), Attribute("w", "numeric", lower=0, upper=8,
                                                                                     bins=4)))
    frame = pd.DataFrame({"v": [1, 2, 10, 2], "w": [0.5, 2, 8, 7.9]})
    with_null = pd.DataFrame({"v": [1.0, 2.0, 10.0, None], "w": [0.5, 2, 8, 7.9]})  # ints become floats in pandas
    path = tmp_path / "n.parquet"
    pq.write_table(pa.table({"v": pa.array([1, 2, 10, None], pa.int64()), "w": pa.array([0.5, 2, 8, 7.9])}), path)
    assert leaf_codes(frame, schema).tolist() == [[0, 0], [1, 1], [2, 3], [1, 3]]
    missing = Schema((Attribute("v", "categorical", categories=(1, 2, 10), missing="category"), schema.attributes[1]))
    assert leaf_codes(with_null, missing)[:, 0].tolist() == [0, 1, 2, 3]
    assert leaf_codes(path, missing)[:, 0].tolist() == [0, 1, 2, 3]


def test_parquet_read_column_by_column_in_dictionary_form_keeps_the_values(tmp_path):
    """Several row groups, a dictionary-typed text column with nulls, integers with nulls and a
    column the schema does not declare: the codes are those of the same table as a DataFrame,
    and the undeclared column is named in the left-out note."""
    schema = Schema((Attribute("v", "categorical", categories=("a", "b", "c"), missing="category"),
                     Attribute("w", "categorical", categories=(1, 2, 10), missing="category")))
    v = ["a", None, "c", "b", "a", None, "c", "c"]
    w = [1, 2, None, 10, 10, 1, None, 2]
    path = tmp_path / "groups.parquet"
    table = pa.table({"v": pa.array(v, pa.string()).dictionary_encode(), "w": pa.array(w, pa.int64()),
                      "extra": pa.array(range(8), pa.int64())})
    pq.write_table(table, path, row_group_size=3)
    expected = leaf_codes(pd.DataFrame({"v": pd.Series(v, dtype=object), "w": pd.Series(w, dtype=object)}), schema)
    with pytest.warns(ColumnsLeftOut, match="'extra'"):
        got = leaf_codes(path, schema)
    assert got.tolist() == expected.tolist()
    assert got[:, 0].tolist() == [0, 3, 2, 1, 0, 3, 2, 2] and got[:, 1].tolist() == [0, 1, 3, 2, 2, 0, 3, 1]


def test_categories_equal_as_numbers_refuse_a_number_that_matches_both(tmp_path):
    schema = schema_of(["1", "01"])
    assert outcome(source(["1", "01"], "csv", tmp_path), schema) == [0, 1]  # exact text decides
    assert "more than one category" in outcome(source(["1.0"], "csv", tmp_path, "amb"), schema)


# --- invalid-value policies ------------------------------------------------------------------------

def test_invalid_policies_refuse_clip_and_category(tmp_path):
    (tmp_path / "d.csv").write_text("x,c\n-5,a\n3,zzz\n12,b\n")
    numeric = {"name": "x", "kind": "numeric", "lower": 0, "upper": 10, "bins": 5}
    cat = {"name": "c", "kind": "categorical", "categories": ["a", "b"]}
    with pytest.raises(InvalidValuesError) as refused:
        leaf_codes(tmp_path / "d.csv", Schema.from_dict({"attributes": [numeric, cat]}))
    assert refused.value.rows == (1, 3) and "outside the schema's bounds" in str(refused.value)
    clipped = Schema.from_dict({"attributes": [numeric | {"invalid": "clip"},
                                               cat | {"invalid": "category", "missing": "category"}]})
    assert leaf_codes(tmp_path / "d.csv", clipped).tolist() == [[0, 0], [1, 2], [4, 1]]
    schema_wide = Schema.from_dict({"invalid": "clip", "attributes": [numeric, cat]})
    assert schema_wide.attributes[0].invalid == "clip" and schema_wide.attributes[1].invalid == "refuse"
    with pytest.raises(InputError, match="'invalid: category' maps invalid values to the missing category"):
        Schema.from_dict({"attributes": [numeric, cat | {"invalid": "category"}]})


def test_show_invalid_prints_row_numbers_only_when_asked(tmp_path, capsys):
    (tmp_path / "d.csv").write_text("x,c\n1,a\n3,zzz\n12,b\n4,yyy\n")
    (tmp_path / "s.yaml").write_text("attributes:\n- {name: x, kind: numeric, lower: 0, upper: 20}\n"
                                     "- {name: c, kind: categorical, categories: [a, b]}\n")
    args = ["fit", str(tmp_path / "d.csv"), "--schema", str(tmp_path / "s.yaml"), "--epsilon", "1", "-o",
            str(tmp_path / "m.json")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "zzz" not in err and "rows" not in err
    assert main(args + ["--show-invalid"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[1] == "privbayes: data rows (1 = first row after the header): 2, 4"
    assert "zzz" not in err and "yyy" not in err


# --- no private value and no count in any message ----------------------------------------------------

SENTINEL_TEXT = "SENTINEL_TEXT_93817"
SENTINEL_NUMBER = "987654.321"
N_BAD = 4321  # a distinctive count of offending rows


def _planted(kind: str) -> str:
    """A CSV whose column ``x`` (numeric 0..100) or ``c`` (categories a, b) holds N_BAD bad rows."""
    good = ["5,a"] * 50
    if kind == "text-in-categorical":
        bad = [f"5,{SENTINEL_TEXT}"] * N_BAD
    elif kind == "number-out-of-bounds":
        bad = [f"{SENTINEL_NUMBER},a"] * N_BAD
    elif kind == "text-in-numeric":
        bad = [f"{SENTINEL_TEXT},a"] * N_BAD
    else:  # missing values under 'missing: refuse'
        bad = [",a"] * N_BAD
    return "x,c\n" + "\n".join(good + bad) + "\n"


@pytest.mark.parametrize("kind", ["text-in-categorical", "number-out-of-bounds", "text-in-numeric", "missing"])
def test_no_message_carries_a_value_or_a_count(tmp_path, capsys, kind):
    (tmp_path / "s.yaml").write_text("attributes:\n- {name: x, kind: numeric, lower: 0, upper: 100}\n"
                                     "- {name: c, kind: categorical, categories: [a, b]}\n")
    (tmp_path / "bad.csv").write_text(_planted(kind))
    (tmp_path / "good.csv").write_text("x,c\n" + "5,a\n" * 30 + "7,b\n" * 30)
    schema = str(tmp_path / "s.yaml")
    runs = [["fit", str(tmp_path / "bad.csv"), "--schema", schema, "--epsilon", "1", "-o", str(tmp_path / "m.json")],
            ["evaluate", str(tmp_path / "good.csv"), str(tmp_path / "bad.csv"), "--schema", schema],
            ["evaluate", str(tmp_path / "bad.csv"), str(tmp_path / "good.csv"), "--schema", schema]]
    for args in runs:
        assert main(args) == 2
        err = capsys.readouterr().err
        for secret in (SENTINEL_TEXT, SENTINEL_NUMBER, "987654", "9.87654e+05", str(N_BAD), f"{N_BAD:,}"):
            assert secret not in err, (args[0], err)


def test_schema_infer_messages_carry_no_value_or_count(tmp_path, capsys):
    rows = "\n".join(f"{SENTINEL_TEXT}{i},{i % 2}" for i in range(N_BAD))
    (tmp_path / "many.csv").write_text("a,b\n" + rows + "\n")
    # Issue 16: the draft always comes out (the column is proposed as dropped); messages stay value-free.
    assert main(["schema", "infer", str(tmp_path / "many.csv"), "-o", str(tmp_path / "s.yaml")]) == 0
    captured = capsys.readouterr()
    for err in (captured.err, captured.out):
        assert SENTINEL_TEXT not in err and str(N_BAD) not in err and str(N_BAD - 1) not in err


# --- seeds, exact sensitivities ------------------------------------------------------------------------

def test_a_negative_seed_is_a_one_line_error(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["fit", "d.csv", "--schema", "s.yaml", "--epsilon", "1", "--seed", "-1", "-o", "m.json"])
    assert "expected an integer seed in [0, 2^63), got -1" in capsys.readouterr().err
    with pytest.raises(InputError, match=r"random_state \(-1\) must be an integer in \[0, 2\^63\)"):
        PrivBayes(1.0, random_state=-1).fit(pd.DataFrame({"a": ["0"], "b": ["1"]}),
                                            {"attributes": [{"name": "a", "kind": "binary"},
                                                            {"name": "b", "kind": "binary"}]})


@pytest.mark.parametrize("params", [{"score": "R"}, {"score": "I"}, {"encoding": "binary"}, {"encoding": "binary",
                                                                                           "score": "R"}])
def test_every_exponential_step_samples_at_exactly_the_ledgers_epsilon(monkeypatch, params):
    """ε_effective = 2Δ·factor (the exponent's coefficient) equals the ledger's ε for every step."""
    factors = []
    real = mechanisms_module.exponential_choice

    def spy(scores, factor, rng):
        factors.append((factor, scores))
        return real(scores, factor, rng)
    monkeypatch.setattr(mechanisms_module, "exponential_choice", spy)
    schema = Schema(tuple(Attribute(f"a{j}", "categorical", categories=tuple(range(s)))
                          for j, s in enumerate([3, 2, 4, 2])))
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({f"a{j}": rng.integers(0, s, 999) for j, s in enumerate([3, 2, 4, 2])})
    model = PrivBayes(Fraction(7, 10), random_state=1, **params).fit(frame, schema).model_
    steps = [e for e in model.ledger if e.mechanism == "exponential"]
    assert len(steps) == len(factors) > 0
    for entry, (factor, scores) in zip(steps, factors):
        assert isinstance(factor, Fraction) and isinstance(entry.sensitivity, Fraction)
        assert 2 * entry.sensitivity * factor == entry.epsilon  # exact rational equality
        if params.get("score", "F" if "encoding" in params else "R") != "I":
            assert not isinstance(scores, np.ndarray)  # R and F reach the sampler as exact rationals


# --- size caps: refused fast and small ------------------------------------------------------------------

def _refused_quickly(action) -> tuple[float, float]:
    # CPU seconds of this process, not wall time: the work the refusal does, whatever the machine's load.
    # Timed and traced in two runs: tracemalloc slows every allocation several-fold, which is not the
    # refusal's cost (traced and timed together, the same refusal read 0.5-1.02 s under load).
    start = time.process_time()
    with pytest.raises(InputError):
        action()
    seconds = time.process_time() - start
    tracemalloc.start()
    with pytest.raises(InputError) as exc:
        action()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(f"refused in {seconds * 1000:.1f} ms, peak {peak:.1f} MB: {exc.value}", file=sys.stderr)
    return seconds, peak


def _two_numeric(bins: list[int]) -> str:
    return "attributes:\n" + "".join(f"- {{name: n{i}, kind: numeric, lower: 0, upper: 1, bins: {b}}}\n"
                                     for i, b in enumerate(bins))


def test_hostile_schemas_are_refused_in_under_a_second_and_200_mb(tmp_path):
    from privbayes.schema.files import load_schema

    (tmp_path / "bins.yaml").write_text(_two_numeric([2**23, 4]))
    many = {"attributes": [{"name": "c", "kind": "categorical", "categories": list(range(10**7))},
                           {"name": "b", "kind": "binary"}]}  # built before the measurement
    cases = [lambda: load_schema(tmp_path / "bins.yaml"), lambda: Schema.from_dict(many)]
    deep = tmp_path / "deep.yaml"
    deep.write_text("attributes:\n- {name: c, kind: categorical, categories: [0, 1], taxonomy: "
                    + "[" * 5000 + "0" + "]" * 5000 + "}\n- {name: b, kind: binary}\n")
    cases.append(lambda: load_schema(deep))
    for action in cases:
        seconds, peak = _refused_quickly(action)
        assert seconds < 1 and peak < 200


def test_a_schema_file_declaring_ten_million_categories_is_refused_by_size(tmp_path):
    from privbayes.schema.files import load_schema

    path = tmp_path / "cats.json"
    with path.open("w") as out:  # 10^7 categories take ~79 MB of JSON: above the 64 MB file cap
        out.write('{"attributes": [{"name": "b", "kind": "binary"}, {"name": "c", "kind": "categorical", '
                  '"categories": [')
        out.write(",".join(map(str, range(10**7))))
        out.write("]}]}")
    seconds, peak = _refused_quickly(lambda: load_schema(path))
    assert seconds < 1 and peak < 200


def test_a_model_file_declaring_a_2_to_40_cell_table_is_refused(tmp_path):
    import json


    schema = {"attributes": [{"name": f"n{i}", "kind": "numeric", "lower": 0, "upper": 1, "bins": b}
                             for i, b in enumerate([2**16, 2**16, 2**8])]}
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"n{i}": rng.random(50) for i in range(3)})
    PrivBayes(1.0, random_state=0).fit(frame, schema).save(tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["network"] = [{"child": 0, "parents": []}, {"child": 1, "parents": []},
                      {"child": 2, "parents": [[0, 0], [1, 0]]}]
    doc.pop("potentials", None)
    doc["version"] = 3  # the list form of versions 1-3 (version 4's blocks: tests/bayesnet/test_model_blocks.py)
    doc["conditionals"] = [{"shape": [2**16], "probabilities": [2.0**-16] * 2**16},
                           {"shape": [2**16], "probabilities": [2.0**-16] * 2**16},
                           {"shape": [2**16, 2**16, 2**8], "probabilities": [1.0]}]
    (tmp_path / "hostile.json").write_text(json.dumps(doc))
    seconds, peak = _refused_quickly(lambda: privbayes.load(tmp_path / "hostile.json"))
    assert seconds < 1 and peak < 200
    with pytest.raises(InputError, match="a conditional table would have 1.1e\\+12 cells"):
        privbayes.load(tmp_path / "hostile.json")
    (tmp_path / "bins.json").write_text(json.dumps(doc | {"schema": {"attributes": [
        {"name": "n0", "kind": "numeric", "lower": 0, "upper": 1, "bins": 2**23}] + schema["attributes"][1:]}}))
    seconds, peak = _refused_quickly(lambda: privbayes.load(tmp_path / "bins.json"))
    assert seconds < 1 and peak < 200


def test_theta_usefulness_that_would_allow_huge_tables_is_refused_before_counting():
    schema = Schema(tuple(Attribute(f"a{j}", "categorical", categories=tuple(range(40))) for j in range(8)))
    with pytest.raises(InputError, match="θ-usefulness allows noisy tables of up to .* cells, more than the limit"):
        PrivBayes(1e9).plan(45222, schema)
