"""Column types from SDV single-table metadata, for the schema draft (``schema infer --metadata``).

SDV's metadata says what each column *is* (its ``sdtype``) and which column is the key, but
nothing about the domain (no bounds, no categories), so the draft still reads those from the data.
Both shapes SDV writes are read: the single-table document ``{"columns": {...}, "primary_key": ...}``
and the SDV >= 1.0 multi-table document ``{"tables": {name: {...}}, "METADATA_SPEC_VERSION": ...}``
holding exactly one table.  Our own small parser (no dependency on ``sdv``); the file is bounded by
:mod:`privbayes.files.documents` before it is walked, and every refusal is one line
(docs/decisions.md, "Schema drafts: exact spelling, outward rounding, point masses").

Each column becomes one of :data:`COLUMN_TYPES`: ``numerical``, ``categorical``, ``boolean``,
``datetime``, ``id`` (the primary key and alternate keys too) or ``pii`` (an SDV personal-data
sdtype such as ``email``, or any column marked ``"pii": true``) or ``other`` (SDV's ``other`` and
``unknown``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from privbayes.core.errors import InputError
from privbayes.files.documents import check_tree, read_document

COLUMN_TYPES = ("numerical", "categorical", "boolean", "datetime", "id", "pii", "other")
PII_SDTYPES = frozenset({
    "address", "administrative_unit", "bban", "city", "company", "country", "country_code", "credit_card_number",
    "email", "first_name", "iban", "ipv4_address", "ipv6_address", "job", "last_name", "license_plate",
    "mac_address", "name", "phone_number", "postcode", "ssn", "state", "state_abbr", "street_address",
    "swift11", "swift8", "url", "user_agent_string", "zipcode"})
_OTHER = frozenset({"other", "unknown"})
_WHAT = "SDV metadata"


def read_sdv_metadata(source: str | os.PathLike[str] | Mapping[str, Any]) -> dict[str, str]:
    """Column name -> one of :data:`COLUMN_TYPES`, from an SDV metadata JSON file or its parsed
    mapping; one-line :class:`InputError` for anything else."""
    if isinstance(source, Mapping):
        where = "metadata"
        document: Any = dict(source)
        check_tree(document, where, _WHAT)
    elif isinstance(source, (str, os.PathLike)):
        where = str(source)
        document = read_document(source, _WHAT, json_only=True)
    else:
        raise InputError(f"metadata must be a path to an SDV metadata JSON file or its mapping, got "
                         f"{type(source).__name__}")
    return _columns(_single_table(document, where), where)


def _single_table(document: Any, where: str) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise InputError(f"{where}: SDV metadata must be a JSON object")
    if "tables" in document:
        tables = document["tables"]
        if not isinstance(tables, dict) or len(tables) != 1:
            count = len(tables) if isinstance(tables, dict) else 0
            raise InputError(f"{where}: SDV metadata must describe exactly one table, found {count}")
        (table,) = tables.values()
        if not isinstance(table, dict):
            raise InputError(f"{where}: the SDV metadata's table must be a JSON object")
        return table
    return document


def _columns(table: dict[str, Any], where: str) -> dict[str, str]:
    columns = table.get("columns")
    if not isinstance(columns, dict) or not columns:
        raise InputError(f"{where}: SDV metadata needs a non-empty 'columns' object (column name -> "
                         "{\"sdtype\": ...})")
    out: dict[str, str] = {}
    for name, entry in columns.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("sdtype"), str):
            raise InputError(f"{where}: column {name!r} needs an object with a text 'sdtype'")
        out[name] = _column_type(entry, name, where)
    for key in _keys(table, where):
        if key not in out:
            raise InputError(f"{where}: the key column {key!r} is not among the metadata's columns")
        out[key] = "id"
    return out


def _column_type(entry: dict[str, Any], name: str, where: str) -> str:
    sdtype = entry["sdtype"]
    if entry.get("pii") is True or sdtype in PII_SDTYPES:
        return "pii"
    if sdtype in _OTHER:
        return "other"
    if sdtype in COLUMN_TYPES[:5]:
        return str(sdtype)
    raise InputError(f"{where}: column {name!r} has an unknown sdtype {sdtype[:40]!r} (expected numerical, "
                     "categorical, boolean, datetime, id, other, unknown, a personal-data sdtype such as email, "
                     "or \"pii\": true)")


def _keys(table: dict[str, Any], where: str) -> list[str]:
    keys: list[str] = []
    for field in ("primary_key", "alternate_keys"):
        value = table.get(field)
        values = value if isinstance(value, list) else [] if value is None else [value]
        for key in values:
            if not isinstance(key, str):
                raise InputError(f"{where}: {field} must name columns (text)")
            keys.append(key)
    return keys
