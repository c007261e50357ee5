"""What a fit will cost — wall time, peak memory, model-file size — from public inputs only
(docs/decisions.md, "A cost model from public work counts").

One :class:`CostEstimate` for every registered DP method.  Each method's module counts the *work*
its fit will do from the parameters, the public domain, the plan and n (under add/remove: the
plan's n, the noisy count or ``--assume-n``), never from the rows: candidate tables scored, rows
visited by counting passes, rounds, cells of the model.  Time and memory are linear in those named
work counts, with per-operation constants (:data:`SECONDS`, :data:`BYTES`) measured on the project's
2-core machine by ``benchmarks/cost_model.py --calibrate --write`` (the constants that minimise the
worst predicted/measured ratio over calibration fits that are not the benchmark's cells; time in CPU
seconds, the machine being shared; docs/scale.md, "Cost model").  Counting runs over the table's
*distinct* rows, a private number: the work counts use min(n, |domain|), its public upper bound, so
tables with many duplicate rows run faster than predicted, never slower.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from privbayes.core.errors import InputError
from privbayes.core.limits import limits
from privbayes.counting.base import CountingPlace
from privbayes.schema.encoding import Encoding

SECONDS: Mapping[str, float] = MappingProxyType({
    "start": 0.869,          # interpreter, imports, reading the schema, writing and checking the file
    "read": 1.66e-07,        # per cell read and labelled (n × d); mostly absorbed by the counting terms
    "pair": 5.84e-06,        # per candidate (child, parent set) scored
    "pair_rows": 3.03e-09,   # per row visited counting a candidate's table
    "covered_pair_rows": 1.5e-09,  # the same from COVER_ROWS distinct rows (most tables summed out of bases)
    "pair_cells": 1.54e-08,  # per cell of a scored table
    "binary_pair": 3.68e-05, # per binary (child, k parents) pair scored (F's dynamic program, §4.4)
    "binary_pair_rows": 0.0, # per row visited counting a binary family (compiled, many per pass)
    "numba": 0.347,          # importing numba and loading the counting kernels, once per process
    "model_cells": 0.0,      # per cell of the tables fitted by consistent estimation
    "adaptive": 0.0,         # adaptive: once per fit (the junction-tree estimation's set-up and first fit)
    "candidate_rows": 0.0,   # adaptive: rows visited counting every candidate marginal once
    "round_candidates": 0.00024,  # adaptive: per candidate scored in a round
    "round_cells": 0.0,      # adaptive: per candidate cell scored in a round
    "round_model": 0.0,      # adaptive: per model cell re-fitted in a round
    "final_model": 0.0,      # adaptive: per model cell of the last fit, run to its stopping rule
    "round_model2": 1.5e-05, # adaptive: Σ_t (model cells at round t)² / 10⁴ (junction trees grow with cycles)
    "matched_model": 8.0e-06,  # adaptive above the large signal: per model cell of a matched re-fit
    "matched_final": 2.0e-08,  # adaptive above the large signal: per cell-update of the last fit (its work bound)
    "stream_rows": 2.0e-09,  # engine: per row × attribute streamed from the engine to the kernels, per pass
    "streamed_pair_rows": 1.5e-10,  # PrivBayes on streamed rows: per candidate pair × row (bases at the asked levels)
    "engine_read": 8.0e-08,  # per cell read and coded by an engine whose coded rows then stream (no labelled copy)
})
"""Seconds per unit of work (docs/scale.md, "Cost model": how they were measured; a 0 is a term the
calibration fits found no weight for)."""

BYTES: Mapping[str, float] = MappingProxyType({
    "start": 163000000.0,    # interpreter, numpy, pandas, the library
    "read": 55.1,            # per cell of the table as read (text, labels, codes)
    "numba": 151000000.0,    # the compiled counting kernels, when loaded
    "pair_cells": 21.0,      # per cell of the θ path's largest counting batch (cost.search_work)
    "binary_cells": 30.3,    # per cell of the binary families counted and scored in one batch
    "columns": 1.16,         # per distinct row × (attribute, level) code column held for counting
    "candidate_cells": 0.0,  # adaptive: exact counts of every candidate marginal and their scoring
    "candidates": 0.0,       # adaptive: per candidate marginal (its exact table, model marginal and score)
    "model_cells": 0.0,      # per cell of the model's tables and junction tree, with working copies
    "engine": 2.0e8,         # engine: an engine in this process, once (DuckDB's library and buffers)
    "engine_cells": 2.0,     # engine: per cell read and coded in the engine, up to the engine's memory limit
    "local": 1.0,            # engine: per byte of coded rows moved into memory (codes of every level, weights)
    "stream": 3.0e8,         # engine: batches and tables of a pass over streamed rows (once)
})
"""Peak resident bytes per unit (same calibration)."""


@dataclass(frozen=True)
class CostEstimate:
    """What a fit will cost, from public inputs only, before any count.

    ``seconds`` and ``peak_bytes`` predict the CPU time (the wall time on an idle machine; on a busy
    one scale by load / cores) and the peak resident memory of the whole ``privbayes fit`` process on
    the calibration machine (2 cores); ``bytes`` is the algorithm's own working memory, which the
    guard (:meth:`check`) holds under ``PRIVBAYES_MAX_FIT_GB``; ``file_bytes`` bounds the model
    file.  ``work`` lists the public work counts behind the prediction; ``candidates`` and
    ``largest_cells`` describe the largest search step and noisy table (PrivBayes's terms, TODS 2017
    Alg. 4)."""

    seconds: float
    bytes: int
    file_bytes: int = 0
    peak_bytes: int = 0
    candidates: int = 0
    largest_cells: int = 0
    method: str = "privbayes"
    work: Mapping[str, float] = field(default_factory=dict)

    @property
    def guarded_bytes(self) -> int:
        """The memory the guard holds under ``PRIVBAYES_MAX_FIT_GB`` and ``describe`` prints as the peak: the whole
        process's predicted peak, or the working memory where that is larger (one number, printed and checked)."""
        return max(self.bytes, self.peak_bytes)

    @property
    def time_class(self) -> str:
        return "seconds" if self.seconds < 60 else "minutes" if self.seconds < 3600 else "hours"

    def check(self) -> None:
        """Refuse the fit if its memory estimate exceeds the guard."""
        check_cost(self)

    def describe(self) -> str:
        search = (f"up to {self.candidates:,} candidate parent sets per step, largest noisy table "
                  f"{self.largest_cells:,} cells; " if self.candidates else "")
        return (f"cost estimate: {search}expected time about {_duration(self.seconds)} ({self.time_class}), "
                f"peak memory about {_size(self.guarded_bytes)}, working memory about {self.bytes / 2**30:,.1f} GB; "
                f"model file at most {_size(self.file_bytes)} (from public inputs only: parameters, domain, plan, "
                "n; calibrated on an idle 2-core machine)")


def estimate(method: str, work: Mapping[str, float], memory: Mapping[str, float], working_bytes: int,
             file_bytes: int, *, candidates: int = 0, largest_cells: int = 0) -> CostEstimate:
    """The :class:`CostEstimate` of the named ``work`` and ``memory`` counts (keys of :data:`SECONDS`
    and :data:`BYTES`; "start" is added)."""
    seconds = SECONDS["start"] + sum(SECONDS[k] * v for k, v in work.items())
    peak = BYTES["start"] + sum(BYTES[k] * v for k, v in memory.items())
    counts = {**{k: float(v) for k, v in work.items()}, **{f"memory {k}": float(v) for k, v in memory.items()}}
    return CostEstimate(seconds, int(working_bytes), int(file_bytes), int(peak), candidates, largest_cells, method,
                        MappingProxyType(counts))


def distinct_rows(n: int, encoding: Encoding) -> int:
    """min(n, |domain|): the public upper bound on the distinct rows a counting pass visits."""
    cells = 1
    for a in encoding.attributes:
        cells *= a.size
        if cells >= n:
            return n
    return min(n, cells)


def read_work(n: int, encoding: Encoding, streamed: bool = False) -> dict[str, float]:
    """Reading and labelling the table: n × d cells (of the schema's columns); ``streamed``: read and coded inside an
    engine whose coded rows then stream (:func:`streamed`; measured at 10⁸-10⁹ × 20 in DuckDB: 0.6-1.1·10⁻⁷ s a
    cell, against 1.7·10⁻⁷ calibrated in memory; docs/scale.md, "A billion rows")."""
    return {("engine_read" if streamed else "read"): float(n) * len(encoding.schema.attributes)}


def held_memory(n: int, encoding: Encoding, counting: CountingPlace | None) -> dict[str, float]:
    """Memory of the table while it is counted, by where it is counted (public: the back-end and its bounds).
    In memory (numpy): n × d cells as read.  In an engine: the engine's own use, up to its memory limit, plus the
    coded rows when their public bound fits the share counted in memory (``localise``), else the buffers of
    passes over streamed rows, the engine then counted at its limit (docs/decisions.md, "A billion rows")."""
    if counting is None or not counting.in_engine:
        return read_work(n, encoding)
    cells = float(n) * len(encoding.schema.attributes)
    limit = counting.engine_bytes / BYTES["engine_cells"]
    local = local_bytes(n, encoding)
    if local <= counting.local_bytes:
        return {"engine": 1.0, "engine_cells": min(cells, limit), "local": float(local)}
    # Streamed: the engine also groups the tables too large to hold densely (GROUPING SETS), up to its limit.
    return {"engine": 1.0, "engine_cells": limit, "stream": 1.0}


def streamed(n: int, encoding: Encoding, counting: CountingPlace | None) -> bool:
    """Whether an engine counts the table from streamed rows (their public bound is over the in-memory share)."""
    return counting is not None and counting.in_engine and local_bytes(n, encoding) > counting.local_bytes


def local_bytes(n: int, encoding: Encoding) -> int:
    """The in-memory share's measure of the coded rows (``privbayes.counting.engine.EngineTable.localise``): a
    code of the narrowest type a column and level, and 16 bytes, per distinct row (bounded by min(n, |domain|))."""
    largest = max((a.size for a in encoding.attributes), default=1)
    width = 1 if largest <= 2**8 else 2 if largest <= 2**16 else 4
    return distinct_rows(n, encoding) * (2 * width * len(encoding.schema.attributes) + 16)


NUMPY_VISITS = 2 * 10**7
"""The in-memory back-end's ski-rental threshold (``privbayes.counting.memory._NUMPY_VISITS``, which
this layer may not import; tests/test_cost_model.py checks that the two agree)."""


COVER_ROWS = 2**17
"""Distinct rows from which the in-memory back-end covers a batch by counted supersets (``privbayes.counting.
memory._COVER_ROWS``; tests/test_cost_model.py checks that the two agree): below, a pass per table."""


def numba_loaded(visits: float) -> float:
    """1.0 when the in-memory back-end will import numba and load its kernels (≈ 0.5 s, 50-150 MB):
    once a fit's counting visits pass its ski-rental threshold (:data:`NUMPY_VISITS`), else 0.0.
    ``visits`` is rows × attributes of the tables counted (PrivBayes: pairs × rows, its tables being
    mostly derived from cached ones)."""
    return 1.0 if visits >= NUMPY_VISITS else 0.0


def check_cost(cost: CostEstimate) -> None:
    """Refuse a fit whose memory estimate exceeds the guard (one line, with the settings to change)."""
    cap = limits().max_fit_bytes
    if cost.guarded_bytes > cap:
        what = f" ({cost.candidates:,} candidate parent sets)" if cost.candidates else ""
        fix = ("lower --epsilon, raise --theta, set --degree, use --encoding vanilla or lower "
               "PRIVBAYES_MAX_CANDIDATE_SETS" if cost.method in ("privbayes", "sa-privbayes")
               else "lower --epsilon or the model's size")
        raise InputError(f"this fit would need about {_size(cost.guarded_bytes)} of memory{what}, more than "
                         f"the limit of {_size(cap)} (PRIVBAYES_MAX_FIT_GB); {fix}, or count with --backend "
                         "duckdb (rows kept out of memory)")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, math.ceil(seconds))} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _size(size: int) -> str:
    return (f"{size / 2**30:,.1f} GB" if size >= 2**30 else f"{size / 2**20:,.1f} MB" if size >= 2**20 / 10
            else f"{size / 2**10:,.0f} KB")
