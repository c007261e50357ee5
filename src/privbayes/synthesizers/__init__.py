"""What every method shares: the release contract (:mod:`.contract`), the registry of methods (:mod:`.registry`:
``synthesizer``, ``load``), cost estimates from public inputs (:mod:`.costs`), and the private schema draft
(:mod:`.private_draft`)."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"PrivateEstimator": "contract", "Released": "contract", "CostEstimate": "costs",
            "PrivateDraft": "private_draft", "load": "registry", "synthesizer": "registry"}
"""Public names and their submodules, imported on first use (PEP 562): ``privbayes --help`` reads the registry
without loading numpy."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["CostEstimate", "PrivateDraft", "PrivateEstimator", "Released", "load", "synthesizer"]
