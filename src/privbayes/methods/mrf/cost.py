"""The cost of a private-MRF fit, from its plan and the public domain.

A private MRF (ICML 2017) counts one table per
clique and fits θ on the cliques' junction tree (exact inference) for a few hundred iterations.
Constants: :mod:`privbayes.synthesizers.costs`.
"""

from __future__ import annotations

from collections.abc import Sequence

from privbayes.privacy.plan import BudgetPlan
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers import costs
from privbayes.synthesizers.costs import CostEstimate

MRF_ITERATIONS = 200
"""Calibrations of the junction tree an MRF fit is taken to run (CGM-EM / MLE, ICML 2017 §3)."""


def mrf_cost(plan: BudgetPlan, encoding: Encoding, cliques: Sequence[Sequence[int]], n: int) -> CostEstimate:
    """:class:`~privbayes.synthesizers.costs.CostEstimate` of a private-MRF fit over ``cliques`` (attribute indices)
    on n rows (under add/remove: an assumed n, public)."""
    from privbayes.files.blocks import encoded_size
    from privbayes.inference import Domain, build_junction_tree

    sizes = tuple(a.size for a in encoding.attributes)
    domain = Domain(sizes)
    clique_cells = [domain.cells(tuple(c)) for c in cliques]
    tree = build_junction_tree(domain, [tuple(c) for c in cliques])
    tree_cells = sum(domain.cells(c) for c in tree.cliques)
    rows = costs.distinct_rows(n, encoding)
    work = {**costs.read_work(n, encoding), "pair": float(len(cliques)), "pair_rows": float(len(cliques)) * rows,
            "model_cells": float(MRF_ITERATIONS) * tree_cells}
    memory = {**costs.read_work(n, encoding), "model_cells": float(tree_cells) + sum(clique_cells)}
    header = 4096 + 2 * len(str(plan.to_dict())) + 256 * len(sizes)
    file_bytes = header + sum(200 + encoded_size(c) for c in clique_cells)
    return costs.estimate("mrf", work, memory, 64 * (tree_cells + sum(clique_cells)), file_bytes,
                          largest_cells=max(clique_cells, default=1))
