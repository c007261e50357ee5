"""Ground-truth benchmark: how close a fit comes to the data's own sampling floor as n·ε grows.

Usage (OpenDP's MST and AIM need the peers' virtualenv, benchmarks/peers_requirements.txt):
  python benchmarks/ground_truth.py --rows 1e5,1e6 --epsilons 1 [--repeats 1] [--truth network|mrf]
      [--method adaptive|privbayes|mst-opendp|aim-opendp] [--timeout 1200]
      [--option rounds=200 --option marginal_degree=3] [--data-seed 10] [--json out.json] [--jsonl cells.jsonl]
  python benchmarks/ground_truth.py --plot cells.json [--figure docs/figures/ground_truth_grid.png]

Two known truths over Adult's 15 attributes (numeric columns as their bins, the same leaf codes), both fixed
benchmark inputs built from the bundled Adult, not releases:

* ``network`` (the default): a degree-3 Bayesian network, PrivBayes's network learned on the bundled Adult data
  (degree 3, ε = 10 for the structure, seed 0) with its conditionals the exact tables of the data
  (``non_private_phase="marginals"``, the paper's estimation), so its dependence is Adult's own, up to three
  parents per attribute.  Rows by ancestral sampling.
* ``mrf``: a Markov random field that is not a network of families: the library's private MRF
  (:class:`~privbayes.methods.mrf.estimator.PrivateMRF`, ICML 2017) fitted on the bundled Adult at ε = 10⁶ (the
  noise, at most a few 10⁻⁵ counts per cell, is negligible) over fixed cliques: the Chow-Liu tree of Adult (the
  maximum spanning tree of the exact pairwise mutual information, 14 pairs) with the three triangles closed whose
  chord (two attributes at distance two on the tree) carries the most information, among triples of at most 4,096
  cells.  Pairs and triangles of a loop-free skeleton keep exact inference cheap and the sampler exact (its junction
  tree, i.i.d. rows), while the triangles give it 3-way interactions that the tree's pairs do not determine; the
  cliques come from the data (Adult's own dependence), not from a chosen random graph.

Rows are drawn from the truth (seed 10 + n-index for the data, 1,000 + n-index for a second sample;
``--data-seed`` moves the first: another sample of the same truth; ``--rows 1e6 --data-seed 12 --floor-seed 1002``
is the third size of the default ``--rows 1e4,1e5,1e6`` alone).  Each fit receives the sampled leaf codes and
releases a model; ``rows`` synthetic rows are drawn from it and Q2 / Q3 (average TVD of all 2-way / 3-way marginals,
:func:`privbayes.evaluation.marginals.average_marginal_tvd`) are measured against the sample it was fitted on.  The
floor is a second, independent sample of the same truth measured the same way: no method that sees only one sample
can be expected below it.

Methods: ours (``adaptive``, ``privbayes``; ``--option`` name=value for the synthesizer; pure ε-DP, replace-one
neighbours unless an option says otherwise) fitted in this process on an ``InMemoryTable``; OpenDP 0.16's MST and
AIM (``mst-opendp``, ``aim-opendp``: benchmarks/peers.py's runner ``_opendp`` with their defaults, (ε, δ = 1e-9)
through zCDP, add/remove neighbours) in a child process of peers.py (``run_child``, one thread) that is killed after
``--timeout`` seconds of wall time; a killed cell is kept, with status ``timeout`` and its CPU seconds.  Each peer fit
gives two rows: i.i.d. draws from the model (``mst-opendp``) and OpenDP's default rounded draw (``…+round``).

Prints one JSON line per cell as it finishes (``--jsonl`` appends each to a file too, so an interrupted grid keeps
its finished cells) and then a table (Q2 / Q3, their ratios to the floor, fit + sample seconds with their CPU seconds
and the load average: on a shared machine the wall time alone says little).  ``--plot`` reads such cells (a JSON
list or JSON lines), prints their table (by truth, rows, ε, method) and draws Q2 and Q3 over the floor against n, one
panel per truth and score.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "src" / "privbayes" / "data"
TRUTH_EPSILON = 10.0
"""ε of the network truth's structure search (its tables are exact): a benchmark input, not a release."""
MRF_TRUTH_EPSILON = 1e6
"""ε of the MRF truth's clique tables: noise of scale 2·12/10⁶ counts, negligible; a benchmark input, not a release."""
MRF_TRIANGLES = 3
MRF_TRIANGLE_CELLS = 4096
PEERS = ("mst-opendp", "aim-opendp")
METHODS = ("adaptive", "privbayes", *PEERS)


def truth(kind: str = "network"):
    """The known truth (``network`` or ``mrf``, the module docstring) and the schema it is over; the truth samples
    n rows of leaf codes i.i.d. with ``draw(truth, n, seed)``."""
    from privbayes.schema.files import load_schema

    schema = load_schema(ADULT / "adult.yaml")
    if kind == "mrf":
        return schema, mrf_truth(schema)
    from privbayes import PrivBayes

    fitted = PrivBayes(TRUTH_EPSILON, degree=3, non_private_phase="marginals", estimation="paper",
                       random_state=0).fit(ADULT / "adult.csv.gz", schema)
    return schema, fitted.model_


def mrf_cliques(information: np.ndarray, sizes: list[int]) -> list[tuple[int, ...]]:
    """The MRF truth's cliques: the maximum spanning tree of ``information`` (Kruskal; ties by index) and the
    ``MRF_TRIANGLES`` triangles a-b-c (a-b and b-c tree edges, at most ``MRF_TRIANGLE_CELLS`` cells) whose chord a-c
    has the most information; the tree's pairs inside a triangle are left to it."""
    d = len(sizes)
    root = list(range(d))

    def find(v: int) -> int:
        while root[v] != v:
            v = root[v]
        return v

    tree = []
    pairs = sorted((-information[a, b], a, b) for a in range(d) for b in range(a + 1, d))
    for _, i, j in pairs:
        if find(i) != find(j):
            root[find(i)] = find(j)
            tree.append((i, j))
    near = {v: {u for e in tree if v in e for u in e if u != v} for v in range(d)}
    chords = sorted((-information[a, c], a, b, c) for b in range(d) for a in near[b] for c in near[b]
                    if a < c and sizes[a] * sizes[b] * sizes[c] <= MRF_TRIANGLE_CELLS)
    triangles = [tuple(sorted((a, b, c))) for _, a, b, c in chords[:MRF_TRIANGLES]]
    return [e for e in tree if not any(set(e) <= set(t) for t in triangles)] + triangles


def mrf_truth(schema):
    """The known MRF: a private MRF of Adult over :func:`mrf_cliques` at ε = 10⁶ (seed 0), its released model."""
    from privbayes import counting
    from privbayes.methods.mrf.estimator import PrivateMRF
    from privbayes.methods.sa_privbayes.ami import mutual_information_matrix

    table = counting.open(ADULT / "adult.csv.gz", schema)
    cliques = mrf_cliques(mutual_information_matrix(table, len(schema)).values, [a.size for a in schema.attributes])
    names = [[schema.names[v] for v in c] for c in cliques]
    return PrivateMRF(names, MRF_TRUTH_EPSILON, random_state=0).fit(table).released_


def draw(model, n: int, seed: int, how: str = "iid") -> np.ndarray:
    """n rows of leaf codes from a released model: the truths' samples i.i.d., a release's as its model file says
    (``model.draw``).  A network by ancestral sampling (as ``sample`` draws before decoding), an MRF by its junction
    tree's exact sampler."""
    rng = np.random.default_rng(seed)
    if hasattr(model, "cliques"):  # ReleasedMRF
        return model.model.sample(n, rng, how)
    from privbayes.bayesnet.sampling import ancestral_sample

    return model.encoding.decode(ancestral_sample(model.network, model.conditionals, model.encoding, n, rng, how))


def synthesizer(method: str, eps: float, seed: int, options: dict):
    from privbayes import PrivBayes
    from privbayes.methods.adaptive.estimator import AdaptiveMarginals

    if method == "adaptive":
        return AdaptiveMarginals(eps, random_state=seed, **options)
    return PrivBayes(eps, random_state=seed, **options)


def scores(real: np.ndarray, synth: np.ndarray, sizes: list[int]) -> dict:
    from privbayes.evaluation.marginals import average_marginal_tvd

    return {"q2": average_marginal_tvd(real, synth, sizes, 2), "q3": average_marginal_tvd(real, synth, sizes, 3)}


def run(rows: list[int], epsilons: list[float], repeats: int, method: str, options: dict,
        data_seed: int = 10, kind: str = "network", timeout: float = 1200.0, jsonl: str | None = None,
        floor_seed: int = 1000) -> list[dict]:
    from privbayes.counting.memory import InMemoryTable
    from privbayes.schema.encoding import Encoding

    schema, model = truth(kind)
    sizes = [a.size for a in Encoding.build(schema, "hierarchical").attributes]
    out = []
    for i, n in enumerate(rows):
        data = draw(model, n, data_seed + i)
        floor = scores(data, draw(model, n, floor_seed + i), sizes)
        table = InMemoryTable(data, Encoding.build(schema, "hierarchical"))
        for eps in epsilons:
            for rep in range(repeats):
                cell = {"rows": n, "data_seed": data_seed + i, "floor_seed": floor_seed + i, "epsilon": eps,
                        "repeat": rep, "truth": kind, "method": method, "options": options,
                        "floor_q2": floor["q2"], "floor_q3": floor["q3"]}
                if method in PEERS:
                    cells = [{**cell, **c} for c in peer(method, eps, rep, data, sizes, timeout)]
                else:
                    cells = [{**cell, **ours(method, eps, rep, options, table, data, sizes)}]
                for c in cells:
                    if c["status"] == "ok":
                        c["ratio_q2"], c["ratio_q3"] = c["q2"] / floor["q2"], c["q3"] / floor["q3"]
                    c["load_average"] = os.getloadavg()[0]
                    out.append(c)
                    line = json.dumps(c)
                    print(line, flush=True)
                    if jsonl:
                        with open(jsonl, "a", encoding="utf-8") as f:
                            f.write(line + "\n")
    return out


def ours(method: str, eps: float, rep: int, options: dict, table, data: np.ndarray, sizes: list[int]) -> dict:
    """One fit of ours on ``table`` (the sample ``data``), its release drawn as its model file says, scored."""
    start, cpu = time.perf_counter(), time.process_time()
    fitted = synthesizer(method, eps, rep, options).fit(table)
    synth = draw(fitted.model_, len(data), 2000 + rep, fitted.model_.draw)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    plan = fitted.model_.plan
    got = scores(data, synth, sizes)
    return {"status": "ok", **got, "seconds": seconds, "cpu_seconds": cpu,
            "rounds": plan.setting("rounds") if method == "adaptive" else None,
            "degree": plan.setting("marginal degree") if method == "adaptive" else None}


def peer(method: str, eps: float, rep: int, data: np.ndarray, sizes: list[int], timeout: float) -> list[dict]:
    """One fit of an OpenDP peer on the sample ``data`` in a child process of benchmarks/peers.py (its
    ``run_child``: one thread, killed after ``timeout`` wall seconds): its two draws scored, or one row saying why
    there are none (``timeout`` with the CPU seconds spent, ``error``, ``not installed``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import peers

    with tempfile.TemporaryDirectory(prefix="ground-truth-") as tmp:
        codes = os.path.join(tmp, "codes.npy")
        np.save(codes, data.astype(np.int64))
        spec = {"data": "bundled", "split": "full", "method": method, "epsilon": eps, "repeat": rep, "codes": codes,
                "out": os.path.join(tmp, "run")}
        meta, arrays, peak_mb = peers.run_child(spec, timeout, peers.child_env(1))
    if meta["status"] != "ok":
        return [{"status": meta["status"], "detail": meta.get("detail", ""), "cpu_seconds": meta.get("cpu_seconds"),
                 "seconds": timeout if meta["status"] == "timeout" else None, "peak_rss_mb": round(peak_mb, 1)}]
    return [{"status": "ok", "method": variant["method"], **scores(data, synth, sizes), "seconds": variant["seconds"],
             "cpu_seconds": variant["cpu_seconds"], "peak_rss_mb": round(peak_mb, 1),
             **({"notes": variant["notes"]} if variant.get("notes") else {})}
            for variant, synth in zip(meta["variants"], arrays)]


def relation(row: dict) -> str:
    """The guarantee a row's method ran under: the peers' (ε, δ = 1e-9) under add/remove, ours as its options say."""
    if row["method"].split("+")[0] in PEERS:
        return "add/remove, δ = 1e-9"
    options = row.get("options") or {}
    return (f"{options.get('neighbours', 'replace-one')}, "
            + ("δ = " + str(options.get("delta")) if options.get("privacy") == "zcdp" else "pure ε"))


def table(results: list[dict]) -> str:
    """One line per cell: rows, ε, truth, method and its relation, Q2 / Q3, their ratios to the floor, time."""
    lines = ["| rows | ε | truth | method (relation) | floor Q2 / Q3 | Q2 / Q3 | × floor "
             "| fit + sample s (CPU s, load) |",
             "|---:|---:|---|---|---|---|---|---:|"]
    for r in results:
        head = (f"| {r['rows']:,} | {r['epsilon']:g} | {r.get('truth', 'network')} | {r['method']} ({relation(r)}) | "
                f"{r['floor_q2']:.4f} / {r['floor_q3']:.4f} |")
        if r.get("status", "ok") != "ok":
            cpu = r.get("cpu_seconds")
            spent = f" ({cpu:.0f} CPU s)" if cpu is not None else ""
            lines.append(f"{head} {r['status']}: {r.get('detail', '')}{spent} | | |")
            continue
        lines.append(f"{head} {r['q2']:.4f} / {r['q3']:.4f} | {r['ratio_q2']:.2f} / {r['ratio_q3']:.2f} | "
                     f"{r['seconds']:.1f} ({r['cpu_seconds']:.1f}, {r['load_average']:.1f}) |")
    return "\n".join(lines)


def read_cells(path: str) -> list[dict]:
    """Cells from a JSON list (``--json``) or JSON lines (``--jsonl``)."""
    text = Path(path).read_text(encoding="utf-8").strip()
    return json.loads(text) if text.startswith("[") else [json.loads(line) for line in text.splitlines() if line]


def plot(cells: list[dict], figure: str) -> None:
    """Q2 / floor and Q3 / floor against n (log-log), one panel per (score, truth), one line per (method, ε): colour
    by ε, line style by method; the floor (1×) solid, the issue's targets 2× and 1.5× dashed.  Cells that did not
    finish are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    ok = [c for c in cells if c.get("status", "ok") == "ok"]
    truths = [t for t in ("network", "mrf") if any(c.get("truth", "network") == t for c in ok)]
    epsilons = sorted({c["epsilon"] for c in ok})
    methods = sorted({c["method"] for c in ok}, key=lambda m: (m.split("+")[0] not in ("adaptive", "privbayes"), m))
    colours = dict(zip(epsilons, ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")))
    styles = dict(zip(methods, ("-", "--", ":", "-.", (0, (1, 4)), (0, (6, 2, 1, 2)))))
    markers = dict(zip(methods, "osD^vx"))
    figure_, axes = plt.subplots(2, len(truths), figsize=(5.5 * len(truths), 8), squeeze=False, sharex=True)
    for row, score in enumerate(("q2", "q3")):
        for col, kind in enumerate(truths):
            ax = axes[row][col]
            for method in methods:
                for eps in epsilons:
                    points = sorted((c["rows"], c["ratio_" + score]) for c in ok
                                    if (c.get("truth", "network"), c["method"], c["epsilon"]) == (kind, method, eps))
                    if points:
                        ax.plot(*zip(*points), linestyle=styles[method], marker=markers[method], color=colours[eps],
                                label=f"{method}, ε = {eps:g}")
            for target in (2.0, 1.5):
                ax.axhline(target, color="grey", linestyle=(0, (4, 3)), linewidth=1)
            ax.axhline(1.0, color="black", linewidth=0.6)
            ax.set_xscale("log")
            ax.set_yscale("log")
            low, high = ax.get_ylim()
            ax.set_yticks([t for t in (0.5, 0.75, 1, 1.5, 2, 3, 5, 7, 10, 15, 20) if low <= t <= high])
            ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(ticker.NullFormatter())
            ax.set_title(f"{kind} truth: {score.upper()} / floor")
            ax.set_xlabel("rows n")
            ax.set_ylabel(f"{score.upper()} / floor (dashed: 2× and 1.5×)")
            ax.grid(True, which="major", alpha=0.3)
    legend = {label: handle for ax in axes.flat for handle, label in zip(*ax.get_legend_handles_labels())}
    figure_.legend(list(legend.values()), list(legend), loc="lower center", ncol=4, fontsize=8)
    figure_.tight_layout(rect=(0, 0.1, 1, 1))
    figure_.savefig(figure, dpi=110)
    plt.close(figure_)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1e4,1e5,1e6", help="comma-separated sample sizes")
    parser.add_argument("--epsilons", default="0.1,1,10")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--truth", choices=("network", "mrf"), default="network")
    parser.add_argument("--method", choices=METHODS, default="adaptive")
    parser.add_argument("--option", action="append", default=[], help="name=value passed to the synthesizer")
    parser.add_argument("--data-seed", type=int, default=10, help="seed of the first size's sample (+1 per size)")
    parser.add_argument("--floor-seed", type=int, default=1000,
                        help="seed of the first size's second sample, the floor (+1 per size)")
    parser.add_argument("--timeout", type=float, default=1200.0, help="wall seconds before a peer's fit is killed")
    parser.add_argument("--json", help="also write the results to this file (at the end)")
    parser.add_argument("--jsonl", help="append each cell to this file as a JSON line as soon as it finishes")
    parser.add_argument("--plot", metavar="CELLS",
                        help="run nothing: tabulate and plot the cells of this JSON / JSON-lines file")
    parser.add_argument("--figure", default=str(ROOT / "docs" / "figures" / "ground_truth_grid.png"),
                        help="the plot's PNG file")
    args = parser.parse_args()
    if args.plot:
        cells = read_cells(args.plot)
        order = {m: k for k, m in enumerate(("adaptive", "privbayes", "mst-opendp", "mst-opendp+round", "aim-opendp"))}
        print(table(sorted(cells, key=lambda c: (c.get("truth", "network") != "network", c["rows"], c["epsilon"],
                                                 order.get(c["method"], len(order)), c["method"]))))
        plot(cells, args.figure)
        return
    options = {}
    for item in args.option:
        name, value = item.split("=", 1)
        try:
            options[name] = json.loads(value)  # numbers, true/false/null
        except json.JSONDecodeError:
            options[name] = value  # a word: init=network
    results = run([int(float(r)) for r in args.rows.split(",")], [float(e) for e in args.epsilons.split(",")],
                  args.repeats, args.method, options, args.data_seed, args.truth, args.timeout, args.jsonl,
                  args.floor_seed)
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
