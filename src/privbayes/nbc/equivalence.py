"""Exhaustive NBC-equivalence check (Mozafari & Zaniolo, VLDB 2009, Def. 2).

Two classifiers f, f' over the same attributes and labels are NBC-equivalent when for every
tuple τ of the domain and every pair of classes c < c'

    f(τ,c) ≤ f(τ,c')  ⇔  f'(τ,c) ≤ f'(τ,c')      (11)
    f(τ,c) > f(τ,c')  ⇔  f'(τ,c) > f'(τ,c')      (12)

i.e. both rank the classes of every tuple identically once ties go to the later class ((12) is
the negation of (11), so checking (11) suffices; a tie may become a win of the later class).  The
check enumerates the whole domain with exact integer arithmetic; it is the brute-force twin
of SafetyTransform's margin argument and the verdict of ``privbayes nbc check``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.errors import InputError
from privbayes.nbc.views import NBCViews

DEFAULT_LIMIT = 1 << 22
"""Largest number of (tuple, class) cells the exhaustive check enumerates."""


@dataclass(frozen=True)
class Equivalence:
    """The verdict, with the first differing tuple (domain codes) and class pair if any."""

    equivalent: bool
    tuples: int
    counterexample: tuple[tuple[int, ...], int, int] | None = None


def integer_scores(views: NBCViews, limit: int = DEFAULT_LIMIT) -> np.ndarray:
    """Y[τ, c] = X_{τ,c} · Π_{c'} P_{c'}^(n−1) · λ^(…) as exact Python integers (object array).

    All counts are first scaled by the common denominator λ (a uniform scaling multiplies every
    X by the same factor, so the ranking is unchanged); the domain is in C order of the attributes.
    """
    cells = views.domain_size * views.classes
    if cells > limit:
        raise InputError(f"the domain has more than {limit} (tuple, class) cells; the exhaustive check is refused")
    scale = math.lcm(*(Fraction(v).denominator for v in views.all_counts()))
    n = views.n
    prior = [int(Fraction(p) * scale) for p in views.prior]
    columns = []
    for c in range(views.classes):
        product = np.array([1], dtype=object)
        for attr in views.attributes:
            values = np.array([int(Fraction(row[c]) * scale) for row in attr.counts], dtype=object)
            product = np.multiply.outer(product, values).reshape(-1)
        others = math.prod(prior[d] ** (n - 1) for d in range(views.classes) if d != c)
        columns.append(product * others)
    return np.stack(columns, axis=1)


def rankings(views: NBCViews, limit: int = DEFAULT_LIMIT) -> np.ndarray:
    """The tie-broken ranking of the classes of every domain tuple (tuples × classes)."""
    scores = integer_scores(views, limit)
    keys = [sorted(range(views.classes), key=lambda c: (row[c], c), reverse=True) for row in scores]
    return np.array(keys, dtype=np.int64)


def check_equivalence(first: NBCViews, second: NBCViews, limit: int = DEFAULT_LIMIT) -> Equivalence:
    """Def. 2 over all domain tuples and all class pairs c < c' (ties included)."""
    shape = [len(a.values) for a in first.attributes]
    if first.labels != second.labels or shape != [len(a.values) for a in second.attributes]:
        raise InputError("the two views have different class labels or attribute domains")
    a, b = integer_scores(first, limit), integer_scores(second, limit)
    for c in range(first.classes):
        for d in range(c + 1, first.classes):
            differ = (a[:, c] <= a[:, d]) != (b[:, c] <= b[:, d])
            if differ.any():
                index = int(np.flatnonzero(differ)[0])
                return Equivalence(False, len(a), (tuple(int(i) for i in np.unravel_index(index, shape)), c, d))
    return Equivalence(True, len(a))
