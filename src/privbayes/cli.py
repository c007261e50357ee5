"""The ``privbayes`` command line: parses, calls the library, prints.  User mistakes are one line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from privbayes.errors import InputError
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="privbayes", description="Differentially private synthetic data with PrivBayes.")
    commands = parser.add_subparsers(dest="command", required=True)

    fit = commands.add_parser("fit", help="learn an ε-DP model from a CSV/Parquet table")
    fit.add_argument("data", help="input table (.csv with header, or .parquet)")
    fit.add_argument("--schema", help="public schema (.yaml/.json, or the authors' .domain format)")
    fit.add_argument("--infer-schema", action="store_true",
                     help="read the domain from the data (NOT covered by ε; recorded in the privacy report)")
    fit.add_argument("--epsilon", type=_number, required=True, help="total privacy budget ε > 0")
    fit.add_argument("--beta", type=_number, default=0.3, help="share of ε for network learning (default 0.3)")
    fit.add_argument("--theta", type=_number, default=4.0, help="θ-usefulness threshold (default 4)")
    fit.add_argument("--score", choices=["I", "R", "F"], help="score function (default F for binary data, else R)")
    fit.add_argument("--encoding", choices=["vanilla", "hierarchical", "binary", "gray"],
                     help="attribute encoding (default hierarchical with taxonomies, else vanilla)")
    fit.add_argument("--degree", type=int, help="fixed network degree k instead of θ-usefulness")
    fit.add_argument("--seed", type=_seed, help="seed the DP noise (reproducible experiments only)")
    fit.add_argument("--dry-run", action="store_true",
                     help="print the budget plan (every paid release and its ε) and stop; reads only n")
    fit.add_argument("--show-invalid", action="store_true",
                     help="when values are refused, print up to 5 of their row numbers (locally; never the values)")
    fit.add_argument("-o", "--output", help="model file to write (JSON); required unless --dry-run")

    sample = commands.add_parser("sample", help="draw synthetic rows from a model file")
    sample.add_argument("model")
    sample.add_argument("-n", type=_positive_int, required=True, help="number of rows")
    sample.add_argument("-o", "--output", required=True, help="output table (.csv or .parquet)")
    sample.add_argument("--seed", type=_seed, help="seed for sampling")
    sample.add_argument("--bin-labels", action="store_true", help="numeric attributes as bin labels, not values")

    inspect = commands.add_parser("inspect", help="print a model's network and privacy ledger")
    inspect.add_argument("model")
    inspect.add_argument("--json", action="store_true", help="print the privacy report as JSON")

    schema = commands.add_parser("schema", help="schema tools")
    schema_commands = schema.add_subparsers(dest="schema_command", required=True)
    infer = schema_commands.add_parser("infer", help="draft a schema from data (NOT private: review it)")
    infer.add_argument("data")
    infer.add_argument("-o", "--output", required=True, help="schema file to write (.yaml or .json)")
    infer.add_argument("--bins", type=_positive_int, default=16, help="bins per numeric attribute (default 16)")

    evaluate = commands.add_parser("evaluate", help="compare a synthetic table with the real one (TODS 2017 §6.1)")
    evaluate.add_argument("real", help="the real table (.csv or .parquet)")
    evaluate.add_argument("synth", help="the synthetic table (.csv or .parquet)")
    evaluate.add_argument("--schema", help="public schema (default: the --model's schema)")
    evaluate.add_argument("--model", help="model file: adds the network and the privacy ledger to the report")
    evaluate.add_argument("--report", help="write a self-contained HTML report (needs privbayes[eval])")
    evaluate.add_argument("--alpha", default="2,3", help="α of the α-way marginal sets Qα (default 2,3)")
    evaluate.add_argument("--target", action="append", default=[], metavar="COLUMN=VALUE",
                          help="binary SVM target, e.g. income='>50K' or age>=20 (repeatable)")
    evaluate.add_argument("--seed", type=_seed, default=0, help="seed of the 80/20 split for the SVM task (default 0)")
    evaluate.add_argument("--show-invalid", action="store_true",
                          help="when values are refused, print up to 5 of their row numbers (locally; never the values)")

    demo = commands.add_parser("demo", help="run PrivBayes on the bundled Adult data at ε = 1")
    demo.add_argument("-o", "--output", default="adult_synthetic.csv", help="where to write the synthetic CSV")
    demo.add_argument("--epsilon", type=_number, default=1.0)

    from privbayes.nbc.cli import add_commands as add_nbc_commands

    add_nbc_commands(commands)
    return parser


def _fit(args: argparse.Namespace) -> None:
    from privbayes.synthesizers.privbayes import INFERRED, PrivBayes, open_private

    if args.schema is None and not args.infer_schema:
        raise InputError("fit needs --schema (the public domain), or --infer-schema to read it from the data "
                         "(not covered by epsilon)")
    if args.output is None and not args.dry_run:
        raise InputError("fit needs -o/--output (the model file to write), or --dry-run")
    model = PrivBayes(args.epsilon, beta=args.beta, theta=args.theta, score=args.score, encoding=args.encoding,
                      degree=args.degree, random_state=args.seed, progress=True)
    model.check_parameters()
    table, domain_source = open_private(args.data, args.schema, args.infer_schema, "numpy")
    if domain_source == INFERRED:
        print("privbayes: warning: the schema is inferred from the data: its categories and bounds are "
              "NOT covered by epsilon", file=sys.stderr)
    if args.dry_run:
        lines = model.plan(table.n, table.schema).describe()
        print(f"budget plan for {args.data} (n = {table.n}, public); nothing has been measured:")
        for line in lines:
            print(f"  {line}")
        return
    model.fit(table)
    model.save(args.output)
    report = model.privacy_report()
    print(f"wrote {args.output}: {len(model.network_.pairs)} attributes, degree {model.degree_}, "
          f"ε spent {report['epsilon_spent']:g} of {report['epsilon']:g}")


def _sample(args: argparse.Namespace) -> None:
    from privbayes.io import write_table
    from privbayes.model_file import load_model

    model = load_model(args.model)
    write_table(model.sample(args.n, random_state=args.seed, bin_labels=args.bin_labels), args.output)
    print(f"wrote {args.n} rows to {args.output}")


def _inspect(args: argparse.Namespace) -> None:
    from privbayes.model_file import load_model

    model = load_model(args.model)
    report = model.privacy_report()
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"model: {args.model} (library {report['library_version']})")
    print(f"  {report['algorithm']}; encoding {report['encoding']}, score {report['score']}, n = {report['n']}")
    print("network (child <- parents; @i = generalised to taxonomy level i):")
    for line in model.describe():
        print(f"  {line}")
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
    from privbayes.counting.draft import infer_schema
    from privbayes.io import save_schema

    schema = infer_schema(args.data, bins=args.bins)
    save_schema(schema, args.output)
    print(f"wrote {args.output} ({len(schema)} attributes)")
    print("warning: categories and bounds were read from the data and are NOT covered by epsilon; "
          "replace them with public knowledge before a release", file=sys.stderr)


def _evaluate(args: argparse.Namespace) -> None:
    from privbayes.evaluation.report import run_evaluate

    run_evaluate(args.real, args.synth, schema_path=args.schema, model_path=args.model, report_path=args.report,
                 alpha=args.alpha, targets=args.target, split_seed=args.seed)


def _nbc(args: argparse.Namespace) -> None:
    from privbayes.nbc.cli import run

    run(args)


def _demo(args: argparse.Namespace) -> None:
    from privbayes.demo import run_demo

    run_demo(args.output, args.epsilon)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {"fit": _fit, "sample": _sample, "inspect": _inspect, "demo": _demo,
                "schema": _schema_infer, "evaluate": _evaluate, "nbc": _nbc}
    try:
        if getattr(args, "epsilon", None) is not None:
            check_epsilon(args.epsilon, "--epsilon")
        handlers[args.command](args)
    except InputError as exc:
        print(f"privbayes: error: {exc}", file=sys.stderr)
        rows = getattr(exc, "rows", None)
        if rows and getattr(args, "show_invalid", False):
            print(f"privbayes: data rows (1 = first row after the header): {', '.join(map(str, rows))}",
                  file=sys.stderr)
        return 2
    except (OSError, MemoryError) as exc:
        print(f"privbayes: error: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("privbayes: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
