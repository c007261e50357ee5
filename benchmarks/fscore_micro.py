"""Time per evaluation of score F (TODS 2017, §4.4) for k = 1..7 parents, numba vs numpy.

Tables are joint counts of random AP pairs (X, Π), |Π| = k, drawn from binary data:
by default a seeded synthetic data set (a latent-class model, which gives correlated
attributes like survey data) at n = 21,574 (NLTCS) and n = 47,461 (ACS); with
``--dat FILE ...`` the rows of whitespace-separated 0/1 files such as nltcs.dat.

    PYTHONPATH=src python benchmarks/fscore_micro.py [--dat nltcs.dat acs.dat] [--tables 200]

Prints one JSON document, then the same numbers as a table.  Times are the best of
``--repeat`` runs, divided by the number of tables; "numba, batched" is ``f_scores``
on all tables at once (parallel over tables); the other columns call the public
per-table function ``min_l1_counts``, validation included.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from privbayes.bayesnet import fscore


def synthetic_rows(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """n rows of d binary attributes from a mixture of 4 product-Bernoulli classes."""
    classes = rng.choice(4, size=n, p=rng.dirichlet(np.ones(4)))
    p_one = rng.beta(0.5, 0.5, size=(4, d))
    return (rng.random((n, d)) < p_one[classes]).astype(np.int64)


def ap_tables(rows: np.ndarray, k: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` joint count tables (2, 2^k) of a random child and k random parents."""
    tables = np.empty((count, 2, 1 << k), dtype=np.int64)
    for t in range(count):
        child, *parents = rng.choice(rows.shape[1], size=k + 1, replace=False)
        cell = rows[:, child] * (1 << k) + rows[:, parents] @ (1 << np.arange(k))
        tables[t] = np.bincount(cell, minlength=2 << k).reshape(2, 1 << k)
    return tables


def best_time(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(source: str, rows: np.ndarray, args: argparse.Namespace) -> list[dict]:
    rng = np.random.default_rng(args.seed)
    records = []
    for k in range(1, 8):
        tables = ap_tables(rows, k, args.tables, rng)
        few = tables[: max(1, args.tables // 5)]  # the numpy path is slower
        record = {"source": source, "n": int(rows.shape[0]), "k": k, "tables": len(tables)}
        expected = [fscore.min_l1_counts(t, use_numba=False) for t in few]
        if fscore.HAVE_NUMBA:
            assert [fscore.min_l1_counts(t, use_numba=True) for t in few] == expected
            fscore.f_scores(tables[:2], use_numba=True)  # compile or load the cache
            single = best_time(lambda: [fscore.min_l1_counts(t, use_numba=True) for t in tables], args.repeat)  # noqa: B023
            batched = best_time(lambda: fscore.f_scores(tables, use_numba=True), args.repeat)  # noqa: B023
            record["numba_us"] = 1e6 * single / len(tables)
            record["numba_batched_us"] = 1e6 * batched / len(tables)
        numpy_time = best_time(lambda: [fscore.min_l1_counts(t, use_numba=False) for t in few], args.repeat)  # noqa: B023
        record["numpy_us"] = 1e6 * numpy_time / len(few)
        record["mean_F"] = float(np.mean(fscore.f_scores(tables)))
        records.append(record)
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dat", nargs="*", type=Path, default=[], help="binary data files (rows of 0/1)")
    parser.add_argument("--tables", type=int, default=200, help="AP pairs per k")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2017)
    args = parser.parse_args()

    if args.dat:
        sources = [(path.name, np.loadtxt(path, dtype=np.int64)) for path in args.dat]
    else:
        rng = np.random.default_rng(args.seed)
        sources = [(f"synthetic d=16 n={n}", synthetic_rows(n, 16, rng)) for n in (21_574, 47_461)]
    records = [record for name, rows in sources for record in measure(name, rows, args)]
    environment = {
        "numba": fscore.numba.__version__ if fscore.HAVE_NUMBA else None,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    print(json.dumps({"environment": environment, "results": records}, indent=1))

    header = ("source", "n", "k", "numba µs", "batched µs", "numpy µs", "mean F")
    print("\n{:<22} {:>6} {:>2} {:>9} {:>10} {:>9} {:>7}".format(*header))
    for r in records:
        numba = (r.get("numba_us", float("nan")), r.get("numba_batched_us", float("nan")))
        print(f"{r['source']:<22} {r['n']:>6} {r['k']:>2} {numba[0]:9.1f} {numba[1]:10.1f}", end=" ")
        print(f"{r['numpy_us']:9.1f} {r['mean_F']:7.3f}")


if __name__ == "__main__":
    main()
