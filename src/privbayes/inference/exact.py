"""Exact inference by junction-tree calibration (Shafer-Shenoy message passing in log space).

Each factor is assigned to a clique that covers its scope; one pass from the leaves to
the root and one back give every clique its exact marginal and the log-partition function
(Koller & Friedman 2009, §10.2-10.3; ICML 2017 uses it for decomposable models, §3.2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from privbayes.inference.factor import Domain, logsumexp
from privbayes.inference.junction_tree import Heuristic, JunctionTree, build_junction_tree
from privbayes.inference.protocol import check_potentials


@dataclass(frozen=True)
class CalibratedTree:
    """Calibrated clique beliefs: ``log_beliefs[i]`` = log p(x_{C_i}) + log Z over tree.cliques[i]."""

    tree: JunctionTree
    log_beliefs: tuple[np.ndarray, ...]
    log_z: float
    exact: bool = True
    _probabilities: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def clique_probabilities(self, i: int) -> np.ndarray:
        """p(x_{C_i}), computed once per clique (marginals are then plain sums, no exp/log)."""
        if i not in self._probabilities:
            probabilities = np.subtract(self.log_beliefs[i], self.log_z)
            self._probabilities[i] = np.exp(probabilities, out=probabilities)
        return self._probabilities[i]

    def marginal(self, variables: Sequence[int]) -> np.ndarray:
        variables = tuple(variables)
        plan = self.tree.marginal_plan(variables)
        if plan is None:
            raise ValueError(f"no junction-tree clique covers {variables!r}; build the engine with that scope")
        i, drop, order = plan
        summed = np.sum(self.clique_probabilities(i), axis=drop) if drop else self.clique_probabilities(i)
        return np.transpose(summed, order)


class JunctionTreeEngine:
    """Exact inference for factors over ``scopes``; the tree is built once."""

    exact = True

    def __init__(self, domain: Domain, scopes: Sequence[Sequence[int]], *, heuristic: Heuristic = "min_fill",
                 tree: JunctionTree | None = None) -> None:
        self.domain = domain
        self.scopes = tuple(domain.check_scope(s) for s in scopes)
        self.tree = tree if tree is not None else build_junction_tree(domain, self.scopes, heuristic)
        self._home = []
        for scope in self.scopes:
            home = self.tree.covering_clique(scope)
            if home is None:
                raise ValueError(f"the junction tree does not cover scope {scope!r}")
            self._home.append(home)
        self._neighbours: list[list[int]] = [[] for _ in self.tree.cliques]
        for parent, child in self.tree.edges:
            self._neighbours[parent].append(child)
            self._neighbours[child].append(parent)
        # Index bookkeeping is fixed by the scopes: computed once here, not at every call of infer
        # (EM and mirror descent call it hundreds of times on small cliques).
        cliques = self.tree.cliques
        self._placements = [_placement(scope, cliques[home], domain) for scope, home in zip(self.scopes, self._home)]
        self._routes: dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}
        for parent, child in self.tree.edges:
            for i, j in ((child, parent), (parent, child)):
                kept = tuple(v for v in cliques[i] if v in cliques[j])
                drop = tuple(a for a, v in enumerate(cliques[i]) if v not in cliques[j])
                self._routes[(i, j)] = (drop, *_placement(kept, cliques[j], domain))

    def infer(self, log_potentials: Sequence[np.ndarray]) -> CalibratedTree:
        cliques = self.tree.cliques
        # Sums are accumulated in place (fresh arrays, the same additions in the same order as
        # out-of-place ones): on large cliques every extra full-size temporary costs more than its arithmetic.
        potentials = [np.zeros(self.domain.shape(c)) for c in cliques]
        for values, home, (order, shape) in zip(check_potentials(self.domain, self.scopes, log_potentials),
                                                self._home, self._placements):
            potentials[home] += np.transpose(values, order).reshape(shape)
        messages: dict[tuple[int, int], np.ndarray] = {}

        def gathered(i: int, skip: int | None) -> np.ndarray:
            """Clique i's potential plus the messages it has received from all neighbours but ``skip``."""
            total = potentials[i]
            owned = False
            for k in self._neighbours[i]:
                if k != skip:
                    if owned:
                        total += messages[(k, i)]
                    else:
                        total, owned = total + messages[(k, i)], True
            return total

        def send(i: int, j: int) -> None:
            total = gathered(i, j)
            drop, order, shape = self._routes[(i, j)]
            summed = logsumexp(total, axis=drop) if drop else total
            messages[(i, j)] = np.transpose(summed, order).reshape(shape)

        for parent, child in reversed(self.tree.edges):
            send(child, parent)
        for parent, child in self.tree.edges:
            send(parent, child)
        # full clique shape already: potentials[i] is allocated with it
        beliefs = [gathered(i, None) for i in range(len(potentials))]
        return CalibratedTree(self.tree, tuple(beliefs), float(logsumexp(beliefs[0])))


def _placement(variables: Sequence[int], clique: Sequence[int],
               domain: Domain) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """How an array over ``variables`` (a subset of ``clique``, any order) is transposed and
    reshaped to broadcast against an array over ``clique`` (what :meth:`Factor.aligned` does)."""
    order = tuple(sorted(range(len(variables)), key=lambda a: clique.index(variables[a])))
    shape = tuple(domain.sizes[v] if v in variables else 1 for v in clique)
    return order, shape
