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
from typing import Any

from privbayes.errors import InputError


@dataclass(frozen=True)
class Method:
    """A registered method: its estimator (``module:Class``), the file format its released value is
    saved in, its loader (``module:function``, taking the parsed document and its source name), and
    whether it is differentially private."""

    name: str
    estimator: str
    file_format: str
    loader: str
    summary: str
    differentially_private: bool = True

    def estimator_class(self) -> Any:
        return _resolve(self.estimator)

    def load_document(self, document: Any, source: str) -> Any:
        return _resolve(self.loader)(document, source)


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("privbayes", "privbayes.synthesizers.privbayes:PrivBayes", "privbayes-model",
           "privbayes.bayesnet.model_file:model_from_document",
           "PrivBayes (Zhang et al., ACM TODS 2017): a private Bayesian network and synthetic data"),
    Method("sa-privbayes", "privbayes.synthesizers.sa_privbayes:SAPrivBayes", "privbayes-model",
           "privbayes.bayesnet.model_file:model_from_document",
           "SA-PrivBayes (Yuan et al., Future Internet 2026): AMI order, screening, score-driven budgets"),
    Method("adaptive", "privbayes.synthesizers.adaptive:AdaptiveMarginals", "privbayes-model",
           "privbayes.bayesnet.model_file:model_from_document",
           "adaptive marginals (issue 31): AIM-style selection under pure ε, consistent estimation, in seconds"),
    Method("mrf", "privbayes.synthesizers.mrf:PrivateMRF", "privbayes-mrf",
           "privbayes.undirected.model_file:from_document",
           "private Markov random field over given cliques (Bernstein et al., ICML 2017): naive MLE, CGM-EM, PSGD"),
    Method("nbc", "privbayes.synthesizers.nbc:SafeNBC", "privbayes-nbc-views",
           "privbayes.nbc.release:release_from_document",
           "naive Bayes classifier views by SafetyTransform/EST (Mozafari & Zaniolo, VLDB 2009): a privacy-breach "
           "bound, NOT differential privacy", differentially_private=False),
)}
"""Every method by its registry name."""

DEFAULT_METHOD = "adaptive"
"""The method ``privbayes fit`` and :func:`synthesizer` use when none is named: the most accurate at the
library's guarantee (pure ε; issue 31, docs/peers.md).  ``privbayes`` with ``estimation="paper"`` is the
TODS 2017 algorithm as published, for reproductions."""


def synthesizer(method: str = DEFAULT_METHOD, **parameters: Any) -> Any:
    """An unfitted estimator of the registered ``method`` (default: :data:`DEFAULT_METHOD`) with
    ``parameters`` (e.g. ``epsilon=1.0``); fit it with ``.fit(data, schema)``."""
    return globals()["method"](method).estimator_class()(**parameters)


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
    """The released value in a model file of any registered format, verified (sizes capped before
    allocation, plan recomputed from the parameters, ledger checked against it)."""
    from privbayes.documents import read_model_document

    path = Path(path)
    document = read_model_document(path)
    declared = document.get("format") if isinstance(document, dict) else None
    known = formats()
    if declared not in known:
        raise InputError(f"{path}: not a model file of this library ('format' must be one of "
                         f"{', '.join(sorted(known))})")
    return known[declared].load_document(document, str(path))


def _resolve(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
