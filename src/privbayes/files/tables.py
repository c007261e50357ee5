"""Atomic writes of the files the library publishes (model files, schemas, synthetic tables): a failure
leaves no partial output.  Private tables are read by the counting layer only (:func:`privbayes.counting.open`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from privbayes.core.errors import InputError

OUTPUT_SUFFIXES = (".csv", ".parquet", ".pq")


def atomic_write(path: str | os.PathLike, write: Callable[[Path], object]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it into place.

    A failure leaves no partial output: the temporary file is removed.
    """
    atomic_write_many([(path, write)])


def atomic_write_many(outputs: Sequence[tuple[str | os.PathLike, Callable[[Path], object]]]) -> None:
    """Write several files together: each ``write(tmp)`` to a temporary file beside its target,
    and only when all have succeeded, rename them into place.

    A failure while writing leaves none of the outputs and no temporary file (a command that
    writes a views file and a table never leaves the first when the second fails).
    """
    umask = os.umask(0)
    os.umask(umask)
    pending: list[tuple[Path, Path]] = []
    try:
        for path, write in outputs:
            target = Path(path)
            if target.parent and not target.parent.exists():
                raise InputError(f"{target}: the folder {str(target.parent)!r} does not exist")
            fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
            os.close(fd)
            pending.append((Path(tmp_name), target))
            write(pending[-1][0])
            os.chmod(pending[-1][0], 0o666 & ~umask)
        for tmp, target in pending:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in pending:
            tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _output_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise InputError(f"{path}: unknown table format {suffix or '(none)'!r}; expected .csv or .parquet")
    return suffix


def table_writer(frame: pd.DataFrame, path: str | os.PathLike) -> Callable[[Path], None]:
    """A writer of ``frame`` in the format ``path``'s suffix names (checked now), for :func:`atomic_write`."""
    if _output_suffix(Path(path)) == ".csv":
        return lambda tmp: frame.to_csv(tmp, index=False)
    return lambda tmp: frame.to_parquet(tmp, index=False)


def write_table(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    atomic_write(path, table_writer(frame, path))
