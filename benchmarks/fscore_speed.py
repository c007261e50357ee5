"""Network learning time with score F on NLTCS (d = 16) and ACS (d = 23) (TODS 2017, §4.3-4.5).

θ = 4, β = 0.3: k is chosen by θ-usefulness (Lemma 4.8) from ε2 = 0.7ε, then GreedyBayes
(Alg. 2) runs d − 1 exponential-mechanism steps over every (X, Π) with |Π| = k, scoring
each with F.  The paper reports "a few hours" for k = 6 on NLTCS and ~40 min for k = 4 on ACS.

Usage: python benchmarks/fscore_speed.py [--datasets nltcs,acs] [--epsilons 0.05,0.1,0.2,0.4,0.8,1.6]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from privbayes import PrivBayes, counting
from privbayes.bayesnet.fscore import HAVE_NUMBA
from privbayes.bayesnet.greedy import fixed_degree_candidates, greedy_bayes
from privbayes.bayesnet.registry import get_score
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import random_source
from privbayes.schema.domainfile import read_domain
from privbayes.schema.encoding import Encoding

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def learn(name: str, eps: float, seed: int) -> dict:
    schema = read_domain(DATA / name / f"{name}.domain")
    encoding = Encoding.build(schema, "vanilla")
    start = time.perf_counter()
    table = counting.open(DATA / name / f"{name}.dat", schema).encoded(encoding)
    plan = PrivBayes(eps, score="F").plan(table.n, schema)  # β = 0.3, θ = 4: the paper's defaults
    k = plan.setting("degree")
    learn = sum(r.epsilon for r in plan.releases if r.mechanism == "exponential")
    accountant = Accountant(eps)
    begin = time.perf_counter()
    if k > 0:
        greedy_bayes(table, get_score("F"), fixed_degree_candidates(k), learn, accountant, random_source(seed))
    return {"dataset": name, "epsilon": eps, "k": k, "learn_s": round(time.perf_counter() - begin, 3),
            "load_s": round(begin - start, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="nltcs,acs")
    parser.add_argument("--epsilons", default="0.05,0.1,0.2,0.4,0.8,1.6")
    parser.add_argument("--seeds", default="1", help="comma-separated seeds: the first attribute and every choice "
                        "of the exponential mechanism differ, and so does the work")
    args = parser.parse_args()
    rows = [dict(learn(name, float(eps), seed=int(seed)), seed=int(seed)) for name in args.datasets.split(",")
            for eps in args.epsilons.split(",") for seed in args.seeds.split(",")]
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "numba": HAVE_NUMBA}
    print(json.dumps({"benchmark": "fscore_speed", "machine": machine, "results": rows}, indent=1))
    print(f"\n{'dataset':<8} {'eps':>5} {'k':>3} {'seed':>5} {'learn s':>9}")
    for r in rows:
        print(f"{r['dataset']:<8} {r['epsilon']:>5} {r['k']:>3} {r['seed']:>5} {r['learn_s']:>9.2f}")


if __name__ == "__main__":
    main()
