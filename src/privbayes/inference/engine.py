"""The choice between inference engines (the protocols are in :mod:`privbayes.inference.protocol`).

An engine is built once for a fixed set of factor scopes (the model's cliques) and then
answers many queries for different log-potentials — the pattern of maximum-likelihood
fitting and of EM, which call inference at every step (ICML 2017, §3, Alg. 1-2).
Engines are interchangeable behind the :class:`InferenceEngine` protocol:
exact junction-tree calibration, loopy belief propagation, and brute-force enumeration
(the reference twin for tests and tiny models).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from privbayes.inference.brute_force import BruteForceEngine
from privbayes.inference.exact import JunctionTreeEngine
from privbayes.inference.factor import Domain
from privbayes.inference.junction_tree import CliqueTooLarge, build_junction_tree
from privbayes.inference.loopy import LoopyBPEngine, LoopyOptions
from privbayes.inference.protocol import MAX_EXACT_CELLS, InferenceEngine, Method


def make_engine(domain: Domain, scopes: Sequence[Sequence[int]], method: Method = "auto", *,
                max_exact_cells: int = MAX_EXACT_CELLS, **options: Unpack[LoopyOptions]) -> InferenceEngine:
    """An engine for ``scopes``: exact on a junction tree when its cliques fit in
    ``max_exact_cells`` cells (``auto``), loopy BP otherwise; ``options`` go to loopy BP."""
    if method not in ("auto", "exact", "loopy", "brute"):
        raise ValueError(f"method ({method!r}) must be auto, exact, loopy or brute")
    if method == "brute":
        return BruteForceEngine(domain, scopes)
    if method == "loopy":
        return LoopyBPEngine(domain, scopes, **options)
    try:  # auto: a clique over the cap means loopy BP, known before the rest of the triangulation
        tree = build_junction_tree(domain, scopes, max_cells=None if method == "exact" else max_exact_cells)
    except CliqueTooLarge:
        return LoopyBPEngine(domain, scopes, **options)
    if method == "exact" or sum(domain.cells(c) for c in tree.cliques) <= max_exact_cells:
        return JunctionTreeEngine(domain, scopes, tree=tree)
    return LoopyBPEngine(domain, scopes, **options)
