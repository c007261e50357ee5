"""One set of argument definitions for every verb: the same flag, parser and validation everywhere.

Estimator parameters are declared once (:data:`PARAMETERS`: the flag of each constructor
parameter, by name); ``privbayes fit --method M`` passes the given ones to M's estimator and
refuses, in one line, a flag that M's estimator does not take.  This module imports nothing
heavy, so that ``privbayes --help`` stays fast.
"""

from __future__ import annotations

import argparse
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from privbayes.core.errors import InputError

SEED_BOUND = 2**63


def _integer(text: str, expected: str, lowest: int, bound: int | None = None) -> int:
    """An integer flag in [lowest, bound); ``expected`` says what in the one-line error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if value < lowest or (bound is not None and value >= bound):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
    return value


def positive_int(text: str) -> int:
    return _integer(text, "a positive integer", 1)


def count(text: str) -> int:
    return _integer(text, "an integer >= 0", 0)


def seed(text: str) -> int:
    return _integer(text, "an integer seed in [0, 2^63)", 0, SEED_BOUND)


def number(text: str) -> float:
    """A finite number (the estimator checks its range and names the parameter)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def ratio(text: str) -> str:
    """A number or a fraction such as 2/3, kept as text: the estimator reads it exactly (bounded:
    :func:`privbayes.core.validation.exact`)."""
    from privbayes.core.validation import exact

    try:
        value = exact(text, "value")
    except InputError:
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise argparse.ArgumentTypeError(f"expected a number or a fraction such as 2/3, got {shown!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return text.strip()


def cliques(text: str) -> list[tuple[str, ...]]:
    """``"a,b;b,c"`` → [("a", "b"), ("b", "c")]; names are stripped of surrounding spaces."""
    out = []
    for part in text.split(";"):
        names = tuple(name.strip() for name in part.split(","))
        if not part.strip() or any(not name for name in names):
            raise argparse.ArgumentTypeError(f"expected cliques such as 'a,b;b,c' with no empty names, got {text!r}")
        out.append(names)
    return out


NEIGHBOURS = ("replace-one", "add-remove")
MODEL_ENCODINGS = ("vanilla", "hierarchical", "binary", "gray")


@dataclass(frozen=True)
class Parameter:
    """The command-line flag of an estimator parameter."""

    flag: str
    options: dict[str, Any] = field(default_factory=dict)


PARAMETERS: dict[str, Parameter] = {
    "epsilon": Parameter("--epsilon", {"type": number, "help": "privacy budget ε > 0: smaller is more private and "
                                                               "noisier (1 is a common choice)"}),
    "neighbours": Parameter("--neighbours", {"choices": NEIGHBOURS, "help": "neighbouring relation of the guarantee: "
                                             "replace-one (default; n public, TODS 2017) or add-remove (n private, as "
                                             "MST/AIM)"}),
    "random_state": Parameter("--seed", {"type": seed, "help": "seed the DP noise (reproducible experiments only; "
                                                                "the report says so)"}),
    "beta": Parameter("--beta", {"type": ratio, "help": "share of ε for learning the structure (β; privbayes, "
                                                        "sa-privbayes; default 0.3)"}),
    "theta": Parameter("--theta", {"type": number, "help": "privbayes: how much signal each noisy table must keep "
                                                           "(θ-usefulness, default 4); higher gives simpler models; "
                                                           "adaptive: the rounds rule's θ (default 25; higher "
                                                           "gives fewer, less noisy rounds)"}),
    "score": Parameter("--score", {"choices": ("I", "R", "F"), "help": "privbayes: score function (I mutual "
                                   "information, R, F; default F for binary data, else R)"}),
    "encoding": Parameter("--encoding", {"choices": MODEL_ENCODINGS, "help": "privbayes: how columns become model "
                                         "variables (default hierarchical with taxonomies, else vanilla)"}),
    "degree": Parameter("--degree", {"type": count, "help": "privbayes, sa-privbayes: a fixed number of parents per "
                                                            "column (network degree k); adaptive: the largest "
                                                            "marginal measured, 2 or 3 (default 3 when every "
                                                            "column is binary, else 2)"}),
    "rounds": Parameter("--rounds", {"type": positive_int, "help": "adaptive: select-and-measure rounds (default: "
                                                                   "from n, ε and the domain; --dry-run shows it)"}),
    "initial_share": Parameter("--initial-share", {"type": ratio, "help": "adaptive: share of ε for the first "
                                                   "measurements (default 0.5 for 1-way marginals, 0.55 at "
                                                   "small n·ε, 0.3 when every column is binary, 0.75 for the "
                                                   "network; smaller above n·ε/Δ = 20,000)"}),
    "select_share": Parameter("--select-share", {"type": ratio, "help": "adaptive: share of each round's ε for "
                                                                       "its selection (default 0.2)"}),
    "init": Parameter("--init", {"choices": ("auto", "oneway", "network"), "help": "adaptive: the first "
                                 "measurements: 1-way marginals, PrivBayes's network tables, or auto (default: 1-way "
                                 "marginals, small columns measured jointly)"}),
    "selection": Parameter("--selection", {"choices": ("permute-and-flip", "exponential"), "help": "adaptive: each "
                                           "round's selection mechanism (default permute-and-flip)"}),
    "joint": Parameter("--joint", {"action": argparse.BooleanOptionalAction, "help": "adaptive: measure small "
                                   "columns together in the first tables (default: yes)"}),
    "max_network_degree": Parameter("--max-network-degree", {"type": positive_int, "help": "adaptive, --init "
                                                             "network: the network's largest degree (default 5)"}),
    "max_model_cells": Parameter("--max-model-cells", {"type": positive_int, "help": "adaptive: cap on the cells "
                                                       "of the model's junction tree (default 2^20)"}),
    "estimation": Parameter("--estimation", {"help": "how the noisy measurements become the model: privbayes "
                                             "consistent (default), projected or paper; mrf auto (default), naive, "
                                             "cgm or psgd"}),
    "non_private_phase": Parameter("--non-private-phase", {"choices": ("network", "marginals"), "help": "privbayes "
                                   "analysis mode (TODS §6.4): run that phase WITHOUT noise (NOT private)"}),
    "mode": Parameter("--mode", {"choices": ("strict", "faithful"), "help": "sa-privbayes: strict (ε-DP, default) or "
                                 "faithful (the paper as written: NOT private)"}),
    "q": Parameter("--q", {"help": "sa-privbayes: cluster budget ratio q (default 1.1) or a preset: high (1.3), "
                                   "medium (1.1), low (0.9)"}),
    "lam": Parameter("--lambda", {"type": ratio, "help": "sa-privbayes: fraction λ of candidates screening keeps "
                                                         "(default 2/3)"}),
    "alpha": Parameter("--alpha", {"type": ratio, "help": "sa-privbayes, faithful mode: fuzzy coefficient α "
                                                          "(default 0.2)"}),
    "screening_share": Parameter("--screening-share", {"type": ratio, "help": "sa-privbayes: share of the structure "
                                                                              "budget for screening (default 0.3)"}),
    "cliques": Parameter("--cliques", {"type": cliques, "metavar": "A,B;B,C",
                                       "help": "mrf: the cliques as attribute names, e.g. 'a,b;b,c'"}),
    "l2": Parameter("--l2", {"type": number,
                             "help": "mrf: L2 regularisation weight λ "
                                     "(default calibrated per clique for auto, 1e-4 naive, 0 cgm/psgd)"}),
    "inference": Parameter("--inference", {"choices": ("auto", "exact", "loopy"),
                                           "help": "mrf: inference engine (default auto)"}),
    "delta": Parameter("--delta", {"type": number, "help": "mrf, psgd only: δ of the (ε, δ) guarantee (default 1/n)"}),
    "psgd_steps": Parameter("--psgd-steps", {"type": positive_int, "help": "mrf, psgd only: gradient steps (50)"}),
    "psgd_learning_rate": Parameter("--psgd-learning-rate", {"type": number,
                                                             "help": "mrf, psgd only: learning rate (1.0)"}),
    "class_name": Parameter("--class", {"metavar": "COLUMN", "help": "nbc: the class (sensitive) column"}),
    "gamma": Parameter("--gamma", {"type": ratio, "help": "nbc: amplification ratio γ > 1 (Corollary 4)"}),
    "breach": Parameter("--breach", {"type": ratio, "nargs": 2, "metavar": ("L1", "L2"),
                                     "help": "nbc: block every L1-to-L2 privacy breach "
                                             "(γ from Lemma 2's condition (7))"}),
    "prior": Parameter("--prior", {"metavar": "FILE", "help": "nbc, EST: the attacker's prior F as a JSON/YAML mapping "
                                                              "label -> probability (with --r)"}),
    "r": Parameter("--r", {"type": ratio, "help": "nbc, EST: r-closeness with respect to --prior (r > 1)"}),
    "condition": Parameter("--condition", {"choices": ("posterior", "corollary4"),
                                           "help": "nbc: count ratios ρ^(2n-1) ≤ γ (posterior, default: bounds the "
                                                   "posterior for large counts) or ρ^n ≤ γ (Corollary 4 as printed)"}),
}
"""Estimator parameter name → its flag.  Parameters not listed (``progress``, ``cgm``) are not flags."""

FIXED = {"progress": True}
"""Parameters the command line sets itself (a progress bar on stderr)."""


METHOD_PARAMETERS: dict[str, tuple[str, ...]] = {
    "adaptive": ("epsilon", "neighbours", "random_state", "degree", "rounds", "theta", "init", "initial_share",
                 "select_share", "selection", "joint", "max_network_degree", "max_model_cells"),
    "privbayes": ("epsilon", "neighbours", "random_state", "beta", "theta", "degree", "score", "encoding", "estimation",
                  "non_private_phase"),
    "sa-privbayes": ("epsilon", "random_state", "mode", "degree", "beta", "q", "lam", "alpha", "screening_share"),
    "mrf": ("epsilon", "neighbours", "random_state", "cliques", "estimation", "l2", "inference", "delta", "psgd_steps",
            "psgd_learning_rate"),
    "nbc": ("class_name", "gamma", "breach", "prior", "r", "condition"),
}
"""Each method's flags, in the order ``fit --help`` lists them (one argument group per method; the first three are
the common ones).  The estimators' signatures are the truth; ``tests/test_cli_words.py`` checks this table against
them, so that ``--help`` never imports the estimators (it stays fast)."""

COMMON_PARAMETERS = ("epsilon", "neighbours", "random_state")
"""Parameters of most methods, listed once before the methods' groups."""


def add_parameters(parser: argparse.ArgumentParser, names: tuple[str, ...] | None = None) -> None:
    """The flags of the estimator parameters ``names`` (default: all), in one list (``privbayes nbc publish``)."""
    for name in PARAMETERS:
        if names is None or name in names:
            _add_parameter(parser, name)


def add_method_parameters(parser: argparse.ArgumentParser, shown: str | None = None) -> None:
    """Every estimator flag, listed in argument groups: the common parameters first, then one group per method
    (the default method first), each flag in the first group that takes it.  With ``shown`` (``fit --method M
    --help``), only the common parameters M takes and M's group are listed; the other flags still parse, so
    that a flag another method takes is refused in one line naming the method
    (:func:`estimator_arguments`)."""
    from privbayes.synthesizers.registry import DEFAULT_METHOD

    methods = [m for m in METHOD_PARAMETERS if m == DEFAULT_METHOD] + [m for m in METHOD_PARAMETERS
                                                                         if m != DEFAULT_METHOD]
    if shown in METHOD_PARAMETERS:
        methods = [shown]
    placed: set[str] = set()
    common = [name for name in COMMON_PARAMETERS if any(name in METHOD_PARAMETERS[m] for m in methods)]
    if common:
        group = parser.add_argument_group("common parameters (of the differentially private methods)"
                                          if shown is None else "common parameters")
        for name in common:
            _add_parameter(group, name)
        placed.update(common)
    for method in methods:
        names = [name for name in METHOD_PARAMETERS[method] if name not in placed]
        above = [PARAMETERS[name].flag for name in METHOD_PARAMETERS[method]
                 if name in placed and name not in COMMON_PARAMETERS]
        title = f"--method {method}" + (" (the default)" if method == DEFAULT_METHOD else "")
        group = parser.add_argument_group(title, f"also {', '.join(above)} (listed above)" if above else None)
        for name in names:
            _add_parameter(group, name)
        placed.update(names)
    for name in PARAMETERS:
        if name not in placed:
            _add_parameter(parser, name, hidden=True)


def _add_parameter(parser: argparse.ArgumentParser | argparse._ArgumentGroup, name: str, hidden: bool = False) -> None:
    options = dict(PARAMETERS[name].options) | ({"help": argparse.SUPPRESS} if hidden else {})
    if not {"metavar", "choices", "action"} & set(options):  # EPSILON, not the dest's PARAM_EPSILON
        options["metavar"] = PARAMETERS[name].flag.lstrip("-").upper().replace("-", "_")
    parser.add_argument(PARAMETERS[name].flag, dest=f"param_{name}", default=None, **options)


def method_in(argv: list[str]) -> str | None:
    """The value of ``--method`` in a command line, read before parsing (``fit --method M --help`` lists M's
    flags only); None when absent."""
    for i, word in enumerate(argv):
        if word == "--method" and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith("--method="):
            return word.partition("=")[2]
    return None


def estimator_arguments(args: argparse.Namespace, estimator: Callable[..., Any], method: str) -> dict[str, Any]:
    """The keyword arguments of ``estimator`` from the given flags; a flag it does not take, or a
    required parameter left out, is a one-line error naming the flag and the method."""
    accepted = {name: p for name, p in inspect.signature(estimator).parameters.items()
                if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    given = {name: getattr(args, f"param_{name}") for name in PARAMETERS
             if getattr(args, f"param_{name}", None) is not None}
    for name in given:
        if name not in accepted:
            raise InputError(f"{PARAMETERS[name].flag} does not apply to --method {method}")
    for name, p in accepted.items():
        if p.default is p.empty and name not in given:
            flag = PARAMETERS[name].flag if name in PARAMETERS else name
            raise InputError(f"--method {method} needs {flag}")
    return given | {name: value for name, value in FIXED.items() if name in accepted}


def checked(estimator: Any) -> Any:
    """The estimator's validated settings; a message about a parameter names its flag instead."""
    try:
        return estimator.settings()
    except InputError as exc:
        message = str(exc)
        for name, parameter in PARAMETERS.items():
            if message.startswith(f"{name} ("):
                raise InputError(parameter.flag + message[len(name):]) from None
        raise


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """--sep and --file-encoding, on every command that reads a table."""
    parser.add_argument("--sep", help="CSV column separator, e.g. ';' or '\\t' (default: detected from the header "
                                      "line only)")
    parser.add_argument("--file-encoding", dest="text_encoding", default="utf-8", metavar="ENCODING",
                        help="text encoding of CSV files (default utf-8; e.g. latin-1)")


def table(args: argparse.Namespace, path: str) -> Any:
    """A path with the command's --sep/--file-encoding (Parquet and .dat ignore them)."""
    from privbayes.counting.reading import TableFile

    sep = {"\\t": "\t", "tab": "\t"}.get(args.sep, args.sep) if args.sep else None
    return TableFile(path, sep, args.text_encoding)


def add_show_invalid(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--show-invalid", action="store_true",
                        help="when values are refused, print up to 5 of their row numbers (locally; never the values)")


def writable(path: str | None, what: str, suffixes: tuple[str, ...] = ()) -> None:
    """Check an output path before any work: known suffix, existing writable folder, not a folder."""
    import os

    if path is None:
        return
    if suffixes and not path.lower().endswith(suffixes):
        raise InputError(f"{path}: the {what} must end in {' or '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{path}: the folder {folder!r} does not exist")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder; give a file name for the {what}")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InputError(f"{path}: cannot write the {what} there (permission denied)")
