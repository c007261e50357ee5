"""Shared plumbing for the paper-reproduction scripts (marginals.py, svm.py, best_network.py,
encoding_schemes.py, parameters.py): datasets and their train/test splits, a disk cache of
PrivBayes synthetic tables (so that a fit used by several figures runs once;
``PRIVBAYES_EXPERIMENT_CACHE`` or ``--cache`` sets the folder, ``--cache none`` disables it),
the cost of exhaustive Alg. 2 on all-binary attributes, the shared command-line options
(``--out DIR`` sends a script's CSV/PNG/MD outputs to DIR instead of docs/figures), and CSV,
markdown and plot writing.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import hashlib
import math
import os
import signal
import time
from pathlib import Path

import numpy as np

import privbayes
from privbayes import PrivBayes
from privbayes.counting import leaf_codes
from privbayes.counting.reading import read_frame
from privbayes.evaluation import train_test_split_indices
from privbayes.schema import Attribute, Schema
from privbayes.schema.domainfile import read_domain

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
OUT = Path(__file__).resolve().parents[1] / "docs" / "figures"  # default output folder; reproduce_all reads it
EPSILONS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
OUT_DIR = [OUT]  # where the scripts write (``--out``); see out_dir()


def out_dir() -> Path:
    """The folder the figure scripts write to: docs/figures unless ``--out`` says otherwise."""
    return OUT_DIR[0]


def load(name: str) -> tuple[Schema, object, np.ndarray]:
    """Schema, raw frame and leaf codes of one of the papers' datasets."""
    schema = read_domain(DATA / name / f"{name}.domain")
    frame = read_frame(DATA / name / f"{name}.dat", schema)
    return schema, frame, leaf_codes(frame, schema)


def write_csv(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def mean_by(rows: list[dict], keys: tuple[str, ...], value: str) -> dict[tuple, float]:
    groups: dict[tuple, list[float]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(float(row[value]))
    return {k: float(np.mean(v)) for k, v in groups.items()}


DATASETS = ("nltcs", "acs", "adult", "br2000")
ALPHAS = {"nltcs": (3, 4), "acs": (3, 4), "adult": (2, 3), "br2000": (2, 3)}
PAPER_REPS = 100
CACHE = [Path(os.environ.get("PRIVBAYES_EXPERIMENT_CACHE", "/tmp/privbayes-experiment-cache"))]

_DATA: dict[str, tuple] = {}


def dataset(name: str) -> tuple:
    """(schema, frame, leaf codes) of a dataset, loaded once per process."""
    if name not in _DATA:
        _DATA[name] = load(name)
    return _DATA[name]


def sizes_of(name: str) -> list[int]:
    return [a.size for a in dataset(name)[0].attributes]


def split(name: str, rep: int) -> tuple[np.ndarray, np.ndarray]:
    """The 80/20 train/test split of repetition ``rep`` (seeded by rep: the same for every method)."""
    return train_test_split_indices(len(dataset(name)[2]), seed=rep)


ACS_REPS: list[int | None] = [1]


def reps_for(name: str, reps: int) -> int:
    """Repetitions on dataset ``name``: ``reps``, capped by ``--acs-reps`` on ACS."""
    return min(reps, ACS_REPS[0]) if name == "acs" and ACS_REPS[0] is not None else reps


def fit_seed(rep: int) -> int:
    return 1000 * rep + 7


@functools.cache
def library_fingerprint() -> str:
    """Hash of the installed library's source: cached fits are reused only by the same code
    (a change of the counting order, say, changes which table a seed draws)."""
    digest = hashlib.sha256()
    for path in sorted(Path(privbayes.__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def privbayes_codes(name: str, epsilon: float, rep: int, *, part: str = "full", **params) -> dict:
    """Leaf codes of a PrivBayes synthetic table (as many rows as the input), its degree and
    fit+sample seconds.  ``part`` is "full" (the counting tasks) or "train" (the 80 % training
    split of repetition ``rep``, the SVM tasks).  ``params`` go to :class:`PrivBayes`
    (beta, theta, score, encoding, non_private_phase); None values mean the default.
    Results are cached on disk, keyed by every argument."""
    params = {k: v for k, v in params.items() if v is not None}
    key = "-".join([name, part, f"eps{epsilon:g}", f"rep{rep}"] + [f"{k}={v}" for k, v in sorted(params.items())])
    path = CACHE[0] / library_fingerprint() / f"{key}.npz" if CACHE[0] is not None else None
    if path is not None and path.exists():
        stored = np.load(path)
        return {"codes": stored["codes"], "k": int(stored["k"]), "seconds": float(stored["seconds"]), "cached": True}
    schema, frame, _ = dataset(name)
    if part == "train":
        frame = frame.iloc[split(name, rep)[0]].reset_index(drop=True)
    elif part != "full":
        raise ValueError(f"part ({part!r}) must be 'full' or 'train'")
    start = time.perf_counter()
    params = {"estimation": "paper", **params}  # the TODS 2017 behaviour the figures reproduce
    model = PrivBayes(epsilon, random_state=fit_seed(rep), **params).fit(frame, schema)
    codes = leaf_codes(model.sample(random_state=fit_seed(rep)), schema).astype(np.int16)
    seconds = time.perf_counter() - start
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez_compressed(tmp, codes=codes, k=model.degree_, seconds=seconds)
        tmp.replace(path)
    return {"codes": codes, "k": int(model.degree_), "seconds": seconds, "cached": False}


class TimeLimit(Exception):
    """A run took longer than its time limit (see :func:`time_limit`)."""


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Raise :class:`TimeLimit` inside the block after ``seconds`` (None or 0: no limit; Unix only)."""
    if not seconds:
        yield
        return

    def expired(signum, frame):
        raise TimeLimit(f"over {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def add_common_arguments(parser: argparse.ArgumentParser, reps: int, datasets: tuple[str, ...] = DATASETS,
                         epsilons: tuple[float, ...] = EPSILONS) -> None:
    parser.add_argument("--reps", type=int, default=None, help=f"repetitions per point (default {reps})")
    parser.set_defaults(default_reps=reps)
    parser.add_argument("--paper", action="store_true", help=f"the paper's {PAPER_REPS} repetitions")
    parser.add_argument("--datasets", default=",".join(datasets))
    parser.add_argument("--epsilons", default=",".join(map(str, epsilons)))
    parser.add_argument("--cache", default=None, help="folder of cached PrivBayes tables ('none' disables)")
    parser.add_argument("--acs-reps", type=int, default=1,
                        help="cap on the repetitions on ACS, whose F-score fits take minutes "
                             "(default 1; --paper lifts it)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="folder for the CSV, PNG and markdown outputs (default docs/figures)")


def parse_common(args: argparse.Namespace) -> tuple[list[str], tuple[float, ...], int]:
    if args.cache is not None:
        CACHE[0] = None if args.cache.lower() == "none" else Path(args.cache)
    reps = PAPER_REPS if args.paper else (args.reps if args.reps is not None else args.default_reps)
    ACS_REPS[0] = None if args.paper else args.acs_reps
    OUT_DIR[0] = OUT if args.out is None else Path(args.out)
    return args.datasets.split(","), tuple(float(e) for e in args.epsilons.split(",")), reps


def plot_panels(panels: list[tuple[str, dict[str, tuple[list, list]]]], path: Path, ylabel: str,
                xlabel: str = "ε", logx: bool = True, ncols: int | None = None) -> None:
    """One subplot per (title, {line label: (xs, ys)}), saved as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ncols = ncols or min(4, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4 * ncols, 3.3 * nrows), squeeze=False)
    markers = "osD^v<>px*h"
    for ax, (title, lines) in zip(axes.flat, panels):
        for i, (label, (xs, ys)) in enumerate(lines.items()):
            ax.plot(xs, ys, marker=markers[i % len(markers)], markersize=4, label=label)
        if logx:
            ax.set_xscale("log", base=2)
            xs_all = sorted({x for xs, _ in lines.values() for x in xs})
            ax.set_xticks(xs_all)
            ax.set_xticklabels([f"{x:g}" for x in xs_all], fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def lines_by(means: dict[tuple, float], fixed: tuple, methods: list[str]) -> dict[str, tuple[list, list]]:
    """{method: (εs, means)} from means keyed (*fixed, method, ε)."""
    lines = {}
    for method in methods:
        xs = sorted(e for (*f, m, e) in means if tuple(f) == fixed and m == method)
        if xs:
            lines[method] = (xs, [means[(*fixed, method, e)] for e in xs])
    return lines


_NUMERIC = {"epsilon": float, "value": float, "alpha": int, "rep": int}


def read_rows(path: Path) -> list[dict]:
    """Rows of a CSV written by :func:`common.write_csv`, with the key columns typed again."""
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        for field, cast in _NUMERIC.items():
            if field in row and row[field] != "":
                row[field] = cast(row[field])
    return rows


def merge_rows(path: Path, rows: list[dict], fields: tuple[str, ...]) -> list[dict]:
    """Write ``rows`` to ``path``, keeping the rows already there whose ``fields`` values
    were not produced by this run (so a figure can be filled in by several partial runs);
    returns everything now in the file."""
    produced = {tuple(r[f] for f in fields) for r in rows}
    kept = [r for r in read_rows(path) if tuple(r[f] for f in fields) not in produced]
    merged = kept + rows
    columns = list(dict.fromkeys(c for r in merged for c in r))
    merged = [{c: r.get(c, "") for c in columns} for r in merged]
    if merged:
        write_csv(merged, path)
    return merged


def fmt(value: float | None, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def fit_rows(name: str, part: str) -> int:
    """Rows PrivBayes is fitted on: the whole dataset ("full") or repetition 0's 80 % training
    part ("train"; every repetition's training part has the same size)."""
    return len(split(name, 0)[0]) if part == "train" else len(dataset(name)[2])


def alg2_cost(n: int, d: int, epsilon: float, beta: float, theta: float) -> tuple[int, int]:
    """(k, number of AP-pair candidates exhaustive Alg. 2 scores) for ``d`` binary attributes and
    ``n`` rows: k from Lemma 4.8 at ε2 = (1 − β)ε (at most d − 1), and Σ_t (d − t)·C(t, k)
    candidates over the steps t = 1 … d − 1 (0 when k = 0)."""
    schema = Schema(tuple(Attribute(f"b{j}", "binary") for j in range(d)))
    k = PrivBayes(epsilon, beta=beta, theta=theta).plan(n, schema).setting("degree")
    return k, (0 if k == 0 else sum((d - t) * math.comb(t, min(k, t)) for t in range(1, d)))


def runs_per_point(rows: list[dict], keys: tuple[str, ...] = ("dataset",), sort: bool = False) -> str:
    """The number of repetitions on file per value of ``keys``, as in "nltcs: 2; adult: 2"."""
    runs: dict[tuple, set] = {}
    for r in rows:
        runs.setdefault(tuple(r[k] for k in keys), set()).add(r["rep"])
    items = sorted(runs.items()) if sort else runs.items()
    return "; ".join(f"{' '.join(key)}: {len(v)}" for key, v in items)


def datasets_in(rows: list[dict], order) -> list[str]:
    """The datasets of ``order`` that have rows, in that order."""
    return [name for name in order if any(r["dataset"] == name for r in rows)]


def write_summary(text: str, filename: str) -> None:
    """Write a script's markdown summary to the output folder and print it."""
    (out_dir() / filename).write_text(text)
    print(text)
