"""PrivBayes and the adaptive method, pure ε against zCDP, on the bundled Adult (docs/decisions.md, "zCDP for
PrivBayes"): Q2 / Q3 (average TVD of all 2- and 3-way marginals) of n synthetic rows against the training part.

The same protocol as ``benchmarks/peers.py --data bundled``: the 80/20 split of
``train_test_split_indices(n, seed=0)``, every fit under add/remove neighbours with ``random_state=s`` on the
training part, n rows sampled with seed s, zCDP at δ = 10⁻⁹.  Methods: ``privbayes`` and ``privbayes-zcdp`` (with
each ``--betas`` value: β, the network's share of ρ), ``adaptive`` and ``adaptive-zcdp``.  Prints one JSON document,
then a table of the means (± sd over the seeds) and the mean wall seconds::

    PYTHONPATH=src python benchmarks/zcdp_privbayes.py [--methods privbayes,privbayes-zcdp] [--betas 0.1,0.2]
        [--epsilons 0.1,0.4,1.6] [--seeds 0,1,2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from importlib import resources

import pandas as pd

from privbayes import AdaptiveMarginals, PrivBayes, counting
from privbayes.counting import leaf_codes
from privbayes.evaluation import average_marginal_tvd, train_test_split_indices
from privbayes.schema.files import load_schema

DELTA = 1e-9
METHODS = ("privbayes", "privbayes-zcdp", "adaptive", "adaptive-zcdp")


def training_part() -> tuple[object, pd.DataFrame]:
    """The bundled Adult's schema and the training 80 % (as benchmarks/peers.py)."""
    data = resources.files("privbayes") / "data"
    with resources.as_file(data / "adult.yaml") as path:
        schema = load_schema(path)
    with resources.as_file(data / "adult.csv.gz") as path:
        frame = pd.read_csv(path, skipinitialspace=True)
    train, _ = train_test_split_indices(len(frame), seed=0)
    return schema, frame.iloc[train].reset_index(drop=True)


def estimator(method: str, epsilon: float, seed: int, beta: float | None) -> PrivBayes | AdaptiveMarginals:
    zcdp = {"privacy": "zcdp", "delta": DELTA} if method.endswith("-zcdp") else {}
    if method.startswith("privbayes"):
        return PrivBayes(epsilon, neighbours="add-remove", random_state=seed, **zcdp,
                         **({"beta": beta} if zcdp and beta is not None else {}))
    return AdaptiveMarginals(epsilon, neighbours="add-remove", random_state=seed, **zcdp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--betas", default="", help="β values for privbayes-zcdp (default: its default, 1/5)")
    parser.add_argument("--epsilons", default="0.1,0.4,1.6")
    parser.add_argument("--seeds", default="0,1,2")
    args = parser.parse_args()
    schema, train = training_part()
    table = counting.open(train, schema)
    real = leaf_codes(train, schema)
    sizes = [a.size for a in schema.attributes]
    rows = []
    for method in args.methods.split(","):
        betas = ([float(b) for b in args.betas.split(",")] if method == "privbayes-zcdp" and args.betas else
                 [None])
        for beta in betas:
            for epsilon in (float(e) for e in args.epsilons.split(",")):
                for seed in (int(s) for s in args.seeds.split(",")):
                    start = time.perf_counter()
                    model = estimator(method, epsilon, seed, beta).fit(table)
                    synth = leaf_codes(model.sample(len(train), random_state=seed), schema)
                    rows.append({"method": method, "beta": beta, "epsilon": epsilon, "seed": seed,
                                 "q2": average_marginal_tvd(real, synth, sizes, 2),
                                 "q3": average_marginal_tvd(real, synth, sizes, 3),
                                 "seconds": time.perf_counter() - start})
    print(json.dumps(rows, indent=1))
    print("| method | β | ε | Q2 | Q3 | s |\n|---|---|---|---|---|---|")
    keys = dict.fromkeys((r["method"], r["beta"], r["epsilon"]) for r in rows)
    for method, beta, epsilon in keys:
        group = [r for r in rows if (r["method"], r["beta"], r["epsilon"]) == (method, beta, epsilon)]

        def cell(key: str, group: list[dict] = group) -> str:
            values = [r[key] for r in group]
            spread = f" ± {statistics.stdev(values):.4f}" if len(values) > 1 else ""
            return f"{statistics.mean(values):.4f}{spread}"
        seconds = statistics.mean(r["seconds"] for r in group)
        shown = "default" if beta is None else f"{beta:g}"
        print(f"| {method} | {shown} | {epsilon:g} | {cell('q2')} | {cell('q3')} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
