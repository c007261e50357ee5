"""Discrete domains and log-space factors: the values every inference routine passes around.

A :class:`Domain` fixes the number of values of each variable 0..T-1 (an attribute index
of a schema).  A :class:`Factor` is a table of log-potentials over an ordered tuple of
distinct variables, one numpy axis per variable.  Products are sums in log space with
broadcasting, marginalisation is a log-sum-exp over axes: no Python loop visits cells
(Koller & Friedman 2009, §10.2; ICML 2017, Eq. 1 writes θ_C(i_C) = log ψ_C(i_C)).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Domain:
    """Sizes ``|X_t|`` of the variables t = 0..T-1 (each ≥ 1)."""

    sizes: tuple[int, ...]

    def __post_init__(self) -> None:
        sizes = tuple(self.sizes)
        if not sizes:
            raise ValueError("a domain needs at least one variable")
        if any(not isinstance(s, (int, np.integer)) or isinstance(s, bool) or s < 1 for s in sizes):
            raise ValueError(f"variable sizes ({sizes!r}) must be positive integers")
        object.__setattr__(self, "sizes", tuple(int(s) for s in sizes))

    def __len__(self) -> int:
        return len(self.sizes)

    def shape(self, variables: Sequence[int]) -> tuple[int, ...]:
        return tuple(self.sizes[v] for v in variables)

    def cells(self, variables: Sequence[int]) -> int:
        """Number of joint configurations of ``variables`` (a Python int: no overflow)."""
        out = 1
        for v in variables:
            out *= self.sizes[v]
        return out

    def check_scope(self, variables: Sequence[int]) -> tuple[int, ...]:
        """``variables`` as a tuple, refused if a variable repeats or is outside 0..T-1."""
        scope = tuple(int(v) for v in variables)
        if len(set(scope)) != len(scope):
            raise ValueError(f"scope {scope!r} repeats a variable")
        if any(not 0 <= v < len(self.sizes) for v in scope):
            raise ValueError(f"scope {scope!r} has a variable outside 0..{len(self.sizes) - 1}")
        return scope


def logsumexp(values: np.ndarray, axis: int | tuple[int, ...] | None = None) -> np.ndarray:
    """log Σ exp(values) over ``axis``, stable when every entry is -inf (result -inf).

    One temporary of ``values``' size, exponentiated in place: on the junction tree's large cliques a second
    full-size allocation (and its page faults) cost more than the arithmetic, and the result is the same to
    the bit."""
    top = _max(values, axis)
    top = np.where(np.isfinite(top), top, 0.0)
    shifted = np.subtract(values, top)
    np.exp(shifted, out=shifted)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(shifted, axis=axis, keepdims=True)) + top
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


SHORT_AXIS = 16
"""A last axis this short is maximised by halving (:func:`_max`) rather than by ``np.max``."""


def _max(values: np.ndarray, axis: int | tuple[int, ...] | None) -> np.ndarray:
    """``np.max(values, axis=axis, keepdims=True)``, the same values (a maximum is exact in any order).  numpy
    reduces a short last axis row by row, 10-50× slower per cell than any other axis (a 43,008-cell clique whose
    last axis has 2 values: 0.54 ms against 0.01), so such an axis is first folded in halves elementwise."""
    last = values.ndim - 1
    axes = tuple(range(values.ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(a % values.ndim for a in axes) if values.ndim else ()
    if last not in axes or not 1 < values.shape[-1] <= SHORT_AXIS:
        return np.max(values, axis=axis, keepdims=True)
    folded = values
    while folded.shape[-1] > 1:
        half = folded.shape[-1] // 2
        odd = folded[..., 2 * half:]
        folded = np.maximum(folded[..., :half], folded[..., half:2 * half])
        if odd.shape[-1]:
            folded[..., :1] = np.maximum(folded[..., :1], odd)
    rest = tuple(a for a in axes if a != last)
    return np.max(folded, axis=rest, keepdims=True) if rest else folded


@dataclass(frozen=True)
class Factor:
    """Log-potentials ``log_values`` over ``variables`` (axis i ↔ variables[i])."""

    variables: tuple[int, ...]
    log_values: np.ndarray

    def __post_init__(self) -> None:
        variables = tuple(int(v) for v in self.variables)
        if len(set(variables)) != len(variables):
            raise ValueError(f"factor variables {variables!r} repeat a variable")
        values = np.asarray(self.log_values, dtype=np.float64)
        if values.ndim != len(variables):
            raise ValueError(f"factor over {variables!r} needs {len(variables)} axes, got {values.ndim}")
        object.__setattr__(self, "variables", variables)
        object.__setattr__(self, "log_values", values)

    @classmethod
    def uniform(cls, variables: Sequence[int], domain: Domain) -> Factor:
        return cls(tuple(variables), np.zeros(domain.shape(variables)))

    def aligned(self, variables: Sequence[int]) -> np.ndarray:
        """The values broadcastable against an array over ``variables`` (a superset, any order)."""
        target = tuple(variables)
        missing = [v for v in self.variables if v not in target]
        if missing:
            raise ValueError(f"factor variables {missing!r} are not in {target!r}")
        order = sorted(range(len(self.variables)), key=lambda i: target.index(self.variables[i]))
        values = np.transpose(self.log_values, order)
        shape = [1] * len(target)
        for i in order:
            shape[target.index(self.variables[i])] = self.log_values.shape[i]
        return values.reshape(shape)

    def product(self, other: Factor) -> Factor:
        """ψ·φ over the union of the scopes (a sum of log-potentials)."""
        union = self.variables + tuple(v for v in other.variables if v not in self.variables)
        return Factor(union, self.aligned(union) + other.aligned(union))

    def marginalize(self, keep: Sequence[int]) -> Factor:
        """Σ over the variables not in ``keep``; the result's axes follow ``keep``'s order."""
        keep = tuple(keep)
        drop = tuple(i for i, v in enumerate(self.variables) if v not in keep)
        summed = logsumexp(self.log_values, axis=drop) if drop else self.log_values
        remaining = tuple(v for v in self.variables if v in keep)
        if set(remaining) != set(keep):
            raise ValueError(f"cannot keep {keep!r}: the factor is over {self.variables!r}")
        return Factor(keep, np.transpose(summed, [remaining.index(v) for v in keep]))

    def log_normalizer(self) -> float:
        return float(logsumexp(self.log_values))

    def probabilities(self) -> np.ndarray:
        """exp(log_values) normalised to sum to one."""
        return np.exp(self.log_values - self.log_normalizer())
