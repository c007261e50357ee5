"""The released structure of a model of any registered method, as the report draws and lists it.

One value feeds both the picture and the listing under it, so the two cannot disagree (issue
29: the report once drew the sampling network and listed the learned one):

* PrivBayes / SA-PrivBayes: the **learned** network (``learned_network`` when the model is
  sampled through another network, as with consistent estimation; else ``network``), its AP
  pairs (TODS 2017 §2.2) in the order they were learned; the listing is that network's
  ``describe``, the same lines ``privbayes inspect`` prints;
* private MRFs: the released cliques (ICML 2017), an undirected edge between every two
  attributes of a clique;
* NBC views: the naive Bayes shape (VLDB 2009 §3), the class in the centre and an arrow to
  every attribute whose counts per class were published;
* anything else: the model's own ``describe`` lines, no picture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Edge:
    """A line of the picture from node ``source`` to node ``target`` (indices into the nodes)."""

    source: int
    target: int
    directed: bool = True
    label: str = ""
    """``@i`` for a parent generalised to taxonomy level i (TODS 2017 Alg. 6)."""


@dataclass(frozen=True)
class Structure:
    """What the report draws (nodes, edges) and lists (lines) for one released model."""

    kind: str
    """``network``, ``cliques``, ``nbc`` or ``other``"""
    title: str
    legend: str
    nodes: tuple[str, ...]
    edges: tuple[Edge, ...]
    lines: tuple[str, ...]
    roots: tuple[int, ...] = ()
    """nodes drawn in the roots' colour: attributes without parents, or the NBC class"""
    layout: str = "circle"
    """``circle`` (nodes in order around a circle) or ``star`` (node 0 in the centre)"""

    @property
    def drawable(self) -> bool:
        return bool(self.nodes) and self.kind != "other"

    def edge_text(self) -> str:
        """Every edge in words (the picture's alternative text), in the listing's order."""
        arrow = {True: " → ", False: " – "}
        parts = [f"{self.nodes[e.source]}{arrow[e.directed]}{self.nodes[e.target]}{' ' + e.label if e.label else ''}"
                 for e in self.edges]
        return f"{self.title}: " + ("; ".join(parts) if parts else "no edges")


def model_structure(model: Any) -> Structure:
    """The structure of a released value of any method (see the module's list)."""
    if hasattr(model, "network") and hasattr(model, "encoding"):
        return _network(model)
    if hasattr(model, "cliques") and hasattr(model, "schema"):
        return _cliques(model)
    if hasattr(model, "views") and hasattr(model.views, "class_name"):
        return _nbc(model)
    return Structure("other", "Released model", "", (), (), tuple(model.describe()))


def _network(model: Any) -> Structure:
    network = model.learned_network or model.network
    names = [a.name for a in model.encoding.attributes]
    order = [pair.child for pair in network.pairs]
    position = {child: i for i, child in enumerate(order)}
    edges = tuple(Edge(position[parent], position[pair.child], True, f"@{level}" if level else "")
                  for pair in network.pairs for parent, level in pair.parents)
    roots = tuple(i for i, pair in enumerate(network.pairs) if not pair.parents)
    legend = ("The Bayesian network the model learned: an arrow runs from each parent to its child; nodes are "
              "numbered in the order they were learned (green: no parents). A dashed arrow labelled @i is a "
              "parent generalised to taxonomy level i. Listed below as AP pairs, child <- parents.")
    if model.learned_network is not None:
        legend += (" Sampling uses a junction-tree network whose families contain these "
                   "(consistent estimation); it draws the same distribution.")
    lines = tuple(f"{i + 1}. {line}" for i, line in enumerate(network.describe(model.encoding)))
    return Structure("network", "Learned network", legend, tuple(names[c] for c in order), edges, lines, roots)


def _cliques(model: Any) -> Structure:
    names = tuple(model.schema.names)
    seen: dict[tuple[int, int], None] = {}
    for clique in model.cliques:
        for i, a in enumerate(clique):
            for b in clique[i + 1:]:
                seen.setdefault((min(a, b), max(a, b)), None)
    edges = tuple(Edge(a, b, False) for a, b in seen)
    legend = ("The cliques of the Markov random field: the sets of columns whose joint counts were measured with "
              "noise. A line joins two columns of the same clique; columns on no line were modelled alone.")
    return Structure("cliques", "Released cliques", legend, names, edges, tuple(model.describe()))


def _nbc(model: Any) -> Structure:
    views = model.views
    nodes = (views.class_name, *(a.name for a in views.attributes))
    edges = tuple(Edge(0, i, True) for i in range(1, len(nodes)))
    legend = ("The naive Bayes views: the class (centre) and, for every other column, its counts per class "
              "(an arrow from the class to the column). These counts are published as they are, NOT with "
              "differential privacy.")
    return Structure("nbc", "Published NBC views", legend, nodes, edges, tuple(model.describe()), (0,), "star")
