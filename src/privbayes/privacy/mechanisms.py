"""Mechanisms that turn exact statistics into paid-for, private ones.

Each mechanism debits the accountant itself, so the ledger is written by the
mechanism and never by hand.  Proof sketches:

* Laplace on counts: a contingency table changes by at most 2 in L1 when one
  tuple is replaced (one cell −1, another +1), so discrete Laplace noise of
  scale 2/ε on *every* cell (empty cells included) is ε-DP.  In probability
  units this is the paper's Lap(2/(nε)) with sensitivity 2/n (TODS 2017, §3).
* Exponential mechanism: selecting ω with probability ∝ exp(ε·u(ω)/(2Δ)) is
  ε-DP when Δ bounds the change of every score u(ω) between neighbours
  (McSherry & Talwar 2007; TODS 2017, §2.1).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from privbayes.privacy.accountant import Accountant, as_fraction
from privbayes.privacy.samplers import RandomSource, discrete_laplace, exponential_choice

COUNT_TABLE_SENSITIVITY = 2
"""L1 change of a count table when one tuple is replaced."""


def laplace_counts(
    counts: np.ndarray,
    epsilon: float | Fraction,
    accountant: Accountant,
    rng: RandomSource,
    *,
    step: str,
    measured: str,
    sensitivity: int = COUNT_TABLE_SENSITIVITY,
) -> np.ndarray:
    """Noisy integer counts: every cell plus discrete Laplace of scale sensitivity/ε."""
    eps = as_fraction(epsilon)
    accountant.charge(eps, step=step, mechanism="discrete Laplace", sensitivity=sensitivity, measured=measured)
    exact = np.asarray(counts, dtype=np.int64)
    noise = discrete_laplace(Fraction(sensitivity) / eps, exact.size, rng)
    return exact + noise.reshape(exact.shape)


def exponential_mechanism(
    scores: Sequence[float],
    epsilon: float | Fraction,
    sensitivity: float,
    accountant: Accountant,
    rng: RandomSource,
    *,
    step: str,
    measured: str,
) -> int:
    """Index of the chosen candidate, with probability ∝ exp(ε·score/(2·sensitivity))."""
    if len(scores) == 0:
        raise ValueError(f"step {step!r}: the exponential mechanism needs at least one candidate")
    eps = as_fraction(epsilon)
    accountant.charge(eps, step=step, mechanism="exponential", sensitivity=sensitivity, measured=measured)
    return exponential_choice(scores, eps / (2 * as_fraction(sensitivity)), rng)
