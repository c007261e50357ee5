"""Loopy belief propagation on the factor graph of the scopes, in log space.

Flooding schedule with damping (messages are geometric averages of the new and the old
one), stopped when no message changes by more than ``tol`` in probability or after
``max_iters`` rounds.  Beliefs are the usual pseudo-marginals; ``log_z`` is the Bethe
approximation (Yedidia, Freeman & Weiss 2005), both exact when the factor graph is a
tree.  ICML 2017 runs NLBP on top of it for loopy models (§3.2, Alg. 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from privbayes.inference.factor import Domain, Factor, logsumexp
from privbayes.inference.protocol import check_potentials


class LoopyOptions(TypedDict, total=False):
    """The keyword options of :class:`LoopyBPEngine`, as :func:`~privbayes.inference.engine.make_engine` passes
    them on."""

    damping: float
    tol: float
    max_iters: int


@dataclass(frozen=True)
class LoopyBeliefs:
    """Normalised log pseudo-marginals of each merged factor scope and each variable."""

    scopes: tuple[tuple[int, ...], ...]
    factor_beliefs: tuple[np.ndarray, ...]
    variable_beliefs: tuple[np.ndarray, ...]
    log_z: float
    converged: bool
    iterations: int
    exact: bool = False

    def marginal(self, variables: Sequence[int]) -> np.ndarray:
        wanted = tuple(variables)
        if len(wanted) == 1:
            return np.exp(self.variable_beliefs[wanted[0]])
        found = [i for i, s in enumerate(self.scopes) if set(wanted) <= set(s)]
        if not found:
            raise ValueError(f"loopy BP has no belief over {wanted!r}: it is not inside a factor scope")
        i = min(found, key=lambda k: len(self.scopes[k]))
        return np.exp(Factor(self.scopes[i], self.factor_beliefs[i]).marginalize(wanted).log_values)


def _normalise(log_values: np.ndarray) -> np.ndarray:
    return log_values - logsumexp(log_values)


def _entropy_terms(log_p: np.ndarray) -> float:
    p = np.exp(log_p)
    return float(np.sum(np.where(p > 0, p * log_p, 0.0)))


class LoopyBPEngine:
    """Loopy BP for factors over ``scopes``; duplicate scopes (in any order) are merged."""

    exact = False

    def __init__(self, domain: Domain, scopes: Sequence[Sequence[int]], *, damping: float = 0.5,
                 tol: float = 1e-8, max_iters: int = 500) -> None:
        if not 0 <= damping < 1:
            raise ValueError(f"damping ({damping!r}) must be in [0, 1)")
        if not tol > 0 or not isinstance(max_iters, int) or max_iters < 1:
            raise ValueError(f"tol ({tol!r}) must be > 0 and max_iters ({max_iters!r}) a positive integer")
        self.domain = domain
        self.scopes = tuple(domain.check_scope(s) for s in scopes)
        self.damping, self.tol, self.max_iters = damping, tol, max_iters
        merged: dict[frozenset[int], tuple[int, ...]] = {}
        for scope in self.scopes:
            merged.setdefault(frozenset(scope), tuple(sorted(scope)))
        covered = set().union(*merged) if merged else set()
        for v in range(len(domain)):
            if v not in covered:
                merged[frozenset((v,))] = (v,)
        self.factor_scopes = tuple(merged.values())
        self._slot = [self.factor_scopes.index(merged[frozenset(s)]) for s in self.scopes]
        self._degree = np.zeros(len(domain), dtype=int)
        for scope in self.factor_scopes:
            self._degree[list(scope)] += 1

    def _factor_tables(self, log_potentials: Sequence[np.ndarray]) -> list[np.ndarray]:
        tables = [np.zeros(self.domain.shape(s)) for s in self.factor_scopes]
        for scope, values, slot in zip(self.scopes, check_potentials(self.domain, self.scopes, log_potentials),
                                       self._slot):
            tables[slot] = tables[slot] + Factor(scope, values).aligned(self.factor_scopes[slot])
        return tables

    def infer(self, log_potentials: Sequence[np.ndarray]) -> LoopyBeliefs:
        tables = self._factor_tables(log_potentials)
        sizes = self.domain.sizes
        to_var = {(f, v): np.full(sizes[v], -np.log(sizes[v])) for f, s in enumerate(self.factor_scopes) for v in s}
        converged, iteration = False, 0
        for iteration in range(1, self.max_iters + 1):  # noqa: B007 (the last value is returned)
            incoming = [np.zeros(s) for s in sizes]
            for (_f, v), message in to_var.items():
                incoming[v] = incoming[v] + message
            change = 0.0
            new_messages = {}
            for f, scope in enumerate(self.factor_scopes):
                from_vars = [_normalise(incoming[v] - to_var[(f, v)]) for v in scope]
                total = tables[f]
                for axis, message in enumerate(from_vars):
                    shape = [1] * len(scope)
                    shape[axis] = sizes[scope[axis]]
                    total = total + message.reshape(shape)
                for axis, v in enumerate(scope):
                    shape = [1] * len(scope)
                    shape[axis] = sizes[v]
                    others = tuple(a for a in range(len(scope)) if a != axis)
                    excluded = total - from_vars[axis].reshape(shape)
                    new = _normalise(logsumexp(excluded, axis=others) if others else excluded)
                    old = to_var[(f, v)]
                    damped = _normalise((1 - self.damping) * new + self.damping * old) if self.damping else new
                    change = max(change, float(np.max(np.abs(np.exp(damped) - np.exp(old)))))
                    new_messages[(f, v)] = damped
            to_var = new_messages
            if change < self.tol:
                converged = True
                break
        return self._beliefs(tables, to_var, converged, iteration)

    def _beliefs(self, tables: list[np.ndarray], to_var: dict, converged: bool, iterations: int) -> LoopyBeliefs:
        sizes = self.domain.sizes
        incoming = [np.zeros(s) for s in sizes]
        for (_f, v), message in to_var.items():
            incoming[v] = incoming[v] + message
        variable_beliefs = tuple(_normalise(m) for m in incoming)
        factor_beliefs = []
        log_z = 0.0
        for f, scope in enumerate(self.factor_scopes):
            total = tables[f]
            for axis, v in enumerate(scope):
                shape = [1] * len(scope)
                shape[axis] = sizes[v]
                total = total + _normalise(incoming[v] - to_var[(f, v)]).reshape(shape)
            belief = _normalise(total)
            factor_beliefs.append(belief)
            p = np.exp(belief)
            log_z += float(np.sum(np.where(p > 0, p * tables[f], 0.0))) - _entropy_terms(belief)
        for v, belief in enumerate(variable_beliefs):
            log_z += (self._degree[v] - 1) * _entropy_terms(belief)
        return LoopyBeliefs(self.factor_scopes, tuple(factor_beliefs), variable_beliefs, log_z, converged, iterations)
