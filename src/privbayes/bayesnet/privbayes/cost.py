"""What a fit will cost, estimated from public inputs only (parameters, schema, n) before any count.

Used by ``privbayes fit`` (printed on ``--dry-run``, a warning above a minute) and by
``PrivBayes.fit``, which refuses a fit whose memory estimate exceeds
``limits().max_fit_bytes`` before reading a single count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from privbayes.bayesnet.candidates import candidate_cap, count_parent_sets, parent_bound
from privbayes.bayesnet.privbayes.settings import PrivBayesSettings
from privbayes.encoding import Encoding
from privbayes.errors import InputError
from privbayes.limits import limits
from privbayes.privacy.plan import BudgetPlan


@dataclass(frozen=True)
class CostEstimate:
    """What a fit will cost, from public inputs only (parameters, schema, n), before any count.

    GreedyBayes (TODS 2017, Alg. 4) scores, at each step, every maximal θ-useful parent set
    (Alg. 5/6) of every remaining child; their number, not the size of one table, drives
    time and memory.  ``candidates`` bounds the last step's count from above (all generalised
    subsets within the bound τ of the smallest child, which has the largest τ, capped by the
    public candidate cap of :mod:`candidates` as GreedyBayes caps it);
    ``largest_cells`` is the largest noisy table (τ·|dom(X)|, Alg. 4 line 6).  Time and
    memory are rough fits to Adult on a 2-core machine (ε = 1, 10, 100: 10 s, 19 s, 197 s;
    0.3, 0.6, 11 GB): about 1.6·10⁻⁴ s and τ bytes per candidate.  With a fixed degree k
    (binary encodings) the candidates are the k-subsets of the placed attributes."""

    candidates: int
    largest_cells: int
    seconds: float
    bytes: int
    file_bytes: int = 0
    """An upper bound on the model file's size, from the plan and the domain only (public; issue 32):
    :func:`model_file_bound`."""

    @property
    def time_class(self) -> str:
        return ("seconds" if self.seconds < 60 else "minutes" if self.seconds < 3600 else "hours")

    def check(self) -> None:
        """Refuse the fit if its memory estimate exceeds the guard (:func:`check_cost`)."""
        check_cost(self)

    def describe(self) -> str:
        return (f"cost estimate: up to {self.candidates:,} candidate parent sets per step, largest noisy table "
                f"{self.largest_cells:,} cells; about {self.bytes / 2**30:,.1f} GB of memory; expected time: "
                f"{self.time_class}; model file at most {_megabytes(self.file_bytes)} (bound from the plan and "
                "the domain, public inputs only)")


def cost_estimate(settings: PrivBayesSettings, plan: BudgetPlan, encoding: Encoding) -> CostEstimate:
    """:class:`CostEstimate` of a fit with ``settings`` on ``encoding`` with budget ``plan``."""
    attrs = encoding.attributes
    d, k, n = len(attrs), plan.setting("degree"), plan.setting("n")
    sizes = sorted(a.size for a in attrs)
    if k is not None:
        candidates = max(math.comb(d - 1, k), 1) if k else 1
        largest = math.prod(sizes[-(k + 1):]) if k else sizes[-1]
        per_candidate = 2 ** (k + 1)
    else:
        _, eps2 = settings.phase_budgets()
        delta = settings.relation.count_sensitivity
        cap = candidate_cap(encoding)  # the bound GreedyBayes and the plan use (candidates.py)
        small = min(range(d), key=lambda j: attrs[j].size)
        bound = parent_bound(n, d, eps2, settings.theta, attrs[small].size, cap, delta)
        levels = [[a.level_size(i) for i in range(a.height)] for j, a in enumerate(attrs) if j != small]
        candidates = count_parent_sets(levels, bound)
        largest = min(parent_bound(n, d, eps2, settings.theta, sizes[-1], cap, delta) * sizes[-1], math.prod(sizes))
        per_candidate = max(1, bound)
    return CostEstimate(candidates, int(largest), 1.6e-4 * candidates, candidates * per_candidate + 32 * int(largest),
                        model_file_bound(plan, encoding, int(largest), k))


def model_file_bound(plan: BudgetPlan, encoding: Encoding, largest_cells: int, degree: int | None) -> int:
    """Bytes a PrivBayes model file can take at most, from public inputs (plan, domain, the τ bound).

    A version-4 file (:mod:`privbayes.bayesnet.model`) holds the schema, the plan and its ledger (one
    entry per planned release), one or two networks, and one array per attribute: a conditional, or
    with estimation="consistent" the log-potential of a measured table, which has the measured
    table's shape.  Every such table has at most ``largest_cells`` cells (TODS 2017, Alg. 4 line 6:
    τ·|dom(X)|; a fixed degree k: the k+1 largest attributes), and a compact block of c numbers takes
    at most :func:`privbayes.blocks.encoded_size` (c) characters (deflate's stored form, in base64),
    so d such blocks bound the arrays; the rest is measured on the plan and schema's own JSON, with
    room for the per-pair text.  Deflate usually writes far less: the bound is what a user can plan on."""
    import json

    from privbayes.blocks import encoded_size

    d = len(encoding.attributes)
    parents = d - 1 if degree is None else degree
    plan_text = len(json.dumps(plan.to_dict()))
    schema_text = len(json.dumps(encoding.schema.to_dict()))
    per_pair = 2 * (32 + 16 * parents) + 160  # two networks' entries, a block's or potential's keys
    return 4096 + schema_text + 2 * plan_text + d * (per_pair + encoded_size(largest_cells))


def _megabytes(size: int) -> str:
    return f"{size / 2**20:,.1f} MB" if size >= 2**20 / 10 else f"{size / 2**10:,.0f} KB"


def check_cost(cost: CostEstimate) -> None:
    """Refuse a fit whose memory estimate exceeds the guard (one line, with the settings to change)."""
    cap = limits().max_fit_bytes
    if cost.bytes > cap:
        raise InputError(f"this fit would need about {cost.bytes / 2**30:,.0f} GB of memory ({cost.candidates:,} "
                         f"candidate parent sets), more than the limit of {cap / 2**30:g} GB (PRIVBAYES_MAX_FIT_GB); "
                         "lower --epsilon, raise --theta, set --degree, use --encoding vanilla or lower "
                         "PRIVBAYES_MAX_CANDIDATE_SETS")


