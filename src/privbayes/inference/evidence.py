"""Exact sampling given evidence: p(x | e) ∝ exp(Σ_s θ_s(x_s)) · 1[e], on a junction tree.

The caller states the evidence as extra factors whose entries are 0 (allowed) or −∞ (ruled out),
so conditioning is inference on the same factor graph with a few more scopes: calibrating the
tree gives log Z(e), the log-probability of the evidence when the factors without it are
normalised (a Bayesian network's conditionals are), and ancestral sampling down the calibrated
tree draws exactly from the conditional (Koller & Friedman 2009, §9.3 and §12.1).  Exact only:
an approximate sampler would not be the conditional the released model defines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from privbayes.inference.exact import JunctionTreeEngine
from privbayes.inference.factor import Domain
from privbayes.inference.junction_tree import CliqueTooLarge, build_junction_tree
from privbayes.inference.protocol import MAX_EXACT_CELLS
from privbayes.inference.sampling import sample_junction_tree


class ZeroProbability(ValueError):
    """The evidence has probability zero under the model: there is nothing to sample."""


class TooLargeForExact(ValueError):
    """The junction tree of the model with its evidence is over the exact-inference cap."""


def evidence_sampler(domain: Domain, scopes: Sequence[Sequence[int]], log_potentials: Sequence[np.ndarray], *,
                     max_exact_cells: int = MAX_EXACT_CELLS) -> tuple[Callable[[int, np.random.Generator], np.ndarray],
                                                                   float]:
    """A function drawing ``n`` exact configurations (n × T codes) of the model given its evidence
    factors, and log Z(e).  Refuses evidence of probability zero and trees over the cap."""
    try:  # refused as soon as one clique is over the cap, before the rest of the triangulation
        tree = build_junction_tree(domain, scopes, max_cells=max_exact_cells)
    except CliqueTooLarge:
        raise TooLargeForExact(f"exact inference would need a junction-tree clique of more than the limit of "
                               f"{max_exact_cells:,} cells") from None
    cells = sum(domain.cells(c) for c in tree.cliques)
    if cells > max_exact_cells:
        raise TooLargeForExact(f"exact inference would need {cells:,} junction-tree cells, more than the limit of "
                               f"{max_exact_cells:,}")
    calibrated = JunctionTreeEngine(domain, scopes, tree=tree).infer(log_potentials)
    if not np.isfinite(calibrated.log_z):
        raise ZeroProbability("the evidence has probability zero under the model")
    return (lambda n, rng: sample_junction_tree(calibrated, domain, n, rng)), calibrated.log_z
