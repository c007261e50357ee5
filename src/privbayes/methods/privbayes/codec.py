"""PrivBayes's part of the Bayesian-network model file: its parameters, read back and re-planned (files of
every version, 1 to 4)."""

from __future__ import annotations

from typing import Any

from privbayes.bayesnet.model_file import MethodPart, require
from privbayes.methods.privbayes.settings import PrivBayesSettings
from privbayes.schema.encoding import Encoding


def read_parameters(params: dict[str, Any], version: int, encoding: Encoding, n: int, source: str) -> MethodPart:
    """The plan a PrivBayes model's parameters imply; the encoding they name must be the model's."""
    settings = PrivBayesSettings.from_parameters(params, version=version)
    require(params.get("encoding") in (None, encoding.name), source, "parameters encoding contradicts the model's")
    return MethodPart(settings.plan(n, encoding), settings.differentially_private,
                      settings.to_parameters(encoding), settings.mechanism)
