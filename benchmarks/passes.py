"""Counting passes per fit (issue 32): time, passes over the rows and a model digest, one fit per process.

Usage:
  python benchmarks/passes.py --generate 4.5e6 --data /work/scratch/passes   # the independent-columns file
  python benchmarks/passes.py --backend numpy --method privbayes --data /work/scratch/passes [--n 4.5e6]
  python benchmarks/passes.py --dataset adult --epsilon 0.1 --method privbayes      # the papers' files

Data: Adult's 15 columns (the bundled file), each resampled *independently* with replacement
(seeded), so the rows are mostly distinct (≈ 3.7 M distinct among 4.5 M): counting cannot lean on
repeated rows, and the work is the number of passes over the rows times the pass.  ``--dataset``
reads one of the papers' four datasets from ../shared/data (authors' ``.dat`` and ``.domain``).

Prints one JSON line: open and fit seconds (the fit from an opened table; ``total_s`` = both),
``cpu_s`` (CPU seconds of both, all threads: less sensitive than wall time to other load), the
table's counting statistics (``passes`` over the rows, tables counted from rows, tables summed out of
counted supersets, seconds in passes: ``null`` for code without the counter), the 1-minute load
average before and after, and ``digest``, a SHA-256 of the fitted model's document without its
timestamps: equal digests mean identical models.  Runs with any checkout on PYTHONPATH (old code
too), so old and new can be timed side by side.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "src" / "privbayes" / "data"
SHARED = ROOT.parent / "shared" / "data"


def generate(n: int, folder: Path) -> Path:
    """Parquet file of n rows of Adult's columns, each resampled independently (seeded)."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / f"indep_{n}.parquet"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    source = pd.read_csv(ADULT / "adult.csv.gz")
    rng = np.random.default_rng(32)
    frame = pd.DataFrame({c: source[c].to_numpy()[rng.integers(0, len(source), n)] for c in source.columns})
    tmp = path.with_suffix(".tmp")
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp)
    tmp.rename(path)
    return path


def digest(model) -> str:
    """SHA-256 of the model's document, timestamps left out (same fit, same digest)."""
    document = model.to_document()

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if "time" not in k and "created" not in k}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return hashlib.sha256(json.dumps(strip(document), sort_keys=True, default=str).encode()).hexdigest()[:16]


def stats_of(table) -> dict | None:
    stats = getattr(getattr(table, "local", None) or table, "stats", None)
    if stats is None:
        stats = getattr(table, "stats", None)
    return None if stats is None else stats.as_dict()


def run(args: argparse.Namespace) -> dict:
    from privbayes import counting, synthesizer

    if args.dataset:
        from privbayes.schema.domainfile import read_domain

        schema = read_domain(SHARED / args.dataset / f"{args.dataset}.domain")
        path = SHARED / args.dataset / f"{args.dataset}.dat"
    else:
        from privbayes.schema.files import load_schema

        schema = load_schema(ADULT / "adult.yaml")
        path = generate(int(float(args.n)), Path(args.data))
    load = os.getloadavg()[0]
    cpu = _cpu_s()
    start = time.perf_counter()
    table = counting.open(str(path), schema, backend=args.backend)
    opened = time.perf_counter()
    estimator = synthesizer(args.method, epsilon=args.epsilon, random_state=args.seed)
    if hasattr(estimator, "progress"):
        estimator.progress = False
    model = estimator.fit(table).released_
    done = time.perf_counter()
    cpu = _cpu_s() - cpu
    return {"data": args.dataset or path.name, "backend": args.backend, "method": args.method,
            "epsilon": args.epsilon, "open_s": round(opened - start, 2), "fit_s": round(done - opened, 2),
            "total_s": round(done - start, 2), "cpu_s": round(cpu, 2), "counting": stats_of(table),
            "load_1m": [round(load, 2), round(os.getloadavg()[0], 2)], "digest": digest(model)}


def _cpu_s() -> float:
    """CPU seconds of this process, all threads (less sensitive than wall time to other load)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generate", help="write the independent-columns file of this many rows and exit")
    parser.add_argument("--data", default="/tmp/privbayes_passes")
    parser.add_argument("--n", default="4.5e6")
    parser.add_argument("--dataset", choices=["adult", "nltcs", "acs", "br2000"])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--method", default="privbayes")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.generate:
        print(generate(int(float(args.generate)), Path(args.data)))
        return
    print(json.dumps(run(args)), flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
