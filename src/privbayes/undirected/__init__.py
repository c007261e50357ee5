"""Private undirected graphical models (Bernstein et al., ICML 2017): noisy clique tables,
naive MLE, CGM-EM with non-linear BP, and the PSGD baseline."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {"CGMOptions": "estimation", "cgm_em": "estimation", "naive_mle": "estimation", "nlbp": "estimation",
            "PrivateMRF": "estimator", "NoisyStatistics": "measurements", "measure": "measurements",
            "fit_mle": "mle", "LogLinearModel": "model", "project_simplex": "projection"}
"""Public names and their submodules, imported on first use (PEP 562): the CLI registers the
``mrf`` commands without loading numpy or pandas."""


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


__all__ = ["CGMOptions", "LogLinearModel", "NoisyStatistics", "PrivateMRF", "cgm_em", "fit_mle", "measure",
           "naive_mle", "nlbp", "project_simplex"]
