"""``privbayes nbc check`` on all of Adult: the exact NBC-equivalence check without enumerating the domain.

Adult as bundled (45,222 rows) with every attribute: the bundled schema (14 attributes, 4.5·10^14
domain tuples) and the unedited ``schema infer`` draft (2.1·10^13 tuples; special values,
log-spaced bins).  For each, SafetyTransform at γ = 1.1 and 283 (the posterior condition), then
the branch-and-bound check of :mod:`privbayes.methods.nbc.equivalence` (median of --repeats runs; boxes
examined), in both orders, and on views tampered by raising one class's prior by 10⁻⁶
(the check must find a real counterexample).  The exhaustive twin would need 2^22 cells at most.

Usage: PYTHONPATH=src python benchmarks/nbc_check.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from fractions import Fraction
from importlib import resources

import pandas as pd

from privbayes.counting import open as open_table
from privbayes.counting.draft import draft_schema
from privbayes.methods.nbc.equivalence import check_equivalence
from privbayes.methods.nbc.safety import safety_transform
from privbayes.methods.nbc.views import views_from_table
from privbayes.schema.files import load_schema


def timed(task, repeats: int):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = task()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    data = resources.files("privbayes") / "data"
    with resources.as_file(data / "adult.csv.gz") as path, resources.as_file(data / "adult.yaml") as bundled:
        frame = pd.read_csv(path)
        schemas = {"bundled": load_schema(str(bundled)), "draft": draft_schema(frame).schema()}
    rows = []
    for name, schema in schemas.items():
        views = views_from_table(open_table(frame, schema), "income")
        for gamma in (Fraction(11, 10), Fraction(283)):
            published = safety_transform(views, gamma).views
            prior = [published.prior[0], published.prior[1] * 1000001 // 1000000]
            tampered = published.with_counts(prior, [a.counts for a in published.attributes])
            for case, first, second in (("original vs published", views, published),
                                        ("published vs original", published, views),
                                        ("tampered", views, tampered)):
                seconds, verdict = timed(lambda: check_equivalence(first, second), args.repeats)  # noqa: B023
                rows.append({"schema": name, "attributes": views.n, "domain": views.domain_size,
                             "gamma": str(gamma), "case": case, "equivalent": verdict.equivalent,
                             "boxes": verdict.nodes, "seconds": round(seconds, 3)})
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "processor": platform.processor()}
    print(json.dumps({"benchmark": "nbc_check", "machine": machine, "repeats": args.repeats, "results": rows},
                     indent=1))
    print(f"\n{'schema':<8} {'domain':>9} {'γ':>6} {'case':<22} {'verdict':<11} {'boxes':>5} {'s':>7}")
    for r in rows:
        verdict = "equivalent" if r["equivalent"] else "differs"
        print(f"{r['schema']:<8} {r['domain']:>9.2e} {r['gamma']:>6} {r['case']:<22} {verdict:<11} {r['boxes']:>5} "
              f"{r['seconds']:>7.3f}")


if __name__ == "__main__":
    main()
