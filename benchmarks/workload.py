"""A steward's workload on Adult: the workload error of the default adaptive fit without the workload and with it.

Usage:
  python benchmarks/workload.py [--epsilons 0.4,1.6] [--seeds 0,1,2] [--json out.json]

The bundled Adult table (45,222 rows, its public schema ``adult.yaml``), add/remove neighbours (n private, as
AIM), the adaptive method with its defaults, fitted with and without :data:`WORKLOAD` (``workload=``), the same
seed for both.  A synthetic table of Adult's size is sampled from each release and scored against the real table:
the workload error (:func:`privbayes.evaluation.workload_tvd`: the average TVD over the workload's eight sets,
equal weights) and Q2 / Q3 (average TVD of all 2-way / 3-way marginals, TODS 2017 §6.1).  Prints one JSON line
per fit, then a table of the means over the seeds (docs/decisions.md, "Workloads").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "src" / "privbayes" / "data"

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


def run(epsilon: float, seed: int, workload: list[list[str]] | None, real: np.ndarray, schema) -> dict[str, object]:
    """One fit and its scores."""
    from privbayes import AdaptiveMarginals
    from privbayes.counting import leaf_codes
    from privbayes.evaluation import average_marginal_tvd, workload_tvd
    from privbayes.methods.adaptive.workload import parse_workload

    sizes = [a.size for a in schema.attributes]
    start = time.perf_counter()
    model = AdaptiveMarginals(epsilon, neighbours="add-remove", random_state=seed, workload=workload).fit(
        ADULT / "adult.csv.gz", schema)
    seconds = time.perf_counter() - start
    synth = leaf_codes(model.sample(real.shape[0], random_state=seed), schema)
    sets = parse_workload(WORKLOAD).resolve(schema.names)
    return {"epsilon": epsilon, "seed": seed, "workload": workload is not None,
            "workload_error": workload_tvd(real, synth, sizes, sets)[0],
            "q2": average_marginal_tvd(real, synth, sizes, 2), "q3": average_marginal_tvd(real, synth, sizes, 3),
            "rounds": model.released_.plan.setting("rounds"), "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", default="0.4,1.6")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--json", help="write every fit and the means to this file")
    args = parser.parse_args(argv)
    from privbayes.counting import leaf_codes
    from privbayes.schema.files import load_schema

    schema = load_schema(ADULT / "adult.yaml")
    real = leaf_codes(ADULT / "adult.csv.gz", schema)
    fits = []
    for epsilon in (float(e) for e in args.epsilons.split(",")):
        for seed in (int(s) for s in args.seeds.split(",")):
            for workload in (None, WORKLOAD):
                fits.append(run(epsilon, seed, workload, real, schema))
                print(json.dumps(fits[-1]), flush=True)
    means = []
    for epsilon in sorted({f["epsilon"] for f in fits}):
        for given in (False, True):
            group = [f for f in fits if f["epsilon"] == epsilon and f["workload"] is given]
            means.append({"epsilon": epsilon, "workload": given, "runs": len(group),
                          **{k: float(np.mean([f[k] for f in group]))
                             for k in ("workload_error", "q2", "q3", "seconds")}})
    print(json.dumps({"means": means}), flush=True)
    print(f"\n{'ε':>5} {'fit':<16} {'workload error':>14} {'Q2':>7} {'Q3':>7} {'s':>6}", file=sys.stderr)
    for m in means:
        label = "with workload" if m["workload"] else "default"
        print(f"{m['epsilon']:>5g} {label:<16} {m['workload_error']:>14.4f} {m['q2']:>7.4f} {m['q3']:>7.4f} "
              f"{m['seconds']:>6.1f}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"workload": WORKLOAD, "fits": fits, "means": means}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
