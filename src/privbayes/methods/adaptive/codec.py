"""The adaptive method's part of the Bayesian-network model file: its parameters, read back and re-planned."""

from __future__ import annotations

from typing import Any

from privbayes.bayesnet.model_file import MethodPart, require
from privbayes.methods.adaptive.settings import ENCODING, AdaptiveSettings
from privbayes.schema.encoding import Encoding


def read_parameters(params: dict[str, Any], version: int, encoding: Encoding, n: int, source: str) -> MethodPart:
    """The plan an adaptive model's parameters imply (version 3 or later, hierarchical encoding)."""
    require(version >= 3, source, "an adaptive model is version 3 or later")
    settings = AdaptiveSettings.from_parameters(params)
    require(encoding.name == ENCODING, source, f"an adaptive model uses the {ENCODING} encoding")
    return MethodPart(settings.plan(n, encoding), True, settings.to_parameters(encoding), settings.mechanism)
