"""``privbayes schema infer``: a commented schema draft from data (NOT private: review it)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from privbayes.cli import arguments
from privbayes.errors import InputError


def add_parser(commands: Any) -> None:
    schema = commands.add_parser("schema", help="schema tools")
    schema_commands = schema.add_subparsers(dest="schema_command", required=True)
    infer = schema_commands.add_parser("infer", help="draft a commented schema from data (NOT private: review it)")
    infer.add_argument("data")
    infer.add_argument("-o", "--output", required=True, help="schema draft to write (.yaml, with comments; or .json)")
    infer.add_argument("--bins", type=arguments.positive_int, default=16, help="bins per numeric column (default 16)")
    infer.add_argument("--max-categories", type=arguments.positive_int, default=64,
                       help="text columns with more distinct values are proposed as dropped (default 64)")
    infer.add_argument("--metadata", metavar="FILE", help="SDV single-table metadata JSON: column types (sdtype) "
                       "and keys replace the draft's guesses; bounds and categories still come from the data")
    arguments.add_table_options(infer)
    infer.set_defaults(run=run)


def run(args: argparse.Namespace) -> None:
    from privbayes.counting.draft import draft_schema
    from privbayes.io import atomic_write_text

    arguments.writable(args.output, "schema file", (".yaml", ".yml", ".json"))
    draft = draft_schema(arguments.table(args, args.data), max_categories=args.max_categories, bins=args.bins,
                         metadata=args.metadata)
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
