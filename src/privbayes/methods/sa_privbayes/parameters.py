"""SA-PrivBayes's parameters, each declared once (Future Internet 2026, §5.2 and §5.5;
:mod:`privbayes.synthesizers.parameters`).  Paper defaults; ratios are exact rationals of the decimals written
(0.2 → 1/5) or of a Fraction or text such as "2/3".

Imports nothing heavy: the command line reads these declarations to build ``privbayes fit``'s flags.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from privbayes.core.validation import exact
from privbayes.synthesizers.parameters import (
    EPSILON,
    PROGRESS,
    RANDOM_STATE,
    Check,
    Parameter,
    choice_check,
    count,
    count_check,
    exact_check,
    fixed,
    ratio,
)

MODES = ("strict", "faithful")
PAPER_ALPHA = Fraction(1, 5)
"""The paper's fuzzy coefficient α, in force when none is given."""


def q_value(q: Any, name: str = "q") -> Fraction:
    """q as an exact positive rational: a number, "a/b" text, or a preset name (high, medium, low)."""
    from privbayes.methods.sa_privbayes.allocation import PROTECTION_LEVELS, as_q

    if isinstance(q, str) and q in PROTECTION_LEVELS:
        return as_q(q)
    return as_q(exact(q, name))


def _alpha(value: Any, name: str) -> Fraction:
    fraction: Fraction = exact_check(Fraction(0), Fraction(1)).coerce(value, name)
    return fraction


PARAMETERS: tuple[Parameter, ...] = (
    EPSILON,
    Parameter("mode", "strict (ε-DP) or faithful (the paper as written: NOT private)", "strict", choice_check(MODES)),
    Parameter("degree", "network degree k (parents per column)", 2, count_check(1, count)),
    Parameter("keep_fraction", "fraction λ of the candidate parent sets that screening keeps", Fraction(2, 3),
              exact_check(Fraction(0), Fraction(1), closed_high=True, cli=ratio), key="lambda", stored="text",
              formerly="lam"),
    Parameter("q", "cluster budget ratio q, or a preset: high (1.3), medium (1.1), low (0.9)", Fraction(11, 10),
              Check(q_value, "float > 0, Fraction, str or a preset name", str), stored="text"),
    Parameter("alpha", "fuzzy coefficient α of the screening threshold (faithful mode only)", None,
              Check(lambda value, name: PAPER_ALPHA if value is None else _alpha(value, name),
                    "float in (0, 1), Fraction or str (exact)", ratio), auto="the paper's 0.2", stored="text"),
    Parameter("beta", "share β of ε for learning the network (ε1 = βε)", Fraction(3, 10),
              exact_check(Fraction(0), Fraction(1), cli=ratio), stored="text"),
    Parameter("screening_share", "share ε_τ/ε1 of the network's budget for screening", Fraction(3, 10),
              exact_check(Fraction(0), Fraction(1), cli=ratio), stored="text"),
    fixed("score", "I"),
    fixed("encoding", "vanilla"),
    RANDOM_STATE,
    PROGRESS,
)
"""SA-PrivBayes's parameters, in the model file's order after its leading ``mode`` (``keep_fraction``
is the file's ``lambda``)."""
