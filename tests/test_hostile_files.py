"""Hostile schemas, priors, views and model files (issue 27): bounded parsing, total caps, wide
schemas, MRF inference caps, seeds and plot labels.

Each class of attack found on main at 39cde02 has a test here that failed there (a hang, gigabytes,
a traceback, a partial output, or acceptance) and passes now: the refusal is one line, exit 2,
no output file, and (where the attack was about resources) fast and small.  Attacks that hung on
main run in a subprocess with a timeout, so that the old code fails the test instead of hanging it.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
import tracemalloc
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import run_cli

import privbayes
from privbayes.cli import main
from privbayes.core.errors import InputError

SRC = Path(__file__).resolve().parents[1] / "src"
SCHEMA = ("attributes:\n"
          "  - {name: a, kind: categorical, categories: [x, y, z]}\n"
          "  - {name: b, kind: binary}\n"
          "  - {name: c, kind: categorical, categories: [p, q]}\n")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    """Valid data, schema, PrivBayes and MRF models, and an empty ``out`` folder."""
    w = tmp_path_factory.mktemp("hostile_files")
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.choice(list("xyz"), 60), "b": rng.integers(0, 2, 60),
                  "c": rng.choice(list("pq"), 60)}).to_csv(w / "data.csv", index=False)
    (w / "schema.yaml").write_text(SCHEMA)
    (w / "out").mkdir()
    assert main(["fit", "--method", "privbayes", str(w / "data.csv"), "--schema", str(w / "schema.yaml"), "--epsilon",
                 "1", "--degree", "1",
                 "--seed", "1", "-o", str(w / "model.json")]) == 0
    assert main(["fit", str(w / "data.csv"), "--method", "mrf", "--schema", str(w / "schema.yaml"), "--cliques",
                 "a,b;b,c", "--epsilon", "1", "--estimation", "naive", "--seed", "1", "-o", str(w / "mrf.json")]) == 0
    return w


def assert_one_line_refusal(code, err: str, out: Path | None = None, *, mentions: str = "") -> None:
    assert code == 2, f"exit {code}: {err!r}"
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("privbayes: error: "), err
    assert mentions in lines[0], lines[0]
    if out is not None:
        assert os.listdir(out) == [], f"left behind: {os.listdir(out)}"


def subprocess_cli(args: list[str], timeout: float = 30) -> tuple[int, str, float]:
    """The CLI in a fresh interpreter (a hang on old code becomes a failure here)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    try:
        result = subprocess.run([sys.executable, "-m", "privbayes.cli", *args], capture_output=True, text=True,
                                env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout} s: {args}")
    return result.returncode, result.stderr, time.perf_counter() - start


def alias_bomb(prefix: str, levels: int) -> str:
    """A YAML flow sequence whose anchors expand to 10**levels strings in well under 1 KB."""
    items = [f"&{prefix}0 [" + ", ".join(["xxxxxxxx"] * 10) + "]"]
    items += [f"&{prefix}{i} [" + ", ".join([f"*{prefix}{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "[" + ", ".join(items) + "]"


def bomb_schema(where: str, levels: int) -> str:
    bomb = alias_bomb("a", levels)
    attrs = {"drop": "  - {name: a, kind: categorical, categories: [x, y]}\n",
             "taxonomy": f"  - {{name: a, kind: categorical, categories: [x, y], taxonomy: {bomb}}}\n",
             "kind": f"  - {{name: a, kind: {bomb}, categories: [x, y]}}\n"}[where]
    text = "attributes:\n" + attrs + "  - {name: b, kind: binary}\n"
    return text + (f"drop: {bomb}\n" if where == "drop" else "")


# --- YAML aliases and document budgets --------------------------------------------------------------

@pytest.mark.parametrize("where", ["drop", "taxonomy", "kind"])
def test_yaml_aliases_in_a_schema_are_refused(ws, capsys, tmp_path, where):
    """Main accepted (drop), or walked the expansion of, aliases; a 10^5 expansion keeps it quick there."""
    schema = tmp_path / "bomb.yaml"
    schema.write_text(bomb_schema(where, 5))
    code, err = run_cli(["fit", "--method", "privbayes", str(ws / "data.csv"), "--schema", str(schema), "--epsilon",
                         "1", "-o",
                         str(ws / "out" / "m.json")], capsys)
    assert_one_line_refusal(code, err, ws / "out", mentions="anchors or aliases")


@pytest.mark.parametrize("where", ["drop", "taxonomy", "kind"])
def test_a_billion_node_alias_bomb_is_refused_in_a_second(ws, tmp_path, where):
    """Under 1 KB; on main a CPU hang (taxonomy) or gigabytes and growing (drop, kind)."""
    schema = tmp_path / "bomb.yaml"
    schema.write_text(bomb_schema(where, 9))
    assert schema.stat().st_size < 1024
    code, err, seconds = subprocess_cli(["fit", "--method", "privbayes", str(ws / "data.csv"), "--schema",
                                         str(schema), "--epsilon", "1",
                                         "--dry-run"], timeout=20)
    assert code == 2 and "anchors or aliases" in err and len(err.strip().splitlines()) == 1, err
    print(f"refused in {seconds:.2f} s wall (interpreter start included)", file=sys.stderr)


def test_yaml_aliases_in_an_nbc_prior_are_refused(ws, capsys, tmp_path):
    prior = tmp_path / "prior.yaml"
    prior.write_text(f"p: {alias_bomb('p', 5)}\nq: 0.5\n")
    code, err = run_cli(["nbc", "publish", str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"), "--class", "c",
                         "--prior", str(prior), "--r", "2", "-o", str(ws / "out" / "v.json")], capsys)
    assert_one_line_refusal(code, err, ws / "out", mentions="anchors or aliases")


def test_document_values_and_depth_are_capped(tmp_path, caps):
    from privbayes.files.documents import parse_json, parse_yaml
    from privbayes.schema.files import load_schema

    caps(max_document_nodes=200, max_document_depth=8)
    many = tmp_path / "many.yaml"
    many.write_text("attributes:\n- {name: a, kind: categorical, categories: [" + ", ".join(map(str, range(300)))
                    + "]}\n- {name: b, kind: binary}\n")
    with pytest.raises(InputError, match="more than 200 values .PRIVBAYES_MAX_DOCUMENT_NODES"):
        load_schema(many)
    with pytest.raises(InputError, match="more than 200 values"):
        parse_json(json.dumps(list(range(300))), "x.json", "model")
    with pytest.raises(InputError, match="nests more than 8 levels deep .PRIVBAYES_MAX_DOCUMENT_DEPTH"):
        parse_yaml("a: " + "[" * 9 + "]" * 9, "x.yaml", "schema")
    with pytest.raises(InputError, match="nests more than 8 levels deep"):
        parse_json("[" * 9 + "]" * 9, "x.json", "model")
    assert parse_json("[" * 8 + "]" * 8, "x.json", "model") == [[[[[[[[]]]]]]]]


@pytest.mark.parametrize("text, message", [
    ('{"a": NaN}', "not finite"), ('{"a": [-Infinity]}', "not finite"),
    ('{"a": ' + "9" * 5000 + "}", "not valid JSON"),
])
def test_json_documents_hold_finite_numbers_only(text, message):
    from privbayes.files.documents import parse_json

    with pytest.raises(InputError, match=message) as info:
        parse_json(text, "x.json", "model")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("text", ["a: .inf\n", "a: [.nan]\n", "a: " + "9" * 5000 + "\n", "a: 2001-02-30\n"])
def test_yaml_documents_hold_finite_convertible_numbers_only(text):
    from privbayes.files.documents import parse_yaml

    with pytest.raises(InputError) as info:
        parse_yaml(text, "x.yaml", "schema")
    assert "\n" not in str(info.value)


def test_an_overlong_integer_in_a_schema_is_one_line(ws, capsys, tmp_path):
    """Main: a ValueError traceback (Python refuses to convert more than 4300 digits)."""
    schema = tmp_path / "long.yaml"
    schema.write_text("attributes:\n- {name: a, kind: numeric, lower: 0, upper: 1, bins: " + "1" * 5000
                      + "}\n- {name: b, kind: binary}\n")
    code, err = run_cli(["fit", "--method", "privbayes", str(ws / "data.csv"), "--schema", str(schema), "--epsilon",
                         "1", "--dry-run"], capsys)
    assert_one_line_refusal(code, err, mentions="cannot convert")


# --- total size of a schema or model ------------------------------------------------------------------

def _peak_mb(action) -> tuple[str, float, float]:
    tracemalloc.start()
    start = time.process_time()
    with pytest.raises(InputError) as info:
        action()
    seconds = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return str(info.value), seconds, peak


def test_many_attributes_at_the_bins_cap_are_refused_before_allocation(ws, tmp_path):
    """40 attributes of 2^16 bins (a 4 KB model schema) built 360 MB of levels on main before any
    refusal (300 of them: 2.7 GB from 25 KB); now the total is checked first."""

    doc = json.loads((ws / "model.json").read_text())
    doc["schema"] = {"version": 1, "attributes": [{"name": f"n{i}", "kind": "numeric", "lower": 0, "upper": 1,
                                                   "bins": 2**16} for i in range(40)]}
    path = tmp_path / "bins.json"
    path.write_text(json.dumps(doc))
    message, seconds, peak = _peak_mb(lambda: privbayes.load(path))
    assert "PRIVBAYES_MAX_DOMAIN_CODES" in message and "\n" not in message
    assert seconds < 1 and peak < 30, (seconds, peak)


def test_the_domain_total_counts_bins_categories_and_taxonomy_groups(caps):
    from privbayes.schema import Schema, declared_codes

    raw = [{"name": "n", "kind": "numeric", "lower": 0, "upper": 1, "bins": 10, "special_values": [5, 6]},
           {"name": "e", "kind": "numeric", "edges": [0, 1, 2, 3]},
           {"name": "b", "kind": "binary"},
           {"name": "c", "kind": "categorical", "categories": list("abcd"), "taxonomy": [["a", "b"], ["c", "d"]]},
           {"name": "d", "kind": "date", "lower": "2020-01-01", "upper": "2020-12-31"}]
    assert [declared_codes(a) for a in raw] == [13, 4, 3, 8, 17]
    caps(max_domain_codes=45)
    assert len(Schema.from_dict({"attributes": raw})) == 5
    caps(max_domain_codes=44)
    with pytest.raises(InputError, match="45 bins, categories and taxonomy groups in total"):
        Schema.from_dict({"attributes": raw})
    caps(max_domain_codes=2**21, max_attributes=4)
    with pytest.raises(InputError, match="5 attributes is above the limit of 4 .PRIVBAYES_MAX_ATTRIBUTES"):
        Schema.from_dict({"attributes": raw})


def test_domain_files_are_capped_before_any_attribute_is_built(ws, capsys, tmp_path):
    """Main: 2.4 MB of 'C' lines built 200,000 attributes (450 MB) before failing elsewhere; deep braces
    ended in a RecursionError traceback."""
    many = tmp_path / "many.domain"
    many.write_text("C 0 1000000\n" * 20_000)
    code, err = run_cli(["fit", "--method", "privbayes", str(ws / "data.csv"), "--schema", str(many), "--epsilon",
                         "1", "--dry-run"], capsys)
    assert_one_line_refusal(code, err, mentions="PRIVBAYES_MAX_ATTRIBUTES")
    deep = tmp_path / "deep.domain"
    deep.write_text("D " + "{" * 5000 + "a b" + "}" * 5000 + "\nD x y\n")
    code, err = run_cli(["fit", "--method", "privbayes", str(ws / "data.csv"), "--schema", str(deep), "--epsilon",
                         "1", "--dry-run"], capsys)
    assert_one_line_refusal(code, err, mentions="PRIVBAYES_MAX_TAXONOMY_DEPTH")


# --- model files: numbers, ledgers ---------------------------------------------------------------------

def _tampered(ws, tmp_path, edit, name="m.json", source="model.json") -> Path:
    doc = json.loads((ws / source).read_text())
    edit(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc, allow_nan=True))
    return path


@pytest.mark.parametrize("edit, mentions", [
    (lambda d: d["ledger"][0].update(epsilon=float("inf")), "not finite"),
    (lambda d: d["ledger"][0].update(sensitivity=float("nan")), "not finite"),
    (lambda d: d["ledger"][0].update(epsilon_exact="3/0"), "invalid model file"),
    (lambda d: d["ledger"][0].update(epsilon_exact="1e400"), "epsilon_exact must be a rational"),
    (lambda d: d["fitted"].update(n=10**400), "n must be at most"),
], ids=["inf-epsilon", "nan-sensitivity", "zero-denominator", "exponent", "huge-n"])
@pytest.mark.parametrize("command", ["inspect", "sample"])
def test_model_file_numbers_are_finite_and_in_range(ws, capsys, tmp_path, edit, mentions, command):
    """Main: OverflowError tracebacks (inf), a NaN ledger, n = 10^400 accepted."""
    path = _tampered(ws, tmp_path, edit)
    args = ["inspect", str(path)] if command == "inspect" else ["sample", str(path), "-n", "5", "-o",
                                                                 str(ws / "out" / "s.csv")]
    code, err = run_cli(args, capsys)
    assert_one_line_refusal(code, err, ws / "out", mentions=mentions)


@pytest.mark.parametrize("where", ["ledger", "parameters"])
@pytest.mark.parametrize("source", ["model.json", "mrf.json"])
def test_an_exponent_in_an_exact_value_is_refused_at_once(ws, tmp_path, source, where):
    """Fraction('1e99999999') builds a 10^8-digit integer: 39cde02 hung on it in a ledger, and main at
    73010cd in a version-3 file's parameters (validation.exact)."""
    def edit(doc):
        (doc["ledger"][0] if where == "ledger" else doc["parameters"])["epsilon_exact"] = "1e99999999"
    path = _tampered(ws, tmp_path, edit, source=source)
    code, err, seconds = subprocess_cli(["inspect" if source == "model.json" else "sample", str(path),
                                         *([] if source == "model.json" else ["-n", "2", "-o",
                                                                              str(tmp_path / "s.csv")])], timeout=20)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert ("epsilon_exact must be a rational" if where == "ledger" else "at most 400 digits") in err, err


# --- wide schemas: parent sets without recursion ------------------------------------------------------

def _recursive_maximal_sets(candidates, bound, sizes):
    """The recursive definition (Alg. 5/6 as written before issue 27), for small inputs."""
    @cache
    def solve(start, left):
        if left < 1:
            return ()
        if start == len(candidates):
            return (frozenset(),)
        found, used = [], set()
        for level, size in enumerate(sizes[candidates[start]]):
            for rest in solve(start + 1, left // size):
                if rest not in used:
                    used.add(rest)
                    found.append(rest | {(candidates[start], level)})
        found.extend(rest for rest in solve(start + 1, left) if rest not in used)
        return tuple(found)
    return list(solve(0, bound))


def _recursive_count(sizes, bound):
    @cache
    def count(i, left):
        if left < 1:
            return 0
        if i == len(sizes):
            return 1
        return count(i + 1, left) + sum(count(i + 1, left // s) for s in sizes[i])
    return count(0, bound)


def test_iterative_parent_sets_equal_the_recursive_definition_in_order():
    from privbayes.bayesnet.parentsets import count_parent_sets, maximal_parent_sets

    rng = np.random.default_rng(27)
    for _ in range(300):
        d = int(rng.integers(0, 8))
        sizes = []
        for _ in range(d):
            levels = [int(rng.integers(2, 12))]
            while levels[-1] > 2 and rng.random() < 0.5:
                levels.append(int(rng.integers(2, levels[-1])))
            sizes.append(levels)
        candidates = sorted(rng.choice(d, size=int(rng.integers(0, d + 1)), replace=False).tolist()) if d else []
        bound = int(rng.integers(0, 500))
        assert maximal_parent_sets(candidates, Fraction(bound) + Fraction(1, 3), sizes) == \
            _recursive_maximal_sets(tuple(candidates), bound, tuple(map(tuple, sizes)))
        assert count_parent_sets(sizes, bound) == _recursive_count(tuple(map(tuple, sizes)), bound)


def test_parent_sets_of_1500_attributes_need_no_recursion():
    """Main: RecursionError from 500 non-binary attributes on."""
    from privbayes.bayesnet.parentsets import count_parent_sets, maximal_parent_sets

    sizes = [[3]] * 1500
    assert count_parent_sets(sizes, 9) == 1 + 1500 + 1500 * 1499 // 2  # ∅, the singles, the pairs (3·3 ≤ 9)
    got = maximal_parent_sets(list(range(1500)), Fraction(5), sizes)  # pairs need 9 > 5: every single is maximal
    assert got == [frozenset({(a, 0)}) for a in range(1500)]


def test_a_wide_table_fits_and_inspects(ws, capsys, tmp_path):
    """520 ternary columns: `fit --dry-run`, `fit` and `inspect` ended in RecursionError on main."""
    rng = np.random.default_rng(5)
    d = 520
    names = [f"c{i}" for i in range(d)]
    pd.DataFrame(rng.integers(0, 3, (150, d)), columns=names).to_csv(tmp_path / "wide.csv", index=False)
    (tmp_path / "wide.json").write_text(json.dumps(
        {"attributes": [{"name": n, "kind": "categorical", "categories": [0, 1, 2]} for n in names]}))
    fit = ["fit", "--method", "privbayes", str(tmp_path / "wide.csv"), "--schema", str(tmp_path / "wide.json"),
           "--epsilon", "1", "--seed", "1"]
    code, err = run_cli([*fit, "--dry-run"], capsys)
    assert code == 0, err
    code, err = run_cli([*fit, "-o", str(tmp_path / "wide_model.json")], capsys)
    assert code == 0, err
    code, err = run_cli(["inspect", str(tmp_path / "wide_model.json")], capsys)
    assert code == 0, err


# --- MRF model files -------------------------------------------------------------------------------------

def _mrf_document(d: int, cliques, inference: str, theta: float = 0.0) -> dict:
    """A version-1 MRF model document over d binary variables whose ledger is the plan its
    parameters imply (one discrete-Laplace table per clique at ε/m, Δ = 2)."""
    names = [f"v{i}" for i in range(d)]
    m = len(cliques)
    return {"format": "privbayes-mrf", "version": 1,
            "schema": {"version": 1, "attributes": [{"name": n, "kind": "binary"} for n in names]},
            "cliques": [[names[v] for v in c] for c in cliques],
            "parameters": {"epsilon": 1.0, "method": "naive", "relation": "replace-one", "lam": None,
                           "inference": inference, "delta": None},
            "fitted": {"n": 100.0, "seeded": False, "epsilon_spent": 1.0, "delta_spent": 0.0},
            "theta": [{"shape": [2] * len(c), "values": [theta] * 2 ** len(c)} for c in cliques],
            "ledger": [{"step": "clique table " + ",".join(names[v] for v in c), "mechanism": "discrete Laplace",
                        "epsilon": 1 / m, "epsilon_exact": f"1/{m}", "sensitivity": 2.0, "measured": "counts"}
                       for c in cliques]}


def test_an_mrf_file_cannot_request_exact_inference_above_the_cap(ws, capsys, tmp_path):
    """All pairs of 23 binary variables: one 2^23-cell junction tree.  Main built it because the file
    asked for "exact" (26 variables: 100 s and 2.2 GB); now refused like "auto" would avoid it."""
    path = tmp_path / "exact.json"
    path.write_text(json.dumps(_mrf_document(23, list(itertools.combinations(range(23), 2)), "exact")))
    start = time.process_time()
    code, err = run_cli(["sample", str(path), "-n", "3", "-o", str(ws / "out" / "s.csv")], capsys)
    assert_one_line_refusal(code, err, ws / "out",
                            mentions="exact inference needs a junction tree with a clique of more than the limit of "
                                     "4,194,304 cells")
    assert time.process_time() - start < 5


def test_exact_inference_is_capped_for_any_model():
    from privbayes.inference import Domain
    from privbayes.methods.mrf.model import LogLinearModel

    cliques = tuple(itertools.combinations(range(23), 2))
    with pytest.raises(ValueError, match="more than the limit"):
        LogLinearModel.uniform(Domain((2,) * 23), cliques, "exact")
    assert LogLinearModel.uniform(Domain((2,) * 8), cliques[:5], "exact").engine.exact


@pytest.mark.parametrize("theta", [1e308, -1e300, 1e7])
def test_mrf_log_potentials_are_bounded(ws, capsys, tmp_path, theta):
    """θ = 1e308 is finite, but sums overflow: main sampled from NaN probabilities with warnings."""
    path = tmp_path / "theta.json"
    path.write_text(json.dumps(_mrf_document(3, [(0, 1), (1, 2)], "auto", theta)))
    code, err = run_cli(["sample", str(path), "-n", "3", "-o", str(ws / "out" / "s.csv")], capsys)
    assert_one_line_refusal(code, err, ws / "out", mentions="θ values must be finite numbers in")


def test_mrf_log_potentials_at_the_bound_sample(ws, capsys, tmp_path):
    path = tmp_path / "theta.json"
    doc = _mrf_document(3, [(0, 1), (1, 2)], "auto")
    doc["theta"][0]["values"] = [1e6, -1e6, 0.0, -1e6]
    path.write_text(json.dumps(doc))
    code, err = run_cli(["sample", str(path), "-n", "50", "-o", str(tmp_path / "s.csv"), "--seed", "1"], capsys)
    assert code == 0, err
    first = pd.read_csv(tmp_path / "s.csv")[["v0", "v1"]]
    assert (first == 0).all().all()  # θ(0, 0) = 10^6 holds all the mass of the first clique


# --- seeds and partial outputs ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", ["-1", "x", "1.5", str(2**63)])
def test_an_mrf_fit_checks_its_seed_first(ws, capsys, seed):
    """39cde02: `mrf fit --seed -1` ended in numpy's ValueError traceback (the CLI package checks it now)."""
    code, err = run_cli(["fit", str(ws / "data.csv"), "--method", "mrf", "--schema", str(ws / "schema.yaml"),
                         "--cliques", "a,b", "--epsilon", "1", "--seed", seed, "-o", str(ws / "out" / "m.json")],
                        capsys)
    assert_one_line_refusal(code, err, ws / "out", mentions="--seed")


@pytest.mark.parametrize("seed", ["-1", "x"])
def test_nbc_publish_checks_its_seed_before_writing_anything(ws, capsys, seed):
    """Main wrote the views file, then failed on the seed with a traceback."""
    code, err = run_cli(["nbc", "publish", str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"), "--class", "c",
                         "--gamma", "2", "-o", str(ws / "out" / "v.json"), "--synthesize", str(ws / "out" / "s.csv"),
                         "--seed", seed], capsys)
    assert_one_line_refusal(code, err, ws / "out", mentions="--seed")


def test_nbc_publish_writes_both_outputs_or_neither(ws, capsys, tmp_path):
    code, err = run_cli(["nbc", "publish", str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"), "--class", "c",
                         "--gamma", "2", "-o", str(ws / "out" / "v.json"), "--synthesize",
                         str(ws / "out" / "absent" / "s.csv")], capsys)
    assert_one_line_refusal(code, err, ws / "out", mentions="does not exist")
    code, err = run_cli(["nbc", "publish", str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"), "--class", "c",
                         "--gamma", "2", "-o", str(tmp_path / "v.json"), "--synthesize", str(tmp_path / "s.csv"),
                         "--seed", "3"], capsys)
    assert code == 0, err
    assert sorted(os.listdir(tmp_path)) == ["s.csv", "v.json"]


def test_atomic_write_many_leaves_nothing_when_a_writer_fails(tmp_path):
    from privbayes.files.tables import atomic_write_many

    def fail(tmp):
        raise RuntimeError("disk full")
    with pytest.raises(RuntimeError):
        atomic_write_many([(tmp_path / "a.txt", lambda tmp: tmp.write_text("a")), (tmp_path / "b.txt", fail)])
    assert os.listdir(tmp_path) == []


# --- plot labels ------------------------------------------------------------------------------------------

def test_dollar_signs_in_names_and_categories_are_drawn_literally(tmp_path, capsys):
    """A `$…$` name or category made matplotlib's mathtext crash `evaluate --report` on main."""
    pytest.importorskip("matplotlib")
    schema = tmp_path / "s.yaml"
    schema.write_text('attributes:\n- {name: "$x$", kind: categorical, categories: ["a$b", "$\\\\foo$", "$x^$"]}\n'
                      '- {name: "a$b", kind: categorical, categories: [u, "$v"]}\n')
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"$x$": rng.choice(["a$b", "$\\foo$", "$x^$"], 80), "a$b": rng.choice(["u", "$v"], 80)})
    frame.to_csv(tmp_path / "real.csv", index=False)
    for args in (["fit", "--method", "privbayes", str(tmp_path / "real.csv"), "--schema", str(schema), "--epsilon",
                  "1", "--seed", "1",
                  "-o", str(tmp_path / "m.json")],
                 ["sample", str(tmp_path / "m.json"), "-n", "80", "--seed", "1", "-o", str(tmp_path / "synth.csv")],
                 ["evaluate", str(tmp_path / "real.csv"), str(tmp_path / "synth.csv"), "--schema", str(schema),
                  "--model", str(tmp_path / "m.json"), "--no-classifier", "--report", str(tmp_path / "r.html")]):
        code, err = run_cli(args, capsys)
        assert code == 0, err
    assert (tmp_path / "r.html").stat().st_size > 0


def test_plain_labels_are_not_mathtext():
    pytest.importorskip("matplotlib")
    from matplotlib.text import Text

    from privbayes.evaluation.plots import _plain, _short

    for label in ["$x$", "a$b", "$\\foo$", "$$", "price in $"]:
        shown, math = Text(0, 0, _plain(label))._preprocess_math(_plain(label))
        assert (shown, math) == (label, False)
    assert _short("$" * 30, 18) == "\\$" * 17 + "…"
