"""``privbayes fit --method sa-privbayes [--mode faithful] [--q Q --lambda L --alpha A]`` (issue 13).

:func:`add_arguments` adds the method's options to the ``fit`` parser; :func:`build_estimator`
turns the parsed arguments into the estimator, refusing options that do not apply to the method.
"""

from __future__ import annotations

import argparse
from typing import Any

from privbayes.errors import InputError

METHODS = ("privbayes", "sa-privbayes")
_SA_ONLY = (("mode", "--mode"), ("q", "--q"), ("lam", "--lambda"), ("alpha", "--alpha"))


def add_arguments(fit_parser: argparse.ArgumentParser) -> None:
    """The method choice and SA-PrivBayes's options (defaults None: the estimator's paper defaults)."""
    fit_parser.add_argument("--method", choices=METHODS, default="privbayes",
                            help="privbayes (TODS 2017, default) or sa-privbayes (Future Internet 2026)")
    fit_parser.add_argument("--mode", choices=("strict", "faithful"),
                            help="sa-privbayes: strict (ε-DP, default) or faithful (the paper as written: NOT private)")
    fit_parser.add_argument("--q", help="sa-privbayes: cluster budget ratio q (default 1.1) or a preset: "
                                        "high (1.3), medium (1.1), low (0.9)")
    fit_parser.add_argument("--lambda", dest="lam", help="sa-privbayes: fraction λ of candidates screening keeps "
                                                         "(default 2/3; a number or a fraction such as 2/3)")
    fit_parser.add_argument("--alpha", help="sa-privbayes, faithful mode: fuzzy coefficient α (default 0.2)")


def build_estimator(args: argparse.Namespace) -> Any:
    """A PrivBayes or SAPrivBayes estimator from the parsed ``fit`` arguments."""
    if args.method == "sa-privbayes":
        from privbayes.synthesizers.sa_privbayes import SAPrivBayes

        for option, value in (("--score", args.score), ("--encoding", args.encoding)):
            if value is not None:
                raise InputError(f"{option} does not apply to --method sa-privbayes "
                                 "(it uses score I and the vanilla encoding)")
        if args.theta != 4.0:
            raise InputError("--theta does not apply to --method sa-privbayes (it uses a fixed degree, --degree)")
        for option in ("estimation", "neighbours"):
            if getattr(args, option, None) is not None:
                raise InputError(f"--{option} applies to --method privbayes only")
        if args.alpha is not None and args.mode != "faithful":
            raise InputError("--alpha applies to --mode faithful only (strict screening has no fuzzy band)")
        given = {name: getattr(args, name) for name, _ in _SA_ONLY if getattr(args, name) is not None}
        estimator = SAPrivBayes(args.epsilon, beta=args.beta, degree=2 if args.degree is None else args.degree,
                                random_state=args.seed, progress=True, **given)
    else:
        from privbayes.synthesizers.privbayes import PrivBayes

        for name, option in _SA_ONLY:
            if getattr(args, name) is not None:
                raise InputError(f"{option} applies to --method sa-privbayes only")
        estimator = PrivBayes(args.epsilon, beta=args.beta, theta=args.theta, score=args.score,
                              encoding=args.encoding, degree=args.degree, random_state=args.seed, progress=True,
                              estimation=getattr(args, "estimation", None) or "consistent",
                              neighbours=getattr(args, "neighbours", None) or "replace-one")
    estimator.check_parameters()
    return estimator
