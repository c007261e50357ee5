"""The cost of SA-PrivBayes and private-MRF fits, from their plans and the public domain (issue 32).

SA-PrivBayes (Future Internet 2026, Alg. 1-2) counts every 2-way table once for its mutual-information
matrix, scores the k-subsets of the placed attributes from that matrix (no further counting) and
measures d − k noisy tables of k + 1 attributes.  A private MRF (ICML 2017) counts one table per
clique and fits θ on the cliques' junction tree (exact inference) for a few hundred iterations.
Constants: :mod:`privbayes.costs`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from privbayes import costs
from privbayes.costs import CostEstimate
from privbayes.encoding import Encoding
from privbayes.privacy.plan import BudgetPlan

MRF_ITERATIONS = 200
"""Calibrations of the junction tree an MRF fit is taken to run (CGM-EM / MLE, ICML 2017 §3)."""


def sa_cost(plan: BudgetPlan, encoding: Encoding) -> CostEstimate:
    """:class:`~privbayes.costs.CostEstimate` of an SA-PrivBayes fit with ``plan`` on ``encoding``."""
    from privbayes.bayesnet.privbayes.cost import model_file_bound

    n, k = plan.setting("n"), plan.setting("degree")
    sizes = [a.size for a in encoding.attributes]
    d = len(sizes)
    rows = costs.distinct_rows(n, encoding)
    two_way = d * (d - 1) // 2
    two_cells = sum(sizes[i] * sizes[j] for i in range(d) for j in range(i + 1, d))
    largest = math.prod(sorted(sizes)[-(k + 1):]) if k else max(sizes)
    scored = sum(math.comb(i, min(k, i)) * (d - i) for i in range(1, d))
    work = {**costs.read_work(n, encoding), "pair": float(two_way + scored + d),
            "pair_rows": float(two_way + d) * rows, "pair_cells": float(two_cells + d * largest)}
    memory = {**costs.read_work(n, encoding), "pair_cells": float(two_cells + d * largest)}
    return costs.estimate("sa-privbayes", work, memory, 16 * (two_cells + d * largest),
                          model_file_bound(plan, encoding, largest, k), largest_cells=largest)


def mrf_cost(plan: BudgetPlan, encoding: Encoding, cliques: Sequence[Sequence[int]], n: int) -> CostEstimate:
    """:class:`~privbayes.costs.CostEstimate` of a private-MRF fit over ``cliques`` (attribute indices)
    on n rows (under add/remove: an assumed n, public)."""
    from privbayes.blocks import encoded_size
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
