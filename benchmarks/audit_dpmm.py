"""Tight audit of a peer: dpmm 0.1.9's PrivBayes (benchmark, not in CI; docs/privacy-assurance.md, "A peer").

Runs under dpmm's own virtualenv (it pins numpy 1.26, pandas 2.1, opendp 0.12) and imports nothing of privbayes:

    python3 -m venv /work/venv-dpmm
    /work/venv-dpmm/bin/pip install -r benchmarks/peers_dpmm_requirements.txt
    nice -n 15 /work/venv-dpmm/bin/python benchmarks/audit_dpmm.py --stage select --epsilons 1 \
        --rows 20,50,200,1000 --runs 10000 [--json out.json]
    nice -n 15 /work/venv-dpmm/bin/python benchmarks/audit_dpmm.py --stage fit --epsilons 1 --rows 200,1000 --runs 8000

What is audited. dpmm's ``PrivBayes.select`` (dpmm/models/priv_bayes.py) picks each attribute's parent with its
``ExponentialMechanism``: probabilities ∝ exp(score / (2·Δ/ε_step)), ε_step = (ε/2)/d for d attributes and Δ =
(2/n)·ln((n+1)/2) + (1 − 1/n)·ln(1 + 2/(n − 1)) (lines 125-141): the sensitivity of the UNNORMALISED mutual
information I(X; Π) of PrivBayes (Zhang et al., TODS 2017, Lemma 4.1, the non-binary case), in nats (the lemma's
logarithms are to base 2). The score it feeds in (``MI.__call__``, lines 48-93) is the NORMALISED mutual
information (H(X) + H(Π) − H(X, Π)) / sqrt(H(X)·H(Π)) in bits, set to 0 when either entropy is 0. That score lies
in [0, 1] and one changed row moves it by its whole range: with n − 1 all-zeros rows, adding the row (1, 1, 0)
makes attributes a and b identical (score 1) while every other score stays 0 (a constant attribute). So the step's
real sensitivity is 1, not Δ(n) (0.33 at n = 20, 0.17 at n = 50, 0.056 at n = 200). The Gaussian marginals
(``Mechanism.measure``) are calibrated to L2 sensitivity 1 (add/remove) while Δ(n) assumes replace-one with n
known; the audit's event (the network) does not see that second defect.

Worst-case pair (replace-one, n public, the relation Δ(n) is derived for): three binary attributes a, b, c;
D = (n − 1) all-zeros rows + (1, 1, 0), D' = the same with that row replaced by (1, 0, 1).  On D the score of
{a, b} is 1 and all others 0; on D' the score of {a, c} is 1 and all others 0: the two candidates of a step
swing by 2 in opposite directions.  Each run uses a fresh ``PrivBayes(epsilon, delta=1e-5, degree=2,
n_jobs=1)`` (a deep copy of one constructed model) seeded by
``set_random_state(RandomState(seed))``, given the public domain {a: 2, b: 2, c: 2} (no ``proc_epsilon``
preprocessing), and records the network (the cliques, root included) as its release:

* ``--stage select``: the structure step alone, ``PrivBayes.select(Dataset(df, domain))`` as ``_fit`` calls
  it; its claim is pure ε/2 (the budget ``select`` gives its exponential mechanism).
* ``--stage fit``: the whole fit as a user calls it, ``PrivBayesGM(epsilon, delta=1e-5, degree=2, domain=...,
  n_jobs=1).fit(df, marginals_only=True)`` (the noisy Gaussian marginals are measured; only the
  ``FactoredInference`` post-processing is skipped), its released cliques read from the model; the claim is
  (ε, δ = 1e-5).

Bound (the method of privbayes.audit.bounds, re-implemented here with scipy).  A quarter of the runs per table
calibrate: the networks are ranked by their (one-sigma pessimistic) frequency ratio on D over D' and the prefix
of that ranking with the best expected bound is the event E_hi (D ‖ D'); likewise E_lo for D' ‖ D.  The other
three quarters are counted: ε ≥ ln((p_D⁻(E) − δ) / p_D'⁺(E)) with one-sided Clopper-Pearson bounds, each at
α/4 (two events, two probabilities: Bonferroni), α = 0.05.  A bound above the claim is evidence, at 95 %
confidence, that the release is not ε-DP (not (ε, δ)-DP) under replace-one neighbours.

Results (2026-11-27) are in docs/privacy-assurance.md, "A peer: dpmm 0.1.9's PrivBayes".
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import math
import time
from collections import Counter

import numpy as np
import pandas as pd
from scipy.stats import beta

CONFIDENCE = 0.95
EVENTS = 2
CALIBRATION_LEVEL = 0.16
DELTA = 1e-5
COLUMNS = ("a", "b", "c")


def cp_upper(successes: int, trials: int, alpha: float) -> float:
    """One-sided (1 − α) Clopper-Pearson upper bound on a binomial proportion."""
    return 1.0 if successes == trials else float(beta.ppf(1 - alpha, successes + 1, trials - successes))


def cp_lower(successes: int, trials: int, alpha: float) -> float:
    """One-sided (1 − α) Clopper-Pearson lower bound (0 without a success)."""
    return 1.0 - cp_upper(trials - successes, trials, alpha)


def ratio_bound(hits: int, other: int, trials: int, alpha: float, delta: float) -> float:
    """ln((p⁻ − δ) / q⁺), −∞ when p⁻ ≤ δ."""
    lower = cp_lower(hits, trials, alpha) - delta
    return math.log(lower / cp_upper(other, trials, alpha)) if lower > 0 else -math.inf


def pair(rows: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(n − 1) all-zeros rows plus (1, 1, 0) on D, plus (1, 0, 1) on D' (one row replaced)."""
    zeros = [[0, 0, 0]] * (rows - 1)
    make = lambda last: pd.DataFrame(zeros + [last], columns=list(COLUMNS)).astype(np.int64)  # noqa: E731
    return make([1, 1, 0]), make([1, 0, 1])


@functools.cache
def pristine(epsilon: float, stage: str) -> object:
    """A freshly constructed model, deep-copied for every run: the constructor's ``cdp_rho`` search takes
    0.4 s and depends on (ε, δ) only."""
    from dpmm.models.priv_bayes import PrivBayes, PrivBayesGM

    domain = {c: 2 for c in COLUMNS}
    if stage == "select":
        return PrivBayes(epsilon=epsilon, delta=DELTA, degree=2, n_jobs=1, domain=domain)
    return PrivBayesGM(epsilon=epsilon, delta=DELTA, degree=2, domain=domain, n_jobs=1)


def release(df: pd.DataFrame, epsilon: float, seed: int, stage: str) -> str:
    """The network one dpmm run releases on ``df`` (its cliques, in selection order)."""
    from dpmm.models.base.mbi import Dataset, Domain
    from numpy.random import RandomState

    model = copy.deepcopy(pristine(epsilon, stage))
    model.set_random_state(RandomState(seed))  # type: ignore[attr-defined]
    if stage == "select":
        cliques = model.select(Dataset(df, Domain(list(COLUMNS), [2, 2, 2])))  # type: ignore[attr-defined]
    else:
        model.fit(df, marginals_only=True)  # type: ignore[attr-defined]
        cliques = model.generator.cliques  # type: ignore[attr-defined]
    return "|".join(",".join(map(str, c)) for c in cliques)


def best_event(cal_hit: Counter[str], cal_other: Counter[str], cal_runs: int, counted: int,
               alpha: float, delta: float) -> list[str]:
    """Networks ranked by calibration ratio; the prefix with the best pessimistic expected bound."""
    keys = sorted(set(cal_hit) | set(cal_other), key=lambda k: -(cal_hit[k] + 0.5) / (cal_other[k] + 0.5))
    best, chosen, hit, other = -math.inf, keys[:1], 0, 0
    for i, key in enumerate(keys):
        hit, other = hit + cal_hit[key], other + cal_other[key]
        p = cp_lower(hit, cal_runs, CALIBRATION_LEVEL)
        q = cp_upper(other, cal_runs, CALIBRATION_LEVEL)
        bound = ratio_bound(round(p * counted), round(q * counted), counted, alpha, delta)
        if bound > best:
            best, chosen = bound, keys[: i + 1]
    return chosen


def audit(epsilon: float, rows: int, runs: int, stage: str, seed: int) -> dict[str, object]:
    """``runs`` fits per table (a quarter calibrates), fresh seeds; the lower bound and its events."""
    start = time.perf_counter()
    d, d2 = pair(rows)
    out_d = [release(d, epsilon, seed + 2 * r, stage) for r in range(runs)]
    out_d2 = [release(d2, epsilon, seed + 2 * r + 1, stage) for r in range(runs)]
    cal = runs // 4
    counted = runs - cal
    claim, delta = (epsilon / 2, 0.0) if stage == "select" else (epsilon, DELTA)
    alpha = (1 - CONFIDENCE) / (2 * EVENTS)
    cal_d, cal_d2 = Counter(out_d[:cal]), Counter(out_d2[:cal])
    cnt_d, cnt_d2 = Counter(out_d[cal:]), Counter(out_d2[cal:])
    events = []
    for name, cal_a, cal_b, cnt_a, cnt_b in (("E_hi (D || D')", cal_d, cal_d2, cnt_d, cnt_d2),
                                             ("E_lo (D' || D)", cal_d2, cal_d, cnt_d2, cnt_d)):
        event = best_event(cal_a, cal_b, cal, counted, alpha, delta)
        hits, other = sum(cnt_a[k] for k in event), sum(cnt_b[k] for k in event)
        events.append({"event": name, "networks": event, "hits": hits, "other_hits": other,
                       "epsilon_lower": ratio_bound(hits, other, counted, alpha, delta)})
    bound = max(0.0, *(e["epsilon_lower"] for e in events))  # type: ignore[arg-type]
    for e in events:
        e["epsilon_lower"] = e["epsilon_lower"] if math.isfinite(e["epsilon_lower"]) else "-inf"  # type: ignore
    return {"stage": stage, "epsilon": epsilon, "claim": claim, "delta": delta, "rows": rows,
            "runs_per_table": runs, "calibration_runs": cal, "charged_sensitivity": sensitivity(rows),
            "exact_loss_of_event": exact_loss(epsilon, rows),
            "epsilon_lower": bound, "verdict": "VIOLATION" if bound > claim else "consistent",
            "seconds": round(time.perf_counter() - start, 1), "events": events,
            "networks_D": dict(cnt_d.most_common()), "networks_D_prime": dict(cnt_d2.most_common())}


def sensitivity(rows: int) -> float:
    """dpmm's Δ(n) (ExponentialMechanism.compute_delta), for the report."""
    return (2 / rows) * math.log((rows + 1) / 2) + (1 - 1 / rows) * math.log(1 + 2 / (rows - 1))


def exact_loss(epsilon: float, rows: int) -> float:
    """The exact ln(Pr[E | D] / Pr[E | D']) of E = {a|a,b|b,c, c|c,b|b,a} (each step a two-candidate softmax
    with factor c = (ε/2)/3 / (2Δ) and scores 1 vs 0): c + ln((1 + e^c)/2), the largest likelihood ratio of
    any network on this pair, so what the bound can approach."""
    c = epsilon / 2 / len(COLUMNS) / (2 * sensitivity(rows))
    return c + math.log((1 + math.exp(c)) / 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stage", choices=("select", "fit"), default="select")
    parser.add_argument("--epsilons", default="1")
    parser.add_argument("--rows", default="50")
    parser.add_argument("--runs", type=int, default=4000, help="runs per table, a quarter of them calibration")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--json")
    args = parser.parse_args()
    results = []
    for eps in (float(e) for e in args.epsilons.split(",")):
        for rows in (int(n) for n in args.rows.split(",")):
            result = audit(eps, rows, args.runs, args.stage, args.seed)
            results.append(result)
            print(f"{args.stage} eps={eps} n={rows} claim={result['claim']} delta={result['delta']} "
                  f"charged_sensitivity={result['charged_sensitivity']:.4f} "
                  f"exact_loss={result['exact_loss_of_event']:.3f} runs={args.runs} "
                  f"lower_bound={result['epsilon_lower']:.3f} {result['verdict']} {result['seconds']}s", flush=True)
            for e in result["events"]:  # type: ignore[attr-defined]
                print(f"  {e['event']}: {e['networks']} hits {e['hits']} vs {e['other_hits']} "
                      f"-> {e['epsilon_lower']}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
