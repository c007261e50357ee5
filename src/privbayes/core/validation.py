"""Checks of user-given parameters, shared by the synthesizers, baselines and the CLI.

Each raises :class:`~privbayes.core.errors.InputError` with a one-line message that names
the parameter and echoes its value (parameters are not private; data never appears).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, TypeGuard

from privbayes.core.errors import InputError

SEED_BOUND = 2**63
_EXACT_TEXT = re.compile(r"[+-]?(?:\d{1,400}/\d{1,400}|(?:\d{1,400}(?:\.\d{0,400})?|\.\d{1,400})(?:[eE][+-]?\d{1,3})?)")
"""Text :func:`exact` accepts: a fraction p/q or a decimal, at most 400 digits each and a 3-digit exponent."""


def is_real(value: object) -> TypeGuard[float | Fraction]:
    """A finite int, float or Fraction that is not a bool (a guard: the checks below compare and return it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def exact(value: Any, name: str) -> Fraction:
    """A budget or ratio as the exact rational the user wrote: a float's shortest decimal
    (0.3 → 3/10, not the binary float's 5404319552844595/18014398509481984), an int, a
    Fraction, or text such as "2/3" or "0.25"."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, str):
        # Checked first: Fraction("1e99999999") builds a 10^8-digit integer (a model file is untrusted).
        if _EXACT_TEXT.fullmatch(value.strip()) is None:
            shown = value if len(value) <= 40 else value[:39] + "…"
            raise InputError(f"{name} ({shown!r}) must be a number or a fraction such as 2/3 (at most 400 digits, "
                             "exponents of at most 3 digits)")
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise InputError(f"{name} ({value!r}) must be a number or a fraction such as 2/3") from None
    if not is_real(value):
        raise InputError(f"{name} ({value!r}) must be a finite number")
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def exact_parameter(params: Mapping[str, Any], name: str) -> Fraction:
    """A model file's rational parameter ``name``: its exact text ``<name>_exact`` (version 3 on), which
    must agree with the number shown beside it for readers (an untrusted file may say two things)."""
    shown: Any = params.get(name)
    text = params.get(f"{name}_exact")
    if not isinstance(text, str):
        raise InputError(f"parameter {name}_exact must be the exact value as text")
    value = exact(text, name)
    if not is_real(shown) or not math.isclose(float(value), float(shown), rel_tol=1e-12):
        raise InputError(f"parameters {name} and {name}_exact disagree")
    return value


MAX_EPSILON = 10**9
"""The largest ε (or budget) accepted: far above any meaningful privacy, the largest the tests and benchmarks
use (a noise-free check), and small enough that every float the plans and samplers derive from it
(n·ε/Δ with n < 2^63, e^(−ε/Δ)) stays finite (docs/decisions.md, "Hostile parameters and model files")."""


def check_epsilon(value: Any, name: str = "epsilon", *, binary: bool = False) -> Fraction:
    """ε (or any budget) as an exact rational (:func:`exact`; ``binary``: a float's binary value, as
    model files before version 3 stored it); it must be a finite number in (0, :data:`MAX_EPSILON`]."""
    if not is_real(value) or value <= 0:
        raise InputError(f"{name} ({value!r}) must be a finite number > 0")
    if value > MAX_EPSILON:
        raise InputError(f"{name} must be at most {MAX_EPSILON:,}")
    return Fraction(value) if binary else exact(value, name)


def check_share(value: Any, name: str, *, closed: bool = False) -> Fraction:
    """A share such as β as an exact rational (:func:`exact`) in (0, 1) (``closed``: (0, 1])."""
    share = exact(value, name)
    if not (0 < share < 1 or closed and share == 1):
        raise InputError(f"{name} ({value!r}) must be in (0, 1{']' if closed else ')'}")
    return share


def check_positive(value: Any, name: str) -> float | Fraction:
    if not is_real(value) or value <= 0:
        raise InputError(f"{name} ({value!r}) must be a finite number > 0")
    return value


def check_count(value: Any, name: str, minimum: int = 0) -> int:
    """An integer ≥ ``minimum`` (numpy integers accepted, bools refused)."""
    import numpy as np

    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name} ({value!r}) must be an integer ≥ {minimum}")
    return int(value)


def check_seed(value: Any, name: str = "seed") -> int | None:
    """None (the operating system's CSPRNG) or an integer seed in [0, 2^63)."""
    if value is None:
        return None
    import numpy as np

    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < SEED_BOUND:
        raise InputError(f"{name} ({value!r}) must be an integer in [0, 2^63), or None")
    return int(value)


def check_choice(value: Any, name: str, choices: tuple, allow_none: bool = True) -> Any:
    if (value is None and allow_none) or value in choices:
        return value
    raise InputError(f"{name} ({value!r}) must be one of {', '.join(map(str, choices))}")
