"""A schema draft that is itself ε-differentially private (``privbayes schema infer --epsilon``).

``schema infer`` without ε reads the domain from the data and says so (NOT covered by ε); attacks on
PrivBayes with a data-derived domain reach AUC 1.0 (Ganev et al. 2025).  This draft releases the
domain under pure ε-DP instead, for either neighbouring relation, and records its cost in the file
(``private_draft:``), so that a fit on it reports draft + fit by sequential composition.

Public inputs alone fix the plan (:func:`draft_plan`): the column names, the declared column types
of a DataFrame or Parquet file (never a ``category``'s categories: those are data), ε, the relation,
the public range R, and public candidate lists (``categories``).  A column with a public list (or a
boolean dtype) costs nothing; every other column gets ε/m (m such columns), spent on at most two
count vectors (:func:`column_steps`), each through discrete Laplace charging one :class:`Accountant`
(the exact counts come from :mod:`privbayes.counting.private_draft`).  In each vector a row is in
one cell, so the L1 sensitivity is 1 under add-remove and 2 under replace-one, and one ε pays for
all its cells (parallel composition):

1. ``histogram``: empty fields, other text, the rows at each public point-mass candidate (0,
   sentinels such as −1, 99, 999, round numbers of one significant digit), the other numbers in
   public 1-2-5 cells (±[1, 2)·10^k, ±[2, 5)·10^k, ±[5, 10)·10^k within [−R, R]) and ISO dates by
   year (1800..2200).  From it (post-processing): the kind of a text column, the point masses, and
   the bounds: the outer edges of the outermost cells clearly holding values (:func:`clear_runs`:
   cells or runs of cells clearly above noise, :func:`clear_threshold`, grown cell by cell), so
   bounds are round and outward by construction.
2. ``decimals`` (1/8, only for a column not declared integer or date): numbers by decimals written.

Only the releases the declared type needs are planned, so the ledger equals the plan and sums to ε
exactly, and which steps ran reveals nothing.  Text columns without a public candidate list are
dropped: under pure ε a value no public list names cannot be released (docs/decisions.md, "Private
schema drafts").  Values outside the released domain never make a fit fail: numeric and date
columns are ``invalid: clip``, categorical ones ``missing``/``invalid: category``; no noisy decision
turns a numeric column into categories.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import yaml

from privbayes.core.errors import InputError
from privbayes.core.limits import limits
from privbayes.core.validation import check_count, check_epsilon, check_positive, check_seed, exact
from privbayes.counting.coltypes import ColumnType
from privbayes.counting.draft import ColumnProposal
from privbayes.counting.private_draft import DECIMAL_CELLS, FIELD_CELLS, DraftSource, draft_source
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import DiscreteLaplace
from privbayes.privacy.neighbours import Neighbours
from privbayes.privacy.neighbours import neighbours as relation_named
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.privacy.samplers import RandomSource, random_source
from privbayes.schema import DEFAULT_BINS, DraftRelease, Schema
from privbayes.schema.dtypes import nullable_twin
from privbayes.schema.files import read_structured
from privbayes.schema.serialisation import attribute_to_dict

DEFAULT_RANGE = 10**9
MAX_RANGE = 10**15
"""Numbers above 10^15 are not whole in float64 arithmetic: the cells stop there."""
SMALLEST_DECADE = -3
MANTISSAS = (1, 2, 5)
YEARS = (1800, 2200)
SENTINELS = (-1, -9, -99, -999, 99, 999, 9999, 99999, 999999)
POINT_MASS_RANGE = 10**6
"""Point-mass candidates: :data:`SENTINELS`, 0 and the positive round numbers of one significant digit up to
POINT_MASS_RANGE."""
POINT_MASS_SHARE = Fraction(1, 50)
POINT_MASS_RATIO = 4
"""A candidate is a point mass when its noisy count is clearly above noise, reaches 2 % of the numbers, and
is 4 times what its cell holds per representable value (so age 30 is not one, hours 40 is)."""
WINDOWS = (1, 2, 4)
"""Runs of adjacent cells tested for holding values: single cells find dense columns, runs of 2 and 4 the
values of a sparse column spread over several cells."""
FALSE_ALARM = 0.01
"""The probability that noise alone marks some run of an empty region as holding values (union bound over all
runs of a column): a false run far out would stretch a bound by decades."""
EXTEND_WINDOWS = (1, 2)
EXTEND_ALARM = 0.002
"""The probability that noise alone grows a bound by a step (one side, both widths of :data:`EXTEND_WINDOWS`
together): a false step adds a cell or two of range, and a bound may take a few steps."""
DECIMAL_SHARE = Fraction(1, 8)
PRESENT_SHARE = Fraction(1, 100)
"""Numbers with d decimals are present when their noisy count reaches 1 % of the numbers and clears the noise."""
MECHANISM = ("private schema draft: one discrete Laplace histogram per column over public cells (field kinds, "
             "point-mass candidates, 1-2-5 number cells, years) and, for columns not typed integer or date, "
             "one of decimals; bounds at the edges of the cells clearly above noise")
HEADER = ("# privbayes schema draft released under epsilon-differential privacy (schema infer --epsilon):\n"
          "# its bounds, kinds and point masses are noisy releases paid for in the private_draft ledger; a fit\n"
          "# on it reports draft + fit epsilon.  Categories come from public lists only.\n")
TEXT_REASON = ("text without a public candidate list: dropped (under pure epsilon a value no public list names "
               "cannot be released); pass --categories FILE to keep it")


@dataclass(frozen=True)
class PrivateDraft:
    """A schema draft released under ε-DP: one proposal per column and the release record (ε, relation,
    ledger) that the schema file keeps under ``private_draft:``."""

    proposals: tuple[ColumnProposal, ...]
    release: DraftRelease

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "private_draft": self.release.to_dict(),
                "attributes": [p.attribute for p in self.proposals if p.attribute is not None],
                "drop": [p.drop_entry() for p in self.proposals if p.attribute is None]}

    def schema(self) -> Schema:
        """The draft as a :class:`Schema` (refused if fewer than 2 columns are kept)."""
        return Schema.from_dict(self.to_dict(), source="private schema draft")

    def to_yaml(self) -> str:
        """Commented YAML: the release record, then each column's reason above its entry."""
        dump = {"sort_keys": False, "allow_unicode": True, "default_flow_style": None, "width": 100}
        parts = [HEADER, "version: 1\n", yaml.safe_dump({"private_draft": self.release.to_dict()}, **dump),
                 "attributes:\n"]
        for p in self.proposals:
            if p.attribute is not None:
                parts.append(f"# {p.name}: {p.reason}\n".replace("\n", " ").rstrip() + "\n"
                             + yaml.safe_dump([p.attribute], **dump))
        dropped = [p for p in self.proposals if p.attribute is None]
        parts.append("drop:" + ("\n" if dropped else " []\n"))
        for p in dropped:
            parts.append(f"# {p.name}: {p.reason}\n".replace("\n", " ").rstrip() + "\n"
                         + yaml.safe_dump([p.drop_entry()], **(dump | {"default_flow_style": False})))
        return "".join(parts)


def private_draft(data: Any, epsilon: float | Fraction | str, *, neighbours: str = "replace-one",
                  categories: str | os.PathLike[str] | dict[str, Any] | None = None, seed: int | None = None,
                  bins: int = DEFAULT_BINS, value_range: float = DEFAULT_RANGE) -> PrivateDraft:
    """A schema draft of ``data`` released under ε-DP (docs/decisions.md, "Private schema drafts").

    One noisy histogram per column over public round cells gives its kind, point masses and outward
    bounds; categories come only from public lists.  A fit on the draft reports its domain as covered, with
    the total ε of draft and fit.

    Parameters
    ----------
    data : pandas.DataFrame or str or os.PathLike
        The private table: a DataFrame, or a CSV, Parquet or ``.dat`` path.
    epsilon : float or Fraction or str
        The draft's privacy budget ε > 0 (a string is read exactly, e.g. ``"1/10"``).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of the guarantee.
    categories : str or os.PathLike or dict, optional
        Public candidate lists: a mapping column → list, a YAML/JSON file of one, or a schema file whose
        categorical attributes (and taxonomies) are public.  Text columns without a list are dropped.
    seed : int, optional
        A reproducible draft (flagged; do not publish seeded releases).
    bins : int, default 16
        Bins of each numeric attribute.
    value_range : float, default 10**9
        The public bound R of numbers: bounds are searched in [−R, R].

    Returns
    -------
    PrivateDraft
        The proposals and the release record (ε, relation, ledger); ``.schema()`` is the draft as a
        :class:`~privbayes.Schema`, ``.to_yaml()`` the commented file ``schema infer --epsilon`` writes.
    """
    total = check_epsilon(exact(epsilon, "epsilon") if isinstance(epsilon, str) else epsilon)
    relation = relation_named(neighbours)
    seed = check_seed(seed)
    bins = check_count(bins, "bins", 1)
    checked_range = check_positive(value_range, "value range")
    if not 1e-3 <= checked_range <= MAX_RANGE:
        raise InputError(f"value range ({checked_range!r}) must be between 0.001 and {MAX_RANGE:g}")
    public, dropped = public_candidates(categories)
    source = draft_source(data)
    unknown = sorted(set(public) - set(source.names))
    if isinstance(categories, dict) and unknown:
        raise InputError(f"categories: column {unknown[0]!r} is not in the data")
    measured = [name for name in source.names
                if name not in public and name not in dropped and source.declared(name).family != "bool"]
    if not measured:
        raise InputError("schema infer --epsilon: every column has a public domain (candidates or a boolean type), so "
                         "there is nothing to pay for; leave out --epsilon")
    plan = draft_plan([(name, source.declared(name).family) for name in measured], total, relation)
    accountant, rng = Accountant(total), random_source(seed)
    proposals = []
    for name in source.names:
        if name in dropped:
            proposals.append(ColumnProposal(name, None, "dropped by the public schema"))
        elif name in public:
            proposals.append(_public(name, public[name], source.declared(name)))
        elif source.declared(name).family == "bool":
            proposals.append(_public(name, {"kind": "binary", "categories": [False, True]}, source.declared(name)))
        else:
            budgets = {r.kind: r.epsilon for r in plan.releases if r.index == measured.index(name)}
            proposals.append(_measure(name, source, budgets, relation, accountant, rng, bins, float(checked_range)))
    plan.check(accountant.ledger)
    ledger = tuple((e.step, e.mechanism, e.epsilon, e.sensitivity, e.measured) for e in accountant.ledger)
    return PrivateDraft(tuple(proposals), DraftRelease(total, relation.name, MECHANISM, ledger))


def column_steps(family: str | None) -> tuple[tuple[str, Fraction], ...]:
    """The releases of one measured column and their shares of its ε, from its declared type family (public):
    a column typed integer or date needs no count of decimals, so its histogram gets the whole share."""
    if family in ("int", "date", "datetime"):
        return (("histogram", Fraction(1)),)
    return (("histogram", 1 - DECIMAL_SHARE), ("decimals", DECIMAL_SHARE))


def draft_plan(measured: Sequence[tuple[str, str | None]], total: Fraction, relation: Neighbours) -> BudgetPlan:
    """The releases of a private draft, from public inputs only: :func:`column_steps` of each measured column
    (name, declared type family), ε split evenly across columns."""
    per_column = total / len(measured)
    releases = []
    for index, (name, family) in enumerate(measured):
        for step, share in column_steps(family):
            releases.append(PlannedRelease(f"{name}: {step}", DiscreteLaplace.name, per_column * share, kind=step,
                                           index=index, sensitivity=relation.count_sensitivity))
    return BudgetPlan(total, tuple(releases), (("neighbours", relation.name),))


def public_candidates(categories: str | os.PathLike[str] | dict[str, Any] | None
                      ) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """Public attribute templates by column (kind, categories, a schema's taxonomy) and the columns a
    public schema drops, from a mapping column → list, or a file of one, or a schema file."""
    if categories is None:
        return {}, set()
    raw = categories if isinstance(categories, dict) else read_structured(categories, "categories")
    where = "categories" if isinstance(categories, dict) else str(categories)
    if isinstance(raw, dict) and isinstance(raw.get("attributes"), list):
        schema = Schema.from_dict(raw, source=where)
        return ({a.name: attribute_to_dict(a) for a in schema.attributes if not a.numeric}, set(schema.dropped))
    if not isinstance(raw, dict) or len(raw) > limits().max_attributes:
        raise InputError(f"{where}: expected a mapping of column names to lists of categories, or a schema")
    out = {}
    for name, values in raw.items():
        if not isinstance(name, str) or not isinstance(values, list) or not 0 < len(values) <= limits().max_categories:
            raise InputError(f"{where}: each entry maps a column name to a non-empty list of at most "
                             f"{limits().max_categories:,} categories")
        out[name] = {"kind": "binary" if len(values) == 2 else "categorical", "categories": values}
    return out, set()


def _public(name: str, template: dict[str, Any], declared: ColumnType) -> ColumnProposal:
    attribute = {"name": name, **{k: v for k, v in template.items() if k not in ("name", "missing", "invalid")}}
    if declared.dtype is not None and "dtype" not in attribute:
        attribute["dtype"] = nullable_twin(declared.dtype) if declared.family != "category" else "category"
    attribute.update(missing="category", invalid="category")
    return ColumnProposal(name, attribute, f"{len(attribute['categories'])} categories from the public list (no "
                                           "budget); other values go to the missing category")


# --- one measured column ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cells:
    """The public cells of the numbers within [−R, R] (:meth:`DraftSource.histogram`): the point-mass
    ``candidates``, and the intervals between ``edges``, the first and last open and clipped to ±R."""

    candidates: tuple[float, ...]
    edges: tuple[float, ...]

    @classmethod
    def within(cls, value_range: float) -> Cells:
        return cls(tuple(point_mass_candidates(value_range)), tuple(cell_edges(value_range)))

    def interval(self, i: int) -> tuple[float, float]:
        """Interval i's outer edges (the open end intervals end at ±R)."""
        return self.edges[max(i - 1, 0)], self.edges[min(i, len(self.edges) - 1)]


def cell_edges(value_range: float) -> list[float]:
    """0 and ±m·10^k for m in 1, 2, 5 and 10^−3 ≤ m·10^k ≤ R, then ±R: the public edges of the number cells
    (round numbers of one significant digit, so every released bound is one)."""
    top = max(math.floor(math.log10(value_range)), SMALLEST_DECADE)
    positive = {float(f"{m}e{k}") for k in range(SMALLEST_DECADE, top + 1) for m in MANTISSAS} | {value_range}
    positive = {x for x in positive if x <= value_range}
    return sorted({-x for x in positive} | {0.0} | positive)


def point_mass_candidates(value_range: float) -> list[float]:
    """The public point-mass candidates inside [−R, R], ascending (:data:`POINT_MASS_RANGE`)."""
    top = min(value_range, POINT_MASS_RANGE)
    rounds = {float(f"{m}e{k}") for m in range(1, 10) for k in range(7)}
    return sorted(c for c in rounds | {0.0} | {float(c) for c in SENTINELS} if abs(c) <= top)


def clear_threshold(scale: Fraction, width: int, tests: int, alarm: float = FALSE_ALARM) -> float:
    """The count a sum of ``width`` cells must reach to be clearly above noise: noise alone (``width``
    discrete Laplace variables of ``scale``, P(x) ∝ p^|x|, p = e^(−1/scale)) reaches it in any of ``tests``
    sums with probability at most ``alarm`` (union bound).  One cell: the exact tail P(X ≥ t) = p^t/(1 + p).
    More: the exact distribution of the sum (convolution by FFT), on a grid of scale/50 when the scale exceeds
    50 (the discrete Laplace is then the continuous one to within the step).  Public: it depends on ε, the
    relation and the cell layout only."""
    return _threshold(float(scale), width, max(tests, 1), alarm)


@functools.lru_cache(maxsize=256)
def _threshold(b: float, width: int, tests: int, alarm: float) -> float:
    target = alarm / tests
    p = math.exp(-1 / b)
    if width == 1:
        return math.ceil(math.log(target * (1 + p)) / math.log(p))
    step = max(1.0, b / 50)
    p = math.exp(-step / b)
    reach = math.ceil(40 * b / step)  # the mass beyond 40 scales is below e^−40
    one = p ** np.abs(np.arange(-reach, reach + 1)) * (1 - p) / (1 + p)
    size = width * 2 * reach + 1
    total = np.fft.irfft(np.fft.rfft(one, 1 << (size - 1).bit_length()) ** width)[:size]
    tail = np.cumsum(total[::-1])[::-1]  # tail[i] = P(S ≥ (i − width·reach)·step)
    i = int(np.flatnonzero(tail <= target)[0])
    return (i - width * reach) * step


def clear_runs(counts: np.ndarray, scale: Fraction, full: np.ndarray | None = None,
               terms: np.ndarray | None = None) -> tuple[int, int] | None:
    """The first and last index of the cells clearly holding values, or None.  Found in ``counts``: single cells
    whose noisy count is clearly above noise (:func:`clear_threshold`, one :data:`FALSE_ALARM` shared by every
    run tested anywhere), then, by increasing width (:data:`WINDOWS`), runs wholly outside the cells found so
    far (a run overlapping a full cell would pass because of that cell).  Then extended: values are contiguous,
    so the run of each width of :data:`EXTEND_WINDOWS` just beyond either end needs only a threshold for those
    few tests (:data:`EXTEND_ALARM` per side and step), in ``counts`` or in ``full`` (cells summing ``terms``
    noisy counts each; default ``counts``, one each), and the bounds grow while one passes."""
    tests = sum(max(len(counts) - width + 1, 0) for width in WINDOWS)
    cumulative = np.concatenate([[0.0], np.cumsum(counts.astype(float))])
    found: tuple[int, int] | None = None
    for width in WINDOWS:
        if width > len(counts):
            break
        starts = np.flatnonzero(cumulative[width:] - cumulative[:-width] >= clear_threshold(scale, width, tests))
        if found is not None:
            starts = starts[(starts + width - 1 < found[0]) | (starts > found[1])]
        if len(starts):
            ends = starts + width - 1
            found = (int(starts.min()), int(ends.max())) if found is None else \
                (min(found[0], int(starts.min())), max(found[1], int(ends.max())))
    if found is None:
        return None
    first, last = found
    full = counts if full is None else full
    summed = np.concatenate([[0.0], np.cumsum(full.astype(float))])
    noisy = np.concatenate([[0], np.cumsum(np.ones(len(full), dtype=np.int64) if terms is None else terms)])

    def clear(start: int, stop: int) -> bool:
        tests = 2 * len(EXTEND_WINDOWS)
        return bool(cumulative[stop] - cumulative[start] >= clear_threshold(scale, stop - start, tests, EXTEND_ALARM)
                    or summed[stop] - summed[start] >= clear_threshold(scale, int(noisy[stop] - noisy[start]), tests,
                                                                       EXTEND_ALARM))

    grown = True
    while grown:
        grown = False
        width = next((w for w in EXTEND_WINDOWS if first - w >= 0 and clear(first - w, first)), 0)
        first, grown = first - width, width > 0
        width = next((w for w in EXTEND_WINDOWS if last + 1 + w <= len(full) and clear(last + 1, last + 1 + w)), 0)
        last, grown = last + width, grown or width > 0
    return first, last


def _measure(name: str, source: DraftSource, budgets: dict[str, Fraction], relation: Neighbours,
             accountant: Accountant, rng: RandomSource, bins: int, value_range: float) -> ColumnProposal:
    """The releases of one column (``budgets``: its planned ε by step) and the proposal they support."""
    cells = Cells.within(value_range)
    histogram = DiscreteLaplace(budgets["histogram"], relation.count_sensitivity)
    noisy = histogram.release(source.histogram(name, cells.candidates, cells.edges, YEARS), accountant, rng,
                              step=f"{name}: histogram",
                              measured=f"{name}: fields by kind, numbers by public cell, ISO dates by year")
    at = len(FIELD_CELLS)
    candidates = noisy[at:at + len(cells.candidates)]
    intervals = noisy[at + len(cells.candidates):at + len(cells.candidates) + len(cells.edges) + 1]
    years = noisy[at + len(cells.candidates) + len(cells.edges) + 1:]
    decimals = None
    if "decimals" in budgets:
        counter = DiscreteLaplace(budgets["decimals"], relation.count_sensitivity)
        counted = counter.release(source.decimal_counts(name), accountant, rng, step=f"{name}: decimals",
                                  measured=f"{name}: numbers by decimals written")
        threshold = clear_threshold(counter.scale, 1, len(DECIMAL_CELLS))
        decimals = [bool(x >= max(PRESENT_SHARE * max(int(counted.sum()), 0), threshold)) for x in counted]
    declared = source.declared(name)
    totals = {"numeric": int(candidates.sum() + intervals.sum()), "date": int(years.sum()), "text": int(noisy[1])}
    kind = ("numeric" if declared.family in ("int", "float") else "date" if declared.family in ("datetime", "date")
            else max(totals, key=lambda k: totals[k]) if max(totals.values()) > 0 else None)
    dtype = nullable_twin(declared.dtype) if declared.dtype is not None else None
    if kind is None:
        return ColumnProposal(name, None, "no field is non-empty in the noisy counts: dropped")
    if kind == "text":
        return ColumnProposal(name, None, TEXT_REASON)
    if kind == "date":
        run = clear_runs(years, histogram.scale)
        first, last = run if run is not None else (int(np.argmax(years)),) * 2
        return _date_attribute(name, YEARS[0] + first, YEARS[0] + last, bins, dtype, run is not None)
    integer = declared.family == "int" or (decimals is not None and not any(decimals[1:]))
    places = 0 if integer else max(d for d, seen in enumerate(decimals or [True]) if seen)
    specials = _point_masses(cells, candidates, intervals, histogram.scale, totals["numeric"], places)
    return _numeric_attribute(name, cells, candidates, intervals, specials, histogram.scale, places, bins, dtype)


def _point_masses(cells: Cells, candidates: np.ndarray, intervals: np.ndarray, scale: Fraction, numbers: int,
                  places: int) -> list[float]:
    """The candidates released as point masses: noisy count clearly above noise (over all candidates), at
    least :data:`POINT_MASS_SHARE` of the noisy numbers, and :data:`POINT_MASS_RATIO` times the noisy count
    of its cell per value representable there with ``places`` decimals (0 has no cell: always allowed)."""
    clear = max(clear_threshold(scale, 1, len(cells.candidates)), float(POINT_MASS_SHARE) * max(numbers, 0))
    where = np.searchsorted(np.asarray(cells.edges), np.asarray(cells.candidates), side="right")
    out = []
    for c, x, i in zip(cells.candidates, candidates, where):
        low, high = cells.interval(int(i))
        per_value = max(float(intervals[i]), 0.0) / max((high - low) * 10**places, 1.0)
        if x >= clear and (c == 0 or x >= POINT_MASS_RATIO * per_value):
            out.append(c)
    return out


def _numeric_attribute(name: str, cells: Cells, candidates: np.ndarray, intervals: np.ndarray,
                       specials: list[float], scale: Fraction, places: int, bins: int,
                       dtype: str | None) -> ColumnProposal:
    """Bounds at the outer edges of the clear runs of the numbers (:func:`clear_runs`): a candidate that is
    not a point mass joins its cell in the search when its own count is clearly above noise (below that it
    would add noise and, selected for being large, false runs), and every one joins in the growth.
    ``scale: log`` when the run spans two decades above 0 with most values in the first linear bin.  When
    only point masses clear the noise, their range in one bin; with nothing clear, the fullest cell.
    Values outside are clipped, never sent to missing."""
    whole = [math.ceil(low) < high or low == high for low, high in map(cells.interval, range(len(intervals)))]
    located = np.where(places > 0 or np.asarray(whole), intervals, 0).astype(float)  # whole numbers: none in (0, 1)
    where = np.searchsorted(np.asarray(cells.edges), np.asarray(cells.candidates), side="right")
    clear = clear_threshold(scale, 1, len(cells.candidates))
    masses, full, terms = np.zeros_like(located), located.copy(), np.ones(len(located), dtype=np.int64)
    for c, x, i in zip(cells.candidates, candidates, where):
        if x >= clear:
            (masses if c in specials else located)[i] += float(x)
        if c not in specials:  # every candidate's count (and noise) where the bounds grow cell by cell
            full[i], terms[i] = full[i] + float(x), terms[i] + 1
    run = clear_runs(located, scale)
    if run is not None:  # the point masses are values too: the bounds cover them
        run = clear_runs(located + masses, scale, full + masses, terms)
    reasons = []
    if run is None and specials:
        lower, upper, bins = min(specials), max(specials), 1
        reasons.append("no other values clear the noise: one bin over the point masses")
    else:
        first, last = run if run is not None else (int(np.argmax(located)),) * 2
        lower, upper = cells.interval(first)[0], cells.interval(last)[1]
        reasons.append(f"numbers; bounds {_plain(lower)}..{_plain(upper)} are the outer edges of the public cells "
                       + ("clearly above noise" if run is not None else "with the largest noisy count"))
    if places == 0:
        lower, upper = math.floor(lower), math.ceil(upper)
    if upper <= lower:
        upper = lower + 1 if places == 0 else next((e for e in cells.edges if e > lower), lower + 1)
    attribute: dict[str, Any] = {"name": name, "kind": "numeric", "lower": _plain(lower), "upper": _plain(upper),
                                 "bins": bins, "integer": places == 0}
    if places:
        attribute["decimals"] = places
        reasons.append(f"{places} decimals (noisy counts)")
    if run is not None and _mostly_low(cells, located, run, lower, upper, bins):
        attribute["scale"] = "log"
        reasons.append("scale log: two decades or more, most values in the first linear bin")
    if specials:
        attribute["special_values"] = [_plain(v) for v in specials]
        reasons.append(f"point masses {attribute['special_values']} (noisy share at least 2 %)")
    if dtype is not None:
        attribute["dtype"] = dtype
    attribute.update(missing="category", invalid="clip")
    return ColumnProposal(name, attribute, "; ".join(reasons))


def _mostly_low(cells: Cells, located: np.ndarray, run: tuple[int, int], lower: float, upper: float,
                bins: int) -> bool:
    """Whether the run spans two decades or more above 0 and more than half its noisy count (negative cells
    as 0) lies in cells below the first linear bin's upper edge: log bins then resolve the bulk."""
    first, last = run
    lowest = min((cells.interval(i)[0] for i in range(first, last + 1) if cells.interval(i)[0] > 0), default=0.0)
    if lower < 0 or lowest <= 0 or upper < 100 * lowest:
        return False
    kept = np.maximum(located[first:last + 1], 0.0)
    low = sum(x for i, x in zip(range(first, last + 1), kept) if cells.interval(i)[1] <= lower + (upper - lower) / bins)
    return bool(low > kept.sum() / 2)


def _date_attribute(name: str, first: int, last: int, bins: int, dtype: str | None, clear: bool) -> ColumnProposal:
    attribute: dict[str, Any] = {"name": name, "kind": "date", "lower": f"{first:04d}-01-01",
                                 "upper": f"{last:04d}-12-31", "bins": bins, "granularity": "day"}
    if dtype is not None:
        attribute["dtype"] = dtype
    attribute.update(missing="category", invalid="clip")
    return ColumnProposal(name, attribute, f"ISO dates; bounds {first}..{last}: the years "
                                           + ("clearly above noise" if clear else "with the largest noisy count"))


def _plain(x: float) -> int | float:
    x = float(f"{x:.12g}")
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


__all__ = ["Cells", "PrivateDraft", "cell_edges", "clear_threshold", "column_steps", "draft_plan", "private_draft",
           "public_candidates"]
