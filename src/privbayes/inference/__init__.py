"""Reusable inference for discrete factor models (log space, vectorised numpy).

``make_engine(domain, scopes)`` returns an :class:`InferenceEngine` (exact junction tree
when it fits, loopy BP otherwise, or brute force for tests); its ``infer(log_potentials)``
gives :class:`Beliefs` with ``log_z`` and ``marginal(variables)``.  ``sample`` draws
configurations (exactly on junction trees, by Gibbs otherwise).  Used by
``privbayes.methods.mrf`` (ICML 2017) and meant for making noisy marginals consistent.
"""

from __future__ import annotations

from privbayes.inference.brute_force import BruteForceEngine
from privbayes.inference.engine import make_engine
from privbayes.inference.exact import CalibratedTree, JunctionTreeEngine
from privbayes.inference.factor import Domain, Factor, logsumexp
from privbayes.inference.junction_tree import CliqueTooLarge, JunctionTree, build_junction_tree, elimination_order
from privbayes.inference.loopy import LoopyBeliefs, LoopyBPEngine
from privbayes.inference.protocol import MAX_EXACT_CELLS, Beliefs, InferenceEngine
from privbayes.inference.sampling import DRAWS, BalancedDraw, gibbs_sample, sample, sample_junction_tree

__all__ = [
    "DRAWS", "BalancedDraw", "Beliefs", "BruteForceEngine", "CalibratedTree", "CliqueTooLarge", "Domain", "Factor",
    "InferenceEngine", "JunctionTree", "JunctionTreeEngine", "LoopyBPEngine", "LoopyBeliefs", "MAX_EXACT_CELLS",
    "build_junction_tree", "elimination_order", "gibbs_sample", "logsumexp", "make_engine", "sample",
    "sample_junction_tree",
]
