"""A public cap on GreedyBayes's candidate parent sets (TODS 2017, Alg. 4-6;
docs/decisions.md, "A public cap on GreedyBayes's candidates").

θ-usefulness (Alg. 4, line 6) lets a child X take parents whose domain is at most
τ = nε2/(2dθ|dom(X)|).  τ grows with n·ε, and the maximal parent sets under τ
(Alg. 5/6), each scored on a table counted over every row, grow much faster: Adult-like
data at ε = 1 has about 5·10⁴ generalised subsets within τ at n = 10⁵, 5·10⁵ at 10⁶ and
2·10⁶ at 5·10⁶; 50 attributes at n = 10⁶ have 10⁹.  The fit's work then grows far faster
than n.

The cap: B is the largest integer bound under which the generalised subsets of *all* d
encoded attributes (each absent or at one of its levels) number at most C
(``limits().max_candidate_sets``, ``PRIVBAYES_MAX_CANDIDATE_SETS``).  θ-usefulness allows
every child tables of nε2/(2dθ) cells; the cap lowers that to B·s (s: the smallest child
domain), so a child X's bound becomes min(⌊τ⌋, ⌊B·s/|dom(X)|⌋) ≤ B: the network is learnt as
if n·ε were smaller.  Since a child's maximal parent sets at any step are among the
subsets of the other attributes within its bound, no child ever has more than C
candidates.  B depends on the schema's level sizes and C only, the capped bound on n, ε,
θ and the schema: public, so the cap costs no privacy.  It only lowers τ, so every table
stays θ-useful, and it changes nothing where the smallest child's ⌊τ⌋ ≤ B (the paper's four
datasets at ε ≤ 1.6 with the default C).  GreedyBayes (:mod:`greedy`), the cost estimate
(:mod:`cost`) and the plan's table-size check (:mod:`budget`) all take their bound from
:func:`parent_bound`, so they agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from privbayes.bayesnet.parentsets import count_parent_sets  # iterative: hundreds of attributes
from privbayes.bayesnet.usefulness import PAPER_SENSITIVITY, domain_bound
from privbayes.core.limits import limits
from privbayes.schema.encoding import Encoding

LevelSizes = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class CandidateCap:
    """The cap of one encoded schema: the θ-useful table size nε2/(2dθ) (Alg. 4, line 6: a
    child's cells |dom(X)|·|dom(Π)|) lowered to at most ``cells``.

    ``domain_cap`` (B) is the largest integer bound, at least 1, with ``count_parent_sets(all
    levels, B) ≤ max_sets``; ``cells`` = B·(the smallest child domain), so the smallest child,
    which has the largest τ, gets at most B and every other child proportionally less, as a
    smaller n·ε would give.  Capping the cells, not each child's bound at B, keeps the total
    work of a step (the sum over children) near that of the smallest child's list.  With
    ``limiting`` false every generalised subset fits under the product of the domain sizes
    (``domain_cap``), so the cap changes no candidate list."""

    max_sets: int
    domain_cap: int
    smallest_child: int
    limiting: bool = True

    def __post_init__(self) -> None:
        if min(self.max_sets, self.domain_cap, self.smallest_child) < 1:
            raise ValueError("max_sets, domain_cap and smallest_child must be positive")

    @property
    def cells(self) -> int:
        return self.domain_cap * self.smallest_child

    def bound(self, tau: Fraction, child_size: int) -> int:
        """A child's parent-domain bound: ⌊τ⌋, capped at ⌊cells/|dom(X)|⌋ (domain sizes are integers)."""
        floor = math.floor(Fraction(tau))
        # Not limiting: every subset fits under domain_cap (the full product), so the clamp
        # changes no candidate list; it only keeps sizes derived from the bound finite.
        return min(floor, self.cells // child_size if self.limiting else self.domain_cap)

    def binds(self, tau: Fraction, child_size: int) -> bool:
        """Whether the cap lowers this child's bound τ, and so can change its candidates."""
        return self.limiting and math.floor(Fraction(tau)) > self.cells // child_size


def level_sizes(encoding: Encoding) -> LevelSizes:
    """Domain size of every encoded attribute at each of its generalisation levels."""
    return tuple(tuple(a.level_size(i) for i in range(a.height)) for a in encoding.attributes)


def candidate_cap(encoding: Encoding, max_sets: int | None = None) -> CandidateCap:
    """The :class:`CandidateCap` of ``encoding`` with C = ``max_sets`` (default: the limit in force)."""
    cap = limits().max_candidate_sets if max_sets is None else max_sets
    sizes = level_sizes(encoding)
    smallest = min(a.size for a in encoding.attributes)
    if math.prod(1 + len(s) for s in sizes) <= cap:  # every generalised subset fits under the full product
        return CandidateCap(cap, math.prod(max(s) for s in sizes), smallest, limiting=False)
    return CandidateCap(cap, _domain_cap(sizes, cap), smallest)


@lru_cache(maxsize=64)
def _domain_cap(sizes: LevelSizes, max_sets: int) -> int:
    """Largest b ≥ 1 with count_parent_sets(sizes, b) ≤ max_sets (the count never falls as b grows),
    when not every subset fits: doubling, then bisection; never evaluated above twice the answer,
    so a huge τ costs nothing."""
    full = math.prod(max(s) for s in sizes)
    low, high = 1, 2  # invariant once found: count(low) ≤ max_sets < count(high), or low = 1
    while high < full and count_parent_sets(sizes, high) <= max_sets:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if count_parent_sets(sizes, middle) <= max_sets:
            low = middle
        else:
            high = middle
    return low


def parent_bound(n: int, d: int, epsilon2: Fraction, theta: float, child_size: int, cap: CandidateCap,
                 sensitivity: Fraction = PAPER_SENSITIVITY) -> int:
    """The parent-domain bound of a child of ``child_size`` values: θ-usefulness's τ (Alg. 4,
    line 6; tables of count sensitivity ``sensitivity``), capped."""
    return cap.bound(domain_bound(n, d, epsilon2, theta, child_size, sensitivity), child_size)


def cap_settings(n: int, encoding: Encoding, epsilon2: Fraction, theta: float,
                 sensitivity: Fraction = PAPER_SENSITIVITY) -> tuple[tuple[str, Any], ...]:
    """The cap as public plan settings (so the privacy report shows it): C, the capped table
    size and the children whose bound it lowers."""
    cap = candidate_cap(encoding)
    d = len(encoding.attributes)
    capped = [a.name for a in encoding.attributes if cap.binds(domain_bound(n, d, epsilon2, theta, a.size, sensitivity),
                                                                    a.size)]
    return (("candidate cap (max parent sets per child)", cap.max_sets),
            ("table cells cap (θ-usefulness)", cap.cells if cap.limiting else "none"),
            ("children capped", ", ".join(capped) if capped else "none"))
