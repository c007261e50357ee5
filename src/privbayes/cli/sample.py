"""``privbayes sample``: synthetic rows from a model file of any method (never reads the data)."""

from __future__ import annotations

import argparse
from typing import Any

from privbayes.cli import arguments


def add_parser(commands: Any) -> None:
    sample = commands.add_parser("sample", help="draw synthetic rows from a model file (never reads the data)")
    sample.add_argument("model", help="a model file written by privbayes fit")
    sample.add_argument("-n", type=arguments.positive_int,
                        help="number of rows (default: the model's n; under add/remove its noisy count)")
    sample.add_argument("-o", "--output", required=True, help="output table (.csv or .parquet)")
    sample.add_argument("--seed", type=arguments.seed, help="seed for sampling")
    sample.add_argument("--bin-labels", action="store_true", help="numeric attributes as bin labels, not values")
    sample.add_argument("--keep-ids", action="store_true",
                        help="regenerate the schema's dropped identifiers as keys 1..n (they carry no data)")
    sample.set_defaults(run=run)


def run(args: argparse.Namespace) -> None:
    from privbayes.io import write_table
    from privbayes.synthesizers.registry import load

    arguments.writable(args.output, "output table", (".csv", ".parquet", ".pq"))
    released = load(args.model)
    if hasattr(released, "sample_to"):  # streamed in chunks: bounded memory for any n
        released.sample_to(args.output, args.n, random_state=args.seed, bin_labels=args.bin_labels,
                           keep_ids=args.keep_ids)
        rows = args.n if args.n is not None else released.n
    else:
        frame = released.sample(args.n, random_state=args.seed, bin_labels=args.bin_labels)
        write_table(released.schema.with_ids(frame) if args.keep_ids else frame, args.output)
        rows = len(frame)
    print(f"wrote {rows} rows to {args.output}")
