"""The MRF model document: versioned JSON (``"format": "privbayes-mrf", "version": 1``).

Holds the schema, the cliques (attribute names), θ per clique, the parameters and the
ledger.  Loading validates everything before use — a model file is data, never code:
declared shapes are checked against the schema and a size limit *before* any array is
allocated, and a file cannot claim a smaller ε than its ledger spent or a DP release
without the noisy tables it needs.
"""

from __future__ import annotations

import json
import math
import os
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import numpy as np

from privbayes.errors import InputError
from privbayes.inference import Domain
from privbayes.privacy.accountant import LedgerEntry
from privbayes.schema import Schema
from privbayes.undirected.cliques import clique_indices
from privbayes.undirected.model import LogLinearModel
from privbayes.undirected.released import ReleasedMRF

FORMAT = "privbayes-mrf"
VERSION = 1
MAX_PARAMETERS = 2**24
"""Most θ cells a model file may declare (128 MiB of float64)."""


def to_dict(model: ReleasedMRF) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "schema": model.schema.to_dict(),
        "cliques": [[model.schema.names[v] for v in c] for c in model.cliques],
        "parameters": dict(model.parameters),
        "fitted": {"n": model.n, "seeded": model.seeded, "epsilon_spent": model.epsilon_spent,
                   "delta_spent": model.delta_spent},
        "theta": [{"shape": list(t.shape), "values": t.ravel().tolist()} for t in model.model.theta],
        "ledger": [entry.to_dict() for entry in model.ledger],
    }


def _require(condition: bool, source: str, message: str) -> None:
    if not condition:
        raise InputError(f"{source}: invalid MRF model: {message}")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load(path: str | os.PathLike, factory: Callable[..., Any]) -> ReleasedMRF:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such model file")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{path}: not a JSON model file ({type(exc).__name__})") from None
    return from_dict(document, str(path), factory)


def from_dict(document: Any, source: str, factory: Callable[..., Any]) -> ReleasedMRF:
    """The released model of :func:`to_dict`'s document, validated before any array is allocated
    (``factory``, :class:`PrivateMRF`, checks the parameters)."""
    try:
        return _from_dict(document, source, factory)
    except InputError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"{source}: invalid MRF model: {type(exc).__name__}: {exc}") from None


def _from_dict(doc: Any, source: str, factory: Callable[..., Any]) -> ReleasedMRF:
    _require(isinstance(doc, dict) and doc.get("format") == FORMAT, source, f"'format' is not {FORMAT!r}")
    _require(doc.get("version") == VERSION, source, f"unsupported version {doc.get('version')!r} (this is {VERSION})")
    for key in ("schema", "cliques", "parameters", "fitted", "theta", "ledger"):
        _require(key in doc, source, f"missing {key!r}")
    params, fitted = doc["parameters"], doc["fitted"]
    _require(isinstance(params, dict) and isinstance(fitted, dict), source, "parameters/fitted must be objects")
    schema = Schema.from_dict(doc["schema"], source=f"{source}: schema")
    _require(isinstance(doc["cliques"], list), source, "cliques must be a list")
    model = factory([tuple(c) if isinstance(c, list) else c for c in doc["cliques"]], params.get("epsilon"),
                       method=params.get("method"), relation=params.get("relation"), lam=params.get("lam"),
                       inference=params.get("inference"), delta=params.get("delta"))
    try:
        model.check_parameters()
        cliques = clique_indices(model.cliques, schema)
    except InputError as exc:
        raise InputError(f"{source}: invalid MRF model: {exc}") from None
    domain = Domain(tuple(a.size for a in schema.attributes))
    shapes = [list(domain.shape(c)) for c in cliques]
    _require(sum(domain.cells(c) for c in cliques) <= MAX_PARAMETERS, source,
             f"the cliques declare more than {MAX_PARAMETERS} parameters")
    theta = _theta(doc["theta"], shapes, source)
    ledger = _ledger(doc["ledger"], model, len(cliques), source)
    spent = sum((entry.epsilon for entry in ledger), Fraction(0))
    _require(spent <= Fraction(model.epsilon), source,
             f"the ledger spends {float(spent):g}, more than the claimed epsilon {model.epsilon:g}")
    _require(_number(fitted.get("epsilon_spent")) and math.isclose(fitted["epsilon_spent"], float(spent),
                                                                  rel_tol=1e-9, abs_tol=1e-12),
             source, "epsilon_spent does not match the ledger")
    _require(_number(fitted.get("delta_spent")) and fitted["delta_spent"] >= 0, source, "delta_spent must be >= 0")
    _require(_number(fitted.get("n")) and fitted["n"] > 0, source, "n must be a positive number")
    _require(isinstance(fitted.get("seeded"), bool), source, "seeded must be true or false")
    return ReleasedMRF(schema, cliques, LogLinearModel(domain, cliques, tuple(theta), model.inference),
                       model.get_params(), float(fitted["n"]), ledger, fitted["seeded"])


def _theta(raw: Any, shapes: list[list[int]], source: str) -> list[np.ndarray]:
    _require(isinstance(raw, list) and len(raw) == len(shapes), source, "one θ table per clique is needed")
    out = []
    for item, shape in zip(raw, shapes):
        _require(isinstance(item, dict) and item.get("shape") == shape, source, f"a θ table must have shape {shape}")
        values = item.get("values")
        _require(isinstance(values, list) and len(values) == math.prod(shape), source,
                 "a θ table has the wrong number of values")
        _require(all(_number(v) for v in values), source, "θ values must be finite numbers")
        out.append(np.asarray(values, dtype=np.float64).reshape(shape))
    return out


def _ledger(raw: Any, model: Any, n_cliques: int, source: str) -> tuple[LedgerEntry, ...]:
    _require(isinstance(raw, list), source, "the ledger must be a list")
    _require(all(isinstance(entry, dict) for entry in raw), source, "ledger entries must be objects")
    ledger = tuple(LedgerEntry.from_dict(entry) for entry in raw)
    _require(all(entry.epsilon > 0 and entry.delta >= 0 for entry in ledger), source,
             "ledger entries need epsilon > 0 and delta >= 0")
    laplace = sum(entry.mechanism == "discrete Laplace" for entry in ledger)
    if model.method == "psgd":
        _require(len(ledger) == 1 and laplace == 0, source, "a psgd model has exactly one Gaussian ledger entry")
    else:
        _require(laplace == n_cliques == len(ledger), source,
                 f"a {model.method} model needs one noisy table per clique ({n_cliques}) in its ledger")
    return ledger
