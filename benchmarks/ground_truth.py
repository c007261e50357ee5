"""Ground-truth benchmark: how close a fit comes to the data's own sampling floor as n·ε grows.

Usage:
  python benchmarks/ground_truth.py --rows 1e5,1e6 --epsilons 1 [--repeats 1] [--method adaptive]
      [--option rounds=200 --option marginal_degree=3] [--data-seed 10] [--json out.json]

The truth is a known degree-3 Bayesian network over Adult's 15 attributes (numeric columns as their
bins): PrivBayes's network learned on the bundled Adult data (degree 3, ε = 10 for the structure, seed 0)
with its conditionals the exact tables of the data (``non_private_phase="marginals"``, the paper's
estimation), so its dependence is Adult's own, up to three parents per attribute.  Rows are drawn from it
by ancestral sampling (seed 10 + n-index for the data, 1,000 + n-index for a second sample; ``--data-seed`` moves
the first: another sample of the same network).  Each fit
receives the sampled leaf codes as a table (``InMemoryTable``) and releases a model; ``rows`` synthetic
rows are drawn from it and Q2 / Q3 (average TVD of all 2-way / 3-way marginals,
:func:`privbayes.evaluation.marginals.average_marginal_tvd`) are measured against the sample it was
fitted on.  The floor is a second, independent sample of the same network measured the same way: no
method that sees only one sample can be expected below it.  Prints JSON and a table (Q2 / Q3, their
ratios to the floor, fit + sample seconds with their CPU seconds and the load average: on a shared machine the
wall time alone says little).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "src" / "privbayes" / "data"
TRUTH_EPSILON = 10.0
"""ε of the truth's structure search (its tables are exact): a benchmark input, not a release."""


def truth():
    """The known network: a degree-3 PrivBayes model of Adult with exact conditionals."""
    from privbayes import PrivBayes
    from privbayes.schema.files import load_schema

    schema = load_schema(ADULT / "adult.yaml")
    fitted = PrivBayes(TRUTH_EPSILON, degree=3, non_private_phase="marginals", estimation="paper",
                       random_state=0).fit(ADULT / "adult.csv.gz", schema)
    return schema, fitted.model_


def draw(model, n: int, seed: int, how: str = "iid") -> np.ndarray:
    """n rows of leaf codes from a released model (ancestral sampling, as ``sample`` draws before decoding): the
    ground truth's samples i.i.d., a release's as its model file says (``model.draw``)."""
    from privbayes.bayesnet.sampling import ancestral_sample

    rng = np.random.default_rng(seed)
    return model.encoding.decode(ancestral_sample(model.network, model.conditionals, model.encoding, n, rng, how))


def synthesizer(method: str, eps: float, seed: int, options: dict):
    from privbayes import PrivBayes
    from privbayes.methods.adaptive.estimator import AdaptiveMarginals

    if method == "adaptive":
        return AdaptiveMarginals(eps, random_state=seed, **options)
    return PrivBayes(eps, random_state=seed, **options)


def scores(real: np.ndarray, synth: np.ndarray, sizes: list[int]) -> dict:
    from privbayes.evaluation.marginals import average_marginal_tvd

    return {"q2": average_marginal_tvd(real, synth, sizes, 2), "q3": average_marginal_tvd(real, synth, sizes, 3)}


def run(rows: list[int], epsilons: list[float], repeats: int, method: str, options: dict,
        data_seed: int = 10) -> list[dict]:
    from privbayes.counting.memory import InMemoryTable
    from privbayes.schema.encoding import Encoding

    schema, model = truth()
    sizes = [a.size for a in Encoding.build(schema, "hierarchical").attributes]
    out = []
    for i, n in enumerate(rows):
        data = draw(model, n, data_seed + i)
        floor = scores(data, draw(model, n, 1000 + i), sizes)
        table = InMemoryTable(data, Encoding.build(schema, "hierarchical"))
        for eps in epsilons:
            for rep in range(repeats):
                start, cpu = time.perf_counter(), time.process_time()
                fitted = synthesizer(method, eps, rep, options).fit(table)
                synth = draw(fitted.model_, n, 2000 + rep, fitted.model_.draw)
                seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
                plan = fitted.model_.plan
                got = scores(data, synth, sizes)
                out.append({"rows": n, "data_seed": data_seed + i, "epsilon": eps, "repeat": rep, "method": method,
                            "options": options,
                            "floor_q2": floor["q2"], "floor_q3": floor["q3"], **got,
                            "ratio_q2": got["q2"] / floor["q2"], "ratio_q3": got["q3"] / floor["q3"],
                            "seconds": seconds, "cpu_seconds": cpu, "load_average": os.getloadavg()[0],
                            "rounds": plan.setting("rounds") if method == "adaptive" else None,
                            "degree": plan.setting("marginal degree") if method == "adaptive" else None})
                print(json.dumps(out[-1]), flush=True)
    return out


def table(results: list[dict]) -> str:
    lines = ["| rows | ε | floor Q2 / Q3 | Q2 / Q3 | ratio to floor | rounds, degree | fit + sample s (CPU s, load) |",
             "|---:|---:|---|---|---|---|---:|"]
    for r in results:
        lines.append(f"| {r['rows']:,} | {r['epsilon']:g} | {r['floor_q2']:.4f} / {r['floor_q3']:.4f} | "
                     f"{r['q2']:.4f} / {r['q3']:.4f} | {r['ratio_q2']:.2f} / {r['ratio_q3']:.2f} | "
                     f"{r['rounds']}, {r['degree']} | {r['seconds']:.1f} ({r['cpu_seconds']:.1f}, "
                     f"{r['load_average']:.1f}) |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1e4,1e5,1e6", help="comma-separated sample sizes")
    parser.add_argument("--epsilons", default="0.1,1,10")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--method", choices=("adaptive", "privbayes"), default="adaptive")
    parser.add_argument("--option", action="append", default=[], help="name=value passed to the synthesizer")
    parser.add_argument("--data-seed", type=int, default=10, help="seed of the first size's sample (+1 per size)")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    options = {}
    for item in args.option:
        name, value = item.split("=", 1)
        try:
            options[name] = json.loads(value)  # numbers, true/false/null
        except json.JSONDecodeError:
            options[name] = value  # a word: init=network
    results = run([int(float(r)) for r in args.rows.split(",")], [float(e) for e in args.epsilons.split(",")],
                  args.repeats, args.method, options, args.data_seed)
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
