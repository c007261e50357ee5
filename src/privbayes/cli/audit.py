"""``privbayes audit``: the tight white-box self-audit of a method or a mechanism (docs/privacy-assurance.md,
"The tight self-audit").  It fits the method many times on a built-in worst-case pair of tiny neighbouring
tables (no user data is read) and prints the claimed ε, the empirical lower bound and the verdict; exit
status 1 on a VIOLATION."""

from __future__ import annotations

import argparse
import os
from typing import Any

from privbayes.cli import arguments
from privbayes.core.errors import InputError

MECHANISMS = ("discrete-laplace", "noisy-count", "exponential", "permute-and-flip", "discrete-gaussian")
"""Kept equal to :data:`privbayes.audit.alone.MECHANISMS` (tested), so that ``--help`` imports nothing heavy."""

NAMES = tuple(dict.fromkeys(p.name for m in ("adaptive", "privbayes", "sa-privbayes", "mrf")
                            for p in arguments.method_parameters()[m] if p.name != "random_state"))
"""The estimator flags the audit passes on (every DP method's, except --seed: the audit seeds each run)."""


def add_parser(commands: Any) -> None:
    audit = commands.add_parser("audit", help="measure how close a method's or mechanism's real privacy loss comes "
                                              "to its ε (empirical lower bound on built-in toy tables)",
                                description="Fit a method (or run a mechanism) many times on a worst-case pair of "
                                            "tiny neighbouring tables, compute the exact privacy loss of every "
                                            "release's transcript, and print the claimed ε, an empirical lower "
                                            "bound on the true ε (95 % Clopper-Pearson) and a verdict.  Reads no "
                                            "data.  Exit status 1 on a VIOLATION (bound above the claim).")
    audit.add_argument("--method", default="adaptive",
                       help="adaptive (default), privbayes, sa-privbayes, mrf, or a mechanism alone: "
                            f"{', '.join(MECHANISMS)} (with --delta: the claim is (ε, δ))")
    audit.add_argument("--runs", type=arguments.positive_int, default=2000,
                       help="releases per table (default 2000; a quarter calibrate for methods; 20000 for a tight "
                            "bound)")
    audit.add_argument("--seed", type=arguments.seed, default=0, help="seed of the audit's runs (default 0)")
    audit.add_argument("--workers", type=arguments.positive_int, default=min(2, os.cpu_count() or 1),
                       help="processes (default: min(2, cores))")
    audit.add_argument("--transcript-only", action="store_true",
                       help="stop each fit once its releases add up to ε (faster); blind to data that reaches the "
                            "release outside the mechanisms and to uncharged releases after that point")
    audit.add_argument("--json", metavar="FILE", help="also write the result (bound, events, counts, pair) as JSON")
    arguments.add_parameters(audit, NAMES)
    audit.set_defaults(run=run)


def parameters(args: argparse.Namespace, method: str) -> dict[str, Any]:
    """The given estimator parameters; a flag the method does not take is a one-line error naming it."""
    given = {name: getattr(args, f"param_{name}") for name in NAMES
             if name != "epsilon" and getattr(args, f"param_{name}", None) is not None}
    declared = arguments.method_parameters()
    allowed = ({"neighbours", "delta"} if method == "discrete-gaussian" else {"neighbours"} if method in MECHANISMS
               else {p.name for p in declared.get(method, ())})
    for name in given:
        if name not in allowed:
            raise InputError(f"{arguments.flags(declared)[name].cli_flag} does not apply to --method {method}")
    return given


def run(args: argparse.Namespace) -> None:
    import json

    from privbayes.audit.selfaudit import audit
    from privbayes.files.tables import atomic_write_text

    arguments.writable(args.json, "JSON output", (".json",))
    epsilon = 1.0 if args.param_epsilon is None else args.param_epsilon
    result = audit(args.method, epsilon, runs=args.runs, seed=args.seed, workers=args.workers,
                   compare_release=not args.transcript_only, **parameters(args, args.method))
    for line in result.lines():
        print(line)
    if args.json:
        atomic_write_text(args.json, json.dumps(result.to_dict(), indent=2) + "\n")
    if result.verdict == "VIOLATION":
        raise SystemExit(1)
