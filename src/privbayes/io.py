"""Files that are not private data: schemas, model files, synthetic outputs; one-line errors and atomic writes.

Private tables are read by the counting layer only (:func:`privbayes.counting.open`).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import yaml

from privbayes.domainfile import read_domain
from privbayes.errors import InputError
from privbayes.limits import check_file_size
from privbayes.schema import Schema

OUTPUT_SUFFIXES = (".csv", ".parquet", ".pq")
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when present: the same documents, and hostile nesting parsed in milliseconds."""


def atomic_write(path: str | os.PathLike, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it into place.

    A failure leaves no partial output: the temporary file is removed.
    """
    target = Path(path)
    if target.parent and not target.parent.exists():
        raise InputError(f"{target}: the folder {str(target.parent)!r} does not exist")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    os.close(fd)
    tmp = Path(tmp_name)
    umask = os.umask(0)
    os.umask(umask)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _output_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise InputError(f"{path}: unknown table format {suffix or '(none)'!r}; expected .csv or .parquet")
    return suffix


def write_table(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    path = Path(path)
    suffix = _output_suffix(path)
    if suffix == ".csv":
        atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
    else:
        atomic_write(path, lambda tmp: frame.to_parquet(tmp, index=False))


def read_structured(path: str | os.PathLike, what: str) -> Any:
    """A YAML or JSON document."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such {what} file")
    check_file_size(path, what)
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".json":
            return json.loads(text)
        return yaml.load(text, Loader=_YAML_LOADER)
    except UnicodeDecodeError:
        raise InputError(f"{path}: the {what} file is not valid UTF-8 text") from None
    except RecursionError:
        raise InputError(f"{path}: the {what} file nests too deeply") from None
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0]
        raise InputError(f"{path}: the {what} file is not valid {'JSON' if path.suffix.lower() == '.json' else 'YAML'} ({first})") from None


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
