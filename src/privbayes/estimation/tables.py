"""Probability tables: a conditional from a joint, as the released models store them (TODS 2017, Alg. 1/3)."""

from __future__ import annotations

import numpy as np


def conditional_from_joint(joint: np.ndarray) -> np.ndarray:
    """Pr[X | Π] from a joint over (Π…, X); empty parent rows use Pr[X] (or uniform)."""
    flat = joint.reshape(-1, joint.shape[-1])
    mass = flat.sum(axis=1, keepdims=True)
    marginal = flat.sum(axis=0)
    fallback = marginal / marginal.sum() if marginal.sum() > 0 else np.full(flat.shape[1], 1.0 / flat.shape[1])
    cond = np.where(mass > 0, flat / np.where(mass > 0, mass, 1.0), fallback)
    return cond.reshape(joint.shape)
