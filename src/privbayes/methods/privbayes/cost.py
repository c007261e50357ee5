"""What a fit will cost, estimated from public inputs only (parameters, schema, n) before any count.

Used by ``privbayes fit`` (printed on ``--dry-run``, a warning above a minute) and by
``PrivBayes.fit``, which refuses a fit whose memory estimate exceeds
``limits().max_fit_bytes`` before reading a single count.
"""

from __future__ import annotations

import math
from fractions import Fraction

from privbayes.bayesnet.candidates import candidate_cap, count_parent_sets, level_sizes, parent_bound
from privbayes.bayesnet.greedy import FILL_CELLS
from privbayes.bayesnet.parentsets import ParentSet, maximal_parent_sets
from privbayes.counting.base import CountingPlace
from privbayes.methods.privbayes.settings import METHOD, PrivBayesSettings
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers import costs
from privbayes.synthesizers.costs import CostEstimate, check_cost

__all__ = ["CostEstimate", "check_cost", "cost_estimate", "model_file_bound", "privbayes_work", "search_work",
           "table_bounds"]


def cost_estimate(settings: PrivBayesSettings, plan: BudgetPlan, encoding: Encoding, *,
                  counting: CountingPlace | None = None, detailed: bool = True) -> CostEstimate:
    """:class:`CostEstimate` of a fit with ``settings`` on ``encoding`` with budget ``plan``.

    GreedyBayes (TODS 2017, Alg. 4) scores, at each step, every maximal θ-useful parent set
    (Alg. 5/6) of every remaining child; their number, not the size of one table, drives time
    and memory.  ``candidates`` bounds the last step's count from above (all generalised subsets
    within the bound τ of the smallest child, capped by the public candidate cap of
    :mod:`candidates` as GreedyBayes caps it); ``largest_cells`` is the largest noisy table
    (τ·|dom(X)|, Alg. 4 line 6); with a fixed degree k (binary encodings) the candidates are the
    k-subsets of the placed attributes.  The time counts every (child, parent set) pair the search
    scores (:func:`search_work`), the rows each pair's count visits, and the tables consistent
    estimation fits (:mod:`privbayes.synthesizers.costs`); ``counting`` says where the table is counted (default: in
    memory; an engine streaming its rows adds a pass over them per batch); ``detailed=False`` skips the search's
    count (a library fit's guard, which prints nothing: the table's memory and the working memory only)."""
    attrs = encoding.attributes
    d, k, n = len(attrs), plan.setting("degree"), plan.setting("n")
    sizes = sorted(a.size for a in attrs)
    if k is not None:
        candidates = max(math.comb(d - 1, k), 1) if k else 1
        largest = math.prod(sizes[-(k + 1):]) if k else sizes[-1]
        per_candidate = 2 ** (k + 1)
        tables = None
    else:
        eps2 = settings.usefulness_epsilon(len(encoding.attributes))
        delta = settings.relation.count_sensitivity
        cap = candidate_cap(encoding)  # the bound GreedyBayes and the plan use (candidates.py)
        small = min(range(d), key=lambda j: attrs[j].size)
        bound = parent_bound(n, d, eps2, settings.theta, attrs[small].size, cap, delta)
        levels = [[a.level_size(i) for i in range(a.height)] for j, a in enumerate(attrs) if j != small]
        candidates = count_parent_sets(levels, bound)
        largest = min(parent_bound(n, d, eps2, settings.theta, sizes[-1], cap, delta) * sizes[-1], math.prod(sizes))
        per_candidate = max(1, bound)
        tables = theta_table_bounds(settings, plan, encoding)
    work, memory = privbayes_work(settings, plan, encoding, int(largest), counting) if detailed else ({}, {})
    passes = work.pop("passes", 0.0)
    streamed = costs.streamed(n, encoding, counting)
    if streamed:
        work["stream_rows"] = passes * n * len(attrs)
    return costs.estimate(METHOD, {**costs.read_work(n, encoding, streamed), **work},
                          {**costs.held_memory(n, encoding, counting), **memory},
                          candidates * per_candidate + 32 * int(largest),
                          model_file_bound(plan, encoding, int(largest), k, tables), candidates=candidates,
                          largest_cells=int(largest))


def privbayes_work(settings: PrivBayesSettings, plan: BudgetPlan, encoding: Encoding, largest: int,
                   counting: CountingPlace | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """The named work and memory counts of a PrivBayes fit (keys of :data:`privbayes.synthesizers.costs.SECONDS`
    and :data:`~privbayes.synthesizers.costs.BYTES`), from the plan and the domain, and under "passes" the batches
    the search and the measurements count (a pass each over streamed rows)."""
    n, k, d = plan.setting("n"), plan.setting("degree"), len(encoding.attributes)
    pairs, cells, step_cells = search_work(settings, plan, encoding)
    rows = costs.distinct_rows(n, encoding)
    compiled = encoding.is_binary and all(a.height == 1 for a in encoding.attributes) and k is not None
    model = d * largest if settings.estimation == "consistent" else 0
    # Binary data with a fixed degree (ACS, NLTCS: Lemma 4.8's k) takes its own path: the families are
    # counted by compiled kernels, many per pass, and each pair is scored by F's dynamic program over
    # its 2 × 2^k table (TODS 2017 §4.4; fscore.py) — a cost per pair of its own, and the kernels'
    # compilation once per process.
    # From streamed rows (an engine's, too many to hold) the bases are planned at the asked levels and kept across
    # steps (counting/engine.py): fewer, smaller tables a pair than in memory, where leaf tables are cached.
    regime = ("binary_pair_rows" if compiled else "streamed_pair_rows" if costs.streamed(n, encoding, counting)
              else "covered_pair_rows" if rows >= costs.COVER_ROWS else "pair_rows")
    work: dict[str, float] = {("binary_pair" if compiled else "pair"): pairs, regime: pairs * rows,
                              "pair_cells": cells, "model_cells": model,
                              "numba": 1.0 if compiled else costs.numba_loaded(float(pairs) * rows)}
    work["passes"] = float(d + 1)  # a batch per GreedyBayes step, and the measurements
    memory: dict[str, float] = {"model_cells": model, "numba": work["numba"]}
    if compiled:  # binary families, FILL_CELLS a batch, with F's integer intermediates
        memory["binary_cells"] = min(step_cells, FILL_CELLS)
    else:  # the θ path's largest counting batch (search_work), and the generalised code columns
        # Up to FILL_CELLS (the batch size the search aims at) the peak grows with the estimate;
        # beyond it, measured peaks (10⁵-2·10⁶ rows) grow as its square root (the estimate ignores
        # the leaf cache's eviction and the tables' sharing of one leaf count).
        memory["pair_cells"] = float(step_cells) if step_cells <= FILL_CELLS else math.sqrt(step_cells * FILL_CELLS)
        if counting is None or not counting.in_engine:  # an engine's rows: streamed, or held (costs.held_memory)
            memory["columns"] = float(rows) * sum(a.height for a in encoding.attributes)
    return work, memory


def search_work(settings: PrivBayesSettings, plan: BudgetPlan, encoding: Encoding) -> tuple[int, int, int]:
    """(pairs, cells, cells held at once) that GreedyBayes scores: every (child, parent set)
    pair is scored once (its score never changes), so the count is the new pairs of each step.  The
    order in which the search places attributes depends on the data; here the schema's order stands
    in for it (public), and the candidate lists are those the search would list for that order."""
    attrs = encoding.attributes
    d, k, n = len(attrs), plan.setting("degree"), plan.setting("n")
    if k == 0 or d < 2:
        return 0, 0, 0
    sizes = [a.size for a in attrs]
    pairs = cells = largest_step = 0
    if k is not None:
        for i in range(1, d):  # i attributes placed, d − i children
            new = 1 if i <= k else math.comb(i - 1, k - 1)
            width = 2 ** min(k, i) if encoding.is_binary else _mean_product(sizes[:i], min(k, i))
            per_child = int(width * sum(sizes[i:]) / (d - i))
            pairs += new * (d - i)
            step = math.comb(i, min(k, i)) * (d - i) * per_child
            cells += new * (d - i) * per_child
            largest_step = max(largest_step, step)
        return pairs, cells, largest_step
    eps2 = settings.usefulness_epsilon(len(encoding.attributes))
    delta = settings.relation.count_sensitivity
    cap = candidate_cap(encoding)
    levels = level_sizes(encoding)
    seen: set[tuple[ParentSet, int]] = set()
    cacheable = min(2**20, costs.distinct_rows(n, encoding) // 2)
    leaves: set[frozenset[int]] = set()
    for i in range(1, d):
        placed = list(range(i))
        lists: dict[int, list[ParentSet]] = {}
        children: dict[int, int] = {}
        for child in range(i, d):
            bound = parent_bound(n, d, eps2, settings.theta, sizes[child], cap, delta)
            if bound not in lists:
                lists[bound] = maximal_parent_sets(placed, Fraction(bound), levels) or [frozenset()]
            children[bound] = children.get(bound, 0) + 1
        # The score book counts the new pairs of a candidate list in batches of parent sets of one
        # size, ``FILL_CELLS // (children << (size + 1))`` sets a batch (greedy.py): with
        # non-binary attributes a batch's tables hold more cells than that rule assumes, and the
        # in-memory back-end counts a table at leaf level (ungeneralised, to derive its variants)
        # whenever that has at most min(2^20, rows / 2) cells (counting/memory.py) — so the cells a
        # batch holds grow with n.  The largest batch is the search's peak working memory.
        for bound, options in lists.items():
            group = [c for c in range(i, d) if parent_bound(n, d, eps2, settings.theta, sizes[c], cap, delta) == bound]
            by_size: dict[int, list[ParentSet]] = {}
            for parents in options:
                fresh = [c for c in group if (parents, c) not in seen]
                if not fresh:
                    continue
                table = math.prod(levels[a][lvl] for a, lvl in parents)
                for c in fresh:
                    seen.add((parents, c))
                pairs += len(fresh)
                cells += table * sum(sizes[c] for c in fresh)
                by_size.setdefault(len(parents), []).append(parents)
            for size, sets in by_size.items():
                per_batch = max(1, FILL_CELLS // (children[bound] << (size + 1)))
                for first in range(0, len(sets), per_batch):
                    held = 0
                    for parents in sets[first:first + per_batch]:
                        attributes = frozenset(a for a, _ in parents)
                        leaf = math.prod(levels[a][0] for a in attributes)
                        for c in group:
                            if leaf * sizes[c] > cacheable:  # counted as asked, at its levels
                                held += sizes[c] * math.prod(levels[a][lvl] for a, lvl in parents)
                            elif attributes | {c} not in leaves:  # counted once at leaf level, then kept
                                leaves.add(attributes | {c})
                                held += leaf * sizes[c]
                    largest_step = max(largest_step, held)
    return pairs, cells, largest_step


def _mean_product(sizes: list[int], k: int) -> float:
    """The mean domain size of a k-subset of attributes of ``sizes`` (k small: the k-th power of the mean)."""
    return (sum(sizes) / len(sizes)) ** k if sizes else 1.0


def table_bounds(encoding: Encoding, largest_cells: int, degree: int | None) -> list[int]:
    """A bound on the cells of each of the d tables of a network (one per attribute, in any order).

    With a fixed degree k the attribute placed i-th has at most min(i, k) parents, so its table has at
    most the product of the min(i, k) + 1 largest domains (binary: 2^(min(i, k)+1)), whatever the
    data-dependent order; without one every table is taken at ``largest_cells``."""
    sizes = sorted((a.size for a in encoding.attributes), reverse=True)
    if degree is None:
        return [largest_cells] * len(sizes)
    return [min(largest_cells, math.prod(sizes[:min(i, degree) + 1])) for i in range(len(sizes))]


def theta_table_bounds(settings: PrivBayesSettings, plan: BudgetPlan, encoding: Encoding) -> list[int]:
    """Per attribute X, the cells of X's table under θ-usefulness (Alg. 4 line 6): |X| times its
    parent-domain bound τ(X) (capped as GreedyBayes caps it), and never more than the full domain."""
    eps2 = settings.usefulness_epsilon(len(encoding.attributes))
    n, d = plan.setting("n"), len(encoding.attributes)
    cap, delta = candidate_cap(encoding), settings.relation.count_sensitivity
    sizes = [a.size for a in encoding.attributes]
    total = math.prod(sizes)
    return [min(parent_bound(n, d, eps2, settings.theta, s, cap, delta) * s, total) for s in sizes]


def model_file_bound(plan: BudgetPlan, encoding: Encoding, largest_cells: int, degree: int | None,
                     tables: list[int] | None = None) -> int:
    """Bytes a PrivBayes model file can take at most, from public inputs (plan, domain, the τ bound).

    A version-4 file (:mod:`privbayes.bayesnet.model`) holds the schema, the plan and its ledger (one
    entry per planned release), one or two networks, and one array per attribute: a conditional, or
    with estimation="consistent" the log-potential of a measured table, which has the measured
    table's shape.  Every such table has at most ``largest_cells`` cells (TODS 2017, Alg. 4 line 6:
    τ·|dom(X)|; a fixed degree k: the k+1 largest attributes), and a compact block of c numbers takes
    at most :func:`privbayes.files.blocks.encoded_size` (c) characters (deflate's stored form, in base64),
    so d such blocks bound the arrays (tighter per table: :func:`table_bounds`, or ``tables`` given by
    the caller); the rest is measured on the plan and schema's own JSON, with
    room for the per-pair text.  Deflate usually writes far less: the bound is what a user can plan on."""
    import json

    from privbayes.files.blocks import encoded_size

    d = len(encoding.attributes)
    parents = d - 1 if degree is None else degree
    plan_text = len(json.dumps(plan.to_dict()))
    schema_text = len(json.dumps(encoding.schema.to_dict()))
    per_pair = 2 * (32 + 16 * parents) + 160  # two networks' entries, a block's or potential's keys
    cells = table_bounds(encoding, largest_cells, degree) if tables is None else tables
    return 4096 + schema_text + 2 * plan_text + d * per_pair + sum(encoded_size(c) for c in cells)
