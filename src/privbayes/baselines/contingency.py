"""The Contingency baseline (TODS 2017, §6.1 (iv)).

The full contingency table over all attributes is released with discrete Laplace
noise on every cell (empty cells included): its L1 sensitivity under "replace one
tuple, n public" is 2, so scale 2/ε is ε-DP (one ledger entry).  Consistency is
applied to the full table (non-negativity, then normalisation), and the α-way
marginals are its projections, which are therefore already consistent with each other.

Cost.  The noise is exact (discrete Laplace from integer arithmetic) and drawn one
cell at a time in pure Python: roughly 15-25 µs per cell with a seeded source and
50-80 µs with the OS CSPRNG.  Measured at ε = 0.4: NLTCS (2^16 cells) 1.8 s seeded,
6.3 s unseeded; ACS (2^23 cells) 2 min seeded, 11.5 min unseeded.  ``max_cells`` (default 2^24) refuses
larger domains with a clear error.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from privbayes.baselines.common import (
    DEFAULT_MAX_CELLS,
    MarginalRelease,
    SubsetsArg,
    as_random_source,
    consistent,
    full_domain_cells,
    project_marginals,
    resolve_subsets,
)
from privbayes.core.validation import check_epsilon
from privbayes.counting.base import PrivateTable
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import COUNT_TABLE_SENSITIVITY, laplace_counts
from privbayes.privacy.samplers import RandomSource


def contingency_marginals(
    table: PrivateTable,
    marginals: SubsetsArg,
    epsilon: float | Fraction,
    rng: RandomSource | int | None = None,
    *,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> MarginalRelease:
    """Release the marginals over ``marginals`` (α or subsets) as projections of a noisy
    full contingency table, ε-DP.  ``rng`` as in
    :func:`privbayes.baselines.laplace.laplace_marginals`."""
    eps = check_epsilon(epsilon)
    source = as_random_source(rng)
    subsets = resolve_subsets(table.encoding, marginals)
    cells = full_domain_cells(table, max_cells, "Contingency")
    accountant = Accountant(eps)
    everything = list(range(len(table.encoding.attributes)))
    noisy = laplace_counts(
        table.counts(everything),
        eps,
        accountant,
        source,
        step="Contingency table",
        measured=f"full contingency table ({cells:,} cells)",
        sensitivity=COUNT_TABLE_SENSITIVITY,
    )
    # Non-negativity on the full table; normalisation is per marginal below, which is
    # the same as normalising the table first (every projection has the table's total),
    # and keeps the projection in exact integers.
    clipped = np.maximum(noisy, 0)
    projections = project_marginals(clipped, subsets)
    return MarginalRelease({s: consistent(p) for s, p in zip(subsets, projections)}, accountant, source.seeded)
