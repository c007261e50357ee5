"""Effect of the public candidate cap on utility (issue 17): Q2/Q3 with the default cap vs none.

Usage:
  python benchmarks/candidate_cap.py --n 2e5 --d 15 --seeds 5 [--data /tmp/privbayes_scale]

Data as in ``benchmarks/scale.py`` (rows sampled from a model of the bundled Adult data, widened
to d attributes).  For each mode (the default cap C = ``limits().max_candidate_sets``, and no cap:
C = 2⁶²) and each seed: PrivBayes(ε = 1, seeded) fit, n synthetic rows, average 2- and 3-way TVD
against the generated table.  Prints one JSON line per run, then the summary as JSON and a table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale  # noqa: E402  (the data generator shared with the scale benchmark)


def run(n: int, d: int, seeds: int, folder: Path) -> list[dict]:
    from privbayes import PrivBayes, counting
    from privbayes.core.limits import configure, limits
    from privbayes.evaluation import average_marginal_tvd

    path, schema = scale.generate(n, d, folder), scale.wide_schema(d)
    table = counting.open(str(path), schema)
    real = counting.leaf_codes(str(path), schema)
    sizes = [a.size for a in schema.attributes]
    default, rows = limits().max_candidate_sets, []
    for mode, cap in (("capped", default), ("uncapped", 2**62)):
        configure(max_candidate_sets=cap)
        for seed in range(seeds):
            start = time.perf_counter()
            model = PrivBayes(1.0, random_state=seed, progress=False).fit(table).model_
            fit_s = time.perf_counter() - start
            synthetic = counting.leaf_codes(model.sample(n, random_state=seed), schema)
            row = {"n": n, "d": d, "mode": mode, "seed": seed, "k": model.degree, "fit_s": round(fit_s, 1),
                   "Q2": average_marginal_tvd(real, synthetic, sizes, 2),
                   "Q3": average_marginal_tvd(real, synthetic, sizes, 3)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    configure(max_candidate_sets=default)
    return rows


def summary(rows: list[dict]) -> list[dict]:
    out = []
    for mode in dict.fromkeys(r["mode"] for r in rows):
        mine = [r for r in rows if r["mode"] == mode]
        out.append({"mode": mode, "k": [r["k"] for r in mine], "fit_s": [r["fit_s"] for r in mine],
                    **{q: [float(np.mean([r[q] for r in mine])), float(np.std([r[q] for r in mine]))]
                       for q in ("Q2", "Q3")}})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=2e5)
    parser.add_argument("--d", type=int, default=15)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--data", type=Path, default=Path("/tmp/privbayes_scale"))
    args = parser.parse_args()
    rows = summary(run(int(args.n), args.d, args.seeds, args.data))
    print(json.dumps({"benchmark": "candidate_cap", "results": rows}, indent=1))
    print(f"\n{'mode':<9} {'k':<16} {'Q2':>17} {'Q3':>17}")
    for r in rows:
        print(f"{r['mode']:<9} {','.join(map(str, r['k'])):<16} {r['Q2'][0]:.4f} ± {r['Q2'][1]:.4f}"
              f"   {r['Q3'][0]:.4f} ± {r['Q3'][1]:.4f}")


if __name__ == "__main__":
    main()
