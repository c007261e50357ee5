"""Every hostile input class of issue 27, run through the CLI and measured.

Generates each input in a temporary folder, runs ``python -m privbayes.cli …`` on it under
``/usr/bin/time -v`` (or, where that is missing, a wrapper reporting
``resource.getrusage(RUSAGE_CHILDREN)``), and prints JSON and a table: class, exit code,
stderr line count, traceback yes/no, wall seconds, peak RSS MB, and pass/fail.

A refusal passes when it exits 2 with one stderr line, no traceback, no output file left, in
under 1 s and 200 MB peak RSS.  The time criterion is CPU seconds (user + sys of the command,
interpreter start and imports included), the work the command does whatever the load of the
shared machine; wall seconds are printed beside it, and a first ``floor`` row (``inspect`` of a
missing file: start-up and imports only) shows what the load adds.  A few classes are
accepted inputs whose correct outcome is success (``$…$`` labels, a wide table, a glob-named
file read literally); their criterion is printed in the ``expect`` column.  A watchdog kills a
run above ``--kill-mb`` (default 3000) or ``--timeout`` seconds (default 60), so that the
classes not yet fixed on a branch cannot take the machine down; such a run fails.

The classes are in groups: ``reading`` (input tables: compressed files whose first line
never ends, a decompression bomb, non-UTF-8 text and a 200 KB header on DuckDB, a glob-named
path, Parquet list/struct/binary columns; the counting layer's work) and ``files`` (schemas,
priors, model files, seeds and plot labels), and ``noticed``: found while measuring, not yet
fixed (an MRF file's junction tree is built in time quadratic in its variables).

Usage: python benchmarks/hostile_inputs.py [--only NAME,...] [--group reading|files] [--src DIR] [--keep DIR]
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import itertools
import json
import lzma
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
TIME = Path("/usr/bin/time")
LIMIT_S, LIMIT_MB = 1.0, 200.0
SCHEMA = ("attributes:\n"
          "- {name: a, kind: categorical, categories: [x, y]}\n"
          "- {name: b, kind: categorical, categories: [u, v]}\n")
DATA = "a,b\nx,u\ny,v\nx,v\ny,u\n"


@dataclass
class Case:
    name: str
    group: str  # "reading" or "files"
    what: str
    build: Callable[[Path], list[str]]  # writes the inputs into the folder, returns the CLI arguments
    expect: str = "refuse"  # "refuse", "succeed", or "literal-n1" (exit 0 with n = 1, or a one-line refusal)
    limit_s: float = LIMIT_S
    limit_mb: float = LIMIT_MB
    outputs: list[str] = field(default_factory=list)  # files a success must write


def _base(w: Path) -> None:
    (w / "s.yaml").write_text(SCHEMA)
    (w / "d.csv").write_text(DATA)
    (w / "out").mkdir(exist_ok=True)


def _fit(w: Path, data: str, *extra: str) -> list[str]:
    return ["fit", str(w / data), "--schema", str(w / "s.yaml"), "--epsilon", "1", "--dry-run", *extra]


# --- reading classes (input tables) ---------------------------------------------------------------

ENDLESS_BYTES = 2 * 10**9
"""The never-ending first line expands to 2 GB (the attacker's 403-byte .bz2 gave 5.2 GB)."""


def _endless(kind: str) -> Callable[[Path], list[str]]:
    def build(w: Path) -> list[str]:
        _base(w)
        chunk = b"a" * 10**8
        name = f"endless.csv.{kind}"
        if kind == "zip":  # one entry; deflate is compressed once per chunk, so 1 GB keeps this quick
            with zipfile.ZipFile(w / name, "w", zipfile.ZIP_DEFLATED) as archive:
                with archive.open("endless.csv", "w", force_zip64=True) as member:
                    for _ in range(ENDLESS_BYTES // 2 // len(chunk)):
                        member.write(chunk)
        else:  # concatenated streams/members decompress to their concatenation
            one = {"bz2": bz2.compress, "gz": gzip.compress, "xz": lzma.compress}[kind](chunk)
            (w / name).write_bytes(one * (ENDLESS_BYTES // len(chunk)))
        return _fit(w, name)
    return build


def _gz_rows(w: Path) -> list[str]:
    _base(w)
    with gzip.open(w / "rows.csv.gz", "wb", compresslevel=9) as out:
        out.write(b"a,b\n")
        block = b"x,u\n" * 10**6
        for _ in range(20):  # 20 M rows from ~80 KB
            out.write(block)
    return _fit(w, "rows.csv.gz")


def _non_utf8_duckdb(w: Path) -> list[str]:
    _base(w)
    (w / "latin.csv").write_bytes(b"a,b\nx,u\n\xe9\xff,v\n")
    return _fit(w, "latin.csv", "--backend", "duckdb")


def _wide_header(w: Path) -> list[str]:
    _base(w)
    (w / "header.csv").write_text("a,b," + "h" * 200_000 + "\nx,u,1\n")
    return _fit(w, "header.csv", "--backend", "duckdb")


def _glob_name(w: Path) -> list[str]:
    _base(w)
    (w / "d*.csv").write_text("a,b\nx,u\n")
    (w / "dother.csv").write_text("a,b\ny,v\nx,v\ny,u\n")
    return _fit(w, "d*.csv", "--backend", "duckdb")


def _parquet(kind: str) -> Callable[[Path], list[str]]:
    def build(w: Path) -> list[str]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        _base(w)
        column = {"list": pa.array([["x"], ["y"]], type=pa.list_(pa.string())),
                  "struct": pa.array([{"f": "x"}, {"f": "y"}]),
                  "binary": pa.array([b"x", b"\xff\xfe"], type=pa.binary())}[kind]
        pq.write_table(pa.table({"a": column, "b": pa.array(["u", "v"])}), w / f"{kind}.parquet")
        return _fit(w, f"{kind}.parquet")
    return build


# --- file classes (schemas, priors, model files, seeds, labels) -------------------------------------

def _alias_bomb(prefix: str) -> str:
    items = [f"&{prefix}0 [" + ",".join(["xxxxxxxx"] * 10) + "]"]
    items += [f"&{prefix}{i} [" + ",".join([f"*{prefix}{i - 1}"] * 10) + "]" for i in range(1, 9)]
    return "[" + ", ".join(items) + "]"  # 10^9 strings


def _yaml_bomb(where: str) -> Callable[[Path], list[str]]:
    def build(w: Path) -> list[str]:
        _base(w)
        bomb = _alias_bomb("a")
        first = {"drop": "- {name: a, kind: categorical, categories: [x, y]}\n",
                 "taxonomy": f"- {{name: a, kind: categorical, categories: [x, y], taxonomy: {bomb}}}\n",
                 "kind": f"- {{name: a, kind: {bomb}, categories: [x, y]}}\n"}[where]
        text = "attributes:\n" + first + "- {name: b, kind: categorical, categories: [u, v]}\n"
        (w / "bomb.yaml").write_text(text + (f"drop: {bomb}\n" if where == "drop" else ""))
        return ["fit", str(w / "d.csv"), "--schema", str(w / "bomb.yaml"), "--epsilon", "1", "--dry-run"]
    return build


def _prior_bomb(w: Path) -> list[str]:
    _base(w)
    (w / "prior.yaml").write_text(f"u: {_alias_bomb('p')}\nv: 0.5\n")
    return ["nbc", "publish", str(w / "d.csv"), "--schema", str(w / "s.yaml"), "--class", "b", "--prior",
            str(w / "prior.yaml"), "--r", "2", "-o", str(w / "out" / "views.json")]


def _model(w: Path) -> dict:
    """A small genuine PrivBayes model document to tamper with (fitted in-process, seeded)."""
    _base(w)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    subprocess.run([sys.executable, "-m", "privbayes.cli", "fit", str(w / "d.csv"), "--schema", str(w / "s.yaml"),
                    "--epsilon", "1", "--seed", "1", "-o", str(w / "model.json")], env=env, check=True,
                   capture_output=True)
    return json.loads((w / "model.json").read_text())


def _model_bins(w: Path) -> list[str]:
    doc = _model(w)
    doc["schema"] = {"version": 1, "attributes": [{"name": f"a{i}", "kind": "numeric", "lower": 0, "upper": 1,
                                                   "bins": 2**16} for i in range(300)]}
    (w / "bins.json").write_text(json.dumps(doc))  # ~25 KB
    return ["inspect", str(w / "bins.json")]


def _model_ledger(edit: str) -> Callable[[Path], list[str]]:
    def build(w: Path) -> list[str]:
        doc = _model(w)
        if edit == "exponent":
            doc["ledger"][0]["epsilon_exact"] = "1e99999999"
        elif edit == "parameters":
            doc["parameters"]["epsilon_exact"] = "1e99999999"
        else:
            doc["ledger"][0]["epsilon"] = float("inf")
        (w / "ledger.json").write_text(json.dumps(doc))
        return ["inspect", str(w / "ledger.json")]
    return build


def _domain_lines(w: Path) -> list[str]:
    _base(w)
    (w / "many.domain").write_text("C 0 1000000\n" * 200_000)
    return ["fit", str(w / "d.csv"), "--schema", str(w / "many.domain"), "--epsilon", "1", "--dry-run"]


def _mrf_document(d: int, cliques: list[tuple[int, ...]], inference: str, theta: float) -> dict:
    """A version-1 MRF model document over d binary variables whose ledger is the plan its
    parameters imply (one discrete-Laplace table per clique at ε/m, Δ = 2)."""
    names = [f"v{i}" for i in range(d)]
    m = len(cliques)
    return {"format": "privbayes-mrf", "version": 1,
            "schema": {"version": 1, "attributes": [{"name": n, "kind": "binary"} for n in names]},
            "cliques": [[names[v] for v in c] for c in cliques],
            "parameters": {"epsilon": 1.0, "method": "naive", "relation": "replace-one", "lam": None,
                           "inference": inference, "delta": None},
            "fitted": {"n": 100.0, "seeded": False, "epsilon_spent": 1.0, "delta_spent": 0.0},
            "theta": [{"shape": [2] * len(c), "values": [theta] * 2 ** len(c)} for c in cliques],
            "ledger": [{"step": "clique table " + ",".join(names[v] for v in c), "mechanism": "discrete Laplace",
                        "epsilon": 1 / m, "epsilon_exact": f"1/{m}", "sensitivity": 2.0, "measured": "counts"}
                       for c in cliques]}


def _mrf_exact(w: Path) -> list[str]:
    _base(w)
    (w / "exact.json").write_text(json.dumps(_mrf_document(26, list(itertools.combinations(range(26), 2)),
                                                           "exact", 0.0)))  # ~64 KB: a 2^26-cell junction tree
    return ["sample", str(w / "exact.json"), "-n", "10", "-o", str(w / "out" / "s.csv")]


def _mrf_theta(w: Path) -> list[str]:
    _base(w)
    (w / "theta.json").write_text(json.dumps(_mrf_document(3, [(0, 1), (1, 2)], "auto", 1e308)))
    return ["sample", str(w / "theta.json"), "-n", "10", "-o", str(w / "out" / "s.csv")]


def _mrf_seed(w: Path) -> list[str]:
    _base(w)
    return ["fit", str(w / "d.csv"), "--method", "mrf", "--schema", str(w / "s.yaml"), "--cliques", "a,b",
            "--epsilon", "1", "--seed", "-1", "-o", str(w / "out" / "mrf.json")]


def _nbc_seed(w: Path) -> list[str]:
    _base(w)
    return ["nbc", "publish", str(w / "d.csv"), "--schema", str(w / "s.yaml"), "--class", "b", "--gamma", "2",
            "-o", str(w / "out" / "views.json"), "--synthesize", str(w / "out" / "synth.csv"), "--seed", "-1"]


def _labels(w: Path) -> list[str]:
    _base(w)
    (w / "dollar.yaml").write_text('attributes:\n'
                                   '- {name: "$\\\\foo$", kind: categorical, categories: ["a$b", "$x^$"]}\n'
                                   '- {name: "a$b", kind: categorical, categories: [u, "$v"]}\n')
    rows = ["a$b,u", "$x^$,$v", "a$b,$v", "$x^$,u"] * 10
    (w / "real.csv").write_text("\n".join(["$\\foo$,a$b", *rows]) + "\n")
    (w / "synth.csv").write_text("\n".join(["$\\foo$,a$b", *rows[::-1][:30]]) + "\n")
    return ["evaluate", str(w / "real.csv"), str(w / "synth.csv"), "--schema", str(w / "dollar.yaml"),
            "--no-classifier", "--report", str(w / "out" / "report.html")]


def _wide(w: Path) -> list[str]:
    _base(w)
    d = 600
    names = [f"c{i}" for i in range(d)]
    lines = [",".join(names)] + [",".join(str((r * 7 + j * 3) % 3) for j in range(d)) for r in range(50)]
    (w / "wide.csv").write_text("\n".join(lines) + "\n")
    (w / "wide.json").write_text(json.dumps({"attributes": [{"name": n, "kind": "categorical",
                                                             "categories": [0, 1, 2]} for n in names]}))
    return ["fit", str(w / "wide.csv"), "--schema", str(w / "wide.json"), "--epsilon", "1", "--dry-run"]


def _mrf_chain(w: Path) -> list[str]:
    _base(w)
    (w / "chain.json").write_text(json.dumps(_mrf_document(2000, [(i, i + 1) for i in range(1999)], "auto", 0.0)))
    return ["sample", str(w / "chain.json"), "-n", "10", "-o", str(w / "out" / "s.csv")]


def _floor(w: Path) -> list[str]:
    _base(w)
    return ["inspect", str(w / "missing.json")]


CASES = [
    Case("floor", "baseline", "inspect a missing file: interpreter start and imports only", _floor),
    Case("bz2-endless-line", "reading", "a .csv.bz2 whose first line never ends (2 GB)", _endless("bz2")),
    Case("gz-endless-line", "reading", "a .csv.gz whose first line never ends (2 GB)", _endless("gz")),
    Case("xz-endless-line", "reading", "a .csv.xz whose first line never ends (2 GB)", _endless("xz")),
    Case("zip-endless-line", "reading", "a .csv.zip whose first line never ends (1 GB)", _endless("zip")),
    Case("gz-20M-rows", "reading", "~80 KB .csv.gz that expands to 20 M rows", _gz_rows),
    Case("non-utf8-duckdb", "reading", "non-UTF-8 CSV, --backend duckdb", _non_utf8_duckdb),
    Case("200KB-header-duckdb", "reading", "a 200 KB column name in the header, --backend duckdb (read like any "
         "other name; the note about it shows 80 characters)", _wide_header, expect="succeed"),
    Case("glob-name-duckdb", "reading", "a file named d*.csv next to dother.csv, --backend duckdb", _glob_name,
         expect="literal-n1"),
    Case("parquet-list", "reading", "Parquet list<string> column", _parquet("list")),
    Case("parquet-struct", "reading", "Parquet struct column", _parquet("struct")),
    Case("parquet-binary", "reading", "Parquet binary column, invalid UTF-8", _parquet("binary")),
    Case("yaml-bomb-drop", "files", "schema: 10^9-node alias bomb under drop (<1 KB)", _yaml_bomb("drop")),
    Case("yaml-bomb-taxonomy", "files", "schema: alias bomb as a taxonomy", _yaml_bomb("taxonomy")),
    Case("yaml-bomb-kind", "files", "schema: alias bomb as an attribute's kind", _yaml_bomb("kind")),
    Case("yaml-bomb-prior", "files", "nbc publish --prior: alias bomb", _prior_bomb),
    Case("model-300x2^16-bins", "files", "25 KB model file: 300 attributes of 2^16 bins", _model_bins),
    Case("domain-200k-lines", "files", "2.4 MB .domain file: 200,000 attributes", _domain_lines),
    Case("model-ledger-exponent", "files", "model ledger epsilon_exact '1e99999999'", _model_ledger("exponent")),
    Case("model-params-exponent", "files", "version-3 model parameters epsilon_exact '1e99999999'",
         _model_ledger("parameters")),
    Case("model-ledger-infinity", "files", "model ledger epsilon Infinity", _model_ledger("inf")),
    Case("mrf-exact-inference", "files", "64 KB MRF file requesting exact inference (2^26 cells)", _mrf_exact),
    Case("mrf-theta-1e308", "files", "MRF file with θ = 1e308", _mrf_theta),
    Case("mrf-fit-seed-minus-1", "files", "privbayes fit --method mrf --seed -1 (was mrf fit)", _mrf_seed),
    Case("nbc-publish-seed-minus-1", "files", "privbayes nbc publish --synthesize --seed -1", _nbc_seed),
    Case("dollar-labels-report", "files", "evaluate --report with $…$ names and categories", _labels,
         expect="succeed", limit_s=15.0, limit_mb=400.0, outputs=["report.html"]),
    Case("wide-600-columns", "files", "fit --dry-run on 600 ternary columns (was RecursionError)", _wide,
         expect="succeed", limit_s=3.0),
    Case("mrf-2000-variable-chain", "noticed", "560 KB MRF file, a 2000-variable chain (junction tree built in "
         "O(d^2))", _mrf_chain, expect="succeed", limit_s=3.0, outputs=["s.csv"]),
]


# --- measuring ------------------------------------------------------------------------------------

_WRAPPER = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[2:]); "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "open(sys.argv[1], 'w').write(f'{u.ru_maxrss} {u.ru_utime + u.ru_stime}'); sys.exit(code)")


def _tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants (Linux /proc), for the watchdog."""
    total, stack = 0.0, [pid]
    while stack:
        p = stack.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024 if "VmRSS" in status else 0
            stack.extend(int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split())
        except (OSError, AttributeError, ValueError):
            continue
    return total


def run_case(case: Case, folder: Path, timeout: float, kill_mb: float) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    args = case.build(folder)
    build_s = time.perf_counter() - started
    report = folder / "rusage.txt"
    cli = [sys.executable, "-m", "privbayes.cli", *args]
    command = [str(TIME), "-v", "-o", str(report), *cli] if TIME.exists() else \
        [sys.executable, "-c", _WRAPPER, str(report), *cli]
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    out_file, err_file = (open(folder / name, "w+b") for name in ("stdout.txt", "stderr.txt"))  # no pipe to fill
    process = subprocess.Popen(command, stdout=out_file, stderr=err_file, env=env, cwd=folder, start_new_session=True)
    killed, watched_mb = None, 0.0
    while process.poll() is None:
        watched_mb = max(watched_mb, _tree_rss_mb(process.pid))
        if watched_mb > kill_mb or time.perf_counter() - start > timeout:
            killed = "memory" if watched_mb > kill_mb else "time"
            os.killpg(process.pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    process.wait()
    wall = time.perf_counter() - start
    out, err = (handle.seek(0) or handle.read() for handle in (out_file, err_file))
    out_file.close()
    err_file.close()
    stderr = err.decode("utf-8", "replace")
    stdout = out.decode("utf-8", "replace")
    peak_mb, cpu = watched_mb, None
    if killed is None and report.exists():
        text = report.read_text()
        if TIME.exists():
            peak_mb = max(peak_mb, int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024)
            cpu = sum(float(re.search(rf"{kind} time \(seconds\): ([0-9.]+)", text).group(1))
                      for kind in ("User", "System"))
        else:
            rss_kb, cpu = (float(v) for v in text.split())
            peak_mb = max(peak_mb, rss_kb / 1024)
    lines = [line for line in stderr.splitlines() if line.strip()]
    left = sorted(os.listdir(folder / "out"))
    result = {"case": case.name, "group": case.group, "what": case.what, "expect": case.expect,
              "exit": None if killed else process.returncode, "killed": killed, "stderr_lines": len(lines),
              "traceback": "Traceback (most recent call last)" in stderr, "wall_s": round(wall, 2),
              "cpu_s": None if cpu is None else round(cpu, 2),
              "peak_rss_mb": round(peak_mb, 1), "outputs_left": left,
              "first_stderr_line": (lines[-1] if lines else "")[:200], "build_s": round(build_s, 1),
              "n_read": int(m.group(1)) if (m := re.search(r"\bn = (\d+),", stdout)) else None}
    result["pass"] = _passes(case, result, stdout)
    return result


def _passes(case: Case, r: dict, stdout: str) -> bool:
    within = r["killed"] is None and r["cpu_s"] is not None and r["cpu_s"] < case.limit_s \
        and r["peak_rss_mb"] < case.limit_mb and not r["traceback"]
    refused = r["exit"] == 2 and r["stderr_lines"] == 1 and not r["outputs_left"]
    if case.expect == "refuse":
        return within and refused
    if case.expect == "literal-n1":  # read the one file literally (n = 1), or refuse the name in one line
        return within and (refused or (r["exit"] == 0 and re.search(r"\bn = 1,", stdout) is not None))
    return within and r["exit"] == 0 and all(name in r["outputs_left"] for name in case.outputs)


def main() -> None:
    global SRC  # --src: the checkout whose code runs (the inputs' builders use it too)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--group", choices=["reading", "files", "noticed"], help="run one group only (and the floor)")
    parser.add_argument("--timeout", type=float, default=60.0, help="kill a run after this many seconds")
    parser.add_argument("--kill-mb", type=float, default=3000.0, help="kill a run above this resident memory")
    parser.add_argument("--src", default=str(SRC), help="the privbayes source folder to measure (default: this "
                        "checkout's src; e.g. another worktree's, for a before/after)")
    parser.add_argument("--keep", help="build the inputs in this folder and keep them (default: a temporary one)")
    args = parser.parse_args()
    SRC = Path(args.src).resolve()
    chosen = [c for c in CASES if c.group == "baseline" or ((not args.only or c.name in args.only.split(","))
                                                           and (not args.group or c.group == args.group))]
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hostile_inputs."))
    try:
        rows = [run_case(case, root / case.name, args.timeout, args.kill_mb) for case in chosen]
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    commit = subprocess.run(["git", "-C", str(SRC.parent), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "load": os.getloadavg()[0],
               "measured_with": "/usr/bin/time -v" if TIME.exists() else "getrusage(RUSAGE_CHILDREN)",
               "commit": commit}
    print(json.dumps({"benchmark": "hostile_inputs", "criteria": {"refuse": "exit 2, one stderr line, no traceback, "
                      f"no output left, < {LIMIT_S:g} s CPU (user + sys), < {LIMIT_MB:g} MB peak RSS"},
                      "machine": machine,
                      "results": rows}, indent=1))
    print(f"\n{'class':<26} {'group':<8} {'expect':<10} {'exit':>5} {'lines':>5} {'trace':>5} {'wall s':>7} "
          f"{'CPU s':>6} {'RSS MB':>7}  result")
    for r in rows:
        exit_text = r["exit"] if r["killed"] is None else f"kill:{r['killed']}"
        print(f"{r['case']:<26} {r['group']:<8} {r['expect']:<10} {exit_text!s:>5} {r['stderr_lines']:>5} "
              f"{'yes' if r['traceback'] else 'no':>5} {r['wall_s']:>7.2f} "
              f"{r['cpu_s'] if r['cpu_s'] is not None else '-':>6} "
              f"{r['peak_rss_mb']:>7.0f}  "
              f"{'PASS' if r['pass'] else 'FAIL'}")
    for group in ("baseline", "reading", "files", "noticed"):
        part = [r for r in rows if r["group"] == group]
        if part:
            print(f"{group}: {sum(r['pass'] for r in part)}/{len(part)} pass")


if __name__ == "__main__":
    main()
