"""PrivBayes with estimation="paper", "projected" and "consistent" on the paper's four datasets (issue 18).

Protocol: each dataset read whole with its authors' domain (``counting.open(dat, domain)``);
per (dataset, ε, repetition r) both estimations are fitted with ``random_state=r`` — so they
learn the same network and measure the same noisy tables, and differ only in the
post-processing — and sample n rows with ``random_state=r``.  Reported: wall seconds of fit +
sample, and the average TVD of all 2- and 3-way marginals of the synthetic leaf codes against
the real ones (``average_marginal_tvd``, TODS 2017, §6.1).  Seeded noise: for measurement only.

    /work/venv/bin/python benchmarks/consistent_peers.py [--datasets adult,nltcs,acs,br2000]
        [--epsilons 0.1,0.4,1.6] [--repeats 5] [--json out.json] [--markdown table.md]

Prints one JSON document, then a table.  A "consistent" fit whose junction tree is too large
for exact inference uses the projected conditionals (a caveat in the model): counted as fallbacks.
MST/AIM are in benchmarks/peers.py (docs/peers.md).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import time

from privbayes import counting
from privbayes.core.errors import InputError
from privbayes.counting import leaf_codes
from privbayes.evaluation.marginals import average_marginal_tvd
from privbayes.methods.privbayes.estimator import PrivBayes

DATA = os.environ.get("PRIVBAYES_DATA", "/work/shared/data")
ESTIMATIONS = ("paper", "projected", "consistent")


def run(datasets: list[str], epsilons: list[float], repeats: int, estimations: list[str]) -> list[dict]:
    rows = []
    for name in datasets:
        dat, domain = f"{DATA}/{name}/{name}.dat", f"{DATA}/{name}/{name}.domain"
        table = counting.open(dat, domain)
        real = leaf_codes(dat, table.schema)
        sizes = [a.size for a in table.schema.attributes]
        for eps in epsilons:
            for rep in range(repeats):
                for estimation in estimations:
                    start = time.perf_counter()
                    try:
                        model = PrivBayes(eps, random_state=rep, estimation=estimation).fit(table)
                    except InputError as exc:  # e.g. a junction tree too large for exact inference
                        rows.append({"dataset": name, "epsilon": eps, "repeat": rep, "estimation": estimation,
                                     "refused": str(exc)})
                        print(f"{name} eps={eps} rep={rep} {estimation}: refused ({exc})", file=sys.stderr, flush=True)
                        continue
                    synthetic = model.sample(table.n, random_state=rep)
                    seconds = time.perf_counter() - start
                    codes = leaf_codes(synthetic, table.schema)
                    row = {"dataset": name, "epsilon": eps, "repeat": rep, "estimation": estimation,
                           "seconds": round(seconds, 2), "tvd2": average_marginal_tvd(real, codes, sizes, 2),
                           "tvd3": average_marginal_tvd(real, codes, sizes, 3),
                           "fallback": any("junction tree" in c for c in model.model_.caveats)}
                    print(f"{name} eps={eps} rep={rep} {estimation}: {seconds:.1f} s, TVD2 {row['tvd2']:.4f}, "
                          f"TVD3 {row['tvd3']:.4f}", file=sys.stderr, flush=True)
                    rows.append(row)
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    keys = sorted({(r["dataset"], r["epsilon"], r["estimation"]) for r in rows},
                  key=lambda k: (k[0], k[1], ESTIMATIONS.index(k[2])))
    out = []
    for dataset, eps, estimation in keys:
        runs = [r for r in rows if (r["dataset"], r["epsilon"], r["estimation"]) == (dataset, eps, estimation)
                and "refused" not in r]
        refused = sum(1 for r in rows if (r["dataset"], r["epsilon"], r["estimation"]) == (dataset, eps, estimation)
                      and "refused" in r)
        entry = {"dataset": dataset, "epsilon": eps, "estimation": estimation, "runs": len(runs), "refused": refused,
                 "fallbacks": sum(1 for r in runs if r.get("fallback"))}
        if not runs:
            out.append(entry)
            continue
        for field in ("seconds", "tvd2", "tvd3"):
            values = [r[field] for r in runs]
            entry[field] = statistics.fmean(values)
            entry[f"{field}_sd"] = statistics.stdev(values) if len(values) > 1 else 0.0
        out.append(entry)
    return out


def markdown_table(summary: list[dict]) -> str:
    lines = ["| dataset | ε | estimation | runs (refused; projected fallbacks) | fit+sample s | TVD 2-way "
             "| TVD 3-way |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: |"]
    for e in summary:
        runs = f"{e['runs']}" + (f" ({e['refused']} refused)" if e["refused"] else "") + \
            (f" ({e['fallbacks']} fallbacks)" if e.get("fallbacks") else "")
        if not e["runs"]:
            lines.append(f"| {e['dataset']} | {e['epsilon']:g} | {e['estimation']} | {runs} | – | – | – |")
            continue
        lines.append(f"| {e['dataset']} | {e['epsilon']:g} | {e['estimation']} | {runs} | "
                     f"{e['seconds']:.1f} ± {e['seconds_sd']:.1f} | {e['tvd2']:.4f} ± {e['tvd2_sd']:.4f} | "
                     f"{e['tvd3']:.4f} ± {e['tvd3_sd']:.4f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="adult")
    parser.add_argument("--epsilons", default="0.1,0.4,1.6")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--estimations", default=",".join(ESTIMATIONS), help="comma-separated subset of "
                        + ", ".join(ESTIMATIONS))
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = run(args.datasets.split(","), [float(e) for e in args.epsilons.split(",")], args.repeats,
               args.estimations.split(","))
    summary = summarise(rows)
    document = {"benchmark": "consistent_peers", "date": datetime.datetime.now(datetime.UTC).isoformat(
        timespec="seconds"), "command": " ".join(sys.argv), "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "total_seconds": round(time.perf_counter() - started, 1),
        "results": rows, "summary": summary}
    table = markdown_table(summary)
    print(json.dumps(document, indent=1))
    print()
    print(table)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(f"Run {document['date']} (`{document['command']}`), {document['total_seconds']:.0f} s; "
                    f"{document['cpus']} cores, load average {document['load_average']}.\n\n{table}\n")


if __name__ == "__main__":
    main()
