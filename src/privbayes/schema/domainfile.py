"""The PrivBayes authors' released ``.domain`` format (see ../shared/data/README.md); their
headerless ``.dat`` tables are read by the counting layer with such a schema.

``C min max`` is a continuous attribute cut into 16 equal-width bins; ``D v1 v2 …``
a categorical one whose ``{ }`` groups form its taxonomy tree.  Reading this format
lets our results be compared with the authors' release on identical inputs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from privbayes.core.errors import InputError
from privbayes.core.limits import check_domain_total, check_file_size, limits
from privbayes.schema.attribute import DEFAULT_BINS, Attribute, Kind
from privbayes.schema.domain import Schema

ADULT_NAMES = ("age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
               "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
               "income")


def _parse_groups(tokens: list[str], where: str) -> tuple[tuple, list[str]]:
    stack: list[list] = [[]]
    leaves: list[str] = []
    cap = limits().max_taxonomy_depth
    for token in tokens:
        while token.startswith("{"):
            stack.append([])
            if len(stack) - 1 > cap:  # refused before _to_tuple recurses
                raise InputError(f"{where}: the taxonomy nests more than {cap} levels deep "
                                 "(PRIVBAYES_MAX_TAXONOMY_DEPTH)")
            token = token[1:]
        closes = len(token) - len(token.rstrip("}"))
        token = token.rstrip("}")
        if token:
            stack[-1].append(token)
            leaves.append(token)
        for _ in range(closes):
            if len(stack) == 1:
                raise InputError(f"{where}: unbalanced '}}'")
            group = stack.pop()
            stack[-1].append(tuple(group))
    if len(stack) != 1:
        raise InputError(f"{where}: unbalanced '{{'")
    return _to_tuple(stack[0]), leaves


def _to_tuple(items: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(_to_tuple(x) if isinstance(x, (list, tuple)) else x for x in items)


def read_domain(path: str | os.PathLike, names: Sequence[str] | None = None) -> Schema:
    """A :class:`Schema` from a ``.domain`` file; columns are named ``names`` or ``c0, c1, …``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such domain file")
    check_file_size(path, "domain")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: the domain file is not valid UTF-8 text") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # What the lines declare (16 bins per 'C'; leaves and groups per 'D'), capped before any is built.
    check_domain_total(len(lines), sum(1 + (DEFAULT_BINS if line.startswith("C") else
                                            len(line.split()) - 1 + line.count("{")) for line in lines), str(path))
    if names is None:
        names = (ADULT_NAMES if path.stem == "adult" and len(lines) == len(ADULT_NAMES)
                 else [f"c{i}" for i in range(len(lines))])
    if len(names) != len(lines):
        raise InputError(f"{path}: {len(lines)} attributes but {len(names)} names were given")
    attributes = []
    for i, (line, name) in enumerate(zip(lines, names)):
        where = f"{path}: line {i + 1}"
        kind, *rest = line.split()
        if kind == "C":
            if len(rest) != 2:
                raise InputError(f"{where}: 'C' needs a minimum and a maximum")
            try:
                low, high = float(rest[0]), float(rest[1])
            except ValueError:
                raise InputError(f"{where}: 'C' bounds must be numbers, got {rest[0]!r} and {rest[1]!r}") from None
            attributes.append(Attribute(name, "numeric", lower=low, upper=high, bins=DEFAULT_BINS,
                                        integer=low.is_integer() and high.is_integer()))
        elif kind == "D":
            tree, leaves = _parse_groups(rest, where)
            has_groups = any(isinstance(node, tuple) for node in tree)
            kind_name: Kind = "binary" if len(leaves) == 2 and not has_groups else "categorical"
            attributes.append(Attribute(name, kind_name, categories=tuple(leaves),
                                        taxonomy=tree if has_groups else None))
        else:
            raise InputError(f"{where}: expected 'C' or 'D', got {kind!r}")
    return Schema(tuple(attributes))
