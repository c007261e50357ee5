"""The connected components of the measured scopes, fitted apart and joined as a product.

The Private-PGM loss (ICML 2019, Eq. 3) is a sum over groups of tables that share no variable with the
others, and the marginal polytope of independent groups is the product of theirs, so each component is
fitted (and, from a model file, calibrated) on its own and the model is the product of the components'
calibrated trees (docs/consistent.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privbayes.estimation.queries import Query
from privbayes.inference import CalibratedTree, JunctionTree


@dataclass(frozen=True)
class ComponentFit:
    """One component's fit: its variables (global ids), the measurements it explains, their
    log-potentials, and its calibrated tree over local ids 0..len(variables)-1."""

    variables: tuple[int, ...]
    members: tuple[int, ...]
    theta: tuple[np.ndarray, ...]
    calibrated: CalibratedTree
    loss: float
    iterations: int


def components(d: int, scopes: Sequence[tuple[int, ...]]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(variables, measurement indices) of each connected component of the scopes, in order of
    their first variable; a variable no scope covers is a component without measurements."""
    parent = list(range(d))

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for scope in scopes:
        for v in scope[1:]:
            parent[root(v)] = root(scope[0])
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for v in range(d):
        groups.setdefault(root(v), ([], []))[0].append(v)
    for i, scope in enumerate(scopes):
        groups[root(scope[0])][1].append(i)
    return [(tuple(variables), tuple(members)) for variables, members in groups.values()]


def one_leaf_attribute(variables: tuple[int, ...], members: tuple[int, ...], queries: Sequence[Query]) -> bool:
    """Whether a component is one attribute measured at its leaves only (by one table or several): the case
    the estimator solves in closed form and whose first table's θ then holds its log-probabilities."""
    return bool(members) and len(variables) == 1 and all(queries[i].onehot[0] is None for i in members)


def product(parts: Sequence[ComponentFit]) -> CalibratedTree:
    """The components' calibrated trees as one over the global variables: cliques renumbered, each
    component's root joined to the first clique by an empty separator, beliefs normalised per
    component (log p(x_C), log Z = 0), so the joint is the product of the components'."""
    cliques: list[tuple[int, ...]] = []
    edges: list[tuple[int, int]] = []
    beliefs: list[np.ndarray] = []
    for part in parts:
        offset = len(cliques)
        tree = part.calibrated.tree
        cliques += [tuple(part.variables[v] for v in clique) for clique in tree.cliques]
        if offset:
            edges.append((0, offset))
        edges += [(offset + a, offset + b) for a, b in tree.edges]
        beliefs += [b - part.calibrated.log_z for b in part.calibrated.log_beliefs]
    return CalibratedTree(JunctionTree(tuple(cliques), tuple(edges)), tuple(beliefs), 0.0)
