"""Score-driven split of ε2 over the noisy conditionals (SA-PrivBayes, Future Internet 2026,
§4.2.1, Alg. 2 line 4, Table 2).

The measured AP pairs (one noisy table each; Alg. 2 measures pairs k+1..d) are ranked by score
and cut into three clusters: C3 the highest scores, C2 the middle, C1 the lowest.  Cluster
budgets follow the ratio q from C1 upwards, ε_C1 = q·ε_C2 = q²·ε_C3, so with q > 1 the
important (high-score) nodes get LESS budget ("stronger protection", §4.2.1), and each node of
C_i gets ε_Ci/|C_i|.  With 6 nodes, ε2 = 0.5 and q = 1.1 this gives 0.076, 0.083, 0.091
(Table 2): 0.5/(1 + 1.1 + 1.21)/2 = 0.0755….

Decisions where the paper is silent:
* clusters are rank terciles, sizes as equal as possible with the extra nodes in the higher
  clusters (7 nodes: 3, 2, 2 from C3 down) — sizes depend on the number of nodes only, which
  is public; ties in score are broken by position (earlier pair ranks higher);
* with fewer than three nodes the empty clusters get nothing and the others share ε2 in the
  same ratio (1 node: all of ε2; 2 nodes: 1 : q);
* q is taken as the rational the user wrote (1.1 → 11/10); budgets are Fractions summing to ε2
  exactly.

Privacy.  The budgets are an output: each table's noise scale 2/ε_i reveals which cluster its
pair is in, hence the ranking of the scores the weights came from.  :func:`node_budgets` on
exact scores is faithful mode (an uncharged data access, listed as a caveat);
:func:`strict_node_budgets` reads scores from a private mutual-information matrix only, so the
budgets are post-processing of a paid-for release, and sequential composition over the d − k
tables (whatever their data-independent-given-the-past ε_i) costs Σ ε_i = ε2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.core.errors import InputError
from privbayes.methods.sa_privbayes.ami import MutualInformationMatrix
from privbayes.privacy.accountant import as_fraction

CLUSTERS = 3
"""Number of score clusters (§4.2: "the optimal number of clusters is 3")."""


@dataclass(frozen=True)
class ProtectionLevel:
    """A preset of §4.2.1: the range of q for a protection level and the value we use (its midpoint)."""

    name: str
    q_low: Fraction
    q_high: Fraction

    def __post_init__(self) -> None:
        if not 0 < self.q_low <= self.q_high:
            raise ValueError(f"protection level {self.name!r}: need 0 < q_low ({self.q_low}) "
                             f"≤ q_high ({self.q_high})")

    @property
    def q(self) -> Fraction:
        return (self.q_low + self.q_high) / 2


HIGH_PROTECTION = ProtectionLevel("high", Fraction(6, 5), Fraction(7, 5))
"""q = 1.2-1.4: data sharing and public release."""
MEDIUM_PROTECTION = ProtectionLevel("medium", Fraction(1), Fraction(6, 5))
"""q = 1.0-1.2: internal analysis and model training; its midpoint 1.1 is the paper's default."""
LOW_PROTECTION = ProtectionLevel("low", Fraction(4, 5), Fraction(1))
"""q = 0.8-1.0: exploratory analysis of non-sensitive data."""
PROTECTION_LEVELS = {level.name: level for level in (HIGH_PROTECTION, MEDIUM_PROTECTION, LOW_PROTECTION)}
PAPER_Q = MEDIUM_PROTECTION.q


def as_q(q: float | Fraction | str) -> Fraction:
    """q as an exact positive rational; a preset name ("high", "medium", "low") gives its midpoint."""
    if isinstance(q, str):
        if q not in PROTECTION_LEVELS:
            raise InputError(f"q must be a positive number or one of {', '.join(PROTECTION_LEVELS)}, got {q!r}")
        return PROTECTION_LEVELS[q].q
    value = q if isinstance(q, Fraction) else Fraction(str(q))
    if value <= 0:
        raise InputError(f"q ({q}) must be positive")
    return value


def cluster_sizes(nodes: int) -> tuple[int, int, int]:
    """|C1|, |C2|, |C3| (lowest to highest scores) for ``nodes`` measured pairs."""
    if nodes < 1:
        raise ValueError(f"budget allocation needs at least one node, got {nodes}")
    base, extra = divmod(nodes, CLUSTERS)
    top_down = [base + (1 if r < extra else 0) for r in range(CLUSTERS)]  # C3, C2, C1
    return top_down[2], top_down[1], top_down[0]


def score_clusters(scores: Sequence[float]) -> tuple[int, ...]:
    """Cluster of each node, 0 = C1 (lowest scores) … 2 = C3 (highest); ties by position."""
    values = np.asarray(scores, dtype=np.float64)
    ranked = np.argsort(-values, kind="stable")  # highest first
    _, c2, c3 = cluster_sizes(len(values))
    cluster = np.empty(len(values), dtype=np.int64)
    cluster[ranked[:c3]] = 2
    cluster[ranked[c3:c3 + c2]] = 1
    cluster[ranked[c3 + c2:]] = 0
    return tuple(int(c) for c in cluster)


def cluster_budgets(epsilon2: float | Fraction, q: float | Fraction | str, nodes: int) -> tuple[Fraction, ...]:
    """ε_C1, ε_C2, ε_C3 with ε_C1 : ε_C2 : ε_C3 = q² : q : 1 over the non-empty clusters; Σ = ε2."""
    eps2, ratio = as_fraction(epsilon2), as_q(q)
    if eps2 <= 0:
        raise InputError(f"epsilon2 ({float(eps2)}) must be positive")
    weights = [ratio ** (CLUSTERS - 1 - c) if size else Fraction(0) for c, size in enumerate(cluster_sizes(nodes))]
    total = sum(weights)
    return tuple(eps2 * w / total for w in weights)


def node_budgets(scores: Sequence[float], epsilon2: float | Fraction,
                 q: float | Fraction | str) -> tuple[Fraction, ...]:
    """ε_i of each measured pair (Alg. 2, line 4): ε_C/|C| for its cluster C; Σ ε_i = ε2 exactly.

    Faithful mode passes the exact scores of Alg. 1 line 20 (NOT private); strict mode must use
    :func:`strict_node_budgets`."""
    clusters = score_clusters(scores)
    sizes = cluster_sizes(len(clusters))
    budgets = cluster_budgets(epsilon2, q, len(clusters))
    return tuple(budgets[c] / sizes[c] for c in clusters)


def strict_node_budgets(mim: MutualInformationMatrix, pairs: Sequence[tuple[int, Sequence[int]]],
                        epsilon2: float | Fraction, q: float | Fraction | str) -> tuple[Fraction, ...]:
    """ε_i of each measured pair (child, parent attributes), weighted by Σ_{p∈Π} MIM[child, p] of a
    PRIVATE matrix: post-processing of a paid-for release; Σ ε_i = ε2 exactly."""
    if not mim.is_private:
        raise ValueError("strict budget allocation needs a mutual-information matrix released through a mechanism, "
                         "not the exact one")
    return node_budgets([mim.total(child, parents) for child, parents in pairs], epsilon2, q)
