"""The MRF's default (``auto``) on generator families it was not tuned on (issue 41, third acceptance point).

    python benchmarks/mrf_untuned.py [--reps 10] [--families star-skewed,star-flat,potts,wide] [--settings N:ε,...]

The families were fixed before any result was seen (docs/undirected.md, "On generators we did not tune on"); the
rule's constants came from chains (T = 6, K = 4, Dirichlet(0.5)) and random trees with K ≤ 6:

* ``star-skewed``: a star Bayesian network, T = 7, K = 4, Dirichlet(0.1) conditionals (very sparse truths);
* ``star-flat``: the same star with Dirichlet(5) conditionals (near-uniform truths);
* ``potts``: a 3 × 3 lattice, K = 3, mixed Potts couplings J ~ U[−1.5, 1.5] and unary fields (loopy);
* ``wide``: random recursive trees, T = 5, K = 12, Dirichlet(1) (144 cells per table).

For each family and setting N:ε (N·ε from 10² to 10⁶, N and ε both varied), ``--reps`` true models with fixed
seeds, N rows sampled from each, the clique tables released once (replace-one, discrete Laplace) and naive MLE,
CGM-EM and ``auto`` fitted on the same noisy tables (:func:`mrf_default.run`).  Prints one JSON line per fit and
per setting, then a table per family: KL(true ‖ fitted) of the joint (ICML 2017) and mean pairwise TVD, with
auto's KL over the better of naive/CGM and auto's TVD over naive's (targets: both ≤ 1.05).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from mrf_default import METHODS, RULES, run

FAMILIES: dict[str, tuple[str, int, int, float]] = {
    "star-skewed": ("star", 7, 4, 0.1),
    "star-flat": ("star", 7, 4, 5.0),
    "potts": ("potts", 9, 3, 1.5),
    "wide": ("tree", 5, 12, 1.0),
}
SETTINGS = "1000:0.1,1000:1,10000:0.1,10000:1,100000:0.1,100000:1,1000000:1"


def report(tables: dict[str, list[dict[str, Any]]], describe: dict[str, str], reps: int) -> int:
    """One table per family (KL / pairwise TVD of each method, auto's and rule 2's two ratios); prints each rule's
    ratios above 1.05 and their total excess over 1.05; returns auto's count."""
    counts = {rule: [0, 0.0] for rule in RULES}
    for name, rows in tables.items():
        print(f"\n{name}: {describe[name]}, {reps} models per setting; KL / pairwise TVD")
        print("| N | ε | N·ε | x | naive | CGM | auto | rule 2 | auto: KL / best, TVD / naive | rule 2: the same |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            cells = " | ".join(f"{r[f'{m}_kl']:.3g} / {r[f'{m}_tvd']:.4f}" for m in METHODS)
            ratios = []
            for rule in RULES:
                pair = (r[f"{rule}_kl_over_best"], r[f"{rule}_tvd_over_naive"])
                counts[rule][0] += sum(v > 1.05 for v in pair)
                counts[rule][1] += sum(max(0.0, v - 1.05) for v in pair)
                ratios.append(" / ".join(f"{v:.2f}{'*' if v > 1.05 else ''}" for v in pair))
            print(f"| {r['n']} | {r['epsilon']:g} | {r['n'] * r['epsilon']:g} | {r['x']:.3g} | {cells} | "
                  + " | ".join(ratios) + " |")
    for rule in RULES:
        print(f"\n{rule}: {counts[rule][0]} ratio(s) above 1.05 (marked *), total excess {counts[rule][1]:.2f}")
    return int(counts["auto"][0])


def command(argv: list[str] | None, description: str,
            families: dict[str, tuple[Callable[[int, float, int], dict[str, Any]], str]]) -> int:
    """The command line of the generator benchmarks: ``families`` maps a name to (run one setting: N, ε, reps →
    its summary row; the family's description); prints a JSON line per setting, then the tables."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--families", default=",".join(families))
    parser.add_argument("--settings", default=SETTINGS, help="N:ε,...")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args(argv)
    tables: dict[str, list[dict[str, Any]]] = {}
    for name in args.families.split(","):
        for item in args.settings.split(","):
            n, eps = item.split(":")
            row: dict[str, Any] = {"generator": name, **families[name][0](int(n), float(eps), args.reps)}
            tables.setdefault(name, []).append(row)
            print(json.dumps({"summary": row}), flush=True)
    report(tables, {name: families[name][1] for name in tables}, args.reps)
    return 0


def main(argv: list[str] | None = None) -> int:
    def runner(family: str, t: int, k: int, alpha: float) -> Callable[[int, float, int], dict[str, Any]]:
        return lambda n, eps, reps: run(family, t, k, alpha, n, eps, reps)

    return command(argv, __doc__.splitlines()[0],
                   {name: (runner(*spec), "{}, T = {}, K = {}, α = {:g}".format(*spec))
                    for name, spec in FAMILIES.items()})


if __name__ == "__main__":
    sys.exit(main())
