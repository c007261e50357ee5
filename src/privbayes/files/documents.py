"""Bounded parsing of the YAML and JSON documents users give us: schemas, NBC priors, views files
and model files.

A document is untrusted input, and its size in bytes does not bound what it costs to use:

* YAML aliases share one node many times.  Nine lines of ``&a [*b, *b, …]`` stand for 10⁹
  strings; the safe loader builds them shared (cheap), but any code that then walks, copies or
  formats the tree (``str(drop)``, a taxonomy's leaves, an error message echoing ``kind``) expands
  it: minutes of CPU and gigabytes.  Anchors and aliases are therefore refused outright (a schema
  or prior never needs them), checked on libyaml's event stream before any object is built.
* Every document is capped in values (scalars, lists and mappings) and in nesting depth
  (``limits().max_document_nodes`` and ``max_document_depth``).  For YAML the event stream is
  counted before construction; for JSON the text's separators bound the number of values before
  parsing, and the parsed tree is checked iteratively before any caller walks it.
* Numbers must be finite: JSON's ``NaN``/``Infinity`` constants and YAML's ``.nan``/``.inf`` are
  refused, and an integer too long to convert (Python refuses > 4300 digits) is a one-line error.

Every refusal is one line naming the file and the kind of problem (:class:`InputError`).
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

import yaml

from privbayes.core.errors import InputError
from privbayes.core.limits import check_file_size, limits

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when present: the same documents, and hostile nesting parsed in milliseconds."""

RATIONAL_TEXT = re.compile(r"-?[0-9]{1,400}(/[0-9]{1,400})?")
"""Exact rationals as model files store them (``str(Fraction)``): at most 400 digits each side and no
exponent (``Fraction("1e999999999")`` would build a billion-digit integer)."""


class _NonFinite(ValueError):
    pass


def _refuse_constant(name: str) -> float:
    raise _NonFinite(name)


def read_document(path: str | os.PathLike, what: str, *, json_only: bool = False) -> Any:
    """The YAML or JSON document in ``path`` (JSON when the name ends in ``.json``, or always with
    ``json_only``: model files), bounded.

    ``what`` names the kind of file in messages ("schema", "prior", "model", "views")."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such {what} file")
    check_file_size(path, what)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: the {what} file is not valid UTF-8 text") from None
    if json_only or path.suffix.lower() == ".json":
        return parse_json(text, str(path), what)
    return parse_yaml(text, str(path), what)


def read_model_document(path: str | os.PathLike) -> Any:
    """The parsed JSON of a model file of any method, bounded (its format's loader validates it)."""
    return read_document(path, "model", json_only=True)


def parse_json(text: str, source: str, what: str) -> Any:
    """A JSON document, its size bounded before parsing and its tree checked before it is returned."""
    caps = limits()
    # Every value but the first of a list or mapping follows a comma, and each first value follows
    # a bracket: this bounds the number of values from above before anything is built.
    values = 1 + text.count(",") + text.count("[") + text.count("{")
    if values > caps.max_document_nodes:
        raise _too_many(source, what)
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except _NonFinite:
        raise InputError(f"{source}: the {what} file holds a number that is not finite (NaN or Infinity)") from None
    except RecursionError:
        raise InputError(f"{source}: the {what} file is not valid JSON here (it nests more than "
                         f"{caps.max_document_depth} levels deep; PRIVBAYES_MAX_DOCUMENT_DEPTH)") from None
    except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        if isinstance(exc, json.JSONDecodeError):
            first = exc.msg  # without the position: a line/column count says nothing useful here
        raise InputError(f"{source}: the {what} file is not valid JSON ({_short(first)})") from None
    check_tree(document, source, what)
    return document


def parse_yaml(text: str, source: str, what: str) -> Any:
    """A YAML document: its events checked (no anchors or aliases, values and depth capped) before
    the safe loader builds anything."""
    caps = limits()
    nodes = depth = 0
    try:
        for event in yaml.parse(text, Loader=_YAML_LOADER):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise InputError(f"{source}: the {what} file uses YAML anchors or aliases (&name, *name), which are "
                                 "not accepted; write the values out")
            if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                nodes += 1
                if nodes > caps.max_document_nodes:
                    raise _too_many(source, what)
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > caps.max_document_depth:
                    raise _too_deep(source, what)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
        document = yaml.load(text, Loader=_YAML_LOADER)
    except InputError:
        raise
    except RecursionError:
        raise _too_deep(source, what) from None
    except yaml.YAMLError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InputError(f"{source}: the {what} file is not valid YAML ({_short(first)})") from None
    except ValueError:  # an integer too long to convert, a bad date
        raise InputError(f"{source}: the {what} file holds a value YAML cannot convert (an integer of more than "
                         "4300 digits, or an impossible date)") from None
    check_tree(document, source, what)
    return document


def check_tree(document: Any, source: str, what: str) -> None:
    """Refuse a parsed document with more values or deeper nesting than the caps, or with a
    non-finite number; iterative, and visits each value once (refusing a value seen twice, which
    only shared YAML nodes can produce)."""
    caps = limits()
    nodes = 0
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        node, level = stack.pop()
        nodes += 1
        if nodes > caps.max_document_nodes:
            raise _too_many(source, what)
        if isinstance(node, float) and not math.isfinite(node):
            raise InputError(f"{source}: the {what} file holds a number that is not finite (nan or inf)")
        if isinstance(node, (list, dict)):
            if level > caps.max_document_depth:
                raise _too_deep(source, what)
            if id(node) in seen:
                raise InputError(f"{source}: the {what} file repeats a shared value (YAML aliases are not accepted)")
            seen.add(id(node))
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, level + 1) for child in children)
            if isinstance(node, dict):
                stack.extend((key, level + 1) for key in node if not isinstance(key, str))


def is_rational_text(text: Any) -> bool:
    """Whether ``text`` is an exact rational as model files store it (see :data:`RATIONAL_TEXT`)."""
    return isinstance(text, str) and RATIONAL_TEXT.fullmatch(text) is not None


def ledger_problem(raw: Any) -> str | None:
    """What is wrong with a model file's raw ledger, or None: it must be a list of objects whose
    ``epsilon``/``sensitivity``/``delta`` (and, in a zCDP ledger, ``rho``) are finite numbers and whose ``*_exact``
    values are plain rationals (:data:`RATIONAL_TEXT`), checked before anything converts them."""
    if not isinstance(raw, list) or not all(isinstance(entry, dict) for entry in raw):
        return "the ledger must be a list of objects"
    for entry in raw:
        for key in ("epsilon", "sensitivity", "delta", "rho"):
            value = entry.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                return f"ledger {key} must be a finite number"
            if f"{key}_exact" in entry and not is_rational_text(entry[f"{key}_exact"]):
                return f"ledger {key}_exact must be a rational such as '1/3' (at most 400 digits each side)"
    return None


def _too_many(source: str, what: str) -> InputError:
    return InputError(f"{source}: the {what} file holds more than {limits().max_document_nodes:,} values "
                      "(PRIVBAYES_MAX_DOCUMENT_NODES)")


def _too_deep(source: str, what: str) -> InputError:
    return InputError(f"{source}: the {what} file nests more than {limits().max_document_depth} levels deep "
                      "(PRIVBAYES_MAX_DOCUMENT_DEPTH)")


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
