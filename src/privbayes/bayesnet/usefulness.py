"""θ-usefulness: how large a noisy marginal may be before noise drowns it (TODS 2017, §4.5, §5.2)."""

from __future__ import annotations

from fractions import Fraction


def binary_usefulness(n: int, d: int, epsilon2: Fraction, k: int) -> Fraction:
    """Lemma 4.8: Alg. 1's noisy (k+1)-way binary marginals are nε2 / ((d − k)·2^(k+2))-useful."""
    return Fraction(n) * Fraction(epsilon2) / ((d - k) * 2 ** (k + 2))


def binary_degree(n: int, d: int, epsilon2: Fraction, theta: float) -> int:
    """The largest k < d whose marginals are θ-useful, else 0 (TODS 2017, §4.5)."""
    useful = [k for k in range(1, d) if binary_usefulness(n, d, epsilon2, k) >= Fraction(theta)]
    return max(useful, default=0)


def domain_bound(n: int, d: int, epsilon2: Fraction, theta: float, child_size: int) -> Fraction:
    """Largest parent-domain size τ keeping Pr[X, Π] θ-useful under Alg. 3 (Alg. 4, line 6).

    A table of m cells with noise Lap(2d/(nε2)) per cell is θ-useful iff
    m ≤ nε2/(2dθ); with m = |dom(X)|·|dom(Π)| this bounds |dom(Π)|.
    """
    return Fraction(n) * Fraction(epsilon2) / (2 * d * Fraction(theta) * child_size)
