"""Fit time of SA-PrivBayes (strict and faithful) vs PrivBayes at k = 2 and k = 3 (issue 13).

The paper (Future Internet 2026, §5.2) claims SA-PrivBayes's run time is almost independent of k: its
scores are sums of pairwise mutual informations read off one matrix, while PrivBayes counts a
(k+1)-way table for every candidate.  PrivBayes runs as the paper compares it (fixed degree k,
score I, vanilla encoding).  Each fit gets an already opened table (reading and labelling the file is
the same for all methods and excluded); the first fit of a process is a warm-up and not timed.

Usage: python benchmarks/sa_speed.py [--datasets nltcs,adult,br2000] [--ks 2,3] [--epsilon 1] [--repeats 3]
Prints one JSON document and a table (median fit seconds over the repeats).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from privbayes import PrivBayes, SAPrivBayes, counting
from privbayes.schema.domainfile import read_domain

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
METHODS = ("PrivBayes", "SA strict", "SA faithful")


def estimator(method: str, epsilon: float, k: int, seed: int):
    if method == "PrivBayes":
        return PrivBayes(epsilon, degree=k, score="I", encoding="vanilla", random_state=seed)
    return SAPrivBayes(epsilon, mode=method.split()[1], degree=k, random_state=seed)


def run(datasets: list[str], ks: list[int], epsilon: float, repeats: int) -> list[dict]:
    rows = []
    for name in datasets:
        schema = read_domain(DATA / name / f"{name}.domain")
        table = counting.open(DATA / name / f"{name}.dat", schema)
        estimator("SA strict", epsilon, 2, 0).fit(table)  # warm-up (numba kernels, imports)
        for k in ks:
            for method in METHODS:
                times = []
                for rep in range(repeats):
                    start = time.perf_counter()
                    estimator(method, epsilon, k, rep).fit(table)
                    times.append(time.perf_counter() - start)
                rows.append({"dataset": name, "n": table.n, "d": len(schema.attributes), "k": k, "method": method,
                             "epsilon": epsilon, "fit_s": [round(t, 3) for t in times],
                             "median_fit_s": round(statistics.median(times), 3)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="nltcs,adult,br2000")
    parser.add_argument("--ks", default="2,3")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = run(args.datasets.split(","), [int(k) for k in args.ks.split(",")], args.epsilon, args.repeats)
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    print(json.dumps({"benchmark": "sa_speed", "machine": machine, "results": rows}, indent=1))
    ks = sorted({r["k"] for r in rows})
    print(f"\n{'dataset':<8} {'method':<12} " + " ".join(f"{'k=' + str(k) + ' s':>9}" for k in ks)
          + f" {'ratio':>7}")
    for name in dict.fromkeys(r["dataset"] for r in rows):
        for method in METHODS:
            times = {r["k"]: r["median_fit_s"] for r in rows if (r["dataset"], r["method"]) == (name, method)}
            ratio = times[ks[-1]] / times[ks[0]] if len(ks) > 1 and times[ks[0]] > 0 else float("nan")
            print(f"{name:<8} {method:<12} " + " ".join(f"{times[k]:>9.3f}" for k in ks) + f" {ratio:>7.2f}")


if __name__ == "__main__":
    main()
