"""Generator suite for private undirected models (issue 30): known MRFs, noisy clique tables, every estimator.

    python benchmarks/mrf_generators.py table [--chains 3] [--rows 200000]     # the issue's table, public API
    python benchmarks/mrf_generators.py suite --family chain,tree,grid,loopy --alpha 0.1,1,10 --k 2,4,8 \
        --n 1000,100000 --eps 0.01,1 [--reps 2] [--methods naive,cgm,psgd,auto,uniform]
    python benchmarks/mrf_generators.py lamscan --family tree --alpha 0.5 --k 4 --n 1000 --eps 1   # naive MLE's λ path
    python benchmarks/mrf_generators.py path --family chain --n 1000 --eps 1     # TVD and KL along CGM-EM's path

Families (all T variables with K values each; ``alpha`` is the Dirichlet concentration):

* ``chain``: a first-order Markov chain x1 → … → xT, x1 and every transition row drawn from
  Dirichlet(α) (the issue's family: T = 6, K = 4, α = 0.5);
* ``tree``: the same on a random recursive tree (node i's parent is uniform on 0..i−1);
* ``grid``: a ⌈√T⌉-wide 4-neighbour lattice, each edge's log-potential the log of a Dirichlet(α) draw
  over its K² cells (the ICML 2017 §4.1 recipe);
* ``loopy``: a connected Erdős–Rényi graph (edge probability 3/T), potentials as for ``grid``;
* ``band3``: the ICML 2017 third-order chain (edges 1 ≤ |i − j| ≤ 3), potentials as for ``grid``;
* ``star``: a Bayesian network on a star (variable 0 the parent of all others), conditionals Dirichlet(α);
* ``potts``: a ⌈√T⌉-wide 4-neighbour lattice with mixed Potts couplings, θ_ij(a, b) = J_ij·[a = b] with
  J_ij uniform on [−α, α] (attractive and repulsive edges), and unary fields N(0, 0.5²) folded into each
  variable's first edge (a loopy Ising-like model).

``star`` and ``potts`` (and ``tree`` at K ≥ 8) are the families the default was not tuned on
(benchmarks/mrf_untuned.py).

Each population is N rows sampled exactly from the model (junction tree); its clique tables are
computed here (synthetic data, not private) and released through ``privbayes.methods.mrf.measure``
(discrete Laplace, the accountant) under ``--relation`` (default replace-one, the library's).
Every method sees the same noisy tables.  Metrics, per fitted model: ``tvd`` — the mean over all
pairs of variables of the total variation distance between the true pairwise marginal and the fitted
model's exact one (estimation error only); ``tvd_rows`` — the same against the pairwise marginals of
``--rows`` rows sampled from the fitted model (the issue's metric: estimation + sampling error); ``kl`` —
KL(true ‖ fitted) of the joint (exact on junction trees).  ``table`` goes through the public API
(``PrivateMRF(...).fit(DataFrame, schema)``), as the issue did.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from privbayes import PrivateMRF
from privbayes.inference import Domain
from privbayes.methods.mrf import (
    CGMOptions,
    LogLinearModel,
    NoisyStatistics,
    cgm_em,
    measure,
    naive_mle,
)
from privbayes.methods.mrf.psgd import psgd
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import random_source
from privbayes.schema import Attribute, Schema

# --- the generators -----------------------------------------------------------------------------------------


def _directed(edges: Sequence[tuple[int, int]], t: int, k: int, alpha: float,
              rng: np.random.Generator) -> LogLinearModel:
    """A Bayesian network on a rooted tree (edges parent → child, root 0) as an MRF over its edges:
    θ_(p,c) = log P(c | p), with log P(root) added to the root's first edge."""
    theta = [np.log(rng.dirichlet(np.full(k, alpha), size=k)) for _ in edges]
    root = np.log(rng.dirichlet(np.full(k, alpha)))
    first = next(i for i, (p, _) in enumerate(edges) if p == 0)
    theta[first] = theta[first] + root[:, None]
    return LogLinearModel(Domain((k,) * t), tuple(edges), tuple(theta))


def _potentials(edges: Sequence[tuple[int, int]], t: int, k: int, alpha: float,
                rng: np.random.Generator) -> LogLinearModel:
    """Edge log-potentials log Dirichlet(α) over the K² cells of each edge (ICML 2017, §4.1)."""
    theta = tuple(np.log(np.maximum(rng.dirichlet(np.full(k * k, alpha)), 1e-300)).reshape(k, k) for _ in edges)
    return LogLinearModel(Domain((k,) * t), tuple(edges), theta)


def _lattice(t: int) -> list[tuple[int, int]]:
    """The edges of a ⌈√T⌉-wide 4-neighbour lattice over T variables, sorted."""
    width = math.ceil(math.sqrt(t))
    edges = [(v, v + 1) for v in range(t) if (v + 1) % width and v + 1 < t]
    edges += [(v, v + width) for v in range(t) if v + width < t]
    return sorted(edges)


def _potts(edges: Sequence[tuple[int, int]], t: int, k: int, strength: float,
           rng: np.random.Generator) -> LogLinearModel:
    """Mixed Potts couplings J_ij ~ U[−strength, strength] on the diagonal of each edge, plus unary fields
    N(0, 0.5²) added to each variable's first edge (rows if it is the edge's first variable, else columns)."""
    theta = [rng.uniform(-strength, strength) * np.eye(k) for _ in edges]
    for v in range(t):
        first = next(i for i, e in enumerate(edges) if v in e)
        field = rng.normal(0.0, 0.5, size=k)
        theta[first] = theta[first] + (field[:, None] if edges[first][0] == v else field[None, :])
    return LogLinearModel(Domain((k,) * t), tuple(edges), tuple(theta))


def _connected(edges: Sequence[tuple[int, int]], t: int) -> bool:
    reached, frontier = {0}, [0]
    while frontier:
        v = frontier.pop()
        for i, j in edges:
            for a, b in ((i, j), (j, i)):
                if a == v and b not in reached:
                    reached.add(b)
                    frontier.append(b)
    return len(reached) == t


def generate(family: str, t: int, k: int, alpha: float, seed: int) -> LogLinearModel:
    """A true model of ``family`` (see the module docstring); the same arguments give the same model."""
    rng = np.random.default_rng([seed, t, k, round(alpha * 1000), sum(map(ord, family))])
    if family == "chain":
        return _directed([(i, i + 1) for i in range(t - 1)], t, k, alpha, rng)
    if family == "tree":
        return _directed([(int(rng.integers(0, i)), i) for i in range(1, t)], t, k, alpha, rng)
    if family == "band3":
        return _potentials([(i, j) for i in range(t) for j in range(i + 1, t) if j - i <= 3], t, k, alpha, rng)
    if family == "grid":
        return _potentials(_lattice(t), t, k, alpha, rng)
    if family == "star":
        return _directed([(0, i) for i in range(1, t)], t, k, alpha, rng)
    if family == "potts":
        return _potts(_lattice(t), t, k, alpha, rng)
    if family == "loopy":
        while True:
            edges = [(i, j) for i in range(t) for j in range(i + 1, t) if rng.random() < min(1.0, 3.0 / t)]
            if _connected(edges, t) and len(edges) >= t:
                return _potentials(edges, t, k, alpha, rng)
    raise ValueError(f"unknown family {family!r}")


def clique_counts(model: LogLinearModel, rows: np.ndarray) -> list[np.ndarray]:
    return [np.bincount(np.ravel_multi_index(tuple(rows[:, v] for v in c), model.domain.shape(c)),
                        minlength=model.domain.cells(c)).reshape(model.domain.shape(c)) for c in model.cliques]


# --- metrics --------------------------------------------------------------------------------------------------


def pair_marginals(model: LogLinearModel) -> list[np.ndarray]:
    return [model.marginal(p) for p in itertools.combinations(range(len(model.domain)), 2)]


def row_pair_marginals(rows: np.ndarray, k: int) -> list[np.ndarray]:
    out = []
    for i, j in itertools.combinations(range(rows.shape[1]), 2):
        out.append(np.bincount(rows[:, i] * k + rows[:, j], minlength=k * k).reshape(k, k) / len(rows))
    return out


def mean_tvd(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> float:
    return float(np.mean([0.5 * np.abs(x - y).sum() for x, y in zip(a, b)]))


def kl(p: LogLinearModel, q: LogLinearModel) -> float:
    """KL(p ‖ q) for two models over the same cliques: E_p[θ_p − θ_q] − A(θ_p) + A(θ_q)."""
    mu = p.marginals()
    return float(sum(np.sum(m * (a - b)) for m, a, b in zip(mu, p.theta, q.theta))
                 - p.beliefs().log_z + q.beliefs().log_z)


# --- the estimators (all on the same noisy tables) ---------------------------------------------------------------


@dataclass
class Trial:
    truth: LogLinearModel
    start: LogLinearModel
    counts: list[np.ndarray]
    n: int
    epsilon: float
    stats: NoisyStatistics
    seed: int


def _psgd(trial: Trial) -> LogLinearModel:
    delta = 1.0 / trial.n
    return psgd(trial.start, trial.counts, trial.n, trial.epsilon, delta, Accountant(trial.epsilon, Fraction(delta)),
                np.random.default_rng(trial.seed), steps=50, learning_rate=1.0)


def _auto(trial: Trial) -> LogLinearModel:
    from privbayes.methods.mrf.estimation import calibrated_mle

    return calibrated_mle(trial.start, trial.stats)


def _rule2(trial: Trial) -> LogLinearModel:
    from privbayes.methods.mrf.estimation import floored_mle

    return floored_mle(trial.start, trial.stats)


ESTIMATORS: dict[str, Callable[[Trial], LogLinearModel]] = {
    "naive": lambda tr: naive_mle(tr.start, tr.stats, 1e-4),
    "naive-paper": lambda tr: naive_mle(tr.start, tr.stats, 1e-6),
    "cgm": lambda tr: cgm_em(tr.start, tr.stats)[0],
    "cgm-converged": lambda tr: cgm_em(tr.start, tr.stats, CGMOptions(discrepancy=False, em_max_iters=500))[0],
    "cgm-nlbp": lambda tr: cgm_em(tr.start, tr.stats, CGMOptions(estep="nlbp"))[0],
    "psgd": _psgd,
    "auto": _auto,
    "rule2": _rule2,
    "uniform": lambda tr: tr.start,
    "exact": lambda tr: naive_mle(tr.start, NoisyStatistics(tr.stats.cliques, tuple(c.astype(float) for c in tr.counts),
                                                            tr.stats.scale, float(tr.n), tr.stats.relation), 1e-6,
                                  project=False),
}


def trials(family: str, t: int, k: int, alpha: float, n: int, epsilon: float, reps: int,
           relation: str, make: Callable[[int], LogLinearModel] | None = None) -> list[Trial]:
    """``reps`` true models (``make(seed)`` if given, else :func:`generate`), N rows from each, tables released."""
    out = []
    for rep in range(reps):
        truth = make(rep) if make is not None else generate(family, t, k, alpha, seed=rep)
        rows = truth.sample(n, np.random.default_rng([rep, n, 1]))
        counts = clique_counts(truth, rows)
        names = [",".join(map(str, c)) for c in truth.cliques]
        stats = measure(counts, n, truth.cliques, names, epsilon, relation, Accountant(epsilon),  # type: ignore[arg-type]
                        random_source(1000 * rep + 7))
        out.append(Trial(truth, LogLinearModel.uniform(truth.domain, truth.cliques), counts, n, epsilon, stats, rep))
    return out


def evaluate(trial: Trial, model: LogLinearModel, rows: int, truth_pairs: list[np.ndarray]) -> dict[str, float]:
    out = {"tvd": mean_tvd(truth_pairs, pair_marginals(model)), "kl": kl(trial.truth, model)}
    if rows:
        sampled = model.sample(rows, np.random.default_rng([trial.seed, 99]))
        out["tvd_rows"] = mean_tvd(truth_pairs, row_pair_marginals(sampled, trial.truth.domain.sizes[0]))
    return out


def suite(args: argparse.Namespace) -> None:
    methods = args.methods.split(",")
    print("| family | T | K | α | N | ε | per-cell noise/count | " + " | ".join(methods) + " |")
    print("|---|---|---|---|---|---|---|" + "---|" * len(methods))
    for family, alpha, k, n, eps in itertools.product(args.family.split(","), map(float, args.alpha.split(",")),
                                                      map(int, args.k.split(",")), map(int, args.n.split(",")),
                                                      map(float, args.eps.split(","))):
        sums: dict[str, dict[str, list[float]]] = {m: {} for m in methods}
        group = trials(family, args.t, k, alpha, n, eps, args.reps, args.relation)
        for trial in group:
            truth_pairs = pair_marginals(trial.truth)
            for method in methods:
                start = time.perf_counter()
                scores = evaluate(trial, ESTIMATORS[method](trial), args.rows, truth_pairs)
                scores["seconds"] = time.perf_counter() - start
                for key, value in scores.items():
                    sums[method].setdefault(key, []).append(value)
                if args.json:
                    print(json.dumps({"family": family, "alpha": alpha, "k": k, "n": n, "epsilon": eps,
                                      "rep": trial.seed, "method": method, **scores}), flush=True)
        ratio = noise_to_count(group[0].stats)
        key = "tvd_rows" if args.rows else "tvd"
        cells = [f"{np.mean(sums[m][key]):.4f} / {np.mean(sums[m]['kl']):.3g}" for m in methods]
        print(f"| {family} | {args.t} | {k} | {alpha:g} | {n} | {eps:g} | {ratio:.3g} | " + " | ".join(cells) + " |",
              flush=True)


def noise_to_count(stats: NoisyStatistics) -> float:
    """σ·m̄/N: the noise's standard deviation per cell over the mean count per cell (m̄ cells per table)."""
    from privbayes.privacy.mechanisms import discrete_laplace_variance

    cells = float(np.mean([t.size for t in stats.tables]))
    return math.sqrt(discrete_laplace_variance(stats.scale)) * cells / stats.n


def lamscan(args: argparse.Namespace) -> None:
    lams = [float(x) for x in args.lams.split(",")]
    for family, alpha, k, n, eps in itertools.product(args.family.split(","), map(float, args.alpha.split(",")),
                                                      map(int, args.k.split(",")), map(int, args.n.split(",")),
                                                      map(float, args.eps.split(","))):
        tv, kls = np.zeros(len(lams)), np.zeros(len(lams))
        group = trials(family, args.t, k, alpha, n, eps, args.reps, args.relation)
        for trial in group:
            truth_pairs = pair_marginals(trial.truth)
            for i, lam in enumerate(lams):
                model = naive_mle(trial.start, trial.stats, lam)
                tv[i] += mean_tvd(truth_pairs, pair_marginals(model)) / len(group)
                kls[i] += kl(trial.truth, model) / len(group)
        print(json.dumps({"family": family, "t": args.t, "k": k, "alpha": alpha, "n": n, "epsilon": eps,
                          "x": noise_to_count(group[0].stats), "lams": lams, "tvd": list(tv), "kl": list(kls)}),
              flush=True)


def path(args: argparse.Namespace) -> None:
    """TVD, KL and the squared-residual ratio ‖y − N·µ(θ)‖²/(m·Var z) after k plain EM steps (dual E-step,
    no over-relaxation, no discrepancy stop), against naive MLE on the same noisy tables."""
    from privbayes.methods.mrf.estimation import _squared_residual
    from privbayes.privacy.mechanisms import discrete_laplace_variance

    steps = [int(k) for k in args.steps.split(",")]
    for family, alpha, k, n, eps in itertools.product(args.family.split(","), map(float, args.alpha.split(",")),
                                                      map(int, args.k.split(",")), map(int, args.n.split(",")),
                                                      map(float, args.eps.split(","))):
        for trial in trials(family, args.t, k, alpha, n, eps, args.reps, args.relation):
            truth_pairs = pair_marginals(trial.truth)
            cells = sum(t.size for t in trial.stats.tables)
            variance = discrete_laplace_variance(trial.stats.scale)
            line = []
            for step in steps:
                model, trace = cgm_em(trial.start, trial.stats, CGMOptions(discrepancy=False, em_max_iters=step,
                                                                           relax_growth=1.0))
                residual = _squared_residual(trial.stats, tuple(n * m for m in model.marginals())) / (cells * variance)
                line.append({"steps": trace.iterations, "tvd": mean_tvd(truth_pairs, pair_marginals(model)),
                             "kl": kl(trial.truth, model), "residual_ratio": residual})
            stopped, trace = cgm_em(trial.start, trial.stats)
            naive = naive_mle(trial.start, trial.stats, 1e-4)
            print(json.dumps({"family": family, "n": n, "epsilon": eps, "rep": trial.seed, "path": line,
                              "default_stop": {"steps": trace.iterations, "tvd": mean_tvd(truth_pairs,
                                                                                           pair_marginals(stopped)),
                                               "kl": kl(trial.truth, stopped)},
                              "naive": {"tvd": mean_tvd(truth_pairs, pair_marginals(naive)),
                                        "kl": kl(trial.truth, naive)}}), flush=True)


# --- the table, through the public API --------------------------------------------------------------------


def table(args: argparse.Namespace) -> None:
    settings = [(1_000, 1.0), (10_000, 0.1), (10_000, 1.0), (100_000, 0.1)]
    methods = args.methods.split(",")
    t, k = 6, 4
    schema = Schema(tuple(Attribute(f"x{j}", "categorical", categories=tuple(range(k))) for j in range(t)))
    cliques = [(f"x{j}", f"x{j + 1}") for j in range(t - 1)]
    print("| N | ε | " + " | ".join(methods) + " |   (mean TVD of the 15 pairwise marginals: "
          "sampled rows [exact model]; KL)")
    print("|---|---|" + "---|" * len(methods))
    for n, eps in settings:
        results: dict[str, list[tuple[float, float, float]]] = {m: [] for m in methods}
        for chain in range(args.chains):
            truth = generate("chain", t, k, 0.5, seed=chain)
            rows = truth.sample(n, np.random.default_rng([chain, n, 1]))
            frame = pd.DataFrame(rows, columns=[a.name for a in schema.attributes])
            truth_pairs = pair_marginals(truth)
            for method in methods:
                if method == "uniform":
                    model = LogLinearModel.uniform(truth.domain, truth.cliques)
                else:
                    fitted = PrivateMRF(cliques, eps, estimation=method, random_state=1000 * chain + int(eps * 100) + n)
                    model = fitted.fit(frame, schema).released_.model
                sampled = model.sample(args.rows, np.random.default_rng([chain, 7]))
                results[method].append((mean_tvd(truth_pairs, row_pair_marginals(sampled, k)),
                                        mean_tvd(truth_pairs, pair_marginals(model)), kl(truth, model)))
        cells = []
        for m in methods:
            values = np.array(results[m])
            cells.append(f"{values[:, 0].mean():.4f} [{values[:, 1].mean():.4f}; {values[:, 2].mean():.3g}]")
        print(f"| 10^{round(math.log10(n))} | {eps:g} | " + " | ".join(cells) + " |", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["table", "suite", "lamscan", "path"])
    parser.add_argument("--family", default="chain,tree,grid,loopy")
    parser.add_argument("--t", type=int, default=6)
    parser.add_argument("--k", default="4")
    parser.add_argument("--alpha", default="0.5")
    parser.add_argument("--n", default="1000,10000,100000")
    parser.add_argument("--eps", default="0.1,1")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--relation", default="replace-one", choices=["replace-one", "add-remove"])
    parser.add_argument("--methods", default="naive,cgm,psgd,auto,uniform")
    parser.add_argument("--rows", type=int, default=0, help="suite: also sample this many rows per fit (tvd_rows)")
    parser.add_argument("--chains", type=int, default=3, help="table: chains per setting")
    parser.add_argument("--lams", default="1e-5,3e-5,1e-4,3e-4,1e-3,3e-3,1e-2,3e-2,0.1")
    parser.add_argument("--json", action="store_true", help="suite: one JSON line per fit as well")
    parser.add_argument("--steps", default="1,3,10,20,40,80,160,320", help="path: EM step counts")
    args = parser.parse_args(argv)
    if args.what == "table":
        args.rows = args.rows or 200_000
        table(args)
    elif args.what == "suite":
        suite(args)
    elif args.what == "path":
        path(args)
    else:
        lamscan(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
