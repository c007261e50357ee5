"""Sampling joint configurations: exact on a calibrated junction tree, Gibbs otherwise.

Exact: draw the root clique from its marginal, then each child clique's new variables
from p(x_{C \\ S} | x_S) = p(x_C) / p(x_S), walking the tree from the root (the
junction-tree analogue of ancestral sampling; Koller & Friedman 2009, §12.1).
Gibbs: ``n`` independent chains, each variable resampled from its full conditional in
turn for ``sweeps`` sweeps (Geman & Geman 1984); approximate, with an error that shrinks
geometrically in the number of sweeps for strictly positive models.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privbayes.inference.exact import CalibratedTree, JunctionTreeEngine
from privbayes.inference.factor import Domain, Factor, logsumexp
from privbayes.inference.protocol import InferenceEngine, check_potentials


def draw_rows(probabilities: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each i, a column index drawn from the distribution ``probabilities[rows[i]]``.

    All draws at once: one inverse-CDF search in the rows' cumulative sums, offset by the
    row number so that a single ``searchsorted`` serves every row.
    """
    n_rows, width = probabilities.shape
    cumulative = np.cumsum(probabilities, axis=1)
    cumulative /= np.where(cumulative[:, -1:] > 0, cumulative[:, -1:], 1.0)
    cumulative[:, -1] = 1.0
    offsets = np.arange(n_rows, dtype=np.float64)[:, None]
    position = np.searchsorted((cumulative + offsets).ravel(), rows + rng.random(rows.size), side="right")
    return np.minimum(position - rows * width, width - 1)


def sample_junction_tree(calibrated: CalibratedTree, domain: Domain, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` exact draws (n × T integer codes) from the calibrated model."""
    tree = calibrated.tree
    out = np.zeros((n, len(domain)), dtype=np.int64)
    root = tree.cliques[0]
    root_p = np.exp(calibrated.log_beliefs[0] - calibrated.log_z).reshape(1, -1)
    flat = draw_rows(root_p, np.zeros(n, dtype=np.int64), rng)
    out[:, list(root)] = np.column_stack(np.unravel_index(flat, domain.shape(root)))
    for parent, child in tree.edges:
        separator = tree.separator(parent, child)
        new = tuple(v for v in tree.cliques[child] if v not in separator)
        if not new:
            continue
        belief = Factor(tree.cliques[child], calibrated.log_beliefs[child]).marginalize(separator + new)
        table = belief.log_values.reshape(domain.cells(separator), domain.cells(new))
        with np.errstate(invalid="ignore"):  # separator states of probability zero (evidence): never drawn
            conditional = np.exp(table - logsumexp(table, axis=1)[:, None])
        rows = (np.ravel_multi_index(tuple(out[:, v] for v in separator), domain.shape(separator))
                if separator else np.zeros(n, dtype=np.int64))
        flat = draw_rows(np.nan_to_num(conditional), rows, rng)
        out[:, list(new)] = np.column_stack(np.unravel_index(flat, domain.shape(new)))
    return out


def gibbs_sample(domain: Domain, scopes: Sequence[Sequence[int]], log_potentials: Sequence[np.ndarray], n: int,
                 rng: np.random.Generator, *, sweeps: int = 200) -> np.ndarray:
    """``n`` draws (n × T) from ``n`` independent Gibbs chains after ``sweeps`` sweeps each."""
    checked = tuple(domain.check_scope(s) for s in scopes)
    tables = check_potentials(domain, checked, log_potentials)
    by_variable: list[list[tuple[tuple[int, ...], np.ndarray]]] = [[] for _ in range(len(domain))]
    for scope, table in zip(checked, tables):
        for axis, v in enumerate(scope):
            others = tuple(u for u in scope if u != v)
            by_variable[v].append((others, np.moveaxis(table, axis, -1)))
    state = np.column_stack([rng.integers(0, s, n) for s in domain.sizes])
    for _ in range(sweeps):
        for v in range(len(domain)):
            logits = np.zeros((n, domain.sizes[v]))
            for others, table in by_variable[v]:
                logits += table[tuple(state[:, u] for u in others)] if others else table
            state[:, v] = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)  # Gumbel-max = softmax draw
    return state


def sample(engine: InferenceEngine, log_potentials: Sequence[np.ndarray], n: int, rng: np.random.Generator,
           *, sweeps: int = 200) -> np.ndarray:
    """``n`` configurations (n × T codes): exact for a junction-tree engine, Gibbs otherwise."""
    if isinstance(engine, JunctionTreeEngine):
        return sample_junction_tree(engine.infer(log_potentials), engine.domain, n, rng)
    return gibbs_sample(engine.domain, engine.scopes, log_potentials, n, rng, sweeps=sweeps)
