"""What every inference engine offers: the protocols, and the check of log-potentials they share.

Engines are interchangeable behind :class:`InferenceEngine` (ICML 2017, §3: inference is
called at every step of maximum-likelihood fitting and of EM).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np

from privbayes.inference.factor import Domain

Method = Literal["auto", "exact", "loopy", "brute"]

MAX_EXACT_CELLS = 2**22
"""Largest total number of junction-tree clique cells for which ``auto`` picks exact inference."""


class Beliefs(Protocol):
    """The result of inference for one setting of the log-potentials."""

    @property
    def exact(self) -> bool:
        """Exact marginals (a junction tree), or loopy BP's pseudo-marginals."""
        ...

    @property
    def log_z(self) -> float:
        """log of the partition function (the Bethe approximation for loopy BP)."""
        ...

    def marginal(self, variables: Sequence[int]) -> np.ndarray:
        """p(x_variables), one axis per variable in the given order; sums to one."""
        ...


class InferenceEngine(Protocol):
    """Inference for factors over fixed ``scopes`` of a fixed ``domain``."""

    domain: Domain
    scopes: tuple[tuple[int, ...], ...]
    exact: bool

    def infer(self, log_potentials: Sequence[np.ndarray]) -> Beliefs:
        """Beliefs for log-potentials ``log_potentials[i]`` over ``scopes[i]``."""
        ...


def check_potentials(domain: Domain, scopes: Sequence[tuple[int, ...]],
                     log_potentials: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The potentials as float arrays, refused unless one per scope with the scope's shape."""
    if len(log_potentials) != len(scopes):
        raise ValueError(f"expected {len(scopes)} log-potential tables, got {len(log_potentials)}")
    out = []
    for scope, values in zip(scopes, log_potentials):
        array = np.asarray(values, dtype=np.float64)
        if array.shape != domain.shape(scope):
            raise ValueError(f"log-potentials over {scope!r} must have shape {domain.shape(scope)}, got {array.shape}")
        if not array.max() < np.inf:  # one pass: the max is NaN if any cell is, +inf if any cell is
            raise ValueError(f"log-potentials over {scope!r} must not be NaN or +inf")
        out.append(array)
    return out
