"""The MRF model document: versioned JSON (``"format": "privbayes-mrf", "version": 3``; 1 and 2 still load).

Holds the schema, the cliques (attribute names), θ per clique (version 3: compact blocks,
:mod:`privbayes.files.blocks`; versions 1-2: JSON number lists), the parameters and the ledger.  Loading validates
everything before use — a model file is data, never code:
declared shapes are checked against the schema and a size limit *before* any array is
allocated, and the ledger must equal the plan its parameters imply (mechanism, ε, δ and the
count tables' sensitivity), so a file cannot claim a smaller ε than it spent, less noise than it
paid for, or a DP release without the noisy tables it needs.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from privbayes.core.errors import InputError
from privbayes.files import blocks
from privbayes.files.documents import ledger_problem, read_model_document
from privbayes.inference import DRAWS, Domain
from privbayes.methods.mrf.cliques import clique_indices
from privbayes.methods.mrf.model import MAX_ABS_THETA, LogLinearModel, exact_junction_tree
from privbayes.methods.mrf.released import FORMAT, VERSION, ReleasedMRF
from privbayes.methods.mrf.settings import MRFSettings
from privbayes.privacy.accountant import LedgerEntry
from privbayes.privacy.plan import PlanMismatchError
from privbayes.privacy.record import ReleaseRecord
from privbayes.schema import Schema

READABLE_VERSIONS = (1, 2, VERSION)
MAX_PARAMETERS = 2**24
"""Most θ cells a model file may declare (128 MiB of float64)."""
MAX_N = 2.0**63
"""Largest n a model file may state (counts are int64)."""
MAX_ESTIMATE_TEXT = 1_000_000
"""Longest ``fitted.estimate`` line (one L2 weight per clique; the cliques are capped by :data:`MAX_PARAMETERS`)."""


def _require(condition: bool, source: str, message: str) -> None:
    if not condition:
        raise InputError(f"{source}: invalid MRF model: {message}")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load(path: str | os.PathLike[str]) -> ReleasedMRF:
    """A released MRF from a model file, verified (any method's file: :func:`privbayes.load`)."""
    return from_document(read_model_document(path), str(path))


def from_document(document: Any, source: str) -> ReleasedMRF:
    """The released model of a parsed MRF document, validated before any array is allocated; the
    plan is recomputed from the parameters and the ledger must equal it."""
    try:
        return _from_document(document, source)
    except InputError as exc:
        message = str(exc)
        raise InputError(message if message.startswith(source) else f"{source}: invalid MRF model: {message}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError) as exc:
        raise InputError(f"{source}: invalid MRF model: {type(exc).__name__}: {exc}") from None


def _from_document(doc: Any, source: str) -> ReleasedMRF:
    _require(isinstance(doc, dict) and doc.get("format") == FORMAT, source, f"'format' is not {FORMAT!r}")
    version = doc.get("version")
    _require(version in READABLE_VERSIONS, source, f"unsupported version {version!r} (this library reads versions "
             f"{', '.join(map(str, READABLE_VERSIONS))})")
    for key in ("schema", "cliques", "parameters", "fitted", "theta", "ledger"):
        _require(key in doc, source, f"missing {key!r}")
    params, fitted = doc["parameters"], doc["fitted"]
    _require(isinstance(params, dict) and isinstance(fitted, dict), source, "parameters/fitted must be objects")
    schema = Schema.from_dict(doc["schema"], source=f"{source}: schema")
    _require(isinstance(doc["cliques"], list) and all(isinstance(c, list) for c in doc["cliques"]), source,
             "cliques must be a list of lists of names")
    names = [tuple(c) for c in doc["cliques"]]
    cliques = clique_indices(names, schema)
    settings = MRFSettings.from_parameters(params, version=version)
    _require(_number(fitted.get("n")) and 0 < fitted["n"] <= MAX_N, source, f"n must be a number in (0, {MAX_N:g}]")
    n = float(fitted["n"])
    if version < 2 and settings.estimation == "psgd" and settings.delta is None:
        settings = replace(settings, delta=Fraction(1.0 / n))  # version 1 took δ = 1/n as a float
    domain = Domain(tuple(a.size for a in schema.attributes))
    _require(sum(domain.cells(c) for c in cliques) <= MAX_PARAMETERS, source,
             f"the cliques declare more than {MAX_PARAMETERS} parameters")
    if settings.inference == "exact":  # the exact-inference cap holds whatever the file requests
        try:
            exact_junction_tree(domain, cliques)
        except ValueError as exc:
            raise InputError(f"{source}: invalid MRF model: {exc}") from None
    theta = _theta(doc["theta"], [list(domain.shape(c)) for c in cliques], source, version >= 3)
    problem = ledger_problem(doc["ledger"])  # finite numbers, plain rationals: before any Fraction is built
    _require(problem is None, source, str(problem))
    ledger = tuple(LedgerEntry.from_dict(entry) for entry in doc["ledger"])
    plan = settings.plan(round(n), schema, names)
    try:
        plan.check(ledger)
    except PlanMismatchError as exc:
        _require(False, source, f"the ledger differs from the plan its parameters imply ({exc})")
    spent = sum((entry.epsilon for entry in ledger), Fraction(0))
    _require(_number(fitted.get("epsilon_spent")) and math.isclose(fitted["epsilon_spent"], float(spent),
                                                                  rel_tol=1e-9, abs_tol=1e-12),
             source, "epsilon_spent does not match the ledger")
    _require(isinstance(fitted.get("seeded"), bool), source, "seeded must be true or false")
    caveats = fitted.get("caveats", [])
    _require(isinstance(caveats, list) and all(isinstance(c, str) for c in caveats), source, "caveats must be text")
    estimate = fitted.get("estimate", "")  # absent from files written before the floored default
    _require(isinstance(estimate, str) and len(estimate) <= MAX_ESTIMATE_TEXT, source,
             f"estimate must be text of at most {MAX_ESTIMATE_TEXT} characters")
    draw = fitted.get("draw", "iid")  # files written before the balanced draw sample as they did
    _require(draw in DRAWS, source, f"fitted draw must be one of {', '.join(DRAWS)}")
    return ReleasedMRF(schema, cliques, LogLinearModel(domain, cliques, tuple(theta), settings.inference),
                       settings.to_parameters(),
                       ReleaseRecord(plan, ledger, n, fitted["seeded"],
                                     str(fitted.get("domain_source", "given by the user (public)")), tuple(caveats),
                                     str(doc.get("library_version", "0.2.0"))), estimate, draw)


def _theta(raw: Any, shapes: list[list[int]], source: str, as_blocks: bool) -> list[np.ndarray]:
    """θ per clique, each of the shape its clique derives from the schema (declared shapes are never
    trusted): a block (version 3, decoded within its declared size) or a list of numbers (1-2)."""
    _require(isinstance(raw, list) and len(raw) == len(shapes), source, "one θ table per clique is needed")
    out = []
    bound = f"θ values must be finite numbers in [-{MAX_ABS_THETA:g}, {MAX_ABS_THETA:g}]"
    for item, shape in zip(raw, shapes):
        _require(isinstance(item, dict) and item.get("shape") == shape, source, f"a θ table must have shape {shape}")
        if as_blocks:
            _require(blocks.is_block(item), source, "a θ table must be a block (dtype, shape, codec, data)")
            table = blocks.decode(item, shape, source, "a θ table")
            _require(bool(np.all(np.abs(table) <= MAX_ABS_THETA)), source, bound)  # NaN fails too
            out.append(table)
            continue
        values = item.get("values")
        _require(isinstance(values, list) and len(values) == math.prod(shape), source,
                 "a θ table has the wrong number of values")
        _require(all(_number(v) and abs(v) <= MAX_ABS_THETA for v in values), source, bound)
        out.append(np.asarray(values, dtype=np.float64).reshape(shape))
    return out
