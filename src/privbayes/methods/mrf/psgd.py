"""The PSGD baseline of ICML 2017 (§4): noisy gradient ascent on the log-likelihood
(Abadi et al., CCS 2016), (ε, δ)-DP with δ = 1/N as in the paper.

The per-individual gradient of log p(x; θ) is e(x) − µ(θ), with e(x) the clique
indicator vector; its L2 norm is at most √(2|C|) (each clique contributes
1 − 2µ_C(x_C) + ‖µ_C‖² ≤ 2), and so is the change of the summed gradient when one
individual is added, removed or replaced.  Clipping at that bound never binds, so
the summed gradient n − N·µ(θ) is a function of the clique tables alone and we compute
it from the counting layer's tables instead of from rows.  The counting layer offers no
row subsampling, so every step uses the full batch (sampling rate q = 1, no
amplification); the steps compose as Gaussian mechanisms, calibrated with the RDP
accountant of PyPI ``dp-accounting``.  Gaussian noise on float gradients is the
issue's documented exception to the exact-sampler rule (it draws from numpy, on a
generator of its own).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.methods.mrf.model import LogLinearModel, clique_marginals, flatten, unflatten
from privbayes.privacy.accountant import Accountant, Cost


def noise_multiplier(epsilon: float, delta: float, steps: int) -> float:
    """The smallest z such that ``steps`` Gaussian releases of noise z·Δ are (ε, δ)-DP (RDP accountant)."""
    import dp_accounting
    from dp_accounting import rdp

    def event(z: float) -> dp_accounting.DpEvent:
        return dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(z), steps)

    return float(dp_accounting.calibrate_dp_mechanism(rdp.RdpAccountant, event, epsilon, delta,
                                                      dp_accounting.LowerEndpointAndGuess(1e-3, 1.0)))


@dataclass(frozen=True)
class NoisyGradientDescent:
    """``steps`` Gaussian releases of the summed gradient, noise std z·Δ per coordinate: (ε, δ)-DP."""

    epsilon: Fraction
    delta: Fraction
    steps: int
    z: float
    l2_sensitivity: float
    name = "Gaussian (DP-GD, float noise)"

    @property
    def sensitivity(self) -> Fraction:
        return Fraction(self.l2_sensitivity)

    def cost(self) -> Cost:
        return Cost(self.epsilon, self.delta)


def psgd(model: LogLinearModel, counts: Sequence[np.ndarray], n: int, epsilon: Fraction, delta: Fraction,
         accountant: Accountant, rng: np.random.Generator, *, steps: int = 50, learning_rate: float = 1.0,
         lam: float = 0.0) -> LogLinearModel:
    """θ ← θ + η·((n − N·µ(θ) + 𝒩(0, (zΔ)²)) / N − 2λθ), ``steps`` times from ``model``'s θ."""
    if steps < 1 or not learning_rate > 0:
        raise ValueError(f"steps ({steps!r}) must be >= 1 and learning_rate ({learning_rate!r}) > 0")
    sensitivity = math.sqrt(2 * len(model.cliques))
    z = noise_multiplier(float(epsilon), float(delta), steps)  # the charge below is exact
    accountant.charge(NoisyGradientDescent(Fraction(epsilon), Fraction(delta), steps, z, sensitivity),
                      step="noisy gradient descent", measured=f"{steps} summed log-likelihood gradients")
    statistics = flatten([np.asarray(c, dtype=np.float64) for c in counts])
    theta = flatten(model.theta)
    for _ in range(steps):
        mu = flatten(clique_marginals(model.engine.infer(unflatten(theta, model.domain, model.cliques)), model.cliques))
        gradient = statistics - n * mu + rng.normal(0.0, z * sensitivity, size=theta.size)
        theta = theta + learning_rate * (gradient / n - 2 * lam * theta)
    return model.with_theta(unflatten(theta, model.domain, model.cliques))
