"""Score F for binary AP pairs, computed exactly (TODS 2017, §4.3–4.4, Def. 4.6, Thm 4.5).

F(X, Π) = −½ · min over maximum joint distributions Pr° of ‖Pr[X, Π] − Pr°‖₁ (Eq. 7).
For a 2 × m count table ``joint[x, pi]`` with n tuples, Eq. (9) makes this a search
over assignments of every column π to row 0 (Z₀⁺) or row 1 (Z₁⁺):

    D = n · min ‖Pr − Pr°‖₁ = min over assignments of (n − 2a)₊ + (n − 2b)₊,

a (b) being the count mass of the columns assigned to row 0 (row 1); F = −D / (2n).
The search runs on integers only, so the final division is the one rounding.

It is the paper's dynamic program C(i, a, b) over the columns, with a and b capped
at ⌈n/2⌉ (beyond it (n − 2a)₊ = 0) and dominated states removed (Def. 4.6), in two
equivalent representations: with numba (``privbayes[fast]``) an explicit list of the
non-dominated states, a column being a linear merge (:func:`_search_pareto`); without
it the envelope ``g[a] = max{b : (a', b) reachable, a' ≥ a}`` as a dense array, a
column being a few slice operations (:func:`_search`).  Exact speed-ups:

* a column with an empty cell goes to its non-empty row at no loss (it adds mass
  to one side only), so only columns with two non-zero cells are searched;
* greedy (each column to its heavier row) maximises a + b, giving the lower bound
  ``max(2n − 2(a+b), n − 2·row total)``; the best "x0/x1 below a threshold goes to
  row 1" assignment gives an upper bound U; the search is skipped when they meet;
* branch and bound: a state is dropped once no completion can bring it below U
  (optimistic bounds from the mass left); heaviest columns go first so this bites early.

F is only tractable for binary X and Π: for general domains it is NP-hard
(TODS 2017, Thm 5.1), so :func:`require_binary` refuses other domains.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

try:  # numba is the optional extra ``privbayes[fast]``
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised by a subprocess test
    HAVE_NUMBA = False


def _prepare(c0: np.ndarray, c1: np.ndarray) -> tuple:
    """Bounds and the columns left to search, shared by both dynamic programs.

    Returns ``(n, upper, lower, a_free, b_free, x0, x1)``: bounds on the doubled cost,
    the mass already fixed on each side, and the columns with two non-zero cells,
    oriented so that row 0 (the dense frontier's index) has the smaller capped range,
    heaviest columns first (so the mass left, and the states worth keeping, shrink fast).
    """
    total0, total1 = c0.sum(), c1.sum()
    n = total0 + total1
    half = (n + 1) // 2
    mixed = (c0 > 0) & (c1 > 0)
    a_free, b_free = c0[~mixed].sum(), c1[~mixed].sum()
    x0, x1 = c0[mixed], c1[mixed]
    # Greedy (each column to its heavier row) maximises a + b, hence the lower bound.
    a_plus_b = a_free + b_free + np.maximum(x0, x1).sum()
    lower = max(2 * n - 2 * a_plus_b, n - 2 * total0, n - 2 * total1, 0)
    # Upper bound: best threshold rule "columns with x0/x1 below t go to row 1"
    # (the fractional-knapsack order; t = 1 is the greedy assignment).
    by_ratio = np.argsort(x0 / x1)
    a_t = np.empty(x0.size + 1, dtype=np.int64)
    b_t = np.empty(x0.size + 1, dtype=np.int64)
    a_t[0] = a_free + x0.sum()
    b_t[0] = b_free
    a_t[1:] = a_t[0] - np.cumsum(x0[by_ratio])
    b_t[1:] = b_free + np.cumsum(x1[by_ratio])
    upper = (np.maximum(n - 2 * a_t, 0) + np.maximum(n - 2 * b_t, 0)).min()
    if min(half, total1) < min(half, total0):
        x0, x1 = x1, x0
        a_free, b_free = b_free, a_free
    order = np.argsort(-(x0 + x1))
    return n, upper, lower, a_free, b_free, x0[order], x1[order]


def _search(n, upper, lower, a_free, b_free, x0, x1) -> int:
    """Frontier dynamic program (§4.4) on the output of :func:`_prepare`; finds any
    doubled cost below ``upper`` and otherwise returns ``upper``.

    numpy version: a column is a few slice operations on the frontier; pruning keeps
    a ≥ target − (row-0 mass left) and, by binary search, b ≥ target − (row-1 mass left).
    """
    if upper == lower:
        return upper
    half = (n + 1) // 2
    cap = min(half, a_free + x0.sum())
    rem0, rem1 = x0.sum(), x1.sum()  # mass of the columns not yet placed
    # A state can beat `upper` only if a can still reach `target` ((n − 2a)₊ < upper).
    target = max((n - upper) // 2 + 1, 0)
    g = np.empty(cap + 1, dtype=np.int64)
    g_next = np.empty(cap + 1, dtype=np.int64)
    lo, hi = max(target - rem0, 0), min(a_free, cap)
    if lo > hi:
        return upper
    g[lo : hi + 1] = min(b_free, half)
    for i in range(x0.size):
        w0, w1 = x0[i], x1[i]
        rem0, rem1 = rem0 - w0, rem1 - w1
        new_lo = max(lo, target - rem0)
        new_hi = min(hi + w0, cap)
        if new_lo > new_hi:
            return upper
        # Column to row 0: (a, b) -> (min(a + w0, cap), b).  Reads below lo (pruned
        # states) clamp to g[lo]: a lower bound that keeps g non-increasing.
        split = min(max(lo + w0, new_lo), new_hi + 1)
        g_next[new_lo:split] = g[lo]
        g_next[split : new_hi + 1] = g[split - w0 : new_hi + 1 - w0]
        # Column to row 1: (a, b) -> (a, min(b + w1, half)).
        g_next[new_lo : hi + 1] = np.maximum(
            g_next[new_lo : hi + 1], np.minimum(g[new_lo : hi + 1] + w1, half)
        )
        # b must still be able to reach `target`: cut the frontier's tail.
        need_b = target - rem1
        if g_next[new_lo] < need_b:
            return upper
        g, g_next = g_next, g
        lo = new_lo
        hi = new_lo - 1 + np.searchsorted(-g[new_lo : new_hi + 1], -need_b, side="right")
    costs = np.maximum(n - 2 * np.arange(lo, hi + 1), 0) + np.maximum(n - 2 * g[lo : hi + 1], 0)
    return min(upper, costs.min())


def _search_pareto(n, upper, lower, a_free, b_free, x0, x1) -> int:
    """The search of :func:`_search` on an explicit list of non-dominated states
    (Def. 4.6), for numba: a column is a linear merge of the list shifted in a and in b.

    The list holds far fewer states than the dense window (often 10× fewer).  A state
    is dropped if (n − 2(a + left₀))₊ + (n − 2(b + left₁))₊ ≥ U or 2(n − a − b −
    left_max) ≥ U, left_max = Σ max(x0, x1) over the columns left (the greedy bound
    from the state on).  States are kept by decreasing a, hence strictly increasing b.
    """
    if upper == lower:
        return upper
    half = (n + 1) // 2
    cap = min(half, a_free + x0.sum())
    rem0, rem1 = x0.sum(), x1.sum()  # mass of the columns not yet placed
    rem_max = np.maximum(x0, x1).sum()
    size = min(cap + 1, 1 << min(x0.size, 62))  # distinct a values; states after i columns
    a_list = np.empty(size, dtype=np.int64)
    b_list = np.empty(size, dtype=np.int64)
    a_next = np.empty(size, dtype=np.int64)
    b_next = np.empty(size, dtype=np.int64)
    a_list[0], b_list[0], length = min(a_free, cap), min(b_free, half), 1
    for column in range(x0.size):
        w0, w1 = x0[column], x1[column]
        rem0, rem1, rem_max = rem0 - w0, rem1 - w1, rem_max - max(w0, w1)
        i = j = kept = a0 = a1 = b0 = b1 = 0
        top_b = -1  # largest b among the candidates with a larger (or equal) a
        while i < length or j < length:
            if i < length:  # the column to row 0
                a0, b0 = min(a_list[i] + w0, cap), b_list[i]
            if j < length:  # the column to row 1
                a1, b1 = a_list[j], min(b_list[j] + w1, half)
            if j == length or (i < length and (a0 > a1 or (a0 == a1 and b0 >= b1))):
                a, b = a0, b0
                i += 1
            else:
                a, b = a1, b1
                j += 1
            if b <= top_b:
                continue  # dominated
            top_b = b
            if (max(n - 2 * (a + rem0), 0) + max(n - 2 * (b + rem1), 0) >= upper
                    or 2 * (n - a - b - rem_max) >= upper):
                continue  # cannot beat `upper` even with all the mass left on both rows
            if kept > 0 and a_next[kept - 1] == a:
                b_next[kept - 1] = b
            else:
                a_next[kept], b_next[kept] = a, b
                kept += 1
        if kept == 0:
            return upper
        a_list, a_next = a_next, a_list
        b_list, b_next = b_next, b_list
        length = kept
    for i in range(length):
        upper = min(upper, max(n - 2 * a_list[i], 0) + max(n - 2 * b_list[i], 0))
    return upper


def _doubled_cost(c0: np.ndarray, c1: np.ndarray) -> int:
    """D = min over column assignments of (n − 2a)₊ + (n − 2b)₊ (TODS 2017, Eq. 9, ×2n)."""
    n, upper, lower, a_free, b_free, x0, x1 = _prepare(c0, c1)
    return _search(n, upper, lower, a_free, b_free, x0, x1)


def _doubled_costs(rows0: np.ndarray, rows1: np.ndarray) -> np.ndarray:
    """:func:`_doubled_cost` for each of B tables given as (B, m) row arrays."""
    out = np.empty(rows0.shape[0], dtype=np.int64)
    for t in range(rows0.shape[0]):
        out[t] = _doubled_cost(rows0[t], rows1[t])
    return out


if HAVE_NUMBA:
    _prepare_numba = numba.njit(cache=True)(_prepare)
    _search_numba = numba.njit(cache=True)(_search_pareto)

    @numba.njit(cache=True)
    def _doubled_cost_numba(c0: np.ndarray, c1: np.ndarray) -> int:
        n, upper, lower, a_free, b_free, x0, x1 = _prepare_numba(c0, c1)
        return _search_numba(n, upper, lower, a_free, b_free, x0, x1)

    @numba.njit(cache=True, parallel=True)
    def _doubled_costs_numba(rows0: np.ndarray, rows1: np.ndarray) -> np.ndarray:
        out = np.empty(rows0.shape[0], dtype=np.int64)
        for t in numba.prange(rows0.shape[0]):
            out[t] = _doubled_cost_numba(rows0[t], rows1[t])
        return out


_PARALLEL_TABLES = 64


def _as_counts(joint: np.ndarray) -> np.ndarray:
    """Validate a (…, 2, m) table of non-negative integer counts; return it as int64."""
    joint = np.asarray(joint)
    if joint.ndim < 2 or joint.shape[-2] != 2 or joint.shape[-1] < 1:
        raise ValueError(f"score F needs joint counts of shape (2, m); got shape {joint.shape}")
    if joint.dtype.kind not in "iu" and not (
        joint.dtype.kind == "f" and np.isfinite(joint).all() and (joint == np.rint(joint)).all()
    ):
        raise ValueError("score F needs integer counts (F's dynamic program is exact on counts)")
    counts = np.ascontiguousarray(joint, dtype=np.int64)
    if counts.size and counts.min() < 0:
        raise ValueError("joint counts must be non-negative")
    if counts.reshape(-1, counts.shape[-2] * counts.shape[-1]).sum(axis=1).min() == 0:
        raise ValueError("joint table has no mass")
    return counts


def _kernels(use_numba: bool | None) -> tuple:
    """(per-table, batched) doubled-cost kernels; ``None`` picks numba when installed."""
    if use_numba and not HAVE_NUMBA:
        raise ImportError("numba is not installed; install the extra 'privbayes[fast]'")
    if HAVE_NUMBA and use_numba is not False:
        return _doubled_cost_numba, _doubled_costs_numba
    return _doubled_cost, _doubled_costs


def min_l1_counts(joint: np.ndarray, *, use_numba: bool | None = None) -> int:
    """n · min over maximum joint distributions Pr° of ‖Pr[X, Π] − Pr°‖₁ (an integer).

    Equals the doubled cost D of Eq. (9) (TODS 2017, §4.4); F = −D / (2n).  With
    m = 1 (Π = ∅ or parents of size 1) Lemma 4.3 does not apply (it needs
    |dom X| ≤ |dom Π|; read literally, Def. 4.2 would make every table maximal and
    F ≡ 0).  We apply Eq. (9) as is, giving D = n and F = −½, the value a binary
    parent that is constant in the data gets: such a Π says nothing about X.
    """
    counts = _as_counts(joint)
    if counts.ndim != 2:
        raise ValueError(f"expected one (2, m) table; got shape {counts.shape}")
    return int(_kernels(use_numba)[0](counts[0], counts[1]))


def f_score(joint: np.ndarray, *, use_numba: bool | None = None) -> float:
    """F(X, Π) of TODS 2017 Eq. (7) from the exact counts ``joint[x, pi]`` (shape (2, m))."""
    return -min_l1_counts(joint, use_numba=use_numba) / (2 * int(np.sum(joint)))


def f_scores(joints: np.ndarray, *, use_numba: bool | None = None) -> np.ndarray:
    """F for B tables of the same shape (B, 2, m); with numba, tables run in parallel."""
    counts = _as_counts(joints)
    return -doubled_costs(counts, use_numba=use_numba) / (2.0 * counts.sum(axis=(1, 2)))


def doubled_costs(joints: np.ndarray, *, use_numba: bool | None = None) -> np.ndarray:
    """The integers D of Eq. (9) for B tables of the same shape (B, 2, m): F = −D / (2n)."""
    counts = _as_counts(joints)
    if counts.ndim != 3:
        raise ValueError(f"expected tables of shape (B, 2, m); got shape {counts.shape}")
    rows0 = np.ascontiguousarray(counts[:, 0, :])
    rows1 = np.ascontiguousarray(counts[:, 1, :])
    one, many = _kernels(use_numba)
    if len(rows0) < _PARALLEL_TABLES:  # thread start-up dominates on a handful of tables
        costs = np.array([one(a, b) for a, b in zip(rows0, rows1)], dtype=np.int64)
    else:
        costs = many(rows0, rows1)
    return np.asarray(costs, dtype=np.int64)


def require_binary(
    child_size: int, parent_sizes: Sequence[int], names: Sequence[str] | None = None
) -> None:
    """Raise ``ValueError`` unless X is binary and every parent has at most two values.

    ``names`` lists the child's name and then the parents' names.  Parents of size 1
    are accepted (the table stays 2 × m).  F is NP-hard in general (TODS 2017, Thm 5.1).
    """
    sizes = [child_size, *parent_sizes]
    labels = list(names) if names is not None else [f"#{i}" for i in range(len(sizes))]
    if len(labels) != len(sizes):
        raise ValueError(f"names ({len(labels)}) must name the child and {len(sizes) - 1} parents")
    for position, (label, size) in enumerate(zip(labels, sizes, strict=True)):
        if size != 2 and not (position > 0 and size == 1):
            raise ValueError(
                "score F needs binary attributes (TODS 2017 Thm 5.1: NP-hard in general); "
                f"attribute {label!r} has {size} values — use score R or a binary/Gray encoding"
            )


class MaximumJointDistance:
    """Score F (TODS 2017, §4.3, Eq. 7): −½ · L1 distance to the nearest maximum joint
    distribution; range [−½, 0] and sensitivity 1/n (Thm 4.5); binary domains only."""

    name = "F"
    exact = True

    def __init__(self, *, use_numba: bool | None = None) -> None:
        self.use_numba = use_numba

    def __call__(self, joint: np.ndarray) -> float:
        return f_score(joint, use_numba=self.use_numba)

    def batch(self, joints: np.ndarray) -> np.ndarray:
        """Scores of many tables ``joints[b, x, π]`` of one shape."""
        return f_scores(joints, use_numba=self.use_numba)

    def sensitivity(self, n: int, child_size: int, parent_size: int) -> Fraction:
        if n < 1:
            raise ValueError(f"n ({n}) must be at least 1")
        return Fraction(1, n)

    def exact_batch(self, joints: np.ndarray) -> np.ndarray:
        """Numerators −D over 2n (Eq. 9 on integers)."""
        return -doubled_costs(joints, use_numba=self.use_numba)

    def denominator(self, n: int) -> int:
        return 2 * n

    def supports(self, child_size: int, parent_sizes: tuple[int, ...]) -> bool:
        return child_size == 2 and all(size in (1, 2) for size in parent_sizes)
