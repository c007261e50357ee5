"""GreedyBayes: private network learning with the exponential mechanism (TODS 2017, §4, §5.2).

The first attribute is drawn uniformly at random (data-independent).  Each of the
d − 1 further steps scores every candidate AP pair on the exact counts and picks
one with the exponential mechanism at ε1/(d − 1), so the network costs ε1 in all.
Candidates come from one of two rules:

* ``fixed_degree_candidates(k)``: Π ranges over subsets of the placed attributes of
  size min(k, |V|) (Alg. 2, made private as in §4.2-4.3);
* ``maximal_parent_candidates``: Π ranges over the maximal (generalised) parent
  sets whose table stays θ-useful (Alg. 4 with Alg. 5/6), under the public candidate
  cap of :mod:`privbayes.bayesnet.candidates`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import combinations

import numpy as np

from privbayes.bayesnet.candidates import candidate_cap, level_sizes
from privbayes.bayesnet.network import APPair, Network, Parent
from privbayes.bayesnet.parentsets import maximal_parent_sets
from privbayes.bayesnet.scores import ScoreFunction
from privbayes.bayesnet.usefulness import PAPER_SENSITIVITY, domain_bound
from privbayes.core.errors import InputError
from privbayes.counting import PrivateTable
from privbayes.privacy.accountant import Accountant, ZCDPAccountant
from privbayes.privacy.mechanisms import Exponential
from privbayes.privacy.samplers import RandomSource, RationalScores

CandidateRule = Callable[[int, Sequence[int]], list[tuple[Parent, ...]]]
FILL_CELLS = 2**23
"""Cells of the tables scored in one batch (a bound on the score book's working memory)."""


def fixed_degree_candidates(k: int) -> CandidateRule:
    """Alg. 2, line 5: every Π ⊆ V of size min(k, |V|), all attributes ungeneralised.

    The list is shared by every child of a step and, once |V| > k, only grows: the new
    parent sets of a step are those holding the attribute placed last, appended to the
    list of the step before (so callers can keep per-list work across steps)."""
    state: dict = {"placed": (), "options": []}

    def rule(child: int, placed: Sequence[int]) -> list[tuple[Parent, ...]]:
        placed = tuple(placed)
        if placed == state["placed"]:
            return state["options"]
        previous = state["placed"]
        if len(previous) > k and placed[:-1] == previous:
            newest = placed[-1]
            state["options"].extend(tuple(sorted((a, 0) for a in (*subset, newest)))
                                    for subset in combinations(sorted(previous), k - 1))
        else:
            state["options"] = [tuple((a, 0) for a in subset)
                                for subset in combinations(sorted(placed), min(k, len(placed)))]
        state["placed"] = placed
        return state["options"]
    return rule


def maximal_parent_candidates(table: PrivateTable, epsilon2: Fraction, theta: float, *, n: int | None = None,
                              sensitivity: Fraction = PAPER_SENSITIVITY) -> CandidateRule:
    """Alg. 4, lines 5-10: the maximal θ-useful parent sets of X, or Π = ∅ if there are none,
    under the bound τ capped by the public candidate cap (:mod:`candidates`).  τ uses ``n``
    (default: the table's n, public under replace-one; the noisy count under add/remove) and
    the tables' count ``sensitivity``."""
    n = table.n if n is None else n
    attrs = table.encoding.attributes
    sizes = level_sizes(table.encoding)
    cap = candidate_cap(table.encoding)
    d = len(attrs)

    cache: dict[tuple[tuple[int, ...], Fraction | int], list[tuple[Parent, ...]]] = {}

    def rule(child: int, placed: Sequence[int]) -> list[tuple[Parent, ...]]:
        tau = domain_bound(n, d, epsilon2, theta, attrs[child].size, sensitivity)
        size = attrs[child].size
        # Children share a list (and so their bookkeeping) when their τ is equal, or when the cap
        # lowers both to one bound; the grouping fixes the order of the candidates the
        # exponential mechanism draws from, so uncapped children keep the grouping by τ.
        key = (tuple(sorted(placed)), cap.bound(tau, size) if cap.binds(tau, size) else tau)
        if key not in cache:
            if cache and next(iter(cache))[0] != key[0]:
                cache.clear()
            sets = maximal_parent_sets(key[0], cap.bound(tau, size), sizes)
            cache[key] = [tuple(sorted(s)) for s in sets] or [()]
        return cache[key]
    return rule


def _joints(table: PrivateTable, pairs: list[tuple[int, tuple[Parent, ...]]]) -> list[np.ndarray]:
    """Exact counts of each (X, Π) laid out as ``joint[x, π]`` for the score functions,
    counted in one batch (the back-end decides how)."""
    requests = [([x] + [a for a, _ in parents], [0] + [lvl for _, lvl in parents]) for x, parents in pairs]
    return [counts.reshape(counts.shape[0], -1) for counts in table.counts_many(requests)]


class _ScoreBook:
    """Exact scores of AP pairs kept across the steps of GreedyBayes (a pair's score never
    changes, so each is computed once): one row per parent set, one column per child.
    Rational scores (R, F) are kept as integer numerators over ``score.denominator(n)``,
    others as floats; ``known`` says which were computed.  Work per candidate list is
    kept while the list only grows."""

    def __init__(self, table: PrivateTable, score: ScoreFunction) -> None:
        self.table, self.score = table, score
        self.attrs = table.encoding.attributes
        self.row_of: dict[tuple[Parent, ...], int] = {}
        self.parent_sets: list[tuple[Parent, ...]] = []
        self.shape_ids: list[int] = []
        self.shapes: dict[tuple[int, ...], int] = {}
        self.exact = score.exact
        self.values = np.zeros((64, len(self.attrs)), np.int64 if self.exact else np.float64)
        self.known = np.zeros((64, len(self.attrs)), bool)
        self._rows: dict[int, tuple[list, np.ndarray]] = {}

    def rows(self, options: list[tuple[Parent, ...]]) -> np.ndarray:
        """Row of every parent set in ``options``, adding rows for unseen ones."""
        cached = self._rows.get(id(options))
        known = cached[1] if cached is not None and cached[0] is options else np.zeros(0, np.int64)
        fresh = [self._row(parents) for parents in options[len(known):]]
        rows = np.concatenate([known, np.array(fresh, np.int64)]) if fresh else known
        self._rows[id(options)] = (options, rows)
        return rows

    def forget_lists_except(self, kept: list[list]) -> None:
        """Drop the per-list rows of candidate lists no longer in use."""
        ids = {id(options) for options in kept}
        self._rows = {key: value for key, value in self._rows.items() if key in ids}

    def _row(self, parents: tuple[Parent, ...]) -> int:
        row = self.row_of.get(parents)
        if row is None:
            row = self.row_of[parents] = len(self.parent_sets)
            self.parent_sets.append(parents)
            sizes = tuple(self.attrs[a].level_size(lvl) for a, lvl in parents)
            self.shape_ids.append(self.shapes.setdefault(sizes, len(self.shapes)))
            if row == len(self.values):
                self.values = np.vstack([self.values, np.zeros_like(self.values)])
                self.known = np.vstack([self.known, np.zeros_like(self.known)])
        return row

    def parent_shapes(self, rows: np.ndarray) -> list[tuple[int, ...]]:
        """The distinct parent domain sizes among ``rows``."""
        sizes = list(self.shapes)
        return [sizes[i] for i in np.unique(np.array(self.shape_ids, np.int64)[rows])]

    def scores(self, rows: np.ndarray, children: list[int]) -> np.ndarray:
        """Scores (numerators for rational scores) of every (child, parent set) pair,
        option-major: ``out[i * len(children) + j]``."""
        self.fill([(rows, children)])
        return self.values[np.ix_(rows, np.asarray(children, np.int64))].ravel()

    def as_scores(self, values: np.ndarray) -> np.ndarray | RationalScores:
        """What the exponential mechanism takes: exact rationals where the score has them."""
        return RationalScores(values, self.score.denominator(self.table.n)) if self.exact else values

    def fill(self, jobs: list[tuple[np.ndarray, list[int]]]) -> None:
        """Score every unknown pair of ``jobs`` (rows × children of each candidate list of a step).
        Binary level-0 parent sets go, per list, to the back-end's batched family counts (§4.4's
        workload); the other tables of the whole step are asked for in few counting batches, so
        the back-end can count their shared supersets once (docs/decisions.md, "Fewer counting passes")."""
        general: list[tuple[int, int]] = []  # (row, child) pairs to count as general tables
        for rows, children in jobs:
            known = self.known[np.ix_(rows, np.asarray(children, np.int64))]
            missing = rows[~known.all(axis=1)]
            if not len(missing):
                continue
            binary = [r for r in missing.tolist() if all(lvl == 0 for _, lvl in self.parent_sets[r])]
            if binary and self.table.encoding.is_binary:
                left = self._fill_binary(binary, children)
            else:
                left = binary
            done = set(binary) - set(left)
            general += [(r, x) for r in missing.tolist() if r not in done for x in children]
        batch: list[tuple[int, int]] = []
        cells = 0
        for row, x in general:
            size = self.attrs[x].size * math.prod(self.attrs[a].level_size(lvl) for a, lvl in self.parent_sets[row])
            if batch and cells + size > FILL_CELLS:
                self._fill_general(batch)
                batch, cells = [], 0
            batch.append((row, x))
            cells += size
        if batch:
            self._fill_general(batch)

    def _fill_binary(self, rows: list[int], children: list[int]) -> list[int]:
        """Score ``rows`` × ``children`` from binary family counts, batched per parent-set size;
        the rows the back-end has no batched form for are returned."""
        by_size: dict[int, list[int]] = {}
        for row in rows:
            by_size.setdefault(len(self.parent_sets[row]), []).append(row)
        left: list[int] = []
        for k, rows_of_size in by_size.items():
            # Binary tables of a batch are held at once, with their scores' integer intermediates:
            # batches of at most FILL_CELLS cells keep that bounded (ACS, k = 8: 1.5·10⁵ tables
            # of 512 cells in one step).
            per_batch = max(1, FILL_CELLS // (len(children) << (k + 1)))
            for start in range(0, len(rows_of_size), per_batch):
                group = rows_of_size[start:start + per_batch]
                parents = np.array([[a for a, _ in self.parent_sets[r]] for r in group], np.int64)
                parents = parents.reshape(len(group), k)
                tables = self.table.binary_families(parents, np.array(children, np.int64))
                if tables is None:
                    left += group
                    continue
                values = self._batch(tables.reshape(-1, 2, 2**k)).reshape(len(group), len(children))
                self.values[np.ix_(group, children)] = values
                self.known[np.ix_(group, children)] = True
        return left

    def _fill_general(self, pairs: list[tuple[int, int]]) -> None:
        """Score (row, child) ``pairs`` from general tables counted in one batch."""
        joints = _joints(self.table, [(x, self.parent_sets[row]) for row, x in pairs])
        values = self._mixed(joints)
        rows = np.array([row for row, _ in pairs], np.int64)
        children = np.array([x for _, x in pairs], np.int64)
        self.values[rows, children] = values
        self.known[rows, children] = True

    def _batch(self, joints: np.ndarray) -> np.ndarray:
        return self.score.exact_batch(joints) if self.exact else self.score.batch(joints)

    def _mixed(self, joints: list[np.ndarray]) -> np.ndarray:
        """Scores of tables of mixed shapes, one batch call per shape."""
        by_shape: dict[tuple[int, ...], list[int]] = {}
        for i, joint in enumerate(joints):
            by_shape.setdefault(joint.shape, []).append(i)
        values = np.empty(len(joints), self.values.dtype)
        for members in by_shape.values():
            values[members] = self._batch(np.stack([joints[i] for i in members]))
        return values


def greedy_bayes(
    table: PrivateTable,
    score: ScoreFunction,
    candidates: CandidateRule,
    epsilon1: Fraction | None,
    accountant: Accountant | ZCDPAccountant | None,
    rng: RandomSource,
    progress: Callable[[int, int], None] | None = None,
) -> Network:
    """Learn a network: d − 1 exponential-mechanism selections of ε1/(d − 1) each, charged to ``accountant`` (a
    :class:`~privbayes.privacy.accountant.ZCDPAccountant` charges each (ε1/(d − 1))²/8); ``epsilon1=None`` picks
    the best-scoring pair exactly (NOT private: only for the paper's BestNetwork analysis, §6.4)."""
    attrs = table.encoding.attributes
    d = len(attrs)
    first = rng.randbelow(d)
    pairs = [APPair(first)]
    placed = [first]
    book = _ScoreBook(table, score)
    for step in range(1, d):
        lists: dict[int, tuple[list, list[int]]] = {}  # Alg. 2 shares one candidate list per step
        for x in range(d):
            if x not in placed:
                options = candidates(x, placed)
                lists.setdefault(id(options), (options, []))[1].append(x)
        groups = [(options, children, book.rows(options)) for options, children in lists.values()]
        book.forget_lists_except([options for options, _, _ in groups])
        shapes = {(attrs[x].size, sizes) for _, children, rows in groups for sizes in book.parent_shapes(rows)
                  for x in children}
        for child_size, parent_sizes in shapes:
            if not score.supports(child_size, parent_sizes):
                raise InputError(f"score {score.name} does not support a child of {child_size} values with parents of "
                                 f"{list(parent_sizes)} values; use score R or a binary/Gray encoding")
        book.fill([(rows, children) for _, children, rows in groups])  # the step's tables in few batches
        scores = np.concatenate([book.scores(rows, children) for _, children, rows in groups])
        if epsilon1 is None:
            chosen = int(np.argmax(scores))
        elif accountant is None:
            raise ValueError("a private network step needs an accountant")
        else:
            sensitivity = max(score.sensitivity(table.n, c, math.prod(p)) for c, p in shapes)
            chosen = Exponential(Fraction(epsilon1) / (d - 1), sensitivity).release(
                book.as_scores(scores), accountant, rng,
                step=f"network step {step}/{d - 1}", measured=f"score {score.name} of {len(scores)} AP pairs")
        for options, children, _ in groups:  # decode the option-major position
            if chosen < len(options) * len(children):
                x, parents = children[chosen % len(children)], options[chosen // len(children)]
                break
            chosen -= len(options) * len(children)
        pairs.append(APPair(x, parents))
        placed.append(x)
        if progress is not None:
            progress(step, d - 1)
    return Network(tuple(pairs))
