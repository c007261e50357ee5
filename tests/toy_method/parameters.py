"""The toy method's parameters, each declared once (docs/decisions.md, "Parameter names")."""

from __future__ import annotations

from privbayes.synthesizers.parameters import EPSILON, NEIGHBOURS, RANDOM_STATE, Parameter

PARAMETERS: tuple[Parameter, ...] = (EPSILON, NEIGHBOURS, RANDOM_STATE)
