"""SA-PrivBayes (Future Internet 2026) Figs 3-5 and Table 4, for faithful mode, strict mode and PrivBayes.

* Fig. 3: Σ_i I(X_i; Π_i) of the learned network, measured on the real data, vs ε for λ ∈ {3/4, 2/3, 1/2}
  (k = 2 and 3; the whole dataset; ε1 = 0.3ε, ε_τ : ε_exp = 3 : 7).
* Fig. 4: SVM accuracy on the real 20 % test part vs ε for q ∈ {1, 1.1, 1.2} (λ = 2/3, k = 2): one
  synthetic table from the 80 % training part per run; targets income (Adult, salary > 50K), religion
  (BR2000, Catholic or not) and eating (NLTCS) — binary SVMs (C = 1, hinge loss), as our TODS runs.
* Fig. 5: average total variation distance of all 2-way marginals between the synthetic table and the
  training part (q = 1.1, λ = 2/3; the Fig. 4 tables at q = 1.1).
* Table 4: BR2000, ε = 1, q = 1.1, λ = 2/3: religion accuracy in 5 paired runs (same split and seed for
  every method), paired t-tests of each SA mode against PrivBayes.

PrivBayes is run as the paper compares it: degree k = 2 (3 in Fig. 3's k = 3 panels), score I,
vanilla encoding, β = 0.3.  ELPrivBayes and ACDP-Tree are not run: the paper does not specify them.

Writes docs/figures/sa_fig3_mutual_information.{csv,png}, sa_fig4_svm_accuracy.{csv,png},
sa_fig5_tvd.{csv,png}, sa_table4_ttest.csv and sa_summary.md.

Usage: python experiments/sa_privbayes.py [--parts fig3,fig4,table4] [--reps 3] [--datasets nltcs,adult,br2000]
       [--epsilons ...] [--fig3-epsilons ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np
from common import OUT, OUT_DIR, dataset, fmt, mean_by, out_dir, plot_panels, read_rows, sizes_of, split, write_csv

from privbayes import PrivBayes, SAPrivBayes
from privbayes.counting import leaf_codes
from privbayes.evaluation import PAPER_TARGETS, svm_misclassification
from privbayes.evaluation.classifiers import Target
from privbayes.evaluation.information import network_mutual_information
from privbayes.evaluation.marginals import average_marginal_tvd

DATASETS = ("nltcs", "adult", "br2000")
TARGETS = {"adult": next(t for t in PAPER_TARGETS["adult"] if t.name == "salary"),
           "br2000": next(t for t in PAPER_TARGETS["br2000"] if t.name == "religion"),
           "nltcs": Target("eating", 4, frozenset({1}))}  # data README: column 4 is Y1, eating
FIG3_EPSILONS = (0.02, 0.04, 0.08, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4)  # §5.3
FIG4_EPSILONS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
LAMBDAS = (Fraction(3, 4), Fraction(2, 3), Fraction(1, 2))
QS = (Fraction(1), Fraction(11, 10), Fraction(6, 5))
MODES = ("faithful", "strict")


def seed(rep: int, eps: float) -> int:
    """One seed per (repetition, ε), shared by every method (paired runs)."""
    return 1000 * rep + int(round(eps * 1000)) + 7


def estimator(method: str, eps: float, rep: int, k: int = 2, lam: Fraction = Fraction(2, 3),
              q: Fraction = Fraction(11, 10)):
    if method == "PrivBayes":
        return PrivBayes(eps, degree=k, score="I", encoding="vanilla", estimation="paper", random_state=seed(rep, eps))
    return SAPrivBayes(eps, mode=method.split()[-1], degree=k, keep_fraction=lam, q=q, random_state=seed(rep, eps))


def fig3(datasets, epsilons, reps, ks) -> list[dict]:
    rows = []
    for name in datasets:
        schema, frame, codes = dataset(name)
        sizes = sizes_of(name)
        for rep in range(reps):
            for k in ks:
                for eps in epsilons:
                    configs = [("PrivBayes", None)] + [(f"SA {mode}", lam) for mode in MODES for lam in LAMBDAS]
                    for method, lam in configs:
                        start = time.perf_counter()
                        model = estimator(method, eps, rep, k, lam or Fraction(2, 3)).fit(frame, schema)
                        network = [(p.child, [a for a, _ in p.parents]) for p in model.network_.pairs]
                        label = method if lam is None else f"{method} λ={lam}"
                        rows.append({"dataset": name, "k": k, "method": label, "epsilon": eps, "rep": rep,
                                     "value": round(network_mutual_information(codes, sizes, network), 6),
                                     "seconds": round(time.perf_counter() - start, 3)})
                print(f"fig3 {name} rep {rep} done", flush=True)
    return rows


def utility(datasets, epsilons, reps) -> list[dict]:
    """Fig. 4 (accuracy per q) and Fig. 5 (2-way TVD at q = 1.1) from the same synthetic tables."""
    rows = []
    for name in datasets:
        schema, frame, codes = dataset(name)
        sizes, target = sizes_of(name), TARGETS[name]
        for rep in range(reps):
            train_idx, test_idx = split(name, rep)
            train = frame.iloc[train_idx].reset_index(drop=True)
            for eps in epsilons:
                configs = [("PrivBayes", None)] + [(f"SA {mode}", q) for mode in MODES for q in QS]
                for method, q in configs:
                    start = time.perf_counter()
                    model = estimator(method, eps, rep, q=q or Fraction(11, 10)).fit(train, schema)
                    synth = leaf_codes(model.sample(random_state=seed(rep, eps)), schema)
                    accuracy = 1 - svm_misclassification(synth, codes[test_idx], sizes, target)
                    tvd = average_marginal_tvd(codes[train_idx], synth, sizes, 2) if q in (None, QS[1]) else None
                    rows.append({"dataset": name, "target": target.name, "method": method,
                                 "q": "" if q is None else str(q), "epsilon": eps, "rep": rep,
                                 "accuracy": round(accuracy, 6), "tvd2": "" if tvd is None else round(tvd, 6),
                                 "seconds": round(time.perf_counter() - start, 3)})
            print(f"utility {name} rep {rep} done", flush=True)
    return rows


def table4(reps: int = 5) -> list[dict]:
    schema, frame, codes = dataset("br2000")
    sizes, target = sizes_of("br2000"), TARGETS["br2000"]
    rows = []
    for rep in range(reps):
        train_idx, test_idx = split("br2000", rep)
        train = frame.iloc[train_idx].reset_index(drop=True)
        for method in ("PrivBayes", "SA faithful", "SA strict"):
            model = estimator(method, 1.0, rep).fit(train, schema)
            synth = leaf_codes(model.sample(random_state=seed(rep, 1.0)), schema)
            error = svm_misclassification(synth, codes[test_idx], sizes, target)
            rows.append({"rep": rep, "method": method, "accuracy": round(100 * (1 - error), 4)})
    return rows


def paired_tests(rows: list[dict]) -> list[str]:
    from scipy.stats import ttest_rel

    by = {m: [r["accuracy"] for r in sorted(rows, key=lambda r: r["rep"]) if r["method"] == m]
          for m in ("PrivBayes", "SA faithful", "SA strict")}
    out = ["| run | " + " | ".join(by) + " |", "|---" * (len(by) + 1) + "|"]
    out += [f"| {i + 1} | " + " | ".join(f"{by[m][i]:.2f}" for m in by) + " |" for i in range(len(by["PrivBayes"]))]
    out += ["", "| comparison | mean (SD) | PrivBayes mean (SD) | mean diff (SD) | t (df) | p |",
            "|---|---|---|---|---|---|"]
    for mode in ("SA faithful", "SA strict"):
        a, b = np.array(by[mode]), np.array(by["PrivBayes"])
        t, p = ttest_rel(a, b)
        diff = a - b
        out.append(f"| {mode} vs PrivBayes | {a.mean():.2f} ({a.std(ddof=1):.2f}) | "
                   f"{b.mean():.2f} ({b.std(ddof=1):.2f}) | "
                   f"{diff.mean():+.2f} ({diff.std(ddof=1):.2f}) | {t:.3f} ({len(a) - 1}) | {p:.4f} |")
    return out


def plots(fig3_rows, util_rows, datasets) -> None:
    if fig3_rows:
        means = mean_by(fig3_rows, ("dataset", "k", "method", "epsilon"), "value")
        methods = sorted({r["method"] for r in fig3_rows}, key=lambda m: (m != "PrivBayes", m))
        panels = []
        for name in datasets:
            for k in sorted({r["k"] for r in fig3_rows}):
                grid = sorted({x[3] for x in means})
                lines = {m: ([e for e in grid if (name, k, m, e) in means],
                             [means[(name, k, m, e)] for e in grid if (name, k, m, e) in means]) for m in methods}
                panels.append((f"Fig. 3: {name.upper()}, k = {k}", {m: v for m, v in lines.items() if v[0]}))
        plot_panels(panels, out_dir() / "sa_fig3_mutual_information.png", "Σ I(X; Π) (bits, real data)", ncols=2)
    if util_rows:
        acc = mean_by(util_rows, ("dataset", "method", "q", "epsilon"), "accuracy")
        panels = []
        for name in datasets:
            lines = {}
            configs = sorted({(k[1], k[2]) for k in acc if k[0] == name}, key=lambda x: (x[0] != "PrivBayes", x))
            for method, q in configs:
                xs = sorted(e for (d, m, qq, e) in acc if (d, m, qq) == (name, method, q))
                lines[method + (f" q={q}" if q != "" else "")] = (xs, [acc[(name, method, q, e)] for e in xs])
            panels.append((f"Fig. 4: {name.upper()}, Y = {TARGETS[name].name}", lines))
        plot_panels(panels, out_dir() / "sa_fig4_svm_accuracy.png", "accuracy", ncols=3)
        tvd_rows = [r for r in util_rows if r["tvd2"] != ""]
        tvd = mean_by(tvd_rows, ("dataset", "method", "epsilon"), "tvd2")
        panels = []
        for name in datasets:
            methods = sorted({k[1] for k in tvd if k[0] == name}, key=lambda m: (m != "PrivBayes", m))
            panels.append((f"Fig. 5: {name.upper()} (q = 1.1, λ = 2/3)",
                           {m: (sorted(e for (d, mm, e) in tvd if (d, mm) == (name, m)),
                                [tvd[(name, m, e)] for e in sorted(e for (d, mm, e) in tvd if (d, mm) == (name, m))])
                            for m in methods}))
        plot_panels(panels, out_dir() / "sa_fig5_tvd.png", "average 2-way TVD", ncols=3)


def summary_tables(fig3_rows, util_rows) -> list[str]:
    out = []
    if fig3_rows:
        means = mean_by(fig3_rows, ("dataset", "k", "method", "epsilon"), "value")
        reps = len({r["rep"] for r in fig3_rows})
        out += ["## Fig. 3: Σ I(X; Π) of the learned network (bits, measured on the real data)", "",
                f"Mean of {reps} runs per point.", ""]
        for name, k in sorted({(d, k) for d, k, _, _ in means}):
            methods = sorted({m for d, kk, m, _ in means if (d, kk) == (name, k)}, key=lambda m: (m != "PrivBayes", m))
            eps = sorted({e for d, kk, _, e in means if (d, kk) == (name, k)})
            out += [f"**{name.upper()}, k = {k}**", "", "| method | " + " | ".join(f"ε={e:g}" for e in eps) + " |",
                    "|---" * (len(eps) + 1) + "|"]
            out += [f"| {m} | " + " | ".join(fmt(means.get((name, k, m, e)), 3) for e in eps) + " |" for m in methods]
            out.append("")
    if util_rows:
        reps = len({r["rep"] for r in util_rows})
        for metric, title, _keys in (("accuracy", "Fig. 4: SVM accuracy on the real test part", ("q",)),
                                    ("tvd2", "Fig. 5: average 2-way TVD to the training part (q = 1.1)", ())):
            rows = [r for r in util_rows if r[metric] != ""]
            means = mean_by(rows, ("dataset", "method", "q", "epsilon"), metric)
            out += [f"## {title}", "", f"Mean of {reps} runs per point.", ""]
            for name in [d for d in DATASETS if any(k[0] == d for k in means)]:
                eps = sorted({k[3] for k in means if k[0] == name})
                out += [f"**{name.upper()}**", "", "| method | " + " | ".join(f"ε={e:g}" for e in eps) + " |",
                        "|---" * (len(eps) + 1) + "|"]
                for method, q in sorted({(k[1], k[2]) for k in means if k[0] == name},
                                        key=lambda x: (x[0] != "PrivBayes", x)):
                    label = method + (f" q={q}" if q != "" else "")
                    cells = " | ".join(fmt(means.get((name, method, q, e)), 4) for e in eps)
                    out.append(f"| {label} | {cells} |")
                out.append("")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="fig3,fig4,table4")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--fig3-reps", type=int, default=None)
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--epsilons", default=",".join(map(str, FIG4_EPSILONS)))
    parser.add_argument("--fig3-epsilons", default=",".join(map(str, FIG3_EPSILONS)))
    parser.add_argument("--ks", default="2,3", help="degrees for Fig. 3")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    OUT_DIR[0] = OUT if args.out is None else __import__("pathlib").Path(args.out)
    parts, datasets = args.parts.split(","), args.datasets.split(",")
    fig3_path, util_path = out_dir() / "sa_fig3_mutual_information.csv", out_dir() / "sa_fig4_svm_accuracy.csv"
    if "fig3" in parts:
        write_csv(fig3([d for d in datasets], tuple(float(e) for e in args.fig3_epsilons.split(",")),
                       args.fig3_reps or args.reps, tuple(int(k) for k in args.ks.split(","))), fig3_path)
    if "fig4" in parts:
        rows = utility(datasets, tuple(float(e) for e in args.epsilons.split(",")), args.reps)
        write_csv(rows, util_path)
        write_csv([r for r in rows if r["tvd2"] != ""], out_dir() / "sa_fig5_tvd.csv")
    if "table4" in parts:
        write_csv(table4(), out_dir() / "sa_table4_ttest.csv")
    fig3_rows = read_rows(fig3_path) if fig3_path.exists() else []
    util_rows = read_rows(util_path) if util_path.exists() else []
    for rows, numeric in ((fig3_rows, ("k",)), (util_rows, ("accuracy",))):
        for r in rows:
            for key in numeric:
                r[key] = int(r[key]) if key == "k" else float(r[key])
    plots(fig3_rows, util_rows, [d for d in DATASETS if d in datasets])
    lines = ["# SA-PrivBayes (Future Internet 2026): Figs 3-5 and Table 4 (our run)", "",
             "Faithful = the paper's Alg. 1-2 as written (NOT differentially private); strict = the ε-DP variant; "
             "PrivBayes = TODS 2017 with k = 2, score I, vanilla encoding. ELPrivBayes and ACDP-Tree are not run "
             "(unspecified in the paper).", ""] + summary_tables(fig3_rows, util_rows)
    table4_path = out_dir() / "sa_table4_ttest.csv"
    if table4_path.exists():
        t4 = [r | {"accuracy": float(r["accuracy"])} for r in read_rows(table4_path)]
        lines += ["## Table 4: BR2000, ε = 1, q = 1.1, λ = 2/3: religion accuracy (%), 5 paired runs", ""]
        lines += paired_tests(t4) + [""]
    (out_dir() / "sa_summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
