"""A private MRF's parameters, each declared once (ICML 2017; :mod:`privbayes.synthesizers.parameters`).

Imports nothing heavy: the command line reads these declarations to build ``privbayes fit``'s flags.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from privbayes.core.errors import InputError
from privbayes.core.validation import check_positive, exact, is_real
from privbayes.synthesizers.parameters import (
    EPSILON,
    NEIGHBOURS,
    RANDOM_STATE,
    Check,
    Parameter,
    any_check,
    choice_check,
    count_check,
    number,
    positive_int,
)

ESTIMATIONS = ("auto", "naive", "cgm", "psgd")
"""The estimations (:data:`privbayes.methods.mrf.cliques.ALGORITHMS`; a test keeps the two equal)."""
INFERENCE = ("auto", "exact", "loopy")
MAX_L2 = 1e6
"""The largest L2 weight λ: at 10⁶ the penalty n·λ·Σθ² already holds θ at 0 (a uniform model) for any table, and
every float the estimators derive from it stays finite (λ = 10³⁰⁸ overflowed to a traceback)."""


def cliques(text: str) -> list[tuple[str, ...]]:
    """``"a,b;b,c"`` → [("a", "b"), ("b", "c")]; names are stripped of surrounding spaces (the flag's parser)."""
    out = []
    for part in text.split(";"):
        names = tuple(name.strip() for name in part.split(","))
        if not part.strip() or any(not name for name in names):
            raise argparse.ArgumentTypeError(f"expected cliques such as 'a,b;b,c' with no empty names, got {text!r}")
        out.append(names)
    return out


def _l2(value: Any, name: str) -> float | Fraction:
    if not is_real(value) or not 0 <= value <= MAX_L2:
        raise InputError(f"{name} ({value!r}) must be a number in [0, {MAX_L2:g}]")
    return value


def _delta(value: Any, name: str) -> Fraction:
    delta = exact(value, name)
    if not 0 < delta < 1:
        raise InputError(f"{name} ({value!r}) must be in (0, 1)")
    return delta


PARAMETERS: tuple[Parameter, ...] = (
    Parameter("cliques", "the cliques as tuples of attribute names (flag: 'a,b;b,c')",
              check=any_check("sequence of sequences of str", cliques), metavar="A,B;B,C", positional=True,
              setting=False, stored=None),
    EPSILON,
    Parameter("estimation", "how the noisy tables become θ: auto (MLE of the projected marginals, zeroed cells "
              "floored, mixed per clique with CGM-EM's where the noise-to-count ratio is in the middle band; λ per "
              "clique from that ratio and the released tables' noise share), naive, cgm (CGM-EM) or psgd (the (ε, δ) "
              "noisy-gradient baseline)", "auto",
              choice_check(ESTIMATIONS)),
    NEIGHBOURS,
    Parameter("l2", "the L2 regularisation weight λ", None, Check(_l2, f"float in [0, {MAX_L2:g}]", number),
              optional=True, auto="calibrated per clique for auto, 1e-4 for naive, 0 for cgm and psgd"),
    Parameter("inference", "inference engine", "auto", choice_check(INFERENCE)),
    Parameter("cgm", "CGM-EM's options (a CGMOptions)", None, any_check("CGMOptions"), optional=True,
              auto="CGMOptions(lam=l2)", flag=None, setting=False, stored=None),
    Parameter("psgd_steps", "psgd only: gradient steps", 50, count_check(1, positive_int), stored=None),
    Parameter("psgd_learning_rate", "psgd only: learning rate", 1.0, Check(check_positive, "float > 0", number),
              stored=None),
    Parameter("delta", "psgd only: δ of the (ε, δ) guarantee", None, Check(_delta, "float in (0, 1)", number),
              optional=True, auto="1/n", stored="text"),
    RANDOM_STATE,
)
"""A private MRF's parameters, in the model file's order."""
