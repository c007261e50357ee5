"""Score functions for choosing attribute-parent (AP) pairs (TODS 2017, §4.2, §4.3, §5.3).

Every score takes the *exact* joint count table of an AP pair, laid out as
``joint[x, pi]`` (rows: values of the child X, columns: the flattened parent
configurations of Π), and returns a float in probability units.  Scores never
leave the exponential mechanism unprotected: the mechanism that consumes them
pays ε for them, using the score's ``sensitivity``.

Sensitivities are for the neighbouring relation "replace one tuple, n public", as
exact rationals: R's and F's exactly, I's (irrational) rounded *up*.  R and F also give
their scores exactly, as integer numerators over a denominator that depends on n
only (``exact_batch``), so the exponential mechanism samples exactly the distribution
the ledger pays for; I's scores are floats (see docs/decisions.md).
Under add/remove neighbours n is private, so a normalised score's sensitivity (a function of
n) cannot be charged; :class:`CountIndependenceDistance` scores n·R, whose sensitivity is a
constant.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Protocol

import numpy as np

_I_MARGIN = Fraction(1, 2**40)
"""Added to I's sensitivity bound: more than twice the float error of a computed I score
(< 64 bits · 2^-50 relative), so float scores cannot move by more than the charged Δ."""


class ScoreFunction(Protocol):
    """What GreedyBayes needs of a score: a value and its sensitivity."""

    name: str
    exact: bool
    """Whether :meth:`exact_batch` gives the scores as exact rationals."""

    def __call__(self, joint: np.ndarray) -> float:
        """Score of an AP pair from its exact joint counts ``joint[x, pi]``."""
        ...

    def sensitivity(self, n: int, child_size: int, parent_size: int) -> Fraction:
        """Largest change of the score when one of the n tuples is replaced (exact or rounded up)."""
        ...

    def exact_batch(self, joints: np.ndarray) -> np.ndarray:
        """Integer numerators of the scores of ``joints[b, x, π]`` over :meth:`denominator`
        (only when ``exact``)."""
        ...

    def denominator(self, n: int) -> int:
        """The common denominator of :meth:`exact_batch` for tables of n tuples."""
        ...

    def supports(self, child_size: int, parent_sizes: tuple[int, ...]) -> bool:
        """Whether the score is defined (and computable) for these domain sizes."""
        ...

    def batch(self, joints: np.ndarray) -> np.ndarray:
        """Scores of many tables ``joints[b, x, π]`` of one shape."""
        ...


def _probabilities(joints: np.ndarray) -> np.ndarray:
    """Tables ``joints[b, x, π]`` normalised to probabilities, each on its own."""
    joints = np.asarray(joints, dtype=np.float64)
    totals = joints.sum(axis=(1, 2), keepdims=True)
    if np.any(totals <= 0):
        raise ValueError("joint table has no mass")
    return joints / totals


class MutualInformation:
    """I(X, Π) in bits (TODS 2017, Eq. 5); sensitivity from Lemma 4.1."""

    name = "I"
    exact = False

    def __call__(self, joint: np.ndarray) -> float:
        return float(self.batch(np.asarray(joint)[None])[0])

    def batch(self, joints: np.ndarray) -> np.ndarray:
        """Scores of many tables ``joints[b, x, π]`` of one shape."""
        p = _probabilities(joints)
        independent = p.sum(axis=2, keepdims=True) * p.sum(axis=1, keepdims=True)
        ratio = np.divide(p, independent, out=np.ones_like(p), where=p > 0)
        return np.sum(p * np.log2(ratio), axis=(1, 2))

    def sensitivity(self, n: int, child_size: int, parent_size: int) -> Fraction:
        bound = mutual_information_sensitivity(n, binary=min(child_size, parent_size) <= 2)
        return Fraction(math.nextafter(bound, math.inf)) + _I_MARGIN

    def exact_batch(self, joints: np.ndarray) -> np.ndarray:
        raise TypeError("I (mutual information) is not rational; use batch")

    def denominator(self, n: int) -> int:
        raise TypeError("I (mutual information) is not rational")

    def supports(self, child_size: int, parent_sizes: tuple[int, ...]) -> bool:
        return True


def mutual_information_sensitivity(n: int, binary: bool) -> float:
    """Lemma 4.1 (TODS 2017; Lemma 1 of SIGMOD 2014), logarithms to base 2.

    ``binary`` is true when X or Π has a domain of size two (or less).
    """
    if n < 2:  # one tuple: I is always 0, so any positive bound holds; use I's binary range
        return 1.0
    if binary:
        return math.log2(n) / n + (n - 1) / n * math.log2(n / (n - 1))
    return 2 / n * math.log2((n + 1) / 2) + (n - 1) / n * math.log2((n + 1) / (n - 1))


class IndependenceDistance:
    """R(X, Π) = ½‖Pr[X, Π] − Pr[X]·Pr[Π]‖₁ (TODS 2017, §5.3); S(R) ≤ 3/n + 2/n² (Thm 5.3)."""

    name = "R"
    exact = True

    def __call__(self, joint: np.ndarray) -> float:
        return float(self.batch(np.asarray(joint)[None])[0])

    def batch(self, joints: np.ndarray) -> np.ndarray:
        """Scores of many tables ``joints[b, x, π]`` of one shape."""
        p = _probabilities(joints)
        independent = p.sum(axis=2, keepdims=True) * p.sum(axis=1, keepdims=True)
        return 0.5 * np.abs(p - independent).sum(axis=(1, 2))

    def sensitivity(self, n: int, child_size: int, parent_size: int) -> Fraction:
        return Fraction(3, n) + Fraction(2, n * n)

    def exact_batch(self, joints: np.ndarray) -> np.ndarray:
        """Numerators Σ|n·c(x,π) − c(x)·c(π)| over 2n² (integer arithmetic)."""
        c = np.asarray(joints, dtype=np.int64)
        n = c.sum(axis=(1, 2), keepdims=True)
        products = c.sum(axis=2, keepdims=True) * c.sum(axis=1, keepdims=True)
        return np.abs(n * c - products).sum(axis=(1, 2))

    def denominator(self, n: int) -> int:
        return 2 * n * n

    def supports(self, child_size: int, parent_sizes: tuple[int, ...]) -> bool:
        return True


class CountIndependenceDistance(IndependenceDistance):
    """n·R(X, Π) = ½‖c[X, Π] − c[X]·c[Π]/n‖₁ in counts, for add/remove neighbours: S < 2.

    Proof (docs/decisions.md, "Add/remove neighbours"): adding a tuple at cell (x₀, π₀) moves
    c by 1 in L1.  M = c[X]·c[Π]ᵀ/n becomes M' with total n + 1, and M' − M is
    −c(x)c(π)/(n(n+1)) plus non-negative terms, so its negative part N ≤ n/(n+1) < 1 and
    ‖M' − M‖₁ = 1 + 2N < 3.  Hence ½Σ|c − M| moves by < ½(1 + 3) = 2; removal is the
    reverse move, and the empty table scores 0 like a one-tuple one.  Generalised parents
    only merge columns, which keeps the argument.  Scores are the same integer numerators
    as R's, over 2n instead of 2n²."""

    def batch(self, joints: np.ndarray) -> np.ndarray:
        """Scores of many tables ``joints[b, x, π]`` of one shape, in counts (0 for empty tables)."""
        joints = np.asarray(joints, dtype=np.float64)
        return self.exact_batch(joints) / (2 * np.maximum(joints.sum(axis=(1, 2)), 1))

    def sensitivity(self, n: int, child_size: int, parent_size: int) -> Fraction:
        return Fraction(2)

    def denominator(self, n: int) -> int:
        """2n, or 2 for the empty table (n = 0 is a possible input under add/remove; its
        numerators are all 0)."""
        return 2 * max(n, 1)
