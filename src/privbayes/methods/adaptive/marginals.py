"""Marginals of a calibrated junction tree over any set of variables, and the size of a tree.

The selection step of each round scores every candidate marginal by how badly the current model
fits it (AIM, McKenna et al. VLDB 2022, §4.2), so it needs the model's marginal over attribute sets
that no clique of its junction tree covers.  A calibrated tree gives the joint as
Π_C p(x_C) / Π_S p(x_S) (Koller & Friedman 2009, §10.2); rooted at one clique, each other clique
contributes its conditional p(x_C | x_S) given the separator to its parent.  The marginal over a
set T is then a sum over the variables outside T of the product of the factors of the smallest
subtree whose cliques cover T (cliques outside it sum to one), which ``numpy.einsum`` contracts
in a greedy order.  Everything here reads the model only: post-processing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from privbayes.inference import CalibratedTree, Domain, build_junction_tree


def tree_cells(sizes: Sequence[int], scopes: Sequence[Sequence[int]]) -> int:
    """Total cells of the cliques of the junction tree of ``scopes`` over variables of ``sizes``
    (what exact inference on that model stores and touches per calibration)."""
    domain = Domain(tuple(sizes))
    tree = build_junction_tree(domain, [tuple(s) for s in scopes])
    return sum(domain.cells(c) for c in tree.cliques)


class MarginalOracle:
    """p(x_T) for any T from one calibrated tree (cached conditionals; ``marginal`` is exact)."""

    def __init__(self, calibrated: CalibratedTree) -> None:
        self.calibrated = calibrated
        tree = calibrated.tree
        self.cliques = tree.cliques
        self.parent: dict[int, int] = {child: parent for parent, child in tree.edges}
        self.depth = {0: 0}
        for parent, child in tree.edges:  # breadth-first: a parent's depth is known first
            self.depth[child] = self.depth[parent] + 1
        self.home: dict[int, int] = {}
        for i, clique in enumerate(self.cliques):
            for v in clique:
                self.home.setdefault(v, i)
        self._factors: dict[int, tuple[np.ndarray, tuple[int, ...]]] = {}

    def subtree(self, variables: Sequence[int]) -> set[int]:
        """The cliques of the smallest subtree joining a home clique of each of ``variables``."""
        nodes = {self.home[v] for v in variables}
        while True:
            tops = [i for i in nodes if self.parent.get(i) not in nodes]
            if len(tops) == 1:
                return nodes
            nodes.add(self.parent[max(tops, key=lambda i: self.depth[i])])

    def merged_cells(self, variables: Sequence[int], sizes: Sequence[int]) -> int:
        """An upper bound on the tree's cells once a factor over ``variables`` is added: merging the
        cliques of the subtree that joins them into one clique keeps a junction tree (every separator
        to the rest lies in the merged clique), so the model has a triangulation of at most this size."""
        nodes = {i for i in self.subtree(variables)} if len(variables) > 1 else {self.home[variables[0]]}
        union = set().union(*(self.cliques[i] for i in nodes))
        total = sum(_cells(sizes, c) for c in self.cliques)
        return total - sum(_cells(sizes, self.cliques[i]) for i in nodes) + _cells(sizes, union)

    def _factor(self, i: int, root: int) -> tuple[np.ndarray, tuple[int, ...]]:
        """Clique i's factor when ``root`` is the subtree's root: p(x_C) at the root, else p(x_C | x_S)."""
        p = self.calibrated.clique_probabilities(i)
        clique = self.cliques[i]
        if i == root:
            return p, clique
        if i not in self._factors:
            separator = self.cliques[self.parent[i]]
            axes = tuple(a for a, v in enumerate(clique) if v not in separator)
            denominator = np.sum(p, axis=axes, keepdims=True) if axes else p
            with np.errstate(divide="ignore", invalid="ignore"):
                conditional = np.where(denominator > 0, p / np.where(denominator > 0, denominator, 1.0), 0.0)
            self._factors[i] = (conditional, clique)
        return self._factors[i]

    def marginal(self, variables: Sequence[int]) -> np.ndarray:
        """p over ``variables`` (axes in that order)."""
        variables = tuple(int(v) for v in variables)
        plan = self.calibrated.tree.marginal_plan(variables)
        if plan is not None:
            return self.calibrated.marginal(variables)
        # The smallest subtree joining the home cliques of the variables: climb from each home to the
        # shallowest clique on the way (the tree is rooted at clique 0).
        nodes = self.subtree(variables)
        root = min(nodes, key=lambda i: self.depth[i])
        operands: list[Any] = []
        letters: dict[int, int] = {}
        for i in sorted(nodes):
            table, scope = self._factor(i, root)
            operands += [table, [letters.setdefault(v, len(letters)) for v in scope]]
        out: np.ndarray = np.einsum(*operands, [letters[v] for v in variables], optimize="greedy")
        return out


def _cells(sizes: Sequence[int], scope: Iterable[int]) -> int:
    """Cells of a table over ``scope``."""
    return math.prod(sizes[v] for v in scope)
