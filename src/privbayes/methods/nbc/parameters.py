"""Safe NBC's parameters, each declared once (Mozafari & Zaniolo, VLDB 2009; :mod:`privbayes.synthesizers.parameters`).
Numbers are read as the decimals written ("1.1" and 1.1 are 11/10).  The rule across them (exactly one of
gamma, breach or prior with r) is :class:`~privbayes.methods.nbc.release.NBCSettings`'s; the views file keeps
its own sparse ``parameters`` (:meth:`~privbayes.methods.nbc.release.NBCSettings.to_parameters`).

Imports nothing heavy: the command line reads these declarations to build ``privbayes fit``'s flags.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from privbayes.core.errors import InputError
from privbayes.synthesizers.parameters import Check, Parameter, choice_check, ratio

CONDITIONS = ("posterior", "corollary4")
"""How a bound γ is enforced on the count ratios ρ (the largest P_{c'}/P_c or N^i_{t,c}/N^i_{t,c'}):

* ``corollary4``: ρ^n ≤ γ, Corollary 4's condition (10) as printed;
* ``posterior``: ρ^(2n−1) ≤ γ.  Bob's posterior ratio for a quasi-identifier I tends, when the
  counts grow, to X_{I,c}/X_{I,c'} = Π_{i∈I} N-ratios · (P-ratio)^(|I|−1) ≤ ρ^(2|I|−1), so this
  bounds it by γ; (10) alone allows up to γ^((2n−1)/n), and an exact possible-worlds count
  exceeds γ (tests/methods/nbc/test_nbc_breach_est.py::test_corollary4_does_not_bound_the_posterior).
"""
FRACTION = re.compile(r"[0-9]{1,60}(\.[0-9]{1,60}|/[0-9]{1,60})?")


def parse_fraction(text: Any, where: str) -> Fraction:
    """A positive rational written as digits, 'p/q' or a plain decimal ('1.1'); nothing else
    (no exponents: '1e999999' would allocate a huge integer)."""
    if not isinstance(text, str) or not FRACTION.fullmatch(text):
        raise InputError(f"{where}: expected a number such as '1.1' or '11/10'")
    try:
        value = Fraction(text)
    except ZeroDivisionError:
        raise InputError(f"{where}: the denominator is zero") from None
    if value <= 0:
        raise InputError(f"{where}: expected a positive number")
    return value


def exact(value: Any, name: str) -> Fraction:
    """A finite positive number as an exact rational of what was written: an integer, a Fraction,
    decimal text ("1.1", "11/10") or a float read as its shortest decimal (1.1 → 11/10)."""
    given = value
    if isinstance(value, bool):
        raise InputError(f"{name} ({value!r}) must be a number")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{name} ({value!r}) must be a finite number")
        value = Fraction(repr(float(value)))
    elif isinstance(value, str):
        try:
            return parse_fraction(value.strip(), name)
        except InputError:
            raise InputError(f"{name} ({value!r}) must be a positive number such as 1.1 or 11/10") from None
    if not isinstance(value, numbers.Rational):
        raise InputError(f"{name} ({value!r}) must be a number")
    if value <= 0:
        raise InputError(f"{name} ({given!r}) must be > 0")
    return Fraction(int(value.numerator), int(value.denominator))


def _column(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(f"{name} ({value!r}) must name the class column")
    return value


def above_one(what: str) -> Check:
    """A ratio > 1 (``what`` it is, for the message)."""
    def coerce(value: Any, name: str) -> Fraction:
        number = exact(value, name)
        if not number > 1:
            raise InputError(f"{name} ({float(number):g}) must be > 1 (the {what})")
        return number
    return Check(coerce, "float > 1, Fraction or str (exact)", ratio)


def _breach(raw: Any, name: str) -> tuple[Fraction, Fraction]:
    if isinstance(raw, (str, bytes)) or not hasattr(raw, "__len__") or len(raw) != 2:
        raise InputError(f"{name} ({raw!r}) must be two numbers L1 < L2 in (0, 1)")
    pair = (exact(raw[0], f"{name} L1"), exact(raw[1], f"{name} L2"))
    if not pair[0] < pair[1] < 1:
        raise InputError(f"{name} ({float(pair[0]):g}, {float(pair[1]):g}) must be two numbers L1 < L2 in (0, 1)")
    return pair


def _prior(raw: Any, name: str) -> tuple[tuple[str, Fraction], ...]:
    items = list(raw.items()) if isinstance(raw, Mapping) else raw
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)) or \
            not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in items):
        raise InputError(f"{name} must map each class label to its probability")
    pairs = tuple((str(label), exact(value, f"{name} of label {str(label)!r}")) for label, value in items)
    if len({label for label, _ in pairs}) != len(pairs):
        raise InputError(f"{name} names a class label twice")
    if sum(value for _, value in pairs) != 1:
        raise InputError(f"{name}: the probabilities must sum to 1, got {float(sum(v for _, v in pairs)):g}")
    return pairs


PARAMETERS: tuple[Parameter, ...] = (
    Parameter("class_name", "the class (sensitive) column", check=Check(_column, "str"), flag="--class",
              metavar="COLUMN", positional=True, setting=False),
    Parameter("gamma", "amplification ratio γ > 1 (Corollary 4)", None, above_one("amplification γ"),
              optional=True, auto="none: give one of gamma, breach or prior with r"),
    Parameter("breach", "block every L1-to-L2 privacy breach (γ from Lemma 2's condition (7))", None,
              Check(_breach, "(L1, L2) with 0 < L1 < L2 < 1", ratio), optional=True, auto="none", nargs=2,
              metavar=("L1", "L2")),
    Parameter("prior", "EST: the attacker's prior F as a mapping label → probability, or a JSON/YAML file of one "
              "(with r)", None, Check(_prior, "mapping or path"), optional=True, auto="none", metavar="FILE"),
    Parameter("r", "EST: r-closeness with respect to the prior (r > 1)", None, above_one("r-closeness"),
              optional=True, auto="none"),
    Parameter("condition", "count ratios ρ^(2n-1) ≤ γ (posterior: bounds the posterior for large counts) or ρ^n ≤ γ "
              "(corollary4, as printed)", "posterior", choice_check(CONDITIONS)),
)
"""Safe NBC's parameters."""
