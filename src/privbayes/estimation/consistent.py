"""Consistent, noise-aware estimation: one model fitted to all noisy tables at once (PrivBayes's
``estimation="consistent"`` and every round of the adaptive method).

PrivBayes turns each noisy table Pr*[X_i, Π_i] into a conditional on its own (TODS 2017,
Alg. 1/3): overlapping tables disagree and negative cells are clipped.  Here every paid-for
table y_i (a linear query A_i on the leaf domain of its attributes: a generalised parent is a
sum of leaf cells) is explained by one distribution p, the minimiser over the marginal
polytope of the Private-PGM objective (McKenna, Sheldon & Miklau, ICML 2019, Eq. 3 with the
squared loss)

    L(μ) = ½ Σ_i ‖A_i μ_{C_i} − y_i/n‖² / σ_i²,     σ_i² the noise variance of table i,

reached by entropic mirror descent on the log-potentials θ_i (ICML 2019, Alg. 1): the gradient
of L in μ is A_iᵀ(A_i μ − y_i/n)/σ_i², a function of the generalised cells, so each θ_i lives
on the shape of its measured table and is spread to the leaf cells for inference.  Exact
marginals come from junction-tree calibration (:mod:`privbayes.inference`) at every step;
the step size is found by backtracking (sufficient decrease against the linear prediction).

It is post-processing: :func:`estimate` receives the measurements only (never the table) and
releases nothing new, so the ledger is the one the measurements paid for (Dwork & Roth 2014,
Prop. 2.1).  The estimated model is released as the Bayesian network the calibrated junction
tree defines (:func:`privbayes.bayesnet.junction.junction_tree_network`): ancestral sampling from
it is exact sampling from p (Koller & Friedman 2009, §10.2 and §12.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privbayes.core.errors import InputError
from privbayes.estimation.decomposition import ComponentFit, components, one_leaf_attribute, product
from privbayes.estimation.measurements import NoisyTable
from privbayes.estimation.queries import Query
from privbayes.estimation.tables import conditional_from_joint
from privbayes.inference import (
    MAX_EXACT_CELLS,
    CalibratedTree,
    Domain,
    JunctionTree,
    JunctionTreeEngine,
    make_engine,
)
from privbayes.inference.projection import project_simplex
from privbayes.schema.encoding import Encoding

MAX_ITERATIONS = 200
WORK = 5 * 10**7
"""Iterations are capped at WORK / (cells of the junction tree), at least MIN_ITERATIONS: a deterministic
bound on the time of a fit whatever the size of the cliques (inference is linear in their cells)."""
MIN_ITERATIONS = 20
TOLERANCE = 1e-4
"""Mirror descent stops when an accepted step lowers L by less than TOLERANCE × the loss that the
noise alone is expected to leave at the true marginals, ½ Σ_i w_i · cells_i · Var_i / n² (a gain
that small is far below what the noisy tables can tell apart; docs/consistent.md, "Stopping rule");
with exact measurements (no noise), by less than TOLERANCE × L(start)."""
GROWTH = 1.3
"""Each iteration first tries a step GROWTH times the last accepted one (then halves until it is accepted)."""
FLOOR = 1e-3
"""Smallest probability of a cell in the starting point, relative to uniform (keeps log-potentials finite)."""


NOISELESS = 2.0**-53
"""Noise variance of a cell (in counts) at or below which a table counts as exact: its noise Z is an
integer, so P(Z ≠ 0) = P(|Z| ≥ 1) ≤ E[Z²] ≤ 2⁻⁵³ (Markov), below the resolution of any float64
probability computed here.  Discrete Laplace noise is that small at scale Δ/ε < 1/37 (ε → ∞), where its variance
also underflows to 0."""


def noise_weights(variances: np.ndarray) -> np.ndarray:
    """The weights w_i ∝ 1/σ_i² of the loss L, the largest 1 (only relative weights move the minimiser).

    When every table is noisy (σ_i² > :data:`NOISELESS`) this is σ_min²/σ_i².  As some σ_i² → 0 the
    weight ratios diverge and σ_min²/σ_i² is 0/0 (NaN weights): the limit of the problem is
    then to match the noiseless tables exactly.  Noiseless tables measure one distribution without
    error, so they agree, and every μ that matches them minimises their part of L whatever positive
    weights they carry: they get weight 1, as exact counts (analysis mode) do.  A noisy table beside
    them keeps its inverse-variance weight relative to the noiseless level, NOISELESS/σ_i² (≤ 2⁻⁵³ for
    σ_i² ≥ 1): it only breaks ties among the μ that match the noiseless tables.  That is the limit
    of σ_min²/σ_i² as σ_min² → 0 (the exact tables first, the noisy ones among their minimisers), with
    a positive stand-in for its vanishing weight, so the noisy tables still inform what the exact
    ones leave open."""
    variances = np.asarray(variances, dtype=np.float64)
    noiseless = variances <= NOISELESS
    if noiseless.any():
        return np.where(noiseless, 1.0, NOISELESS / np.where(noiseless, 1.0, variances))
    return np.asarray(variances.min() / variances, dtype=np.float64)


class TreeTooLarge(InputError):
    """The junction tree of the measured families exceeds exact inference's size cap."""


@dataclass(frozen=True)
class Estimate:
    """The fitted model: calibrated junction tree, log-potentials per measured table, final loss,
    and the number of accepted mirror-descent steps."""

    calibrated: CalibratedTree
    log_potentials: tuple[np.ndarray, ...]
    loss: float
    iterations: int


def estimate(encoding: Encoding, measurements: Sequence[NoisyTable], n: float, *,
             max_iterations: int | None = None, tolerance: float = TOLERANCE, floor: float = FLOOR,
             start: Sequence[np.ndarray | None] | None = None) -> Estimate:
    """The model whose marginals best explain ``measurements`` (ICML 2019, Alg. 1), on the leaf
    domain of ``encoding``.  Receives measurements only: post-processing, charges nothing.

    L is a sum over the connected components of the measured scopes (tables sharing no variable
    with each other), and the marginal polytope of independent components is the product of
    theirs, so each component is fitted on its own (its own step size and stopping test, and no
    messages through the rest of the network), and the model is their product.  A component of
    one table over one attribute (a child without parents, a parent of nobody) is solved in closed
    form: L is then ½ w‖μ − y/n‖² over the simplex, whose minimiser is the Euclidean projection of
    y/n (Duchi et al. 2008), and so is a component of several tables over one attribute's leaves (the
    projection of their weighted mean); with ``max_iterations = 0`` it keeps the paper's start, like the rest.

    ``start`` (optional, one entry per measurement): log-potentials to start from instead of the
    paper's (a warm start from an earlier fit, e.g. :attr:`Estimate.log_potentials`); ``None``
    entries keep the paper's start for that table."""
    if not measurements:
        raise ValueError("estimation needs at least one measured table")
    exact = [m.scale is None for m in measurements]
    if any(exact) and not all(exact):
        raise ValueError("measurements are either all exact or all noisy")
    variances = np.array([0.0 if m.scale is None else m.variance for m in measurements])
    weights = noise_weights(variances)
    queries = [Query(encoding, m) for m in measurements]
    targets = [np.asarray(m.counts, dtype=np.float64) / n for m in measurements]
    sizes = tuple(a.size for a in encoding.attributes)
    initial = _paper_start(measurements, floor)
    if start is not None:
        if len(start) != len(measurements):
            raise ValueError("start needs one entry per measurement")
        initial = [s if s is not None else p for s, p in zip(start, initial)]
    noise_loss = [0.0 if v <= NOISELESS else 0.5 * w * m.counts.size * v / n**2
                  for m, w, v in zip(measurements, weights, variances)]
    parts = []
    for variables, members in components(len(sizes), [q.scope for q in queries]):
        if one_leaf_attribute(variables, members, queries) and max_iterations != 0:
            parts.append(_one_attribute(variables, members, targets, weights))
        else:
            parts.append(_mirror_descent(variables, members, sizes, queries, targets, weights, initial,
                                         max_iterations, tolerance, sum(noise_loss[i] for i in members)))
    theta: list[np.ndarray] = list(initial)
    for part in parts:
        for i, t in zip(part.members, part.theta):
            theta[i] = t
    return Estimate(product(parts), tuple(theta), sum(p.loss for p in parts), max(p.iterations for p in parts))


def _one_attribute(variables: tuple[int, ...], members: tuple[int, ...], targets: Sequence[np.ndarray],
                   weights: np.ndarray) -> ComponentFit:
    """A component of one attribute measured at its leaves, by one table or several: L is then
    ½ Σ_i w_i‖μ − y_i/n‖² = ½ W‖μ − ȳ‖² + const over the simplex (ȳ the w-weighted mean of the
    tables, W = Σ w_i), whose minimiser is the Euclidean projection of ȳ (exact)."""
    w = np.array([weights[i] for i in members])
    mean = sum(wi * targets[i] for wi, i in zip(w, members)) / float(w.sum())
    p = project_simplex(mean)
    with np.errstate(divide="ignore"):
        theta = np.log(p)
    loss = 0.5 * sum(float(weights[i]) * float(np.sum((p - targets[i]) ** 2)) for i in members)
    tree = JunctionTree(((0,),), ())
    thetas = (theta,) + tuple(np.zeros_like(theta) for _ in members[1:])
    return ComponentFit(variables, members, thetas, CalibratedTree(tree, (theta,), 0.0), loss, 0)


def _mirror_descent(variables: tuple[int, ...], members: tuple[int, ...], sizes: tuple[int, ...],
                    queries: Sequence[Query], targets: Sequence[np.ndarray], weights: np.ndarray,
                    start: Sequence[np.ndarray], max_iterations: int | None, tolerance: float,
                    noise_loss: float) -> ComponentFit:
    """ICML 2019, Alg. 1 on one component, over its own domain (variables renumbered 0..m-1);
    ``noise_loss``: the loss its noise is expected to leave at the truth (0 for exact tables).

    The iterations run on the cheaper of two equivalent models (:class:`GeneralisedModel`): the leaf
    model, or one with a variable per generalised parent tied to its leaves by fixed 0/−∞ factors;
    the returned tree is the leaf model's, calibrated once at the end."""
    local = {v: j for j, v in enumerate(variables)}
    domain = Domain(tuple(sizes[v] for v in variables))
    queries = [queries[i] for i in members]
    scopes = [tuple(local[v] for v in q.scope) for q in queries]
    targets = [targets[i] for i in members]
    weights = np.array([weights[i] for i in members], dtype=np.float64)
    engine = make_engine(domain, scopes)
    if not isinstance(engine, JunctionTreeEngine):
        raise TreeTooLarge(f"estimation='consistent' needs exact inference, but the junction tree of this network has "
                           f"more than {MAX_EXACT_CELLS:,} cells")
    model = GeneralisedModel.of(engine, domain, queries, scopes)

    if max_iterations is None:
        max_iterations = min(MAX_ITERATIONS, max(MIN_ITERATIONS, WORK // model.cells))
    theta = [start[i] for i in members]
    mu, loss = model.evaluate(theta, targets, weights)
    scale = max(noise_loss or loss, 1e-300)
    step = 1.0 / max(float(weights.sum()), 1e-300)  # 1/L: L ≤ Σ w_i bounds the curvature of L in the ℓ1 norm
    iterations = 0
    while iterations < max_iterations and members:
        gradient = [w * (m - y) for w, m, y in zip(weights, mu, targets)]
        step *= GROWTH
        while True:
            trial = [t - step * g for t, g in zip(theta, gradient)]
            trial_mu, trial_loss = model.evaluate(trial, targets, weights)
            predicted = sum(float(np.sum(g * (a - b))) for g, a, b in zip(gradient, mu, trial_mu))
            if loss - trial_loss >= 0.5 * predicted or step < 1e-12:
                break
            step *= 0.5
        decrease = loss - trial_loss
        if decrease < 0:  # no descent step left at this precision
            break
        theta, mu, loss = trial, trial_mu, trial_loss
        iterations += 1
        if decrease < tolerance * scale:
            break
    calibrated = engine.infer([q.spread(t) for q, t in zip(queries, theta)])
    return ComponentFit(variables, members, tuple(theta), calibrated, loss, iterations)


class GeneralisedModel:
    """The model mirror descent iterates on: μ_i = A_i μ of each measured table from log-potentials
    on the measured cells.

    On the leaf domain a potential on a generalised parent is spread over the parent's leaves, so
    the leaf attribute enters the clique (Adult at ε = 1.6: a 288-cell table whose leaves make a
    917,504-cell clique).  Adding one variable per generalised (attribute, level), tied to the next
    finer level by a fixed factor that is 0 where the codes agree and −∞ elsewhere, gives a model
    whose leaf marginal is the same distribution (each added variable is a function of its leaf),
    with the potentials on the measured cells themselves (A_i = identity).  Its junction tree is
    often far smaller; the cheaper of the two (total clique cells) is used."""

    def __init__(self, engine: JunctionTreeEngine, scopes: list[tuple[int, ...]], fixed: list[np.ndarray],
                 queries: list[Query] | None) -> None:
        self.engine, self.scopes, self.fixed, self.queries = engine, scopes, fixed, queries
        self.cells = sum(engine.domain.cells(c) for c in engine.tree.cliques)

    @classmethod
    def of(cls, leaf_engine: JunctionTreeEngine, domain: Domain, queries: list[Query],
           scopes: list[tuple[int, ...]]) -> GeneralisedModel:
        leaf = cls(leaf_engine, scopes, [], queries)
        extended = cls._extended(domain, queries, scopes)
        return extended if extended is not None and extended.cells < leaf.cells else leaf

    @classmethod
    def _extended(cls, domain: Domain, queries: list[Query],
                  scopes: list[tuple[int, ...]]) -> GeneralisedModel | None:
        sizes = list(domain.sizes)
        levels: dict[int, dict[int, tuple[np.ndarray, int]]] = {}  # leaf variable → level → (leaf map, size)
        for q, scope in zip(queries, scopes):
            for v, level, leaf_map, size in zip(scope, q.levels, q.maps, q.shape):
                if level:
                    levels.setdefault(v, {})[level] = (leaf_map, size)
        if not levels:
            return None
        ids: dict[tuple[int, int], int] = {}
        fixed_scopes, fixed = [], []
        for v, maps in levels.items():
            finer, finer_map = v, np.arange(sizes[v])  # chain the levels from the leaves upwards
            for level, (leaf_map, size) in sorted(maps.items()):
                ids[(v, level)] = len(sizes)
                sizes.append(size)
                tie = np.full((sizes[finer], size), -np.inf)
                tie[finer_map, leaf_map] = 0.0
                fixed_scopes.append((finer, ids[(v, level)]))
                fixed.append(tie)
                finer, finer_map = ids[(v, level)], leaf_map
        extended = Domain(tuple(sizes))
        measured = [tuple(ids[(v, level)] if level else v for v, level in zip(scope, q.levels))
                    for q, scope in zip(queries, scopes)]
        engine = make_engine(extended, [*measured, *fixed_scopes])
        if not isinstance(engine, JunctionTreeEngine):
            return None
        return cls(engine, measured, fixed, None)

    def evaluate(self, theta: list[np.ndarray], targets: list[np.ndarray], weights: np.ndarray
                 ) -> tuple[list[np.ndarray], float]:
        """The measured tables' marginals under ``theta`` and the loss L."""
        if self.queries is not None:
            calibrated = self.engine.infer([q.spread(t) for q, t in zip(self.queries, theta)])
            mu = [q.project(calibrated.marginal(s)) for q, s in zip(self.queries, self.scopes)]
        else:
            calibrated = self.engine.infer(list(theta) + self.fixed)
            mu = [calibrated.marginal(s) for s in self.scopes]
        loss = 0.5 * sum(w * float(np.sum((m - y) ** 2)) for w, m, y in zip(weights, mu, targets))
        return mu, loss


def _paper_start(measurements: Sequence[NoisyTable], floor: float) -> list[np.ndarray]:
    """The TODS model as log-potentials: log Pr*[first measured table], then log Pr*[X_i | Π_i]
    (Alg. 1/3 with negatives clipped), each cell floored at ``floor``/cells.  Alg. 1's unmeasured
    first k pairs lie inside pair k's table, so the product is the paper's joint distribution;
    mirror descent then only improves on it."""
    theta = []
    for j, m in enumerate(measurements):
        table = np.maximum(np.asarray(m.counts, dtype=np.float64), 0.0)
        table = table / table.sum() if table.sum() > 0 else np.full(table.shape, 1.0 / table.size)
        table = (1 - floor) * table + floor / table.size
        with np.errstate(divide="ignore"):  # floor 0 (exact tables): impossible cells stay impossible
            theta.append(np.log(table if j == 0 else conditional_from_joint(table)))
    return theta
