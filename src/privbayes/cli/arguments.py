"""One set of argument definitions for every verb: the same flag, parser and validation everywhere.

Estimator parameters are declared once, by each method (``methods/<m>/parameters.py``, named by its
registry entry): their flags, parsers, choices, defaults and help are derived here; ``privbayes fit --method
M`` passes the given ones to M's estimator and refuses, in one line, a flag that M's estimator does not take.
This module imports nothing heavy, so that ``privbayes --help`` stays fast.
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable
from typing import Any

from privbayes.core.errors import InputError
from privbayes.synthesizers.parameters import (  # noqa: F401 (the parsers of every verb's flags)
    Parameter,
    count,
    number,
    positive_int,
    ratio,
    seed,
)

FIXED = {"progress": True}
"""Parameters the command line sets itself (a progress bar on stderr)."""

COMMON_PARAMETERS = ("epsilon", "neighbours", "random_state")
"""Parameters of most methods, listed once before the methods' groups."""


def method_parameters() -> dict[str, tuple[Parameter, ...]]:
    """Each registered method's flags, from its declarations (:mod:`privbayes.synthesizers.parameters`), in the
    order ``fit --help`` lists them: the default method first.  The declaration modules import nothing heavy, so
    ``--help`` stays fast."""
    from privbayes.synthesizers.registry import DEFAULT_METHOD, METHODS

    names = [DEFAULT_METHOD] + [m for m in METHODS if m != DEFAULT_METHOD]
    return {m: tuple(p for p in METHODS[m].declared_parameters() if p.cli_flag) for m in names}


def flags(methods: dict[str, tuple[Parameter, ...]] | None = None) -> dict[str, Parameter]:
    """Parameter name → its declaration with a flag (the first method's that declares it; methods that share a name
    share its flag and its parser, tested)."""
    out: dict[str, Parameter] = {}
    for declared in (method_parameters() if methods is None else methods).values():
        for p in declared:
            out.setdefault(p.name, p)
    return out


def add_parameters(parser: argparse.ArgumentParser, names: tuple[str, ...] | None = None) -> None:
    """The flags of the estimator parameters ``names`` (default: all), in one list (``privbayes nbc publish``)."""
    methods = method_parameters()
    for name, p in flags(methods).items():
        if names is None or name in names:
            _add_parameter(parser, p, methods)


def add_method_parameters(parser: argparse.ArgumentParser, shown: str | None = None) -> None:
    """Every estimator flag, listed in argument groups: the common parameters first, then one group per method
    (the default method first), each flag in the first group that takes it, with that method's help.  With ``shown``
    (``fit --method M --help``), only the common parameters M takes and M's group are listed; the other flags still
    parse, so that a flag another method takes is refused in one line naming the method
    (:func:`estimator_arguments`)."""
    from privbayes.synthesizers.registry import DEFAULT_METHOD

    every = method_parameters()
    methods = {shown: every[shown]} if shown in every else every
    placed: set[str] = set()
    common = [name for name in COMMON_PARAMETERS if any(name in _names(m) for m in methods.values())]
    if common:
        group = parser.add_argument_group("common parameters (of the differentially private methods)"
                                          if shown is None else "common parameters")
        for name in common:
            _add_parameter(group, next(p for m in methods.values() for p in m if p.name == name), every)
        placed.update(common)
    for method, declared in methods.items():
        above = [p.cli_flag for p in declared if p.name in placed and p.name not in COMMON_PARAMETERS]
        title = f"--method {method}" + (" (the default)" if method == DEFAULT_METHOD else "")
        group = parser.add_argument_group(title, f"also {', '.join(map(str, above))} (listed above)" if above else None)
        for p in declared:
            if p.name not in placed:
                _add_parameter(group, p, every)
                placed.add(p.name)
    for name, p in flags(every).items():
        if name not in placed:
            _add_parameter(parser, p, every, hidden=True)


def _names(declared: tuple[Parameter, ...]) -> set[str]:
    return {p.name for p in declared}


def _add_parameter(parser: argparse.ArgumentParser | argparse._ArgumentGroup, p: Parameter,
                   methods: dict[str, tuple[Parameter, ...]], hidden: bool = False) -> None:
    """``p``'s flag, derived from its declaration: its parser or its choices (when every method that declares the
    name offers the same), its help with the default."""
    same = [q for declared in methods.values() for q in declared if q.name == p.name]
    options: dict[str, Any] = {"help": argparse.SUPPRESS if hidden else p.help_text().replace("%", "%%")}
    if isinstance(p.default, bool):
        options["action"] = argparse.BooleanOptionalAction
    elif p.check.choices and all(q.check.choices == p.check.choices for q in same):
        options["choices"] = p.check.choices  # methods sharing the name but not the choices: each checks its own
    elif p.check.cli is not None:
        options["type"] = p.check.cli
    if p.nargs is not None:
        options["nargs"] = p.nargs
    if "action" not in options and "choices" not in options:  # EPSILON, not the dest's PARAM_EPSILON
        options["metavar"] = p.metavar or str(p.cli_flag).lstrip("-").upper().replace("-", "_")
    parser.add_argument(str(p.cli_flag), dest=f"param_{p.name}", default=None, **options)


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
    known = flags()
    given = {name: getattr(args, f"param_{name}") for name in known
             if getattr(args, f"param_{name}", None) is not None}
    renamed = dict(getattr(estimator, "former_names", {}))
    for name in given:
        if name not in accepted:
            new = f" (renamed {flags()[renamed[name]].cli_flag})" if renamed.get(name) in known else ""
            raise InputError(f"{known[name].cli_flag} does not apply to --method {method}{new}")
    for name, p in accepted.items():
        if p.default is p.empty and name not in given:
            raise InputError(f"--method {method} needs {known[name].cli_flag if name in known else name}")
    return given | {name: value for name, value in FIXED.items() if name in accepted}


def checked(estimator: Any) -> Any:
    """The estimator's validated settings; a message about a parameter names its flag instead."""
    try:
        return estimator.settings()
    except InputError as exc:
        message = str(exc)
        for name, parameter in flags().items():
            if message.startswith(f"{name} ("):
                raise InputError(str(parameter.cli_flag) + message[len(name):]) from None
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
