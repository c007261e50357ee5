"""The log-linear Markov random field p(x; θ) = exp(Σ_C θ_C(x_C) − A(θ)) (ICML 2017, Eq. 1).

A frozen value: the domain, the cliques (tuples of variable indices) and one table of
log-potentials θ_C per clique.  Inference goes through a :mod:`privbayes.inference`
engine built once per model (exact on a junction tree when it fits, loopy BP otherwise).
Exact inference is refused over a junction tree above ``MAX_EXACT_CELLS`` even when asked for
(a 64 KB model file requesting it took 100 s and 2.2 GB), and θ is finite and bounded by
``MAX_ABS_THETA`` (θ = 1e308 sums to inf and samples from NaN probabilities).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from privbayes.inference import (
    MAX_EXACT_CELLS,
    Beliefs,
    CliqueTooLarge,
    Domain,
    InferenceEngine,
    JunctionTree,
    JunctionTreeEngine,
    build_junction_tree,
    make_engine,
    sample,
)
from privbayes.inference.protocol import Method

Cliques = tuple[tuple[int, ...], ...]
MAX_ABS_THETA = 1e6
"""Largest |θ| of a log-potential.  Sums over any number of cliques stay far from overflow, and a
fitted model's θ are tens at most (a probability ratio of e^(10^6) is no estimate)."""


def exact_junction_tree(domain: Domain, cliques: Sequence[Sequence[int]]) -> JunctionTree:
    """The junction tree exact inference over ``cliques`` would calibrate, refused (``ValueError``)
    above ``MAX_EXACT_CELLS`` cells: the cap ``auto`` applies, held whatever was requested."""
    try:  # refused as soon as one clique is over the cap, before the rest of the triangulation
        tree = build_junction_tree(domain, cliques, max_cells=MAX_EXACT_CELLS)
    except CliqueTooLarge:
        raise ValueError("exact inference needs a junction tree with a clique of more than the limit of "
                         f"{MAX_EXACT_CELLS:,} cells; use inference auto or loopy") from None
    cells = sum(domain.cells(c) for c in tree.cliques)
    if cells > MAX_EXACT_CELLS:
        raise ValueError(f"exact inference needs a junction tree of {cells:,} cells, more than the limit of "
                         f"{MAX_EXACT_CELLS:,}; use inference auto or loopy")
    return tree


def flatten(tables: Sequence[np.ndarray]) -> np.ndarray:
    """One vector θ from per-clique tables (the order of the cliques)."""
    return np.concatenate([np.ravel(t) for t in tables]) if tables else np.zeros(0)


def unflatten(vector: np.ndarray, domain: Domain, cliques: Cliques) -> list[np.ndarray]:
    """Per-clique tables from one vector θ (inverse of :func:`flatten`)."""
    out, start = [], 0
    for clique in cliques:
        size = domain.cells(clique)
        out.append(vector[start:start + size].reshape(domain.shape(clique)))
        start += size
    return out


def clique_marginals(beliefs: Beliefs, cliques: Cliques) -> list[np.ndarray]:
    """μ_C for every clique C (ICML 2017, §3: µ = E_θ[n]/N)."""
    return [beliefs.marginal(c) for c in cliques]


@dataclass(frozen=True)
class LogLinearModel:
    """An MRF over ``domain`` with log-potentials ``theta[i]`` on ``cliques[i]``."""

    domain: Domain
    cliques: Cliques
    theta: tuple[np.ndarray, ...]
    inference: Method = "auto"
    engine: InferenceEngine = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cliques = tuple(self.domain.check_scope(c) for c in self.cliques)
        if len(self.theta) != len(cliques):
            raise ValueError(f"expected {len(cliques)} log-potential tables, got {len(self.theta)}")
        theta = []
        for clique, table in zip(cliques, self.theta):
            array = np.array(table, dtype=np.float64)
            if array.shape != self.domain.shape(clique) or not np.all(np.abs(array) <= MAX_ABS_THETA):
                raise ValueError(f"log-potentials of clique {clique!r} must be finite, at most {MAX_ABS_THETA:g} in "
                                 f"absolute value, with shape {self.domain.shape(clique)}")
            array.setflags(write=False)
            theta.append(array)
        object.__setattr__(self, "cliques", cliques)
        object.__setattr__(self, "theta", tuple(theta))
        engine = (JunctionTreeEngine(self.domain, cliques, tree=exact_junction_tree(self.domain, cliques))
                  if self.inference == "exact" else make_engine(self.domain, cliques, self.inference))
        object.__setattr__(self, "engine", engine)

    @classmethod
    def uniform(cls, domain: Domain, cliques: Sequence[Sequence[int]], inference: Method = "auto") -> LogLinearModel:
        scopes = tuple(tuple(c) for c in cliques)
        return cls(domain, scopes, tuple(np.zeros(domain.shape(c)) for c in scopes), inference)

    def with_theta(self, theta: Sequence[np.ndarray]) -> LogLinearModel:
        """The same structure (and engine) with other log-potentials."""
        model = object.__new__(LogLinearModel)
        for name in ("domain", "cliques", "inference", "engine"):
            object.__setattr__(model, name, getattr(self, name))
        tables = []
        for clique, table in zip(self.cliques, theta):
            array = np.array(table, dtype=np.float64).reshape(self.domain.shape(clique))
            array.setflags(write=False)
            tables.append(array)
        object.__setattr__(model, "theta", tuple(tables))
        return model

    def beliefs(self) -> Beliefs:
        return self.engine.infer(self.theta)

    def marginals(self) -> list[np.ndarray]:
        return clique_marginals(self.beliefs(), self.cliques)

    def marginal(self, variables: Sequence[int]) -> np.ndarray:
        """p(x_variables); variables outside one junction-tree clique use a tree built for them."""
        variables = tuple(variables)
        try:
            return self.beliefs().marginal(variables)
        except ValueError:
            extended = self.cliques + (variables,)
            engine = make_engine(self.domain, extended, "auto" if self.engine.exact else "loopy")  # capped
            return engine.infer(self.theta + (np.zeros(self.domain.shape(variables)),)).marginal(variables)

    def log_likelihood(self, counts: Sequence[np.ndarray], n: int) -> float:
        """L(θ) = θᵀn − N·A(θ) for clique count tables ``counts`` of ``n`` rows (ICML 2017, Eq. 2)."""
        return float(sum(np.sum(t * c) for t, c in zip(self.theta, counts)) - n * self.beliefs().log_z)

    def sample(self, n: int, rng: np.random.Generator, draw: str = "iid") -> np.ndarray:
        """``n`` draws (n × T codes): exact on a junction tree (``draw``: :data:`~privbayes.inference.sampling.DRAWS`),
        Gibbs otherwise."""
        return sample(self.engine, self.theta, n, rng, draw=draw)
