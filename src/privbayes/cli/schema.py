"""``privbayes schema infer``: a commented schema draft from data (NOT private: review it), or with
``--epsilon`` a draft released under ε-differential privacy (:mod:`privbayes.synthesizers.private_draft`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from privbayes.cli import arguments
from privbayes.core.errors import InputError


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
    private = infer.add_argument_group("private draft (the draft itself under epsilon-DP)")
    private.add_argument("--epsilon", help="release the draft under epsilon-differential privacy at this budget "
                                           "(e.g. 0.1; added to the fit's epsilon by composition)")
    private.add_argument("--neighbours", choices=["replace-one", "add-remove"], default="replace-one",
                         help="neighbouring relation of the private draft (default replace-one; use the fit's)")
    private.add_argument("--categories", metavar="FILE",
                         help="public candidate lists: a YAML/JSON mapping column -> list, or a schema whose "
                              "categorical attributes are public; text columns without one are dropped")
    private.add_argument("--range", dest="value_range", type=float, default=1e9, metavar="R",
                         help="public bound of numbers: bounds are searched in [-R, R] (default 1e9)")
    private.add_argument("--seed", type=int, help="seed the noise (reproducible; do not publish seeded drafts)")
    arguments.add_table_options(infer)
    infer.set_defaults(run=run)


def run(args: argparse.Namespace) -> None:
    from privbayes.counting.draft import draft_schema
    from privbayes.files.tables import atomic_write_text

    arguments.writable(args.output, "schema file", (".yaml", ".yml", ".json"))
    if args.epsilon is not None:
        if args.metadata is not None:
            raise InputError("--metadata drafts from the data (not private); a private draft (--epsilon) takes "
                             "public category lists with --categories")
        _run_private(args)
        return
    if args.seed is not None or args.categories is not None:
        raise InputError("--seed and --categories belong to a private draft: add --epsilon")
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


def _run_private(args: argparse.Namespace) -> None:
    """``schema infer --epsilon``: the draft released under ε-DP, its ledger in the file."""
    from privbayes.files.tables import atomic_write_text
    from privbayes.synthesizers.private_draft import private_draft

    draft = private_draft(arguments.table(args, args.data), args.epsilon, neighbours=args.neighbours,
                          categories=args.categories, seed=args.seed, bins=args.bins, value_range=args.value_range)
    text = json.dumps(draft.to_dict(), indent=2) if args.output.lower().endswith(".json") else draft.to_yaml()
    draft.schema()  # a draft that is no usable schema is refused before anything is written
    atomic_write_text(args.output, text)
    kept = [p for p in draft.proposals if p.attribute is not None]
    dropped = [p.name for p in draft.proposals if p.attribute is None]
    print(f"wrote {args.output}: a private draft with {len(kept)} attributes"
          + (f", {len(dropped)} column(s) dropped ({', '.join(dropped)})" if dropped else "")
          + f"; epsilon {float(draft.release.epsilon):g} spent ({draft.release.neighbours} neighbours), "
            "recorded under private_draft")
    if args.seed is not None:
        print("privbayes: warning: the draft's noise was seeded (reproducible run): do not publish seeded releases",
              file=sys.stderr)
