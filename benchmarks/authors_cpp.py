"""The authors' C++ PrivBayes (TODS 2017 release) as a benchmark peer: build it, run one fit + sample.

The authors' release (SourceForge, mirrored as ``journalprivacyconfidentiality/privbayes-nist-jpc``)
ships only drivers that loop over six ε and repetitions and score marginals, so one fit cannot be
timed with them.  This module exports their sources (``code/*.cpp``, ``code/*.h``, untouched) from a
local bare mirror with ``git archive`` into a build directory outside the project, adds a short
driver of our own (``DRIVER`` below: read the table as their ``table(prefix, true)`` does, run
their ``bayesian(eng, tbl, epsilon, theta)``, whose constructor learns the network with half of ε,
adds Laplace noise with the other half and samples as many rows as the input, then optionally
write the synthetic rows as integer codes), and compiles it with ``g++ -O2 -std=c++11
-include cmath`` (the release has no makefile).  ``peers_run`` is benchmarks/peers.py's runner.

Their ``.domain`` files have CRLF line ends, and their parser (written for Windows, whose text
mode drops the CR) keeps the CR in the last category of each ``D`` line on Linux, which turns
every such value into code 0 and, after a trailing space, adds a spurious category.  The
prepared input directory therefore holds a copy of ``NAME.domain`` with LF line ends and a
symlink to ``NAME.dat`` (the data are read in place, never copied).

Output codes (``out=``): one row per line, space-separated ints, the authors' leaf codes:
categories in order of appearance in the ``.domain`` line (our leaf order), numeric attributes
as their 16-bin index ``int((v - min) / (step + 1e-8))``: a value exactly on an inner bin
boundary (e.g. hours-per-week = 50) falls one bin lower than in our ``floor`` binning.

    python benchmarks/authors_cpp.py [--data adult,nltcs,acs,br2000] [--epsilons 0.1,0.4,1.6]
        [--runs 10] [--warmup 1] [--json out.json]

The CLI times whole processes, alternating A (the C++ driver) and B (our CLI:
``privbayes fit NAME.dat --schema NAME.domain --epsilon E -o model.json && privbayes sample
model.json -n N -o out.csv``), and prints each median and the median of the pairwise ratios,
with the load average at each measurement.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIRROR = os.environ.get("AUTHORS_CPP_MIRROR",
                        "/work/.mirror/journalprivacyconfidentiality+privbayes-nist-jpc/repo")
DATA = Path(os.environ.get("PRIVBAYES_DATA", "/work/shared/data"))
CACHE = Path(os.environ.get("AUTHORS_CPP_CACHE", Path(tempfile.gettempdir()) / "privbayes-authors-cpp"))
SOURCES = ("methods.cpp", "noise.cpp", "table.cpp", "translator.cpp")  # printer.cpp: libsvm output only
# -include cmath: their headers use log2/pow/abs(double) without <cmath>, which MSVC (their
# compiler: see the CRLF files) pulls in transitively and g++ does not; their sources stay untouched.
FLAGS = ("-O2", "-std=c++11", "-include", "cmath", "-w")

# Our driver (not the authors' code): argv = prefix epsilon theta seed [out]; seed < 0 draws one
# from std::random_device as their main_marginal.cpp does.  Phase times go to stderr as JSON.
DRIVER = r"""
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include "methods.h"

static double since(std::chrono::steady_clock::time_point t0) {
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char* argv[]) {
	if (argc < 5) { std::cerr << "usage: driver prefix epsilon theta seed [out]" << std::endl; return 2; }
	const std::string prefix = argv[1];
	const double epsilon = std::stod(argv[2]), theta = std::stod(argv[3]);
	const long long seed = std::stoll(argv[4]);
	std::cout.rdbuf(nullptr);  // their greedy() prints the network as it goes
	std::random_device rd;
	engine eng(seed < 0 ? rd() : (unsigned) seed);
	auto t0 = std::chrono::steady_clock::now();
	table tbl(prefix, true);  // true: as their main_marginal.cpp (score R, sensitivity 6/n)
	const double read_s = since(t0);
	auto t1 = std::chrono::steady_clock::now();
	bayesian model(eng, tbl, epsilon, theta);  // greedy(eps/2), addnoise(eps/2), sampling(n)
	const double fit_sample_s = since(t1);
	auto t2 = std::chrono::steady_clock::now();
	if (argc > 5) {
		std::ofstream out(argv[5]);
		for (const auto& row : model.syn.data) {
			for (size_t j = 0; j < row.size(); j++) out << (j ? " " : "") << row[j];
			out << '\n';
		}
	}
	size_t degree = 0;
	for (const auto& dep : model.model) degree = std::max(degree, dep.p.size());
	std::fprintf(stderr, "{\"read_s\": %.4f, \"fit_sample_s\": %.4f, \"write_s\": %.4f, \"n\": %d, "
		"\"rows\": %zu, \"max_parents\": %zu}\n", read_s, fit_sample_s, since(t2), tbl.size(),
		model.syn.data.size(), degree);
	return 0;
}
"""


def _mirror_commit() -> str:
    return subprocess.run(["git", "-C", MIRROR, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


def build() -> Path:
    """Export the authors' sources, add our driver, compile once per (commit, driver, flags); the binary."""
    commit = _mirror_commit()
    stamp = hashlib.sha256("\n".join((commit, DRIVER, *FLAGS)).encode()).hexdigest()[:12]
    directory = CACHE / f"build-{stamp}"
    binary = directory / "driver"
    if binary.is_file():
        return binary
    directory.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", MIRROR, "archive", "--format=tar", commit, "code"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
    (directory / "code" / "driver.cpp").write_text(DRIVER, encoding="utf-8")
    partial = directory / "driver.partial"
    subprocess.run(["g++", *FLAGS, "-o", str(partial), *SOURCES, "driver.cpp"], cwd=directory / "code", check=True)
    partial.replace(binary)  # atomic: a half-built binary is never picked up
    return binary


def prepare(dataset: str, dat: str | os.PathLike | None = None, domain: str | os.PathLike | None = None) -> str:
    """The prefix their ``table`` reads (``prefix + ".dat"``/``".domain"``) for one dataset.

    ``dat``/``domain`` default to ``$PRIVBAYES_DATA/NAME/NAME.{dat,domain}``.  The domain is copied
    with LF line ends (see the module docstring); the data file is symlinked, not copied."""
    dat = Path(dat or DATA / dataset / f"{dataset}.dat").resolve()
    domain = Path(domain or DATA / dataset / f"{dataset}.domain")
    text = "\n".join(line.rstrip("\r") for line in domain.read_text(encoding="utf-8").splitlines()) + "\n"
    key = hashlib.sha256(f"{dat}\n{text}".encode()).hexdigest()[:12]
    directory = CACHE / f"input-{dataset}-{key}"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{dataset}.domain").write_text(text, encoding="utf-8")
    link = directory / f"{dataset}.dat"
    if not link.is_symlink():
        link.symlink_to(dat)
    return str(directory / dataset)


def command(dataset: str, epsilon: float, theta: float = 4.0, seed: int = -1, out: str | None = None,
            prefix: str | None = None) -> list[str]:
    """The argv of one C++ fit + sample (builds the driver if needed)."""
    return [str(build()), prefix or prepare(dataset), repr(epsilon), repr(theta), str(seed), *([out] if out else [])]


def run(dataset: str, epsilon: float, theta: float = 4.0, seed: int = -1, out: str | None = None,
        prefix: str | None = None) -> float:
    """Wall seconds of one whole C++ process: read the table, fit (ε/2 network, ε/2 noise), sample n rows."""
    argv = command(dataset, epsilon, theta, seed, out, prefix)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def synthesize(dat: str, domain: str, epsilon: float, theta: float = 4.0, seed: int = -1):
    """For benchmarks/peers.py: (synthetic codes n × d, wall s, CPU s, the driver's phase times)."""
    import numpy as np

    with tempfile.TemporaryDirectory(prefix="authors-cpp-") as tmp:
        out = os.path.join(tmp, "synthetic.txt")
        argv = command(Path(dat).stem, epsilon, theta, seed, out, prepare(Path(dat).stem, dat, domain))
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        stderr = process.stderr.read().decode()
        process.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"authors' driver failed: {stderr.strip()[-300:]}")
        codes = np.loadtxt(out, dtype=np.int64, ndmin=2)
    return codes, wall, usage.ru_utime + usage.ru_stime, json.loads(stderr.strip().splitlines()[-1])


def domain_of(schema) -> Path:
    """The authors' ``.domain`` file whose schema is ``schema`` (one of the paper's four datasets)."""
    from privbayes.schema.domainfile import read_domain

    for name in ("adult", "nltcs", "acs", "br2000"):
        path = DATA / name / f"{name}.domain"
        if path.is_file() and read_domain(path) == schema:
            return path
    raise LookupError("authors-cpp runs only on the paper's datasets (their .domain files)")


def peers_run(eps: float, schema, train, codes, rep: int) -> dict:
    """benchmarks/peers.py's runner: the training rows written as a ``.dat`` (before the clock
    starts), then one C++ process (read, fit, sample ``len(train)`` rows, write codes), timed whole.
    θ = 4 and the authors' β = 1/2 (their ``bayesian`` constructor has no β)."""
    domain = domain_of(schema)
    with tempfile.TemporaryDirectory(prefix="authors-cpp-train-") as tmp:
        dat = os.path.join(tmp, f"{domain.stem}.dat")
        train.to_csv(dat, sep=" ", header=False, index=False)
        synthetic, wall, cpu, _ = synthesize(dat, str(domain), eps, theta=4.0, seed=3000 + rep)
    if synthetic.shape != codes.shape:
        raise RuntimeError(f"authors' driver returned {synthetic.shape} codes for {codes.shape} rows")
    return {"authors-cpp": (synthetic, wall, cpu)}


# --- the side-by-side CLI ------------------------------------------------------------------------

def ours_command(dataset: str, epsilon: float, tmp: str, privbayes: str) -> list[str]:
    """What a user runs: fit from the .dat with the authors' .domain, then sample n rows to CSV."""
    with open(DATA / dataset / f"{dataset}.dat", "rb") as rows:  # n is public in PrivBayes (TODS 2017, Def. 2.1)
        n = sum(1 for _ in rows)
    model, out = os.path.join(tmp, f"{dataset}.json"), os.path.join(tmp, f"{dataset}.csv")
    fit = [privbayes, "fit", str(DATA / dataset / f"{dataset}.dat"), "--schema",
           str(DATA / dataset / f"{dataset}.domain"), "--epsilon", repr(epsilon), "-o", model]
    sample = [privbayes, "sample", model, "-n", str(n), "-o", out]
    return ["sh", "-c", f"{shlex.join(fit)} && {shlex.join(sample)}"]


def _time(argv: list[str]) -> tuple[float, float]:
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{shlex.join(argv)[:200]} failed")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def side_by_side(a: list[str], b: list[str], runs: int, warmup: int) -> dict:
    """A and B in turn (A B A B …) after ``warmup`` unpaired rounds; medians and the pairwise ratio B/A."""
    for _ in range(warmup):
        _time(a), _time(b)
    pairs = [(_time(a), _time(b)) for _ in range(runs)]
    ratios = [p[1][0] / p[0][0] for p in pairs]

    def med(values) -> float:
        return round(statistics.median(values), 3)
    return {"cpp_wall_s": med(p[0][0] for p in pairs), "cpp_cpu_s": med(p[0][1] for p in pairs),
            "ours_wall_s": med(p[1][0] for p in pairs), "ours_cpu_s": med(p[1][1] for p in pairs),
            "ours_over_cpp": med(ratios), "ratio_min_max": [round(min(ratios), 3), round(max(ratios), 3)],
            "runs": runs, "load_average": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="adult")
    parser.add_argument("--epsilons", default="0.1")
    parser.add_argument("--theta", type=float, default=4.0)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--privbayes", default=str(Path(sys.executable).with_name("privbayes")),
                        help="our CLI (default: next to this Python)")
    parser.add_argument("--json", help="also write the JSON document here")
    args = parser.parse_args()
    binary = build()
    rows = []
    with tempfile.TemporaryDirectory(prefix="authors-cpp-bench-") as tmp:
        for dataset in args.data.split(","):
            for eps in (float(e) for e in args.epsilons.split(",")):
                cpp = command(dataset, eps, args.theta, out=os.path.join(tmp, "cpp.txt"))
                ours = ours_command(dataset, eps, tmp, args.privbayes)
                rows.append({"dataset": dataset, "epsilon": eps, "theta": args.theta,
                             **side_by_side(cpp, ours, args.runs, args.warmup)})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    document = {"benchmark": "authors_cpp", "driver": str(binary), "compiler": f"g++ {' '.join(FLAGS)}",
                "mirror_commit": _mirror_commit(), "cpus": os.cpu_count(), "results": rows}
    print(json.dumps(document, indent=1))
    print(f"\n{'dataset':<8} {'eps':>5} {'C++ s':>7} {'ours s':>7} {'ours/C++':>9} {'(min-max)':>13} {'load':>6}")
    for r in rows:
        print(f"{r['dataset']:<8} {r['epsilon']:>5g} {r['cpp_wall_s']:>7.2f} {r['ours_wall_s']:>7.2f} "
              f"{r['ours_over_cpp']:>9.2f} {r['ratio_min_max'][0]:>6.2f}-{r['ratio_min_max'][1]:<6.2f} "
              f"{r['load_average'][0]:>6.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
