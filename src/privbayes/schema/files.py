"""Schema files: YAML/JSON (bounded, :mod:`privbayes.files.documents`) or the PrivBayes authors' ``.domain``
format, read and written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from privbayes.core.errors import InputError
from privbayes.core.limits import check_file_size
from privbayes.files.documents import read_document
from privbayes.files.tables import atomic_write_text
from privbayes.schema.domain import Schema
from privbayes.schema.domainfile import read_domain


def read_structured(path: str | os.PathLike, what: str) -> Any:
    """A YAML or JSON document, bounded (no YAML aliases; values, depth and size capped:
    :mod:`privbayes.files.documents`)."""
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
