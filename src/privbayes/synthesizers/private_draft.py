"""A schema draft that is itself ε-differentially private (``privbayes schema infer --epsilon``).

``schema infer`` without ε reads the domain from the data and says so (NOT covered by ε); attacks on
PrivBayes with a data-derived domain reach AUC 1.0 (Ganev et al. 2025).  This draft releases the
domain under pure ε-DP instead, for either neighbouring relation, and records its cost in the file
(``private_draft:``), so that a fit on it reports draft + fit by sequential composition.

Public inputs alone fix the plan (:func:`draft_plan`): the column names, the declared column types
of a DataFrame or Parquet file (never a ``category``'s categories: those are data), ε, the relation,
the public range R, and public candidate lists (``categories``).  A column with a public list (or a
boolean dtype) costs nothing; every other column gets ε/m (m such columns) in six releases
(:data:`STEPS`), each through a mechanism of :mod:`privbayes.privacy` charging one :class:`Accountant`
(the exact counts come from :mod:`privbayes.counting.private_draft`).  Count vectors have L1
sensitivity 1 under add-remove, 2 under replace-one (each row is in one cell); the quantile utility
has Δ = 1 under both (below).

1. ``kinds`` (1/16): discrete Laplace on the counts of :data:`FIELD_KINDS` (empty, whole number,
   number with 1..6+ decimals, ISO date, other text).  Decides the kind (a public dtype wins),
   ``integer`` and ``decimals`` (a cell counts when it reaches 1 % and 7 noise scales).
2. ``point masses`` (3/16): discrete Laplace on the rows equal to public candidates (0, sentinels such
   as −1, 99, 999, and round numbers of one significant digit); proposed as ``special_values`` when
   the noisy count reaches 2 % of the numbers and 7 noise scales (noise alone rarely does).
3. ``magnitudes`` (1/8): discrete Laplace on the numbers by sign and decade of magnitude; the grid
   of the quantiles keeps the decades that clearly hold numbers (post-processing).
4. ``median``, ``lower bound``, ``upper bound`` (1/8, 1/4, 1/4): private quantiles (Smith 2011) by
   permute-and-flip (McKenna & Sheldon 2020) over a public grid of round numbers of two significant
   digits in [−R, R] (whole years 1800..2200 for dates), of the values that are not point masses,
   utility u(c) = −|(1−q)·#{x ≤ c} − q·#{x > c}|, which needs no n: a replacement moves one row
   across c at most, so u moves by (1−q) + q = 1; an addition or removal by (1−q) or q.  The bounds
   search one side of the released median each, with a public penalty per grid step away from it
   that breaks the ties beyond the data towards its edge.  q is the smallest share the noisy count
   and ε can resolve (:func:`tail_share`: 1/200 for large columns, up to 1/10), and a bound at q >
   1/200 is widened to where a normal with the same quantiles leaves 1/200 (:func:`widened`), so
   that a small budget does not clip the tails into the end bins.

Every release runs for every measured column whatever the earlier ones said (their output is then
unused), so the ledger equals the plan and sums to ε exactly.  Text columns without a public
candidate list are dropped: under pure ε a value no public list names cannot be released (docs/
decisions.md, "Private schema drafts").  Values outside the released domain never make a fit fail:
numeric and date columns are ``invalid: clip``, categorical ones ``missing``/``invalid: category``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np
import yaml

from privbayes.counting.coltypes import ColumnType
from privbayes.counting.draft import ColumnProposal
from privbayes.counting.private_draft import FIELD_KINDS, DraftSource, draft_source
from privbayes.errors import InputError
from privbayes.io import read_structured
from privbayes.limits import limits
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import DiscreteLaplace, PermuteAndFlip, discrete_laplace_variance
from privbayes.privacy.neighbours import Neighbours
from privbayes.privacy.neighbours import neighbours as relation_named
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.privacy.samplers import RandomSource, RationalScores, random_source
from privbayes.schema import DEFAULT_BINS, DraftRelease, Schema, date_ordinal, date_text
from privbayes.schema.dtypes import nullable_twin
from privbayes.schema.serialisation import attribute_to_dict
from privbayes.validation import check_count, check_epsilon, check_positive, check_seed, exact

TAIL_SHARES = (Fraction(1, 200), Fraction(1, 100), Fraction(1, 50), Fraction(1, 40), Fraction(1, 20), Fraction(1, 10))
"""The public ladder of q: the bounds are the q- and (1 − q)-quantiles for the smallest q that the noisy
count and ε can resolve (:func:`tail_share`)."""
QUANTILE_SENSITIVITY = Fraction(1)
QUANTILE_CONFIDENCE = 1
TARGET_SHARE = Fraction(1, 200)
"""The tail share the bounds aim at: a released q-quantile with q above it is extrapolated outward to
where a normal with the same median and quantile has TARGET_SHARE (:func:`widened`)."""
DEFAULT_RANGE = 10**9
MAX_RANGE = 10**15
"""Numbers above 10^15 are not whole in float64 arithmetic: the grid (and its size) stops there."""
YEARS = (1800, 2200)
POINT_MASS_SHARE = Fraction(1, 50)
POINT_MASS_SCALES = 7
MAGNITUDE_SCALES = 3
"""A decade of magnitude holds numbers when its noisy count reaches MAGNITUDE_SCALES noise scales."""
KIND_SHARE = Fraction(1, 100)
SENTINELS = (-1, -9, -99, -999, 99, 999, 9999, 99999, 999999)
POINT_MASS_RANGE = 10**6
"""Point-mass candidates: :data:`SENTINELS`, 0 and the positive round numbers of one significant digit up to
POINT_MASS_RANGE."""
PENALTY_STEPS = {False: 10, True: 1}
"""The quantile's tie-breaking penalty grows by 2Δ/ε every PENALTY_STEPS[dates] grid steps away from the
median: every tenth step of the fine number grid (two significant digits), every step of the year grid."""
STEPS = (("kinds", Fraction(1, 16)), ("point masses", Fraction(3, 16)), ("magnitudes", Fraction(1, 8)),
         ("median", Fraction(1, 8)), ("lower bound", Fraction(1, 4)), ("upper bound", Fraction(1, 4)))
"""The releases of each measured column and their shares of its ε (public, fixed before reading)."""
MECHANISM = ("private schema draft: discrete Laplace counts of field kinds, public point-mass candidates and "
             "magnitudes; private median and q-quantiles (q from 1/200 to 1/10 by the noisy count) by "
             "permute-and-flip over public round grids")
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
    """A schema draft of ``data`` (a DataFrame, a path or a TableFile) released under ε-DP.

    ``categories``: public candidate lists, a mapping column → list or a YAML/JSON file of one, or a
    schema file whose categorical attributes' categories (and taxonomies) are taken as public;
    ``value_range``: the public bound R of numbers (bounds are searched in [−R, R]); ``seed``: a
    reproducible draft (do not publish seeded releases)."""
    total = check_epsilon(exact(epsilon, "epsilon") if isinstance(epsilon, str) else epsilon)
    relation = relation_named(neighbours)
    seed = check_seed(seed)
    bins = check_count(bins, "bins", 1)
    value_range = check_positive(value_range, "value range")
    if not 1e-3 <= value_range <= MAX_RANGE:
        raise InputError(f"value range ({value_range!r}) must be between 0.001 and {MAX_RANGE:g}")
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
    plan = draft_plan(measured, total, relation)
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
            proposals.append(_measure(name, source, budgets, relation, accountant, rng, bins, float(value_range)))
    plan.check(accountant.ledger)
    ledger = tuple((e.step, e.mechanism, e.epsilon, e.sensitivity, e.measured) for e in accountant.ledger)
    return PrivateDraft(tuple(proposals), DraftRelease(total, relation.name, MECHANISM, ledger))


def tail_share(count: int, epsilon: Fraction, dates: bool = False) -> Fraction:
    """q for a column of about ``count`` values (a noisy count: paid for): the smallest q of :data:`TAIL_SHARES`
    with q·count ≥ (2Δ/ε)(ln(1/(1 − e^−1/s)) + 1), s = :data:`PENALTY_STEPS`, else the largest.  Every
    candidate beyond the data scores about q·count below the quantile, and with the outward penalty of
    :func:`_quantile` those candidates together weigh at most 1/(1 − e^−1/s) times the first of them: the
    bound then lands beyond the data with probability below e^−1, and then near its edge.  A smaller q
    would let the mechanism mistake the outside for the quantile (McSherry & Talwar 2007's bound)."""
    outside = -math.log(1 - math.exp(-1 / PENALTY_STEPS[dates]))
    needed = 2 * QUANTILE_SENSITIVITY / epsilon * (outside + QUANTILE_CONFIDENCE)
    return next((q for q in TAIL_SHARES if q * max(count, 1) >= needed), TAIL_SHARES[-1])


def draft_plan(measured: list[str], total: Fraction, relation: Neighbours) -> BudgetPlan:
    """The releases of a private draft, from public inputs only: :data:`STEPS` for each measured column,
    ε split evenly across columns."""
    per_column = total / len(measured)
    releases = []
    for index, name in enumerate(measured):
        for step, share in STEPS:
            bounds = step in ("median", "lower bound", "upper bound")
            releases.append(PlannedRelease(
                f"{name}: {step}", PermuteAndFlip.name if bounds else DiscreteLaplace.name, per_column * share,
                kind=step, index=index,
                sensitivity=QUANTILE_SENSITIVITY if bounds else relation.count_sensitivity))
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

def _measure(name: str, source: DraftSource, budgets: dict[str, Fraction], relation: Neighbours,
             accountant: Accountant, rng: RandomSource, bins: int, value_range: float) -> ColumnProposal:
    """The releases of one column (``budgets``: its planned ε by step) and the proposal they support."""
    kinds = DiscreteLaplace(budgets["kinds"], relation.count_sensitivity)
    counts = kinds.release(
        source.kind_counts(name), accountant, rng, step=f"{name}: kinds", measured=f"{name}: fields by kind")
    declared = source.declared(name)
    numbers, days, texts = int(counts[1:-2].sum()), int(counts[-2]), int(counts[-1])
    kind = ("numeric" if declared.family in ("int", "float") else "date" if declared.family in ("datetime", "date")
            else None)
    if kind is None and max(numbers, days, texts) > 0:
        kind = "numeric" if numbers >= max(days, texts) else "date" if days >= texts else "text"
    dates = kind == "date"
    candidates = point_mass_candidates(value_range)
    masses = DiscreteLaplace(budgets["point masses"], relation.count_sensitivity)
    noisy = masses.release(source.value_counts(name, candidates), accountant, rng, step=f"{name}: point masses",
                           measured=f"{name}: rows at public point-mass candidates")
    threshold = max(POINT_MASS_SHARE * max(numbers, 0), POINT_MASS_SCALES * masses.scale)
    specials = [] if dates else [c for c, x in zip(candidates, noisy) if x >= threshold]
    rest = (days if dates else numbers) - sum(int(x) for c, x in zip(candidates, noisy) if c in specials)
    decades = list(range(-3, _top_decade(value_range) + 1))
    spread = DiscreteLaplace(budgets["magnitudes"], relation.count_sensitivity)
    cells = spread.release(source.magnitude_counts(name, decades), accountant, rng, step=f"{name}: magnitudes",
                           measured=f"{name}: numbers by sign and decade of magnitude")
    kept = [bool(x >= MAGNITUDE_SCALES * spread.scale) for x in cells]
    low_grid, high_grid = ((_year_grid("01-01"), _year_grid("12-31")) if dates
                           else (round_grid(value_range, decades, kept),) * 2)
    half, q = Fraction(1, 2), tail_share(rest, budgets["lower bound"], dates)
    middle = _quantile(name, "median", half, low_grid, 0, dates, specials, source, budgets, accountant, rng)
    lower = low_grid[_quantile(name, "lower bound", q, low_grid[:middle + 1], middle, dates, specials, source,
                               budgets, accountant, rng)]
    upper = high_grid[middle + _quantile(name, "upper bound", 1 - q, high_grid[middle:], 0, dates, specials,
                                         source, budgets, accountant, rng)]
    if not dates:
        lower, upper = widened(lower, low_grid[middle], upper, q, round_grid(value_range))
    if not dates and lower >= upper:
        upper = next((c for c in high_grid if c > lower), lower + 1)
    if kind is None:
        return ColumnProposal(name, None, "no field is non-empty in the noisy counts: dropped")
    if kind == "text":
        return ColumnProposal(name, None, TEXT_REASON)
    dtype = nullable_twin(declared.dtype) if declared.dtype is not None else None
    if dates:
        return _date_attribute(name, lower, upper, bins, dtype)
    present = [x >= max(KIND_SHARE * max(numbers, 0), POINT_MASS_SCALES * kinds.scale) for x in counts[2:-2]]
    # (almost) every number is a point mass: they are the categories, but only when the noisy rest is
    # clearly (two standard deviations) below the share; a rest the noise cannot resolve stays binned
    # (clipped to its bounds) rather than sent to <missing> (Adult's capital-gain at a small ε)
    rest_sd = math.sqrt((len(counts) - 3) * discrete_laplace_variance(kinds.scale)
                        + len(specials) * discrete_laplace_variance(masses.scale))
    if specials and rest + 2 * rest_sd < POINT_MASS_SHARE * max(numbers, 0):
        attribute = {"name": name, "kind": "binary" if len(specials) == 2 else "categorical",
                     "categories": [_plain(v) for v in specials]}
        attribute.update({"dtype": dtype} if dtype is not None else {})
        attribute.update(missing="category", invalid="category")
        return ColumnProposal(name, attribute, "numbers that are (almost) all point masses: these as categories")
    return _numeric_attribute(name, present, lower, upper, specials, declared, bins, dtype)


def widened(lower: float, median: float, upper: float, q: Fraction, grid: list[float]) -> tuple[float, float]:
    """Bounds released as the q- and (1 − q)-quantiles, pushed outward to the grid points where a normal
    with the same median and quantiles has :data:`TARGET_SHARE` in each tail: each side's distance from
    the median times z(TARGET_SHARE)/z(q) (post-processing).  A small ε or count forces a large q
    (:func:`tail_share`); without this the bounds would clip the q tails (5 % for q = 1/20) into the end
    bins.  Bounds at or above 0 stay at or above 0 (amounts, counts)."""
    if q <= TARGET_SHARE:
        return lower, upper
    normal = NormalDist()
    stretch = normal.inv_cdf(float(1 - TARGET_SHARE)) / normal.inv_cdf(float(1 - q))
    low = median - (median - lower) * stretch
    high = median + (upper - median) * stretch
    low = max(low, 0.0) if lower >= 0 else low
    return (max((c for c in grid if c <= low), default=lower), min((c for c in grid if c >= high), default=upper))


def point_mass_candidates(value_range: float) -> list[float]:
    """The public point-mass candidates inside [−R, R], ascending (:data:`POINT_MASS_RANGE`)."""
    top = min(value_range, POINT_MASS_RANGE)
    rounds = {float(f"{m}e{k}") for m in range(1, 10) for k in range(7)}
    return sorted(c for c in rounds | {0.0} | {float(c) for c in SENTINELS} if abs(c) <= top)


def _quantile(name: str, step: str, q: Fraction, grid: list[float], origin: int, dates: bool, specials: list[float],
              source: DraftSource, budgets: dict[str, Fraction], accountant: Accountant, rng: RandomSource) -> int:
    """The index in ``grid`` of the point released as the q-quantile.  Utility −|(1−q)·#{x ≤ c} − q·#{x > c}|,
    over the values that are not released point masses (``specials``), for a bound (q ≠ 1/2) minus a public
    penalty of 2Δ/ε per :data:`PENALTY_STEPS` grid steps away from ``origin`` (the released median's index;
    the grid holds one side of it): candidates beyond the data all score alike, and the penalty makes the
    nearest of them (a factor e per ten steps) the likely ones rather than any of them.  The penalty is a
    public function of the candidate, so the sensitivity is the utility's.  Scores are exact rationals
    over one denominator."""
    epsilon = budgets[step]
    at_most, above = source.split_counts(name, grid, dates, specials)
    penalty = 2 * QUANTILE_SENSITIVITY / epsilon / PENALTY_STEPS[dates] if q != Fraction(1, 2) else Fraction(0)
    steps = np.abs(np.arange(len(grid), dtype=np.int64) - origin)
    # (1 − q)·A − q·B over q's denominator (q = k/m), then the penalty, all over one denominator
    rank = np.abs((1 - q).numerator * at_most - q.numerator * above) * penalty.denominator
    numerators = -(rank + steps * penalty.numerator * q.denominator)
    scores = RationalScores(numerators, q.denominator * penalty.denominator)
    return PermuteAndFlip(epsilon, QUANTILE_SENSITIVITY).release(
        scores, accountant, rng,  # type: ignore[arg-type]  # exact rationals, as the samplers take them
        step=f"{name}: {step}", measured=f"{name}: the {float(q):g}-quantile on a public grid")


def _numeric_attribute(name: str, decimals: list[bool], lower: float, upper: float, specials: list[float],
                       declared: ColumnType, bins: int, dtype: str | None) -> ColumnProposal:
    """``decimals[d]``: whether numbers with d + 1 decimals are clearly present in the noisy counts."""
    integer = declared.family == "int" or not any(decimals)
    reasons = [f"numbers; bounds {_plain(lower)}..{_plain(upper)} are private quantiles on a round grid"]
    if integer:
        lower, upper = float(math.floor(lower)), float(math.ceil(upper))
        if upper - lower + 1 <= bins:  # the integers of a released small range are public candidates
            values = sorted(set(range(int(lower), int(upper) + 1)) | {int(v) for v in specials})
            attribute: dict[str, Any] = {"name": name, "kind": "binary" if len(values) == 2 else "categorical",
                                         "categories": values}
            if dtype is not None:
                attribute["dtype"] = dtype
            attribute.update(missing="category", invalid="category")
            return ColumnProposal(name, attribute, f"whole numbers in the small released range {values[0]}.."
                                                   f"{values[-1]}: its integers as categories")
    attribute = {"name": name, "kind": "numeric", "lower": _plain(lower), "upper": _plain(upper), "bins": bins,
                 "integer": integer}
    if not integer:
        attribute["decimals"] = max(d for d, seen in enumerate(decimals) if seen) + 1
        reasons.append(f"{attribute['decimals']} decimals (noisy counts)")
    if specials:
        attribute["special_values"] = [_plain(v) for v in specials]
        reasons.append(f"point masses {attribute['special_values']} (noisy share at least 2 %)")
    if dtype is not None:
        attribute["dtype"] = dtype
    attribute.update(missing="category", invalid="clip")
    return ColumnProposal(name, attribute, "; ".join(reasons))


def _date_attribute(name: str, lower: float, upper: float, bins: int, dtype: str | None) -> ColumnProposal:
    first, last = date_text(lower, "day"), date_text(upper, "day")
    attribute: dict[str, Any] = {"name": name, "kind": "date", "lower": first, "upper": last, "bins": bins,
                                 "granularity": "day"}
    if dtype is not None:
        attribute["dtype"] = dtype
    attribute.update(missing="category", invalid="clip")
    return ColumnProposal(name, attribute, f"ISO dates; bounds {first[:4]}..{last[:4]} are private quantiles over "
                                           "whole years")


def _top_decade(value_range: float) -> int:
    return max(math.floor(math.log10(value_range)), -3) if value_range >= 1e-3 else -3


def round_grid(value_range: float, decades: list[int] | None = None, kept: list[bool] | None = None) -> list[float]:
    """0 and ±m·10^k (m = 1.0, 1.1, …, 9.9, then 10^(k+1)) inside [−R, R], ascending: the public candidates of
    numeric bounds, round numbers of two significant digits (as the non-private draft rounds).  With the
    cells ``kept`` of a released magnitude histogram (:meth:`DraftSource.magnitude_counts` over ``decades``),
    only the decades that hold numbers (post-processing; all when none does)."""
    decades = decades if decades is not None else list(range(-3, _top_decade(value_range) + 1))
    width = len(decades)
    kept = kept if kept is not None and any(kept[:width] + kept[width + 1:]) else [True] * (2 * width + 1)
    signed = [(-1, k) for j, k in enumerate(reversed(decades)) if kept[j]]
    signed += [(1, k) for j, k in enumerate(decades) if kept[width + 1 + j]]
    grid = {0.0} | {sign * float(f"{m / 10}e{k}") for sign, k in signed for m in range(10, 101)}
    return sorted(c for c in grid if abs(c) <= value_range)


def _year_grid(day: str) -> list[float]:
    """The day ordinals of ``YYYY-<day>`` for the public years :data:`YEARS`."""
    return [float(date_ordinal(f"{year:04d}-{day}", "day") or 0.0) for year in range(YEARS[0], YEARS[1] + 1)]


def _plain(x: float) -> int | float:
    x = float(f"{x:.12g}")
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


__all__ = ["FIELD_KINDS", "PrivateDraft", "draft_plan", "private_draft", "public_candidates", "round_grid"]
