"""Private undirected graphical models (Bernstein et al., ICML 2017): noisy clique tables,
naive MLE, CGM-EM (exact dual E-step on junction trees, non-linear BP on loopy models), and the
PSGD baseline.  The estimator of the release contract is :class:`privbayes.PrivateMRF`
(:mod:`privbayes.methods.mrf.estimator`)."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"CGMOptions": "estimation", "cgm_em": "estimation", "dual_estep": "estep", "naive_mle": "estimation",
            "nlbp": "estimation",
            "NoisyStatistics": "measurements", "measure": "measurements",
            "fit_mle": "mle", "LogLinearModel": "model", "project_simplex": "privbayes.inference.projection"}
"""Public names and their submodules, imported on first use (PEP 562): the CLI registers the
``mrf`` commands without loading numpy or pandas."""


__getattr__ = lazy_exports(__name__, _EXPORTS)


__all__ = ["CGMOptions", "LogLinearModel", "NoisyStatistics", "cgm_em", "dual_estep", "fit_mle", "measure",
           "naive_mle", "nlbp", "project_simplex"]
