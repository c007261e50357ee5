"""The ``privbayes`` command line: one module per verb, one set of argument definitions
(:mod:`privbayes.cli.arguments`); thin — parse, call the library, print.

Every user mistake is one line on stderr and exit status 2 (argparse's usage errors too); the
library's notes and warnings are one ``privbayes: note:`` / ``privbayes: warning:`` line each.
"""

from __future__ import annotations

from privbayes.cli.program import main

__all__ = ["main"]
