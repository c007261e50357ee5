"""PrivBayes's parameters, each declared once (TODS 2017; :mod:`privbayes.synthesizers.parameters`).

Imports nothing heavy: the command line reads these declarations to build ``privbayes fit``'s flags.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from privbayes.synthesizers.parameters import (
    EPSILON,
    NEIGHBOURS,
    PROGRESS,
    RANDOM_STATE,
    ZCDP_PARAMETERS,
    Parameter,
    choice_check,
    count,
    count_check,
    number,
    positive_check,
    ratio,
    share_check,
)

SCORES = ("I", "R", "F")
"""The score functions (:data:`privbayes.bayesnet.registry.SCORES`; a test keeps the two equal)."""
ENCODINGS = ("vanilla", "hierarchical", "binary", "gray")
"""The encodings (:data:`privbayes.schema.encoding.ENCODINGS`; a test keeps the two equal)."""
ESTIMATIONS = ("consistent", "projected", "paper")
PHASES = ("network", "marginals")
BETA = Fraction(3, 10)
"""The network's share of ε (TODS 2017, §6)."""
ZCDP_BETA = Fraction(1, 5)
"""The network's share of ρ under zCDP (docs/decisions.md, "zCDP for PrivBayes": measured on Adult)."""

PARAMETERS: tuple[Parameter, ...] = (
    EPSILON,
    Parameter("beta", "share β of ε for learning the network (ε1 = βε; under zCDP the share of ρ)", None,
              share_check(ratio), optional=True, auto="3/10 (TODS 2017), 1/5 under privacy zcdp", stored="exact"),
    Parameter("theta", "θ-usefulness: how much signal each noisy table must keep (TODS 2017 §4.3); higher gives "
              "simpler models", 4.0, positive_check(number)),
    Parameter("score", "score function: I (mutual information), R or F", None, choice_check(SCORES), optional=True,
              auto="F when every encoded attribute is binary, else R"),
    Parameter("encoding", "how columns become model variables", None, choice_check(ENCODINGS), optional=True,
              auto="hierarchical when a column has a taxonomy, else vanilla"),
    Parameter("degree", "a fixed network degree k (parents per column) instead of θ-usefulness", None,
              count_check(0, count), optional=True, auto="θ-usefulness (Lemma 4.8's k on binary data)"),
    Parameter("non_private_phase", "analysis mode (TODS 2017 §6.4): run this phase WITHOUT noise (NOT private)",
              None, choice_check(PHASES), optional=True, auto="none"),
    Parameter("estimation", "how the noisy tables become the model (post-processing): consistent (one model fit to "
              "all tables), projected (each table projected onto the simplex) or paper (clip and normalise, "
              "TODS 2017 Alg. 1/3)", "consistent", choice_check(ESTIMATIONS), legacy="paper"),
    replace(NEIGHBOURS, legacy="replace-one"),  # files before add/remove were replace-one
    *ZCDP_PARAMETERS,  # privacy, delta, rho: kept in model files under zCDP only (files before it were pure ε)
    RANDOM_STATE,
    PROGRESS,
)
"""PrivBayes's parameters, in the model file's order."""
