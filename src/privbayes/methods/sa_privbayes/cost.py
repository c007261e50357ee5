"""The cost of an SA-PrivBayes fit, from its plan and the public domain.

SA-PrivBayes (Future Internet 2026, Alg. 1-2) counts every 2-way table once for its mutual-information
matrix, scores the k-subsets of the placed attributes from that matrix (no further counting) and
measures d − k noisy tables of k + 1 attributes.  Constants: :mod:`privbayes.synthesizers.costs`.
"""

from __future__ import annotations

import math

from privbayes.counting.base import CountingPlace
from privbayes.methods.privbayes.cost import model_file_bound
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers import costs
from privbayes.synthesizers.costs import CostEstimate


def sa_cost(plan: BudgetPlan, encoding: Encoding, counting: CountingPlace | None = None) -> CostEstimate:
    """:class:`~privbayes.synthesizers.costs.CostEstimate` of an SA-PrivBayes fit with ``plan`` on ``encoding``."""
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
    memory = {**costs.held_memory(n, encoding, counting), "pair_cells": float(two_cells + d * largest)}
    if costs.streamed(n, encoding, counting):  # the 2-way tables, then the measured ones: a pass each
        work["stream_rows"] = 2.0 * n * d
    return costs.estimate("sa-privbayes", work, memory, 16 * (two_cells + d * largest),
                          model_file_bound(plan, encoding, largest, k), largest_cells=largest)
