"""The papers' comparison methods, each with its own accountant: noisy marginals by the Laplace mechanism, the
Fourier and contingency-table methods, MWEM, the uniform baseline (TODS 2017, §6.1), and the SVM yardstick
(:mod:`.classification`: NoPrivacy, Majority, PrivateERM)."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"majority": "classification", "no_privacy": "classification", "private_erm": "classification",
            "contingency_marginals": "contingency", "fourier_marginals": "fourier", "laplace_marginals": "laplace",
            "mwem_marginals": "mwem", "uniform_marginals": "uniform"}
"""Public names and their submodules, imported on first use (PEP 562): importing one module of the package
does not load the others."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["contingency_marginals", "fourier_marginals", "laplace_marginals", "majority", "mwem_marginals",
           "no_privacy", "private_erm", "uniform_marginals"]
