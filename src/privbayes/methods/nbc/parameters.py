"""Safe NBC's parameters, each declared once (Mozafari & Zaniolo, VLDB 2009; :mod:`privbayes.synthesizers.parameters`).
Their checks stay in :class:`~privbayes.methods.nbc.release.NBCSettings` (exactly one of gamma, breach or
prior with r: a rule across parameters), which the estimator builds.

Imports nothing heavy: the command line reads these declarations to build ``privbayes fit``'s flags.
"""

from __future__ import annotations

from privbayes.synthesizers.parameters import Parameter, any_check, choice_check, ratio

CONDITIONS = ("posterior", "corollary4")
"""The safety conditions (:data:`privbayes.methods.nbc.breach.CONDITIONS`; a test keeps the two equal)."""

PARAMETERS: tuple[Parameter, ...] = (
    Parameter("class_name", "the class (sensitive) column", check=any_check("str"), flag="--class",
              metavar="COLUMN", positional=True, setting=False),
    Parameter("gamma", "amplification ratio γ > 1 (Corollary 4)", None, any_check("float > 1, Fraction or str", ratio),
              optional=True, auto="none: give one of gamma, breach or prior with r"),
    Parameter("breach", "block every L1-to-L2 privacy breach (γ from Lemma 2's condition (7))", None,
              any_check("(L1, L2), 0 < L1 < L2 < 1", ratio), optional=True, auto="none", nargs=2,
              metavar=("L1", "L2")),
    Parameter("prior", "EST: the attacker's prior F as a mapping label → probability, or a JSON/YAML file of one "
              "(with r)", None, any_check("mapping or path"), optional=True, auto="none", metavar="FILE"),
    Parameter("r", "EST: r-closeness with respect to the prior (r > 1)", None,
              any_check("float > 1, Fraction or str", ratio), optional=True, auto="none"),
    Parameter("condition", "count ratios ρ^(2n-1) ≤ γ (posterior: bounds the posterior for large counts) or ρ^n ≤ γ "
              "(corollary4, as printed)", "posterior", choice_check(CONDITIONS)),
)
"""Safe NBC's parameters (numbers are read as the decimals written: 1.1 is 11/10)."""
