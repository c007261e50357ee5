"""Mechanisms as values that declare their sensitivity and cost before they run.

Each mechanism is a frozen object: its privacy map (``cost()``) is known before any
data is read, so a plan can be priced in advance, and ``release`` charges the
accountant from that declaration — the ledger is written by the mechanism, never by
hand.  Proof sketches:

* :class:`DiscreteLaplace` on counts: a contingency table changes by at most 2 in L1
  when one tuple is replaced (one cell −1, another +1), so discrete Laplace noise of
  scale Δ/ε = 2/ε on *every* cell (empty cells included) is ε-DP.  In probability
  units this is the paper's Lap(2/(nε)) with sensitivity 2/n (TODS 2017, §3).
* :class:`Exponential`: selecting ω with probability ∝ exp(ε·u(ω)/(2Δ)) is ε-DP when
  Δ bounds the change of every score u(ω) between neighbours (McSherry & Talwar
  2007; TODS 2017, §2.1).  Δ is an exact rational (rounded up where a bound is
  irrational), and scores may be exact rationals, so the sampled distribution is the
  one the ledger pays for, exactly.
* :class:`PermuteAndFlip`: visit the candidates in a uniformly random order and stop at the first ω
  accepted with probability exp(ε·(u(ω) − max u)/(2Δ)); ε-DP for scores of sensitivity Δ, and its
  expected score is never below the exponential mechanism's at the same ε (McKenna & Sheldon,
  "Permute-and-Flip", NeurIPS 2020, Thm. 1-2).  The exponential sampler below draws its proposals
  with replacement; this is the same test without replacement, with the same exact coins.
* :class:`DiscreteGaussian` on integer vectors: N_Z(0, σ²) noise per coordinate is Δ²/(2σ²)-zCDP for L2
  sensitivity Δ (Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
  Thm. 4); it has no pure-ε cost, so only a :class:`~privbayes.privacy.accountant.ZCDPAccountant` accepts it.

zCDP costs (``zcdp_cost()``, for a :class:`~privbayes.privacy.accountant.ZCDPAccountant`): an ε-DP mechanism is
ε²/2-zCDP (Bun & Steinke, TCC 2016, Prop. 1.4), which is what :class:`DiscreteLaplace` and
:class:`PermuteAndFlip` are charged; the exponential mechanism is ε-bounded-range and so ε²/8-zCDP (Cesar &
Rogers, "Bounding, Concentrating, and Truncating", ALT 2021).  Permute-and-flip is *not* ε-bounded
range, and not ε²/8-zCDP: on two candidates whose scores move by ±Δ in opposite directions its Rényi divergence
of order α → 1 exceeds ε²/8 · α by more than twice (tests/privacy/test_zcdp.py), so it keeps ε²/2.

Under add/remove neighbours (:mod:`privbayes.privacy.neighbours`) a count table moves by 1,
so Δ = 1 there; the caller passes the relation's sensitivity.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from privbayes.privacy.accountant import Accountant, Cost, ZCDPAccountant, as_fraction
from privbayes.privacy.neighbours import ADD_REMOVE, REPLACE_ONE
from privbayes.privacy.samplers import (
    RandomSource,
    Scores,
    _bernoulli_exp,
    _selection_start,
    discrete_gaussian,
    discrete_laplace,
    exponential_choice,
)

Tap = Callable[[Any, Any, Callable[[Any], Any]], Any]
"""``tap(mechanism, exact_input, draw) -> output``: sees every release after its charge; ``draw(input)`` is the
mechanism's own noise on an input.  Only the self-audit (:mod:`privbayes.audit.transcript`) sets one, to record
the transcript and to replay it on a neighbour; it must return ``draw(...)``'s output unchanged."""

tap: Tap | None = None
"""The recording hook: None (the default) costs one comparison per release and changes nothing."""

COUNT_TABLE_SENSITIVITY = REPLACE_ONE.count_sensitivity
"""L1 change of a count table when one tuple is replaced (1 under add/remove: :mod:`neighbours`)."""


def _positive(value: float | Fraction, name: str) -> Fraction:
    exact = as_fraction(value)
    if exact <= 0:
        raise ValueError(f"{name} ({float(exact)}) must be positive")
    return exact


def discrete_laplace_variance(scale: Fraction | float) -> float:
    """2q/(1 − q)² with q = exp(−1/scale): the variance of discrete Laplace noise with pmf ∝ exp(−|z|/scale)
    (≈ 2·scale²).  The one noise model every estimator assumes for a :class:`DiscreteLaplace` release."""
    q = math.exp(-1.0 / float(scale))
    return 2.0 * q / (1.0 - q) ** 2


@dataclass(frozen=True)
class DiscreteLaplace:
    """Integer vector + discrete Laplace noise of scale Δ/ε per coordinate: ε-DP for L1 sensitivity Δ."""

    epsilon: Fraction
    sensitivity: Fraction = COUNT_TABLE_SENSITIVITY
    name = "discrete Laplace"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", _positive(self.sensitivity, "sensitivity"))

    @property
    def scale(self) -> Fraction:
        return self.sensitivity / self.epsilon

    @property
    def variance(self) -> float:
        """The variance of the noise in one coordinate (what estimators weigh the release by)."""
        return discrete_laplace_variance(self.scale)

    def cost(self) -> Cost:
        return Cost(self.epsilon)

    def zcdp_cost(self) -> Fraction:
        """ε²/2: an ε-DP release is ε²/2-zCDP (Bun & Steinke 2016, Prop. 1.4)."""
        return self.epsilon**2 / 2

    def release(self, counts: np.ndarray, accountant: Accountant | ZCDPAccountant, rng: RandomSource, *, step: str,
                measured: str) -> np.ndarray:
        accountant.charge(self, step=step, measured=measured)
        return _add_noise(self, counts, lambda size: discrete_laplace(self.scale, size, rng))


@dataclass(frozen=True)
class _Selection:
    """A private choice of one index by its scores, with exponent ε/(2Δ): ε-DP when each score moves by
    at most Δ between neighbours.  Subclasses name the mechanism and its exact sampler."""

    epsilon: Fraction
    sensitivity: Fraction
    name = "selection"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", _positive(self.sensitivity, "sensitivity"))

    @property
    def factor(self) -> Fraction:
        """The exponent's coefficient ε/(2Δ)."""
        return self.epsilon / (2 * self.sensitivity)

    def cost(self) -> Cost:
        return Cost(self.epsilon)

    def zcdp_cost(self) -> Fraction:
        """ε²/2, what every ε-DP selection is (Bun & Steinke 2016, Prop. 1.4); :class:`Exponential` pays less."""
        return self.epsilon**2 / 2

    def release(self, scores: Scores, accountant: Accountant | ZCDPAccountant, rng: RandomSource, *, step: str,
                measured: str) -> int:
        if len(scores) == 0:
            raise ValueError(f"step {step!r}: the {self.name} mechanism needs at least one candidate")
        accountant.charge(self, step=step, measured=measured)
        if tap is not None:
            chosen: int = tap(self, scores, lambda s: self._choose(s, rng))
            return chosen
        return self._choose(scores, rng)

    def _choose(self, scores: Scores, rng: RandomSource) -> int:
        raise NotImplementedError


@dataclass(frozen=True)
class Exponential(_Selection):
    """Index chosen with probability ∝ exp(ε·score/(2Δ)) (McSherry & Talwar 2007)."""

    name = "exponential"

    def zcdp_cost(self) -> Fraction:
        """ε²/8: the exponential mechanism is ε-bounded-range, hence ε²/8-zCDP (Cesar & Rogers 2021)."""
        return self.epsilon**2 / 8

    def _choose(self, scores: Scores, rng: RandomSource) -> int:
        return exponential_choice(scores, self.factor, rng)


def permute_and_flip_choice(scores: Scores, factor: Fraction, rng: RandomSource) -> int:
    """Permute-and-flip (McKenna & Sheldon 2020, Alg. 1): candidates in a uniformly random order (a
    Fisher-Yates shuffle drawn lazily), each accepted with probability exp(−factor·(max − score)),
    the first accepted returned.  Scores are taken as the exact rationals they denote and the coins
    are exact, so the distribution is the mechanism's exactly; the best candidate is accepted
    surely, so at most one pass is made."""
    factor, top = _selection_start(scores, factor, "permute-and-flip")
    order = list(range(len(scores)))
    for k in range(len(order)):
        j = k + rng.randbelow(len(order) - k)
        order[k], order[j] = order[j], order[k]
        i = order[k]
        gap = factor * (top - Fraction(scores[i]))
        if _bernoulli_exp(gap.numerator, gap.denominator, rng):
            return i
    raise AssertionError("permute-and-flip: the best candidate is always accepted")  # pragma: no cover


@dataclass(frozen=True)
class PermuteAndFlip(_Selection):
    """Index chosen by permute-and-flip with exponent ε/(2Δ): at least as good as :class:`Exponential` at
    the same ε in expected score (McKenna & Sheldon 2020)."""

    name = "permute-and-flip"

    def _choose(self, scores: Scores, rng: RandomSource) -> int:
        return permute_and_flip_choice(scores, self.factor, rng)


def discrete_gaussian_variance(sigma2: Fraction | float) -> float:
    """Σ z²·Pr[Z = z] of N_Z(0, σ²): below σ², and within a factor 1 − 4π²σ²/(e^{4π²σ²} − 1) of it (CKS 2020,
    §2.1), so σ² itself from σ² = 1 on (a relative gap below 1e-15); summed over ``|z| ≤ 50`` below that."""
    s2 = float(sigma2)
    if s2 >= 1:
        return s2
    z = np.arange(-50, 51, dtype=np.float64)
    weights = np.exp(-z * z / (2 * s2))
    return float(np.sum(z * z * weights) / np.sum(weights))


@dataclass(frozen=True)
class DiscreteGaussian:
    """Integer vector + N_Z(0, σ²) noise per coordinate: Δ²/(2σ²)-zCDP for L2 sensitivity Δ (CKS 2020, Thm. 4).

    ``sensitivity`` is the L2 change of the vector between neighbours: 1 for a count table under add/remove,
    √2 under replace-one (pass a rational above it, e.g. 99/70).  The cost is exact, ρ = Δ²/(2σ²) as a
    Fraction; the sampler may round σ² *up* (:func:`~privbayes.privacy.samplers.gaussian_lattice`), which only
    adds noise.
    """

    sigma2: Fraction
    sensitivity: Fraction
    name = "discrete Gaussian"

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma2", _positive(self.sigma2, "sigma2"))
        object.__setattr__(self, "sensitivity", _positive(self.sensitivity, "sensitivity"))

    @property
    def variance(self) -> float:
        """The variance of the noise in one coordinate (what estimators weigh the release by)."""
        return discrete_gaussian_variance(self.sigma2)

    def cost(self) -> Cost:
        """No pure ε: the Gaussian mechanism is not ε-DP for any finite ε."""
        raise TypeError("the discrete Gaussian has no pure-epsilon cost: charge it to a ZCDPAccountant")

    def zcdp_cost(self) -> Fraction:
        """ρ = Δ²/(2σ²), exact."""
        return self.sensitivity**2 / (2 * self.sigma2)

    def release(self, counts: np.ndarray, accountant: ZCDPAccountant, rng: RandomSource, *, step: str,
                measured: str) -> np.ndarray:
        accountant.charge(self, step=step, measured=measured)
        return _add_noise(self, counts, lambda size: discrete_gaussian(self.sigma2, size, rng))


def _add_noise(mechanism: Any, counts: np.ndarray, draw: Callable[[int], np.ndarray]) -> np.ndarray:
    """``counts`` plus ``draw(size)`` integer noise of the mechanism already charged, through the recording ``tap``
    when one is set (the tests that pin the mechanisms' outputs)."""
    exact = np.asarray(counts, dtype=np.int64)

    def noisy(x: np.ndarray) -> np.ndarray:
        out: np.ndarray = x + draw(x.size).reshape(x.shape)
        return out

    if tap is not None:
        recorded: np.ndarray = tap(mechanism, exact, noisy)
        return recorded
    return noisy(exact)


COUNT_SHARE = Fraction(1, 100)
"""Share of ε a fit under add/remove neighbours spends on its noisy count (PrivBayes, adaptive marginals): only
what the papers derive from n uses it (θ-usefulness, the rounds, the default sample size), and a relative error
of a few percent changes that little (docs/decisions.md)."""
COUNT_STEP = "count n"
"""The ledger step of that noisy count."""


def count_mechanism(epsilon: Fraction) -> DiscreteLaplace:
    """The noisy count n̂ of an add/remove fit: discrete Laplace at sensitivity 1 (one tuple more or less)."""
    return DiscreteLaplace(epsilon, ADD_REMOVE.count_sensitivity)


def noisy_count(n: int, epsilon: Fraction, accountant: Accountant, rng: RandomSource, *, step: str) -> int:
    """n + :func:`count_mechanism`'s noise, at least 1: what add/remove fits use wherever the paper uses n."""
    noisy = count_mechanism(epsilon).release(np.array([n]), accountant, rng, step=step, measured="number of tuples")
    return max(1, int(noisy[0]))


def laplace_counts(counts: np.ndarray, epsilon: float | Fraction, accountant: Accountant, rng: RandomSource, *,
                   step: str, measured: str, sensitivity: float | Fraction = COUNT_TABLE_SENSITIVITY) -> np.ndarray:
    """Shorthand for ``DiscreteLaplace(epsilon, sensitivity).release(counts, ...)``."""
    mechanism = DiscreteLaplace(as_fraction(epsilon), as_fraction(sensitivity))
    return mechanism.release(counts, accountant, rng, step=step, measured=measured)


def exponential_mechanism(scores: Sequence[float] | np.ndarray, epsilon: float | Fraction,
                          sensitivity: float | Fraction, accountant: Accountant, rng: RandomSource, *, step: str,
                          measured: str) -> int:
    """Shorthand for ``Exponential(epsilon, sensitivity).release(scores, ...)``."""
    mechanism = Exponential(as_fraction(epsilon), as_fraction(sensitivity))
    return mechanism.release(scores, accountant, rng, step=step, measured=measured)
