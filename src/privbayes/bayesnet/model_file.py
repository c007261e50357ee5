"""The versioned JSON model file: a :class:`~privbayes.bayesnet.model.BayesNetModel`, round-tripped.

Loading validates everything before use: a model file is data, never code.  Declared
sizes are checked against :mod:`privbayes.core.limits` before any array is built, and the
ledger must equal the budget plan that the file's own parameters imply (recomputed
here), so a tampered file cannot claim a smaller ε than it spent or skip a paid phase.
Version 1 files (library 0.1) load too: their plan is recomputed the same way.

One format serves the three Bayesian-network methods; what differs between them (their parameters, plan and
mechanism) is read by each method's own codec (``privbayes.methods.<name>.codec``), which the registry hands
to :func:`model_from_document`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from privbayes._version import __version__
from privbayes.bayesnet.junction import network_of
from privbayes.bayesnet.model import FORMAT, VERSION, BayesNetModel
from privbayes.bayesnet.network import Network
from privbayes.core.errors import InputError
from privbayes.core.limits import check_cells, limits
from privbayes.core.validation import check_choice, check_count
from privbayes.estimation.potentials import Potential, ZeroMass, sizes_of
from privbayes.files import blocks
from privbayes.files.documents import ledger_problem
from privbayes.inference import DRAWS, MAX_EXACT_CELLS
from privbayes.privacy.accountant import LedgerEntry
from privbayes.privacy.plan import PlanMismatchError
from privbayes.privacy.record import ReleaseRecord
from privbayes.schema import Schema
from privbayes.schema.encoding import ENCODINGS, Encoding

READABLE_VERSIONS = (1, 2, 3, VERSION)
MAX_N = 2**63 - 1
"""Largest n a model file may state (counts are int64; a larger n is no table's)."""


@dataclass(frozen=True)
class MethodPart:
    """What a method's codec reads from a model file's parameters: the plan they imply and how to report it."""

    plan: Any
    differentially_private: bool
    parameters: dict[str, Any]
    mechanism: str
    required_caveats: tuple[str, ...] = ()


MethodReader = Callable[[dict[str, Any], int, Encoding, int, str], MethodPart]
"""A method's codec: (parameters, file version, encoding, n, source) → :class:`MethodPart`."""


def require(condition: bool, path: str | Path, message: str) -> None:
    if not condition:
        raise InputError(f"{path}: invalid model file: {message}")


def model_from_document(doc: Any, source: str, readers: Mapping[str, MethodReader]) -> BayesNetModel:
    """The model of a parsed model-file document, validated; errors name ``source``.  ``readers`` maps each
    method this format serves to its codec (the first is the default of files that name none)."""
    try:
        return _model_from_document(doc, source, readers)
    except InputError as exc:
        message = str(exc)
        raise InputError(message if message.startswith(source)
                         else f"{source}: invalid model file: {message}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError) as exc:
        raise InputError(f"{source}: invalid model file: {type(exc).__name__}: {exc}") from None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _model_from_document(doc: Any, path: str, readers: Mapping[str, MethodReader]) -> BayesNetModel:
    require(isinstance(doc, dict) and doc.get("format") == FORMAT, path, f"'format' is not {FORMAT!r}")
    version = doc.get("version")
    require(version in READABLE_VERSIONS, path,
             f"unsupported version {version!r} (this library, {__version__}, reads versions "
             f"{', '.join(map(str, READABLE_VERSIONS))})")
    for key in ("schema", "encoding", "parameters", "fitted", "network", "ledger"):
        require(key in doc, path, f"missing {key!r}")
    if version < 4:
        require("conditionals" in doc, path, "missing 'conditionals'")
    else:
        require(("conditionals" in doc) != ("potentials" in doc), path,
                 "a version-4 model holds either 'conditionals' or 'potentials'")
    params, fitted = doc["parameters"], doc["fitted"]
    require(isinstance(params, dict) and isinstance(fitted, dict), path, "parameters/fitted must be objects")
    schema = Schema.from_dict(doc["schema"], source=f"{path}: schema")
    check_choice(doc["encoding"], "encoding", ENCODINGS, allow_none=False)
    encoding = Encoding.build(schema, doc["encoding"])
    require(isinstance(doc["network"], list), path, "the network must be a list")
    network = Network.from_list(doc["network"])
    d = len(encoding.attributes)
    require(sorted(p.child for p in network.pairs) == list(range(d)), path,
             "the network must cover every attribute once")
    learned = None
    if doc.get("learned_network") is not None:
        require(isinstance(doc["learned_network"], list), path, "the learned network must be a list")
        learned = Network.from_list(doc["learned_network"])
        require(sorted(p.child for p in learned.pairs) == list(range(d)), path,
                 "the learned network must cover every attribute once")
    ledger = ledger_entries(doc["ledger"], path)
    method = check_choice(params.get("method", next(iter(readers))), "method", tuple(readers), allow_none=False)
    n = check_count(fitted.get("n"), "n", minimum=1)
    require(n <= MAX_N, path, f"n must be at most {MAX_N}")
    require(fitted.get("degree") is None or isinstance(fitted["degree"], int) and fitted["degree"] >= 0, path,
             "fitted degree must be an integer ≥ 0")
    require(isinstance(fitted.get("seeded"), bool), path, "fitted seeded must be true or false")
    require(isinstance(fitted.get("algorithm"), str), path, "fitted algorithm must be text")
    draw = fitted.get("draw", "iid")  # files written before the balanced draw sample as they did
    require(draw in DRAWS, path, f"fitted draw must be one of {', '.join(DRAWS)}")
    part = readers[method](params, version, encoding, n, path)
    plan, dp, parameters, mechanism, required = (part.plan, part.differentially_private, part.parameters,
                                                 part.mechanism, part.required_caveats)
    _check_ledger(plan, ledger, version, path)
    spent = float(sum(e.epsilon for e in ledger))
    require(_number(fitted.get("epsilon_spent")) and math.isclose(fitted["epsilon_spent"], spent, rel_tol=1e-9,
                                                                   abs_tol=1e-12), path,
             "epsilon_spent does not match the ledger")
    potentials = None
    if version >= 4 and "potentials" in doc:
        potentials = _potentials(doc["potentials"], encoding, path)
        try:
            rebuilt, rebuilt_conditionals = network_of(encoding, potentials)
        except ZeroMass as exc:
            names = ", ".join(encoding.attributes[a].name for a in exc.variables)
            raise InputError(f"{path}: invalid model file: the potentials over {names} give the model no positive, "
                             "finite total mass (nothing to sample)") from None
        conditionals = list(rebuilt_conditionals)
        require(rebuilt.to_list() == network.to_list(), path, "the network is not the one its potentials define")
        for pair, table in zip(network.pairs, conditionals):
            _check_probabilities(table, path, f"the conditional of attribute {encoding.attributes[pair.child].name!r}")
    elif version < 4:
        conditionals = _conditionals(doc["conditionals"], network, encoding, path)
    else:
        conditionals = _conditional_blocks(doc["conditionals"], network, encoding, path)
    caveats = fitted.get("caveats") if version >= 2 else _v1_caveats(fitted, params.get("non_private_phase"))
    require(isinstance(caveats, list) and all(isinstance(c, str) for c in caveats), path, "caveats must be text")
    require(set(required) <= set(caveats), path, "the caveats of a faithful-mode model are missing")
    require(fitted.get("differentially_private", dp) == dp, path,
             "differentially_private contradicts the parameters")
    k = plan.setting("degree")
    require(fitted["algorithm"] == plan.setting("algorithm"), path, "fitted algorithm contradicts the parameters")
    return BayesNetModel(
        schema=schema, encoding=encoding, network=network, conditionals=tuple(conditionals), parameters=parameters,
        record=ReleaseRecord(plan, ledger, n, fitted["seeded"], str(fitted.get("domain_source", "")), tuple(caveats),
                             str(doc.get("library_version", "0.1.0"))),
        degree=k if k is not None else (learned or network).degree, algorithm=fitted["algorithm"],
        differentially_private=dp, mechanism=mechanism, learned_network=learned,
        potentials=tuple(potentials) if potentials is not None else None, draw=draw)


def ledger_entries(raw: Any, source: str) -> tuple[LedgerEntry, ...]:
    """The ledger of a model document, its numbers checked (:func:`ledger_problem`) before
    :meth:`LedgerEntry.from_dict` turns them into Fractions."""
    problem = ledger_problem(raw)
    require(problem is None, source, str(problem))
    ledger = tuple(LedgerEntry.from_dict(entry) for entry in raw)
    require(all((e.epsilon > 0 if e.rho is None else e.epsilon == 0 and e.rho > 0) and e.sensitivity > 0
                and e.delta >= 0 for e in ledger), source,
            "ledger entries must have positive epsilon (or under zCDP positive rho) and sensitivity")
    return ledger


def _check_ledger(plan: Any, ledger: tuple[LedgerEntry, ...], version: int, path: str) -> None:
    """The ledger must hold exactly the releases the parameters imply (version 1 stored ε as floats)."""
    if version == 1:
        require(len(ledger) == len(plan.releases) and all(
            (p.step, p.mechanism, float(p.epsilon)) == (e.step, e.mechanism, float(e.epsilon))
            for p, e in zip(plan.releases, ledger)), path, "the ledger differs from the plan its parameters imply")
        return
    try:
        plan.check(ledger)
    except PlanMismatchError as exc:
        require(False, path, f"the ledger differs from the plan its parameters imply ({exc})")


def _v1_caveats(fitted: dict, phase: str | None) -> list[str]:
    caveats = []
    if not str(fitted.get("domain_source", "")).startswith("given"):
        caveats.append("the domain (categories, bounds) was read from the data and is not covered by epsilon")
    if phase:
        caveats.append(f"the {phase} phase ran WITHOUT noise (analysis mode): this model is NOT differentially private")
    if fitted.get("seeded"):
        caveats.append("the DP noise was seeded (reproducible run): do not publish seeded releases")
    return caveats


def _shapes(raw: Any, network: Network, encoding: Encoding, path: str) -> list[list[int]]:
    """The shape of each pair's conditional, from the schema and the network (never from the file)."""
    require(isinstance(raw, list) and len(raw) == len(network.pairs), path, "one conditional per AP pair is needed")
    attrs = encoding.attributes
    shapes = []
    for pair in network.pairs:
        for a, level in pair.parents:
            require(0 <= a < len(attrs) and 0 <= level < attrs[a].height, path,
                     f"parent ({a}, {level}) is out of range")
        shapes.append([attrs[a].level_size(level) for a, level in pair.parents] + [attrs[pair.child].size])
    return shapes


def _check_total(cells: int, path: str) -> None:
    """Refuse a model whose arrays declare (or rebuild) more cells in total than the model cap, before any
    is decoded: a few bytes of deflate stand for a megabyte of zeros, so the file's size alone bounds nothing."""
    cap = limits().max_model_cells
    require(cells <= cap, path, f"its arrays would have {cells:.3g} cells in total, more than the limit of "
             f"{cap:,} (PRIVBAYES_MAX_MODEL_CELLS)")


def _check_probabilities(table: np.ndarray, path: str, what: str) -> None:
    require(bool(np.all(np.isfinite(table))) and bool(np.all(table >= 0)), path,
             f"{what}: probabilities must be finite and >= 0")
    require(bool(np.allclose(table.sum(axis=-1), 1.0, atol=1e-6)), path, f"{what}: each row must sum to 1")


def _conditional_blocks(raw: Any, network: Network, encoding: Encoding, path: str) -> list[np.ndarray]:
    """Version 4: one compact block per pair, each shape derived and capped before any is decoded."""
    shapes = _shapes(raw, network, encoding, path)
    for shape in shapes:
        check_cells(shape, f"{path}: a conditional table")
    _check_total(sum(math.prod(shape) for shape in shapes), path)
    out = []
    for item, shape, pair in zip(raw, shapes, network.pairs):
        what = f"the conditional of attribute {encoding.attributes[pair.child].name!r}"
        table = blocks.decode(item, shape, path, what)
        _check_probabilities(table, path, what)
        out.append(table)
    return out


def _potentials(raw: Any, encoding: Encoding, path: str) -> list[Potential]:
    """Version 4 consistent models: θ per measured table, its variables checked against the schema and
    the sizes of the junction tree and of the conditionals it implies checked against the caps before
    any θ is decoded; θ may hold −∞ (an impossible cell), never NaN or +∞."""
    attrs = encoding.attributes
    require(isinstance(raw, list) and len(raw) > 0, path, "potentials must be a non-empty list")
    variables, shapes = [], []
    for item in raw:
        require(isinstance(item, dict) and set(item) == {"variables", "theta"}, path,
                 "a potential must be an object with variables and theta")
        axes = item["variables"]
        require(isinstance(axes, list) and 0 < len(axes) and all(
            isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
            for v in axes), path, "the variables of a potential must be a list of [attribute, level] pairs")
        require(all(0 <= a < len(attrs) and 0 <= level < attrs[a].height for a, level in axes), path,
                 "a potential's variable is out of range")
        require(len({a for a, _ in axes}) == len(axes), path, "a potential names an attribute twice")
        variables.append(tuple((a, level) for a, level in axes))
        shapes.append([attrs[a].level_size(level) for a, level in axes])
        check_cells(shapes[-1], f"{path}: a potential")
    _check_total(sum(math.prod(shape) for shape in shapes), path)
    placeholders = [Potential(v, np.zeros((1,) * len(v))) for v in variables]
    largest, conditional_cells = sizes_of(encoding, placeholders)
    require(largest <= MAX_EXACT_CELLS, path, f"the junction tree of its potentials has more than "
             f"{MAX_EXACT_CELLS:,} cells (exact inference's cap)")
    _check_total(conditional_cells, path)
    out = []
    for item, axes, shape in zip(raw, variables, shapes):
        theta = blocks.decode(item["theta"], shape, path, "a potential's theta")
        require(not bool(np.any(np.isnan(theta) | (theta == np.inf))), path,
                 "a potential's theta must be finite or -inf")
        out.append(Potential(axes, theta))
    return out


def _conditionals(raw: Any, network: Network, encoding: Encoding, path: str) -> list[np.ndarray]:
    require(isinstance(raw, list) and len(raw) == len(network.pairs), path, "one conditional per AP pair is needed")
    attrs = encoding.attributes
    out = []
    for pair, item in zip(network.pairs, raw):
        for a, level in pair.parents:
            require(0 <= a < len(attrs) and 0 <= level < attrs[a].height, path,
                     f"parent ({a}, {level}) is out of range")
        shape = [attrs[a].level_size(level) for a, level in pair.parents] + [attrs[pair.child].size]
        require(isinstance(item, dict) and item.get("shape") == shape, path,
                 f"conditional of attribute {attrs[pair.child].name!r} must have shape {shape}")
        check_cells(shape, f"{path}: a conditional table")
        values = item.get("probabilities")
        require(isinstance(values, list) and len(values) == math.prod(shape), path,
                 "a conditional has the wrong number of probabilities")
        require(all(_number(v) for v in values), path, "probabilities must be a list of numbers")
        table = np.asarray(values, dtype=np.float64).reshape(shape)
        require(bool(np.all(table >= 0)), path, "probabilities must be finite and >= 0")
        require(bool(np.allclose(table.sum(axis=-1), 1.0, atol=1e-6)), path, "each conditional row must sum to 1")
        out.append(table)
    return out
