"""The versioned JSON model file: schema, encoding, network, conditionals, parameters, ledger.

Loading validates everything before use: a model file is data, never code, and a
tampered file cannot claim a smaller ε than its ledger spent.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from privbayes.bayesnet.network import Network
from privbayes.encoding import Encoding
from privbayes.errors import InputError
from privbayes.io import atomic_write_text
from privbayes.privacy.accountant import LedgerEntry
from privbayes.schema import Schema

FORMAT = "privbayes-model"
VERSION = 1


def save_model(model: Any, path: str | os.PathLike) -> None:
    document = {
        "format": FORMAT,
        "version": VERSION,
        "schema": model.schema_.to_dict(),
        "encoding": model.encoding_.name,
        "parameters": {"epsilon": model.epsilon, "beta": model.beta, "theta": model.theta, "score": model.score_,
                       "degree": model.degree, "non_private_phase": model.non_private_phase},
        "fitted": {"n": model.n_, "degree": model.degree_, "algorithm": model.algorithm_, "seeded": model.seeded_,
                   "domain_source": model.domain_source_, "epsilon_spent": model.epsilon_spent_},
        "network": model.network_.to_list(),
        "conditionals": [{"shape": list(c.shape), "probabilities": c.ravel().tolist()} for c in model.conditionals_],
        "ledger": [entry.to_dict() for entry in model.ledger_],
    }
    atomic_write_text(path, json.dumps(document))


def _require(condition: bool, path: Path, message: str) -> None:
    if not condition:
        raise InputError(f"{path}: invalid model file: {message}")


def load_model(path: str | os.PathLike) -> Any:
    """A fitted :class:`~privbayes.PrivBayes` from a model file, validated."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such model file")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{path}: not a JSON model file ({type(exc).__name__})") from None
    try:
        return _model_from_document(doc, path)
    except InputError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"{path}: invalid model file: {type(exc).__name__}: {exc}") from None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _model_from_document(doc: Any, path: Path) -> Any:
    from privbayes.synthesizers.privbayes import PrivBayes

    _require(isinstance(doc, dict) and doc.get("format") == FORMAT, path, f"'format' is not {FORMAT!r}")
    _require(doc.get("version") == VERSION, path, f"unsupported version {doc.get('version')!r} (this is {VERSION})")
    for key in ("schema", "encoding", "parameters", "fitted", "network", "conditionals", "ledger"):
        _require(key in doc, path, f"missing {key!r}")
    params, fitted = doc["parameters"], doc["fitted"]
    _require(isinstance(params, dict) and isinstance(fitted, dict), path, "parameters/fitted must be objects")
    schema = Schema.from_dict(doc["schema"], source=f"{path}: schema")
    encoding = Encoding.build(schema, doc["encoding"])
    network = Network.from_list(doc["network"])
    _require(isinstance(doc["ledger"], list), path, "the ledger must be a list")
    ledger = tuple(LedgerEntry(**entry) for entry in doc["ledger"])
    _require(all(_number(e.epsilon) and _number(e.sensitivity) and isinstance(e.step, str)
                 and isinstance(e.mechanism, str) and isinstance(e.measured, str) for e in ledger),
             path, "ledger entries need numeric epsilon/sensitivity and text step/mechanism/measured")
    model = PrivBayes(params["epsilon"], beta=params["beta"], theta=params["theta"], score=params["score"],
                      encoding=encoding.name, degree=params["degree"], non_private_phase=params["non_private_phase"])
    try:
        model.check_parameters()
    except InputError as exc:
        _require(False, path, str(exc))
    d = len(encoding.attributes)
    _require(sorted(p.child for p in network.pairs) == list(range(d)), path, "the network must cover every attribute once")
    spent = sum(entry.epsilon for entry in ledger)
    epsilon = params["epsilon"]
    _require(_number(epsilon) and epsilon > 0, path, "epsilon must be a finite number > 0")
    _require(_number(fitted.get("epsilon_spent")), path, "epsilon_spent must be a number")
    _require(isinstance(fitted.get("n"), int) and fitted["n"] > 0, path, "n must be a positive integer")
    _require(fitted.get("degree") is None or _count(fitted["degree"]), path, "fitted degree must be an integer ≥ 0")
    _require(isinstance(fitted.get("seeded"), bool), path, "fitted seeded must be true or false")
    _require(all(e.epsilon > 0 for e in ledger), path, "ledger entries must have positive epsilon")
    _require(spent <= epsilon * (1 + 1e-9), path, f"the ledger spends {spent:g}, more than the claimed epsilon {epsilon:g}")
    _require(math.isclose(fitted.get("epsilon_spent", -1), spent, rel_tol=1e-9, abs_tol=1e-12), path,
             "epsilon_spent does not match the ledger")
    if params["non_private_phase"] is None:  # a DP claim: every phase must have been paid for
        _check_paid(ledger, network, fitted, path)
    model.conditionals_ = _conditionals(doc["conditionals"], network, encoding, path)
    model.schema_, model.encoding_, model.network_, model.ledger_ = schema, encoding, network, ledger
    model.n_ = int(fitted["n"])
    model.degree_ = fitted["degree"]
    model.algorithm_ = str(fitted["algorithm"])
    model.seeded_ = bool(fitted["seeded"])
    model.domain_source_ = str(fitted["domain_source"])
    model.score_ = str(params["score"])
    model.epsilon_spent_ = float(fitted["epsilon_spent"])
    return model


def _check_paid(ledger: tuple[LedgerEntry, ...], network: Network, fitted: dict, path: Path) -> None:
    """The ledger of a DP model holds d − 1 selections (if any pair has parents) and one
    Laplace release per measured table (Alg. 1: d − k; Alg. 3: d)."""
    d = len(network.pairs)
    k = fitted.get("degree")
    measured = d - k if "Alg. 1" in str(fitted.get("algorithm")) and isinstance(k, int) else d
    releases = sum(e.mechanism == "discrete Laplace" for e in ledger)
    selections = sum(e.mechanism == "exponential" for e in ledger)
    _require(releases == measured, path, f"a differentially private model needs {measured} noisy tables in its ledger, "
                                         f"found {releases}")
    _require(network.degree == 0 or selections == d - 1, path,
             f"a differentially private network needs {d - 1} exponential-mechanism steps, found {selections}")


def _conditionals(raw: Any, network: Network, encoding: Encoding, path: Path) -> list[np.ndarray]:
    _require(isinstance(raw, list) and len(raw) == len(network.pairs), path, "one conditional per AP pair is needed")
    attrs = encoding.attributes
    out = []
    for pair, item in zip(network.pairs, raw):
        for a, level in pair.parents:
            _require(0 <= a < len(attrs) and 0 <= level < attrs[a].height, path, f"parent ({a}, {level}) is out of range")
        shape = [attrs[a].level_size(level) for a, level in pair.parents] + [attrs[pair.child].size]
        _require(isinstance(item, dict) and item.get("shape") == shape, path,
                 f"conditional of attribute {attrs[pair.child].name!r} must have shape {shape}")
        raw = item.get("probabilities")
        _require(isinstance(raw, list) and all(_number(v) for v in raw), path, "probabilities must be a list of numbers")
        values = np.asarray(raw, dtype=np.float64)
        _require(values.size == int(np.prod(shape)), path, "a conditional has the wrong number of probabilities")
        table = values.reshape(shape)
        _require(bool(np.all(np.isfinite(table)) and np.all(table >= 0)), path, "probabilities must be finite and >= 0")
        _require(bool(np.allclose(table.sum(axis=-1), 1.0, atol=1e-6)), path, "each conditional row must sum to 1")
        out.append(table)
    return out
