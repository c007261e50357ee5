"""``privbayes mrf fit``: the command line for private MRFs (thin: parse, call, print).

Wired into ``privbayes.cli`` by ``add_commands(subparsers)`` and ``run(args)``.
"""

from __future__ import annotations

import argparse
import json
import math

from privbayes.errors import InputError


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def parse_cliques(text: str) -> list[tuple[str, ...]]:
    """``"a,b;b,c"`` → [("a", "b"), ("b", "c")]; names are stripped of surrounding spaces."""
    cliques = []
    for part in text.split(";"):
        names = tuple(name.strip() for name in part.split(","))
        if not part.strip() or any(not name for name in names):
            raise InputError(f"--cliques ({text!r}) must look like 'a,b;b,c' with no empty names")
        cliques.append(names)
    return cliques


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    mrf = subparsers.add_parser("mrf", help="private Markov random fields over given cliques (ICML 2017)")
    commands = mrf.add_subparsers(dest="mrf_command", required=True)
    fit = commands.add_parser("fit", help="learn an ε-DP MRF from a table")
    fit.add_argument("data", help="input table (.csv with header, .parquet, or the authors' .dat)")
    fit.add_argument("--schema", required=True, help="public schema (.yaml/.json or .domain)")
    fit.add_argument("--cliques", required=True, help="cliques as attribute names, e.g. 'a,b;b,c'")
    fit.add_argument("--epsilon", type=_number, required=True, help="total privacy budget ε > 0")
    fit.add_argument("--method", choices=["auto", "naive", "cgm", "psgd"], default="auto",
                     help="estimator (default auto: naive MLE with λ calibrated from public inputs)")
    fit.add_argument("--relation", choices=["replace-one", "add-remove"], default="replace-one",
                     help="neighbouring relation (default replace-one, n public)")
    fit.add_argument("--lam", type=_number, help="L2 regularisation λ (default calibrated for auto, 1e-4 naive, 0 cgm/psgd)")
    fit.add_argument("--seed", type=int, help="seed the DP noise (reproducible experiments only)")
    fit.add_argument("-o", "--output", required=True, help="model file to write (JSON)")


def run(args: argparse.Namespace) -> int:
    from privbayes.undirected.estimator import PrivateMRF

    if args.mrf_command != "fit":
        raise InputError(f"unknown mrf command {args.mrf_command!r}")
    model = PrivateMRF(parse_cliques(args.cliques), args.epsilon, method=args.method, relation=args.relation,
                       lam=args.lam, random_state=args.seed)
    model.fit(args.data, args.schema)
    model.save(args.output)
    report = model.privacy_report()
    print(json.dumps({"model": str(args.output), "method": report["method"],
                      "epsilon_spent": report["epsilon_spent"], "cliques": report["cliques"]}))
    return 0
