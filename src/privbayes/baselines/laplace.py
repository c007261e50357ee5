"""The Laplace baseline: noise on every cell of every released marginal (TODS 2017, §6.1 (i)).

Dwork, McSherry, Nissim and Smith, "Calibrating noise to sensitivity in private data
analysis" (TCC 2006): each α-way marginal is computed exactly by the counting layer
and released with discrete Laplace noise on every cell, empty cells included, then made
consistent (non-negativity, normalisation).

Budget.  Under "replace one tuple, n public" one marginal's count table changes by at
most 2 in L1.  The budget ε is split evenly over the m = C(d, α) marginals and each
is released with ε/m at sensitivity 2 (noise scale 2m/ε); by sequential composition
the release is ε-DP.  This is the same noise as treating Qα as one query of L1
sensitivity 2m at budget ε.  The ledger has one entry per marginal, summing to ε
exactly (rational arithmetic).
"""

from __future__ import annotations

from fractions import Fraction

from privbayes.baselines.common import (
    MarginalRelease,
    SubsetsArg,
    as_random_source,
    consistent,
    resolve_subsets,
)
from privbayes.core.validation import check_epsilon
from privbayes.counting.base import PrivateTable
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import COUNT_TABLE_SENSITIVITY, laplace_counts
from privbayes.privacy.samplers import RandomSource


def laplace_marginals(
    table: PrivateTable,
    marginals: SubsetsArg,
    epsilon: float | Fraction,
    rng: RandomSource | int | None = None,
) -> MarginalRelease:
    """Release the marginals over ``marginals`` (α, or a list of attribute subsets), ε-DP.

    ``rng``: the DP random source (None: the OS CSPRNG; an int: a seeded, reproducible run).
    Returns the consistent marginals (probability arrays) and the accountant.
    """
    eps = check_epsilon(epsilon)
    source = as_random_source(rng)
    subsets = resolve_subsets(table.encoding, marginals)
    accountant = Accountant(eps)
    share = eps / len(subsets)
    names = [a.name for a in table.encoding.attributes]
    released = {}
    for subset in subsets:
        noisy = laplace_counts(
            table.counts(subset),
            share,
            accountant,
            source,
            step=f"Laplace marginal {subset}",
            measured=f"counts over ({', '.join(names[a] for a in subset)})",
            sensitivity=COUNT_TABLE_SENSITIVITY,
        )
        released[subset] = consistent(noisy)
    return MarginalRelease(released, accountant, source.seeded)
