"""Reading and writing tables, schemas and other files, with one-line errors and atomic writes."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import yaml

from privbayes.domainfile import read_dat, read_domain
from privbayes.errors import InputError
from privbayes.schema import Schema

TABLE_SUFFIXES = (".csv", ".parquet", ".pq")


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


def _suffix(path: Path, allowed: tuple[str, ...] = TABLE_SUFFIXES) -> str:
    suffix = path.suffix.lower()
    if suffix not in allowed:
        names = " or ".join(s for s in allowed if s != ".pq")
        raise InputError(f"{path}: unknown table format {suffix or '(none)'!r}; expected {names}")
    return suffix


def read_table(path: str | os.PathLike, schema: Schema | None = None) -> pd.DataFrame:
    """A CSV (with header) or Parquet file as a DataFrame of raw values; also the papers'
    whitespace-separated ``.dat`` files, whose columns are named by ``schema``."""
    path = Path(path)
    suffix = _suffix(path, TABLE_SUFFIXES + (".dat",))
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if suffix == ".dat" and schema is None:
        raise InputError(f"{path}: a .dat file has no header; give its schema (for example the authors' .domain file)")
    try:
        if suffix == ".csv":
            frame = pd.read_csv(path, encoding="utf-8", skipinitialspace=True)
        elif suffix == ".dat":
            frame = read_dat(path, schema)
        else:
            frame = pd.read_parquet(path)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 text (byte {exc.start})") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty") from None
    except (pd.errors.ParserError, ValueError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: cannot read the table ({first})") from None
    if suffix == ".csv":
        mangled = [c for c in frame.columns if isinstance(c, str) and "." in c and c.rsplit(".", 1)[0] in frame.columns
                   and c.rsplit(".", 1)[1].isdigit()]
        if mangled:
            raise InputError(f"{path}: column {mangled[0].rsplit('.', 1)[0]!r} appears more than once")
    return frame


def write_table(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    path = Path(path)
    suffix = _suffix(path)
    if suffix == ".csv":
        atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
    else:
        atomic_write(path, lambda tmp: frame.to_parquet(tmp, index=False))


def read_structured(path: str | os.PathLike, what: str) -> Any:
    """A YAML or JSON document."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such {what} file")
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except UnicodeDecodeError:
        raise InputError(f"{path}: the {what} file is not valid UTF-8 text") from None
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0]
        raise InputError(f"{path}: the {what} file is not valid {'JSON' if path.suffix.lower() == '.json' else 'YAML'} ({first})") from None


def load_schema(path: str | os.PathLike) -> Schema:
    """A schema from YAML/JSON, or from the PrivBayes authors' ``.domain`` format."""
    path = Path(path)
    if path.suffix.lower() == ".domain":

        return read_domain(path)
    return Schema.from_dict(read_structured(path, "schema"), source=str(path))


def save_schema(schema: Schema, path: str | os.PathLike) -> None:
    path = Path(path)
    raw = schema.to_dict()
    if path.suffix.lower() == ".json":
        atomic_write_text(path, json.dumps(raw, indent=2))
    else:
        atomic_write_text(path, yaml.safe_dump(raw, sort_keys=False, allow_unicode=True))
