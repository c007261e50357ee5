"""Reusable inference for discrete factor models (log space, vectorised numpy).

``make_engine(domain, scopes)`` returns an :class:`InferenceEngine` (exact junction tree
when it fits, loopy BP otherwise, or brute force for tests); its ``infer(log_potentials)``
gives :class:`Beliefs` with ``log_z`` and ``marginal(variables)``.  ``sample`` draws
configurations (exactly on junction trees, by Gibbs otherwise).  Used by
``privbayes.methods.mrf`` (ICML 2017) and meant for making noisy marginals consistent.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privbayes.inference.brute_force import BruteForceEngine
from privbayes.inference.engine import make_engine
from privbayes.inference.exact import CalibratedTree, JunctionTreeEngine
from privbayes.inference.factor import Domain, Factor, logsumexp
from privbayes.inference.junction_tree import CliqueTooLarge, JunctionTree, build_junction_tree, elimination_order
from privbayes.inference.loopy import LoopyBeliefs, LoopyBPEngine
from privbayes.inference.protocol import MAX_EXACT_CELLS, Beliefs, InferenceEngine
from privbayes.inference.sampling import gibbs_sample, sample_junction_tree


def sample(engine: InferenceEngine, log_potentials: Sequence[np.ndarray], n: int, rng: np.random.Generator,
           *, sweeps: int = 200) -> np.ndarray:
    """``n`` configurations (n × T codes): exact for a junction-tree engine, Gibbs otherwise."""
    if isinstance(engine, JunctionTreeEngine):
        return sample_junction_tree(engine.infer(log_potentials), engine.domain, n, rng)
    return gibbs_sample(engine.domain, engine.scopes, log_potentials, n, rng, sweeps=sweeps)


__all__ = [
    "Beliefs", "BruteForceEngine", "CalibratedTree", "CliqueTooLarge", "Domain", "Factor", "InferenceEngine",
    "JunctionTree", "JunctionTreeEngine", "LoopyBPEngine", "LoopyBeliefs", "MAX_EXACT_CELLS", "build_junction_tree",
    "elimination_order", "gibbs_sample", "logsumexp", "make_engine", "sample", "sample_junction_tree",
]
