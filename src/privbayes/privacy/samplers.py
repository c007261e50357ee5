"""Exact samplers for differential-privacy noise, on integers only.

Floating-point Laplace noise leaks through the gaps in its output lattice
(Mironov 2012), so every random quantity that protects data is drawn here with
integer arithmetic from uniform integers, following Canonne, Kamath and Steinke,
"The Discrete Gaussian for Differential Privacy" (NeurIPS 2020), Algorithms 1-2:

* ``bernoulli_exp(gamma)``: a coin with probability exp(-gamma) for rational gamma;
* ``discrete_laplace(scale)``: Pr[Z = z] ∝ exp(-|z| / scale) on the integers;
* ``exponential_choice(logits)``: index i with probability ∝ exp(logits[i]),
  by rejection from uniform proposals accepted with exp(logit_i - max logit).

The uniform integers come from a :class:`RandomSource`: the operating system's
CSPRNG by default, or a seeded generator when the user asks for reproducible
runs (the privacy report then says the run was seeded).  DP noise never shares a
generator with anything else.
"""

from __future__ import annotations

import random
import secrets
from fractions import Fraction
from typing import Protocol, Sequence

import numpy as np


class RandomSource(Protocol):
    """A source of exactly uniform integers."""

    seeded: bool

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        ...


class SystemRandomSource:
    """Uniform integers from the operating system's CSPRNG (``secrets``)."""

    seeded = False

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)


class SeededRandomSource:
    """Reproducible uniform integers (Mersenne Twister); not for production releases."""

    seeded = True

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self._random.randrange(n)


def random_source(seed: int | None) -> RandomSource:
    """The CSPRNG when ``seed`` is None, else a seeded source."""
    return SystemRandomSource() if seed is None else SeededRandomSource(seed)


def bernoulli_exp(gamma: Fraction, rng: RandomSource) -> bool:
    """True with probability exp(-gamma), gamma ≥ 0 rational (CKS 2020, Alg. 1)."""
    gamma = Fraction(gamma)
    if gamma < 0:
        raise ValueError(f"gamma ({gamma}) must be non-negative")
    return _bernoulli_exp(gamma.numerator, gamma.denominator, rng)


def _bernoulli_exp(num: int, den: int, rng: RandomSource) -> bool:
    """exp(-num/den) with integers only: e^-1 coins for the whole part, then the fraction."""
    whole, num = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_unit(1, 1, rng):
            return False
    return _bernoulli_exp_unit(num, den, rng)


def _bernoulli_exp_unit(num: int, den: int, rng: RandomSource) -> bool:
    """exp(-num/den) for num ≤ den: the parity of the first failing Bernoulli(γ/k) coin."""
    k = 1
    while rng.randbelow(den * k) < num:
        k += 1
    return k % 2 == 1


def _discrete_laplace_one(t: int, s: int, rng: RandomSource) -> int:
    """One draw with Pr[z] ∝ exp(-|z|·s/t) (CKS 2020, Alg. 2)."""
    while True:
        u = rng.randbelow(t)
        if not _bernoulli_exp_unit(u, t, rng):
            continue
        v = 0
        while _bernoulli_exp_unit(1, 1, rng):
            v += 1
        y = (u + t * v) // s
        negative = rng.randbelow(2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_laplace(scale: Fraction, size: int, rng: RandomSource) -> np.ndarray:
    """``size`` i.i.d. draws of the discrete Laplace distribution with the given scale.

    Adding it to an integer query of L1 sensitivity Δ is (Δ/scale)-DP, exactly as
    the continuous Laplace mechanism, with no floating-point lattice to exploit.
    """
    scale = Fraction(scale)
    if scale <= 0:
        raise ValueError(f"scale ({scale}) must be positive")
    t, s = scale.numerator, scale.denominator
    return np.fromiter((_discrete_laplace_one(t, s, rng) for _ in range(size)), dtype=np.int64, count=size)


def exponential_choice(logits: Sequence[Fraction], rng: RandomSource) -> int:
    """Index i with probability exp(logits[i]) / Σ_j exp(logits[j]), exactly.

    Uniform proposals are accepted with probability exp(logit_i − max logit);
    the accepted index is then distributed exactly as the softmax.  The expected
    number of proposals is at most len(logits).
    """
    if len(logits) == 0:
        raise ValueError("the exponential mechanism needs at least one candidate")
    top = max(logits)
    gaps = [top - logit for logit in logits]
    while True:
        i = rng.randbelow(len(gaps))
        if _bernoulli_exp(gaps[i].numerator, gaps[i].denominator, rng):
            return i
