"""The ``privbayes`` program: the parser of every verb (one module per verb, listed in :data:`VERBS`), and
:func:`main`, which runs a verb and turns the library's errors, notes and warnings into one line each."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import NoReturn, TextIO

from privbayes.core.errors import InputError

VERBS = ("fit", "sample", "inspect", "evaluate", "schema", "nbc", "audit", "demo")
"""The verb modules of this package, in the order ``--help`` lists them."""


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, like every other error of the command line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"privbayes: error: {message} (see {self.prog} --help)\n")


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    import importlib

    from privbayes._version import __version__
    from privbayes.cli import arguments

    parser = _Parser(prog="privbayes", description="Publish sensitive tables safely with graphical models: "
                     "adaptive marginals (the default method), PrivBayes (TODS 2017), SA-PrivBayes, private MRFs "
                     "(ICML 2017), safe NBC publishing.  Start with 'privbayes demo' (the default method on the "
                     "bundled Adult data).")
    parser.add_argument("--version", action="version", version=f"privbayes {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    words = list(sys.argv[1:] if argv is None else argv)
    for verb in VERBS:
        module = importlib.import_module(f"privbayes.cli.{verb}")
        if verb == "fit":  # `fit --method M --help` lists M's options only: --method is read before parsing
            module.add_parser(commands, arguments.method_in(words))
        else:
            module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser(argv).parse_args(argv)
    try:
        with _notes():
            args.run(args)
    except InputError as exc:
        print(f"privbayes: error: {exc}", file=sys.stderr)
        rows = getattr(exc, "rows", None)
        if rows and getattr(args, "show_invalid", False):
            print(f"privbayes: data rows (1 = first row after the header): {', '.join(map(str, rows))}",
                  file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of stdout went away (`privbayes inspect m.json | head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes
        return 0
    except (OSError, MemoryError) as exc:
        print(f"privbayes: error: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("privbayes: interrupted", file=sys.stderr)
        return 130
    return 0


@contextlib.contextmanager
def _notes() -> Iterator[None]:
    """Print the library's notes (columns left out, …) and warnings (a domain read from the data, columns no
    clique covers) as one line each."""
    from privbayes.core.errors import (
        ColumnsLeftOut,
        IndependentColumnsWarning,
        InferredDomainWarning,
        UncoveredColumnsWarning,
    )

    lines = {ColumnsLeftOut: "note", InferredDomainWarning: "warning", UncoveredColumnsWarning: "warning",
             IndependentColumnsWarning: "warning"}

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: TextIO | None = None,
             line: str | None = None) -> None:
        kind = next((word for cls, word in lines.items() if issubclass(category, cls)), None)
        if kind is not None:
            print(f"privbayes: {kind}: {message}", file=sys.stderr)
        else:
            original(message, category, filename, lineno, file, line)
    with warnings.catch_warnings():
        for category in lines:
            warnings.simplefilter("always", category)
        original = warnings.showwarning
        warnings.showwarning = show
        try:
            yield
        finally:
            warnings.showwarning = original
