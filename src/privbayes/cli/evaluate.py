"""``privbayes evaluate``: compare a synthetic table with the real one and give a verdict (TODS 2017 §6.1)."""

from __future__ import annotations

import argparse
from typing import Any

from privbayes.cli import arguments


def add_parser(commands: Any) -> None:
    evaluate = commands.add_parser("evaluate", help="compare a synthetic table with the real one and give a verdict "
                                   "(TODS 2017 §6.1)")
    evaluate.add_argument("real", help="the real table (.csv or .parquet)")
    evaluate.add_argument("synth", help="the synthetic table (.csv or .parquet)")
    evaluate.add_argument("--schema", help="public schema (default: the --model's schema)")
    evaluate.add_argument("--model", help="model file of any method: adds its structure and privacy report")
    evaluate.add_argument("--report", help="write a self-contained HTML report: verdict and privacy first, "
                                           "figures with privbayes[eval] (matplotlib)")
    evaluate.add_argument("--json", metavar="FILE",
                          help="also write every number printed (references, each column, each pair with its "
                               "independent-columns reference, the lost pairs, the classifier check, the verdict) "
                               "to a .json file")
    evaluate.add_argument("--audit", metavar="FILE", help="cite a self-audit saved by 'privbayes audit --json' "
                          "beside the guarantee (an audit of the implementation, not of this release)")
    evaluate.add_argument("--workload", metavar="FILE",
                          help="a workload file (YAML or JSON: attribute sets, optionally weighted, as fit "
                               "--workload takes): adds the workload error, the weighted average TVD over its sets")
    evaluate.add_argument("--alpha", default="2,3", help="α of the α-way marginal sets Qα (default 2,3)")
    evaluate.add_argument("--target", action="append", default=[], metavar="COLUMN=VALUE",
                          help="classifier check target, e.g. income='>50K', age>=20, or a column alone (its "
                               "last category against the rest) (repeatable; default: the most balanced "
                               "categorical value against the rest, never one with a majority over 95 %%) "
                               "(the paper's SVM task)")
    evaluate.add_argument("--no-classifier", action="store_true",
                          help="skip the classifier check (it needs privbayes[eval]: scikit-learn)")
    evaluate.add_argument("--clip-synthetic", action="store_true",
                          help="clip numbers of the synthetic table outside the schema's bounds to the nearest bound "
                               "(e.g. another tool's output) instead of refusing them; the real table still follows "
                               "the schema")
    evaluate.add_argument("--seed", type=arguments.seed, default=0,
                          help="seed of the 80/20 split for the SVM task (default 0)")
    arguments.add_show_invalid(evaluate)
    arguments.add_table_options(evaluate)
    evaluate.set_defaults(run=run)


def run(args: argparse.Namespace) -> None:
    from privbayes.counting.reading import TableFile
    from privbayes.evaluation.report import run_evaluate

    arguments.writable(args.report, "report", (".html", ".htm"))
    arguments.writable(args.json, "JSON output", (".json",))
    # --sep/--file-encoding describe the real table; the synthetic one (written by `sample`) is detected.
    real, synth = arguments.table(args, args.real), TableFile(args.synth)
    run_evaluate(real, synth, schema_path=args.schema, model_path=args.model, report_path=args.report,
                 alpha=args.alpha, targets=args.target, split_seed=args.seed, classifier=not args.no_classifier,
                 clip_synthetic=args.clip_synthetic, json_path=args.json, audit_path=args.audit,
                 workload=args.workload)
