"""``privbayes demo``: the default method (adaptive marginals) at ε = 1 on the bundled UCI Adult data."""

from __future__ import annotations

import argparse
from typing import Any

from privbayes.cli import arguments


def add_parser(commands: Any) -> None:
    demo = commands.add_parser("demo", help="run the default method (adaptive marginals) on the bundled Adult data "
                                            "at ε = 1",
                               description="Fit the default method (adaptive marginals; 'fit --method' chooses "
                                           "others) on the bundled UCI Adult data, write a synthetic table and "
                                           "compare its 2-way marginals with the input's.")
    demo.add_argument("-o", "--output", default="adult_synthetic.csv", help="where to write the synthetic CSV")
    demo.add_argument("--epsilon", type=arguments.number, default=1.0, help="privacy budget ε > 0 (default 1)")
    demo.set_defaults(run=run)


def run(args: argparse.Namespace) -> None:
    from privbayes.demo import run_demo
    from privbayes.validation import check_epsilon

    check_epsilon(args.epsilon, "--epsilon")
    arguments.writable(args.output, "synthetic table", (".csv", ".parquet", ".pq"))
    run_demo(args.output, args.epsilon)
