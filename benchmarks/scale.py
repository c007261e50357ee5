"""Scale benchmark (issue 17): fit and sample time and peak memory per back-end, n × d.

Usage:
  python benchmarks/scale.py --cells numpy:1e5:15,duckdb:1e6:15 [--data /tmp/privbayes_scale] [--timeout 900]
  python benchmarks/scale.py --overhead 1e6      # one 3-way count: our DuckDB back-end vs a bare GROUP BY
  python benchmarks/scale.py --plot results.json  # docs/figures/scale_time.png from saved JSON
  python benchmarks/scale.py --cells duckdb-lim:1e8:20 --kind independent --data /work/scratch/scale  # issue 32
  python benchmarks/scale.py --collect docs/figures/scale_grid.json cells.jsonl run.log ...  # issue 42's grid
  python benchmarks/scale.py --plot docs/figures/scale_grid.json  # docs/figures/scale_grid.png, table, slopes

Data: rows sampled from a PrivBayes model (ε = 1, seeded) fitted on the bundled Adult data
(15 attributes, realistic correlations), written to Parquet in chunks.  Wider tables
(d > 15) add copies of Adult's attributes, each value kept with probability 0.8 and
otherwise replaced by that attribute's value in another row of the chunk, so copies
correlate with their source and with each other.  Each cell (back-end, n, d) runs in a
fresh process: PrivBayes(ε = 1, seeded) fit from the Parquet file (reading, labelling and
counting included), then streaming the same n rows to Parquet; peak RSS is the process's
(for Spark, the Python driver only: the JVM is reported apart when available).
Back-end ``duckdb-lim``: DuckDB with ``memory_limit = 3GB`` (spilling to the data folder) and the
coded distinct rows counted in memory up to a quarter of physical memory (``LOCAL_MEMORY_SHARE``).
Prints JSON and a table; each row carries the table's counting statistics (passes over the rows,
tables counted and summed out: issue 32).  ``--kind independent`` uses files of independently drawn
columns written by DuckDB (mostly distinct rows) instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "src" / "privbayes" / "data"
FIGURES = ROOT / "docs" / "figures"
CHUNK = 10**6


def wide_schema(d: int):
    """Adult's schema and ⌈d/15⌉ − 1 renamed copies of its attributes, cut to d."""
    from privbayes.schema import Schema
    from privbayes.schema.files import load_schema

    base = load_schema(ADULT / "adult.yaml")
    attrs = list(base.attributes)
    copy = 1
    while len(attrs) < d:
        attrs += [dataclasses.replace(a, name=f"{a.name}_{copy}") for a in base.attributes]
        copy += 1
    return Schema(tuple(attrs[:d]))


def generate(n: int, d: int, folder: Path) -> Path:
    """Parquet file of n Adult-like rows over d attributes (cached by name)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privbayes import PrivBayes
    from privbayes.schema.files import load_schema

    path = folder / f"adult_n{n}_d{d}.parquet"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    base = load_schema(ADULT / "adult.yaml")
    model = PrivBayes(1.0, random_state=0, progress=False).fit(ADULT / "adult.csv.gz", base).model_
    schema = wide_schema(d)
    rng = np.random.default_rng(1)
    tmp = path.with_suffix(".tmp")
    writer = None
    for i, first in enumerate(range(0, n, CHUNK)):
        frame = model.sample(min(CHUNK, n - first), random_state=100 + i)
        for attr in schema.attributes[len(base):]:
            source = frame[attr.name.rsplit("_", 1)[0]].to_numpy()
            keep = rng.random(len(frame)) < 0.8
            frame[attr.name] = np.where(keep, source, source[rng.permutation(len(frame))])
        table = pa.Table.from_pandas(frame, preserve_index=False)
        if writer is None:
            writer = pq.ParquetWriter(tmp, table.schema)
        writer.write_table(table.cast(writer.schema))
    writer.close()
    tmp.rename(path)
    return path


def generate_independent(n: int, d: int, folder: Path) -> Path:
    """Parquet file of n rows over ``wide_schema(d)`` whose values are drawn independently per
    column (uniform over each attribute's values or integer range, from a hash of the row number
    and the column), written by DuckDB itself in parallel and out of core: mostly distinct rows
    (issue 32's 10⁸ × 20 cell), so counting cannot lean on repeated rows."""
    import duckdb

    path = folder / f"indep_n{n}_d{d}.parquet"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    columns = []
    for j, attr in enumerate(wide_schema(d).attributes):
        draw = f"hash(i, {j})"
        if attr.kind == "numeric":
            low, high = int(attr.lower), int(attr.upper)
            columns.append(f"CAST({low} + {draw} % {high - low + 1} AS BIGINT) AS \"{attr.name}\"")
        else:
            labels = ", ".join("'" + str(c).replace("'", "''") + "'" for c in attr.categories)
            columns.append(f"[{labels}][1 + CAST({draw} % {len(attr.categories)} AS BIGINT)] AS \"{attr.name}\"")
    tmp = path.with_suffix(".tmp")
    con = duckdb.connect()
    con.execute(f"SET temp_directory = '{folder}'")
    con.execute(f"COPY (SELECT {', '.join(columns)} FROM range({n}) AS t(i)) TO '{tmp}' "
                "(FORMAT PARQUET, ROW_GROUP_SIZE 1000000)")
    con.close()
    tmp.rename(path)
    return path


def cell(backend: str, n: int, d: int, folder: Path, kind: str = "sampled", method: str = "privbayes",
         sample: bool = True) -> dict:
    """One measurement, in this process: ``method`` (a registered name: "privbayes" is ``PrivBayes(1.0)``,
    "adaptive" the default of ``privbayes fit``) fitted at ε = 1, seed 0, through the fit template with the
    cost estimate ``privbayes fit`` prints (recorded beside the measurement), then n rows sampled."""
    from privbayes.synthesizers.registry import method as registered

    path = generate(n, d, folder) if kind == "sampled" else generate_independent(n, d, folder)
    schema = wide_schema(d)
    engine = backend
    if backend == "duckdb-engine":  # count every table in DuckDB, never in memory
        from privbayes.counting import engine as engine_base

        engine_base.LOCAL_MEMORY_SHARE, engine = 0.0, "duckdb"
    if backend == "duckdb-lim":  # DuckDB held to 3 GB (spilling to the data folder), coded rows in memory up to 1/4
        import duckdb

        from privbayes.counting import engine as engine_base

        engine_base.LOCAL_MEMORY_SHARE = 0.25
        engine = duckdb.connect()
        engine.execute(f"SET memory_limit = '3GB'; SET temp_directory = '{folder}'")
    if backend.startswith("spark-cluster"):
        return spark_cluster_cell(backend, n, d, path, schema, method)
    if backend == "spark":
        from privbayes.counting.spark import local_session

        engine = local_session()
        engine.sparkContext.setLogLevel("ERROR")
    load_before = os.getloadavg()[0]  # the machine is shared: record how busy it was
    start, cpu_start = time.perf_counter(), _cpu_s()
    # Fits of 10⁸ rows and more show a progress bar (in a log, a killed run shows how far it got).
    estimator = registered(method).estimator_class()(epsilon=1.0, random_state=0, progress=n >= 10**8)
    opened = estimator.open(str(path), schema, backend=engine)
    table = opened.table  # opened here to read its pass counter
    estimates = []
    opened_s = time.perf_counter() - start

    def printed(cost) -> None:  # as `privbayes fit` prints it, before any table is counted
        estimates.append(cost)
        print(f"privbayes: {cost.describe()}", file=sys.stderr, flush=True)

    model = estimator.fit_opened(opened, on_cost=printed).model_
    fitted, cpu_fitted = time.perf_counter(), _cpu_s()
    stats = getattr(table, "stats", None)
    out = folder / f"synthetic_{backend}_n{n}_d{d}.parquet"
    if sample:
        model.sample_to(out, n, random_state=0, progress=False)
        out.unlink()
    done = time.perf_counter()
    cost = estimates[0] if estimates else None
    return {"backend": backend, "method": method, "n": n, "d": d, "data": kind, "digest": _digest(model),
            "k": model.degree,
            "fit_s": round(fitted - start, 2), "open_s": round(opened_s, 2),
            "counting": None if stats is None else stats.as_dict(),
            "fit_cpu_s": round(cpu_fitted - cpu_start, 2),
            "predicted_s": None if cost is None else round(cost.seconds, 1),
            "predicted_peak_mb": None if cost is None else round(cost.guarded_bytes / 2**20, 1),
            "working_mb": None if cost is None else round(cost.bytes / 2**20, 1),
            "sample_s": round(done - fitted, 2) if sample else None, "peak_rss_mb": round(_peak_mb(), 1),
            "capped": (dict(model.plan.settings).get("children capped", _capped(model, schema))
                       if method == "privbayes" else None),
            "load_1m": [round(load_before, 1), round(os.getloadavg()[0], 1)]}


def spark_cluster_cell(backend: str, n: int, d: int, path: Path, schema, method: str) -> dict:
    """A fit on a two-worker standalone cluster, ``local-cluster[2,1,MB]`` (``spark-cluster`` or
    ``spark-cluster-MB``, default 4,096 MB a worker): a master and two workers in the driver's JVM, each executor
    in its own JVM with its Python workers.  Reports the driver's peak RSS (Python, and its JVM, which hosts the
    master and the workers' daemons) and each executor's (JVM plus its Python workers), from the kernel's
    high-water marks (``VmHWM``) read every second and at the end; no sampling (post-processing, not Spark's)."""
    from privbayes import counting
    from privbayes.counting.spark import start_session
    from privbayes.synthesizers.registry import method as registered

    memory = int(backend.rsplit("-", 1)[1]) if backend.count("-") == 2 else 4096
    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), _cpu_s()
    session = start_session(f"local-cluster[2,1,{memory}]", {"spark.executor.memory": f"{memory * 3 // 4}m",
                                                           "spark.sql.shuffle.partitions": "4"})  # driver: 1 GB
    watch = _ProcessPeaks()
    started = time.perf_counter()
    phases = _OpenPhases()
    try:
        with phases:
            table = counting.open(str(path), schema, backend=session)
        opened = time.perf_counter()
        model = registered(method).estimator_class()(epsilon=1.0, random_state=0).fit(table).model_
        fitted, cpu_fitted = time.perf_counter(), _cpu_s()
        peaks = watch.stop()
    finally:
        app = session.sparkContext.applicationId
        session.stop()
        _remove_worker_logs(app)
    return {"backend": f"spark-cluster[2,1,{memory}]", "n": n, "d": d, "method": method, "digest": _digest(model),
            "k": model.degree, "fit_s": round(fitted - start, 2), "session_s": round(started - start, 2),
            "open_s": round(opened - started, 2), "open_phases_s": phases.seconds(opened - started),
            "counted_in": "driver" if table.local is not None else "executors",
            "counting": table.stats.as_dict(), "fit_cpu_s": round(cpu_fitted - cpu_start, 2),
            "peak_rss_mb": round(_peak_mb(), 1), **peaks,
            "load_1m": [round(load_before, 1), round(os.getloadavg()[0], 1)]}


class _OpenPhases:
    """Where a Spark open's time goes: each column's distinct values (reading the file: one job), labelling them on
    the driver, and the rest — coding the rows in the Python workers and caching the distinct coded rows (one job)."""

    def __init__(self) -> None:
        self.spent = {"distinct": 0.0, "labelling": 0.0}

    def __enter__(self) -> None:
        from privbayes.counting import spark

        self._saved = {name: getattr(spark, name) for name in ("_distinct_columns", "label_distinct")}
        for name, phase in (("_distinct_columns", "distinct"), ("label_distinct", "labelling")):
            setattr(spark, name, self._timed(self._saved[name], phase))

    def __exit__(self, *exc) -> None:
        from privbayes.counting import spark

        for name, function in self._saved.items():
            setattr(spark, name, function)

    def _timed(self, function, phase: str):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[phase] += time.perf_counter() - start
        return timed

    def seconds(self, total: float) -> dict:
        coding = total - sum(self.spent.values())
        return {**{k: round(v, 2) for k, v in self.spent.items()}, "coding_and_cache": round(coding, 2)}


class _ProcessPeaks:
    """Peak RSS (``VmHWM``) of this process's descendants, by role: the driver's JVM, and each executor's JVM with
    its Python workers; polled every second (a process that ends between polls keeps its last reading)."""

    def __init__(self) -> None:
        import threading

        self.peaks: dict[int, tuple[str, int, int]] = {}  # pid -> (role, executor pid or 0, peak kB)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(1.0):
            self._poll()

    def _poll(self) -> None:
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                children.setdefault(ppid, []).append(int(entry.name))
        stack = [(pid, 0) for pid in children.get(os.getpid(), [])]
        while stack:
            pid, executor = stack.pop()
            try:
                cmd = (Path("/proc") / str(pid) / "cmdline").read_bytes()
                status = (Path("/proc") / str(pid) / "status").read_text()
            except OSError:
                continue
            hwm = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM")), 0)
            if b"CoarseGrainedExecutorBackend" in cmd:
                role, executor = "executor_jvm", pid
            elif b"java" in cmd.split(b"\0")[0]:
                role = "driver_jvm" if executor == 0 else "executor_jvm"
            else:
                role = "executor_python" if executor else "driver_child"
            old = self.peaks.get(pid, (role, executor, 0))
            self.peaks[pid] = (role, executor, max(old[2], hwm))
            stack += [(child, executor) for child in children.get(pid, [])]

    def stop(self) -> dict:
        self._poll()
        self._done.set()
        self._thread.join()
        per_executor: dict[int, int] = {}
        for _, executor, kb in self.peaks.values():
            if executor:
                per_executor[executor] = per_executor.get(executor, 0) + kb
        driver_jvm = sum(kb for role, _, kb in self.peaks.values() if role == "driver_jvm")
        return {"driver_jvm_peak_mb": round(driver_jvm / 1024, 1),
                "executor_peak_mb": [round(kb / 1024, 1) for kb in sorted(per_executor.values())],
                "executors_seen": len(per_executor)}


def _remove_worker_logs(app: str) -> None:
    """``local-cluster`` workers keep executor logs in ``$SPARK_HOME/work/<app>``: remove this run's."""
    import shutil

    from pyspark.find_spark_home import _find_spark_home

    work = Path(_find_spark_home()) / "work"
    shutil.rmtree(work / app, ignore_errors=True)
    if work.is_dir() and not any(work.iterdir()):
        work.rmdir()


def _digest(model) -> str:
    """SHA-256 of the model file (the library version left out): equal digests, identical models."""
    import hashlib
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        model.save(Path(folder) / "m.json")
        document = json.loads((Path(folder) / "m.json").read_text())
    document.pop("library_version", None)
    return hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()[:16]


def _capped(model, schema) -> str:
    """The children whose θ-usefulness bound the candidate cap lowered (public inputs only)."""
    from fractions import Fraction

    from privbayes.bayesnet.candidates import cap_settings

    if model.plan.setting("degree") is not None:
        return "fixed degree"
    eps2 = Fraction(model.plan.setting("epsilon2")).limit_denominator(10**6)
    return dict(cap_settings(model.n, model.encoding, eps2, model.plan.setting("theta")))["children capped"]


def _cpu_s() -> float:
    """CPU seconds of this process, all threads (less sensitive than wall time to other load)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def overhead(n: int, folder: Path) -> dict:
    """One 3-way count (age × education × income) on an opened DuckDB table vs a bare GROUP BY on the file."""
    import duckdb

    from privbayes import counting

    path = generate(n, 15, folder)
    schema = wide_schema(15)
    start = time.perf_counter()
    table = counting.open(str(path), schema, backend="duckdb")
    opened = time.perf_counter()
    idx = [schema.names.index(c) for c in ("age", "education", "income")]
    table.counts(idx)
    counted = time.perf_counter()
    local, table.local = table.local, None  # the same count by the engine (GROUP BY on the coded rows)
    table.counts(idx)
    in_engine = time.perf_counter()
    table.local = local
    con = duckdb.connect()
    con.execute(f"SELECT age, education, income, COUNT(*) FROM read_parquet('{path}') GROUP BY ALL").fetchall()
    bare = time.perf_counter()
    return {"n": n, "open_s": round(opened - start, 3), "backend_3way_count_in_memory_s": round(counted - opened, 3),
            "backend_3way_count_in_engine_s": round(in_engine - counted, 3),
            "bare_duckdb_group_by_s": round(bare - in_engine, 3)}


def run_cells(cells: list[tuple[str, int, int]], folder: Path, timeout: float, kind: str = "sampled",
              method: str = "privbayes", sample: bool = True) -> list[dict]:
    rows = []
    for backend, n, d in cells:
        (generate if kind == "sampled" else generate_independent)(n, d, folder)  # outside the timed process
        cmd = [sys.executable, __file__, "--one", f"{backend}:{n}:{d}", "--data", str(folder), "--kind", kind,
               "--method", method] + ([] if sample else ["--no-sample"])
        try:
            done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout)
            line = [s for s in done.stdout.splitlines() if s.startswith("{")]
            rows.append(json.loads(line[-1]) if line else {"backend": backend, "n": n, "d": d,
                                                            "error": (done.stderr.strip().splitlines() or ["?"])[-1]})
        except subprocess.TimeoutExpired:
            rows.append({"backend": backend, "n": n, "d": d, "error": f"over {timeout:.0f} s"})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def plot(rows: list[dict]) -> None:
    """Log-log picture of fit seconds (reading included, sampling not) against n, one line per
    (back-end, d, kind of data); the reference line has slope 1 (linear growth)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    done = [r for r in rows if "fit_s" in r]
    for key in sorted({(r["backend"], r["d"], r.get("data", "sampled")) for r in done}):
        pts = sorted((r["n"], r["fit_s"]) for r in done if (r["backend"], r["d"], r.get("data", "sampled")) == key)
        ax.plot(*zip(*pts), marker="o", label=f"{key[0]}, d = {key[1]}, {key[2]} rows")
    if done:
        n0, t0 = min((r["n"], r["fit_s"]) for r in done)
        top = max(r["n"] for r in done)
        ax.plot([n0, top], [t0, t0 * top / n0], ls=":", color="grey", label="linear in n")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows n")
    ax.set_ylabel("fit seconds (reading included)")
    ax.set_title("PrivBayes ε = 1, 2 cores (load in the JSON)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    FIGURES.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURES / "scale_time.png", dpi=120, bbox_inches="tight")


# --- issue 42's grid: both methods on every back-end, from the queue's JSON lines and the big runs' logs ---

GRID_FIT_FROM = 10**6  # growth is fitted from here up: below it fixed costs (imports, Spark's session) dominate
LOADED = 4.0  # 1-minute load average above twice the 2 cores: wall times inflated, CPU seconds much less so
_TIME_V = {"User time (seconds)": "user_s", "System time (seconds)": "system_s",
           "Elapsed (wall clock) time (h:mm:ss or m:ss)": "wall", "Maximum resident set size (kbytes)": "max_rss_kb",
           "Exit status": "exit"}


def log_cells(path: Path) -> list[dict]:
    """The cells a detached run's log holds: each JSON line ``--one`` printed (found behind the progress bars'
    carriage returns), with its run's start line (``== … start HH:MM:SS load L … code C``), the log's date and the
    ``/usr/bin/time -v`` record that follows it (the whole process, DuckDB included), so that the big cells'
    numbers move from their logs into the grid without being retyped."""
    date = datetime.fromtimestamp(path.stat().st_mtime, UTC).date().isoformat()
    rows: list[dict] = []
    started: dict = {}
    timed: dict | None = None
    for line in path.read_text().splitlines():
        if line.startswith("== ") and " start " in line:
            match = re.search(r" start (\S+)(?: load (\S+))?(?:.* code (\S+))?", line)
            started = {"started": match[1], **({"load_1m": float(match[2])} if match[2] else {}),
                       **({"code": match[3]} if match[3] else {})}
        elif '{"backend"' in line:
            row, _ = json.JSONDecoder().raw_decode(line, line.index('{"backend"'))
            rows.append({**row, "source": {"log": str(path), "date": date, **started}})
        elif line.startswith("\tCommand being timed: "):  # belongs to the last row unless that one has its record
            timed = None if not rows or "time_v" in rows[-1] else rows[-1].setdefault("time_v", {})
            if timed is not None:
                timed["command"] = line.split(": ", 1)[1].strip('"')
        elif timed is not None and line.startswith("\t"):
            label, _, value = line.strip().partition(": ")
            if label in _TIME_V:
                timed[_TIME_V[label]] = value if "wall" in label else float(value) if "." in value else int(value)
    return rows


def collect(out: Path, sources: list[Path]) -> None:
    """The grid's JSON document: rows from JSON-lines files (a measured cell, or a cell named with ``not_run`` or
    ``pending`` and why) and from detached runs' logs (``*.log``, ``log_cells``), in the order given."""
    from privbayes.files.tables import atomic_write_text

    rows: list[dict] = []
    for source in sources:
        if source.suffix == ".log":
            rows += log_cells(source)
        else:
            rows += [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    atomic_write_text(out, json.dumps({"benchmark": "scale_grid", "machine": machine, "results": rows}, indent=1)
                      + "\n")


def _family(backend: str) -> str:
    """The back-end without a local cluster's worker memory: ``spark-cluster[2,1,2048]`` and ``[2,1,6144]`` are
    one line of the grid (two workers of one core each)."""
    return "spark-cluster" if backend.startswith("spark-cluster") else backend


def _grid_lines(rows: list[dict]) -> dict[tuple[str, str], list[dict]]:
    """Measured cells by (method, back-end family), each line sorted by n."""
    lines: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        if "fit_s" in row:
            lines.setdefault((row["method"], _family(row["backend"])), []).append(row)
    return {key: sorted(cells, key=lambda r: r["n"]) for key, cells in sorted(lines.items())}


def _peaks(row: dict) -> tuple[float, float | None]:
    """Peak RSS MB of the process (``time -v``'s when recorded: DuckDB included) or, on a Spark cluster, of the
    driver (Python + JVM); and the executors' total (JVMs and their Python workers), None off a cluster."""
    if "executor_peak_mb" in row:
        return row["peak_rss_mb"] + row["driver_jvm_peak_mb"], sum(row["executor_peak_mb"])
    recorded = row.get("time_v", {}).get("max_rss_kb", 0) / 1024
    return max(row["peak_rss_mb"], recorded), None


def _loaded(row: dict) -> bool:
    return max(row.get("load_1m") or [0.0]) > LOADED


def loglog_slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log y against log x: the exponent b in y ∝ x^b (None below two distinct x)."""
    import numpy as np

    if len({x for x, _ in points}) < 2:
        return None
    x, y = zip(*points)
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def grid_slopes(rows: list[dict], start: int = GRID_FIT_FROM) -> list[dict]:
    """Growth in n per (method, back-end): the fitted exponents of fit wall seconds and, where the process does the
    work (numpy, DuckDB; on Spark the CPU is the JVMs'), fit CPU seconds, over the measured cells with n ≥ start."""
    slopes = []
    for (method, family), cells in _grid_lines(rows).items():
        used = [r for r in cells if r["n"] >= start]
        if len({r["n"] for r in used}) < 2:
            continue
        cpu = loglog_slope([(r["n"], r["fit_cpu_s"]) for r in used]) if not family.startswith("spark") else None
        slopes.append({"method": method, "backend": family, "from": used[0]["n"], "to": used[-1]["n"],
                       "cells": len(used), "time": round(loglog_slope([(r["n"], r["fit_s"]) for r in used]) or 0, 2),
                       "cpu": None if cpu is None else round(cpu, 2)})
    return slopes


def _power(n: int) -> str:
    exponent = len(str(n)) - 1
    if n != 10**exponent:
        return f"{n:,}"
    return "10" + "".join("⁰¹²³⁴⁵⁶⁷⁸⁹"[int(c)] for c in str(exponent))


def _source(row: dict) -> str:
    """Where a cell comes from: a run's log or an earlier JSON file (name, date, start) or the queue (start, UTC)."""
    source = row.get("source")
    if isinstance(source, dict):
        name = Path(source.get("log") or source["file"]).name
        return f"`{name}`, {source['date']} {source.get('started', '')}".strip()
    return f"{source or ''} {row.get('started_utc', '').replace('T', ' ').rstrip('Z')}".strip()


def grid_table(rows: list[dict]) -> str:
    """The grid as docs/scale.md shows it: the measured cells by method, back-end and n (the model file's digest:
    equal digests, identical models), then the cells not run (or still running) with the reason."""
    lines = ["| method | back-end | n | fit s | fit CPU s | peak RSS MB: process or driver / executors | "
             "passes (counted / summed out) | model | load | source |", "|---|---|---:|---:|---:|---|---|---|---|---|"]
    for (method, _), cells in _grid_lines(rows).items():
        for r in cells:
            process, executors = _peaks(r)
            peak = f"{process:,.0f}" + ("" if executors is None else f" / {executors:,.0f}")
            stats = r.get("counting") or {}
            passes = f"{stats['passes']} ({stats['tables_counted']} / {stats['tables_derived']})" if stats else ""
            cpu = f"{r['fit_cpu_s']:,.1f}" + (" (driver)" if r["backend"].startswith("spark") else "")
            load = " / ".join(f"{x:g}" for x in r.get("load_1m") or [])
            fit = f"{r['fit_s']:,.1f}" + (" †" if _loaded(r) else "")
            model = f"`{r['digest'][:8]}`" if r.get("digest") else ""
            lines.append(f"| {method} | {r['backend']} | {_power(r['n'])} | {fit} | {cpu} | {peak} | {passes} "
                         f"| {model} | {load} | {_source(r)} |")
    for r in rows:
        if "fit_s" not in r:
            why = r.get("not_run") or r.get("pending") or r.get("error")
            label = "not run" if "not_run" in r else "pending" if "pending" in r else "failed"
            lines.append(f"| {r['method']} | {r['backend']} | {_power(r['n'])} | {label}: {why} | | | | | | |")
    return "\n".join(lines)


def plot_grid(rows: list[dict], out: Path = FIGURES / "scale_grid.png") -> None:
    """Two log-log panels against n: fit seconds (one line per method and back-end, the fitted growth in the
    legend, a slope-1 guide) and peak RSS (process or Spark driver; squares: a cluster's executors). Hollow
    markers: cells measured at a 1-minute load above ``LOADED``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    colors = {"numpy": "C0", "duckdb": "C1", "spark": "C2", "spark-cluster": "C3"}
    styles = {"adaptive": "-", "privbayes": "--"}
    slopes = {(s["method"], s["backend"]): s for s in grid_slopes(rows)}
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(13, 5))
    for (method, family), cells in _grid_lines(rows).items():
        color, style = colors.get(family, "k"), styles.get(method, ":")
        fitted = slopes.get((method, family))
        growth = "" if not fitted else f": time $n^{{{fitted['time']:.2f}}}$" + (
            "" if fitted["cpu"] is None else f", CPU $n^{{{fitted['cpu']:.2f}}}$") + f" from {_power(fitted['from'])}"
        ns = [r["n"] for r in cells]
        ax_t.plot(ns, [r["fit_s"] for r in cells], color=color, ls=style, label=f"{method}, {family}{growth}")
        peaks = [_peaks(r) for r in cells]
        ax_m.plot(ns, [p[0] for p in peaks], color=color, ls=style)
        executors = [(n, p[1]) for n, p in zip(ns, peaks) if p[1] is not None]
        if executors:
            ax_m.plot(*zip(*executors), color=color, ls=style, marker="s", alpha=0.5)
        for r, (process, _) in zip(cells, peaks):
            face = "none" if _loaded(r) else color
            ax_t.plot(r["n"], r["fit_s"], marker="o", color=color, mfc=face)
            ax_m.plot(r["n"], process, marker="o", color=color, mfc=face)
    measured = [r for cells in _grid_lines(rows).values() for r in cells]
    if measured:
        n0 = min((r["n"] for r in measured if r["n"] >= GRID_FIT_FROM), default=min(r["n"] for r in measured))
        t0 = min(r["fit_s"] for r in measured if r["n"] == n0)
        top = max(r["n"] for r in measured)
        ax_t.plot([n0, top], [t0, t0 * top / n0], ls=":", color="grey", label="slope 1 (linear in n)")
    for ax, label in ((ax_t, "fit seconds, wall (reading included)"),
                      (ax_m, "peak RSS MB")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rows n (d = 20, mostly distinct)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    ax_t.set_title(f"Fit time, ε = 1, 2 cores; hollow: load > {LOADED:g}")
    ax_m.set_title("Peak memory: the process (DuckDB included) or Spark's driver\n"
                   "(local: Python only; cluster: Python + JVM); squares: the cluster's executors (total)", fontsize=10)
    ax_t.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.13), ncol=2)  # below: the lines cross the middle
    ax_m.legend(handles=[Line2D([], [], color=c, label=f) for f, c in colors.items()]
                + [Line2D([], [], color="k", ls=s, label=m) for m, s in styles.items()], fontsize=7)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default="numpy:1e5:15,duckdb:1e5:15")
    parser.add_argument("--one")
    parser.add_argument("--overhead", type=float)
    parser.add_argument("--plot", help="a results JSON: the old scale plot, or the grid's (benchmark scale_grid)")
    parser.add_argument("--collect", help="write the grid's JSON here from the SOURCES (JSON lines, logs)")
    parser.add_argument("sources", nargs="*", type=Path, help="with --collect: .jsonl files and run logs")
    parser.add_argument("--data", default="/tmp/privbayes_scale")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--kind", choices=["sampled", "independent"], default="sampled",
                        help="rows sampled from an Adult model (many repeats) or independent columns (mostly distinct)")
    parser.add_argument("--method", default="privbayes", help="the method fitted (privbayes, adaptive, ...)")
    parser.add_argument("--no-sample", action="store_true", help="fit only (10⁹ rows take long to sample)")
    args = parser.parse_args()
    folder = Path(args.data)
    if args.one:
        backend, n, d = args.one.split(":")
        print(json.dumps(cell(backend, int(float(n)), int(d), folder, args.kind, args.method, not args.no_sample)))
        return
    if args.collect:
        collect(Path(args.collect), args.sources)
        return
    if args.plot:
        document = json.loads(Path(args.plot).read_text())
        if document.get("benchmark") == "scale_grid":
            plot_grid(document["results"])
            print(grid_table(document["results"]))
            print(json.dumps(grid_slopes(document["results"]), indent=1))
        else:
            plot(document["results"])
        return
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    if args.overhead:
        print(json.dumps({"benchmark": "scale_overhead", "machine": machine,
                          "results": overhead(int(args.overhead), folder)}))
        return
    cells = [(b, int(float(n)), int(d)) for b, n, d in (c.split(":") for c in args.cells.split(","))]
    rows = run_cells(cells, folder, args.timeout, args.kind, args.method, not args.no_sample)
    print(json.dumps({"benchmark": "scale", "machine": machine, "results": rows}, indent=1))
    print(f"\n{'backend':<8} {'n':>10} {'d':>4} {'k':>3} {'fit s':>9} {'sample s':>9} {'peak MB':>9} {'load':>11}")
    for r in rows:
        if "error" in r:
            print(f"{r['backend']:<8} {r['n']:>10} {r['d']:>4}   {r['error']}")
        else:
            print(f"{r['backend']:<8} {r['n']:>10} {r['d']:>4} {r['k']:>3} {r['fit_s']:>9.2f} "
                  f"{r['sample_s'] or 0:>9.2f} {r['peak_rss_mb']:>9.1f} {'/'.join(map(str, r.get('load_1m', []))):>11}")
    plot(rows)


if __name__ == "__main__":
    main()
