"""Red team, round 4: hostile parameters, model files and schemas (findings S1-S6, S8-S11).

Each finding has a reproducer that failed on main at c5e27df (a hang, a traceback, gigabytes, a wrong value
or acceptance) and passes now: a one-line refusal naming the parameter or file and the public cap, checked
before any work that grows with it, or the correct output.  Attacks that hung on main run in a subprocess
with a timeout (the old code fails the test instead of hanging it); memory is bounded by construction (the
refusal comes before the allocation) and checked with tracemalloc where an array was the problem.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import run_cli

from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.methods.adaptive.settings import MERGE_GAIN, AdaptiveSettings, first_groups, round_budgets
from privbayes.schema import Schema
from privbayes.schema.attribute import Attribute
from privbayes.schema.encoding import Encoding

SRC = Path(__file__).resolve().parents[1] / "src"
SCHEMA = ("attributes:\n"
          "  - {name: a, kind: categorical, categories: [x, y, z]}\n"
          "  - {name: b, kind: binary}\n"
          "  - {name: c, kind: categorical, categories: [p, q]}\n")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    """Valid data and schema, an adaptive model under each relation, and an empty ``out`` folder."""
    w = tmp_path_factory.mktemp("red_team_4")
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.choice(list("xyz"), 80), "b": rng.integers(0, 2, 80),
                  "c": rng.choice(list("pq"), 80)}).to_csv(w / "data.csv", index=False)
    (w / "schema.yaml").write_text(SCHEMA)
    (w / "out").mkdir()
    for relation in ("replace-one", "add-remove"):
        assert main(["fit", str(w / "data.csv"), "--schema", str(w / "schema.yaml"), "--epsilon", "1", "--rounds",
                     "2", "--neighbours", relation, "--seed", "1", "-o", str(w / f"{relation}.json")]) == 0
    return w


def subprocess_python(code: str, timeout: float = 30) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter on this tree (a hang on old code becomes a failure here)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    try:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout} s: {code}")


def subprocess_cli(args: list[str], timeout: float = 30) -> tuple[int, str]:
    result = subprocess_python(f"import sys; from privbayes.cli import main; sys.exit(main({args!r}))", timeout)
    return result.returncode, result.stderr


def assert_one_line_refusal(code, err: str, *, mentions: str = "") -> None:
    assert code == 2, f"exit {code}: {err!r}"
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("privbayes: error: "), err
    assert mentions in lines[0], lines[0]


def tampered(ws: Path, tmp_path: Path, edit, source: str = "replace-one.json", name: str = "m.json") -> Path:
    doc = json.loads((ws / source).read_text())
    edit(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def categorical_encoding(sizes: list[int]) -> Encoding:
    attributes = tuple(Attribute(f"a{j}", "categorical", categories=tuple(range(s))) for j, s in enumerate(sizes))
    return Encoding.build(Schema(attributes), "hierarchical")


# --- S2: the first measurements' groups ----------------------------------------------------------------

@pytest.mark.parametrize("sizes, groups", [
    ([2] * 7, ((0, 1, 6), (2, 3, 4, 5))),
    ([3, 4, 2, 5], ((0, 2), (1, 3))),
    ([16, 7, 2, 2, 5, 41, 6], ((0,), (1,), (2, 3, 4), (5,), (6,))),
    ([1, 2, 3], ((0, 1, 2),)),
    ([2, 2, 2, 4, 16, 10], ((0, 1, 2), (3,), (4,), (5,))),
    ([1, 1, 5, 2, 9, 3, 3, 1], ((0, 1, 2, 6, 7), (3, 5), (4,))),
    ([4] * 5, ((0, 1), (2, 3), (4,))),
    ([2, 2, 2, 3, 3, 3, 3], ((0, 1, 6), (2, 3), (4, 5))),
])
def test_the_first_groups_are_pinned(sizes, groups):
    """The groups are part of the released plan: these are main's (c5e27df), kept by any faster algorithm."""
    assert first_groups(categorical_encoding(sizes), True) == groups


def _reference_groups(sizes: list[int]) -> tuple[tuple[int, ...], ...]:
    """Main's first_groups (c5e27df): every pair scored at every merge, O(d³)."""
    groups = [(a,) for a in range(len(sizes))]
    while True:
        best, pair = -math.inf, None
        for i, j in itertools.combinations(range(len(groups)), 2):
            x, y = math.prod(sizes[a] for a in groups[i]), math.prod(sizes[a] for a in groups[j])
            gain = math.sqrt(x) + math.sqrt(y) - math.sqrt(x * y)
            if gain > best + 1e-12:
                best, pair = gain, (i, j)
        if pair is None or best <= MERGE_GAIN:
            break
        i, j = pair
        groups[i] = tuple(sorted(groups[i] + groups[j]))
        del groups[j]
    return tuple(sorted(groups))


def test_the_first_groups_equal_mains_on_random_domains():
    rng = random.Random(4)
    pools = [[1, 2, 3], [2, 3, 4, 5], [1, 2, 2, 2, 7, 16], [2], [1], list(range(1, 20)), [2, 3, 100, 1000]]
    for _ in range(400):
        pool = rng.choice(pools)
        sizes = [rng.choice(pool) for _ in range(rng.randint(2, 12))]
        assert first_groups(categorical_encoding(sizes), True) == _reference_groups(sizes), sizes


def test_a_wide_binary_plan_is_near_linear():
    """Main: 900 binary columns took 62 s of first_groups (O(d³)) and the plan summed all d²/2 pair candidates;
    10,000 (the attribute cap) would take days.  Now a heap finds each merge, and the workload sum stops at the
    model cap."""
    result = subprocess_python(
        "from fractions import Fraction\n"
        "from privbayes.methods.adaptive.settings import AdaptiveSettings\n"
        "from privbayes.schema import Schema\n"
        "from privbayes.schema.attribute import Attribute\n"
        "schema = Schema(tuple(Attribute(f'a{j}', 'binary') for j in range(10_000)))\n"
        "settings = AdaptiveSettings(Fraction(1))\n"
        "plan = settings.plan(10**6, settings.encoding_for(schema))\n"
        "print(plan.setting('rounds'), len(plan.budgets('oneway')))\n", timeout=30)
    assert result.returncode == 0, result.stderr
    rounds, groups = map(int, result.stdout.split())
    assert groups == 2500 and 1 <= rounds <= 20_000  # 10,000 binaries: 2,500 groups of four (16 cells)


# --- S1: adaptive rounds ---------------------------------------------------------------------------------

def test_round_budgets_are_exact_and_linear():
    """Main summed every round's rise again for each round: O(T²) Fraction additions (2,000 rounds: 5 s)."""
    for T, ramp in [(2, Fraction(4)), (3, Fraction(1)), (7, Fraction(5, 2))]:
        rise = [1 + (ramp - 1) * Fraction(t, T - 1) for t in range(T)]
        assert round_budgets(Fraction(1, 3), T, ramp) == [Fraction(1, 3) * r / sum(rise) for r in rise]
    result = subprocess_python("from fractions import Fraction\n"
                               "from privbayes.methods.adaptive.settings import round_budgets\n"
                               "b = round_budgets(Fraction(1, 3), 10_000, Fraction(4))\n"
                               "print(sum(b) == Fraction(1, 3), b[-1] == 4 * b[0])", timeout=30)
    assert result.stdout.split() == ["True", "True"], result.stderr


def test_rounds_are_capped_in_settings_the_command_line_and_model_files(ws, tmp_path, caps, capsys):
    """Main: "rounds": 100000 in a 5 KB model file hung inspect and sample for hours, as did
    fit --rounds 100000 --dry-run."""
    with pytest.raises(InputError, match=r"^rounds \(100,000\) is above the limit of 10,000 rounds "
                                         r"\(PRIVBAYES_MAX_ROUNDS\)$"):
        AdaptiveSettings(1, rounds=100_000)
    assert AdaptiveSettings(1, rounds=10_000).rounds == 10_000
    path = tampered(ws, tmp_path, lambda d: d["parameters"].update(rounds=100_000))
    for args in (["inspect", str(path)], ["sample", str(path), "-n", "5", "-o", str(ws / "out" / "s.csv")],
                 ["fit", str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"), "--epsilon", "1", "--rounds",
                  "100000", "--dry-run"]):
        code, err = subprocess_cli(args, timeout=30)
        assert_one_line_refusal(code, err, mentions="PRIVBAYES_MAX_ROUNDS")
    assert os.listdir(ws / "out") == []
    caps(max_rounds=3)  # the rules' rounds are capped too (refused, never silently fewer: the plan is public)
    settings = AdaptiveSettings(1)
    with pytest.raises(InputError, match="the rounds rule.s number of rounds .*PRIVBAYES_MAX_ROUNDS"):
        settings.plan(10**6, categorical_encoding([3, 4, 2, 5]))


# --- S6: ε ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["adaptive", "privbayes", "mrf"])
def test_epsilon_is_capped_on_the_command_line(ws, capsys, method):
    """Main: adaptive with ε = 1e306 ended in an OverflowError traceback."""
    extra = ["--cliques", "a,b;b,c"] if method == "mrf" else []
    code, err = run_cli(["fit", "--method", method, str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"),
                         "--epsilon", "1e306", *extra, "-o", str(ws / "out" / "m.json")], capsys)
    assert_one_line_refusal(code, err, mentions="epsilon must be at most 1,000,000,000")
    assert os.listdir(ws / "out") == []


def test_epsilon_is_capped_in_model_files(ws, tmp_path, capsys):
    def edit(doc):
        doc["parameters"].update(epsilon=1e306, epsilon_exact="1e306")
    code, err = run_cli(["inspect", str(tampered(ws, tmp_path, edit))], capsys)
    assert_one_line_refusal(code, err, mentions="epsilon must be at most 1,000,000,000")
    assert AdaptiveSettings(10**9).epsilon == 10**9


# --- S4: ancestral sampling's memory -------------------------------------------------------------------

def _reference_ancestral(network, conditionals, encoding, n, rng):
    """Main's sampler (c5e27df): each row compared with its configuration's whole CDF (rows × |dom X|)."""
    attrs = encoding.attributes
    out = np.zeros((n, len(attrs)), dtype=np.int64)
    for pair, cond in zip(network.pairs, conditionals):
        size = attrs[pair.child].size
        rows = np.zeros(n, dtype=np.int64)
        for a, level in pair.parents:
            rows = rows * attrs[a].level_size(level) + attrs[a].levels[level][out[:, a]]
        cdf = np.cumsum(cond.reshape(-1, size), axis=1)
        picked = (rng.random(n)[:, None] >= cdf[rows]).sum(axis=1)
        out[:, pair.child] = np.minimum(picked, size - 1)
    return out


def _network_and_conditionals(sizes: list[int], seed: int, zeros: bool = False):
    from privbayes.bayesnet.network import APPair, Network

    encoding = categorical_encoding(sizes)
    rng = np.random.default_rng(seed)
    pairs = [APPair(0)] + [APPair(j, tuple((p, 0) for p in range(max(0, j - 2), j))) for j in range(1, len(sizes))]
    conditionals = []
    for pair in pairs:
        shape = [sizes[p] for p, _ in pair.parents] + [sizes[pair.child]]
        table = rng.dirichlet(np.ones(shape[-1]), size=math.prod(shape[:-1])).reshape(shape)
        if zeros:  # impossible values, as noisy tables projected to zero leave them
            table = np.where(rng.random(shape) < 0.4, 0.0, table)
            table[..., -1] += 1e-9
            table = table / table.sum(axis=-1, keepdims=True)
        conditionals.append(table)
    return Network(tuple(pairs)), conditionals, encoding


@pytest.mark.parametrize("zeros", [False, True])
@pytest.mark.parametrize("sizes", [[2, 3, 2], [5, 1, 7, 4], [17, 2, 300, 3]])
def test_ancestral_sampling_draws_mains_rows(sizes, zeros):
    """The stream is unchanged: the same seed gives main's rows, bit for bit."""
    from privbayes.bayesnet.sampling import ancestral_sample

    network, conditionals, encoding = _network_and_conditionals(sizes, seed=len(sizes), zeros=zeros)
    for n in (1, 7, 5000):
        new = ancestral_sample(network, conditionals, encoding, n, np.random.default_rng(11))
        old = _reference_ancestral(network, conditionals, encoding, n, np.random.default_rng(11))
        assert np.array_equal(new, old)


def test_ancestral_sampling_memory_does_not_grow_with_the_domain():
    """Main compared every row with its configuration's whole CDF: one 65,536-bin column and 65,536 rows took
    32 GiB (10^6 categories: 9 GB for 1,000 rows).  Here 4,096 values × 8,192 rows took 256 MiB on main; now a
    binary search needs a few arrays of n."""
    import tracemalloc

    from privbayes.bayesnet.network import APPair, Network
    from privbayes.bayesnet.sampling import ancestral_sample

    encoding = categorical_encoding([4096, 2])
    conditionals = [np.full(4096, 1 / 4096), np.full((4096, 2), 0.5)]
    network = Network((APPair(0), APPair(1, ((0, 0),))))
    tracemalloc.start()
    rows = ancestral_sample(network, conditionals, encoding, 8192, np.random.default_rng(0))
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    assert peak < 8, peak  # MiB: the output (128 KiB), a CDF (32 KiB) and a few arrays of 8,192
    assert len(np.unique(rows[:, 0])) > 3000  # uniform over 4,096 values: ~3,460 distinct in 8,192 draws


# --- S9: time zones are names, never paths -------------------------------------------------------------

@pytest.mark.parametrize("tz", ["dateutil//etc/passwd", "dateutil/etc/hostname", "/etc/passwd", "Etc/passwd"])
def test_a_schema_time_zone_is_never_a_path(tz, monkeypatch):
    """Main: pandas read ``dateutil/<path>`` as a file to open, so a schema made the loader open any local file."""
    import builtins

    opened = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda file, *a, **k: opened.append(file) or real_open(file, *a, **k))
    with pytest.raises(InputError, match="the time zone must be an IANA name such as Europe/Paris, UTC or a "
                                         "fixed offset"):
        Schema.from_dict({"attributes": [{"name": "d", "kind": "date", "lower": "2020-01-01", "upper": "2020-12-31",
                                          "dtype": f"datetime64[ns, {tz}]"}, {"name": "b", "kind": "binary"}]})
    assert not [f for f in opened if "etc" in str(f)]


@pytest.mark.parametrize("tz", ["Europe/Paris", "UTC", "UTC+01:00", "Pacific/Apia"])
def test_time_zone_names_and_fixed_offsets_still_load(tz):
    schema = Schema.from_dict({"attributes": [{"name": "d", "kind": "date", "lower": "2020-01-01",
                                               "upper": "2020-12-31", "dtype": f"datetime64[ns, {tz}]"},
                                              {"name": "b", "kind": "binary"}]})
    frame = schema.decode(np.zeros((3, 2), dtype=np.int64), np.random.default_rng(0))
    assert str(frame["d"].dtype) == f"datetime64[ns, {tz}]"


# --- S8: the MRF's L2 weight -----------------------------------------------------------------------------

@pytest.mark.parametrize("l2", ["1e308", "1e7", "-1"])
def test_the_mrf_l2_weight_is_bounded(ws, capsys, l2):
    """Main: --method mrf --l2 1e308 ended in a ValueError traceback (log-potentials overflowed)."""
    code, err = run_cli(["fit", "--method", "mrf", str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"),
                         "--cliques", "a,b;b,c", "--epsilon", "1", "--l2", l2, "-o", str(ws / "out" / "m.json")],
                        capsys)
    assert_one_line_refusal(code, err, mentions="l2 ")
    assert "must be a number in [0, 1e+06]" in err and os.listdir(ws / "out") == []


def test_the_largest_l2_weight_fits(ws, capsys, tmp_path):
    code, err = run_cli(["fit", "--method", "mrf", str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"),
                         "--cliques", "a,b;b,c", "--epsilon", "1", "--l2", "1e6", "--estimation", "naive", "--seed",
                         "1", "-o", str(tmp_path / "m.json")], capsys)
    assert code == 0, err


# --- S11: potentials of zero mass ----------------------------------------------------------------------

def _zero_mass(attribute: int):
    def edit(doc):
        from privbayes.files import blocks

        for item in doc["potentials"]:
            if attribute in [a for a, _ in item["variables"]]:
                item["theta"] = blocks.encode(np.full(item["theta"]["shape"], -np.inf))
    return edit


@pytest.mark.parametrize("attribute", [0, 1])
@pytest.mark.parametrize("command", ["inspect", "sample"])
def test_potentials_of_zero_mass_are_refused_at_load(ws, tmp_path, capsys, attribute, command):
    """Main: a version-4 file whose potentials give a component zero total mass loaded and sampled it as uniform."""
    doc = json.loads((ws / "replace-one.json").read_text())
    assert any(attribute in [a for a, _ in item["variables"]] for item in doc["potentials"])
    path = tampered(ws, tmp_path, _zero_mass(attribute))
    args = ["inspect", str(path)] if command == "inspect" else ["sample", str(path), "-n", "5", "-o",
                                                                 str(ws / "out" / "s.csv")]
    code, err = run_cli(args, capsys)
    assert_one_line_refusal(code, err, mentions="give the model no positive, finite total mass")
    assert os.listdir(ws / "out") == []


# --- S5: the memory guard under add/remove --------------------------------------------------------------

@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_the_adaptive_fit_checks_the_memory_guard_at_its_noisy_count(ws, caps, capsys, relation):
    """Main: under add/remove the command line cannot estimate before the data (n is private) and the adaptive
    fit never did after its noisy count, so PRIVBAYES_MAX_FIT_GB did not apply; now the fit checks the estimate
    at n̂ (paid for) before any table is counted."""
    from privbayes import AdaptiveMarginals

    caps(max_fit_bytes=1)  # below any fit's working memory
    code, err = run_cli(["fit", str(ws / "data.csv"), "--schema", str(ws / "schema.yaml"), "--epsilon", "1",
                         "--neighbours", relation, "--seed", "1", "-o", str(ws / "out" / "m.json")], capsys)
    assert_one_line_refusal(code, err, mentions="PRIVBAYES_MAX_FIT_GB")
    assert os.listdir(ws / "out") == []
    with pytest.raises(InputError, match="PRIVBAYES_MAX_FIT_GB"):
        AdaptiveMarginals(1, neighbours=relation, random_state=1, progress=False).fit(
            pd.read_csv(ws / "data.csv"), Schema.from_dict({"attributes": [
                {"name": "a", "kind": "categorical", "categories": list("xyz")}, {"name": "b", "kind": "binary"},
                {"name": "c", "kind": "categorical", "categories": list("pq")}]}))


# --- S3: triangulation against the exact-inference cap ------------------------------------------------------

def _random_network_scopes(d: int, parents: int, seed: int) -> list[tuple[int, ...]]:
    rng = np.random.default_rng(seed)
    return [tuple(sorted({*rng.choice(j, min(parents, j), replace=False).tolist(), j})) for j in range(d)]


def _reference_elimination_order(domain, scopes, heuristic):
    """Main's elimination order (c5e27df): fill counted pair by pair, every neighbour's neighbour re-costed."""
    import heapq

    neighbours = [set() for _ in range(len(domain))]
    for scope in scopes:
        for a in scope:
            neighbours[a].update(b for b in scope if b != a)
    remaining = set(range(len(domain)))

    def cost(v):
        nb = neighbours[v] & remaining
        fill = sum(1 for a in nb for b in nb if a < b and b not in neighbours[a])
        weight = domain.cells(sorted(nb | {v}))
        return (fill, weight, v) if heuristic == "min_fill" else (weight, fill, v)

    current = {v: cost(v) for v in remaining}
    heap = list(current.values())
    heapq.heapify(heap)
    order = []
    while remaining:
        key = heapq.heappop(heap)
        v = key[2]
        if v not in remaining or current[v] != key:
            continue
        nb = neighbours[v] & remaining
        for a in nb:
            neighbours[a] |= nb - {a}
        order.append(v)
        remaining.remove(v)
        touched = set(nb)
        for a in nb:
            touched |= neighbours[a] & remaining
        for u in touched - {v}:
            updated = cost(u)
            if updated != current[u]:
                current[u] = updated
                heapq.heappush(heap, updated)
    return order


def test_the_elimination_order_is_mains():
    """The junction tree is part of a released consistent model (its network is checked against the file's), so
    the faster order must be main's, variable for variable."""
    from privbayes.inference import Domain
    from privbayes.inference.junction_tree import elimination_order

    rng = np.random.default_rng(1)
    for _ in range(150):
        d = int(rng.integers(2, 30))
        domain = Domain(tuple(int(s) for s in rng.integers(1, 5, d)))
        scopes = [tuple(sorted(set(rng.choice(d, int(rng.integers(1, 5))).tolist())))
                  for _ in range(int(rng.integers(1, 25)))]
        for heuristic in ("min_fill", "min_weight"):
            assert elimination_order(domain, scopes, heuristic) == _reference_elimination_order(domain, scopes,
                                                                                                heuristic)


def test_minor_min_width_is_a_lower_bound_on_every_triangulation():
    from privbayes.inference import Domain, build_junction_tree
    from privbayes.inference.junction_tree import minor_min_width

    for seed in range(30):
        d = 8 + seed
        scopes = _random_network_scopes(d, 1 + seed % 4, seed)
        graph = {v: set() for v in range(d)}
        for scope in scopes:
            for a in scope:
                graph[a].update(b for b in scope if b != a)
        widest = max(len(c) for c in build_junction_tree(Domain((2,) * d), scopes).cliques)
        assert max(len(s) for s in scopes) - 1 <= widest - 1
        assert minor_min_width(graph) <= widest - 1
    assert minor_min_width({0: {1, 2, 3}, 1: {0, 2, 3}, 2: {0, 1, 3}, 3: {0, 1, 2}}) == 3  # K4: treewidth 3


_SCOPES = ("import numpy as np\n"
           "rng = np.random.default_rng(0)\n"
           "scopes = [tuple(sorted({*rng.choice(j, min(3, j), replace=False).tolist(), j})) for j in range(1000)]\n")


def test_conditional_sampling_refuses_a_wide_network_before_triangulating_it():
    """Main: sample --given on a 272 KB network file triangulated for 99 s before refusing (1,000 binary attributes
    with three random parents each: minutes).  Now a treewidth bound refuses it first, and any clique over the cap
    stops the triangulation."""
    result = subprocess_python(
        _SCOPES + "from privbayes.inference import Domain\n"
        "from privbayes.inference.evidence import TooLargeForExact, evidence_sampler\n"
        "domain = Domain((2,) * 1000)\n"
        "try:\n"
        "    evidence_sampler(domain, scopes, [np.zeros(domain.shape(s)) for s in scopes])\n"
        "except TooLargeForExact as exc:\n"
        "    print(exc)\n", timeout=20)
    assert result.stdout.strip() == "exact inference would need a junction-tree clique of more than the limit of " \
                                    "4,194,304 cells", result.stderr


def test_a_model_files_potentials_are_capped_before_triangulating():
    """Main: a 5.6 MB model file of potentials over many attributes triangulated for 22 s before its cap."""
    result = subprocess_python(
        _SCOPES + "from privbayes.estimation.potentials import Potential, sizes_of\n"
        "from privbayes.schema.encoding import Encoding\n"
        "from privbayes.schema import Schema\n"
        "from privbayes.schema.attribute import Attribute\n"
        "encoding = Encoding.build(Schema(tuple(Attribute(f'a{j}', 'binary') for j in range(1000))), "
        "'hierarchical')\n"
        "largest, _ = sizes_of(encoding, [Potential(tuple((a, 0) for a in s), np.zeros((1,) * len(s))) "
        "for s in scopes])\n"
        "print(largest > 2**22)\n", timeout=20)
    assert result.stdout.strip() == "True", result.stderr


# --- S10: dates in a time zone, conditioned dates ---------------------------------------------------------

def _date_schema(tz: str, lower: str, upper: str) -> Schema:
    return Schema.from_dict({"attributes": [{"name": "day", "kind": "date", "lower": lower, "upper": upper,
                                             "dtype": f"datetime64[ns, {tz}]"}, {"name": "b", "kind": "binary"}]})


@pytest.mark.parametrize("tz, lower, upper, skipped", [
    ("Pacific/Apia", "2011-12-01", "2012-01-31", "2011-12-30"),
    ("Pacific/Kwajalein", "1990-01-01", "2000-01-01", "1993-08-21"),
])
def test_a_time_zone_that_skipped_a_day_of_the_range_is_refused(tz, lower, upper, skipped):
    """Main decoded Apia's 2011-12-30 (a day the zone skipped) as 2011-12-31 01:00: no time stamp in the zone can
    hold that day, so the dtype is refused in one line naming it (a day of the public range, not a data value)."""
    with pytest.raises(InputError, match=f"the time zone skipped {skipped}, a day of the attribute's range"):
        _date_schema(tz, lower, upper)


@pytest.mark.parametrize("tz, lower, upper", [
    ("Pacific/Apia", "2011-12-31", "2012-03-31"),  # after the skipped day
    ("America/Santiago", "1990-01-01", "2020-12-31"),  # midnight DST gaps: shifted within the same day
    ("Europe/Paris", "1700-01-01", "2260-12-31"),
])
def test_every_day_of_a_range_keeps_its_day_in_its_time_zone(tz, lower, upper):
    schema = _date_schema(tz, lower, upper)
    attr = schema.attributes[0]
    from privbayes.schema.decoding import date_column

    first, last = (np.datetime64(lower), np.datetime64(upper))
    days = np.arange(max(first, np.datetime64("1800-01-01")), min(last, np.datetime64("2399-12-31")) + 1)[::7]
    ordinals = (days - np.datetime64("1970-01-01")).astype(np.int64).astype(np.float64)
    stamps = date_column(attr, ordinals, np.zeros(len(days), dtype=bool))
    assert str(stamps.dtype) == f"datetime64[ns, {tz}]"
    assert (stamps.dt.tz_localize(None).dt.normalize().to_numpy().astype("datetime64[D]") == days).all()


def test_a_conditioned_date_keeps_its_dtype(ws):
    """Main: sample --given day=2020-01-01 (conditions=) wrote the conditioned date column as text, whatever its
    dtype; now it is decoded as the unconditioned rows are."""
    from privbayes import AdaptiveMarginals

    schema = Schema.from_dict({"attributes": [
        {"name": "day", "kind": "date", "lower": "2020-01-01", "upper": "2020-12-31", "bins": 12,
         "dtype": "datetime64[ns, Europe/Paris]"},
        {"name": "b", "kind": "binary"}]})
    rng = np.random.default_rng(0)
    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 366, 300), unit="D")
    frame = pd.DataFrame({"day": pd.DatetimeIndex(days).tz_localize("Europe/Paris"), "b": rng.integers(0, 2, 300)})
    model = AdaptiveMarginals(1, rounds=1, random_state=1, progress=False).fit(frame, schema).released_
    free = model.sample(4, random_state=2)
    given = model.sample(4, random_state=2, conditions={"day": "2020-03-29"})  # a DST day in Paris
    assert given["day"].dtype == free["day"].dtype == "datetime64[ns, Europe/Paris]"
    assert (given["day"] == pd.Timestamp("2020-03-29", tz="Europe/Paris")).all()


def test_a_tiny_theta_gives_the_rules_largest_number_of_rounds():
    """Found beside S1: θ = 1e-308 made the rounds rule's root infinite, and rounding it an OverflowError."""
    settings = AdaptiveSettings(1, rounds_theta=1e-308)
    assert settings.plan(1000, categorical_encoding([3, 4, 2, 5])).setting("rounds") == 8  # 2 per attribute


def test_the_cost_estimates_pair_summary_equals_the_enumeration(caps):
    """The adaptive cost estimate (now run by every adaptive fit, S5) summarised all d²/2 pair candidates one by
    one: 5 s at 900 attributes.  The sorted-sizes summary gives the same numbers, the table cap included."""
    from privbayes.methods.adaptive.candidates import leaf_candidates
    from privbayes.methods.adaptive.cost import CandidateSummary, candidate_summary

    rng = np.random.default_rng(3)
    for _ in range(40):
        sizes = [int(s) for s in rng.integers(1, 60, int(rng.integers(2, 25)))]
        caps(max_table_cells=int(rng.choice([10, 100, 2000, 2**27])))
        encoding = categorical_encoding(sizes)
        candidates = leaf_candidates(encoding, 2)
        cells = [c.cells(encoding) for c in candidates]
        multi = [c for c, cand in zip(cells, candidates) if len(cand.attributes) > 1]
        expected = CandidateSummary(len(cells), sum(cells), sum(len(c.attributes) for c in candidates), len(multi),
                                    sum(multi), max(cells, default=1))
        assert candidate_summary(encoding, 2) == expected, sizes
