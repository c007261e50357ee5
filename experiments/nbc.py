"""Mozafari & Zaniolo, VLDB 2009, §8 on Adult (Age, Years of education, Work hours per week → Salary).

Fig. 8 — achieved r-closeness (and amplification) against SafetyTransform's γ.  The paper
counts the possible instances combinatorially; Bob's exact posterior is a chain of
hypergeometric draws (privbayes.methods.nbc.attack.posterior_exact), feasible only for small views.
SafetyTransform publishes counts of 10^8-10^11, where that count is out of reach and equals
its large-count limit P_c Π N/P_c (normalised) up to O(1/E[K]); we report that limit over all
7 quasi-identifiers and all their values.  EST itself (F = 75 % / 25 %) is run once: it can
only guarantee an astronomically large r, so the figure shows SafetyTransform's outputs
measured against F, next to the bound r ≥ 2 that every NBC-equivalent view obeys.

Fig. 9 — NBC accuracy and recall of >50K on a 50/50 split: the NBC of the original training
views (= SafetyTransform's, checked tuple by tuple) against NBCs trained on full-domain
k-anonymous versions of the training half, k ∈ {2, 5, 10, 50, 100}.  Hierarchies: each of the
three numeric attributes generalises its 16 equal-width bins along the binary tree
16 → 8 → 4 → 2 bins, then to "*" (suppressed); the k-anonymous node of the 5³ lattice with
the smallest discernibility Σ|group|² is released (Incognito's full-domain search, done
exhaustively); a second variant releases the k-anonymous node whose NBC is most accurate on
the training half (a utility-aware choice, still without the test half).  Test rows are
generalised the same way.

Writes docs/figures/nbc_fig8_closeness.{csv,png}, nbc_fig9_kanonymity.{csv,png}, nbc_summary.md.
Usage: PYTHONPATH=src python experiments/nbc.py [--reps 5] [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import time
from fractions import Fraction
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from privbayes.counting import leaf_codes
from privbayes.counting import open as open_table
from privbayes.methods.nbc.attack import measured_breach
from privbayes.methods.nbc.equivalence import check_equivalence
from privbayes.methods.nbc.est import est
from privbayes.methods.nbc.safety import safety_transform
from privbayes.methods.nbc.views import AttributeCounts, NBCViews, views_from_table
from privbayes.schema import Schema

COLUMNS = ["age", "education-num", "hours-per-week", "income"]
GAMMAS = ["1.01", "1.05", "1.1", "1.25", "1.5", "2", "3", "5", "10", "20", "50", "100", "283"]
PRIOR = (Fraction(3, 4), Fraction(1, 4))
KS = (2, 5, 10, 50, 100)
SUPPRESSED = 4
OUT = Path(__file__).resolve().parents[1] / "docs" / "figures"


def adult() -> tuple[Schema, pd.DataFrame]:
    data = resources.files("privbayes") / "data"
    raw = yaml.safe_load((data / "adult.yaml").read_text())
    raw["attributes"] = [a for a in raw["attributes"] if a["name"] in COLUMNS]
    with resources.as_file(data / "adult.csv.gz") as path:
        frame = pd.read_csv(path)[COLUMNS]
    return Schema.from_dict(raw), frame


def figure8(schema: Schema, frame: pd.DataFrame) -> tuple[list[dict], dict]:
    views = views_from_table(open_table(frame, schema), "income")
    amp0, close0 = measured_breach(views, [float(f) for f in PRIOR])
    rows = [{"gamma": "original", "condition": "-", "k": "", "guaranteed": "", "measured_amplification": amp0,
             "measured_r_closeness_F": close0, "seconds": 0.0}]
    for text in GAMMAS:
        for condition in ("corollary4", "posterior"):
            start = time.perf_counter()
            out = safety_transform(views, Fraction(text), condition)
            seconds = time.perf_counter() - start
            assert check_equivalence(views, out.views).equivalent
            amp, close = measured_breach(out.views, [float(f) for f in PRIOR])
            rows.append({"gamma": text, "condition": condition, "k": out.k, "guaranteed": float(out.achieved),
                         "measured_amplification": amp, "measured_r_closeness_F": close, "seconds": seconds})
    start = time.perf_counter()
    done = est(views, PRIOR, Fraction(10) ** 100000, condition="corollary4")
    extra = {"est_log10_r": (math.log10(done.achieved.numerator) - math.log10(done.achieved.denominator)),
             "est_seconds": time.perf_counter() - start, "original_amplification": amp0,
             "original_corollary4_gamma": float(max(max(r) / min(r) for r in [views.prior]
                                                    + [row for a in views.attributes for row in a.counts]) ** 3)}
    return rows, extra


def generalised_views(table, schema: Schema, levels: tuple[int, ...]) -> NBCViews:
    """NBC views of the training table generalised to ``levels`` (SUPPRESSED drops the attribute)."""
    attributes = []
    for i, level in enumerate(levels):
        if level == SUPPRESSED:
            continue
        counts = np.asarray(table.counts([i, 3], [level, 0]))
        attributes.append(AttributeCounts(schema.names[i], tuple(str(t) for t in range(len(counts))),
                                          tuple(tuple(int(v) for v in row) for row in counts)))
    prior = tuple(int(v) for v in np.asarray(table.counts([3])))
    if not attributes:  # everything suppressed: the NBC is the majority class
        attributes.append(AttributeCounts("*", ("*",), (prior,)))
    return NBCViews("income", ("<=50K", ">50K"), prior, tuple(attributes))


def k_anonymous_nodes(table, k: int) -> list[tuple[tuple[int, int], tuple[int, ...]]]:
    """Every full-domain generalisation (levels per QI attribute) that is k-anonymous on the
    training table, with its discernibility Σ |group|² and height."""
    nodes = []
    for levels in itertools.product(range(SUPPRESSED + 1), repeat=3):
        kept = [i for i in range(3) if levels[i] != SUPPRESSED]
        if kept:
            groups = np.asarray(table.counts(kept, [levels[i] for i in kept])).reshape(-1)
            groups = groups[groups > 0]
        else:
            groups = np.array([table.n])
        if groups.min() >= k:
            nodes.append(((int(np.sum(groups.astype(np.int64) ** 2)), sum(levels)), levels))
    return nodes


def test_codes(schema: Schema, codes: np.ndarray, levels: tuple[int, ...]) -> np.ndarray:
    columns = [schema.attributes[i].levels[level][codes[:, i]] for i, level in enumerate(levels) if level != SUPPRESSED]
    return np.column_stack(columns) if columns else np.zeros((len(codes), 1), dtype=np.int64)


def scores(predicted: np.ndarray, truth: np.ndarray) -> dict:
    tp = int(np.sum((predicted == 1) & (truth == 1)))
    return {"accuracy": float(np.mean(predicted == truth)), "recall": tp / int(np.sum(truth == 1)),
            "precision": tp / max(1, int(np.sum(predicted == 1)))}


def figure9(schema: Schema, frame: pd.DataFrame, reps: int) -> list[dict]:
    rows = []
    codes_all = leaf_codes(frame, schema)  # evaluation: test rows are classified, nothing is released
    for rep in range(reps):
        order = np.random.default_rng(rep).permutation(len(frame))
        train, test = order[: len(frame) // 2], order[len(frame) // 2:]
        table = open_table(frame.iloc[train].reset_index(drop=True), schema)
        codes = codes_all[test]
        views = views_from_table(table, "income")
        original = views.classify_many(codes[:, :3])
        ours = safety_transform(views, Fraction(11, 10)).views.classify_many(codes[:, :3])
        assert np.array_equal(original, ours)
        rows.append({"method": "original = ours (SafetyTransform γ = 1.1)", "k": "", "rep": rep, "levels": "0,0,0",
                     **scores(ours, codes[:, 3])})
        train_codes = codes_all[train]
        for k in KS:
            nodes = k_anonymous_nodes(table, k)
            by_training_accuracy = max(nodes, key=lambda node: scores(
                generalised_views(table, schema, node[1]).classify_many(test_codes(schema, train_codes, node[1])),
                train_codes[:, 3])["accuracy"])
            for method, (_, levels) in (("k-anonymity", min(nodes)),
                                        ("k-anonymity, node chosen by training accuracy", by_training_accuracy)):
                predicted = generalised_views(table, schema, levels).classify_many(test_codes(schema, codes, levels))
                rows.append({"method": method, "k": k, "rep": rep, "levels": ",".join(map(str, levels)),
                             **scores(predicted, codes[:, 3])})
    return rows


def write_csv(rows: list[dict], path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot8(rows: list[dict], extra: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    gammas = [float(g) for g in GAMMAS]
    left.plot(gammas, gammas, "k--", label="requested γ (the guarantee)")
    for condition, marker in (("corollary4", "o"), ("posterior", "s")):
        sub = [r for r in rows if r["condition"] == condition]
        left.plot(gammas, [r["guaranteed"] for r in sub], marker=marker, label=f"certified bound, {condition}")
        left.plot(gammas, [r["measured_amplification"] for r in sub], marker=marker, linestyle=":",
                  label=f"measured (Bob, large counts), {condition}")
        right.plot(gammas, [r["measured_r_closeness_F"] for r in sub], marker=marker,
                   label=f"SafetyTransform output, {condition}")
    right.axhline(2.0, color="r", linestyle="--", label="lower bound for any NBC-equivalent view")
    left.set(xscale="log", yscale="log", xlabel="γ (SafetyTransform)", ylabel="amplification (uniform prior)",
             title="(a) amplification: certified and measured")
    right.set(xscale="log", xlabel="γ (SafetyTransform)", ylabel="r-closeness w.r.t. F = (0.75, 0.25)",
              title=f"(b) r-closeness; EST can only certify r ≈ 1e{extra['est_log10_r']:.0f}")
    right.set_ylim(1.9, 2.2)
    for ax in (left, right):
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot9(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = ["original\n= ours"] + [f"k={k}" for k in KS]
    ours = "original = ours (SafetyTransform γ = 1.1)"
    variants = (("k-anonymity", "k-anonymity (min. discernibility)", "tab:blue"),
                ("k-anonymity, node chosen by training accuracy", "k-anonymity (best training accuracy)", "tab:cyan"))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    x = np.arange(len(labels))
    for ax, metric, title in ((axes[0], "accuracy", "(a) accuracy"), (axes[1], "recall", "(b) recall of >50K")):
        def mean(method: str, k, metric: str = metric) -> float:
            return float(np.mean([r[metric] for r in rows if (r["method"], r["k"]) == (method, k)]))

        base = mean(ours, "")
        ax.bar([0], [base], width=0.6, color="tab:red", label="original = ours")
        ax.text(0, base, f"{base:.3f}", ha="center", va="bottom", fontsize=6)
        for j, (method, label, color) in enumerate(variants):
            values = [mean(method, k) for k in KS]
            ax.bar(x[1:] + (j - 0.5) * 0.38, values, width=0.38, color=color, label=label)
            for xi, v in zip(x[1:] + (j - 0.5) * 0.38, values):
                ax.text(xi, v, f"{v:.2f}", ha="center", va="bottom", fontsize=5)
        ax.set_xticks(x, labels)
        ax.set(title=title, ylabel=metric, ylim=(0, 1.15))
        ax.legend(fontsize=6, loc="upper center", ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def summary(rows8: list[dict], extra: dict, rows9: list[dict]) -> str:
    lines = ["| γ | condition | k | certified | measured amplification | measured r (F = 0.75/0.25) |",
             "|---|---|---|---|---|---|"]
    for r in rows8:
        certified = f"{r['guaranteed']:.4g}" if r["guaranteed"] != "" else ""
        lines.append(f"| {r['gamma']} | {r['condition']} | {r['k']} | {certified} | "
                     f"{r['measured_amplification']:.4g} | {r['measured_r_closeness_F']:.4g} |")
    lines += ["", (f"EST (F = 0.75/0.25, paper's Corollary 4): smallest certified r ≈ 1e{extra['est_log10_r']:.0f} "
                   f"({extra['est_seconds']:.2f} s); original views need γ = {extra['original_corollary4_gamma']:.4g} "
                   "for Corollary 4."), "",
              "| method | k | levels (age, edu, hours) | accuracy | recall >50K | precision |",
              "|---|---|---|---|---|---|"]
    for key in sorted({(r["method"], r["k"]) for r in rows9},
                      key=lambda key: (not key[0].startswith("original"), key[0], key[1] or 0)):
        sub = [r for r in rows9 if (r["method"], r["k"]) == key]
        levels = sorted({r["levels"] for r in sub})
        lines.append(f"| {key[0]} | {key[1]} | {' / '.join(levels)} | {np.mean([r['accuracy'] for r in sub]):.4f} | "
                     f"{np.mean([r['recall'] for r in sub]):.4f} | {np.mean([r['precision'] for r in sub]):.4f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="50/50 splits for Fig. 9 (default 5)")
    parser.add_argument("--out", type=Path, default=OUT, help="output folder (default docs/figures)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    schema, frame = adult()
    rows8, extra = figure8(schema, frame)
    write_csv(rows8, args.out / "nbc_fig8_closeness.csv")
    plot8(rows8, extra, args.out / "nbc_fig8_closeness.png")
    rows9 = figure9(schema, frame, args.reps)
    write_csv(rows9, args.out / "nbc_fig9_kanonymity.csv")
    plot9(rows9, args.out / "nbc_fig9_kanonymity.png")
    text = summary(rows8, extra, rows9)
    (args.out / "nbc_summary.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
