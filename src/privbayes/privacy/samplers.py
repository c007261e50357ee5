"""Exact samplers for differential-privacy noise, on integers only.

Floating-point Laplace noise leaks through the gaps in its output lattice
(Mironov 2012), so every random quantity that protects data is drawn here with
integer arithmetic from uniform integers, following Canonne, Kamath and Steinke,
"The Discrete Gaussian for Differential Privacy" (NeurIPS 2020), Algorithms 1-3:

* ``bernoulli_exp(gamma)``: a coin with probability exp(-gamma) for rational gamma;
* ``discrete_laplace(scale)``: ``Pr[Z = z] ∝ exp(-|z| / scale)`` on the integers,
  vectorised over many draws (Alg. 2 run on numpy arrays of exact integers);
* ``discrete_gaussian(sigma2, size)``: ``Pr[Z = z] ∝ exp(-z² / (2σ²))`` on the integers for rational σ²
  (Alg. 3: discrete Laplace proposals accepted by exact exp(-γ) coins), vectorised the same way;
* ``exponential_choice(scores, factor)``: index i with probability ∝ exp(factor·scores[i]),
  by rejection from uniform proposals accepted with exp(−factor·(max − score_i)).

The uniform integers come from a :class:`RandomSource`: the operating system's
CSPRNG by default, or a seeded generator when the user asks for reproducible
runs (the privacy report then says the run was seeded).  DP noise never shares a
generator with anything else.
"""

from __future__ import annotations

import math
import os
import random
import secrets
from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol

import numpy as np

from privbayes.core.errors import InputError


class RandomSource(Protocol):
    """A source of exactly uniform integers."""

    seeded: bool

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        ...

    def below(self, bounds: np.ndarray) -> np.ndarray:
        """Uniform integers in [0, bounds[i]) for each i (uint64, 0 < bounds < 2^63)."""
        ...


class SystemRandomSource:
    """Uniform integers from the operating system's CSPRNG (``secrets`` / ``os.urandom``)."""

    seeded = False

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)

    def below(self, bounds: np.ndarray) -> np.ndarray:
        bounds = np.asarray(bounds, dtype=np.uint64)
        out = np.empty_like(bounds)
        todo = np.arange(bounds.size)
        while todo.size:  # rejection as in OpenBSD's arc4random_uniform: exact, no modulo bias
            words = np.frombuffer(os.urandom(8 * todo.size), dtype=np.uint64)
            b = bounds[todo]
            ok = words >= (np.uint64(0) - b) % b  # 2^64 mod b
            out[todo[ok]] = words[ok] % b[ok]
            todo = todo[~ok]
        return out


class SeededRandomSource:
    """Reproducible uniform integers (Mersenne Twister and PCG64); not for production releases."""

    seeded = True

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self._numpy = np.random.Generator(np.random.PCG64(seed))

    def randbelow(self, n: int) -> int:
        return self._random.randrange(n)

    def below(self, bounds: np.ndarray) -> np.ndarray:
        return self._numpy.integers(0, np.asarray(bounds, dtype=np.uint64), dtype=np.uint64)


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


_SCALE_DENOMINATOR_BITS = 20
_SCALE_NUMERATOR_BITS = 44


def lattice_scale(scale: Fraction) -> tuple[int, int]:
    """Integers (t, s) with t/s ≥ scale, close to it, small enough for 64-bit arithmetic.

    A float ε makes 2/ε a rational with a ~2^50 denominator; we round the scale *up*
    to a multiple of 2^-20 (at most 1e-6 more noise), which only strengthens privacy.
    """
    scale = Fraction(scale)
    if scale <= 0:
        raise ValueError(f"scale ({float(scale)}) must be positive")
    if scale.denominator <= 2**_SCALE_DENOMINATOR_BITS and scale.numerator < 2**_SCALE_NUMERATOR_BITS:
        return scale.numerator, scale.denominator
    s = 2**_SCALE_DENOMINATOR_BITS
    t = math.ceil(scale * s)
    if t >= 2**_SCALE_NUMERATOR_BITS:
        raise InputError(f"the noise scale ({float(scale):g}) is too large for the exact sampler: epsilon is too small")
    return t, s


def _bernoulli_exp_units(num: np.ndarray, den: int, rng: RandomSource) -> np.ndarray:
    """Vectorised exp(-num/den), num ≤ den: parity of the first failing Bernoulli(γ/k) coin."""
    num = np.asarray(num, dtype=np.uint64)
    k = np.ones(num.shape, dtype=np.uint64)
    active = np.arange(num.size)
    while active.size:
        coin = rng.below(np.uint64(den) * k[active]) < num[active]
        k[active[coin]] += np.uint64(1)
        active = active[coin]
    odd: np.ndarray = k % np.uint64(2) == np.uint64(1)
    return odd


def _count_successes_exp_minus_one(size: int, rng: RandomSource) -> np.ndarray:
    """Number of Bernoulli(e^-1) successes before the first failure, ``size`` times."""
    v = np.zeros(size, dtype=np.uint64)
    active = np.arange(size)
    while active.size:
        coin = _bernoulli_exp_units(np.ones(active.size, dtype=np.uint64), 1, rng)
        v[active[coin]] += np.uint64(1)
        active = active[coin]
    return v


def discrete_laplace(scale: Fraction, size: int, rng: RandomSource) -> np.ndarray:
    """``size`` i.i.d. draws of the discrete Laplace distribution with (at least) the given scale.

    Adding it to an integer query of L1 sensitivity Δ is (Δ/scale)-DP, exactly as the
    continuous Laplace mechanism, with no floating-point lattice to exploit.  CKS 2020,
    Alg. 2, with t/s = :func:`lattice_scale`: X = U + t·V is geometric with parameter
    1 − e^(-1/t), Y = ⌊X/s⌋ geometric with 1 − e^(-s/t), and a random sign (rejecting −0).
    """
    t, s = lattice_scale(Fraction(scale))
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        m = size - filled
        u = rng.below(np.full(m, t, dtype=np.uint64))
        u = u[_bernoulli_exp_units(u, t, rng)]
        y = (u + np.uint64(t) * _count_successes_exp_minus_one(u.size, rng)) // np.uint64(s)
        negative = rng.below(np.full(u.size, 2, dtype=np.uint64)) == 1
        keep = ~(negative & (y == 0))
        z = np.where(negative, -y.astype(np.int64), y.astype(np.int64))[keep][:m]
        out[filled:filled + z.size] = z
        filled += z.size
    return out


class RationalScores:
    """Scores ``numerators[i] / denominator`` kept exact (integer numerators, one positive
    denominator); indexing gives a :class:`Fraction`."""

    def __init__(self, numerators: np.ndarray, denominator: int) -> None:
        if denominator <= 0:
            raise ValueError(f"denominator ({denominator}) must be positive")
        self.numerators = np.asarray(numerators, dtype=np.int64)
        self.denominator = int(denominator)

    def __len__(self) -> int:
        return len(self.numerators)

    def __getitem__(self, i: int) -> Fraction:
        return Fraction(int(self.numerators[i]), self.denominator)

    def max(self) -> Fraction:
        return Fraction(int(self.numerators.max()), self.denominator)

    def to_float(self) -> np.ndarray:
        return self.numerators / self.denominator


Scores = Sequence[float] | np.ndarray | RationalScores
"""Scores a selection takes: floats or Fractions, an array, or exact :class:`RationalScores`."""


def _top(scores: Scores) -> Fraction:
    if isinstance(scores, RationalScores):
        return scores.max()
    if isinstance(scores, np.ndarray):
        return Fraction(float(scores.max()))
    return Fraction(max(scores))  # float/Fraction comparisons are exact in Python


def _selection_start(scores: Scores, factor: Fraction,
                     mechanism: str) -> tuple[Fraction, Fraction]:
    """A selection's checked inputs: its factor as an exact rational (non-negative) and the top score."""
    if len(scores) == 0:
        raise ValueError(f"{mechanism} needs at least one candidate")
    factor = Fraction(factor)
    if factor < 0:
        raise ValueError(f"factor ({float(factor)}) must be non-negative")
    return factor, _top(scores)


def exponential_choice(scores: Scores, factor: Fraction,
                       rng: RandomSource) -> int:
    """Index i with probability exp(factor·scores[i]) / Σ_j exp(factor·scores[j]), exactly.

    Scores (floats, Fractions or :class:`RationalScores`) are taken as the exact rationals they denote.
    Uniform proposals are accepted with probability exp(−factor·(max − score_i)); the accepted index is
    then distributed exactly as the softmax.  The expected number of proposals is at
    most len(scores); each gap is computed only when its candidate is proposed.
    """
    factor, top = _selection_start(scores, factor, "the exponential mechanism")
    while True:
        i = rng.randbelow(len(scores))
        gap = factor * (top - Fraction(scores[i]))
        if _bernoulli_exp(gap.numerator, gap.denominator, rng):
            return i


_GAUSSIAN_DENOMINATOR_BITS = 56
"""The acceptance coins of :func:`discrete_gaussian` run on uint64 with denominators below 2^56, so a coin's
bound den·k stays below 2^63 until k = 128 (reached with probability below 1/127!)."""
_GAUSSIAN_DENOMINATOR_LIMIT = 1 << _GAUSSIAN_DENOMINATOR_BITS


def gaussian_lattice(sigma2: Fraction) -> tuple[int, int, int]:
    """Integers (a, b, t): σ² rounded up to a/b (≥ σ², equal when it fits), and t = ⌊√(a/b)⌋ + 1.

    The acceptance test of :func:`discrete_gaussian` is ``exp(−(|y|·b·t − a)² / (2·a·b·t²))``; its denominator
    must stay below 2^56 for the vectorised coins, so σ² is kept exact when it fits and otherwise rounded *up*
    to the finest dyadic a/2^m that fits (more noise, never less: the declared privacy still holds).  When even
    an integer σ² does not fit (σ above ~10⁴) the exact σ² is kept and the coins run on Python integers.
    """
    sigma2 = Fraction(sigma2)
    if sigma2 <= 0:
        raise ValueError(f"sigma2 ({float(sigma2)}) must be positive")

    def fits(a: int, b: int) -> bool:
        t = _gaussian_t(a, b)
        return 2 * a * b * t * t < _GAUSSIAN_DENOMINATOR_LIMIT

    if fits(sigma2.numerator, sigma2.denominator):
        return sigma2.numerator, sigma2.denominator, _gaussian_t(sigma2.numerator, sigma2.denominator)
    for m in range(_GAUSSIAN_DENOMINATOR_BITS, -1, -1):
        rounded = Fraction(math.ceil(sigma2 * 2**m), 2**m)
        if fits(rounded.numerator, rounded.denominator):
            return rounded.numerator, rounded.denominator, _gaussian_t(rounded.numerator, rounded.denominator)
    return sigma2.numerator, sigma2.denominator, _gaussian_t(sigma2.numerator, sigma2.denominator)


def _gaussian_t(a: int, b: int) -> int:
    """⌊σ⌋ + 1 for σ² = a/b, exactly (integer square root)."""
    return math.isqrt(a // b) + 1


def _bernoulli_exp_fractions(num: np.ndarray, den: int, rng: RandomSource) -> np.ndarray:
    """Vectorised exp(−num/den) for non-negative integers num (a numpy object array: any size) and
    den < 2^56: e^−1 coins for the whole parts, then one coin of the fractional part (as Alg. 1)."""
    whole = (num // den).astype(np.int64)
    frac = (num % den).astype(np.uint64)
    ok = np.ones(num.size, dtype=bool)
    active = np.flatnonzero(whole > 0)
    while active.size:
        coin = _bernoulli_exp_units(np.ones(active.size, dtype=np.uint64), 1, rng)
        ok[active[~coin]] = False
        whole[active] -= 1
        active = active[coin & (whole[active] > 0)]
    survivors = np.flatnonzero(ok)
    ok[survivors] = _bernoulli_exp_units(frac[survivors], den, rng)
    return ok


def discrete_gaussian(sigma2: Fraction, size: int, rng: RandomSource) -> np.ndarray:
    """``size`` i.i.d. draws of the discrete Gaussian N_Z(0, σ²): Pr[Z = z] ∝ exp(−z²/(2σ²)) on the integers.

    Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020), Alg. 3:
    with t = ⌊σ⌋ + 1, draw Y from the discrete Laplace of scale t (:func:`discrete_laplace`, Alg. 2) and accept
    it with probability ``exp(−(|Y| − σ²/t)² / (2σ²))`` (exact coins, Alg. 1); an accepted Y has the discrete
    Gaussian's law exactly, since ``exp(−|y|/t)·exp(−(|y| − σ²/t)²/(2σ²)) ∝ exp(−y²/(2σ²))``.  Integer arithmetic
    only: σ² = a/b (:func:`gaussian_lattice`, rounded up only when its denominator is too large), and the
    exponent is ``(|Y|·b·t − a)² / (2·a·b·t²)``.  Adding it to an integer query of L2 sensitivity Δ is
    Δ²/(2σ²)-zCDP (CKS 2020, Thm. 4).
    """
    a, b, t = gaussian_lattice(Fraction(sigma2))
    den = 2 * a * b * t * t
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        m = size - filled
        y = discrete_laplace(Fraction(t), m, rng)
        gap = np.abs(y).astype(object) * (b * t) - a
        num = gap * gap
        if den < _GAUSSIAN_DENOMINATOR_LIMIT:
            accept = _bernoulli_exp_fractions(num, den, rng)
        else:
            accept = np.array([_bernoulli_exp(int(x), den, rng) for x in num], dtype=bool)
        z = y[accept][:m]
        out[filled:filled + z.size] = z
        filled += z.size
    return out
