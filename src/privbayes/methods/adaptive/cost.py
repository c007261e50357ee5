"""The cost of an adaptive fit, from its plan and the public domain
(docs/decisions.md, "A cost model from public work counts").

The fit (:mod:`privbayes.methods.adaptive.rounds`) counts every candidate marginal once (AIM's candidates:
all 1..degree-way leaf marginals that fit the table cap), then runs T rounds (the plan's
``rounds``); each round scores every candidate against the current model's marginal and re-fits the
model by mirror descent on its junction tree (50 warm-started iterations; the last fit runs to its
stopping rule).  The work is therefore K·rows (counting), T·K and T·(candidate cells) (scoring),
Σ_t (model cells at round t) (re-fitting) and the last model's cells (its fit to convergence).
Which marginals the rounds select depends on the data; the model after t rounds is taken as the
first measurements (the 1-way marginals, or the network's tables) plus t selections of the
candidates' mean size, capped at ``max_model_cells``.  Above the large signal the re-fits start matched
(:func:`privbayes.methods.adaptive.rounds.refits_for`, the same public signal the fit reads) and the rounds keep
measuring new marginals, so the tree grows geometrically instead (:func:`matched_growth`) and its re-fits cost
linearly in its cells.  Under the zCDP rules (``auto_version`` 6) the re-fits run half the steps: below the large
signal their term is halved.  With ``init="network"`` PrivBayes's search and tables at the initial budget come first
(:func:`privbayes.methods.privbayes.cost.privbayes_work`).  Reads the adaptive settings and plan only.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from privbayes.core.limits import limits
from privbayes.counting.base import CountingPlace
from privbayes.methods.adaptive.candidates import Candidate, leaf_candidates
from privbayes.methods.adaptive.network import BETA, THETA, network_plan
from privbayes.methods.adaptive.rounds import ROUND_ITERATIONS, ZCDP_ROUND_ITERATIONS, final_iterations, refits_for
from privbayes.methods.adaptive.settings import LARGE_SIGNAL, METHOD, AdaptiveSettings
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers import costs
from privbayes.synthesizers.costs import CostEstimate

MATCHED_REACH = 0.5
"""Above the large signal: the share of the plan's model cap (``max model cells``) the junction tree is taken to
reach at the last round once the signal is :data:`MATCHED_RISE` times the large signal or more (docs/decisions.md,
"A cost model from public work counts", "Above the large signal": fitted with the per-cell constants to the
worst time ratio; 0.37-0.81 of the cap measured on Adult's ground truth from 5 times the large signal)."""
MATCHED_RISE = 6.0
"""Between the large signal and MATCHED_RISE times it the reach rises as the square of the signal's excess (measured:
0.03-0.09 of the cap at 2.5 times the large signal, 0.09 at 4 times, 0.37-0.81 at 5 times): with less precise
measurements fewer selections close cycles."""

PASSES = 3
"""Batches an adaptive fit counts: its first measurements (1-way marginals or the network's tables), its candidate
marginals, and its rounds' model marginals (each one pass over streamed rows when an engine counts them)."""


def adaptive_cost(settings: AdaptiveSettings, plan: BudgetPlan, encoding: Encoding,
                  counting: CountingPlace | None = None) -> CostEstimate:
    """:class:`~privbayes.synthesizers.costs.CostEstimate` of an adaptive fit with ``plan`` on ``encoding``, its table
    counted where ``counting`` says (default: in memory)."""
    from privbayes.methods.privbayes.cost import model_file_bound, privbayes_work, table_bounds
    from privbayes.methods.privbayes.settings import PrivBayesSettings

    n, T = plan.setting("n"), plan.setting("rounds")
    attrs = encoding.attributes
    degree = settings.degree_for(encoding)
    summary = (candidate_summary(encoding, degree) if settings.workload is None else
               summary_of(tuple(settings.candidates_for(encoding)), encoding))
    K, total_cells, largest = summary.count, summary.cells, summary.largest
    mean_multi = summary.multi_cells / summary.multi_count if summary.multi_count else 1.0
    rows = costs.distinct_rows(n, encoding)
    work: dict[str, float] = {**costs.read_work(n, encoding), "adaptive": 1.0}
    memory: dict[str, float] = costs.held_memory(n, encoding, counting)
    passes = PASSES
    first = [a.size for a in attrs]  # the first measurements: 1-way marginals, or the network's tables
    if settings.direct_sets(encoding, n):  # or a small workload's sets, measured directly (their tables' cells)
        first = [math.prod(attrs[a].size for a in g) for g in settings.first_tables(encoding, n)[0]]
    if plan.setting("init") == "network":
        budget = sum((r.epsilon for r in plan.releases if r.kind in ("network", "table")), Fraction(0))
        relation = settings.relation
        gross = budget if relation.n_public else budget / (1 - Fraction(1, 100))
        inner = PrivBayesSettings(gross, beta=BETA, theta=THETA, neighbours=relation.name)
        net = network_plan(budget, n, encoding, relation, settings.max_network_degree)
        k = net.setting("degree")
        net_largest = math.prod(sorted(a.size for a in attrs)[-(k + 1):]) if k else largest
        more, more_memory = privbayes_work(inner, net, encoding, net_largest, counting)
        passes += int(more.pop("passes", 0))
        work.update(more)
        memory.update(more_memory)
        largest = max(largest, net_largest)
        first = table_bounds(encoding, net_largest, k)
    base = sum(first)
    signal = settings.signal(n)
    matched = refits_for(signal).matched
    model_at = [min(settings.max_model_cells, base + t * mean_multi) for t in range(1, T + 1)]
    if matched:
        top = matched_reach(growth_signal(settings, encoding, signal)) * plan.setting("max model cells")
        model_at = matched_growth(base, max(model_at[-1] if model_at else base, top), T)
    # Every candidate is a leaf table counted once: rows × its attributes visits each.
    visits = float(rows) * summary.attributes
    work["numba"] = memory["numba"] = max(work.get("numba", 0.0), costs.numba_loaded(visits))
    work.update({"candidate_rows": float(K) * rows, "round_candidates": float(T) * K,
                 "round_cells": float(T) * total_cells, "round_model": float(sum(model_at)),
                 "final_model": float(model_at[-1] if model_at else base),
                 # Selections that close cycles make the junction tree's cliques grow faster than the
                 # marginals measured (fits at ε = 3.2 take 3× those at 1.6): a superlinear term.
                 "round_model2": float(sum(m * m for m in model_at)) / 1e4})
    if settings.zcdp_rules and not matched:  # zCDP's re-fits run ZCDP_ROUND_ITERATIONS steps, not ROUND_ITERATIONS
        work["round_model2"] *= ZCDP_ROUND_ITERATIONS / ROUND_ITERATIONS
    if matched:  # the quadratic term was fitted on small trees: large ones re-fit linearly in their cells
        work.pop("round_model2")
        last = int(model_at[-1] if model_at else base)
        work.update({"matched_model": float(sum(model_at[:-1])), "matched_final": float(final_iterations(last) * last)})
    if costs.streamed(n, encoding, counting):
        work["stream_rows"] = float(passes) * n * len(attrs)
    memory.update({"candidate_cells": float(total_cells), "candidates": float(K),
                   "model_cells": max(memory.get("model_cells", 0.0), float(model_at[-1] if model_at else base))})
    # The model file holds one potential per measurement, each of its table's shape: the first
    # measurements (the 1-way marginals, or the network's d tables bounded as PrivBayes's file is)
    # and one per round, a candidate's marginal (at most the largest candidate).
    from privbayes.files.blocks import encoded_size

    # (The network written beside the potentials is derived from the model's junction tree: its parent
    # lists are bounded by d − 1, hence degree None for the text.)
    file_bytes = (model_file_bound(plan, encoding, largest, None, first)
                  + T * (200 + 16 * degree + encoded_size(largest)))
    working = 8 * total_cells + 64 * int(model_at[-1] if model_at else base)
    return costs.estimate(METHOD, work, memory, working, file_bytes, largest_cells=largest)


def matched_reach(signal: float) -> float:
    """The share of the model cap the junction tree is taken to reach at the last round of a fit at ``signal`` n·ε/Δ
    above the large signal (public: the signal the fit's rules read): :data:`MATCHED_REACH` times the square of the
    signal's excess over :data:`~privbayes.methods.adaptive.settings.LARGE_SIGNAL`, relative to
    :data:`MATCHED_RISE` − 1, at most :data:`MATCHED_REACH`."""
    excess = max(0.0, signal / LARGE_SIGNAL - 1) / (MATCHED_RISE - 1)
    return MATCHED_REACH * min(1.0, excess) ** 2


def growth_signal(settings: AdaptiveSettings, encoding: Encoding, signal: float) -> float:
    """The signal :func:`matched_reach` reads: ``signal``, scaled by the rounds' share of ε under ``settings`` over
    their share under version 5's first share (:data:`~privbayes.methods.adaptive.settings.AUTO_VERSION` 6 gives
    the 1-way start less, the rounds more).  The reach was measured on version 5's plans, where the rounds' budget,
    not the first tables', grows the junction tree: on BR2000 at ε = 1.6 (38,000 rows, replace-one) version 6's
    first share 0.329 instead of 0.406 took the fit from 3.2 to 5.4 CPU seconds (docs/decisions.md, "Capacity that
    follows n·ε", late night).  Public inputs only."""
    if settings.auto_version < 6:
        return signal
    older = AdaptiveSettings.from_parameters(settings.to_parameters(encoding) | {"auto_version": 5})
    init = settings.init_for(encoding)
    now, before = (float(s.share_for(init, signal, encoding.is_binary)) for s in (settings, older))
    return signal * (1 - now) / (1 - before)


def matched_growth(base: float, top: float, rounds: int) -> list[float]:
    """The junction tree's cells after each of ``rounds`` rounds above the large signal: geometric from the first
    measurements' ``base`` cells to ``top`` (at least ``base``) at the last round.  With the matched start every
    round measures a new marginal, and a selection that closes a cycle multiplies a clique's cells rather than
    adding a table's (measured: 200 → 35,000-850,000 cells in 30 rounds, the last third holding most)."""
    top = max(float(base), top)
    return [base * (top / base) ** (t / rounds) for t in range(1, rounds + 1)]


def summary_of(candidates: Sequence[Candidate], encoding: Encoding) -> CandidateSummary:
    """The :class:`CandidateSummary` of ``candidates`` enumerated (triples, or a workload's downward closure)."""
    cells = [c.cells(encoding) for c in candidates]
    multi = [c for c, cand in zip(cells, candidates) if len(cand.attributes) > 1]
    return CandidateSummary(len(cells), sum(cells), sum(len(c.attributes) for c in candidates), len(multi),
                            sum(multi), max(cells, default=1))


@dataclass(frozen=True)
class CandidateSummary:
    """What the cost needs of AIM's candidates (:func:`~privbayes.methods.adaptive.candidates.leaf_candidates`): their
    number, cells, attributes counted with multiplicity, the number and cells of those of two or more
    attributes, and the largest one's cells (1 when there is none)."""

    count: int
    cells: int
    attributes: int
    multi_count: int
    multi_cells: int
    largest: int


def candidate_summary(encoding: Encoding, degree: int) -> CandidateSummary:
    """The :class:`CandidateSummary` of the candidates up to ``degree`` attributes.  For pairs it is computed from
    the sorted sizes (each size's partners within the table cap by bisection, their sizes by prefix sums):
    O(d log d), where enumerating d²/2 pairs took seconds at 900 attributes and hours at the attribute cap;
    triples are enumerated (the automatic degree is 3 only for d ≤ 30)."""
    if degree != 2:
        return summary_of(leaf_candidates(encoding, degree), encoding)
    cap = limits().max_table_cells
    sizes = sorted(a.size for a in encoding.attributes)
    singles = [s for s in sizes if s <= cap]
    prefix = list(itertools.accumulate(sizes, initial=0))
    pairs = pair_cells = largest_pair = 0
    for i, s in enumerate(sizes):
        end = bisect.bisect_right(sizes, cap // s)  # partners j > i with s·s_j ≤ cap: sizes[i + 1:end]
        if end > i + 1:
            pairs += end - i - 1
            pair_cells += s * (prefix[end] - prefix[i + 1])
            largest_pair = max(largest_pair, s * sizes[end - 1])
    return CandidateSummary(len(singles) + pairs, sum(singles) + pair_cells, len(singles) + 2 * pairs, pairs,
                            pair_cells, max([*singles, largest_pair]) if singles or pairs else 1)
