"""θ-usefulness: how large a noisy marginal may be before noise drowns it (TODS 2017, §4.5, §5.2).

The paper's bounds are for replace-one neighbours, whose count tables have L1 sensitivity
Δ = 2; ``sensitivity`` takes the relation's Δ (1 under add/remove), which scales the noise
and so the bounds by 2/Δ.
"""

from __future__ import annotations

from fractions import Fraction

from privbayes.privacy.neighbours import REPLACE_ONE

PAPER_SENSITIVITY = REPLACE_ONE.count_sensitivity
"""The paper's count-table sensitivity (replace one tuple)."""


def binary_usefulness(n: int, d: int, epsilon2: Fraction, k: int,
                      sensitivity: Fraction = PAPER_SENSITIVITY) -> Fraction:
    """Lemma 4.8: Alg. 1's noisy (k+1)-way binary marginals are nε2 / ((d − k)·2^(k+2))-useful
    (nε2·2/Δ / ((d − k)·2^(k+2)) at count sensitivity Δ)."""
    return Fraction(n) * Fraction(epsilon2) * 2 / (sensitivity * (d - k) * 2 ** (k + 2))


def binary_degree(n: int, d: int, epsilon2: Fraction, theta: float, sensitivity: Fraction = PAPER_SENSITIVITY) -> int:
    """The largest k < d whose marginals are θ-useful, else 0 (TODS 2017, §4.5)."""
    useful = [k for k in range(1, d) if binary_usefulness(n, d, epsilon2, k, sensitivity) >= Fraction(theta)]
    return max(useful, default=0)


def domain_bound(n: int, d: int, epsilon2: Fraction, theta: float, child_size: int,
                 sensitivity: Fraction = PAPER_SENSITIVITY) -> Fraction:
    """Largest parent-domain size τ keeping Pr[X, Π] θ-useful under Alg. 3 (Alg. 4, line 6).

    A table of m cells with noise Lap(Δd/(nε2)) per cell is θ-useful iff
    m ≤ nε2/(Δdθ) (Δ = 2 in the paper); with m = |dom(X)|·|dom(Π)| this bounds |dom(Π)|.
    """
    return Fraction(n) * Fraction(epsilon2) / (sensitivity * d * Fraction(theta) * child_size)
