"""Membership-inference audit of PrivBayes (slow; not part of the test suite).

Worst-case target (Annamalai et al., USENIX Security 2024, style): a record taking the least
frequent value of every attribute of a 500-row Adult sample.  D0 is the sample; D1 replaces
row 0 by the target (replace-one neighbours, n public).  For each ε we fit PrivBayes
``--calibration`` times per side to choose the attack threshold and ``--runs`` times per side
(fresh seeds) to evaluate it, then report the Clopper–Pearson (α = 0.1) lower bound on ε.

Attacks: (a) white box, log-likelihood of the target under the released model;
(b) black box, closeness of the nearest of 500 synthetic rows to the target.
Controls: ε = ∞, "release the data itself" (the synthetic table is the training table), and a
broken release that claims ε = 1 but publishes exact conditionals (``non_private_phase``).

PASS when every lower bound for PrivBayes is ≤ its claimed ε and both controls' bounds are > 1.

    PYTHONPATH=src python experiments/mia_audit.py [--runs 50] [--calibration 50] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from importlib import resources

import numpy as np
import pandas as pd

from privbayes.audit.mia import (
    choose_threshold,
    distance_score,
    epsilon_lower_bound,
    max_certifiable_epsilon,
    model_log_likelihood,
    rarest_record,
)
from privbayes.counting import leaf_codes
from privbayes.methods.privbayes.estimator import PrivBayes
from privbayes.schema.files import load_schema

ALPHA = 0.1
SYNTHETIC_ROWS = 500


def load_data(rows: int, seed: int):
    data_dir = resources.files("privbayes") / "data"
    with resources.as_file(data_dir / "adult.yaml") as path:
        schema = load_schema(path)
    with resources.as_file(data_dir / "adult.csv.gz") as path:
        adult = pd.read_csv(path)
    base = adult.sample(rows, random_state=seed).reset_index(drop=True)
    target = rarest_record(base, schema)
    with_target = pd.concat([target, base.iloc[1:]], ignore_index=True)[base.columns]
    return schema, base, with_target, target


def scores_for(release, schema, target, target_codes) -> tuple[float, float]:
    """(white-box score, black-box score) of one release; ``release`` is a model or a DataFrame."""
    if isinstance(release, pd.DataFrame):  # the ε = ∞ control: the data itself
        return float("nan"), distance_score(leaf_codes(release, schema), target_codes)
    synthetic = release.sample(SYNTHETIC_ROWS, random_state=0)
    return model_log_likelihood(release, target), distance_score(leaf_codes(synthetic, schema), target_codes)


def run_side(frame, schema, target, target_codes, epsilon, seeds, **params):
    out = []
    for seed in seeds:
        release = (frame if epsilon == float("inf")
                   else PrivBayes(epsilon, random_state=seed, **params).fit(frame, schema))
        out.append(scores_for(release, schema, target, target_codes))
    return np.array(out)


def audit(epsilon: float, runs: int, calibration: int, schema, d0, d1, target, **params) -> dict:
    target_codes = leaf_codes(target, schema)[0]
    start = time.perf_counter()
    first = 10**6 * (1 + int(min(epsilon, 99)))
    seeds = iter(range(first, first + 10**6))
    take = lambda k: [next(seeds) for _ in range(k)]  # noqa: E731 - fresh, disjoint seeds per block
    cal_in = run_side(d1, schema, target, target_codes, epsilon, take(calibration), **params)
    cal_out = run_side(d0, schema, target, target_codes, epsilon, take(calibration), **params)
    ev_in = run_side(d1, schema, target, target_codes, epsilon, take(runs), **params)
    ev_out = run_side(d0, schema, target, target_codes, epsilon, take(runs), **params)
    result = {"epsilon": epsilon, "runs_per_side": runs, "calibration_per_side": calibration,
              "seconds": round(time.perf_counter() - start, 1)}
    for k, name in enumerate(("white_box_loglik", "black_box_distance")):
        if np.isnan(ev_in[:, k]).all():
            continue
        attack = choose_threshold(cal_in[:, k], cal_out[:, k], ALPHA)
        fp, fn = attack.errors(ev_in[:, k], ev_out[:, k])
        result[name] = {"threshold": attack.threshold, "false_positives": fp, "false_negatives": fn,
                        "tpr": 1 - fn / runs, "fpr": fp / runs,
                        "epsilon_lower_bound": epsilon_lower_bound(fp, runs, fn, runs, alpha=ALPHA),
                        "mean_score_in": float(np.mean(ev_in[:, k])), "mean_score_out": float(np.mean(ev_out[:, k]))}
    result["epsilon_lower_bound"] = max(v["epsilon_lower_bound"] for v in result.values() if isinstance(v, dict))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500)
    parser.add_argument("--runs", type=int, default=50, help="evaluation releases per side")
    parser.add_argument("--calibration", type=int, default=50, help="threshold-choosing releases per side")
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 4.0])
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    schema, d0, d1, target = load_data(args.rows, seed=0)
    print("target record:", target.to_dict("records")[0])
    ceiling = max_certifiable_epsilon(args.runs, ALPHA)
    print(f"largest certifiable lower bound with {args.runs} releases per side at α = {ALPHA}: {ceiling:.3f}")
    results = [audit(eps, args.runs, args.calibration, schema, d0, d1, target) for eps in args.epsilons]
    control = audit(float("inf"), args.runs, args.calibration, schema, d0, d1, target)
    verdicts = []
    for r in results:
        ok = r["epsilon_lower_bound"] <= r["epsilon"]
        verdicts.append(ok)
        print(f"ε = {r['epsilon']:g}: lower bound {r['epsilon_lower_bound']:.3f} → {'PASS' if ok else 'FAIL'} "
              f"({r['seconds']} s)")
        for name in ("white_box_loglik", "black_box_distance"):
            a = r[name]
            print(f"    {name:20s} TPR {a['tpr']:.2f} FPR {a['fpr']:.2f} → ε ≥ {a['epsilon_lower_bound']:.3f}")
    # Broken control: the library's non-private analysis mode (exact conditionals, §6.4) while
    # claiming ε = 1; an audit that cannot flag this release cannot flag anything.
    broken = audit(1.0, args.runs, args.calibration, schema, d0, d1, target, non_private_phase="marginals")
    control_ok = control["epsilon_lower_bound"] >= 0.9 * ceiling and broken["epsilon_lower_bound"] > 1.0
    print(f"control ε = ∞ (release the data): lower bound {control['epsilon_lower_bound']:.3f}")
    print(f"control 'claims ε = 1, exact conditionals': lower bound {broken['epsilon_lower_bound']:.3f} "
          f"(white box {broken['white_box_loglik']['epsilon_lower_bound']:.3f}, "
          f"black box {broken['black_box_distance']['epsilon_lower_bound']:.3f})")
    print(f"controls: {'PASS (the attacks detect a non-private release)' if control_ok else 'FAIL (attack too weak)'}")
    summary = {"alpha": ALPHA, "rows": args.rows, "ceiling": ceiling, "target": target.to_dict("records")[0],
               "privbayes": results, "control": control, "broken_control": broken, "pass": all(verdicts) and control_ok}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(summary, handle, indent=2, default=str)
    print("overall:", "PASS" if summary["pass"] else "FAIL")


if __name__ == "__main__":
    main()
