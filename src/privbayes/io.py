"""Files that are not private data: schemas, model files, synthetic outputs; one-line errors and atomic writes.

Private tables are read by the counting layer only (:func:`privbayes.counting.open`).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from privbayes.documents import read_document
from privbayes.domainfile import read_domain
from privbayes.errors import InputError
from privbayes.limits import check_file_size
from privbayes.schema import Schema

OUTPUT_SUFFIXES = (".csv", ".parquet", ".pq")


def atomic_write(path: str | os.PathLike, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it into place.

    A failure leaves no partial output: the temporary file is removed.
    """
    atomic_write_many([(path, write)])


def atomic_write_many(outputs: Sequence[tuple[str | os.PathLike, Callable[[Path], None]]]) -> None:
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
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))  # type: ignore[arg-type]


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


def read_structured(path: str | os.PathLike, what: str) -> Any:
    """A YAML or JSON document, bounded (no YAML aliases; values, depth and size capped:
    :mod:`privbayes.documents`)."""
    return read_document(path, what)


def load_schema(path: str | os.PathLike) -> Schema:
    """A schema from YAML/JSON, or from the PrivBayes authors' ``.domain`` format."""
    path = Path(path)
    if path.suffix.lower() == ".domain":
        if path.is_file():
            check_file_size(path, "domain")
        return read_domain(path)
    return Schema.from_dict(read_structured(path, "schema"), source=str(path))


def as_schema(schema: Any) -> Schema:
    """A :class:`Schema` from a Schema, a schema file path, or a schema dict."""
    if isinstance(schema, Schema):
        return schema
    if isinstance(schema, dict):
        return Schema.from_dict(schema)
    if isinstance(schema, (str, os.PathLike)):
        return load_schema(schema)
    raise InputError(f"schema must be a Schema, a path or a dict, got {type(schema).__name__}")


def save_schema(schema: Schema, path: str | os.PathLike) -> None:
    path = Path(path)
    raw = schema.to_dict()
    if path.suffix.lower() == ".json":
        atomic_write_text(path, json.dumps(raw, indent=2))
    else:
        atomic_write_text(path, yaml.safe_dump(raw, sort_keys=False, allow_unicode=True))
