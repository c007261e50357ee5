"""Consistent estimation from noisy marginals: one model fitted to every paid-for table (Private-PGM's
objective, McKenna, Sheldon & Miklau, ICML 2019), shared by PrivBayes's ``estimation="consistent"`` and
the adaptive method.

The measurements (:mod:`.measurements`: a noisy table with its noise scale; n estimated from them), each
table as a linear query on the leaf domain (:mod:`.queries`), the components fitted apart and joined
(:mod:`.decomposition`), mirror descent over a junction tree (:mod:`.consistent`), and the model kept as its
log-potentials, which a model file stores and a loader calibrates again (:mod:`.potentials`).  It sees
measurements only, never a table: everything here is post-processing.  The released Bayesian network of
an estimate is the networks layer's (:mod:`privbayes.bayesnet.junction`).
"""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"Estimate": "consistent", "TreeTooLarge": "consistent", "estimate": "consistent",
            "noise_weights": "consistent", "NoisyTable": "measurements", "estimated_total": "measurements",
            "Potential": "potentials", "ZeroMass": "potentials", "calibrate": "potentials",
            "potentials_of": "potentials", "sizes_of": "potentials", "conditional_from_joint": "tables"}
"""Public names and their submodules, imported on first use (PEP 562): a module that needs the measurement
record does not load the estimator."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["Estimate", "NoisyTable", "Potential", "TreeTooLarge", "ZeroMass", "calibrate", "conditional_from_joint",
           "estimate", "estimated_total", "noise_weights", "potentials_of", "sizes_of"]
