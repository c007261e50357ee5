"""Probe (issue 41, MRF default; not the default): naive MLE whose L2 weight λ is chosen per fit by Stein's unbiased
risk estimate, or set to the detection limit's share 0.1·b/N, against ``auto`` (rule 4), in the issue's two ratios.

    python benchmarks/mrf_sure.py adult-chowliu@1000:1 [census-tree@10000:1 chain,6,4,0.5@1000:1 ...] [--reps 10]

A spec is ``family@N:ε``: a held-out family of :mod:`mrf_heldout` by name, or a tuning family of
:mod:`mrf_generators` as ``name,T,K,α``.  For each of ``--reps`` models (the same seeds, samples and noisy tables
as :mod:`mrf_default`), λ is the grid value (10⁻⁴ … 10⁻¹) minimising SURE of the clique tables' squared error,
‖N·µ̂_λ − y‖² + 2σ²·div − m·σ² (σ² the discrete Laplace variance: a Gaussian approximation, since Stein's lemma is
exact for Gaussian noise only), the divergence of y ↦ N·µ̂_λ(y) by one Monte-Carlo perturbation of scale 0.3σ; the
fit is naive MLE of the projected tables (no floor, no CGM-EM).  ``detection``: the same naive MLE at
λ_C = 0.1·b/N·max(1, x_C/``--grow-from``)^2.5 (issue 30's base weight without its cap at 10⁻⁴, its growth with
x_C starting at ``--grow-from``; the default, ∞, is no growth).
Post-processing of the released tables and public values only, as ``auto``.  Prints one JSON line per spec: KL /
best of naive and CGM, and TVD / naive, for ``auto`` and both choices, and the λ SURE chose.
"""

from __future__ import annotations

import argparse
import json
import sys

import mrf_heldout
import numpy as np
from mrf_generators import ESTIMATORS, Trial, kl, mean_tvd, pair_marginals, trials

from privbayes.methods.mrf import LogLinearModel
from privbayes.methods.mrf.estimation import DETECTION_SHARE, GROWTH, naive_mle, noise_to_count, project_simplex
from privbayes.methods.mrf.mle import fit_mle

GRID = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)
PERTURBATION = 0.3
"""The Monte-Carlo perturbation's standard deviation, as a share of the noise's σ."""


def _fit(trial: Trial, tables: list[np.ndarray], lam: float) -> LogLinearModel:
    return fit_mle(trial.start, [project_simplex(t / trial.stats.n) for t in tables], lam)


def sure_fit(trial: Trial, rng: np.random.Generator) -> tuple[LogLinearModel, float]:
    """The naive MLE at the grid's λ of least SURE, and that λ."""
    variance, n = trial.stats.variance, trial.stats.n
    tables = [np.asarray(t, dtype=np.float64) for t in trial.stats.tables]
    tau = PERTURBATION * np.sqrt(variance)
    delta = [rng.normal(0.0, tau, t.shape) for t in tables]
    best: tuple[float, float, LogLinearModel] | None = None
    for lam in GRID:
        here = _fit(trial, tables, lam)
        moved = _fit(trial, [t + d for t, d in zip(tables, delta)], lam)
        residual = sum(float(np.sum((n * mu - y) ** 2)) for mu, y in zip(here.marginals(), tables))
        divergence = sum(float(np.sum(d * n * (b - a))) for d, a, b in zip(delta, here.marginals(),
                                                                             moved.marginals())) / tau ** 2
        risk = residual + 2 * variance * divergence
        if best is None or risk < best[0]:
            best = (risk, lam, here)
    assert best is not None
    return best[2], best[1]


def detection_fit(trial: Trial, grow_from: float = float("inf"), power: float = GROWTH) -> LogLinearModel:
    """The candidate: naive MLE at λ_C = 0.1·b/N·max(1, x_C/``grow_from``)^``power``, no floor, no CGM-EM
    (``grow_from`` = ∞: no growth)."""
    base = DETECTION_SHARE * trial.stats.scale / trial.stats.n
    lams = [base * max(1.0, x / grow_from) ** power for x in noise_to_count(trial.stats)]
    return naive_mle(trial.start, trial.stats, lams)


def probe(spec: str, reps: int, grow_from: float = float("inf")) -> dict[str, object]:
    family, setting = spec.split("@")
    n_text, eps_text = setting.split(":")
    n, eps = int(n_text), float(eps_text)
    if family in mrf_heldout.FAMILIES:
        group = trials(family, 0, 0, 0.0, n, eps, reps, "replace-one", mrf_heldout.FAMILIES[family][0])
    else:
        name, t, k, alpha = family.split(",")
        group = trials(name, int(t), int(k), float(alpha), n, eps, reps, "replace-one")
    scores: dict[str, list[tuple[float, float]]] = {m: [] for m in ("naive", "cgm", "auto", "sure", "detection")}
    chosen = []
    for trial in group:
        truth = pair_marginals(trial.truth)
        for method in ("naive", "cgm", "auto"):
            model = ESTIMATORS[method](trial)
            scores[method].append((mean_tvd(truth, pair_marginals(model)), kl(trial.truth, model)))
        model, lam = sure_fit(trial, np.random.default_rng(trial.seed))
        chosen.append(lam)
        scores["sure"].append((mean_tvd(truth, pair_marginals(model)), kl(trial.truth, model)))
        model = detection_fit(trial, grow_from)
        scores["detection"].append((mean_tvd(truth, pair_marginals(model)), kl(trial.truth, model)))
    mean = {m: np.mean(np.array(v), axis=0) for m, v in scores.items()}
    best_kl, naive_tvd = min(mean["naive"][1], mean["cgm"][1]), mean["naive"][0]
    return {"family": family, "n": n, "epsilon": eps, "grow_from": grow_from,
            "x": round(float(np.mean([t.size for t in group[0].stats.tables]))
                       * float(np.sqrt(group[0].stats.variance)) / n, 3),
            **{f"{m}_kl_over_best": round(float(mean[m][1] / best_kl), 3) for m in ("auto", "sure", "detection")},
            **{f"{m}_tvd_over_naive": round(float(mean[m][0] / naive_tvd), 3) for m in ("auto", "sure", "detection")},
            "lambdas": sorted(chosen)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="family@N:ε")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--grow-from", type=float, default=float("inf"), help="x_C from which λ grows (default: never)")
    args = parser.parse_args(argv)
    for spec in args.specs:
        print(json.dumps(probe(spec, args.reps, args.grow_from)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
