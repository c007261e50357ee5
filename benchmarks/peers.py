"""PrivBayes side by side with other DP synthesizers on Adult (optional: needs the peers installed).

Peers (each imported lazily; a method whose package is missing gets a "not installed" row):

* ``ours``: ``privbayes.PrivBayes(eps).fit(train, schema).sample(len(train))``.
* ``datasynthesizer``: DataSynthesizer's correlated attribute mode (its own PrivBayes variant,
  PyPI ``DataSynthesizer``): ``DataDescriber.describe_dataset_in_correlated_attribute_mode``
  then ``DataGenerator``.  It gets the same categorical attributes, and the schema's public
  domain (category lists, numeric bounds) so that it does not read them from the data; it
  bins numeric attributes itself (20 equal-width bins).  ``--datasynthesizer-k`` sets the
  degree of its network (default 1; at 2, its example's value, one fit takes ~20 CPU minutes).
* ``mst`` / ``aim``: MST and AIM of SmartNoise Synth (PyPI ``smartnoise-synth``, on private-pgm
  ``mbi`` 1.x), fed our leaf codes (``counting.leaf_codes``) with label transformers fitted on the
  public code range, so their domains are ours.  These are (ε, δ)-DP with SmartNoise's
  default δ = 1e-9; ours and DataSynthesizer claim ε-DP.  Each fit gives two rows: the
  synthesizer's own ``sample`` and ``+sample``, the same model drawn i.i.d. (see
  ``_smartnoise``).  See docs/peers.md for what each peer does with ε and the domain.

Protocol: the bundled Adult (45,222 rows), the 80/20 split of
``train_test_split_indices(n, seed=0)``; every method turns the 36,177 training rows into
as many synthetic rows.  Per (method, ε, repetition): wall time of fit + sample, CPU time
(this process and its waited-for children, so DataSynthesizer's worker pool and JAX threads
count), the average TVD of all 2- and 3-way marginals of the synthetic leaf codes against
the real training codes, and the average misclassification rate on the real test part of
the four Adult SVM targets (TODS 2017, §6.1) trained on the synthetic codes.

Run it in a separate environment that has the peers (see benchmarks/peers_requirements.txt):

    /work/peers-venv/bin/python benchmarks/peers.py [--methods ours,datasynthesizer,mst]
        [--epsilons 0.1,0.4,1.6] [--repeats 3] [--budget 120] [--json out.json] [--markdown table.md]
    /work/peers-venv/bin/python benchmarks/peers.py --merge a.json b.json --markdown table.md

A method stops repeating once its runs at one ε have taken ``--budget`` seconds of wall
time (MST and DataSynthesizer take minutes per run on 2 cores); at least one run is done
per (method, ε).  Prints one JSON document, then a table.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
import warnings
from importlib import metadata, resources
from typing import Callable

import numpy as np
import pandas as pd

from privbayes.counting import leaf_codes
from privbayes.evaluation import PAPER_TARGETS, average_marginal_tvd, svm_misclassification, train_test_split_indices
from privbayes.io import load_schema
from privbayes.schema import Schema

METHODS = ("ours", "datasynthesizer", "mst", "aim")
# Default degree of DataSynthesizer's network.  Its Adult example notebook uses 2, but one fit at
# k = 2 takes about 20 CPU minutes here (its greedy search joins parent values row by row in
# pandas), which alone would break the ~20-minute budget of this benchmark.
DATASYNTHESIZER_K = 1
DATASYNTHESIZER_BINS = 20  # its default histogram size for numeric attributes


class NotInstalled(Exception):
    """The peer's package cannot be imported here."""


# --- data ----------------------------------------------------------------------------------------

def load_adult() -> tuple[Schema, pd.DataFrame, pd.DataFrame]:
    data_dir = resources.files("privbayes") / "data"
    with resources.as_file(data_dir / "adult.yaml") as path:
        schema = load_schema(path)
    with resources.as_file(data_dir / "adult.csv.gz") as path:
        frame = pd.read_csv(path, skipinitialspace=True)
    train_idx, test_idx = train_test_split_indices(len(frame), seed=0)
    return schema, frame.iloc[train_idx].reset_index(drop=True), frame.iloc[test_idx].reset_index(drop=True)


# --- the methods: each returns synthetic leaf codes (n_train × d) --------------------------------

def run_ours(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> np.ndarray:
    from privbayes import PrivBayes

    synthetic = PrivBayes(eps).fit(train, schema).sample(len(train))
    return leaf_codes(synthetic, schema)


datasynthesizer_k = DATASYNTHESIZER_K  # --datasynthesizer-k


def run_datasynthesizer(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> dict:
    try:
        import DataSynthesizer.DataGenerator as generator_module
        from DataSynthesizer.DataDescriber import DataDescriber
        from DataSynthesizer.DataGenerator import DataGenerator
    except ImportError as exc:
        raise NotInstalled(str(exc)) from None
    # Compatibility shim, not a change of method: with k >= 2 its model keys parent values as
    # str(list(tuple)), which under numpy >= 2 reads "[np.int64(3), ...]", and DataGenerator
    # eval()s these keys in a module that never imported numpy as np (NameError).
    generator_module.np = np
    with tempfile.TemporaryDirectory() as tmp:
        data_file, domain_file, description_file = (os.path.join(tmp, f) for f in ("train.csv", "domain.json", "model.json"))
        train.to_csv(data_file, index=False)
        with open(domain_file, "w", encoding="utf-8") as out:
            json.dump({a.name: [str(c) for c in a.categories] for a in schema.attributes if a.kind != "numeric"}, out)
        categorical = {a.name: a.kind != "numeric" for a in schema.attributes}
        describer = DataDescriber(histogram_bins=DATASYNTHESIZER_BINS)
        # It prints its network as it goes; its noise comes from np.random seeded with `seed`
        # (default 0), so each repetition passes its own seed.
        with contextlib.redirect_stdout(io.StringIO()):
            describer.describe_dataset_in_correlated_attribute_mode(
                data_file, k=datasynthesizer_k, epsilon=eps,
                attribute_to_datatype={n: "String" if c else "Integer" for n, c in categorical.items()},
                attribute_to_is_categorical=categorical,
                attribute_to_is_candidate_key={n: False for n in categorical},
                categorical_attribute_domain_file=domain_file,
                numerical_attribute_ranges={a.name: [a.lower, a.upper] for a in schema.attributes if a.kind == "numeric"},
                seed=1000 + rep)
            describer.save_dataset_description_to_file(description_file)
            generator = DataGenerator()
            generator.generate_dataset_in_correlated_attribute_mode(len(train), description_file, seed=1000 + rep)
        synthetic = generator.synthetic_dataset[schema.names]
    return {f"datasynthesizer k={datasynthesizer_k}": (leaf_codes(synthetic, schema),)}


def _smartnoise(name: str) -> Callable[..., dict]:
    """Fit SmartNoise's ``name`` once; sample it as shipped and with i.i.d. sampling.

    As shipped, ``sample`` calls mbi 1.x ``MarkovRandomField.synthetic_data(method="round")``,
    whose stratified rounding ranks the rows of each parent group by row index and so makes
    sibling attributes co-monotone (mbi 2.0 shuffles within groups; smartnoise-synth 1.0.8
    pins mbi < 2).  The ``+sample`` variant draws the same fitted model with
    ``method="sample"`` and then undoes the domain compression and label coding as
    ``sample`` does; its time is the fit plus its own sampling.
    """
    def run(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> dict:
        try:
            from snsynth import Synthesizer
            from snsynth.transform import LabelTransformer
            from snsynth.transform.table import TableTransformer
        except ImportError as exc:
            raise NotInstalled(str(exc)) from None
        # Label transformers fitted on the public code range 0..size-1: the domain is the
        # schema's, not the categories that happen to occur in the private data.
        transformers = []
        for attribute in schema.attributes:
            label = LabelTransformer(nullable=False)
            label.fit(list(range(attribute.size)))
            transformers.append(label)
        np.random.seed(2000 + rep)  # its selection steps and sampling draw from the global np.random
        out = {}
        wall, cpu = time.perf_counter(), _cpu_seconds()
        synthesizer = Synthesizer.create(name, epsilon=eps)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synthesizer.fit(pd.DataFrame(codes, columns=schema.names), transformer=TableTransformer(transformers))
            fit_wall, fit_cpu = time.perf_counter() - wall, _cpu_seconds() - cpu
            synthetic = synthesizer.sample(len(train))
            out[name] = (np.asarray(pd.DataFrame(synthetic).to_numpy(), dtype=np.int64),
                         time.perf_counter() - wall, _cpu_seconds() - cpu)
            wall, cpu = time.perf_counter(), _cpu_seconds()
            drawn = synthesizer.synthesizer.synthetic_data(rows=len(train), method="sample")
            if name == "mst":  # MST compressed rare codes of each attribute into one
                drawn = synthesizer.undo_compress_fn(drawn)
            columns = drawn.df[["col" + str(i) for i in range(len(schema))]]
            rows = [tuple(t[1:]) for t in columns.itertuples()]
            synthetic = synthesizer._transformer.inverse_transform(rows)
            out[name + "+sample"] = (np.asarray(pd.DataFrame(synthetic).to_numpy(), dtype=np.int64),
                                     fit_wall + time.perf_counter() - wall, fit_cpu + _cpu_seconds() - cpu)
        return out
    return run


RUNNERS: dict[str, Callable[..., np.ndarray | dict]] = {
    "ours": run_ours, "datasynthesizer": run_datasynthesizer, "mst": _smartnoise("mst"), "aim": _smartnoise("aim"),
}


# --- measuring -------------------------------------------------------------------------------------

def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def evaluate(synth: np.ndarray, train_codes: np.ndarray, test_codes: np.ndarray, sizes: list[int]) -> dict:
    errors = {t.name: svm_misclassification(synth, test_codes, sizes, t) for t in PAPER_TARGETS["adult"]}
    return {"tvd2": average_marginal_tvd(train_codes, synth, sizes, 2),
            "tvd3": average_marginal_tvd(train_codes, synth, sizes, 3),
            "svm": float(np.mean(list(errors.values()))), "svm_by_target": errors}


def run(methods: list[str], epsilons: list[float], repeats: int, budget: float) -> list[dict]:
    schema, train, test = load_adult()
    sizes = [a.size for a in schema.attributes]
    train_codes, test_codes = leaf_codes(train, schema), leaf_codes(test, schema)
    rows: list[dict] = []
    for method in methods:
        for eps in epsilons:
            spent = 0.0
            for rep in range(repeats):
                if rep > 0 and spent >= budget:
                    break
                row = {"method": method, "epsilon": eps, "repeat": rep}
                wall, cpu = time.perf_counter(), _cpu_seconds()
                try:
                    result = RUNNERS[method](eps, schema, train, train_codes, rep)
                except NotInstalled as exc:
                    rows.append({**row, "status": "not installed", "detail": str(exc)})
                    print(f"{method}: not installed ({exc})", file=sys.stderr)
                    break
                except Exception as exc:  # a peer failing must not stop the others
                    rows.append({**row, "status": "error", "detail": f"{type(exc).__name__}: {exc}"})
                    traceback.print_exc()
                    break
                if not isinstance(result, dict):  # one output, timed here
                    result = {method: (result,)}
                result = {name: value if len(value) == 3 else (value[0], time.perf_counter() - wall, _cpu_seconds() - cpu)
                          for name, value in result.items()}
                spent += time.perf_counter() - wall
                for variant, (synth, seconds, cpu_seconds) in result.items():
                    entry = {**row, "method": variant, "seconds": round(seconds, 2), "cpu_seconds": round(cpu_seconds, 2),
                             "status": "ok", "rows": int(synth.shape[0])}
                    entry.update(evaluate(synth, train_codes, test_codes, sizes))
                    print(f"{variant} eps={eps} rep={rep}: {entry['seconds']:.1f} s, TVD2 {entry['tvd2']:.4f}, "
                          f"TVD3 {entry['tvd3']:.4f}, SVM {entry['svm']:.4f}", file=sys.stderr)
                    rows.append(entry)
            if rows and rows[-1]["status"] == "not installed":
                break
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    """Mean (and spread) per (method, ε), with the ratio of mean wall time to ours at that ε."""
    groups: dict[tuple[str, float], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["method"], r["epsilon"]), []).append(r)
    out = []
    for (method, eps), group in groups.items():
        ok = [r for r in group if r["status"] == "ok"]
        if not ok:
            out.append({"method": method, "epsilon": eps, "runs": 0, "status": group[0]["status"]})
            continue
        entry = {"method": method, "epsilon": eps, "runs": len(ok), "status": "ok"}
        for key in ("seconds", "cpu_seconds", "tvd2", "tvd3", "svm"):
            values = [r[key] for r in ok]
            entry[key] = statistics.fmean(values)
            entry[key + "_sd"] = statistics.stdev(values) if len(values) > 1 else None
        out.append(entry)
    ours = {e["epsilon"]: e for e in out if e["method"] == "ours" and e["status"] == "ok"}
    for e in out:
        base = ours.get(e["epsilon"])
        if e["status"] == "ok" and base:
            e["time_ratio"] = e["seconds"] / base["seconds"]
            e["cpu_ratio"] = e["cpu_seconds"] / base["cpu_seconds"]
    return out


def machine() -> dict:
    cpu = "unknown"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    versions = {}
    for package in ("privbayes", "numpy", "pandas", "scikit-learn", "numba", "DataSynthesizer", "smartnoise-synth",
                    "mbi", "jax", "opendp"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {"cpus": os.cpu_count(), "cpu_model": cpu, "python": platform.python_version(),
            "platform": platform.platform(), "load_average": [round(x, 2) for x in os.getloadavg()],
            "packages": versions}


def _fmt(value: float | None, digits: int, sd: float | None = None) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" + (f" ± {sd:.{digits}f}" if sd is not None else "")


def markdown_table(summary: list[dict]) -> str:
    lines = ["| method | ε | runs | wall s (fit+sample) | × ours | CPU s | × ours | TVD 2-way | TVD 3-way | SVM error |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for e in summary:
        if e["status"] != "ok":
            lines.append(f"| {e['method']} | {e['epsilon']:g} | 0 | {e['status']} | | | | | | |")
            continue
        lines.append(
            f"| {e['method']} | {e['epsilon']:g} | {e['runs']} | {_fmt(e['seconds'], 1, e['seconds_sd'])} | "
            f"{_fmt(e.get('time_ratio'), 1)} | {_fmt(e['cpu_seconds'], 1)} | {_fmt(e.get('cpu_ratio'), 1)} | "
            f"{_fmt(e['tvd2'], 4, e['tvd2_sd'])} | {_fmt(e['tvd3'], 4, e['tvd3_sd'])} | {_fmt(e['svm'], 4, e['svm_sd'])} |")
    return "\n".join(lines)


def write_markdown(path: str, document: dict, table: str) -> None:
    info = document["machine"]
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"Run {document['date']}, {document['total_seconds']:.0f} s in all; {info['cpus']} cores "
                  f"({info['cpu_model']}), Python {info['python']}; load average {info['load_average_at_start']} "
                  f"at start, {info['load_average']} at the end.\n\n")
        out.write("Packages: " + ", ".join(f"{k} {v}" for k, v in info["packages"].items() if v) + "\n\n")
        out.write(table + "\n")


def merge(paths: list[str], markdown: str | None) -> None:
    documents = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            documents.append(json.load(f))
    rows = [r for d in documents for r in d["results"]]
    summary = summarise(rows)
    table = markdown_table(summary)
    print(json.dumps({"benchmark": "peers", "merged": [d["date"] for d in documents], "summary": summary}, indent=1))
    print()
    print(table)
    if markdown:
        with open(markdown, "w", encoding="utf-8") as out:
            for d in documents:
                info = d["machine"]
                methods = sorted({r["method"] for r in d["results"]})
                out.write(f"- {', '.join(methods)}: run {d['date']}, {d['total_seconds']:.0f} s in all; {info['cpus']} cores "
                          f"({info['cpu_model']}), Python {info['python']}; load average {info['load_average_at_start']} "
                          f"at start, {info['load_average']} at the end.\n")
            info = documents[-1]["machine"]
            out.write("\nPackages: " + ", ".join(f"{k} {v}" for k, v in info["packages"].items() if v) + "\n\n")
            out.write(table + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="ours,datasynthesizer,mst", help=f"comma-separated, from {','.join(METHODS)}")
    parser.add_argument("--epsilons", default="0.1,0.4,1.6")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=120.0,
                        help="stop repeating a (method, ε) once its runs took this many wall seconds")
    parser.add_argument("--markdown", help="also write the machine line and the table to this file")
    parser.add_argument("--datasynthesizer-k", type=int, default=DATASYNTHESIZER_K,
                        help="degree k of DataSynthesizer's network (k = 2 costs ~20 CPU minutes per fit)")
    parser.add_argument("--json", help="also write the JSON document to this file")
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="run nothing: combine the results of earlier runs (their JSON output) into one table")
    args = parser.parse_args()
    if args.merge:
        merge(args.merge, args.markdown)
        return
    global datasynthesizer_k
    datasynthesizer_k = args.datasynthesizer_k
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"unknown method(s) {unknown}; choose from {METHODS}")
    started = datetime.datetime.now().astimezone()
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    rows = run(methods, [float(e) for e in args.epsilons.split(",")], args.repeats, args.budget)
    info = machine()
    info["load_average_at_start"] = [round(x, 2) for x in load_before]
    summary = summarise(rows)
    document = {"benchmark": "peers", "dataset": "adult", "date": started.isoformat(timespec="seconds"),
                "total_seconds": round(time.perf_counter() - t0, 1), "machine": info,
                "settings": {"split": "train_test_split_indices(n, seed=0)", "repeats": args.repeats,
                             "budget_seconds": args.budget, "datasynthesizer_k": datasynthesizer_k},
                "summary": summary, "results": rows}
    print(json.dumps(document, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1)
    table = markdown_table(summary)
    print()
    print(table)
    if args.markdown:
        write_markdown(args.markdown, document, table)


if __name__ == "__main__":
    main()
