"""Sampling benchmark (issue 42): rows/s of streamed sampling to Parquet, by number of workers, beside main's code.

Usage:
  python benchmarks/sampling.py                                     # 10⁷ Adult rows, 10⁸ scale-table rows
  python benchmarks/sampling.py --adult-rows 1e7 --scale-rows 1e8 --workers 1,2 --before ''   # issue 42's acceptance
  python benchmarks/sampling.py --adult-rows 1e7 --scale-rows 1e7 --workers 1,2 --data /tmp/privbayes_sampling
  python benchmarks/sampling.py --before /work/main/src             # main's code, run side by side (the default)
  python benchmarks/sampling.py --adult-rows 0 --scale-rows 1e8 --workers 2 --before ''   # the 10⁸ run alone

Models: the bundled Adult sample fitted once with the default method (``privbayes fit --seed 0``, ε = 1),
and PrivBayes (ε = 1, seeded, as ``benchmarks/scale.py`` fits it) on the 20-column scale table
(``scale.py``'s ``generate``: rows sampled from an Adult model, copies of its columns) of ``--fit-rows``
rows.  Each measurement runs in a fresh process: the model file loaded, then ``sample_to(path, n,
random_state=0)`` to Parquet timed (workers started and joined inside the time), with the CPU seconds of
the writing process and of its workers (less sensitive than wall time to other load) and the file's sha256 (taken
after the timing: files of one model, n and code must be the same whatever the workers).  ``before``: the same
call, with the same numbers of workers, on the code at ``--before``.  The machine is shared, so every row carries
the 1-minute load average before and after.  Prints JSON, then a table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "src" / "privbayes" / "data"

ONE = """
import hashlib, json, os, resource, sys, time
import privbayes
model = privbayes.load(sys.argv[1])
n, workers, out = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
load = os.getloadavg()[0]
start, cpu = time.perf_counter(), time.process_time()
model.sample_to(out, n, random_state=0, progress=False, workers=workers)
seconds = time.perf_counter() - start
workers_cpu = sum(getattr(resource.getrusage(resource.RUSAGE_CHILDREN), f) for f in ("ru_utime", "ru_stime"))
size = os.path.getsize(out)
digest = hashlib.sha256()
with open(out, "rb") as handle:
    for block in iter(lambda: handle.read(1 << 22), b""):
        digest.update(block)
os.unlink(out)
print(json.dumps({"seconds": round(seconds, 2), "rows_per_s": round(n / seconds), "bytes": size,
                  "sha256": digest.hexdigest()[:16],
                  "parent_cpu_s": round(time.process_time() - cpu, 2), "workers_cpu_s": round(workers_cpu, 2),
                  "load_1m": [round(load, 1), round(os.getloadavg()[0], 1)]}))
"""


def fit_models(folder: Path, fit_rows: int) -> dict[str, Path]:
    """The two model files (cached in ``folder``), fitted by this tree's code."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    adult = folder / "adult_default.json"
    if not adult.exists():
        subprocess.run([sys.executable, "-m", "privbayes.cli", "fit", str(ADULT / "adult.csv.gz"), "--schema",
                        str(ADULT / "adult.yaml"), "--epsilon", "1", "--seed", "0", "-o", str(adult)],
                       check=True, env=env, capture_output=True)
    scale = folder / f"scale_d20_n{fit_rows}.json"
    if not scale.exists():
        code = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; import scale; "
                "from privbayes import PrivBayes; "
                "path = scale.generate(int(sys.argv[2]), 20, Path(sys.argv[3])); "
                "PrivBayes(1.0, random_state=0, progress=False).fit(str(path), scale.wide_schema(20)).model_"
                ".save(sys.argv[4])")
        subprocess.run([sys.executable, "-c", code, str(ROOT / "benchmarks"), str(fit_rows), str(folder), str(scale)],
                       check=True, env=env)
    return {"adult (default method)": adult, "scale table d = 20 (privbayes)": scale}


def measure(source: Path, model: Path, n: int, workers: int, folder: Path) -> dict:
    """One timed sampling run in a fresh process."""
    out = folder / f"sampled_{os.getpid()}.parquet"
    done = subprocess.run([sys.executable, "-c", ONE, str(model), str(n), str(workers), str(out)],
                          env={**os.environ, "PYTHONPATH": str(source)}, capture_output=True, text=True, check=False)
    lines = [s for s in done.stdout.splitlines() if s.startswith("{")]
    if not lines:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adult-rows", type=float, default=1e7)
    parser.add_argument("--scale-rows", type=float, default=1e8)
    parser.add_argument("--fit-rows", type=float, default=1e6, help="rows of the scale table the model is fitted on")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--before", default="/work/main/src", help="main's code ('' to skip)")
    parser.add_argument("--data", default="/tmp/privbayes_sampling")
    args = parser.parse_args()
    folder = Path(args.data)
    models = fit_models(folder, int(args.fit_rows))
    rows = []
    for (name, model), n in zip(models.items(), (int(args.adult_rows), int(args.scale_rows))):
        if n <= 0:
            continue
        sources = ([("before", Path(args.before))] if args.before else []) + [("this branch", ROOT / "src")]
        for code, source in sources:
            for workers in map(int, args.workers.split(",")):
                row = {"model": name, "n": n, "code": code, "workers": workers,
                       **measure(source, model, n, workers, folder)}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    for row in rows:
        base = next((r for r in rows if r["model"] == row["model"] and r["code"] == "before"
                     and r["workers"] == row["workers"] and "rows_per_s" in r), None)
        if base is not None and "rows_per_s" in row:
            row["ratio_to_before"] = round(row["rows_per_s"] / base["rows_per_s"], 2)
        if "rows_per_s" in row:
            row["cpu_s_per_million_rows"] = round((row["parent_cpu_s"] + row["workers_cpu_s"]) / row["n"] * 1e6, 3)
            row["same_file_for_all_workers"] = len({r["sha256"] for r in rows if r["model"] == row["model"]
                                                    and r["code"] == row["code"] and "sha256" in r}) == 1
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print(json.dumps({"benchmark": "sampling", "machine": machine, "results": rows}, indent=1))
    print(f"\n{'model':<32} {'n':>10} {'code':<12} {'workers':>7} {'seconds':>8} {'M rows/s':>9} {'× before':>9} "
          f"{'CPU s':>11} {'CPU s/10⁶':>9} {'same file':>9} {'load':>9}")
    for r in rows:
        if "error" in r:
            print(f"{r['model']:<32} {r['n']:>10} {r['code']:<12} {r['workers']:>7}   {r['error']}")
            continue
        print(f"{r['model']:<32} {r['n']:>10} {r['code']:<12} {r['workers']:>7} {r['seconds']:>8.2f} "
              f"{r['rows_per_s'] / 1e6:>9.2f} {r.get('ratio_to_before', ''):>9} "
              f"{r['parent_cpu_s']:>5.1f}+{r['workers_cpu_s']:<5.1f} {r['cpu_s_per_million_rows']:>9.3f} "
              f"{'yes' if r['same_file_for_all_workers'] else 'NO':>9} {'/'.join(map(str, r['load_1m'])):>9}")


if __name__ == "__main__":
    main()
