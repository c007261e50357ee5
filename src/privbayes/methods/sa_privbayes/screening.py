"""Threshold screening of candidate AP pairs before the exponential mechanism
(SA-PrivBayes, Future Internet 2026, Alg. 1 lines 9-18; λ, fuzzy coefficient α, budget ε_τ).

λ is the fraction of candidates a step keeps: τ0 is the score at position ⌈λ|Ω|⌉ of the list
sorted by descending score (§4.1: pairs "below the λ-th position" are filtered; §5.4: λ = 1/2
filters more than λ = 3/4).  Two rules:

* :func:`paper_screening` (faithful mode) — Alg. 1 as written: τ = τ0 + Lap(Δf/ε_τ), then each
  candidate's EXACT score is compared with τ ± Δf·ln(1/α)/ε_τ; above keeps, below removes, in
  between keeps with probability α ("Skip" = keep, as in line 13).  NOT differentially private:
  only τ is noised, and every comparison of an exact score with the same noisy threshold
  reveals more about the scores — the misuse of the sparse vector technique analysed by Lyu,
  Su and Li (PVLDB 2017: the variant without noise on the queries is not ε'-DP for any finite
  ε').  The test suite's distinguishing audit rejects it on neighbouring tables.
* :func:`private_top_fraction` (strict mode) — keep the ⌈λ|Ω|⌉ candidates of highest
  *already-noised* score, ties broken by list position.  Proof: the scores are a function of a
  release that was paid for (the noisy MIM of :mod:`privbayes.methods.sa_privbayes.ami`, whose entries every
  candidate's score Σ_{p∈Π} MIM[X, p] is read from), and the list Ω and λ are public, so the
  kept set is post-processing and costs nothing more (Dwork & Roth 2014, Prop. 2.1).  The
  exponential mechanism that follows runs on a candidate set fixed by that earlier release, so
  it is ε_i-DP conditionally on it and adaptive sequential composition gives the sum.
  :func:`strict_screening` wires it to a private MIM and refuses an exact one.

Decision (strict rule).  A correctly accounted sparse vector (noise on the threshold and on
every query, Lyu et al. Alg. 1) must pay for every "keep" (or every "remove") answer it gives:
with c answers per step, query noise of scale 2cΔf/ε per step.  A step keeps ⌈λ|Ω|⌉ of |Ω| = C(i−1, k)
candidates, so c is in the tens to hundreds and the noise swamps the scores; and there are d − 1
steps.  The noisy MIM, in contrast, is bought once (P = d(d−1)/2 values) and then serves the AMI
order, the first node, the screening of every step and the budget weights.  The fuzzy band α is
a device for comparing exact scores with a noisy threshold; the strict rule has no such
comparison, so α is a faithful-mode parameter only (a band at small ε would discard a fraction
1 − α of all candidates at random).

Both rules keep the whole list if nothing survives (Alg. 1 does not say; an empty Ω would leave
the exponential mechanism nothing to choose from).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from privbayes.core.errors import InputError
from privbayes.methods.sa_privbayes.ami import MutualInformationMatrix, ScoreLattice
from privbayes.privacy.accountant import Accountant, as_fraction
from privbayes.privacy.mechanisms import laplace_counts
from privbayes.privacy.samplers import RandomSource


def _rational(value: float | Fraction) -> Fraction:
    """A hyper-parameter as the decimal the user wrote (0.5 → 1/2; pass Fraction(2, 3) for two thirds)."""
    return value if isinstance(value, Fraction) else Fraction(str(value))


def keep_count(candidates: int, keep_fraction: float | Fraction) -> int:
    """⌈λ·|Ω|⌉, at least 1: how many candidates a step keeps (the position of τ0)."""
    lam = _rational(keep_fraction)
    if not 0 < lam <= 1:
        raise InputError(f"lambda ({keep_fraction}) must be in (0, 1]")
    if candidates < 1:
        raise ValueError(f"screening needs at least one candidate, got {candidates}")
    return max(1, math.ceil(lam * candidates))


def _bernoulli(p: Fraction, rng: RandomSource) -> bool:
    """True with probability exactly p (rational)."""
    return rng.randbelow(p.denominator) < p.numerator


def paper_screening(scores: Sequence[float], keep_fraction: float | Fraction, alpha: float | Fraction,
                    epsilon: float | Fraction, sensitivity: float | Fraction, accountant: Accountant,
                    rng: RandomSource, *, step: str) -> tuple[int, ...]:
    """Positions of the candidates Alg. 1 (lines 9-18) keeps, from EXACT ``scores``.  NOT private.

    Charges ``epsilon`` for the noisy threshold τ (on the lattice of ``sensitivity``, the Δf of
    the scores; the λ-quantile of scores moving by ≤ Δf moves by ≤ Δf).
    """
    values = np.asarray(scores, dtype=np.float64)
    a = _rational(alpha)
    if not 0 < a < 1:
        raise InputError(f"alpha ({alpha}) must be in (0, 1)")
    eps = as_fraction(epsilon)
    tau0 = np.sort(values)[::-1][keep_count(len(values), keep_fraction) - 1]
    lattice = ScoreLattice.for_sensitivity(float(sensitivity))
    units = lattice.units(sensitivity)
    noisy = laplace_counts(lattice.round(np.array([tau0])), eps, accountant, rng, step=step, sensitivity=units,
                           measured=f"screening threshold (λ-quantile of {len(values)} scores) on the lattice "
                                    f"γ = {lattice.gamma} (sensitivity in lattice units)")
    tau = float(lattice.value(noisy)[0])
    half_width = float(sensitivity) * math.log(1 / float(a)) / float(eps)
    kept = []
    for position, score in enumerate(values.tolist()):
        if score > tau + half_width or (score >= tau - half_width and _bernoulli(a, rng)):
            kept.append(position)
    return tuple(kept) if kept else tuple(range(len(values)))


def private_top_fraction(noisy_scores: Sequence[float], keep_fraction: float | Fraction) -> tuple[int, ...]:
    """Positions of the ⌈λ|Ω|⌉ highest already-noised scores, ties by position, in list order.

    Post-processing: pass only scores derived from a paid-for release."""
    values = np.asarray(noisy_scores, dtype=np.float64)
    top = np.argsort(-values, kind="stable")[:keep_count(len(values), keep_fraction)]
    return tuple(sorted(int(i) for i in top))


def strict_screening(mim: MutualInformationMatrix, child: int, parent_sets: Sequence[Sequence[int]],
                     keep_fraction: float | Fraction) -> tuple[int, ...]:
    """Strict screening of the candidates (child, Π) for Π in ``parent_sets`` (attribute indices):
    top ⌈λ|Ω|⌉ by Σ_{p∈Π} MIM[child, p] of a PRIVATE matrix; costs nothing beyond the matrix."""
    if not mim.is_private:
        raise ValueError("strict screening needs a mutual-information matrix released through a mechanism, "
                         "not the exact one")
    return private_top_fraction([mim.total(child, parents) for parents in parent_sets], keep_fraction)
