"""The paid-for measurements of a PrivBayes fit, kept raw for estimation (TODS 2017, Alg. 1 and Alg. 3).

Each measurement is the noisy count table of one AP pair's (Π_i, X_i) — parents possibly
generalised, so the table is a linear query on the leaf domain of the pair's attributes —
with the scale of the discrete Laplace noise that the plan priced, or under zCDP the discrete Gaussian's σ² at the
plan's ρ (:class:`privbayes.estimation.measurements.NoisyTable`).  The releases are the
same, in the same order, under the same step names and from the same random source as
:func:`privbayes.bayesnet.conditionals.noisy_conditionals`, so a seeded fit measures the
same numbers whichever estimation follows, and the ledger matches the same plan.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from privbayes.bayesnet.network import Network, Parent
from privbayes.counting import PrivateTable
from privbayes.counting.base import count_batch
from privbayes.estimation.measurements import NoisyTable
from privbayes.privacy.accountant import Accountant, ZCDPAccountant
from privbayes.privacy.mechanisms import (
    COUNT_TABLE_SENSITIVITY,
    DiscreteLaplace,
    laplace_counts,
)
from privbayes.privacy.samplers import RandomSource
from privbayes.privacy.zcdp_mechanisms import gaussian


def family_variables(network: Network, i: int) -> tuple[Parent, ...]:
    """Axes of pair i's joint table: its parents, then the child at level 0."""
    pair = network.pairs[i]
    return tuple(pair.parents) + ((pair.child, 0),)


def measure_tables(table: PrivateTable, network: Network, budgets: Mapping[int, Fraction | None],
                   accountant: Accountant | ZCDPAccountant | None, rng: RandomSource,
                   sensitivity: Fraction = COUNT_TABLE_SENSITIVITY, *,
                   l2_sensitivity: Fraction | None = None) -> tuple[NoisyTable, ...]:
    """The noisy table of every measured pair (``budgets``: pair index → ε from the plan, or
    ``None`` for exact counts), each release charged to ``accountant`` by its mechanism at the
    neighbouring relation's count ``sensitivity``.  With ``l2_sensitivity`` (a zCDP fit) the budgets are ρ and
    each table gets the discrete Gaussian of cost ρ at that L2 sensitivity (σ² = Δ²/(2ρ))."""
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
        step, measured = f"conditional {i + 1}/{d}", f"{exact.size}-cell table of AP pair {i + 1}"
        if l2_sensitivity is not None:
            if not isinstance(accountant, ZCDPAccountant):
                raise TypeError("a discrete Gaussian is charged to a zCDP accountant")
            mechanism = gaussian(share, l2_sensitivity)
            noisy = mechanism.release(exact, accountant, rng, step=step, measured=measured)
            out.append(NoisyTable(i, axes, noisy, Fraction(math.sqrt(float(mechanism.sigma2))), mechanism.sigma2))
            continue
        if isinstance(accountant, ZCDPAccountant):
            raise TypeError("a pure plan's tables are charged to a pure accountant")
        noisy = laplace_counts(exact, share, accountant, rng, step=step, measured=measured, sensitivity=sensitivity)
        out.append(NoisyTable(i, axes, noisy, DiscreteLaplace(share, sensitivity).scale))
    return tuple(out)
