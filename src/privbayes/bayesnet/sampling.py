"""Ancestral sampling from a network and its conditionals (TODS 2017, §3, "Generation of synthetic data").

Sampling reads only the released model, never the data: it is post-processing.
Parents that enter a pair generalised are generalised before look-up (§5.2).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from privbayes.bayesnet.network import Network
from privbayes.encoding import Encoding

_CHUNK = 65536


def ancestral_sample(
    network: Network, conditionals: Sequence[np.ndarray], encoding: Encoding, n: int, rng: np.random.Generator
) -> np.ndarray:
    """``n`` rows of encoded codes drawn from Π_i Pr*[X_i | Π_i]."""
    attrs = encoding.attributes
    out = np.zeros((n, len(attrs)), dtype=np.int64)
    for pair, cond in zip(network.pairs, conditionals):
        size = attrs[pair.child].size
        rows = np.zeros(n, dtype=np.int64)
        for a, level in pair.parents:
            rows = rows * attrs[a].level_size(level) + attrs[a].levels[level][out[:, a]]
        cdf = np.cumsum(cond.reshape(-1, size), axis=1)
        draws = rng.random(n)
        for start in range(0, n, _CHUNK):  # bounded memory: _CHUNK × |dom(X)| comparisons at a time
            part = slice(start, start + _CHUNK)
            picked = (draws[part, None] >= cdf[rows[part]]).sum(axis=1)
            out[part, pair.child] = np.minimum(picked, size - 1)
    return out
