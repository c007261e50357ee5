"""The paid-for measurements of a PrivBayes fit, kept raw for estimation (TODS 2017, Alg. 1 and Alg. 3).

Each measurement is the noisy count table of one AP pair's (Π_i, X_i) — parents possibly
generalised, so the table is a linear query on the leaf domain of the pair's attributes —
with the scale of the discrete Laplace noise that the plan priced
(:class:`privbayes.estimation.measurements.NoisyTable`).  The releases are the
same, in the same order, under the same step names and from the same random source as
:func:`privbayes.bayesnet.conditionals.noisy_conditionals`, so a seeded fit measures the
same numbers whichever estimation follows, and the ledger matches the same plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from privbayes.bayesnet.network import Network, Parent
from privbayes.counting import PrivateTable
from privbayes.counting.base import count_batch
from privbayes.estimation.measurements import NoisyTable
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import (
    COUNT_TABLE_SENSITIVITY,
    DiscreteLaplace,
    laplace_counts,
)
from privbayes.privacy.samplers import RandomSource


def family_variables(network: Network, i: int) -> tuple[Parent, ...]:
    """Axes of pair i's joint table: its parents, then the child at level 0."""
    pair = network.pairs[i]
    return tuple(pair.parents) + ((pair.child, 0),)


def measure_tables(table: PrivateTable, network: Network, budgets: Mapping[int, Fraction | None],
                   accountant: Accountant | None, rng: RandomSource,
                   sensitivity: Fraction = COUNT_TABLE_SENSITIVITY) -> tuple[NoisyTable, ...]:
    """The noisy table of every measured pair (``budgets``: pair index → ε from the plan, or
    ``None`` for exact counts), each release charged to ``accountant`` by its mechanism at the
    neighbouring relation's count ``sensitivity``."""
    d = len(network.pairs)
    out = []
    pairs = sorted(budgets)
    # Every pair's table in one counting batch (the back-end counts shared supersets once); the
    # releases then follow in the plan's order, so the noise drawn is the same as table by table.
    axes_of = [family_variables(network, i) for i in pairs]
    tables = count_batch(table, [([a for a, _ in axes], [lvl for _, lvl in axes]) for axes in axes_of])
    for i, axes, exact in zip(pairs, axes_of, tables):
        share = budgets[i]
        if share is None:
            out.append(NoisyTable(i, axes, exact, None))
            continue
        if accountant is None:
            raise ValueError("a measured table needs an accountant")
        noisy = laplace_counts(exact, share, accountant, rng, step=f"conditional {i + 1}/{d}",
                               measured=f"{exact.size}-cell table of AP pair {i + 1}", sensitivity=sensitivity)
        out.append(NoisyTable(i, axes, noisy, DiscreteLaplace(share, sensitivity).scale))
    return tuple(out)
