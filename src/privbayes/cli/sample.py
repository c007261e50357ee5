"""``privbayes sample``: synthetic rows from a model file of any method (never reads the data)."""

from __future__ import annotations

import argparse
from typing import Any

from privbayes.cli import arguments
from privbayes.core.errors import InputError


def add_parser(commands: Any) -> None:
    sample = commands.add_parser("sample", help="draw synthetic rows from a model file (never reads the data)")
    sample.add_argument("model", help="a model file written by privbayes fit")
    sample.add_argument("-n", type=arguments.positive_int,
                        help="number of rows (default: the model's n; under add/remove its noisy count)")
    sample.add_argument("-o", "--output", required=True, help="output table (.csv or .parquet)")
    sample.add_argument("--seed", type=arguments.seed, help="seed for sampling")
    sample.add_argument("--bin-labels", action="store_true", help="numeric attributes as bin labels, not values")
    sample.add_argument("--given", action="append", default=[], metavar="COLUMN=VALUE", type=_condition,
                        help="draw rows given this value of a column, exactly from the model (repeatable; costs no "
                             "privacy: it reads the model only), e.g. --given sex=Female --given age=37")
    sample.add_argument("--keep-ids", action="store_true",
                        help="regenerate the schema's dropped identifiers as keys 1..n (they carry no data)")
    sample.add_argument("--draw", choices=("balanced", "iid"),
                        help="how rows are drawn: balanced (each column stratified within its parents' values: counts "
                             "close to the model's) or iid (independent rows, e.g. for resampling); default: the "
                             "model file's own")
    sample.add_argument("--workers", type=arguments.positive_int,
                        help="processes drawing a network model's rows while one writes them (default: the usable "
                             "cores); the file is the same for any number")
    sample.set_defaults(run=run)


def _condition(text: str) -> tuple[str, str]:
    column, sign, value = text.partition("=")
    if not sign or not column.strip():
        raise argparse.ArgumentTypeError(f"expected COLUMN=VALUE, got {text!r}")
    return column.strip(), value.strip()


def run(args: argparse.Namespace) -> None:
    from privbayes.files.tables import write_table
    from privbayes.synthesizers.registry import load

    arguments.writable(args.output, "output table", (".csv", ".parquet", ".pq"))
    released = load(args.model)
    conditions = dict(args.given) or None
    if conditions is not None and len(conditions) != len(args.given):
        raise InputError("--given names a column twice")
    if hasattr(released, "sample_to"):  # streamed in chunks: bounded memory for any n
        released.sample_to(args.output, args.n, random_state=args.seed, bin_labels=args.bin_labels,
                           conditions=conditions, keep_ids=args.keep_ids, workers=args.workers, draw=args.draw)
        rows = args.n if args.n is not None else released.n
    else:
        frame = released.sample(args.n, random_state=args.seed, bin_labels=args.bin_labels, conditions=conditions,
                                keep_ids=args.keep_ids, draw=args.draw)
        write_table(frame, args.output)
        rows = len(frame)
    print(f"wrote {rows} rows to {args.output}")
