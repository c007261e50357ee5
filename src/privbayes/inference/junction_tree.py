"""Junction trees: triangulation, maximal cliques and a maximum-weight spanning tree.

Given the scopes of a model's factors, eliminate variables greedily (min-fill, or
min-weight = smallest product of the neighbours' sizes; Koller & Friedman 2009, §9.4.3),
keep the maximal elimination cliques, and join them by a maximum spanning tree on
separator sizes (Kruskal).  A maximum-weight spanning tree of the clique graph of a
chordal graph has the running-intersection property (Jensen & Jensen 1994), which is
what exact message passing needs.  Cliques with no common variable are joined by empty
separators, so one tree covers every variable even when the model is disconnected.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from privbayes.inference.factor import Domain

Heuristic = Literal["min_fill", "min_weight"]


class CliqueTooLarge(ValueError):
    """An elimination clique has more than the caller's ``max_cells``: the junction tree would too (its cliques
    hold every elimination clique), so the caller's cap refuses it; raised before triangulating further."""

    def __init__(self, cells: int, cap: int) -> None:
        super().__init__(f"a junction-tree clique would have more than the limit of {cap:,} cells")
        self.cells = cells


def elimination_order(domain: Domain, scopes: Sequence[Sequence[int]], heuristic: Heuristic = "min_fill",
                      max_cells: int | None = None) -> list[int]:
    """A greedy elimination order of all variables of ``domain`` (deterministic ties: lowest index).

    Costs sit in a heap and are recomputed only where an elimination can change them (the eliminated
    variable's neighbours, and the common neighbours of the ends of a fill-in edge), and a variable's fill
    is counted from its neighbours' adjacency sets (C(m, 2) minus the edges among its m neighbours), so wide
    sparse models (thousands of variables, a chain, a tree or a star) are ordered in near-linear time rather
    than cubic.  With ``max_cells``, a scope or an elimination clique of more cells raises
    :class:`CliqueTooLarge` at once: hostile structures are refused before the work grows with them."""
    if heuristic not in ("min_fill", "min_weight"):
        raise ValueError(f"heuristic ({heuristic!r}) must be 'min_fill' or 'min_weight'")
    neighbours = _interaction_graph(len(domain), scopes)
    if max_cells is not None:
        for scope in scopes:
            if (cells := domain.cells(tuple(scope))) > max_cells:
                raise CliqueTooLarge(cells, max_cells)
        _check_width(domain, neighbours, max_cells)
    remaining = set(range(len(domain)))

    def cost(v: int) -> tuple[int, int, int]:
        nb = neighbours[v] & remaining
        m = len(nb)
        fill = m * (m - 1) // 2 - sum(len(neighbours[a] & nb) for a in nb) // 2
        weight = domain.cells(sorted(nb | {v}))
        return (fill, weight, v) if heuristic == "min_fill" else (weight, fill, v)

    current = {v: cost(v) for v in remaining}
    heap = list(current.values())
    heapq.heapify(heap)
    order: list[int] = []
    while remaining:
        key = heapq.heappop(heap)
        v = key[2]
        if v not in remaining or current[v] != key:
            continue  # a stale entry: the variable was eliminated or its cost changed
        weight = key[1] if heuristic == "min_fill" else key[0]
        if max_cells is not None and weight > max_cells:
            raise CliqueTooLarge(weight, max_cells)
        nb = neighbours[v] & remaining
        touched = set(nb)
        for a in nb:
            new = nb - neighbours[a] - {a}
            if new:  # fill-in edges a–b: every common neighbour of a and b has one more edge among its neighbours
                neighbours[a] |= new
                for b in new:
                    touched |= neighbours[a] & neighbours[b] & remaining
        order.append(v)
        remaining.remove(v)
        for u in touched - {v}:
            updated = cost(u)
            if updated != current[u]:
                current[u] = updated
                heapq.heappush(heap, updated)
    return order


def _check_width(domain: Domain, neighbours: list[set[int]], max_cells: int) -> None:
    """Refuse, in O(E log V), an interaction graph every triangulation of which has a clique over ``max_cells``:
    the minor-min-width bound (Gogate & Dechter 2004) on the graph of the variables of two or more values gives
    w ≤ treewidth, so some clique holds w + 1 of them, at least the product of the w + 1 smallest sizes."""
    sizes = domain.sizes
    wide = {v for v in range(len(sizes)) if sizes[v] > 1}
    width = minor_min_width({v: neighbours[v] & wide for v in wide})
    smallest = sorted(sizes[v] for v in wide)[:width + 1]
    cells = math.prod(smallest)
    if len(smallest) == width + 1 and cells > max_cells:
        raise CliqueTooLarge(cells, max_cells)


def minor_min_width(graph: dict[int, set[int]]) -> int:
    """A lower bound on the treewidth of ``graph`` (vertex → neighbours, symmetric): repeatedly take a vertex of
    least degree, note its degree, and contract it into its neighbour of least degree (lowest index on ties).
    Treewidth never grows under contraction and is at least the least degree, so the largest noted degree is a
    bound (Gogate & Dechter, UAI 2004, "minor-min-width")."""
    adjacency = {v: set(nb) for v, nb in graph.items()}
    heap = [(len(nb), v) for v, nb in adjacency.items()]
    heapq.heapify(heap)
    bound = 0
    while len(adjacency) > 1:
        degree, v = heapq.heappop(heap)
        if v not in adjacency or len(adjacency[v]) != degree:
            continue  # stale: contracted away or its degree changed
        bound = max(bound, degree)
        if degree == 0:
            del adjacency[v]
            continue
        u = min(adjacency[v], key=lambda x: (len(adjacency[x]), x))
        for w in adjacency.pop(v):
            adjacency[w].discard(v)
            if w != u:
                adjacency[w].add(u)
                adjacency[u].add(w)
                heapq.heappush(heap, (len(adjacency[w]), w))
        heapq.heappush(heap, (len(adjacency[u]), u))
    return bound


def _interaction_graph(n_variables: int, scopes: Sequence[Sequence[int]]) -> list[set[int]]:
    neighbours: list[set[int]] = [set() for _ in range(n_variables)]
    for scope in scopes:
        for a in scope:
            neighbours[a].update(b for b in scope if b != a)
    return neighbours


def maximal_cliques(domain: Domain, scopes: Sequence[Sequence[int]], order: Sequence[int]) -> list[tuple[int, ...]]:
    """The maximal cliques of the triangulation that eliminating in ``order`` produces (a clique equal
    to an earlier one is kept once, the earliest)."""
    neighbours = _interaction_graph(len(domain), scopes)
    eliminated: set[int] = set()
    cliques: list[frozenset[int]] = []
    holding: list[list[int]] = [[] for _ in range(len(domain))]  # variable → the cliques that hold it
    for v in order:
        nb = neighbours[v] - eliminated
        for a in nb:
            neighbours[a] |= nb - {a}
        cliques.append(frozenset(nb | {v}))
        for a in cliques[-1]:
            holding[a].append(len(cliques) - 1)
        eliminated.add(v)
    maximal = []
    for i, c in enumerate(cliques):
        # Only cliques sharing a variable can contain c: look among those holding its rarest variable.
        others = min((holding[a] for a in c), key=len)
        if not any(c < cliques[j] or (c == cliques[j] and j < i) for j in others if j != i):
            maximal.append(c)
    return [tuple(sorted(c)) for c in maximal]


@dataclass(frozen=True)
class JunctionTree:
    """Cliques and the tree edges joining them; ``edges`` are (parent, child) from root 0, in
    breadth-first order, so reversing them gives a valid leaves-to-root message schedule."""

    cliques: tuple[tuple[int, ...], ...]
    edges: tuple[tuple[int, int], ...]
    _plans: dict[tuple[int, ...], tuple[int, tuple[int, ...], tuple[int, ...]] | None] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.edges) != len(self.cliques) - 1:
            raise ValueError(f"a tree over {len(self.cliques)} cliques needs {len(self.cliques) - 1} edges")

    def separator(self, i: int, j: int) -> tuple[int, ...]:
        return tuple(v for v in self.cliques[j] if v in self.cliques[i])

    def covering_clique(self, variables: Sequence[int]) -> int | None:
        """Index of the smallest clique that contains all ``variables``, or None."""
        wanted = set(variables)
        found = [i for i, c in enumerate(self.cliques) if wanted <= set(c)]
        return min(found, key=lambda i: len(self.cliques[i])) if found else None

    def marginal_plan(self, variables: tuple[int, ...]) -> tuple[int, tuple[int, ...], tuple[int, ...]] | None:
        """How to read the marginal over ``variables`` from a calibrated tree: (covering clique, its
        axes to sum out, the order of the rest); None when no clique covers them.  Cached per tree:
        estimation reads the same marginals at every one of its hundreds of inference calls."""
        if variables not in self._plans:
            i = self.covering_clique(variables)
            plan = None
            if i is not None:
                clique = self.cliques[i]
                remaining = [v for v in clique if v in variables]
                plan = (i, tuple(a for a, v in enumerate(clique) if v not in variables),
                        tuple(remaining.index(v) for v in variables))
            self._plans[variables] = plan
        return self._plans[variables]


def build_junction_tree(domain: Domain, scopes: Sequence[Sequence[int]],
                        heuristic: Heuristic = "min_fill", max_cells: int | None = None) -> JunctionTree:
    """A junction tree covering every variable of ``domain`` and every scope (:class:`CliqueTooLarge` as soon as
    one of its cliques is seen to exceed ``max_cells``, if given)."""
    scopes = [domain.check_scope(s) for s in scopes]
    cliques = maximal_cliques(domain, scopes, elimination_order(domain, scopes, heuristic, max_cells))
    holding: dict[int, list[int]] = {}
    for i, clique in enumerate(cliques):
        for v in clique:
            holding.setdefault(v, []).append(i)
    overlaps: dict[tuple[int, int], int] = {}
    for members in holding.values():  # pairs that share a variable (the others have empty separators)
        for x, i in enumerate(members):
            for j in members[x + 1:]:
                overlaps[(i, j)] = overlaps.get((i, j), 0) + 1
    candidates = sorted(((shared, i, j) for (i, j), shared in overlaps.items()), key=lambda e: (-e[0], e[1], e[2]))
    parent = list(range(len(cliques)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    adjacency: list[list[int]] = [[] for _ in cliques]

    def join(i: int, j: int) -> None:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[ri] = rj
            adjacency[i].append(j)
            adjacency[j].append(i)

    for _, i, j in candidates:  # Kruskal on separator sizes (maximum weight)
        join(i, j)
    for j in range(1, len(cliques)):  # the empty separators Kruskal would take next: (0, j) in order of j
        join(0, j)
    edges: list[tuple[int, int]] = []
    seen, frontier = {0}, [0]
    while frontier:  # breadth-first from clique 0
        nxt = []
        for i in frontier:
            for j in sorted(adjacency[i]):
                if j not in seen:
                    seen.add(j)
                    edges.append((i, j))
                    nxt.append(j)
        frontier = nxt
    return JunctionTree(tuple(cliques), tuple(edges))
