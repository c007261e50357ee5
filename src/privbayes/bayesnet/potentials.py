"""A consistent model kept as what it is made of: one log-potential per paid-for table
(docs/decisions.md, "Model files that load").

``estimation="consistent"`` (:mod:`privbayes.bayesnet.consistent`) and the adaptive method release
the Bayesian network of a calibrated junction tree.  Triangulation merges the measured families into
cliques far larger than any measured table (Adult at ε = 1.6: 5·10⁶ conditional cells from tables of
a few thousand), so a file of those conditionals weighs tens of megabytes, while the model is fully
determined by its log-potentials θ_i, one per measured table, of that table's shape (ICML 2019, the
Private-PGM parameterisation).  A model file therefore stores θ and the tables' variables, and the
loader rebuilds the network: :func:`calibrate` runs the very computation the estimator ends with
(per connected component, the closed form of a one-attribute component or one junction-tree
calibration of the spread potentials, then their product), and the fit builds its own conditionals
through the same function, so the model a fit holds and the model its file loads are the same numbers.

Everything here is post-processing of released values (θ is a function of the noisy tables only).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from privbayes.bayesnet.consistent import _components, _Part, _product, _Query
from privbayes.bayesnet.measurements import NoisyTable
from privbayes.bayesnet.network import Network, Parent
from privbayes.inference import (
    MAX_EXACT_CELLS,
    CalibratedTree,
    CliqueTooLarge,
    Domain,
    JunctionTree,
    build_junction_tree,
    make_engine,
)
from privbayes.schema.encoding import Encoding


@dataclass(frozen=True, eq=False)
class Potential:
    """θ over ``variables`` ((attribute, level) pairs, the measured table's axes), of that table's shape."""

    variables: tuple[Parent, ...]
    theta: np.ndarray

    def __post_init__(self) -> None:
        self.theta.setflags(write=False)


def potentials_of(measurements: Sequence[NoisyTable], log_potentials: Sequence[np.ndarray]) -> tuple[Potential, ...]:
    """The potentials of an estimate: its log-potentials beside their tables' variables."""
    return tuple(Potential(tuple(m.variables), np.asarray(t, dtype=np.float64))
                 for m, t in zip(measurements, log_potentials))


def sizes_of(encoding: Encoding, potentials: Sequence[Potential]) -> tuple[int, int]:
    """(cells of the largest component's junction tree, cells of all the conditionals the model's
    network will have), computed from the variables alone, without allocating: what a loader checks
    against the caps before it calibrates anything.  A component whose triangulation meets a clique over
    ``MAX_EXACT_CELLS`` stops there: (that clique's cells, 0), which every caller refuses."""
    sizes = tuple(a.size for a in encoding.attributes)
    scopes = [tuple(a for a, _ in p.variables) for p in potentials]
    largest = conditional_cells = 0
    for variables, members in _components(len(sizes), scopes):
        local = {v: j for j, v in enumerate(variables)}
        domain = Domain(tuple(sizes[v] for v in variables))
        try:
            tree = build_junction_tree(domain, [tuple(local[v] for v in scopes[i]) for i in members],
                                       max_cells=MAX_EXACT_CELLS)
        except CliqueTooLarge as exc:
            return exc.cells, 0
        largest = max(largest, sum(domain.cells(c) for c in tree.cliques))
        for clique, separator in [(0, ())] + [(child, tree.separator(parent, child)) for parent, child in tree.edges]:
            given = list(separator)
            for v in (v for v in tree.cliques[clique] if v not in separator):
                given.append(v)
                conditional_cells += domain.cells(tuple(given))
    return largest, conditional_cells


def calibrate(encoding: Encoding, potentials: Sequence[Potential]) -> CalibratedTree:
    """The calibrated junction tree of ``potentials`` on the leaf domain of ``encoding``: the model
    :func:`privbayes.bayesnet.consistent.estimate` returned when its log-potentials were these
    (``ValueError`` if a component's tree exceeds exact inference's cap)."""
    if sizes_of(encoding, potentials)[0] > MAX_EXACT_CELLS:
        raise ValueError(f"the junction tree of these potentials has more than {MAX_EXACT_CELLS:,} cells")
    tables = [NoisyTable(i, p.variables, np.zeros(p.theta.shape), None) for i, p in enumerate(potentials)]
    queries = [_Query(encoding, t) for t in tables]
    sizes = tuple(a.size for a in encoding.attributes)
    parts = [_part_calibration(variables, members, sizes, queries, [p.theta for p in potentials])
             for variables, members in _components(len(sizes), [q.scope for q in queries])]
    for part in parts:
        if not np.isfinite(_log_mass(part)):
            raise ZeroMass(part.variables)
    return _product(parts)


class ZeroMass(ValueError):
    """The potentials of one component give every cell probability zero (or overflow): no distribution, so nothing
    to sample (a fit never releases such θ; a hostile file would otherwise have loaded as a uniform model)."""

    def __init__(self, variables: tuple[int, ...]) -> None:
        super().__init__(f"the potentials over attributes {list(variables)} give the model no positive, finite "
                         "total mass")
        self.variables = variables


def _log_mass(part: _Part) -> float:
    """log Σ_x Π exp θ of one component: the log-sum-exp of its first clique's beliefs (log p(x_C) + log Z), which
    for the one-attribute closed form is that θ's own mass; NaN or ±∞ when the potentials define no distribution."""
    with np.errstate(all="ignore"):
        beliefs = np.asarray(part.calibrated.log_beliefs[0], dtype=np.float64)
        top = float(np.max(beliefs))
        return top if not np.isfinite(top) else top + math.log(float(np.sum(np.exp(beliefs - top))))


def _part_calibration(variables: tuple[int, ...], members: tuple[int, ...], sizes: tuple[int, ...],
                      queries: list[_Query], theta: list[np.ndarray]) -> _Part:
    """One component's calibrated tree, as :func:`~privbayes.bayesnet.consistent.estimate` computes it
    after its last step: a component of one attribute measured at its leaves holds its normalised
    log-probabilities in its first table's θ (the closed form, ``_one_attribute``); any other is one
    calibration of the leaf junction tree with the spread potentials (``_mirror_descent``)."""
    if members and len(variables) == 1 and all(queries[i].onehot[0] is None for i in members):
        first = theta[members[0]]
        calibrated = CalibratedTree(JunctionTree(((0,),), ()), (first,), 0.0)
    else:
        local = {v: j for j, v in enumerate(variables)}
        domain = Domain(tuple(sizes[v] for v in variables))
        engine = make_engine(domain, [tuple(local[v] for v in queries[i].scope) for i in members])
        calibrated = cast(CalibratedTree, engine.infer([queries[i].spread(theta[i]) for i in members]))
    return _Part(variables, members, tuple(theta[i] for i in members), calibrated, 0.0, 0)


def network_of(encoding: Encoding, potentials: Sequence[Potential]) -> tuple[Network, tuple[np.ndarray, ...]]:
    """The released network and conditionals of ``potentials`` (the junction tree's Bayesian network)."""
    from privbayes.bayesnet.consistent import junction_tree_network

    with np.errstate(all="ignore"):  # a hostile θ may overflow: the caller validates the conditionals
        return junction_tree_network(calibrate(encoding, potentials))
