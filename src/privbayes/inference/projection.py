"""Euclidean projection onto the probability simplex (Duchi, Shalev-Shwartz, Singer & Chandra,
ICML 2008, Fig. 1): sort, find the threshold ρ, shift and clip.  Naive MLE projects each
noisy clique marginal y_C / N this way before fitting (ICML 2017, §3.1); PrivBayes's consistent
estimation solves its one-table components this way (the exact minimiser of their squared loss)."""

from __future__ import annotations

import numpy as np


def project_simplex(values: np.ndarray) -> np.ndarray:
    """argmin_{w ≥ 0, Σw = 1} ‖w − values‖₂, same shape as ``values``."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0:
        raise ValueError("cannot project an empty vector onto the simplex")
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    index = np.arange(1, v.size + 1)
    rho = np.nonzero(u - cumulative / index > 0)[0][-1]
    shift = cumulative[rho] / (rho + 1)
    return np.maximum(v - shift, 0.0).reshape(np.shape(values))
