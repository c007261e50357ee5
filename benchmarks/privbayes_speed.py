"""Fit and sample times of PrivBayes on the papers' four datasets (read from ../shared/data).

Usage: python benchmarks/privbayes_speed.py [--datasets adult,nltcs,acs,br2000] [--epsilons 0.1,0.4,1.6]
Prints one JSON document and a table.  Fit time includes encoding the DataFrame; sample
time draws n rows (as many as the input) and decodes them.  Defaults follow the paper
(β = 0.3, θ = 4, score F on the binary datasets and R otherwise, hierarchical encoding when
taxonomies are given).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from privbayes import PrivBayes, counting
from privbayes.schema.domainfile import read_domain

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def run(datasets: list[str], epsilons: list[float], repeats: int) -> list[dict]:
    rows = []
    for name in datasets:
        schema = read_domain(DATA / name / f"{name}.domain")
        path = DATA / name / f"{name}.dat"
        for eps in epsilons:
            for rep in range(repeats):
                start = time.perf_counter()
                model = PrivBayes(eps).fit(counting.open(path, schema))  # reading and labelling included
                fitted = time.perf_counter()
                model.sample()
                done = time.perf_counter()
                rows.append({"dataset": name, "n": model.n_, "d": len(schema), "epsilon": eps, "repeat": rep,
                             "encoding": model.encoding_.name, "score": model.score_, "degree": model.degree_,
                             "fit_s": round(fitted - start, 3), "sample_s": round(done - fitted, 3),
                             "total_s": round(done - start, 3)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="adult,nltcs,acs,br2000")
    parser.add_argument("--epsilons", default="0.1,0.4,1.6")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    rows = run(args.datasets.split(","), [float(e) for e in args.epsilons.split(",")], args.repeats)
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    print(json.dumps({"benchmark": "privbayes_speed", "machine": machine, "results": rows}, indent=1))
    print(f"\n{'dataset':<8} {'eps':>5} {'enc':<12} {'score':>5} {'k':>3} {'fit s':>8} {'sample s':>9} {'total s':>8}")
    for r in rows:
        print(f"{r['dataset']:<8} {r['epsilon']:>5} {r['encoding']:<12} {r['score']:>5} {r['degree']:>3} "
              f"{r['fit_s']:>8.3f} {r['sample_s']:>9.3f} {r['total_s']:>8.3f}")


if __name__ == "__main__":
    main()
