"""Reproduction of Bernstein et al., ICML 2017 (private MRFs): Figs. 1, 2, 3(a) and a stand-in for 3(b).

    python experiments/cgm.py fig1 | fig2 --model chain3|er [--part baselines|cgm|auto]
                              | fig3 [--states 20] | nltcs | plot

Synthetic populations (Figs. 1-3) are drawn from known models, so their clique tables are
computed here directly (they are not private data); the noise always goes through
``privbayes.methods.mrf.measure`` (discrete Laplace, accountant) under the paper's add/remove
relation (scale |C|/ε).  The NLTCS stand-in for the wifi data uses the full library path
(``PrivateMRF.fit`` through the counting layer, replace-one relation).  Outputs:
docs/figures/cgm_*.csv and cgm_*.png.  Trials: ``--populations`` × ``--draws`` per setting
(the paper: 5 × 5).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

from privbayes.inference import Domain
from privbayes.methods.mrf import (
    CGMOptions,
    LogLinearModel,
    cgm_em,
    fit_mle,
    measure,
    naive_mle,
)
from privbayes.methods.mrf.estimation import calibrated_lambda
from privbayes.methods.mrf.psgd import psgd
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import random_source

OUT = Path(__file__).resolve().parents[1] / "docs" / "figures"
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NAIVE_LAMBDA = 1e-4
EXACT_LAMBDA = 1e-6
PSGD_GRID = [(steps, rate) for steps in (20, 100) for rate in (0.3, 1.0, 3.0)]


def structure(kind: str, t: int, rng: np.random.Generator) -> tuple[tuple[int, int], ...]:
    """Edges of a first-order chain, a third-order chain (1 ≤ |i − j| ≤ 3) or a connected ER graph (p = 0.3)."""
    if kind in ("chain1", "chain3"):
        order = 1 if kind == "chain1" else 3
        return tuple((i, j) for i in range(t) for j in range(i + 1, t) if j - i <= order)
    while True:
        edges = tuple((i, j) for i in range(t) for j in range(i + 1, t) if rng.random() < 0.3)
        reached, frontier = {0}, [0]
        while frontier:
            v = frontier.pop()
            for i, j in edges:
                for a, b in ((i, j), (j, i)):
                    if a == v and b not in reached:
                        reached.add(b)
                        frontier.append(b)
        if len(reached) == t:
            return edges


def true_model(kind: str, t: int, k: int, seed: int) -> LogLinearModel:
    """Edge potentials drawn from Dirichlet(1) over the k² cells (ICML 2017, §4.1)."""
    rng = np.random.default_rng(seed)
    edges = structure(kind, t, rng)
    theta = tuple(np.log(rng.dirichlet(np.ones(k * k))).reshape(k, k) for _ in edges)
    return LogLinearModel(Domain((k,) * t), edges, theta)


def population_counts(model: LogLinearModel, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    rows = model.sample(n, rng)
    return [np.bincount(np.ravel_multi_index(tuple(rows[:, v] for v in c), model.domain.shape(c)),
                        minlength=model.domain.cells(c)).reshape(model.domain.shape(c)) for c in model.cliques]


def noisy(counts, n, cliques, epsilon, seed, relation="add-remove"):
    return measure(counts, n, cliques, [f"{i},{j}" for i, j in cliques], epsilon, relation, Accountant(epsilon),
                   random_source(seed))


def kl(p: LogLinearModel, q: LogLinearModel) -> float:
    """KL(p‖q) = E_p[θ_p − θ_q] − A(θ_p) + A(θ_q) (same cliques)."""
    mu = p.marginals()
    return float(sum(np.sum(m * (a - b)) for m, a, b in zip(mu, p.theta, q.theta))
                 - p.beliefs().log_z + q.beliefs().log_z)


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    out = function(*args, **kwargs)
    return out, time.perf_counter() - start


def append_rows(rows: list[dict], path: Path) -> None:
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)


def read(path: Path) -> list[dict]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


# --- Fig. 2 (and the data of Fig. 3a) ------------------------------------------------------------

def fig2(kind: str, ns: list[int], epsilons: list[float], populations: int, draws: int, part: str = "all",
         options: CGMOptions = CGMOptions(), reuse: Path | None = None, tag: str = "",
         first_population: int = 0) -> None:
    """Fig. 2 trials.  ``part`` splits the work into files that ``plot`` merges, so the parts can run
    separately with the same populations and noise: "baselines" (Non-private, Random, naive MLE, PSGD)
    → cgm_fig2_<kind>_baselines.csv, "cgm" → cgm_fig2_<kind>_cgm.csv (and the Fig. 3a data), "auto"
    (the library's default, naive MLE with the calibrated λ; issue 30) → cgm_fig2_<kind>_auto.csv.
    ``reuse``: a CSV of an earlier run of this code (same seeds); its baseline rows are copied for the
    trials it covers and its PSGD grid choices are reused, so only the missing trials are computed.
    ``tag`` is appended to the file names, so that runs over disjoint N can go in parallel (``plot``
    reads cgm_fig2_<kind>_<part>*.csv)."""
    done = _reusable(reuse, kind)
    parts = ("baselines", "cgm", "auto") if part == "all" else (part,)
    paths = {name: OUT / f"cgm_fig2_{kind}_{name}{tag}.csv" for name in parts}
    for path in paths.values():
        path.unlink(missing_ok=True)
    truth = true_model(kind, 10, 10, seed={"chain3": 1, "er": 2}[kind])
    start = LogLinearModel.uniform(truth.domain, truth.cliques)
    for n in ns:
        for p in range(first_population, populations):
            rng = np.random.default_rng(1000 * p + n % 997)
            counts = population_counts(truth, n, rng)
            base = {"model": kind, "N": n, "population": p}
            exact = None
            old = [done.get((n, p, "", "", m)) for m in ("Non-private", "Random")]
            if "baselines" in paths and all(old):
                append_rows(old, paths["baselines"])
            elif "baselines" in paths:
                exact, secs = timed(fit_mle, start, [c / n for c in counts], EXACT_LAMBDA)
                random_marginals = [rng.dirichlet(np.ones(c.size)).reshape(c.shape) for c in counts]
                rand, rsecs = timed(fit_mle, start, random_marginals, NAIVE_LAMBDA)
                append_rows([{**base, "epsilon": "", "draw": "", "method": "Non-private", "kl": kl(truth, exact),
                              "seconds": secs, "detail": ""},
                             {**base, "epsilon": "", "draw": "", "method": "Random", "kl": kl(truth, rand),
                              "seconds": rsecs, "detail": ""}], path=paths["baselines"])
            for eps in epsilons:
                for d in range(draws):
                    stats = noisy(counts, n, truth.cliques, eps, seed=97 * d + 13 * p + 1)
                    old = [done.get((n, p, str(eps), str(d), m)) for m in ("Naive MLE", "PSGD")]
                    if "baselines" in paths and all(old):
                        append_rows(old, paths["baselines"])
                    elif "baselines" in paths:
                        naive, nsecs = timed(naive_mle, start, stats, NAIVE_LAMBDA)
                        rows = [{**base, "epsilon": eps, "draw": d, "method": "Naive MLE", "kl": kl(truth, naive),
                                 "seconds": nsecs, "detail": ""}]
                        rows.append(run_psgd(truth, start, counts, n, eps, base, d))
                        append_rows(rows, paths["baselines"])
                    if "cgm" in paths:
                        (cgm, trace), csecs = timed(cgm_em, start, stats, options)
                        append_rows([{**base, "epsilon": eps, "draw": d, "method": "CGM", "kl": kl(truth, cgm),
                                      "seconds": csecs, "detail": f"{trace.iterations} EM its, {trace.stopped_by}"}],
                                    paths["cgm"])
                        if kind == "er" and n == 100_000 and eps == 0.1 and p == 0 and d == 0:
                            if exact is None:
                                exact = fit_mle(start, [c / n for c in counts], EXACT_LAMBDA)
                            fig3_data(truth, exact, naive_mle(start, stats, NAIVE_LAMBDA), cgm,
                                      OUT / "cgm_fig3a_er_marginals.csv")
                    if "auto" in paths:
                        lams = calibrated_lambda(stats)
                        auto, asecs = timed(naive_mle, start, stats, lams)
                        append_rows([{**base, "epsilon": eps, "draw": d, "method": "Auto", "kl": kl(truth, auto),
                                      "seconds": asecs, "detail": f"lambda={lams[0]:.3g}"}], paths["auto"])
            print(f"{kind} N={n} population {p} done ({', '.join(parts)})", flush=True)


_PSGD_BEST: dict[tuple, tuple[int, float]] = {}


def _reusable(path: Path | None, kind: str) -> dict[tuple, dict]:
    """Baseline rows of an earlier run keyed by (N, population, ε, draw, method); seeds _PSGD_BEST."""
    if path is None:
        return {}
    done = {}
    for row in read(path):
        if row["model"] != kind or row["method"] not in ("Non-private", "Random", "Naive MLE", "PSGD"):
            continue
        done[(int(row["N"]), int(row["population"]), row["epsilon"], row["draw"], row["method"])] = row
        if row["method"] == "PSGD" and row["population"] == "0" and row["draw"] == "0":
            steps, rate = (part.split("=")[1] for part in row["detail"].split())
            _PSGD_BEST[(kind, int(row["N"]), float(row["epsilon"]))] = (int(steps), float(rate))
    return done



def run_psgd(truth, start, counts, n, eps, base, draw) -> dict:
    """PSGD, tuned by grid search on the first trial of each (N, ε) with the true KL (as the
    paper tunes it "to perform as well as possible": optimistic for PSGD, and not private)."""
    key = (base["model"], n, eps)
    noise = np.random.default_rng(7 * draw + base["population"])
    if key not in _PSGD_BEST:
        scores = []
        for steps, rate in PSGD_GRID:
            model = psgd(start, counts, n, eps, 1 / n, Accountant(eps, 1 / n), noise, steps=steps, learning_rate=rate)
            scores.append((kl(truth, model), steps, rate))
        _PSGD_BEST[key] = min(scores)[1:]
    steps, rate = _PSGD_BEST[key]
    model, secs = timed(psgd, start, counts, n, eps, 1 / n, Accountant(eps, 1 / n), noise, steps=steps,
                        learning_rate=rate)
    return {**base, "epsilon": eps, "draw": draw, "method": "PSGD", "kl": kl(truth, model), "seconds": secs,
            "detail": f"steps={steps} lr={rate}"}


def fig3_data(truth, exact, naive, cgm, path: Path) -> None:
    rows = []
    for c, t, e, nv, cg in zip(truth.cliques, truth.marginals(), exact.marginals(), naive.marginals(), cgm.marginals()):
        for index in np.ndindex(t.shape):
            rows.append({"edge": f"{c[0]}-{c[1]}", "cell": "-".join(map(str, index)), "true": t[index],
                         "non_private": e[index], "naive": nv[index], "cgm": cg[index]})
    path.unlink(missing_ok=True)
    append_rows(rows, path)


def fig3(k: int, n: int, eps: float, options: CGMOptions = CGMOptions()) -> None:
    """Fig. 3(a): edge marginals of one ER graph (T = 10, |X| = k; the paper: k = 20), one population
    and one noise draw; writes cgm_fig3a_er<k>_marginals.csv and prints the three KLs."""
    truth = true_model("er", 10, k, seed=2)
    start = LogLinearModel.uniform(truth.domain, truth.cliques)
    counts = population_counts(truth, n, np.random.default_rng(n % 997))
    stats = noisy(counts, n, truth.cliques, eps, seed=1)
    exact, esecs = timed(fit_mle, start, [c / n for c in counts], EXACT_LAMBDA)
    naive, nsecs = timed(naive_mle, start, stats, NAIVE_LAMBDA)
    (cgm, trace), csecs = timed(cgm_em, start, stats, options)
    fig3_data(truth, exact, naive, cgm, OUT / f"cgm_fig3a_er{k}_marginals.csv")
    print(f"fig3a ER |X|={k} N={n} eps={eps}: KL non-private {kl(truth, exact):.4g} ({esecs:.0f} s), "
          f"naive {kl(truth, naive):.4g} ({nsecs:.0f} s), CGM {kl(truth, cgm):.4g} ({csecs:.0f} s, "
          f"{trace.iterations} EM its, {trace.stopped_by})", flush=True)


# --- Fig. 1 ---------------------------------------------------------------------------------------

def fig1(quick: bool) -> None:
    truth = true_model("chain1", 10, 10, seed=3)
    mu = truth.marginals()
    rows = []
    eps = 0.1
    for n in [10 ** e for e in (3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8)]:
        n = int(n)
        rng = np.random.default_rng(n % 1009)
        for d in range(3):  # (a) MSE of the pseudo-marginals y/N (Prop. 4): multinomial tables, Laplace noise
            counts = [rng.multinomial(n, m.ravel()).reshape(m.shape) for m in mu]
            stats = noisy(counts, n, truth.cliques, eps, seed=d)
            mse = np.mean(np.concatenate([(y / n - m).ravel() ** 2 for y, m in zip(stats.tables, mu)]))
            theory = np.mean(np.concatenate([(m * (1 - m) / n).ravel() for m in mu])) + \
                2 * len(mu) ** 2 / (n ** 2 * eps ** 2)
            rows.append({"panel": "a", "N": n, "draw": d, "setting": f"eps={eps}", "method": "noisy marginals",
                         "value": mse, "theory": theory})
    # (b) projection helps naive MLE (ER graph, |X| = 10 here instead of 20, ε = 0.5)
    er = true_model("er", 10, 10, seed=4)
    start = LogLinearModel.uniform(er.domain, er.cliques)
    for n in (10_000, 100_000, 1_000_000):
        counts = population_counts(er, n, np.random.default_rng(n))
        for d in range(1 if quick else 2):
            stats = noisy(counts, n, er.cliques, 0.5, seed=d)
            for project in (True, False):
                model = naive_mle(start, stats, NAIVE_LAMBDA, project=project)
                rows.append({"panel": "b", "N": n, "draw": d, "setting": "eps=0.5",
                             "method": "projected" if project else "not projected", "value": kl(er, model),
                             "theory": ""})
    # (c) regularisation curve: chain, ε = 0.1, N = 10^5
    chain = true_model("chain1", 10, 10, seed=5)
    start = LogLinearModel.uniform(chain.domain, chain.cliques)
    n = 100_000
    counts = population_counts(chain, n, np.random.default_rng(5))
    stats = noisy(counts, n, chain.cliques, 0.1, seed=0)
    for lam in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1):
        rows.append({"panel": "c", "N": n, "draw": 0, "setting": f"lambda={lam}", "method": "noisy (naive MLE)",
                     "value": kl(chain, naive_mle(start, stats, lam)), "theory": lam})
        rows.append({"panel": "c", "N": n, "draw": 0, "setting": f"lambda={lam}", "method": "true statistics",
                     "value": kl(chain, fit_mle(start, [c / n for c in counts], lam)), "theory": lam})
    rows.append({"panel": "c", "N": n, "draw": 0, "setting": "lambda=0", "method": "CGM (λ = 0)",
                 "value": kl(chain, cgm_em(start, stats)[0]), "theory": 0})
    path = OUT / "cgm_fig1.csv"
    path.unlink(missing_ok=True)
    append_rows(rows, path)


# --- Stand-in for Fig. 3(b): NLTCS, a chain, holdout log-likelihood vs ε -------------------------------

def nltcs(epsilons: list[float], draws: int) -> None:
    from privbayes import PrivateMRF
    from privbayes.counting import open as open_table
    from privbayes.counting.reading import read_frame
    from privbayes.schema.files import load_schema

    schema = load_schema(DATA / "nltcs" / "nltcs.domain")
    frame = read_frame(DATA / "nltcs" / "nltcs.dat", schema)
    order = np.random.default_rng(0).permutation(len(frame))
    cut = int(0.75 * len(frame))
    train, test = frame.iloc[order[:cut]].reset_index(drop=True), frame.iloc[order[cut:]].reset_index(drop=True)
    names = schema.names
    cliques = [(names[i], names[i + 1]) for i in range(len(names) - 1)]
    rows = []
    table = open_table(train, schema)
    indices = tuple((i, i + 1) for i in range(len(names) - 1))
    domain = Domain(tuple(a.size for a in schema.attributes))
    exact = fit_mle(LogLinearModel.uniform(domain, indices), [table.counts(list(c)) / table.n for c in indices],
                    EXACT_LAMBDA)
    test_table = open_table(test, schema)
    holdout = exact.log_likelihood([test_table.counts(list(c)) for c in indices], test_table.n) / test_table.n
    rows.append({"epsilon": "", "draw": "", "method": "Non-private", "holdout_ll": holdout, "seconds": ""})
    for eps in epsilons:
        for d in range(draws):
            for method in ("naive", "cgm", "psgd"):
                model = PrivateMRF(cliques, eps, estimation=method, random_state=100 * d + 1,
                                   psgd_steps=100, psgd_learning_rate=1.0)
                _, secs = timed(model.fit, train, schema)
                rows.append({"epsilon": eps, "draw": d, "method": {"naive": "Naive MLE", "cgm": "CGM",
                                                                 "psgd": "PSGD"}[method],
                             "holdout_ll": model.log_likelihood(test), "seconds": secs})
        print(f"nltcs eps={eps} done", flush=True)
    path = OUT / "cgm_nltcs_holdout.csv"
    path.unlink(missing_ok=True)
    append_rows(rows, path)


# --- plots and the summary numbers ---------------------------------------------------------------------

METHOD_STYLE = {"Random": ("grey", ":"), "Non-private": ("black", "--"), "Naive MLE": ("tab:blue", "-"),
                "CGM": ("tab:red", "-"), "PSGD": ("tab:green", "-"), "Auto": ("tab:purple", "--")}


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def _matched(rows: list[dict]) -> dict[tuple, dict[str, list[dict]]]:
    """Rows per (N, ε) and method, restricted to the trials (population, draw) that every private
    method finished, so that a partly finished run still compares like with like."""
    out: dict[tuple, dict[str, list[dict]]] = {}
    private = ("Naive MLE", "CGM", "PSGD") + (("Auto",) if any(r["method"] == "Auto" for r in rows) else ())
    for n in sorted({int(r["N"]) for r in rows}):
        for eps in sorted({float(r["epsilon"]) for r in rows if r["epsilon"]}):
            here = [r for r in rows if int(r["N"]) == n and r["epsilon"] and float(r["epsilon"]) == eps]
            trials = set.intersection(*({(r["population"], r["draw"]) for r in here if r["method"] == m}
                                        for m in private))
            if not trials:
                continue
            pops = {p for p, _ in trials}
            group = {m: [r for r in here if r["method"] == m and (r["population"], r["draw"]) in trials]
                     for m in private}
            for m in ("Non-private", "Random"):
                group[m] = [r for r in rows if r["method"] == m and int(r["N"]) == n and r["population"] in pops]
            out[(n, eps)] = group
    return out


def plot_fig2(kind: str) -> list[str]:
    """Fig. 2 panels (one per ε), the lines of the CGM ≤ naive summary, and a markdown table."""
    import matplotlib.pyplot as plt

    paths = {part: sorted(OUT.glob(f"cgm_fig2_{kind}_{part}*.csv")) for part in ("baselines", "cgm", "auto")}
    if not (paths["baselines"] and paths["cgm"]):
        return []
    unique = {(r["method"], r["N"], r["population"], r["epsilon"], r["draw"]): r
              for part in paths.values() for path in part for r in read(path)}  # parallel runs may overlap
    groups = _matched(list(unique.values()))
    epsilons = sorted({eps for _, eps in groups})
    fig, axes = plt.subplots(1, len(epsilons), figsize=(4 * len(epsilons), 3.4), sharey=True, squeeze=False)
    summary = []
    print(f"\n**{kind}**\n\n| N | ε | trials | Non-private | Naive MLE | CGM | PSGD | Auto | CGM ≤ naive "
          "| Auto ≤ naive "
          "| CGM stopped by | seconds naive / CGM |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
    for ax, eps in zip(axes[0], epsilons):
        ns = sorted(n for n, e in groups if e == eps)
        for method, (colour, style) in METHOD_STYLE.items():
            if not all(method in groups[(n, eps)] for n in ns):
                continue
            ys = [_mean([float(r["kl"]) for r in groups[(n, eps)][method]]) for n in ns]
            ax.plot(ns, ys, style, color=colour, marker="o", label=method)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{kind}, ε = {eps}")
        ax.set_xlabel("N (individuals)")
    for (n, eps), group in sorted(groups.items()):
        kl_of = {m: _mean([float(r["kl"]) for r in group[m]]) for m in group}
        secs = {m: _mean([float(r["seconds"]) for r in group[m]]) for m in ("Naive MLE", "CGM")}
        stops = sorted({r["detail"].split(", ")[-1] for r in group["CGM"]})
        win = int(kl_of["CGM"] <= kl_of["Naive MLE"])
        auto = kl_of.get("Auto", float("nan"))
        auto_win = "" if "Auto" not in kl_of else int(auto <= kl_of["Naive MLE"])
        summary.append(f"{kind},{n},{eps},{len(group['CGM'])},{kl_of['Naive MLE']:.4g},{kl_of['CGM']:.4g},{win},"
                       f"{auto:.4g},{auto_win}")
        print(f"| 10^{int(round(np.log10(n)))} | {eps} | {len(group['CGM'])} | {kl_of['Non-private']:.3g} | "
              f"{kl_of['Naive MLE']:.3g} | {kl_of['CGM']:.3g} | {kl_of['PSGD']:.3g} | {auto:.3g} | "
              f"{'yes' if win else 'no'} | {'' if auto_win == '' else ('yes' if auto_win else 'no')} | "
              f"{'/'.join(stops)} | {secs['Naive MLE']:.1f} / {secs['CGM']:.1f} |")
    axes[0][0].set_ylabel("KL from the true distribution")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(OUT / f"cgm_fig2_{kind}.png", dpi=110)
    plt.close(fig)
    return summary


def plot_fig1() -> None:
    import matplotlib.pyplot as plt

    path = OUT / "cgm_fig1.csv"
    if not path.exists():
        return
    rows = read(path)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    a = [r for r in rows if r["panel"] == "a"]
    ns = sorted({int(r["N"]) for r in a})
    mse = [_mean([float(r["value"]) for r in a if int(r["N"]) == n]) for n in ns]
    theory = [_mean([float(r["theory"]) for r in a if int(r["N"]) == n]) for n in ns]
    axes[0].loglog(ns, mse, "o-", label="MSE of y/N (measured)")
    axes[0].loglog(ns, theory, "k--", label="Eq. 4 (theory)")
    axes[0].loglog(ns, [mse[-1] * ns[-1] / n for n in ns], ":", color="tab:green", label="slope −1 (1/N)")
    axes[0].loglog(ns, [mse[0] * (ns[0] / n) ** 2 for n in ns], ":", color="tab:orange", label="slope −2 (1/N²)")
    axes[0].set_title("(a) chain T=10, |X|=10, ε=0.1")
    axes[0].set_xlabel("N")
    axes[0].legend(fontsize=7)
    b = [r for r in rows if r["panel"] == "b"]
    for method, colour in (("projected", "tab:blue"), ("not projected", "tab:orange")):
        ns_b = sorted({int(r["N"]) for r in b})
        axes[1].loglog(ns_b, [_mean([float(r["value"]) for r in b if int(r["N"]) == n and r["method"] == method])
                              for n in ns_b], "o-", color=colour, label=f"naive MLE, {method}")
    axes[1].set_title("(b) ER T=10, |X|=10, ε=0.5")
    axes[1].set_xlabel("N")
    axes[1].set_ylabel("KL")
    axes[1].legend(fontsize=7)
    c = [r for r in rows if r["panel"] == "c"]
    for method, colour in (("noisy (naive MLE)", "tab:blue"), ("true statistics", "black")):
        pts = sorted((float(r["theory"]), float(r["value"])) for r in c if r["method"] == method)
        axes[2].loglog([x for x, _ in pts], [y for _, y in pts], "o-", color=colour, label=method)
    cgm = [float(r["value"]) for r in c if r["method"].startswith("CGM")]
    if cgm:
        axes[2].axhline(cgm[0], color="tab:red", label="CGM (no λ)")
    axes[2].set_title("(c) chain, ε=0.1, N=10^5")
    axes[2].set_xlabel("λ")
    axes[2].set_ylabel("KL")
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(OUT / "cgm_fig1.png", dpi=110)
    plt.close(fig)


def plot_fig3a() -> None:
    import matplotlib.pyplot as plt

    for path in sorted(OUT.glob("cgm_fig3a_er*_marginals.csv")):
        rows = read(path)
        true = np.array([float(r["true"]) for r in rows])
        fig, ax = plt.subplots(figsize=(4.5, 4.5))
        for key, label, colour in (("naive", "Naive MLE", "tab:blue"), ("cgm", "CGM", "tab:red"),
                                   ("non_private", "Non-private", "black")):
            ax.scatter(true, [float(r[key]) for r in rows], s=4, alpha=0.5, color=colour, label=label)
        top = float(true.max())
        ax.plot([0, top], [0, top], "k:", lw=0.8)
        ax.set_xlim(0, top)
        ax.set_ylim(0, top * 1.3)
        ax.set_xlabel("true edge marginals")
        ax.set_ylabel("inferred edge marginals")
        k = path.name[len("cgm_fig3a_er"):-len("_marginals.csv")] or "10"
        ax.set_title(f"ER T=10, |X|={k}, N=10^5, ε=0.1 (one trial)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path.with_suffix(".png"), dpi=110)
        plt.close(fig)


def plot_nltcs() -> None:
    import matplotlib.pyplot as plt

    path = OUT / "cgm_nltcs_holdout.csv"
    if not path.exists():
        return
    rows = read(path)
    epsilons = sorted({float(r["epsilon"]) for r in rows if r["epsilon"]})
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for method in ("Naive MLE", "CGM", "PSGD"):
        colour, style = METHOD_STYLE[method]
        ax.plot(epsilons, [_mean([float(r["holdout_ll"]) for r in rows if r["method"] == method
                                  and float(r["epsilon"] or "nan") == e]) for e in epsilons],
                style, color=colour, marker="o", label=method)
    exact = [float(r["holdout_ll"]) for r in rows if r["method"] == "Non-private"]
    if exact:
        ax.axhline(exact[0], color="black", ls="--", label="Non-private")
    ax.set_xscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("holdout log-likelihood per row")
    ax.set_title("NLTCS, first-order chain (stand-in for Fig. 3b)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(OUT / "cgm_nltcs_holdout.png", dpi=110)
    plt.close(fig)


def plot_all() -> None:
    plot_fig1()
    plot_fig3a()
    plot_nltcs()
    summary = ["model,N,epsilon,trials,naive_kl,cgm_kl,cgm_le_naive,auto_kl,auto_le_naive"]
    for kind in ("chain3", "er"):
        summary += plot_fig2(kind)
    (OUT / "cgm_fig2_summary.csv").write_text("\n".join(summary) + "\n")
    wins = [int(line.split(",")[6]) for line in summary[1:]]
    auto_wins = [int(v) for v in (line.split(",")[8] for line in summary[1:]) if v]
    if wins:
        print(f"CGM <= naive MLE in {sum(wins)} of {len(wins)} settings")
    if auto_wins:
        print(f"Auto (the default) <= naive MLE in {sum(auto_wins)} of {len(auto_wins)} settings")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["fig1", "fig2", "fig3", "nltcs", "plot"])
    parser.add_argument("--model", choices=["chain3", "er"], default="chain3")
    parser.add_argument("--populations", type=int, default=5)
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--part", choices=["all", "baselines", "cgm", "auto"], default="all",
                        help="fig2: run only the baselines, CGM or the default auto (plot merges the files)")
    parser.add_argument("--ns", default="10000,100000,1000000", help="fig2: population sizes N")
    parser.add_argument("--first-population", type=int, default=0, help="fig2: skip the populations before it")
    parser.add_argument("--tag", default="", help="fig2: suffix of the output files (parallel runs)")
    parser.add_argument("--reuse", type=Path, help="fig2: CSV of an earlier run whose baseline rows to copy")
    parser.add_argument("--states", type=int, default=20, help="fig3: |X| (the paper: 20)")
    parser.add_argument("--n", type=int, default=100_000, help="fig3: N")
    parser.add_argument("--epsilon", type=float, default=0.1, help="fig3: ε")
    parser.add_argument("--quick", action="store_true", help="N ≤ 10^5 and one trial (smoke run)")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.what == "fig1":
        fig1(args.quick)
    elif args.what == "fig2":
        ns = [10_000, 100_000] if args.quick else [int(n) for n in args.ns.split(",")]
        pops, draws = (1, 1) if args.quick else (args.populations, args.draws)
        fig2(args.model, ns, [0.01, 0.1, 0.5, 1.0], pops, draws, args.part, reuse=args.reuse, tag=args.tag,
             first_population=args.first_population)
    elif args.what == "fig3":
        fig3(args.states, args.n, args.epsilon)
    elif args.what == "nltcs":
        nltcs([0.01, 0.05, 0.1, 0.5, 1.0], 1 if args.quick else args.draws)
    else:
        plot_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
