"""CGM-EM vs naive MLE (and private-pgm's ``mbi``) on the ICML 2017 T = 10 models: time and KL.

    python benchmarks/cgm_speed.py [--draws 2] [--n 100000] [--no-mbi]

For each model (third-order chain, connected Erdős–Rényi; |X| = 10, Dirichlet(1) edge
potentials), each ε and each draw, the same noisy clique tables (discrete Laplace, the
paper's add/remove scale |C|/ε, through ``privbayes.methods.mrf.measure``) go to naive MLE,
CGM-EM (the default dual E-step and the NLBP one) and — when installed — ``mbi``'s
mirror descent with an L1 loss (the Laplace log-likelihood) and with its default L2 loss.  Prints
one JSON line per run and a table of means; the paper reports CGM ≈ 4× (chains) / 8× (ER) naive
MLE's time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))

from cgm import NAIVE_LAMBDA, kl, noisy, population_counts, true_model  # noqa: E402

from privbayes.methods.mrf import CGMOptions, LogLinearModel, cgm_em, naive_mle  # noqa: E402


def mbi_fit(truth: LogLinearModel, stats, norm: str) -> LogLinearModel:
    """mbi's mirror descent (1000 iterations) on the same measurements; its potentials mapped back
    onto our cliques (each of mbi's maximal cliques onto the same clique of ours, zeros elsewhere)."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import mbi
    from mbi import marginal_loss

    names = [f"x{v}" for v in range(len(truth.domain))]
    domain = mbi.Domain(names, truth.domain.sizes)
    measurements = [mbi.LinearMeasurement(y.ravel().astype(float), tuple(names[v] for v in c),
                                          stddev=float(np.sqrt(2) * stats.scale))
                    for c, y in zip(truth.cliques, stats.tables)]
    loss = marginal_loss.from_linear_measurements(measurements, norm=norm, domain=domain)
    model = mbi.estimation.mirror_descent(domain, loss, known_total=stats.n, iters=1000)
    ours = {tuple(names[v] for v in c): i for i, c in enumerate(truth.cliques)}
    theta = [np.zeros(truth.domain.shape(c)) for c in truth.cliques]
    for home in model.potentials.cliques:
        if tuple(home) not in ours:
            raise RuntimeError(f"mbi used clique {home!r}, which is not one of the model's")
        theta[ours[tuple(home)]] = np.asarray(model.potentials[home].transpose(tuple(home)).values)
    return LogLinearModel(truth.domain, truth.cliques, tuple(theta))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--epsilons", default="0.1,1.0")
    parser.add_argument("--no-mbi", action="store_true")
    args = parser.parse_args(argv)
    try:
        if not args.no_mbi:
            import mbi  # noqa: F401
        use_mbi = not args.no_mbi
    except ImportError:
        use_mbi = False
    rows = []
    for kind, seed in (("chain3", 1), ("er", 2)):
        truth = true_model(kind, 10, 10, seed)
        start = LogLinearModel.uniform(truth.domain, truth.cliques)
        counts = population_counts(truth, args.n, np.random.default_rng(seed))
        for eps in (float(e) for e in args.epsilons.split(",")):
            for draw in range(args.draws):
                stats = noisy(counts, args.n, truth.cliques, eps, seed=draw)
                methods = {"naive MLE": lambda: naive_mle(start, stats, NAIVE_LAMBDA),  # noqa: B023
                           "CGM (dual E-step, default)": lambda: cgm_em(start, stats, CGMOptions())[0],  # noqa: B023
                           "CGM (NLBP E-step)": lambda: cgm_em(start, stats, CGMOptions(estep="nlbp"))[0]}  # noqa: B023
                if use_mbi:
                    methods["mbi mirror descent L1"] = lambda: mbi_fit(truth, stats, "l1")  # noqa: B023
                    methods["mbi mirror descent L2"] = lambda: mbi_fit(truth, stats, "l2")  # noqa: B023
                for name, run in methods.items():
                    began = time.perf_counter()
                    model = run()
                    seconds = time.perf_counter() - began
                    row = {"model": kind, "N": args.n, "epsilon": eps, "draw": draw, "method": name,
                           "seconds": round(seconds, 3), "kl": round(kl(truth, model), 5)}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    print("\n| model | ε | method | mean seconds | × naive | mean KL |\n|---|---|---|---|---|---|")
    for kind in ("chain3", "er"):
        for eps in sorted({r["epsilon"] for r in rows}):
            group = [r for r in rows if r["model"] == kind and r["epsilon"] == eps]
            base = np.mean([r["seconds"] for r in group if r["method"] == "naive MLE"])
            for name in dict.fromkeys(r["method"] for r in group):
                secs = np.mean([r["seconds"] for r in group if r["method"] == name])
                kls = np.mean([r["kl"] for r in group if r["method"] == name])
                print(f"| {kind} | {eps} | {name} | {secs:.2f} | {secs / base:.2f} | {kls:.4g} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
