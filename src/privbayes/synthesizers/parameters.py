"""Every parameter of a method declared once (docs/decisions.md, "Parameter names").

A :class:`Parameter` holds a parameter's name, default, check (type, exact rational or float, bounds or
choices), help text, command-line flag and model-file key.  A method lists its parameters in one tuple
(``methods/<m>/parameters.py``, which imports nothing heavy so that ``privbayes --help`` stays fast), and
everything else is derived from that tuple, as scikit-learn derives validation from ``_parameter_constraints``
and OpenDP declares one dataclass per algorithm:

* :class:`DeclaredEstimator`: the estimator's constructor (signature, defaults, stored unmodified) and the
  "Parameters" section of its docstring (numpydoc);
* :class:`DeclaredSettings`: the frozen settings (fields, defaults, validation and coercion);
* :func:`to_parameters` / :func:`read_parameters`: the model file's ``parameters`` mapping;
* :mod:`privbayes.cli.arguments`: the flags, choices, defaults and help of ``privbayes fit``.

This module imports nothing heavy (the command line reads the declarations before parsing).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from privbayes.core.errors import InputError
from privbayes.core.validation import (
    SEED_BOUND,
    check_choice,
    check_count,
    check_epsilon,
    check_positive,
    check_share,
    exact,
    exact_parameter,
)

# --- the command line's parsers of a flag's text (the estimator's check then names the parameter) ---------------

def _integer(text: str, expected: str, lowest: int, bound: int | None = None) -> int:
    """An integer flag in [lowest, bound); ``expected`` says what in the one-line error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if value < lowest or (bound is not None and value >= bound):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
    return value


def positive_int(text: str) -> int:
    return _integer(text, "a positive integer", 1)


def count(text: str) -> int:
    return _integer(text, "an integer >= 0", 0)


def seed(text: str) -> int:
    return _integer(text, "an integer seed in [0, 2^63)", 0, SEED_BOUND)


def number(text: str) -> float:
    """A finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def ratio(text: str) -> str:
    """A number or a fraction such as 2/3, kept as text: the estimator reads it exactly (bounded:
    :func:`privbayes.core.validation.exact`)."""
    try:
        value = exact(text, "value")
    except InputError:
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise argparse.ArgumentTypeError(f"expected a number or a fraction such as 2/3, got {shown!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return text.strip()


class _Marker:
    """A named marker value (not a parameter value a user could give)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


REQUIRED: Any = _Marker("REQUIRED")
"""The default of a parameter the caller must give."""

ABSENT: Any = _Marker("ABSENT")
"""No value for an older model file that lacks the key (it reads as None)."""


@dataclass(frozen=True)
class Check:
    """How a given value becomes the value in force: ``coerce(value, name)`` raises a one-line InputError naming
    the parameter; ``label`` is its type in the docstring; ``cli`` parses the flag's text (the estimator's own
    check then names the parameter); ``choices`` are offered by ``--help``."""

    coerce: Callable[[Any, str], Any]
    label: str
    cli: Callable[[str], Any] | None = None
    choices: tuple[Any, ...] | None = None


def epsilon_check(cli: Callable[[str], Any] | None = None) -> Check:
    """A budget: an exact rational of the decimals written, in (0, 10⁹]."""
    return Check(lambda value, name: check_epsilon(value, name), "float, Fraction or str (exact)", cli)


def share_check(cli: Callable[[str], Any] | None = None) -> Check:
    """A share of a budget: an exact rational in (0, 1)."""
    return Check(lambda value, name: check_share(value, name), "float in (0, 1), Fraction or str (exact)", cli)


def exact_check(low: Fraction, high: Fraction, *, closed_high: bool = False,
                cli: Callable[[str], Any] | None = None) -> Check:
    """An exact rational in (low, high) (``closed_high``: (low, high])."""
    bounds = f"({low}, {high}{']' if closed_high else ')'}"

    def coerce(value: Any, name: str) -> Fraction:
        number = exact(value, name)
        if not (low < number < high or closed_high and number == high):
            raise InputError(f"{name} ({float(number):g}) must be in {bounds}")
        return number
    return Check(coerce, f"float in {bounds}, Fraction or str (exact)", cli)


def positive_check(cli: Callable[[str], Any] | None = None) -> Check:
    """A finite float > 0."""
    return Check(lambda value, name: float(check_positive(value, name)), "float > 0", cli)


def count_check(minimum: int = 0, cli: Callable[[str], Any] | None = None,
                choices: tuple[int, ...] | None = None) -> Check:
    """An integer ≥ ``minimum`` (numpy integers accepted, bools refused), one of ``choices`` if given."""
    def coerce(value: Any, name: str) -> int:
        number = check_count(value, name, minimum=minimum)
        if choices is not None and number not in choices:
            raise InputError(f"{name} ({value!r}) must be one of {', '.join(map(str, choices))}")
        return number
    return Check(coerce, f"int ≥ {minimum}" if choices is None else " or ".join(map(str, choices)), cli)


def choice_check(choices: tuple[Any, ...]) -> Check:
    """One of ``choices``."""
    return Check(lambda value, name: check_choice(value, name, choices, allow_none=False),
                 "{" + ", ".join(map(repr, choices)) + "}", None, choices)


def flag_check() -> Check:
    """True or False."""
    def coerce(value: Any, name: str) -> bool:
        if not isinstance(value, bool):
            raise InputError(f"{name} ({value!r}) must be true or false")
        return value
    return Check(coerce, "bool")


def any_check(label: str, cli: Callable[[str], Any] | None = None) -> Check:
    """Taken as given (checked where it is used, e.g. against the schema)."""
    return Check(lambda value, name: value, label, cli)


@dataclass(frozen=True)
class Parameter:
    """One parameter of a method, declared once.

    ``name`` is the estimator's keyword and the settings' field; ``default`` (:data:`REQUIRED`: none) is in the
    user's terms; ``optional``: None is accepted and means the automatic choice ``auto`` describes; ``flag``: the
    command-line flag ("" derives ``--name-with-dashes``; None: no flag); ``key``: the model file's key when it
    differs from ``name`` (renamed parameters keep their files' keys); ``stored``: how the model file keeps it
    ("plain", "exact": a number beside its exact text ``<key>_exact``, "text": exact text, None: not kept);
    ``legacy``: the value assumed when an older model file lacks the key; ``fixed``: a constant the model file
    records (not a parameter of the user); ``setting``: a field of the settings; ``keyword``: a parameter of the
    estimator; ``positional``: also taken by position; ``formerly``: the name it had before it was renamed (an
    old name's error points to the new one)."""

    name: str
    help: str
    default: Any = REQUIRED
    check: Check = dataclasses.field(default_factory=lambda: any_check("object"))
    optional: bool = False
    auto: str | None = None
    flag: str | None = ""
    metavar: str | tuple[str, ...] | None = None
    nargs: int | None = None
    key: str | None = None
    stored: str | None = "plain"
    legacy: Any = ABSENT
    fixed: Any = None
    setting: bool = True
    keyword: bool = True
    positional: bool = False
    formerly: str | None = None

    @property
    def file_key(self) -> str:
        return self.key or self.name

    @property
    def cli_flag(self) -> str | None:
        """The command-line flag, or None."""
        if self.flag is None or not self.keyword:
            return None
        return self.flag or "--" + self.name.replace("_", "-")

    def validate(self, value: Any) -> Any:
        """The value in force (one-line InputError naming the parameter)."""
        if value is None and self.optional:
            return None
        return self.check.coerce(value, self.name)

    def shown_default(self) -> str:
        """The default in words, for help texts."""
        if self.default is None and self.auto:
            return self.auto
        if isinstance(self.default, bool):
            return "yes" if self.default else "no"
        if isinstance(self.default, Fraction):
            return str(self.default) if self.default.denominator != 1 else str(self.default.numerator)
        if isinstance(self.default, int) and self.default >= 10**4:
            return f"{self.default:,}"
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)

    def help_text(self) -> str:
        """The help line with its default (as ``--help`` and the docstring show it)."""
        if self.default is REQUIRED:
            return self.help
        return f"{self.help} (default {self.shown_default()})"


def fixed(name: str, value: Any) -> Parameter:
    """A constant the model file records under ``name`` (checked when read), not a parameter of the user."""
    return Parameter(name, f"always {value!r}", default=value, fixed=value, setting=False, keyword=False, flag=None)


def keywords(parameters: tuple[Parameter, ...]) -> tuple[Parameter, ...]:
    """The estimator's parameters, in its signature's order (positional ones first)."""
    taken = [p for p in parameters if p.keyword and p.fixed is None]
    return tuple([p for p in taken if p.positional] + [p for p in taken if not p.positional])


def docstring_section(parameters: tuple[Parameter, ...]) -> str:
    """The numpydoc "Parameters" section of an estimator's docstring."""
    lines = ["Parameters", "----------"]
    for p in keywords(parameters):
        default = "" if p.default is REQUIRED else f", default {p.shown_default()}"
        lines += [f"{p.name} : {p.check.label}{' or None' if p.optional else ''}{default}", f"    {p.help}."]
    return "\n".join(lines)


def _initialiser(owner: str, parameters: tuple[Parameter, ...]) -> Callable[..., None]:
    """A constructor storing ``parameters`` unmodified (scikit-learn's convention), with their signature."""
    declared = keywords(parameters)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for p in declared:
            setattr(self, p.name, bound.arguments[p.name])

    kind = inspect.Parameter
    signature = inspect.Signature(
        [kind("self", kind.POSITIONAL_OR_KEYWORD)]
        + [kind(p.name, kind.POSITIONAL_OR_KEYWORD if p.positional else kind.KEYWORD_ONLY,
                default=kind.empty if p.default is REQUIRED else p.default) for p in declared])
    __init__.__signature__ = signature  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{owner}.__init__"
    __init__.__doc__ = f"Store the parameters of {owner} unmodified (validated by ``settings()``)."
    return __init__


class DeclaredEstimator:
    """Mixin of an estimator whose constructor and docstring come from its ``parameters``."""

    parameters: ClassVar[tuple[Parameter, ...]]
    settings_class: ClassVar[type[DeclaredSettings]]
    """The :class:`DeclaredSettings` the estimator's ``settings()`` builds."""

    former_names: ClassVar[dict[str, str]] = {}
    """Old name → new name of the renamed parameters (the "has no parameter" error names the new one)."""

    if TYPE_CHECKING:
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

        def __getattr__(self, name: str) -> Any:
            """The parameters as given (unchecked until ``settings()``: typed Any)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "parameters" in cls.__dict__:
            cls.former_names = {p.formerly: p.name for p in cls.parameters if p.formerly}
            cls.__init__ = _initialiser(cls.__name__, cls.parameters)  # type: ignore[method-assign]
            cls.__doc__ = (inspect.cleandoc(cls.__doc__ or "") + "\n\n" + docstring_section(cls.parameters))

    def declared_settings(self, **values: Any) -> Any:
        """The settings of the parameters as given (``values``: the ones the estimator resolved itself)."""
        for p in self.parameters:
            if p.keyword and not p.setting:
                p.validate(getattr(self, p.name))
        given = {p.name: getattr(self, p.name) for p in self.parameters if p.setting and p.keyword}
        return self.settings_class(**(given | values))


class DeclaredSettings:
    """Base of a method's frozen settings: a dataclass whose fields, defaults and validation come from
    ``parameters``.  A subclass annotates the fields it reads, for the type checker (only declared names);
    :meth:`check_given` runs before coercion, :meth:`check` after it (rules across parameters)."""

    parameters: ClassVar[tuple[Parameter, ...]]

    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Any]]

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = [p for p in cls.parameters if p.setting]
        own = dict(cls.__dict__.get("__annotations__", {}))
        undeclared = set(own) - {p.name for p in declared}
        if undeclared:
            raise TypeError(f"{cls.__name__} annotates fields no parameter declares: {sorted(undeclared)}")
        cls.__annotations__ = {p.name: own.get(p.name, "Any") for p in declared}
        for p in declared:
            if p.default is not REQUIRED:
                setattr(cls, p.name, p.default)
        dataclass(frozen=True)(cls)

    def __post_init__(self) -> None:
        self.check_given()
        for p in self.parameters:
            if p.setting:
                object.__setattr__(self, p.name, p.validate(getattr(self, p.name)))
        self.check()

    def check_given(self) -> None:
        """Rules on the values as given, before each is coerced (none by default)."""

    def check(self) -> None:
        """Rules across the coerced parameters (none by default)."""


def to_parameters(settings: DeclaredSettings, method: str, *, lead: Mapping[str, Any] | None = None,
                  **values: Any) -> dict[str, Any]:
    """A model file's ``parameters``: ``method``, the ``lead`` entries, then every stored parameter in declaration
    order under its file key (``values``: ones the fit resolved, e.g. the automatic score)."""
    out: dict[str, Any] = {"method": method} | dict(lead or {})
    for p in settings.parameters:
        if p.stored is None or p.file_key in out:
            continue
        value = p.fixed if p.fixed is not None else values.get(p.name, getattr(settings, p.name, None))
        if p.stored == "exact":
            out[p.file_key] = None if value is None else float(value)
            out[f"{p.file_key}_exact"] = None if value is None else str(value)
        elif p.stored == "text":
            out[p.file_key] = None if value is None else str(value)
        else:
            out[p.file_key] = value
    return out


def file_keys(parameters: tuple[Parameter, ...]) -> set[str]:
    """Every key a model file's ``parameters`` may hold."""
    keys = {"method"}
    for p in parameters:
        if p.stored is not None:
            keys |= {p.file_key} | ({f"{p.file_key}_exact"} if p.stored == "exact" else set())
    return keys


def read_parameters(parameters: tuple[Parameter, ...], params: Mapping[str, Any], *, owner: str,
                    given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings' values from a model file's ``parameters`` (unknown keys refused, constants checked;
    ``given``: values the caller read itself, e.g. an older version's binary ε)."""
    unknown = set(params) - file_keys(parameters)
    if unknown:
        raise InputError(f"unknown {owner} parameters {sorted(unknown)}")
    out = dict(given or {})
    for p in parameters:
        key = p.file_key
        if p.stored is None or p.name in out:
            continue
        if p.fixed is not None:
            check_choice(params.get(key, p.fixed), key, (p.fixed,), allow_none=False)
            continue
        if key not in params and p.legacy is not ABSENT:
            out[p.name] = p.legacy
        elif p.stored == "exact":
            out[p.name] = None if p.optional and params.get(key) is None else exact_parameter(params, key)
        elif p.stored == "text" and params.get(key) is not None:
            out[p.name] = exact(params[key], key)
        else:
            out[p.name] = params.get(key)
        if not p.setting:
            del out[p.name]
    return out


# --- the parameters most methods share ---------------------------------------------------------------------------

NEIGHBOURS_CHOICES = ("replace-one", "add-remove")
"""The neighbouring relations (:data:`privbayes.privacy.neighbours.RELATIONS`, named here without importing it)."""

EPSILON = Parameter("epsilon", "privacy budget ε > 0: smaller is more private and noisier (1 is a common choice); "
                    "read as the decimal written (0.1 is exactly 1/10)", 1.0, epsilon_check(number),
                    stored="exact", positional=True)
NEIGHBOURS = Parameter("neighbours", "neighbouring relation of the guarantee: replace-one (n public, TODS 2017) or "
                       "add-remove (n private, as MST/AIM)", "replace-one",
                       choice_check(NEIGHBOURS_CHOICES))
RANDOM_STATE = Parameter("random_state", "seed of the DP noise (reproducible experiments only; the privacy report "
                         "says so)", None, Check(lambda value, name: _seed(value, name), "int in [0, 2^63)", seed),
                         optional=True, auto="the operating system's randomness", flag="--seed", setting=False,
                         stored=None)
PRIVACY_DEFINITIONS = ("pure", "zcdp")
"""The privacy definitions: pure ε-DP, or zero-concentrated DP priced in ρ (docs/decisions.md, "zCDP mode")."""
ZCDP_PARAMETERS = (
    Parameter("privacy", "the privacy definition: pure (ε-DP) or zcdp (ρ-zCDP with ρ from (ε, delta) by Canonne, "
              "Kamath & Steinke 2020, or rho; discrete Gaussian measurements, exponential-mechanism selections)",
              PRIVACY_DEFINITIONS[0], choice_check(PRIVACY_DEFINITIONS), legacy=PRIVACY_DEFINITIONS[0]),
    Parameter("delta", "with privacy zcdp: the δ of the (ε, δ) guarantee asked for (required unless rho is given)",
              None, exact_check(Fraction(0), Fraction(1), cli=number), optional=True, auto="none (pure ε)",
              stored="exact", legacy=None),
    Parameter("rho", "with privacy zcdp: the budget ρ itself (exact), instead of the ρ that (ε, delta) allows", None,
              exact_check(Fraction(0), Fraction(10**6), closed_high=True, cli=ratio), optional=True,
              auto="the largest ρ whose (ε, δ) is within (epsilon, delta)", stored="exact", legacy=None),
)
"""``privacy``, ``delta`` and ``rho``: the privacy definition of a method that offers zCDP (the adaptive method and
PrivBayes), declared once; :class:`PrivacyDefinition` reads them.  Model files keep them only under zCDP."""
ZCDP_KEYS = ("privacy", "delta", "delta_exact", "rho", "rho_exact")
"""The model-file keys of :data:`ZCDP_PARAMETERS` (absent from pure-ε files, which stay as they were)."""
PROGRESS = Parameter("progress", "show a progress bar on stderr (the command line sets it)", False,
                     any_check("bool"), flag=None, setting=False, stored=None)


def _seed(value: Any, name: str) -> int | None:
    from privbayes.core.validation import check_seed

    return check_seed(value, name)


class PrivacyDefinition:
    """The privacy definition of settings that declare :data:`ZCDP_PARAMETERS`: pure ε, or ρ-zCDP with ρ given or
    the largest ρ whose (ε, δ) (Canonne, Kamath & Steinke 2020, Cor. 13) is within (``epsilon``, ``delta``)."""

    epsilon: Fraction
    privacy: str
    delta: Fraction | None
    rho: Fraction | None

    @property
    def zcdp(self) -> bool:
        """Whether the fit is priced in ρ (``privacy="zcdp"``)."""
        return self.privacy == PRIVACY_DEFINITIONS[1]

    def check_privacy(self) -> None:
        """``delta`` and ``rho`` belong to ``privacy="zcdp"``, which needs exactly one of them: the budget is ρ, given
        or from (ε, δ); both would leave ε unused (refused, not ignored)."""
        if not self.zcdp:
            if self.delta is not None or self.rho is not None:
                raise InputError("delta and rho apply to privacy 'zcdp' only (privacy is 'pure')")
        elif self.delta is None and self.rho is None:
            raise InputError("privacy 'zcdp' needs delta (the δ of the (ε, δ) guarantee, e.g. 1e-9) or rho")
        elif self.delta is not None and self.rho is not None:
            raise InputError("delta and rho: give one (rho is the budget itself; delta with epsilon asks for the "
                             "largest rho within (epsilon, delta))")

    def total_rho(self) -> Fraction:
        """The zCDP budget: ``rho``, else the largest ρ whose (ε, δ) is within (ε, ``delta``)."""
        if self.rho is not None:
            return self.rho
        if self.delta is None:
            raise ValueError("a pure-epsilon fit has no rho")
        return _rho_for(self.epsilon, self.delta)

    def report_delta(self) -> Fraction:
        """The δ at which a zCDP release states its ε: ``delta``, or the report's δ (10⁻⁹) when only ρ is given."""
        from privbayes.privacy.zcdp import REPORT_DELTA

        return self.delta if self.delta is not None else REPORT_DELTA


@functools.lru_cache(maxsize=64)
def _rho_for(epsilon: Fraction, delta: Fraction) -> Fraction:
    """:func:`privbayes.privacy.zcdp.rho_for`, remembered (a fit, its plan and its model file ask for it often); a
    one-line InputError when no positive ρ fits."""
    from privbayes.privacy.zcdp import rho_for

    try:
        return rho_for(epsilon, delta)
    except ValueError:
        raise InputError(f"epsilon ({float(epsilon):g}) and delta ({float(delta):g}) allow no positive rho; raise "
                         "either") from None
