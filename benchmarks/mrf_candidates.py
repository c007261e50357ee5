"""Tune ``auto``'s rule on cached trials: the same noisy tables for every candidate (issue 41, rule 4).

    python benchmarks/mrf_candidates.py cache --families chain,potts,block --settings 1000:1,10000:0.1 [--reps 6]
    python benchmarks/mrf_candidates.py score --name rule4 --params '{}'
    python benchmarks/mrf_candidates.py score --name flat-floor --params '{"floor": [0.3, 2]}'
    python benchmarks/mrf_candidates.py score --name detection --params '{"rule": "detection", "grow_from": 2}'

``cache`` draws ``--reps`` trials per family and setting (:func:`mrf_generators.trials`; the tuning families of
:mod:`mrf_generators`, :mod:`mrf_untuned` and :mod:`mrf_heldout` by name), fits naive MLE (λ = 1e-4), CGM-EM and
``auto`` rule 2 (:func:`~privbayes.methods.mrf.estimation.floored_mle`) once, and pickles them with CGM-EM's θ in
``--cache``.  ``score`` fits rule 4 (:func:`~privbayes.methods.mrf.estimation.mixed_targets`, the MLE started at the
cached CGM-EM θ) with the module's constants replaced by ``--params`` (``eta``: ``MIX_SHARE``, ``band``: ``MIX_BAND``,
``floor``: ``MIX_FLOOR``) on every cached setting; where every η_C is 0 the fit is rule 2's, so the cached one is
reused.  With ``"rule": "detection"`` the candidate is naive MLE at λ_C = 0.1·b/N·max(1, x_C/``grow_from``)^``power``
(no floor, no CGM-EM; :func:`detection`) and rule 4 is scored beside it.  One JSON line per setting: rule 2's
(and rule 4's) and the candidate's KL over the better of naive/CGM and TVD over naive's, then the ratios above 1.05
and their total excess.  Scores are of the exact fitted model (KL(true ‖ fitted)
of the joint, ICML 2017; mean pairwise TVD).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import mrf_heldout
import mrf_untuned
import numpy as np
from mrf_generators import kl, mean_tvd, pair_marginals, trials
from mrf_sure import detection_fit

from privbayes.methods.mrf import cgm_em, naive_mle
from privbayes.methods.mrf import estimation as rules
from privbayes.methods.mrf.mle import fit_mle

SPECS: dict[str, tuple[str, int, int, float]] = {
    "chain": ("chain", 6, 4, 0.5), "tree": ("tree", 7, 3, 1.0),
    "sparse-tree": ("tree", 6, 5, 0.3), "dense-tree": ("tree", 8, 6, 2.0), **mrf_untuned.FAMILIES,
}
"""Tuning families drawn by :func:`mrf_generators.generate` (the held-out rounds': :data:`mrf_heldout.FAMILIES`)."""


def _scores(trial: Any, pairs: list[np.ndarray], model: Any) -> tuple[float, float]:
    return kl(trial.truth, model), mean_tvd(pairs, pair_marginals(model))


def cache(family: str, n: int, epsilon: float, reps: int, directory: Path) -> Path:
    """Draw and fit one setting's trials once (skipped if already cached); returns the pickle's path."""
    path = directory / f"{family}_{n}_{epsilon}_{reps}.pkl"
    if path.exists():
        return path
    name, t, k, alpha = SPECS.get(family, (family, 0, 0, 0.0))
    make = mrf_heldout.FAMILIES[family][0] if family in mrf_heldout.FAMILIES else None
    records = []
    for trial in trials(name, t, k, alpha, n, epsilon, reps, "replace-one", make):
        pairs = pair_marginals(trial.truth)
        smooth, _ = cgm_em(trial.start, trial.stats)
        floored = rules.floored_mle(trial.start, trial.stats)
        records.append({"trial": trial, "pairs": pairs, "cgm_theta": smooth.theta,
                        "naive": _scores(trial, pairs, naive_mle(trial.start, trial.stats, 1e-4)),
                        "cgm": _scores(trial, pairs, smooth), "rule2": _scores(trial, pairs, floored)})
    path.write_bytes(pickle.dumps(records))
    return path


def candidate(record: dict[str, Any]) -> tuple[float, float]:
    """Rule 4 with the module's current constants on one cached trial (rule 2's cached scores where every η_C is 0)."""
    trial = record["trial"]
    if max(rules.mixture_shares(trial.stats)) == 0:
        return record["rule2"]
    smooth = trial.start.with_theta(record["cgm_theta"])
    model = fit_mle(smooth, rules.mixed_targets(trial.stats, smooth.marginals()), rules.calibrated_lambda(trial.stats))
    return _scores(trial, record["pairs"], model)


def detection(record: dict[str, Any], grow_from: float, power: float) -> tuple[float, float]:
    """:func:`mrf_sure.detection_fit` (docs/undirected.md, "A simpler candidate") on one cached trial."""
    return _scores(record["trial"], record["pairs"], detection_fit(record["trial"], grow_from, power))


def score(directory: Path, params: dict[str, Any]) -> None:
    """Every cached setting's ratios for rule 2, rule 4 and the candidate: rule 4 with ``params``' constants
    (``eta``, ``band``, ``floor``), or with ``"rule": "detection"`` :func:`detection` (``grow_from``, ``power``)."""
    rules.MIX_SHARE = params.get("eta", rules.MIX_SHARE)
    rules.MIX_BAND = tuple(params.get("band", rules.MIX_BAND))
    rules.MIX_FLOOR = tuple(params.get("floor", rules.MIX_FLOOR))
    plain = params.get("rule", "rule4") == "rule4"
    grow_from, power = float(params.get("grow_from", "inf")), float(params.get("power", rules.GROWTH))
    keys = ("rule2", "candidate") if plain else ("rule2", "rule4", "candidate")
    totals = {key: [0, 0.0] for key in keys}
    for path in sorted(directory.glob("*.pkl")):
        records = pickle.loads(path.read_bytes())
        means = {key: np.mean([r[key] for r in records], axis=0) for key in ("naive", "cgm", "rule2")}
        rule4 = np.mean([candidate(r) for r in records], axis=0)
        means["candidate"] = rule4 if plain else np.mean([detection(r, grow_from, power) for r in records], axis=0)
        means["rule4"] = rule4
        best = min(means["naive"][0], means["cgm"][0])
        line: dict[str, Any] = {"setting": path.stem}
        for key in totals:
            ratios = (float(means[key][0] / best), float(means[key][1] / means["naive"][1]))
            totals[key][0] += sum(v > 1.05 for v in ratios)
            totals[key][1] += sum(max(0.0, v - 1.05) for v in ratios)
            line[key] = [round(v, 3) for v in ratios]
        print(json.dumps(line), flush=True)
    print(json.dumps({"misses": {key: {"count": c, "excess": round(e, 2)} for key, (c, e) in totals.items()}}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["cache", "score"])
    parser.add_argument("--cache", type=Path, default=Path("mrf-candidates-cache"), help="the trials' directory")
    parser.add_argument("--families", default="chain")
    parser.add_argument("--settings", default="1000:1,10000:0.1", help="N:ε,...")
    parser.add_argument("--reps", type=int, default=6)
    parser.add_argument("--name", default="rule4")
    parser.add_argument("--params", default="{}", help="JSON: eta, band, floor; or rule: detection, grow_from, power")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.what == "cache":
        for family in args.families.split(","):
            for item in args.settings.split(","):
                n, eps = item.split(":")
                print(cache(family, int(n), float(eps), args.reps, args.cache), flush=True)
    else:
        print(json.dumps({"candidate": args.name, "params": json.loads(args.params)}), flush=True)
        score(args.cache, json.loads(args.params))
    return 0


if __name__ == "__main__":
    sys.exit(main())
