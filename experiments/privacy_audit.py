"""Full distinguishing audit (slow; the fast variants live in tests/audit/test_privacy_audit.py).

Scenarios (neighbouring inputs A, B) and the deliberately broken variants each must reject:

* discrete Laplace on one count, 0 vs 1 (sensitivity 1): Google's stochastic tester
  (N = 10⁶ runs per side, ε = ln 3, tolerance 0.0025, majority of 9 votes) — correct and
  "half the noise";
* discrete Laplace on a 2-cell table, (3, 0) vs (2, 1): correct and "noise only on non-empty
  cells" (rigorous concentration tolerance, privbayes.audit.distinguish);
* exponential mechanism, u_A = (1,0,0,0,0) vs u_B = (0,1,1,1,1), Δ = 1: correct, half noise,
  argmax ("exact-score screening");
* end-to-end PrivBayes (``PrivBayes.fit`` on a DataFrame, nothing bypassed): the network
  scenario (n = 6, three binary attributes; events = the network, and the richer network +
  argmax cells) against argmax selection; the cells scenario (n = 4, two binary attributes;
  events = support of the released joint) against half noise and noise on non-empty cells;
  the same cells scenario under add/remove neighbours (``neighbours="add-remove"``: B is A
  without its tuple in cell (0,1), n private) against half noise.

Broken variants are monkeypatched here (``unittest.mock.patch``), never in src/.

    PYTHONPATH=src python experiments/privacy_audit.py [--quick] [--only BLOCK,...] [--json results.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import time
from collections import Counter
from unittest import mock

import numpy as np

import privbayes.bayesnet.measurements as measurements_module
import privbayes.privacy.mechanisms as mechanisms_module
from privbayes.audit.distinguish import (
    GOOGLE_TOLERANCE,
    GOOGLE_VOTES,
    argmax_event,
    binary_schema,
    cells_pair,
    compare_histograms,
    concentration_tolerance,
    distinguish,
    network_event,
    network_pair,
    support_event,
)
from privbayes.methods.privbayes.estimator import PrivBayes
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import exponential_mechanism, laplace_counts
from privbayes.privacy.samplers import random_source

LN3 = math.log(3)
ALPHA = 1e-4

_real_laplace = mechanisms_module.discrete_laplace
_real_choice = mechanisms_module.exponential_choice
_real_counts = measurements_module.laplace_counts


def _broken_nonempty(counts, epsilon, accountant, rng, **kwargs):
    noisy = _real_counts(counts, epsilon, accountant, rng, **kwargs)
    return np.where(np.asarray(counts) > 0, noisy, counts)


VARIANTS = {
    "correct": contextlib.nullcontext,
    "half noise": lambda: _patches(
        mock.patch.object(mechanisms_module, "discrete_laplace", lambda s, n, r: _real_laplace(s / 2, n, r)),
        mock.patch.object(mechanisms_module, "exponential_choice", lambda u, f, r: _real_choice(u, 2 * f, r))),
    "argmax selection": lambda: mock.patch.object(
        mechanisms_module, "exponential_choice", lambda u, f, r: max(range(len(u)), key=u.__getitem__)),
    "noise only on non-empty cells": lambda: mock.patch.object(measurements_module, "laplace_counts", _broken_nonempty),
}


@contextlib.contextmanager
def _patches(*patches):
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        yield


def _clamp(v, lo, hi):
    return min(max(int(v), lo), hi)


def count_batch(true_count, seed, n):
    out = laplace_counts(np.full(n, true_count), LN3, Accountant(LN3), random_source(seed), step="c", measured="c",
                         sensitivity=1)
    return Counter(_clamp(v, -6, 7) for v in out)


def table_batch(table, seed, n, laplace):
    out = laplace(np.tile(table, (n, 1)), LN3, Accountant(LN3), random_source(seed), step="t", measured="t")
    return Counter((_clamp(x, -3, 5), _clamp(y, -3, 5)) for x, y in out)


def em_run(scores, base):
    return lambda i: exponential_mechanism(scores, LN3, 1, Accountant(LN3), random_source(base + i), step="e",
                                           measured="m")


def release_run(frame, schema, base, event, **params):
    params = {"estimation": "paper", **params}  # the events assume the paper's post-processing
    return lambda i: event(PrivBayes(LN3, random_state=base + i, **params).fit(frame, schema))


def row(scenario, variant, result, mode, expected_pass, seconds):
    passed = result.passed
    return {"scenario": scenario, "variant": variant, "mode": mode, "runs": result.runs if hasattr(result, "runs")
            else None, "violation": round(result.violation, 4) if hasattr(result, "violation") else None,
            "bound": round(result.delta + result.tolerance, 4) if hasattr(result, "tolerance") else None,
            "passed": passed, "expected_pass": expected_pass, "ok": passed == expected_pass,
            "seconds": round(seconds, 1)}


def google_count(variant, runs, votes):
    """Google mode for the count: each vote draws fresh batches (seeds differ per vote)."""
    counter = iter(range(10**6))

    def vote():
        k = next(counter)
        a, b = count_batch(0, 1000 + 2 * k, runs), count_batch(1, 1001 + 2 * k, runs)
        return compare_histograms(a, b, runs, epsilon=LN3, delta=0.0, tolerance=GOOGLE_TOLERANCE)
    results = []
    accept = reject = 0
    while max(accept, reject) <= votes // 2:
        r = vote()
        results.append(r)
        accept += r.passed
        reject += not r.passed
    return results, accept > reject


BLOCKS = ("count", "table", "em", "network", "cells", "add-remove")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="10× fewer runs: a smoke test, too weak to reject every broken variant")
    parser.add_argument("--e2e-runs", type=int, default=10_000, help="runs per side for end-to-end PrivBayes")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--only", help=f"comma-separated blocks to run (default all): {', '.join(BLOCKS)}")
    args = parser.parse_args()
    blocks = set(BLOCKS if args.only is None else args.only.split(","))
    if blocks - set(BLOCKS):
        parser.error(f"--only takes blocks among {', '.join(BLOCKS)}")
    scale = 10 if args.quick else 1
    rows = []

    def record(scenario, variant, mode, expected_pass, fn):
        start = time.perf_counter()
        with VARIANTS[variant]():
            result = fn()
        rows.append(row(scenario, variant, result, mode, expected_pass, time.perf_counter() - start))
        r = rows[-1]
        print(f"{scenario:34s} {variant:30s} {mode:32s} δ̂ = {r['violation']}  bound {r['bound']}  "
              f"{'pass' if r['passed'] else 'REJECT'}  {'ok' if r['ok'] else 'UNEXPECTED'}  ({r['seconds']} s)",
              flush=True)

    # 1. Google's tester on a count.
    for variant, expected in (("correct", True), ("half noise", False)) if "count" in blocks else ():
        start = time.perf_counter()
        with VARIANTS[variant]():
            votes, passed = google_count(variant, 10**6 // scale, GOOGLE_VOTES)
        worst = max(votes, key=lambda v: v.violation)
        rows.append({"scenario": "discrete Laplace count 0 vs 1", "variant": variant,
                     "mode": f"Google: N=10⁶/{scale}, τ=0.0025, {len(votes)} votes", "runs": 10**6 // scale,
                     "violation": round(worst.violation, 4), "bound": GOOGLE_TOLERANCE,
                     "votes_for": sum(v.passed for v in votes), "votes": len(votes), "passed": passed,
                     "expected_pass": expected, "ok": passed == expected,
                     "seconds": round(time.perf_counter() - start, 1)})
        print(rows[-1], flush=True)

    # 2. Count table, rigorous tolerance.
    n_table = 200_000 // scale
    for variant, expected in (("correct", True), ("noise only on non-empty cells", False)) if "table" in blocks else ():
        def table_fn():
            laplace = _broken_nonempty if variant != "correct" else laplace_counts  # noqa: B023
            a, b = table_batch([3, 0], 31, n_table, laplace), table_batch([2, 1], 32, n_table, laplace)
            return compare_histograms(a, b, n_table, epsilon=LN3, delta=0.0,
                                      tolerance=concentration_tolerance(n_table, LN3, 81, ALPHA))
        record("count table (3,0) vs (2,1)", variant, f"rigorous: N={n_table}, K=81", expected, table_fn)

    # 3. Exponential mechanism.
    n_em = 100_000 // scale
    for variant, expected in ((("correct", True), ("half noise", False), ("argmax selection", False))
                              if "em" in blocks else ()):
        record("exponential mechanism", variant, f"rigorous: N={n_em}, K=5", expected,
               lambda: distinguish(em_run([1, 0, 0, 0, 0], 10**7), em_run([0, 1, 1, 1, 1], 2 * 10**7), epsilon=LN3,
                                   runs=n_em, events=5, false_failure=ALPHA))

    # 4. End-to-end PrivBayes through fit(DataFrame, schema).  numba's parallel kernels run on one
    # thread: on 4-6-row tables thread start-up costs 5× the work (the counts are identical).
    try:
        import numba
        numba.set_num_threads(1)
    except ImportError:
        pass
    n_e2e = args.e2e_runs // scale
    a, b = network_pair()
    s3 = binary_schema("abc")
    network_events = ((network_event, 12, "network"), (argmax_event, 384, "network + argmax cells"))
    for event, k, label in network_events if "network" in blocks else ():
        for variant, expected in (("correct", True), ("argmax selection", False)):
            record(f"PrivBayes n=6 d=3 ({label})", variant, f"rigorous: N={n_e2e}, K={k}", expected,
                   lambda: distinguish(release_run(a, s3, 10**7, event, degree=1),  # noqa: B023
                                       release_run(b, s3, 2 * 10**7, event, degree=1), epsilon=LN3, runs=n_e2e,  # noqa: B023
                                       events=k, false_failure=ALPHA))  # noqa: B023
    a2, b2 = cells_pair()
    s2 = binary_schema("ab")
    for variant, expected in ((("correct", True), ("half noise", False), ("noise only on non-empty cells", False))
                              if "cells" in blocks else ()):
        record("PrivBayes n=4 d=2 (joint support)", variant, f"rigorous: N={n_e2e}, K=16", expected,
               lambda: distinguish(release_run(a2, s2, 10**7, support_event, degree=1, beta=0.05),
                                   release_run(b2, s2, 2 * 10**7, support_event, degree=1, beta=0.05),
                                   epsilon=LN3, runs=n_e2e, events=16, false_failure=ALPHA))
    # The cells scenario under add/remove: B is A without its (0,1) tuple (n = 4 vs 3).
    for variant, expected in (("correct", True), ("half noise", False)) if "add-remove" in blocks else ():
        record("PrivBayes n=4 vs 3 d=2 (joint support, add/remove)", variant, f"rigorous: N={n_e2e}, K=16", expected,
               lambda: distinguish(release_run(a2, s2, 10**7, support_event, degree=1, beta=0.05,
                                               neighbours="add-remove"),
                                   release_run(a2.iloc[:3], s2, 2 * 10**7, support_event, degree=1, beta=0.05,
                                               neighbours="add-remove"),
                                   epsilon=LN3, runs=n_e2e, events=16, false_failure=ALPHA))

    print()
    print("| scenario | variant | mode | max δ̂ | δ + τ | verdict | expected | ok |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['scenario']} | {r['variant']} | {r['mode']} | {r['violation']} | {r['bound']} | "
              f"{'pass' if r['passed'] else 'reject'} | {'pass' if r['expected_pass'] else 'reject'} | "
              f"{'✓' if r['ok'] else '✗'} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2)
    print("overall:", "PASS" if all(r["ok"] for r in rows) else "FAIL")


if __name__ == "__main__":
    main()
