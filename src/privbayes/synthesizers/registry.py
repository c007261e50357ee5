"""The methods of the library, by name: estimator, released value and file format.

One table drives the command line (``privbayes fit --method``, ``inspect``, ``sample``,
``evaluate --model``, ``--dry-run``), :func:`load` and the contract tests.  Adding a method is
one module (its estimator, following :mod:`privbayes.synthesizers.contract`) and one entry
here; names are imported on first use, so that ``privbayes --help`` stays fast.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privbayes.core.errors import InputError

if TYPE_CHECKING:
    from privbayes.synthesizers.contract import PrivateEstimator
    from privbayes.synthesizers.parameters import Parameter


@dataclass(frozen=True)
class Method:
    """A registered method: its estimator (``module:Class``), the file format its released value is
    saved in, its loader (``module:function``, taking the parsed document and its source name), and
    whether it is differentially private.  Methods that share a format (the Bayesian-network methods)
    name the same loader and each its own ``codec`` (``module:function``) for the parameters that differ;
    the loader receives every codec of the format."""

    name: str
    estimator: str
    file_format: str
    loader: str
    summary: str
    differentially_private: bool = True
    codec: str | None = None
    parameters: str | None = None

    def estimator_class(self) -> type[PrivateEstimator]:
        """The estimator's class (imported now)."""
        estimator: type[PrivateEstimator] = _resolve(self.estimator)
        return estimator

    def declared_parameters(self) -> tuple[Parameter, ...]:
        """The method's parameter declarations (``module:NAME``, a module that imports nothing heavy), else
        its estimator's."""
        return tuple(_resolve(self.parameters) if self.parameters else _resolve(self.estimator).parameters)


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("privbayes", "privbayes.methods.privbayes.estimator:PrivBayes", "privbayes-model",
           "privbayes.bayesnet.model_file:model_from_document",
           "PrivBayes (Zhang et al., ACM TODS 2017): a private Bayesian network and synthetic data",
           codec="privbayes.methods.privbayes.codec:read_parameters",
           parameters="privbayes.methods.privbayes.parameters:PARAMETERS"),
    Method("sa-privbayes", "privbayes.methods.sa_privbayes.estimator:SAPrivBayes", "privbayes-model",
           "privbayes.bayesnet.model_file:model_from_document",
           "SA-PrivBayes (Yuan et al., Future Internet 2026): AMI order, screening, score-driven budgets",
           codec="privbayes.methods.sa_privbayes.codec:read_parameters",
           parameters="privbayes.methods.sa_privbayes.parameters:PARAMETERS"),
    Method("adaptive", "privbayes.methods.adaptive.estimator:AdaptiveMarginals", "privbayes-model",
           "privbayes.bayesnet.model_file:model_from_document",
           "adaptive marginals: AIM-style selection under pure ε, consistent estimation, in seconds",
           codec="privbayes.methods.adaptive.codec:read_parameters",
           parameters="privbayes.methods.adaptive.parameters:PARAMETERS"),
    Method("mrf", "privbayes.methods.mrf.estimator:PrivateMRF", "privbayes-mrf",
           "privbayes.methods.mrf.model_file:from_document",
           "private Markov random field over given cliques (Bernstein et al., ICML 2017): naive MLE, CGM-EM, PSGD",
           parameters="privbayes.methods.mrf.parameters:PARAMETERS"),
    Method("nbc", "privbayes.methods.nbc.estimator:SafeNBC", "privbayes-nbc-views",
           "privbayes.methods.nbc.release:release_from_document",
           "naive Bayes classifier views by SafetyTransform/EST (Mozafari & Zaniolo, VLDB 2009): a privacy-breach "
           "bound, NOT differential privacy", differentially_private=False,
           parameters="privbayes.methods.nbc.parameters:PARAMETERS"),
)}
"""Every method by its registry name."""

DEFAULT_METHOD = "adaptive"
"""The method ``privbayes fit`` and :func:`synthesizer` use when none is named: the most accurate at the
library's guarantee (pure ε; docs/decisions.md, "Adaptive marginals"; docs/peers.md).  ``privbayes`` with
``estimation="paper"`` is the TODS 2017 algorithm as published, for reproductions."""


def register(entry: Method) -> Method:
    """Add a method to :data:`METHODS` (one line per method; a name is registered once)."""
    if entry.name in METHODS:
        raise InputError(f"method {entry.name!r} is already registered")
    METHODS[entry.name] = entry
    return entry


def synthesizer(method: str = DEFAULT_METHOD, **parameters: Any) -> PrivateEstimator:
    """An unfitted estimator of a registered method, by its name.

    Parameters
    ----------
    method : str, default "adaptive"
        The registry name (``privbayes fit --method``): ``adaptive``, ``privbayes``, ``sa-privbayes``, ``mrf``
        or ``nbc``; an unknown name is a one-line InputError naming the choices.
    **parameters
        The estimator's constructor parameters (e.g. ``epsilon=1.0``); a misspelt one is a one-line InputError
        naming the close match.

    Returns
    -------
    PrivateEstimator
        The method's estimator, not fitted: fit it with ``.fit(data, schema)``.
    """
    entry: Method = globals()["method"](method)  # the function method(), which the parameter hides here
    return entry.estimator_class()(**parameters)


def method(name: str) -> Method:
    """The registered method called ``name`` (one-line error naming the choices)."""
    if name not in METHODS:
        raise InputError(f"method ({name!r}) must be one of {', '.join(METHODS)}")
    return METHODS[name]


def formats() -> dict[str, Method]:
    """File format → the (first) method whose loader reads it."""
    out: dict[str, Method] = {}
    for m in METHODS.values():
        out.setdefault(m.file_format, m)
    return out


def load(path: str | os.PathLike[str]) -> Any:
    """The released value in a model file of any registered format, verified.

    The file is hostile input: its size and every declared size are capped before allocation, the plan is
    recomputed from the saved parameters and the saved ledger is checked against it.

    Parameters
    ----------
    path : str or os.PathLike
        A model file written by ``fit`` (``save``, ``privbayes fit -o``), of any version this library wrote.

    Returns
    -------
    Released
        The released value (:class:`~privbayes.BayesNetModel`, a private MRF or NBC views): it samples,
        reports and saves without the data.

    Raises
    ------
    InputError
        The file is missing, too large, not a model file of this library, or fails verification (one line
        naming the file).
    """
    from privbayes.files.documents import read_model_document

    path = Path(path)
    return load_document(read_model_document(path), str(path))


def load_document(document: Any, source: str) -> Any:
    """The released value in a parsed model-file document, by its declared format (errors name ``source``)."""
    declared = document.get("format") if isinstance(document, dict) else None
    known = formats()
    if declared not in known:
        raise InputError(f"{source}: not a model file of this library ('format' must be one of "
                         f"{', '.join(sorted(known))})")
    first = known[declared]
    if first.codec is None:
        return _resolve(first.loader)(document, source)
    codecs = {m.name: _resolve(m.codec) for m in METHODS.values() if m.file_format == declared and m.codec}
    return _resolve(first.loader)(document, source, codecs)


def _resolve(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
