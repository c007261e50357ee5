"""The workload's sets measured directly (``auto_version`` 5) against the rules before it (version 4: the first
share of 1/4, the rounds selecting among the closure), on a table and workload they were not tuned on.

Usage:
  python benchmarks/workload_heldout.py [--data br2000|acs] [--epsilons 0.1,0.4,1.6] [--seeds 5]

The rule was chosen on Adult's eight 3-way sets (benchmarks/workload.py) and its θ after a first run on BR2000, so
ACS (binary) is the held-out check of the final rule (docs/decisions.md, "Workloads"). Here: another dataset of the
papers (``$PRIVBAYES_DATA``, default /work/shared/data; BR2000 by default), eight 3-way sets drawn at random with
seed 2026 (fixed before any result), add/remove neighbours, pure ε and zCDP (δ = 10⁻⁹), the same seeds for both
rules. "v4" fits the same settings planned as a version-4 file (no set measured directly: version 5 changes nothing
else). Prints one JSON line per cell (with Q2, the mean TVD of all 2-way marginals) and a table of mean workload
errors (docs/decisions.md, "Workloads").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (the datasets' loader and leaf codes)

from privbayes import AdaptiveMarginals, counting  # noqa: E402
from privbayes.evaluation.marginals import average_marginal_tvd, workload_tvd  # noqa: E402
from privbayes.methods.adaptive.settings import AdaptiveSettings  # noqa: E402


def random_workload(names: list[str], sets: int = 8, size: int = 3, seed: int = 2026) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    chosen: set[tuple[int, ...]] = set()
    while len(chosen) < sets:
        chosen.add(tuple(sorted(rng.choice(len(names), size, replace=False).tolist())))
    return [[names[i] for i in s] for s in sorted(chosen)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="br2000")
    parser.add_argument("--epsilons", default="0.1,0.4,1.6")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    schema, frame, _ = peers.load(args.data, "full")
    names = [a.name for a in schema.attributes]
    workload = random_workload(names)
    print(json.dumps({"data": args.data, "workload": workload}))
    real = peers.leaf_codes(frame, schema)
    sets = [([names.index(a) for a in w], 1) for w in workload]
    current = AdaptiveSettings.direct_sets

    def before(self: AdaptiveSettings, encoding: object, n: int) -> tuple[()]:
        return ()

    rows = []
    for eps in (float(e) for e in args.epsilons.split(",")):
        for privacy in ("pure", "zcdp"):
            for rule in ("v4", "v5"):
                AdaptiveSettings.direct_sets = before if rule == "v4" else current  # type: ignore[method-assign]
                errors, q2 = [], []
                for seed in range(args.seeds):
                    options = {"privacy": "zcdp", "delta": 1e-9} if privacy == "zcdp" else {}
                    model = AdaptiveMarginals(eps, neighbours="add-remove", random_state=seed, workload=workload,
                                              **options).fit(counting.open(frame, schema))
                    synth = peers.leaf_codes(model.sample(len(frame), random_state=seed), schema)
                    sizes = [max(int(real[:, j].max()), int(synth[:, j].max())) + 1 for j in range(real.shape[1])]
                    errors.append(workload_tvd(real, synth, sizes, sets)[0])
                    q2.append(average_marginal_tvd(real, synth, sizes, 2))
                row = {"epsilon": eps, "privacy": privacy, "rule": rule, "mean": float(np.mean(errors)),
                       "sd": float(np.std(errors)), "errors": errors, "q2": float(np.mean(q2))}
                rows.append(row)
                print(json.dumps(row), flush=True)
    AdaptiveSettings.direct_sets = current  # type: ignore[method-assign]
    print("\n| ε | privacy | v4 (Q2) | v5 (Q2) |\n|---|---|---|---|")
    for eps in sorted({r["epsilon"] for r in rows}):
        for privacy in ("pure", "zcdp"):
            cell = {r["rule"]: r for r in rows if r["epsilon"] == eps and r["privacy"] == privacy}
            shown = [f"{cell[r]['mean']:.4f} ± {cell[r]['sd']:.4f} ({cell[r]['q2']:.4f})" for r in ("v4", "v5")]
            print(" | ".join([f"| {eps}", privacy, *shown]) + " |")


if __name__ == "__main__":
    main()
