"""The ``privbayes`` command line: parses, calls the library, prints.  User mistakes are one line."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from typing import Callable, Iterator, Sequence

from privbayes.errors import InferredDomainWarning, InputError
from privbayes.validation import check_epsilon


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _seed(text: str) -> int:
    from privbayes.validation import SEED_BOUND

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed in [0, 2^63), got {text!r}") from None
    if not 0 <= value < SEED_BOUND:
        raise argparse.ArgumentTypeError(f"expected an integer seed in [0, 2^63), got {value}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _table_options(command: argparse.ArgumentParser, model_encoding: bool = False) -> None:
    """--sep and --encoding (--file-encoding where --encoding names the model's attribute encoding),
    on every command that reads a table."""
    command.add_argument("--sep", help="CSV column separator, e.g. ';' or '\\t' (default: detected from the header "
                                       "line only)")
    names = ("--file-encoding",) if model_encoding else ("--encoding", "--file-encoding")
    command.add_argument(*names, dest="text_encoding", default="utf-8", metavar="ENCODING",
                         help="text encoding of CSV files (default utf-8; e.g. latin-1)")


def _parser() -> argparse.ArgumentParser:
    from privbayes._version import __version__

    parser = argparse.ArgumentParser(prog="privbayes", description="Differentially private synthetic data with "
                                     "PrivBayes (Zhang et al., ACM TODS 2017).")
    parser.add_argument("--version", action="version", version=f"privbayes {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    fit = commands.add_parser("fit", help="learn a private model of a table (CSV, compressed CSV, Parquet)")
    fit.add_argument("data", help="input table: .csv with a header (also .csv.gz/.bz2/.xz/.zip), .parquet, or .dat")
    fit.add_argument("--schema", help="the public description of the columns (.yaml/.json, or the authors' .domain)")
    fit.add_argument("--infer-schema", action="store_true",
                     help="read the columns' description from the data itself (NOT covered by the privacy budget; "
                          "recorded in the privacy report)")
    fit.add_argument("--epsilon", type=_number, required=True,
                     help="privacy budget: smaller is more private and noisier (ε > 0; 1 is a common choice)")
    fit.add_argument("--beta", type=_number, default=0.3,
                     help="share of the budget spent on choosing which columns depend on which (β, default 0.3)")
    fit.add_argument("--theta", type=_number, default=4.0,
                     help="how much signal each released table must keep over the noise; higher gives simpler "
                          "models (θ-usefulness, default 4)")
    fit.add_argument("--score", choices=["I", "R", "F"],
                     help="how column dependencies are scored (score function: I mutual information, R, F; "
                          "default F for binary data, else R)")
    fit.add_argument("--encoding", choices=["vanilla", "hierarchical", "binary", "gray"],
                     help="how columns become model variables (encoding; default hierarchical with taxonomies, "
                          "else vanilla)")
    fit.add_argument("--degree", type=int, help="fixed number of parents per column (network degree k) instead "
                                                "of choosing it from θ")
    fit.add_argument("--seed", type=_seed, help="seed the DP noise (reproducible experiments only)")
    fit.add_argument("--dry-run", action="store_true",
                     help="print the budget plan (every paid release and its ε) and stop; reads only n "
                          "(under add/remove, n is private: reads nothing; see --assume-n)")
    fit.add_argument("--assume-n", type=_positive_int, metavar="N",
                     help="with --dry-run under add/remove neighbours: show the plan at this table size (public)")
    fit.add_argument("--show-invalid", action="store_true",
                     help="when values are refused, print up to 5 of their row numbers (locally; never the values)")
    fit.add_argument("-o", "--output", help="model file to write (JSON); required unless --dry-run")
    _table_options(fit, model_encoding=True)
    from privbayes.synthesizers import sa_cli

    sa_cli.add_arguments(fit)
    fit.add_argument("--estimation", choices=["projected", "paper", "consistent"],
                     help="how the noisy tables become the model, all at the same ε: consistent (default; one model "
                          "fitted to all tables, Private-PGM objective), projected (each table projected onto "
                          "the simplex; fastest) or paper (clip negatives and normalise, TODS 2017)")
    fit.add_argument("--neighbours", choices=["replace-one", "add-remove"],
                     help="the neighbouring relation of the guarantee: replace-one (default; TODS 2017, n public) or "
                          "add-remove (n private, as MST/AIM; score R; 1%% of ε buys a noisy count)")
    fit.add_argument("--backend", choices=["numpy", "duckdb", "spark", "auto"], default="numpy",
                     help="where to count: in memory (numpy), DuckDB (out of core, privbayes[duckdb]) or Spark "
                          "(privbayes[spark]); auto = DuckDB for files larger than 1/16 of memory")

    sample = commands.add_parser("sample", help="draw synthetic rows from a model file (never reads the data)")
    sample.add_argument("model")
    sample.add_argument("-n", type=_positive_int, required=True, help="number of rows")
    sample.add_argument("-o", "--output", required=True, help="output table (.csv or .parquet)")
    sample.add_argument("--seed", type=_seed, help="seed for sampling")
    sample.add_argument("--bin-labels", action="store_true", help="numeric attributes as bin labels, not values")

    inspect = commands.add_parser("inspect", help="print a model's dependencies (network) and privacy ledger")
    inspect.add_argument("model")
    inspect.add_argument("--json", action="store_true", help="print the privacy report as JSON")

    schema = commands.add_parser("schema", help="schema tools")
    schema_commands = schema.add_subparsers(dest="schema_command", required=True)
    infer = schema_commands.add_parser("infer", help="draft a commented schema from data (NOT private: review it)")
    infer.add_argument("data")
    infer.add_argument("-o", "--output", required=True, help="schema draft to write (.yaml, with comments; or .json)")
    infer.add_argument("--bins", type=_positive_int, default=16, help="bins per numeric column (default 16)")
    infer.add_argument("--max-categories", type=_positive_int, default=64,
                       help="text columns with more distinct values are proposed as dropped (default 64)")
    _table_options(infer)

    evaluate = commands.add_parser("evaluate", help="compare a synthetic table with the real one and give a verdict "
                                   "(TODS 2017 §6.1)")
    evaluate.add_argument("real", help="the real table (.csv or .parquet)")
    evaluate.add_argument("synth", help="the synthetic table (.csv or .parquet)")
    evaluate.add_argument("--schema", help="public schema (default: the --model's schema)")
    evaluate.add_argument("--model", help="model file: adds the network and the privacy ledger to the report")
    evaluate.add_argument("--report", help="write a self-contained HTML report (needs privbayes[eval])")
    evaluate.add_argument("--alpha", default="2,3", help="α of the α-way marginal sets Qα (default 2,3)")
    evaluate.add_argument("--target", action="append", default=[], metavar="COLUMN=VALUE",
                          help="classifier check target, e.g. income='>50K' or age>=20 (repeatable; default: "
                               "the last categorical column's most frequent value) (the paper's SVM task)")
    evaluate.add_argument("--no-classifier", action="store_true", help="skip the classifier check")
    evaluate.add_argument("--seed", type=_seed, default=0, help="seed of the 80/20 split for the SVM task (default 0)")
    evaluate.add_argument("--show-invalid", action="store_true",
                          help="when values are refused, print up to 5 of their row numbers (locally; never the values)")
    _table_options(evaluate)

    demo = commands.add_parser("demo", help="run PrivBayes on the bundled Adult data at ε = 1")
    demo.add_argument("-o", "--output", default="adult_synthetic.csv", help="where to write the synthetic CSV")
    demo.add_argument("--epsilon", type=_number, default=1.0)

    from privbayes.nbc.cli import add_commands as add_nbc_commands

    add_nbc_commands(commands)
    from privbayes.undirected.cli import add_commands as add_mrf_commands

    add_mrf_commands(commands)
    return parser


def _table(args: argparse.Namespace, path: str) -> object:
    """A path with the command's --sep/--encoding (Parquet and .dat ignore them)."""
    from privbayes.counting.reading import TableFile

    sep = {"\\t": "\t", "tab": "\t"}.get(args.sep, args.sep) if args.sep else None
    return TableFile(path, sep, args.text_encoding)


def _writable(path: str | None, what: str, suffixes: tuple[str, ...] = ()) -> None:
    """Check an output path before any work: known suffix, existing writable folder, not a folder."""
    import os

    if path is None:
        return
    if suffixes and not path.lower().endswith(suffixes):
        raise InputError(f"{path}: the {what} must end in {' or '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{path}: the folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder; give a file name for the {what}")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InputError(f"{path}: cannot write the {what} there (permission denied)")


def _fit(args: argparse.Namespace) -> None:
    from privbayes.bayesnet.privbayes.cost import check_cost, cost_estimate
    from privbayes.synthesizers.contract import INFERRED, INFERRED_WARNING, open_private
    from privbayes.synthesizers.sa_cli import build_estimator

    if args.schema is None and not args.infer_schema:
        raise InputError("fit needs --schema (the public domain), or --infer-schema to read it from the data "
                         "(not covered by epsilon)")
    if args.output is None and not args.dry_run:
        raise InputError("fit needs -o/--output (the model file to write), or --dry-run")
    _writable(args.output, "model file", (".json",))
    model = build_estimator(args)  # PrivBayes or SA-PrivBayes, parameters checked
    settings = model.settings()
    relation = settings.relation
    if args.dry_run and not relation.n_public:
        _dry_run_private_n(args, model)
        return
    table, domain_source = open_private(_table(args, args.data), args.schema, args.infer_schema, args.backend,
                                        allow_empty=not relation.n_public)
    if domain_source == INFERRED or table.schema.inferred:
        print(f"privbayes: warning: {INFERRED_WARNING}", file=sys.stderr)
    if relation.n_public:  # n private: nothing here may use it; the fit plans and checks at its noisy count
        plan = model.plan(table.n, table.schema)
        if args.dry_run:
            print(f"budget plan for {args.data} (n = {table.n}, public); nothing has been measured:")
            _print_plan(model, plan, table.schema)
            return
        cost = cost_estimate(settings, plan, settings.encoding_for(table.schema))
        check_cost(cost)
        if cost.time_class != "seconds":
            print(f"privbayes: warning: {cost.describe()}; lower --epsilon, raise --theta or set --degree to "
                  "go faster", file=sys.stderr)
    with warnings.catch_warnings():  # said above, once
        warnings.simplefilter("ignore", InferredDomainWarning)
        _interruptible(lambda: model.fit(table))
    model.save(args.output)
    report = model.privacy_report()
    print(f"wrote {args.output}: {len(model.network_.pairs)} attributes, degree {model.degree_}, "
          f"ε spent {report['epsilon_spent']:g} of {report['epsilon']:g}")


def _print_plan(model: object, plan: object, schema: object) -> None:
    from privbayes.bayesnet.privbayes.cost import cost_estimate

    for line in plan.describe():  # type: ignore[attr-defined]
        print(f"  {line}")
    settings = model.settings()  # type: ignore[attr-defined]
    if hasattr(settings, "encoding_for"):
        print(f"  {cost_estimate(settings, plan, settings.encoding_for(schema)).describe()}")


def _dry_run_private_n(args: argparse.Namespace, model: object) -> None:
    """``--dry-run`` when n is private (add/remove): the data is not opened; the plan is shown at
    ``--assume-n`` (a public guess), since the fit derives it from its noisy count."""
    from fractions import Fraction

    from privbayes.bayesnet.privbayes.settings import COUNT_SHARE
    from privbayes.io import as_schema

    if args.schema is None:
        raise InputError("--dry-run under add/remove neighbours needs --schema (it reads no data)")
    schema = as_schema(args.schema)
    count = Fraction(model.epsilon) * COUNT_SHARE  # type: ignore[attr-defined]
    print(f"budget plan for {args.data} under add/remove neighbours: n is private and nothing has been read; "
          f"the fit first releases a noisy count (discrete Laplace, ε = {float(count):g}) and plans from it")
    if args.assume_n is None:
        print("  give --assume-n N (a size you expect; public) to see the plan and cost at that size")
        return
    print(f"  at an assumed n = {args.assume_n} (the fit uses its noisy count instead):")
    _print_plan(model, model.plan(args.assume_n, schema), schema)  # type: ignore[attr-defined]


def _interruptible(work: "Callable[[], object]") -> None:
    """Run ``work`` in a worker thread and wait in short slices, so that Ctrl-C is handled within
    a fraction of a second even while compiled loops hold the worker (they release no signal
    to Python).  The worker is a daemon: on Ctrl-C it is abandoned and the process exits."""
    import threading

    failure: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the main thread
            failure.append(exc)
    worker = threading.Thread(target=run, name="privbayes-fit", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
    if failure:
        raise failure[0]


def _sample(args: argparse.Namespace) -> None:
    from privbayes.model_file import load_model, model_format

    _writable(args.output, "output table", (".csv", ".parquet", ".pq"))
    if model_format(args.model) == "privbayes-mrf":
        from privbayes.io import write_table
        from privbayes.undirected import PrivateMRF

        write_table(PrivateMRF.load(args.model).sample(args.n, random_state=args.seed, bin_labels=args.bin_labels),
                    args.output)
    else:  # streamed in chunks: bounded memory for any n
        load_model(args.model).sample_to(args.output, args.n, random_state=args.seed, bin_labels=args.bin_labels)
    print(f"wrote {args.n} rows to {args.output}")


def _inspect(args: argparse.Namespace) -> None:
    from privbayes.model_file import load_model

    model = load_model(args.model)
    report = model.privacy_report()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
        return
    print(f"model: {args.model} (library {report['library_version']})")
    noisy = "" if report.get("n_public", True) else " (a noisy count)"
    print(f"  {report['algorithm']}; encoding {report['encoding']}, score {report['score']}, n = {report['n']}{noisy}")
    print("network (child <- parents; @i = generalised to taxonomy level i):")
    for line in model.describe():
        print(f"  {line}")
    if getattr(model, "learned_network", None) is not None:
        print(f"  (estimated consistently: sampled through its junction tree's network, "
              f"degree {model.network.degree}, whose families contain these)")
    print(f"privacy: ε = {report['epsilon']:g}, spent {report['epsilon_spent']:g}; "
          f"{'differentially private' if report['differentially_private'] else 'NOT differentially private'}")
    print(f"  neighbouring datasets: {report['neighbouring_relation']}")
    print(f"  domain: {report['domain_source']}")
    for caveat in report["caveats"]:
        print(f"  caveat: {caveat}")
    print("budget plan:")
    for line in model.plan.describe():
        print(f"  {line}")
    print("ledger:")
    for entry in report["ledger"]:
        print(f"  {entry['step']:<24} {entry['mechanism']:<17} ε = {entry['epsilon']:.6g}  "
              f"Δ = {entry['sensitivity']:.4g}  ({entry['measured']})")


def _schema_infer(args: argparse.Namespace) -> None:
    from privbayes.counting.draft import draft_schema
    from privbayes.io import atomic_write_text

    _writable(args.output, "schema file", (".yaml", ".yml", ".json"))
    draft = draft_schema(_table(args, args.data), max_categories=args.max_categories, bins=args.bins)
    if args.output.lower().endswith(".json"):
        atomic_write_text(args.output, json.dumps(draft.to_dict(), indent=2))
    else:
        atomic_write_text(args.output, draft.to_yaml())
    kept = [p for p in draft.proposals if p.attribute is not None]
    dropped = [p.name for p in draft.proposals if p.attribute is None]
    questions = [p.name for p in draft.proposals if p.question]
    print(f"wrote {args.output}: a draft with {len(kept)} attributes"
          + (f", {len(dropped)} column(s) proposed as dropped ({', '.join(dropped)})" if dropped else ""))
    if questions:
        print(f"questions to answer in the file: {', '.join(questions)}")
    print("warning: the draft was read from the data and is NOT covered by epsilon; review it and delete "
          "'inferred: true' before a release", file=sys.stderr)
    try:
        draft.schema()
    except InputError as exc:
        print(f"privbayes: warning: the draft is not a usable schema yet: {exc}", file=sys.stderr)


def _evaluate(args: argparse.Namespace) -> None:
    from privbayes.evaluation.report import run_evaluate

    _writable(args.report, "report", (".html", ".htm"))
    from privbayes.counting.reading import TableFile

    # --sep/--encoding describe the real table; the synthetic one (written by `sample`) is detected.
    real, synth = _table(args, args.real), TableFile(args.synth)
    run_evaluate(real, synth, schema_path=args.schema, model_path=args.model, report_path=args.report,
                 alpha=args.alpha, targets=args.target, split_seed=args.seed, classifier=not args.no_classifier)


def _mrf(args: argparse.Namespace) -> None:
    from privbayes.undirected.cli import run

    run(args)


def _nbc(args: argparse.Namespace) -> None:
    from privbayes.nbc.cli import run

    run(args)


def _demo(args: argparse.Namespace) -> None:
    from privbayes.demo import run_demo

    _writable(args.output, "output table", (".csv", ".parquet", ".pq"))
    run_demo(args.output, args.epsilon)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {"fit": _fit, "sample": _sample, "inspect": _inspect, "demo": _demo,
                "schema": _schema_infer, "evaluate": _evaluate, "nbc": _nbc, "mrf": _mrf}
    try:
        if getattr(args, "epsilon", None) is not None:
            check_epsilon(args.epsilon, "--epsilon")
        with _notes():
            handlers[args.command](args)
    except InputError as exc:
        print(f"privbayes: error: {exc}", file=sys.stderr)
        rows = getattr(exc, "rows", None)
        if rows and getattr(args, "show_invalid", False):
            print(f"privbayes: data rows (1 = first row after the header): {', '.join(map(str, rows))}",
                  file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of stdout went away (`privbayes inspect m.json | head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes
        return 0
    except (OSError, MemoryError) as exc:
        print(f"privbayes: error: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("privbayes: interrupted", file=sys.stderr)
        return 130
    return 0


@contextlib.contextmanager
def _notes() -> "Iterator[None]":
    """Print the library's notes (columns left out, …) as one ``privbayes: note:`` line each."""
    from privbayes.errors import ColumnsLeftOut

    def show(message: Warning | str, category: type, *rest: object) -> None:
        if issubclass(category, ColumnsLeftOut):
            print(f"privbayes: note: {message}", file=sys.stderr)
        else:
            original(message, category, *rest)
    with warnings.catch_warnings():
        warnings.simplefilter("always", ColumnsLeftOut)
        original = warnings.showwarning
        warnings.showwarning = show
        try:
            yield
        finally:
            warnings.showwarning = original


if __name__ == "__main__":
    sys.exit(main())
