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

from privbayes.core.errors import InputError
from privbayes.core.validation import check_choice
from privbayes.inference.exact import CalibratedTree, JunctionTreeEngine
from privbayes.inference.factor import Domain, Factor, logsumexp
from privbayes.inference.protocol import InferenceEngine, check_potentials

DRAWS = ("balanced", "iid")
"""How a sample's rows are drawn from the model: ``"iid"``, independently (every row its own uniform numbers);
``"balanced"``, each attribute stratified within its parents' configuration (:class:`BalancedDraw`).  Both draw every
row exactly from the model; the balanced draw's counts stray less from the model's (docs/decisions.md, "A balanced
draw")."""


def chosen_draw(requested: str | None, own: str, conditioned: bool = False) -> str:
    """The draw a sample uses: ``requested`` (one of :data:`DRAWS`, checked) or, if None, the model's ``own`` (its
    file's ``fitted.draw``).  Rows given conditions are drawn i.i.d.: a balanced draw asked for with them is refused
    rather than silently replaced."""
    check_choice(requested, "draw", DRAWS)
    if conditioned:
        if requested == "balanced":
            raise InputError("draw 'balanced' does not apply with conditions: rows given conditions are drawn i.i.d.")
        return "iid"
    return own if requested is None else requested


def radical_inverse(i: np.ndarray) -> np.ndarray:
    """The base-2 radical inverse (van der Corput) of each 32-bit index, in [0, 1): its bits mirrored behind the
    binary point.  The first m values lie within O(log m) points of an even spread at any m, and are the m-point
    lattice {k/m} when m is a power of two (Niederreiter 1992, §3.1)."""
    bits = i.astype(np.uint32)
    for shift, mask in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F), (8, 0x00FF00FF)):
        bits = ((bits >> np.uint32(shift)) & np.uint32(mask)) | ((bits & np.uint32(mask)) << np.uint32(shift))
    bits = (bits >> np.uint32(16)) | (bits << np.uint32(16))
    return bits.astype(np.float64) / 2.0**32


class BalancedDraw:
    """Uniform numbers for an ancestral draw of ``n`` rows, attribute after attribute, that are *stratified* within
    each configuration of the attribute's parents (systematic sampling, Madow 1949; the "systematic resampling" of
    particle filters, Douc & Cappé 2005): the m rows of one configuration get u + r(k) mod 1, k = 0..m−1, one u per
    configuration and r the radical inverse, so the configuration's counts of the attribute's values are within
    O(log m) of m·Pr[x | parents] (exact rounding when m is a power of two) instead of a multinomial's √m.

    Every row's number is uniform on [0, 1) (u is), so every row is still drawn exactly from the model; only the
    dependence between rows changes, as in any stratified design.  Which row takes which k: the rows of one
    configuration ordered by the attributes drawn before, the last drawn first (ties at random), so that the spread
    values of k — and with them the attribute's values — fall evenly across those attributes' values too, which the
    model makes independent of it given the parents.  Post-processing of the model, like any sample."""

    def __init__(self, n: int, rng: np.random.Generator) -> None:
        self.rng = rng
        self.order = rng.permutation(n)
        """The rows sorted by the attributes drawn so far (the last drawn first), ties in a random order."""

    def uniforms(self, parents: np.ndarray) -> np.ndarray:
        """One number per row for the next attribute, ``parents`` each row's parents' configuration (an integer)."""
        order = self.order[_stable_order(parents[self.order])]
        keys = parents[order]
        start = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
        sizes = np.diff(np.append(start, keys.size))
        shift = np.repeat(self.rng.random(start.size), sizes)
        rank = np.arange(keys.size) - np.repeat(start, sizes)
        out = np.empty(keys.size)
        out[order] = np.mod(shift + radical_inverse(rank), 1.0)
        return out

    def drawn(self, codes: np.ndarray) -> None:
        """Record the attribute just drawn (each row's code): it orders the rows for the attributes after it."""
        self.order = self.order[_stable_order(codes[self.order])]


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """``argsort(keys, kind="stable")`` of codes (integers ≥ 0), on the smallest unsigned type that holds them:
    numpy sorts 8- and 16-bit integers by radix, in linear time."""
    return np.argsort(keys.astype(np.min_scalar_type(int(keys.max()) if keys.size else 0)), kind="stable")


def draw_rows(probabilities: np.ndarray, rows: np.ndarray, rng: np.random.Generator,
              uniforms: np.ndarray | None = None) -> np.ndarray:
    """For each i, a column index drawn from the distribution ``probabilities[rows[i]]``.

    All draws at once: one inverse-CDF search in the rows' cumulative sums, offset by the
    row number so that a single ``searchsorted`` serves every row; on ``uniforms`` if given
    (:class:`BalancedDraw`), else on ``rng.random``.
    """
    n_rows, width = probabilities.shape
    cumulative = np.cumsum(probabilities, axis=1)
    cumulative /= np.where(cumulative[:, -1:] > 0, cumulative[:, -1:], 1.0)
    cumulative[:, -1] = 1.0
    offsets = np.arange(n_rows, dtype=np.float64)[:, None]
    draws = rng.random(rows.size) if uniforms is None else uniforms
    position = np.searchsorted((cumulative + offsets).ravel(), rows + draws, side="right")
    return np.minimum(position - rows * width, width - 1)


def sample_junction_tree(calibrated: CalibratedTree, domain: Domain, n: int, rng: np.random.Generator,
                         draw: str = "iid") -> np.ndarray:
    """``n`` exact draws (n × T integer codes) from the calibrated model; ``draw`` one of :data:`DRAWS` (the
    separator's configuration is the parents' of each clique's new variables)."""
    tree = calibrated.tree
    out = np.zeros((n, len(domain)), dtype=np.int64)
    balanced = BalancedDraw(n, rng) if draw == "balanced" else None

    def drawn(probabilities: np.ndarray, rows: np.ndarray) -> np.ndarray:
        if balanced is None:
            return draw_rows(probabilities, rows, rng)
        flat = draw_rows(probabilities, rows, rng, balanced.uniforms(rows))
        balanced.drawn(flat)
        return flat

    root = tree.cliques[0]
    root_p = np.exp(calibrated.log_beliefs[0] - calibrated.log_z).reshape(1, -1)
    flat = drawn(root_p, np.zeros(n, dtype=np.int64))
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
        flat = drawn(np.nan_to_num(conditional), rows)
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
           *, sweeps: int = 200, draw: str = "iid") -> np.ndarray:
    """``n`` configurations (n × T codes): exact for a junction-tree engine (``draw`` one of :data:`DRAWS`),
    Gibbs otherwise (independent chains: i.i.d. whatever ``draw``)."""
    if isinstance(engine, JunctionTreeEngine):
        return sample_junction_tree(engine.infer(log_potentials), engine.domain, n, rng, draw)
    return gibbs_sample(engine.domain, engine.scopes, log_potentials, n, rng, sweeps=sweeps)
