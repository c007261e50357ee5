"""TODS 2017 Figs 9-10: effect of the budget split β and of the usefulness threshold θ (§6.4).

The eight tasks of Fig. 11 (per dataset: Q4 on NLTCS/ACS or Q3 on Adult/BR2000, and one
SVM target).  Fig. 9: β ∈ {0.1, ..., 0.9} at θ = 4; Fig. 10: θ over ``--thetas`` at β = 0.3;
one line per ε.  The paper plots several ε per panel without listing them in the text; our
default is ε ∈ {0.1, 0.4, 1.6} (``--epsilons`` for more) and the θ grid {1, 2, 3, 4, 6, 8, 16}
(powers of two as in the SIGMOD 2014 version, plus 3 and 6, the ends of the TODS
recommendation [3, 6]).

Small β or θ raise the network degree k, and the cost of Alg. 2 on the binary datasets grows
as Σ_t (d − t)·C(t, k): a setting whose candidate count exceeds ``--max-candidates`` is
skipped, and any fit running past ``--time-limit`` seconds is abandoned; both are listed.

Writes docs/figures/fig9_beta.{csv,png}, fig10_theta.{csv,png} and fig9_10_parameters.md.

Usage: python experiments/parameters.py [--reps 1] [--datasets nltcs,adult,br2000] [--epsilons 0.1,0.4,1.6]
       [--betas 0.1,...,0.9] [--thetas 1,2,3,4,6,8,16] [--which beta,theta] [--out DIR]
"""

from __future__ import annotations

import argparse

from best_network import COUNTING, task_error, tasks
from common import (
    TimeLimit,
    add_common_arguments,
    alg2_cost,
    dataset,
    datasets_in,
    fit_rows,
    fmt,
    mean_by,
    merge_rows,
    out_dir,
    parse_common,
    plot_panels,
    read_rows,
    reps_for,
    runs_per_point,
    time_limit,
    write_summary,
)

BETAS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
THETAS = (1, 2, 3, 4, 6, 8, 16)
DEFAULT_EPSILONS = (0.1, 0.4, 1.6)
FIGURE = {"beta": 9, "theta": 10}


def candidate_count(name: str, kind: str, epsilon: float, beta: float, theta: float) -> tuple[int, int]:
    """(k, candidates of Alg. 2) on the all-binary datasets; (−1, 0) for Adult/BR2000 (Alg. 4)."""
    schema = dataset(name)[0]
    if not all(a.size == 2 for a in schema.attributes):
        return -1, 0
    return alg2_cost(fit_rows(name, "train" if kind == "svm" else "full"), len(schema.attributes), epsilon, beta, theta)


def run(datasets: list[str], epsilons: tuple[float, ...], reps: int, grids: dict[str, tuple[float, ...]],
        max_candidates: int, limit: float) -> tuple[list[dict], list[str]]:
    rows, skipped = [], []
    for which, grid in grids.items():
        for name in datasets:
            for kind, label in tasks(name):
                for eps in epsilons:
                    for value in grid:
                        beta, theta = (value, 4.0) if which == "beta" else (0.3, float(value))
                        k, count = candidate_count(name, kind, eps, beta, theta)
                        if count > max_candidates:
                            skipped.append(f"{name} {label} ε = {eps:g}, {which} = {value:g}: k = {k}, "
                                           f"{count:,} candidate AP pairs")
                            print("skipped:", skipped[-1], flush=True)
                            continue
                        for rep in range(reps_for(name, reps)):
                            params = {"beta": beta if beta != 0.3 else None, "theta": theta if theta != 4.0 else None}
                            try:
                                with time_limit(limit):
                                    error, k, seconds = task_error(name, kind, eps, rep, **params)
                            except TimeLimit:
                                skipped.append(f"{name} {label} ε = {eps:g}, {which} = {value:g}: over {limit:g} s")
                                print("skipped:", skipped[-1], flush=True)
                                break
                            rows.append({"parameter": which, "value": value, "dataset": name, "task": label,
                                         "epsilon": eps, "rep": rep, "error": round(error, 6), "k": k,
                                         "seconds": round(seconds, 2)})
                            print(rows[-1], flush=True)
    return rows, skipped


def plot(rows: list[dict], datasets: list[str], which: str) -> None:
    means = mean_by([r for r in rows if r["parameter"] == which], ("dataset", "task", "epsilon", "value"), "error")
    panels = []
    for kind in ("count", "svm"):
        for name in datasets:
            label = dict(tasks(name))[kind]
            lines = {}
            for eps in sorted({k[2] for k in means if k[:2] == (name, label)}):
                xs = sorted(v for (d, t, e, v) in means if (d, t, e) == (name, label, eps))
                lines[f"ε = {eps:g}"] = (xs, [means[(name, label, eps, x)] for x in xs])
            panels.append((f"Fig. {FIGURE[which]}: {name.upper()}, {label}", lines))
    symbol = "β" if which == "beta" else "θ"
    plot_panels(panels, out_dir() / f"fig{FIGURE[which]}_{which}.png", "error (TVD or misclassification)",
                xlabel=symbol,
                logx=which == "theta", ncols=len(datasets))


def summarise(rows: list[dict], datasets: list[str], grids: list[str], skipped: list[str]) -> str:
    out = ["# Figs 9-10: choice of β and θ (our run)", "",
           "Mean error per point (TVD for Qα, misclassification rate for the SVM target); each row gives the error "
           "per parameter value and the value with the lowest mean. Runs per point: "
           + runs_per_point(rows) + ".", ""]
    for which in grids:
        means = mean_by([r for r in rows if r["parameter"] == which], ("dataset", "task", "epsilon", "value"), "error")
        symbol = "β" if which == "beta" else "θ"
        values = sorted({k[3] for k in means})
        out += [f"**Fig. {FIGURE[which]} ({symbol})**", "",
                "| dataset | task | ε | " + " | ".join(f"{symbol} = {v:g}" for v in values) + " | best |",
                "|---" * (len(values) + 4) + "|"]
        bests = []
        for name in datasets:
            for _, label in tasks(name):
                for eps in sorted({k[2] for k in means if k[:2] == (name, label)}):
                    vals = {v: means.get((name, label, eps, v)) for v in values}
                    present = {v: e for v, e in vals.items() if e is not None}
                    best = min(present, key=present.get)
                    bests.append(best)
                    out.append(f"| {name} | {label} | {eps:g} | " + " | ".join(fmt(e) for e in vals.values())
                               + f" | {best:g} |")
        lo, hi = (0.2, 0.5) if which == "beta" else (3, 6)
        inside = sum(lo <= b <= hi for b in bests)
        out += ["", f"Best {symbol} within the paper's recommended [{lo:g}, {hi:g}] at {inside} of {len(bests)} "
                f"(task, ε) rows.", ""]
    if skipped:
        out += ["Skipped:", ""] + [f"* {s}" for s in skipped] + [""]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser, reps=1, datasets=("nltcs", "adult", "br2000"), epsilons=DEFAULT_EPSILONS)
    parser.add_argument("--betas", default=",".join(map(str, BETAS)))
    parser.add_argument("--thetas", default=",".join(map(str, THETAS)))
    parser.add_argument("--which", default="beta,theta")
    parser.add_argument("--max-candidates", type=int, default=400_000)
    parser.add_argument("--time-limit", type=float, default=600, help="seconds per fit (0: none)")
    args = parser.parse_args(argv)
    datasets, epsilons, reps = parse_common(args)
    grids = {w: tuple(float(v) for v in getattr(args, w + "s").split(",")) for w in args.which.split(",")}
    skipped = []
    for which, grid in grids.items():  # written after every (dataset, ε), so an interrupted run keeps what it did
        for name in datasets:
            for eps in epsilons:
                new, skip = run([name], (eps,), reps, {which: grid}, args.max_candidates, args.time_limit)
                skipped += skip
                merge_rows(out_dir() / f"fig{FIGURE[which]}_{which}.csv", new, ("parameter", "dataset", "epsilon"))
    rows = [r for which in FIGURE for r in read_rows(out_dir() / f"fig{FIGURE[which]}_{which}.csv")]
    shown = datasets_in(rows, COUNTING)
    for which in FIGURE:
        if any(r["parameter"] == which for r in rows):
            plot(rows, shown, which)
    write_summary(summarise(rows, shown, [w for w in FIGURE if any(r["parameter"] == w for r in rows)], skipped),
                  "fig9_10_parameters.md")


if __name__ == "__main__":
    main()
