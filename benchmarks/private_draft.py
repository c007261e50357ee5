"""What a private schema draft costs in utility: Adult, Q2 (average TVD of all 2-way marginals).

Usage:
  python benchmarks/private_draft.py [--seeds 5] [--totals 1.0 0.4] [--draft-share 0.1]

For each total ε and seed: (a) the public schema (adult.yaml) and the default fit (adaptive) at the total;
(b) ``privbayes schema infer --epsilon`` at draft-share × total (categories from adult.yaml: the public code
lists; kinds, bounds and point masses private), then the default fit at the rest.  Both synthetic tables
are scored against the real rows under the PUBLIC schema's binning (numbers outside its bounds clipped,
anything else to a missing code that the real rows never use), so the two are compared on one domain.
Prints one JSON line per run, then a table of mean ± sd per total and setting.
"""

from __future__ import annotations

import argparse
import json
import statistics
from fractions import Fraction
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "privbayes" / "data"


def scoring_schema(public: dict) -> dict:
    """The public schema with tolerant policies, so that every synthetic row has a code in its binning."""
    attributes = []
    for a in public["attributes"]:
        numeric = a["kind"] in ("numeric", "date")
        attributes.append(a | {"missing": "category", "invalid": "clip" if numeric else "category"})
    return public | {"attributes": attributes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--totals", type=float, nargs="+", default=[1.0, 0.4])
    parser.add_argument("--draft-share", default="1/10")
    args = parser.parse_args()

    from privbayes import AdaptiveMarginals, private_draft
    from privbayes.evaluation.report import average_tvd_against
    from privbayes.io import load_schema, read_structured
    from privbayes.schema import Schema

    real = pd.read_csv(DATA / "adult.csv.gz")
    public_path = DATA / "adult.yaml"
    public = load_schema(public_path)
    scoring = Schema.from_dict(scoring_schema(read_structured(public_path, "schema")))
    share = Fraction(args.draft_share)
    results: dict[tuple[float, str], list[float]] = {}
    for total in args.totals:
        exact_total = Fraction(str(total))
        for seed in range(args.seeds):
            runs = [("public schema", public, exact_total, None)]
            draft = private_draft(real, exact_total * share, categories=public_path, seed=seed)
            runs.append(("private draft", draft.schema(), exact_total * (1 - share), draft))
            for setting, schema, fit_epsilon, made in runs:
                model = AdaptiveMarginals(epsilon=fit_epsilon, random_state=seed).fit(real, schema)
                synthetic = model.sample(len(real), random_state=seed)
                q2 = average_tvd_against(real, [synthetic], scoring, alpha=2)[0]
                report = model.privacy_report()
                line = {"total": total, "setting": setting, "seed": seed, "fit_epsilon": float(fit_epsilon),
                        "total_epsilon": report.get("total_epsilon", report["epsilon"]), "q2": round(q2, 5)}
                if made is not None:
                    line["draft_epsilon"] = float(made.release.epsilon)
                    line["numeric"] = {a.name: [a.lower, a.upper, list(a.special_values)]
                                       for a in schema.attributes if a.kind == "numeric"}
                print(json.dumps(line), flush=True)
                results.setdefault((total, setting), []).append(q2)
    print(f"\n{'total ε':>8}  {'setting':<28}  {'Q2 mean':>8}  {'sd':>7}  runs")
    for (total, setting), values in results.items():
        label = setting if setting == "public schema" else f"private draft ({float(share):g} of ε)"
        sd = statistics.stdev(values) if len(values) > 1 else 0.0
        print(f"{total:>8g}  {label:<28}  {statistics.mean(values):>8.4f}  {sd:>7.4f}  {len(values)}")


if __name__ == "__main__":
    main()
