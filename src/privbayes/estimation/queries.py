"""A measured table as a linear query A_i on the leaf domain of its attributes (ICML 2019, §3).

A generalised axis (a taxonomy level above the leaves) sums the leaf cells of each of its values, so
A_i μ maps a leaf marginal to the measured cells and Aᵀ spreads a measured cell's value back to its
leaves.  :mod:`privbayes.estimation.consistent` iterates with both; :mod:`privbayes.estimation.potentials`
spreads stored log-potentials to rebuild the same model.
"""

from __future__ import annotations

import numpy as np

from privbayes.estimation.measurements import NoisyTable
from privbayes.schema.encoding import Encoding


class Query:
    """A_i: leaf marginal over a measurement's attributes → its (generalised) measured cells, and Aᵀ."""

    def __init__(self, encoding: Encoding, measurement: NoisyTable) -> None:
        attrs = encoding.attributes
        self.scope = tuple(a for a, _ in measurement.variables)
        self.levels = tuple(level for _, level in measurement.variables)
        self.maps = [np.asarray(attrs[a].levels[level], dtype=np.int64) for a, level in measurement.variables]
        self.shape = tuple(attrs[a].level_size(level) for a, level in measurement.variables)
        if self.shape != measurement.counts.shape:
            raise ValueError(f"the table of pair {measurement.pair + 1} has shape {measurement.counts.shape}, "
                             f"its variables {self.shape}")
        self.onehot = [np.eye(size)[m] if level else None for m, size, (_, level)
                       in zip(self.maps, self.shape, measurement.variables)]
        self.leaf = all(level == 0 for level in self.levels)  # A is the identity: nothing to map

    def project(self, leaf: np.ndarray) -> np.ndarray:
        """A μ: sum the leaf cells of each generalised parent value."""
        if self.leaf:
            return leaf
        for axis, onehot in enumerate(self.onehot):
            if onehot is not None:
                leaf = np.moveaxis(np.tensordot(leaf, onehot, axes=([axis], [0])), -1, axis)
        return leaf

    def spread(self, cells: np.ndarray) -> np.ndarray:
        """Aᵀ as a potential: every leaf cell gets the value of its generalised cell."""
        return cells if self.leaf else cells[np.ix_(*self.maps)]
