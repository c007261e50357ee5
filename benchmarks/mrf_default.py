"""The MRF's default estimate (``auto``) against naive MLE and CGM-EM, in the paper's metric and in pairwise TVD.

    python benchmarks/mrf_default.py --family tree --t 7 --k 3 --alpha 1 --settings 1000:0.1,1000:1 --reps 10

For each setting N:ε (N·ε from 10² to 10⁶ in docs/undirected.md, "MRF default estimate"), ``--reps`` true models
of ``--family`` (the generators of :mod:`mrf_generators`), N rows sampled from each, the clique tables released
once (replace-one, discrete Laplace) and every estimator fitted on the same noisy tables: ``naive`` (λ = 1e-4),
``cgm`` (CGM-EM, default options), ``auto`` (the library's default) and ``rule2`` (``auto`` rule 2, the default
before rule 4: :func:`privbayes.methods.mrf.estimation.floored_mle`).  Prints one JSON line per fit (with its
seconds), then a table of the means: KL(true ‖ fitted) of the joint (ICML 2017, Fig. 2) and the mean TVD of all
pairwise marginals, with auto's ratios to the better KL of naive/CGM and to naive's TVD.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

import numpy as np
from mrf_generators import ESTIMATORS, kl, mean_tvd, noise_to_count, pair_marginals, trials

from privbayes.methods.mrf import LogLinearModel

METHODS = ("naive", "cgm", "auto", "rule2")
RULES = ("auto", "rule2")


def run(family: str, t: int, k: int, alpha: float, n: int, epsilon: float, reps: int,
        make: Callable[[int], LogLinearModel] | None = None) -> dict[str, object]:
    """Mean KL and pairwise TVD of every method over ``reps`` models (``make(seed)`` if given, else
    :func:`mrf_generators.generate`); one JSON line per fit on stdout."""
    scores: dict[str, list[tuple[float, float]]] = {m: [] for m in METHODS}
    seconds: dict[str, list[float]] = {m: [] for m in METHODS}
    group = trials(family, t, k, alpha, n, epsilon, reps, "replace-one", make)
    for trial in group:
        truth_pairs = pair_marginals(trial.truth)
        for method in METHODS:
            start = time.perf_counter()
            model = ESTIMATORS[method](trial)
            tvd, divergence = mean_tvd(truth_pairs, pair_marginals(model)), kl(trial.truth, model)
            scores[method].append((tvd, divergence))
            seconds[method].append(time.perf_counter() - start)
            print(json.dumps({"family": family, "t": t, "k": k, "alpha": alpha, "n": n, "epsilon": epsilon,
                              "rep": trial.seed, "method": method, "tvd": tvd, "kl": divergence,
                              "seconds": time.perf_counter() - start}), flush=True)
    means = {m: np.mean(np.array(v), axis=0) for m, v in scores.items()}
    return {"family": family, "n": n, "epsilon": epsilon, "x": noise_to_count(group[0].stats), "reps": reps,
            **{f"{m}_tvd": float(means[m][0]) for m in METHODS}, **{f"{m}_kl": float(means[m][1]) for m in METHODS},
            **{f"{m}_kl_over_best": float(means[m][1] / min(means["naive"][1], means["cgm"][1])) for m in RULES},
            **{f"{m}_tvd_over_naive": float(means[m][0] / means["naive"][0]) for m in RULES},
            **{f"{m}_seconds": float(np.mean(seconds[m])) for m in METHODS}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", default="tree")
    parser.add_argument("--t", type=int, default=7)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=1.0)
    parser.add_argument("--settings", default="1000:0.1,1000:1,10000:1,100000:1,1000000:1", help="N:ε,...")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args(argv)
    rows = []
    for item in args.settings.split(","):
        n, eps = item.split(":")
        rows.append(run(args.family, args.t, args.k, args.alpha, int(n), float(eps), args.reps))
        print(json.dumps({"summary": rows[-1]}), flush=True)
    print(f"\n{args.family}, T = {args.t}, K = {args.k}, α = {args.alpha:g}, {args.reps} models per setting; "
          "KL / pairwise TVD")
    print("| N | ε | N·ε | x | naive | CGM | auto | rule 2 | auto KL / best | auto TVD / naive |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = " | ".join(f"{r[f'{m}_kl']:.3g} / {r[f'{m}_tvd']:.4f}" for m in METHODS)
        print(f"| {r['n']} | {r['epsilon']:g} | {r['n'] * r['epsilon']:g} | {r['x']:.3g} | {cells} | "
              f"{r['auto_kl_over_best']:.2f} | {r['auto_tvd_over_naive']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
