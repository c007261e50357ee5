"""Score functions for choosing attribute-parent (AP) pairs (TODS 2017, §4.2, §4.3, §5.3).

Every score takes the *exact* joint count table of an AP pair, laid out as
``joint[x, pi]`` (rows: values of the child X, columns: the flattened parent
configurations of Π), and returns a float in probability units.  Scores never
leave the exponential mechanism unprotected: the mechanism that consumes them
pays ε for them, using the score's ``sensitivity``.

Sensitivities are for the neighbouring relation "replace one tuple, n public".
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np


class ScoreFunction(Protocol):
    """What GreedyBayes needs of a score: a value and its sensitivity."""

    name: str

    def __call__(self, joint: np.ndarray) -> float:
        """Score of an AP pair from its exact joint counts ``joint[x, pi]``."""
        ...

    def sensitivity(self, n: int, child_size: int, parent_size: int) -> float:
        """Largest change of the score when one of the n tuples is replaced."""
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

    def __call__(self, joint: np.ndarray) -> float:
        return float(self.batch(np.asarray(joint)[None])[0])

    def batch(self, joints: np.ndarray) -> np.ndarray:
        """Scores of many tables ``joints[b, x, π]`` of one shape."""
        p = _probabilities(joints)
        independent = p.sum(axis=2, keepdims=True) * p.sum(axis=1, keepdims=True)
        ratio = np.divide(p, independent, out=np.ones_like(p), where=p > 0)
        return np.sum(p * np.log2(ratio), axis=(1, 2))

    def sensitivity(self, n: int, child_size: int, parent_size: int) -> float:
        return mutual_information_sensitivity(n, binary=min(child_size, parent_size) <= 2)

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

    def __call__(self, joint: np.ndarray) -> float:
        return float(self.batch(np.asarray(joint)[None])[0])

    def batch(self, joints: np.ndarray) -> np.ndarray:
        """Scores of many tables ``joints[b, x, π]`` of one shape."""
        p = _probabilities(joints)
        independent = p.sum(axis=2, keepdims=True) * p.sum(axis=1, keepdims=True)
        return 0.5 * np.abs(p - independent).sum(axis=(1, 2))

    def sensitivity(self, n: int, child_size: int, parent_size: int) -> float:
        return 3 / n + 2 / n**2

    def supports(self, child_size: int, parent_sizes: tuple[int, ...]) -> bool:
        return True
