"""The Uniform baseline (TODS 2017, §6.1 (v)): every marginal is the uniform distribution.

It reads nothing but the public domain (the attribute sizes), so it is 0-DP: the
returned accountant has the requested ε as its total, an empty ledger and spent = 0.
The table argument only supplies the domain; its rows and n are never read.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from privbayes.baselines.common import MarginalRelease, SubsetsArg, marginal_shape, resolve_subsets
from privbayes.core.validation import check_epsilon
from privbayes.counting.base import PrivateTable
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import RandomSource


def uniform_marginals(
    table: PrivateTable,
    marginals: SubsetsArg,
    epsilon: float | Fraction = 1,
    rng: RandomSource | int | None = None,
) -> MarginalRelease:
    """Uniform marginals over ``marginals`` (α or subsets); spends nothing of ``epsilon``.

    ``epsilon`` and ``rng`` exist for a signature shared with the other baselines.
    """
    eps = check_epsilon(epsilon)
    subsets = resolve_subsets(table.encoding, marginals)
    released = {}
    for subset in subsets:
        shape = marginal_shape(table.encoding, subset)
        released[subset] = np.full(shape, 1.0 / float(np.prod(shape)))
    return MarginalRelease(released, Accountant(eps), False)
