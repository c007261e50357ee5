"""TODS 2017 Figs 5-8: the four encodings of non-binary attributes on Adult and BR2000 (§6.3).

Methods are named encoding-score as in the paper: Binary-F, Gray-F, Vanilla-R and
Hierarchical-R by default (Binary-R and Gray-R on request), all with β = 0.3, θ = 4.
Fig 5/6: average TVD of Q2 and Q3 (PrivBayes fitted on the full data); Fig 7/8:
misclassification rate of the four SVM targets (fitted on the 80 % training part).

Cost guard.  Under the binary and Gray encodings every bit is an attribute (Adult: 52,
BR2000: 32) and Alg. 2 scores every k-subset of the placed bits for every unplaced bit:
Σ_t (d − t)·C(t, k) candidates (Adult, k = 3: 2.9 million; k = 6: 886 million).  A fit
takes roughly 4-14 µs per candidate here (Adult, 23 million: 81 s; BR2000, 14 million:
130-190 s); one above ``--max-candidates`` (default 400,000) is skipped, and the summary
lists every point of the ε grid left without results.

Writes docs/figures/fig5_adult_encodings ... fig8_br2000_encodings_svm .{csv,png} and
docs/figures/fig5_8_encodings.md.

Usage: python experiments/encoding_schemes.py [--reps 2] [--paper] [--datasets adult,br2000] [--epsilons ...]
       [--methods Binary-F,Gray-F,Vanilla-R,Hierarchical-R] [--max-candidates 400000] [--out DIR]
"""

from __future__ import annotations

import argparse

from common import (
    ALPHAS,
    EPSILONS,
    add_common_arguments,
    alg2_cost,
    dataset,
    datasets_in,
    fit_rows,
    fmt,
    lines_by,
    mean_by,
    merge_rows,
    out_dir,
    parse_common,
    plot_panels,
    privbayes_codes,
    read_rows,
    runs_per_point,
    sizes_of,
    split,
    write_summary,
)

from privbayes.evaluation import PAPER_TARGETS, average_marginal_tvd, svm_misclassification
from privbayes.schema.encoding import Encoding

METHODS = ("Binary-F", "Gray-F", "Binary-R", "Gray-R", "Vanilla-R", "Hierarchical-R")
DEFAULT_METHODS = ("Binary-F", "Gray-F", "Vanilla-R", "Hierarchical-R")
FIGURES = {("adult", "count"): 5, ("br2000", "count"): 6, ("adult", "svm"): 7, ("br2000", "svm"): 8}
BETA, THETA = 0.3, 4.0


def parameters(method: str) -> dict:
    encoding, score = method.split("-")
    return {"encoding": encoding.lower(), "score": score}


def candidates(name: str, method: str, epsilon: float, part: str) -> tuple[int, int]:
    """(k, number of AP-pair candidates Alg. 2 scores) for a bit encoding; (−1, 0) otherwise."""
    encoding = parameters(method)["encoding"]
    if encoding not in ("binary", "gray"):
        return -1, 0
    d = len(Encoding.build(dataset(name)[0], encoding).attributes)
    return alg2_cost(fit_rows(name, part), d, epsilon, BETA, THETA)


def run(datasets: list[str], epsilons: tuple[float, ...], reps: int, methods: tuple[str, ...],
        max_candidates: int) -> tuple[list[dict], list[str]]:
    rows, skipped = [], []
    for name in datasets:
        _, _, codes = dataset(name)
        sizes = sizes_of(name)
        for eps in epsilons:
            for method in methods:
                for part in ("full", "train"):
                    k, count = candidates(name, method, eps, part)
                    if count > max_candidates:
                        skipped.append(f"{name} {method} ε = {eps:g} ({'Q2/Q3' if part == 'full' else 'SVM'}): "
                                       f"k = {k}, {count:,} candidate AP pairs")
                        print("skipped:", skipped[-1], flush=True)
                        continue
                    for rep in range(reps):
                        out = privbayes_codes(name, eps, rep, part=part, **parameters(method))
                        base = {"dataset": name, "epsilon": eps, "method": method, "rep": rep, "k": out["k"],
                                "seconds": round(out["seconds"], 2)}
                        if part == "full":
                            for alpha in ALPHAS[name]:
                                rows.append({**base, "task": f"Q{alpha}",
                                             "error": round(average_marginal_tvd(codes, out["codes"], sizes, alpha),
                                                            6)})
                        else:
                            test = codes[split(name, rep)[1]]
                            for target in PAPER_TARGETS[name]:
                                rows.append({**base, "task": f"Y = {target.name}",
                                             "error": round(svm_misclassification(out["codes"], test, sizes, target),
                                                            6)})
                        print(rows[-1], flush=True)
    return rows, skipped


def kind(task: str) -> str:
    return "count" if task.startswith("Q") else "svm"


def plot(rows: list[dict], datasets: list[str], methods: tuple[str, ...]) -> None:
    means = mean_by(rows, ("dataset", "task", "method", "epsilon"), "error")
    for name in datasets:
        for which, ylabel in (("count", "average variation distance"), ("svm", "misclassification rate")):
            task_names = list(dict.fromkeys(r["task"] for r in rows
                                            if r["dataset"] == name and kind(r["task"]) == which))
            if task_names:
                fig = FIGURES[(name, which)]
                panels = [(f"Fig. {fig}: {name.upper()}, {t}", lines_by(means, (name, t), list(methods)))
                          for t in task_names]
                suffix = "encodings" if which == "count" else "encodings_svm"
                plot_panels(panels, out_dir() / f"fig{fig}_{name}_{suffix}.png", ylabel)


def summarise(rows: list[dict], datasets: list[str], methods: tuple[str, ...]) -> str:
    means = mean_by(rows, ("dataset", "task", "method", "epsilon"), "error")
    out = ["# Figs 5-8: encodings on Adult and BR2000 (our run)", "",
           "Mean error per point (average TVD for Qα, misclassification rate for the SVM targets). Runs per point: "
           + runs_per_point(rows) + ".", ""]
    wins: dict[str, int] = {}
    total = 0
    for name in datasets:
        for which in ("count", "svm"):
            task_names = list(dict.fromkeys(r["task"] for r in rows
                                            if r["dataset"] == name and kind(r["task"]) == which))
            for task in task_names:
                present = [m for m in methods if any(k[:3] == (name, task, m) for k in means)]
                out += [f"**Fig. {FIGURES[(name, which)]}, {name.upper()}, {task}**", "",
                        "| ε | " + " | ".join(present) + " | lowest |", "|---" * (len(present) + 2) + "|"]
                for eps in sorted({k[3] for k in means if k[:2] == (name, task)}):
                    vals = {m: means.get((name, task, m, eps)) for m in present}
                    lowest = min((v, m) for m, v in vals.items() if v is not None)[1]
                    if which == "svm":
                        total += 1
                        wins[lowest] = wins.get(lowest, 0) + 1
                    out.append(f"| {eps:g} | " + " | ".join(fmt(v) for v in vals.values()) + f" | {lowest} |")
                out.append("")
    missing = []  # points of the paper's grid with no rows on file (skipped by the cost guard, or not run)
    for name in datasets:
        for method in methods:
            if not any(r["dataset"] == name and r["method"] == method for r in rows):
                continue
            for eps in EPSILONS:
                for part, which in (("full", "count"), ("train", "svm")):
                    if not any(r["dataset"] == name and r["method"] == method and r["epsilon"] == eps
                               and kind(r["task"]) == which for r in rows):
                        k, count = candidates(name, method, eps, part)
                        missing.append(f"{name} {method} ε = {eps:g} ({'Q2/Q3' if part == 'full' else 'SVM'}): "
                                       f"k = {k}, {count:,} candidate AP pairs")
    if missing:
        out += ["Not run (exhaustive Alg. 2 over too many candidate AP pairs; measured 4-14 µs per pair, "
                "so 154 million ≈ 10-35 min and 886 million ≈ 1-3.5 h per fit):", ""] \
            + [f"* {m}" for m in missing] + [""]
    out.append("Paper (§6.3): non-binary encodings clearly beat the binary ones on Qα at small ε (gap shrinks as ε "
               "grows); Hierarchical-R ≈ Vanilla-R on Qα; Hierarchical-R best overall on the SVM tasks. Ours: lowest "
               "SVM error per (task, ε): " + ", ".join(f"{m} {c}/{total}" for m, c in sorted(wins.items())) + ".")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser, reps=2, datasets=("adult", "br2000"))
    parser.add_argument("--methods", default=",".join(DEFAULT_METHODS), help=f"from {', '.join(METHODS)}")
    parser.add_argument("--max-candidates", type=int, default=400_000)
    args = parser.parse_args(argv)
    datasets, epsilons, reps = parse_common(args)
    methods = tuple(args.methods.split(","))
    for name in datasets:  # written after every ε, so an interrupted run keeps what it did
        for eps in epsilons:
            new, _ = run([name], (eps,), reps, methods, args.max_candidates)
            for which, suffix in (("count", "encodings"), ("svm", "encodings_svm")):
                part = [r for r in new if kind(r["task"]) == which]
                merge_rows(out_dir() / f"fig{FIGURES[(name, which)]}_{name}_{suffix}.csv", part,
                           ("dataset", "method", "epsilon"))
    rows = [r for name in ("adult", "br2000") for which, suffix in (("count", "encodings"), ("svm", "encodings_svm"))
            for r in read_rows(out_dir() / f"fig{FIGURES[(name, which)]}_{name}_{suffix}.csv")]
    shown = datasets_in(rows, ("adult", "br2000"))
    plot(rows, shown, METHODS)
    write_summary(summarise(rows, shown, METHODS), "fig5_8_encodings.md")


if __name__ == "__main__":
    main()
