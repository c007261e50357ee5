"""A steward's workload on Adult: its workload error for ours without and with the workload, and for AIM given it.

Usage (the peers need their virtualenvs: benchmarks/peers_requirements.txt, peers_dpmm_requirements.txt):

  /work/peers-venv/bin/python benchmarks/workload.py [--data adult|bundled] [--epsilons 0.4,1.6] [--seeds 0,1,2]
      [--methods ours-adaptive,ours-adaptive-zcdp,aim-opendp,aim-dpmm] [--timeout 3600] [--threads 1]
      [--given-only] [--json out.json]
  /work/peers-venv/bin/python benchmarks/workload.py --summarise a.json b.json

Fits (issue 43, the workload acceptance): ours under pure ε (``ours-adaptive``) and under zCDP at the ρ of
(ε, δ = 1e-9) (``ours-adaptive-zcdp``), each without and with :data:`WORKLOAD` (``workload=``); OpenDP 0.16's AIM
(``aim-opendp``, zCDP at the ρ that OpenDP converts to (ε, δ = 1e-9)) and dpmm 0.1.9's AIM (``aim-dpmm``, (ε, δ =
1e-9)) given the eight sets as their workload.  All under add/remove neighbours (n private: AIM's relation), on the
whole table: ``--data adult`` is the paper's Adult with the authors' public domain (/work/shared/data, as
benchmarks/peers.py), ``bundled`` the bundled copy with ``adult.yaml`` (same columns and sizes).  Each fit runs in
a fresh child process of benchmarks/peers.py (its adapters, seeds, ``--timeout`` and ``--threads``) and returns as
many synthetic rows as the table has, scored against the real table: the workload error
(:func:`privbayes.evaluation.workload_tvd`: the average TVD over the eight sets, equal weights) and Q2 / Q3 (average
TVD of all 2-way / 3-way marginals, TODS 2017 §6.1), with wall and CPU seconds of fit + sampling and the load
average when it ended.  Prints one JSON line per fit, then a table of the means per (ε, method, workload).  The
JSON file is rewritten after every fit, so an interrupted run keeps what it did; ``--summarise`` pools such files
(docs/peers.md, "The steward's workload against AIM"; docs/decisions.md, "Workloads").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/peers.py, when run from elsewhere

WORKLOAD = [
    ["age", "sex", "income"],
    ["education", "sex", "income"],
    ["race", "sex", "income"],
    ["marital-status", "relationship", "income"],
    ["occupation", "sex", "hours-per-week"],
    ["workclass", "occupation", "income"],
    ["age", "marital-status", "sex"],
    ["native-country", "race", "income"],
]
"""Eight 3-way marginals a user would tabulate (demographics against income and hours), written down before any
result was seen."""

METHODS = ("ours-adaptive", "ours-adaptive-zcdp", "aim-opendp", "aim-dpmm")
ORDER = (*METHODS, "aim-dpmm+sample")
OURS = ("ours-adaptive", "ours-adaptive-zcdp")
"""Ours run without and with the workload; the AIMs with it only (their defaults were measured in issue 43)."""
SCORES = ("workload_error", "q2", "q3", "seconds", "cpu_seconds")


def fit(data: str, method: str, epsilon: float, seed: int, workload: list[list[str]] | None, timeout: float,
        threads: int | None, tmp: str) -> list[dict[str, object]]:
    """One fit in a child process of benchmarks/peers.py, and the scores of each of its outputs (dpmm's AIM gives
    two: its own rounded sampling and i.i.d. rows)."""
    import peers

    from privbayes.evaluation import average_marginal_tvd, workload_tvd
    from privbayes.methods.adaptive.workload import parse_workload

    schema, real = _real(data)
    sizes = [a.size for a in schema.attributes]
    spec = {"data": data, "split": "full", "method": method, "epsilon": epsilon, "repeat": seed,
            "workload": workload, "out": os.path.join(tmp, f"{method}-{epsilon}-{seed}-{workload is not None}")}
    meta, arrays, peak_mb = peers.run_child(spec, timeout, peers.child_env(threads))
    row: dict[str, object] = {"data": data, "method": method, "epsilon": epsilon, "seed": seed,
                              "workload": workload is not None, "status": meta["status"],
                              "load_average": round(os.getloadavg()[0], 2), "peak_rss_mb": round(peak_mb, 1)}
    if meta["status"] != "ok":
        return [{**row, "detail": meta.get("detail", ""), "cpu_seconds": meta.get("cpu_seconds")}]
    sets = parse_workload(WORKLOAD).resolve(schema.names)
    return [{**row, "method": variant["method"], "workload_error": workload_tvd(real, synth, sizes, sets)[0],
             "q2": average_marginal_tvd(real, synth, sizes, 2), "q3": average_marginal_tvd(real, synth, sizes, 3),
             "seconds": variant["seconds"], "cpu_seconds": variant["cpu_seconds"], "library": variant["library"],
             **({"notes": variant["notes"]} if variant.get("notes") else {})}
            for variant, synth in zip(meta["variants"], arrays)]


_TABLES: dict[str, tuple] = {}


def _real(data: str) -> tuple:
    """The schema and the real table's leaf codes (read once per dataset)."""
    if data not in _TABLES:
        import peers

        from privbayes.counting import leaf_codes

        schema, frame, _ = peers.load(data, "full")
        _TABLES[data] = (schema, leaf_codes(frame, schema))
    return _TABLES[data]


def means(fits: list[dict]) -> list[dict]:
    """Mean and sd per (data, ε, method, workload) over the fits that finished."""
    groups: dict[tuple, list[dict]] = {}
    for f in fits:
        groups.setdefault((f["data"], f["epsilon"], f["method"], f["workload"]), []).append(f)
    out = []
    for key in sorted(groups, key=lambda k: (k[0], k[1], ORDER.index(k[2]) if k[2] in ORDER else 9, k[3])):
        ok = [f for f in groups[key] if f["status"] == "ok"]
        entry: dict[str, object] = dict(zip(("data", "epsilon", "method", "workload"), key))
        entry.update(runs=len(ok), failed=len(groups[key]) - len(ok))
        for score in SCORES if ok else ():
            values = [float(f[score]) for f in ok]
            entry[score] = statistics.fmean(values)
            entry[score + "_sd"] = statistics.stdev(values) if len(values) > 1 else None
        out.append(entry)
    return out


def table(summary: list[dict]) -> str:
    """The means as a markdown table (mean ± sd of the workload error; Q2, Q3; wall and CPU seconds)."""
    lines = ["| data | ε | method | workload | runs | workload error | Q2 | Q3 | wall s | CPU s |",
             "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for m in summary:
        head = f"| {m['data']} | {m['epsilon']:g} | {m['method']} | {'given' if m['workload'] else '—'} |"
        failed = f" (+{m['failed']} failed)" if m["failed"] else ""
        if not m["runs"]:
            lines.append(f"{head} 0{failed} | | | | | |")
            continue
        sd = m["workload_error_sd"]
        lines.append(f"{head} {m['runs']}{failed} | {m['workload_error']:.4f}" + (f" ± {sd:.4f}" if sd else "")
                     + f" | {m['q2']:.4f} | {m['q3']:.4f} | {m['seconds']:.1f} | {m['cpu_seconds']:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="adult", choices=("adult", "bundled"))
    parser.add_argument("--epsilons", default="0.4,1.6")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--methods", default=",".join(METHODS), help=f"comma-separated, from {','.join(METHODS)}")
    parser.add_argument("--timeout", type=float, default=3600.0, help="kill a fit after this many wall seconds")
    parser.add_argument("--threads", type=int, default=None, help="cap XLA/numba/BLAS threads in the fits")
    parser.add_argument("--json", help="write every fit and the means to this file (rewritten after every fit)")
    parser.add_argument("--summarise", nargs="+", metavar="JSON", help="run nothing: pool earlier runs' files")
    parser.add_argument("--given-only", action="store_true",
                        help="ours with the workload only (a change to the workload rules leaves the defaults' fits as "
                        "they were: pool their earlier JSON with --summarise)")
    args = parser.parse_args(argv)
    from privbayes.files.tables import atomic_write_text

    if args.summarise:
        fits = [f for path in args.summarise for f in json.loads(Path(path).read_text(encoding="utf-8"))["fits"]]
    else:
        methods = [m for m in args.methods.split(",") if m]
        unknown = [m for m in methods if m not in METHODS]
        if unknown:
            parser.error(f"unknown method(s) {unknown}; choose from {METHODS}")
        settings = {"command": " ".join(sys.argv), "load_average_at_start": [round(x, 2) for x in os.getloadavg()]}
        fits = []
        with tempfile.TemporaryDirectory(prefix="workload-") as tmp:
            for epsilon in (float(e) for e in args.epsilons.split(",")):
                for seed in (int(s) for s in args.seeds.split(",")):
                    for method in methods:
                        both = method in OURS and not args.given_only
                        for workload in ((None, WORKLOAD) if both else (WORKLOAD,)):
                            rows = fit(args.data, method, epsilon, seed, workload, args.timeout, args.threads, tmp)
                            fits += rows
                            for row in rows:
                                print(json.dumps(row), flush=True)
                            if args.json:
                                atomic_write_text(args.json, json.dumps(
                                    {"workload": WORKLOAD, "settings": settings, "fits": fits,
                                     "means": means(fits)}, indent=1) + "\n")
    summary = means(fits)
    print(json.dumps({"means": summary}), flush=True)
    print("\n" + table(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
