"""SA-PrivBayes's part of the Bayesian-network model file: its parameters, read back and re-planned."""

from __future__ import annotations

from typing import Any

from privbayes.bayesnet.model_file import MethodPart, require
from privbayes.methods.sa_privbayes.settings import FAITHFUL_CAVEATS, SASettings
from privbayes.schema.encoding import Encoding


def read_parameters(params: dict[str, Any], version: int, encoding: Encoding, n: int, source: str) -> MethodPart:
    """The plan an SA-PrivBayes model's parameters imply (version 2 or later, vanilla encoding); a faithful-mode
    model must carry the caveats of that mode."""
    require(version >= 2 and encoding.name == "vanilla", source, "an SA-PrivBayes model is version 2 or later, "
            "vanilla encoding")
    settings = SASettings.from_parameters(params, version=version)
    return MethodPart(settings.plan(n, encoding), settings.differentially_private, settings.to_parameters(),
                      settings.mechanism, () if settings.differentially_private else FAITHFUL_CAVEATS)
