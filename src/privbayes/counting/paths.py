"""Literal paths for engines that read a path as a pattern (docs/decisions.md, "Hostile files").

DuckDB and Spark expand ``*``, ``?``, ``[…]`` (Spark/Hadoop also ``{a,b}`` and ``\\``) in the
path they are given, so a private file literally named ``d*.csv`` would also pull in
``dother.csv``.  The engines are therefore never given the user's path: they get a symbolic
link with a fixed, pattern-free name (``table`` plus the file's suffixes) in a fresh private
folder, pointing at the resolved file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from privbayes.core.errors import InputError

PATTERN_CHARACTERS = frozenset("*?[]{}\\,:")
"""Characters with a meaning in DuckDB's or Hadoop's path patterns (``:`` and ``,`` too: Hadoop
reads a URI scheme and lists of paths)."""


class LiteralPath:
    """A pattern-free link to one existing file; :meth:`close` removes it (and its folder)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        target = Path(path).resolve()
        if not target.is_file():
            raise InputError(f"{path}: no such file")
        suffixes = "".join(s for s in target.suffixes[-2:] if s.isascii() and s[1:].isalnum())
        self.folder = tempfile.mkdtemp(prefix="privbayes-")
        self.path = os.path.join(self.folder, "table" + suffixes.lower())
        if PATTERN_CHARACTERS & set(self.path):
            self.close()
            raise InputError("the temporary folder's path holds pattern characters (* ? [ ] { } \\ , :); "
                             "set TMPDIR to a plain folder")
        os.symlink(target, self.path)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> LiteralPath:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
