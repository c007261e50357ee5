"""The adaptive method's settings and budget plan, from public inputs before any data is read.

A fit spends ε in a fixed order (docs/decisions.md, "Adaptive marginals"):

1. under add/remove neighbours, a noisy count n̂ with ε/100 (as PrivBayes: n is private there);
2. the first measurements with ``initial_share`` of the rest: the 1-way marginal of every attribute,
   split in proportion to the square root of the attribute's size (the split that minimises the
   summed L1 noise Σ_a |Ω_a|·Δ/ε_a for a fixed total), or with ``init="network"`` PrivBayes's network
   and tables (:mod:`privbayes.methods.adaptive.network`); by default 1/2 of the rest for the 1-way marginals,
   3/4 for the network; with ``joint`` (the default) small attributes share one table
   (:func:`first_groups`), and below a signal n·ε/Δ of :data:`SMALL_SIGNAL` those tables get 11/20;
   when every attribute is binary the joint tables get :data:`BINARY_SHARE` (3/10) and the rounds
   choose among the 3-way marginals too (:meth:`AdaptiveSettings.degree_for`); above a signal of
   :data:`LARGE_SIGNAL` the first share falls with the signal (:func:`large_signal_share`);
3. T rounds, each a selection (permute-and-flip by default, or the exponential mechanism) with
   ``select_share`` of the round's budget (a quarter of it above a signal of :data:`CAPACITY_SIGNAL`)
   and a discrete-Laplace measurement of the selected marginal with the rest.  The rounds' budgets
   rise linearly, the last round getting ``ramp`` (4) times the first's: AIM's budget annealing made
   data-independent (the first rounds find the gross errors, which a small budget resolves; the later
   ones the finer errors, which need more), so the plan stays fixed before the data.

T is fixed before the data: ``rounds`` if given, else T = √(n·E_m / (Δ·θ)), E_m all the rounds'
measurement budget, at least 1 and at most :data:`MAX_ROUNDS_PER_ATTRIBUTE`·d, a cap that grows above a signal of
:data:`CAPACITY_SIGNAL` (:data:`ROUNDS_SIGNAL` under :data:`AUTO_VERSION` 4; :func:`capacity_cap`, :func:`rounds_cap`;
with a workload, at most its number of sets; under zCDP the cap does not grow, and is
:data:`ZCDP_ROUNDS_PER_ATTRIBUTE`·d from :data:`ZCDP_CAP_VERSION`).
Read as PrivBayes's θ-usefulness (TODS 2017, §4.3) of the rounds themselves: n·ε_m/Δ, the count a measurement at the
per-round ε_m = E_m/T resolves against its noise, must be at least θ·T (θ = 25 by default).  Under pure ε
every extra round makes every measurement noisier (ε composes linearly), so the number of rounds grows
with the square root of the signal, not linearly (docs/decisions.md, "Adaptive marginals": measured on
Adult, NLTCS, ACS and BR2000).  So the plan is a function of the
parameters, the schema and n (under add/remove: the noisy count, released first), and the fit checks
its ledger against it; a model file's loader recomputes it.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from privbayes.core.errors import InputError
from privbayes.core.limits import check_rounds, limits
from privbayes.core.validation import check_choice
from privbayes.methods.adaptive.candidates import Candidate, WorkloadSets, iter_leaf_candidates, workload_candidates
from privbayes.methods.adaptive.marginals import tree_cells
from privbayes.methods.adaptive.parameters import (  # noqa: F401 (the constants' home before the declarations)
    AUTO_VERSION,
    AUTO_VERSIONS,
    DEFAULT_MODEL_CELLS,
    DEGREES,
    INITS,
    MAX_NETWORK_DEGREE,
    PARAMETERS,
    RAMP,
    SELECTIONS,
    ZCDP_AUTO_VERSION,
)
from privbayes.methods.adaptive.workload import (
    DIRECT_SHARE,
    DIRECT_THETA,
    DIRECT_VERSION,
    OUTSIDE_WEIGHT,
    WORKLOAD_SHARE,
    Workload,
    WorkloadItem,
    direct_sets,
    split_weight,
)
from privbayes.methods.adaptive.zcdp import l2_sensitivity, laplace_equivalent, selection_rho
from privbayes.privacy.mechanisms import COUNT_SHARE, COUNT_STEP, DiscreteGaussian, Exponential
from privbayes.privacy.neighbours import Neighbours, neighbours
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.privacy.zcdp import epsilon_for
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.parameters import (
    ZCDP_KEYS,
    DeclaredSettings,
    PrivacyDefinition,
    read_parameters,
    to_parameters,
)

Entry = TypeVar("Entry", tuple[int, int, int], int)
"""A heap entry of :func:`first_groups`: a group's (cells, position, version), or a position."""

METHOD = "adaptive"
MECHANISM = "adaptive marginals (AIM-style selection under pure ε, consistent estimation on a junction tree)"
MECHANISM_ZCDP = ("adaptive marginals (AIM-style selection under zCDP: discrete Gaussian measurements, consistent "
                  "estimation on a junction tree)")
MAX_ROUNDS_PER_ATTRIBUTE = 2
"""The rounds rule gives at most this many rounds per attribute (each round refits the model)."""
SMALL_SIGNAL = 5000
"""Below this n·ε/Δ (the budget after the count) the joint first tables get :data:`SMALL_SIGNAL_SHARE` of ε."""
SMALL_SIGNAL_SHARE = Fraction(11, 20)
MERGE_GAIN = -0.3
"""First measurements: two groups are merged when √|Ω_g| + √|Ω_h| − √(|Ω_g|·|Ω_h|) exceeds this."""
BINARY_SHARE = Fraction(3, 10)
"""The joint first tables' share of ε when every attribute is binary (docs/decisions.md, "Adaptive marginals:
binary data")."""
MAX_AUTO_TRIPLES = 4096
"""The automatic degree is 3 on binary data with at most this many 3-way candidates (d ≤ 30): a bound, from the
public domain, on the candidates counted and scored each round."""
LARGE_SIGNAL = 20_000
"""Above this n·ε/Δ (the budget after the count) the automatic first share falls as √(LARGE_SIGNAL / (n·ε/Δ))
(:data:`AUTO_VERSION` 3; docs/decisions.md, "Capacity that follows n·ε")."""
MIN_SHARE = Fraction(1, 100)
ROUNDS_SIGNAL = 1_000_000
"""Above this n·ε/Δ (50 times :data:`LARGE_SIGNAL`) the rounds rule's cap grows with the signal under
:data:`AUTO_VERSION` 4 (:func:`rounds_cap`; version 5: above :data:`CAPACITY_SIGNAL`; docs/decisions.md, "Capacity
that follows n·ε").  Version 4 held it there: at 10⁶ rows under add/remove (signal 990,000) 39 rounds instead of 30
took 186 CPU s against 55; with version 5's quieter selection 43 rounds took 71."""
CAPACITY_SIGNAL = 100_000
"""Above this n·ε/Δ (5 times :data:`LARGE_SIGNAL`, above every paper dataset's signal on the grid: at most 60,141)
the rounds cap grows from here as well as from :data:`ROUNDS_SIGNAL`, and each round's selection gets a smaller
share of its budget (:func:`capacity_cap`, :meth:`AdaptiveSettings.select_share_for`; :data:`AUTO_VERSION` 5;
docs/decisions.md, "Capacity that follows n·ε")."""
SELECT_SCALE = Fraction(1, 4)
"""Above :data:`CAPACITY_SIGNAL` each round's selection gets this fraction of ``select_share`` (:data:`AUTO_VERSION`
5): its scores are counts, whose gaps grow with n while the selection's noise Δ/ε_s does not, so a small ε_s still
picks a badly fitted marginal and the rest measures it (on 10⁶ rows at ε = 1, shares 0.2 / 0.05 / 0.02 gave Q2
2.10 / 1.96 / 2.05 times the sampling floor)."""
ROUNDS_GROWTH = Fraction(1, 6)
"""The cap's growth: (n·ε/Δ / ROUNDS_SIGNAL) to this power: 1.47 times the cap at 10⁷ rows and ε = 1
(add/remove), 2.15 at 10⁸ (version 5 also 1.47 from a signal of 10⁶: :func:`capacity_cap`); slow, because each
round re-fits a model that grows towards its cell cap (at 10⁸ rows and 20 columns the 2²⁰-cell cap: seconds per
round)."""
WORKLOAD_MULTIPLE = 64
"""The junction tree is also capped at this many times the cells of all the candidate marginals of two or
more attributes (the workload's own size): a domain-scaled bound on the time and memory of each round
(docs/decisions.md, "Adaptive marginals: budget ramp and model cap")."""
ENCODING = "hierarchical"
"""The candidates are leaf marginals; the hierarchical encoding keeps the schema's attributes as they are."""
ZCDP_VERSION = 6
"""The :data:`AUTO_VERSION` from which the zCDP plan uses the rules below (docs/decisions.md, "zCDP mode": the
2026-11-27 re-tuning on Adult against AIM).  Files of earlier versions recompute their own plan."""
ZCDP_SELECT_SCALE = Fraction(1, 2)
"""Under zCDP each round's selection gets this fraction of ``select_share`` (1/10 by default: AIM's, VLDB 2022 Alg. 1).
At ρ_s = ε_s²/8 a selection's ε_s grows as √ρ_s: half the share keeps 71 % of its ε_s and gives the measurement the
rest (:meth:`AdaptiveSettings.select_share_for`)."""
ZCDP_FIRST_SHARE = Fraction(2, 5)
"""Under zCDP the 1-way start's share of ρ (not on binary data, nor with a workload, whose shares stay): Gaussian
noise composes as √T, so the rounds' marginals lose less from a larger share of ρ than under pure ε."""
ZCDP_RETUNED_VERSION = 7
"""The :data:`AUTO_VERSION` (zCDP only: :data:`ZCDP_AUTO_VERSION`) from which a zCDP plan whose rounds rule gives fewer
rounds than attributes has d rounds and :data:`ZCDP_FEW_SHARE` (:meth:`AdaptiveSettings.few_rounds`), and the 1-way
start's share falls with the signal from :data:`SMALL_SIGNAL` (:func:`zcdp_share`; docs/decisions.md, "zCDP mode": the
2026-11-28 re-tuning)."""
ZCDP_CAP_VERSION = 8
"""The :data:`AUTO_VERSION` (zCDP only) from which the zCDP rounds rule is capped at :data:`ZCDP_ROUNDS_PER_ATTRIBUTE`
rounds per attribute rather than :data:`MAX_ROUNDS_PER_ATTRIBUTE` (:func:`zcdp_rounds`; docs/decisions.md, "zCDP
mode": the 2026-11-28 cap)."""
ZCDP_ROUNDS_PER_ATTRIBUTE = 3
"""Under zCDP (from :data:`ZCDP_CAP_VERSION`) the rounds rule gives at most this many rounds per attribute.  Gaussian
noise composes as √T, so the rule (2n√ρ_m/(θΔ))^(2/3) asks for more rounds at large ρ than under pure ε (59 on
Adult and 52 on BR2000 at ε = 1.6, δ = 1e-9), and the pure cap 2·d held both at 30 and 28; each round re-fits the model,
so the cap stays, a half higher: the time it buys is what the AIM comparison allows (docs/peers.md)."""
ZCDP_FLAT_VERSION = 9
"""The :data:`AUTO_VERSION` (zCDP only) from which a zCDP plan gives every round the same ρ (:data:`ZCDP_RAMP`) rather
than budgets rising ``ramp`` (4) times (:meth:`AdaptiveSettings.ramp_for`; docs/decisions.md, "zCDP mode": equal
rounds)."""
ZCDP_RAMP = Fraction(1)
"""The last round's ρ over the first's under zCDP from :data:`ZCDP_FLAT_VERSION`: equal rounds.  The estimator fits
every measurement jointly, weighted by its noise; Gaussian noise composes as √T, and the rising budgets that suited
pure ε (AIM's annealing, made data-independent) left the early rounds' pairs noisy for the rest of the fit: on Adult
at ε = 1.6 the flat rounds lowered Q2 and Q3 on each of 5 seeds (3 % / 2 % on the mean); held out, no table or ε got
worse beyond the seeds' spread (ACS at 1.6: +1.5 % / +2.3 %, within it)."""
ZCDP_FEW_SHARE = Fraction(1, 2)
"""The 1-way start's share of ρ when :meth:`AdaptiveSettings.few_rounds` holds (where :data:`ZCDP_FIRST_SHARE` would
be the share): more rounds each measure less, and the 1-way marginals that every unmeasured pair rests on gain."""
ZCDP_PENALTY = Fraction(1, 2)
"""Under zCDP the score's noise penalty |Ω|·E|Z| is scaled by this (a plan setting, "penalty scale"): AIM's penalty
is the L1 noise of the raw measurement, but the estimate that follows fits it jointly with the marginals already
measured and removes much of that noise, so the full penalty kept the larger, strongly correlated pairs (education ×
occupation on Adult) from ever being measured."""


class AdaptiveSettings(DeclaredSettings, PrivacyDefinition):
    """The public parameters of an adaptive fit, validated once (one-line :class:`InputError` naming the
    parameter; declared in :mod:`privbayes.methods.adaptive.parameters`).  Budgets and shares are exact rationals
    of the decimals written (0.2 → 1/5)."""

    parameters = PARAMETERS
    epsilon: Fraction
    marginal_degree: int | None
    rounds: int | None
    initial_share: Fraction | None
    select_share: Fraction
    rounds_theta: float
    max_model_cells: int
    neighbours: str
    init: str
    ramp: Fraction
    selection: str
    joint: bool
    max_network_degree: int | None
    auto_version: int
    workload: Workload | None
    privacy: str
    delta: Fraction | None
    rho: Fraction | None

    def check(self) -> None:
        """A workload fixes the candidates (its sets and their subsets): a ``marginal_degree`` beside it is refused
        rather than silently ignored.  ``delta`` and ``rho`` belong to ``privacy="zcdp"``, which needs one of them
        and measures the 1-way marginals first (the network start is pure ε only); under zCDP the selection is the
        exponential mechanism (ε²/8-zCDP; permute-and-flip would pay ε²/2: docs/decisions.md, "zCDP mode").  A new
        fit's ``auto_version`` is the latest of its definition (:data:`AUTO_VERSION` under pure ε,
        :data:`ZCDP_AUTO_VERSION` under zCDP); versions above :data:`AUTO_VERSION` are zCDP only."""
        if self.auto_version is None:
            object.__setattr__(self, "auto_version", ZCDP_AUTO_VERSION if self.zcdp else AUTO_VERSION)
        elif self.auto_version > AUTO_VERSION and not self.zcdp:
            raise InputError(f"auto_version ({self.auto_version}) is zCDP only: pure-ε fits have versions up to "
                             f"{AUTO_VERSION}")
        if self.workload is not None and self.marginal_degree is not None:
            raise InputError("marginal_degree and workload: give one (the workload's sets and their subsets are the "
                             "candidates)")
        self.check_privacy()
        if not self.zcdp:
            return
        if self.init == "network":
            raise InputError("init 'network' is pure ε only; with privacy 'zcdp' use init 'auto' or 'oneway'")
        object.__setattr__(self, "selection", "exponential")

    @property
    def mechanism(self) -> str:
        """The release's mechanism line (model file and report)."""
        return MECHANISM_ZCDP if self.zcdp else MECHANISM

    @property
    def relation(self) -> Neighbours:
        return neighbours(self.neighbours)

    def encoding_for(self, schema: Schema) -> Encoding:
        return Encoding.build(schema, ENCODING)

    def init_for(self, encoding: Encoding) -> str:
        """The first measurements: ``init``, or with "auto" the 1-way marginals (small attributes jointly); under
        :data:`AUTO_VERSION` 1, the network's tables when every attribute is binary (docs/decisions.md,
        "Adaptive marginals" and "Adaptive marginals: binary data")."""
        if self.init != "auto":
            return self.init
        return "network" if self.auto_version == 1 and encoding.is_binary else "oneway"

    def degree_for(self, encoding: Encoding) -> int:
        """The largest candidate marginal: ``degree``, or when not given 3 on binary data (8-cell tables, at most
        :data:`MAX_AUTO_TRIPLES` of them) and 2 otherwise; always 2 under :data:`AUTO_VERSION` 1; with a
        ``workload``, its largest set's size."""
        if self.marginal_degree is not None:
            return self.marginal_degree
        sets = self.workload_sets(encoding)
        if sets:
            return max(len(s) for s, _ in sets)
        d = len(encoding.attributes)
        binary = self.auto_version >= 2 and encoding.is_binary and math.comb(d, 3) <= MAX_AUTO_TRIPLES
        return 3 if binary else 2

    def share_for(self, init: str, signal: float = math.inf, binary: bool = False, few: bool = False) -> Fraction:
        """The first measurements' share of ε: ``initial_share``, else 1/2 for the 1-way marginals (AIM's and
        OpenDP's default) and 3/4 for the network's tables (docs/decisions.md, "Adaptive marginals"); with
        ``joint`` first tables and a small ``signal`` n·ε/Δ (below :data:`SMALL_SIGNAL`), 11/20 for the first
        tables (docs/decisions.md, "Adaptive marginals: joint first marginals and permute-and-flip"); with joint
        first tables of ``binary`` attributes (:data:`AUTO_VERSION` 2), :data:`BINARY_SHARE`; else with a ``workload``
        (:data:`AUTO_VERSION` 4) :data:`~privbayes.methods.adaptive.workload.WORKLOAD_SHARE` (docs/decisions.md,
        "Workloads"); else under zCDP (:data:`ZCDP_VERSION`) :data:`ZCDP_FIRST_SHARE`, or with ``few`` rounds
        (:meth:`few_rounds`) :data:`ZCDP_FEW_SHARE`, from :data:`ZCDP_RETUNED_VERSION` scaled by :func:`zcdp_share`.
        Under :data:`AUTO_VERSION` 3 the 1-way share is scaled by √(:data:`LARGE_SIGNAL` / signal) above that signal
        (:func:`large_signal_share`); under :data:`AUTO_VERSION` 6 (pure ε, the 1-way start of a domain not all binary,
        no workload) by :func:`oneway_share`'s steeper factor."""
        if self.initial_share is not None:
            return self.initial_share
        if init != "oneway":
            return Fraction(3, 4)
        if self.joint and binary and self.auto_version >= 2:
            share = BINARY_SHARE
        elif self.workload is not None and self.auto_version >= 4:
            share = WORKLOAD_SHARE
        elif self.zcdp_rules:
            share = ZCDP_FEW_SHARE if few else ZCDP_FIRST_SHARE
            if self.auto_version >= ZCDP_RETUNED_VERSION:
                return zcdp_share(share, signal)
        else:
            share = SMALL_SIGNAL_SHARE if self.joint and signal < SMALL_SIGNAL else Fraction(1, 2)
            if self.auto_version >= 6 and not self.zcdp:
                return oneway_share(share, signal)
        return large_signal_share(share, signal) if self.auto_version >= 3 else share

    def model_cells_for(self, encoding: Encoding) -> int:
        """The fit's cap on the junction tree's cells: ``max_model_cells``, or less when the domain is small,
        :data:`WORKLOAD_MULTIPLE` times the cells of the candidate marginals of two or more attributes (a
        function of the public domain only).  The candidates are summed only until the multiple reaches
        ``max_model_cells``: a wide domain's plan does not enumerate its d²/2 pairs."""
        target = -(-self.max_model_cells // WORKLOAD_MULTIPLE)
        workload = 0
        for c in self.candidates_for(encoding, lazy=True):
            if len(c.attributes) > 1:
                workload += c.cells(encoding)
                if workload >= target:
                    break
        return min(self.max_model_cells, max(1, WORKLOAD_MULTIPLE * workload))

    def workload_sets(self, encoding: Encoding) -> WorkloadSets:
        """The ``workload``'s attribute sets and weights over ``encoding``'s attributes (empty without one); a
        one-line InputError names the workload's file and item for an unknown column or a set above the cell cap
        (public inputs only: raised before any table is counted)."""
        if self.workload is None:
            return ()
        attrs = encoding.attributes
        return self.workload.resolve([a.name for a in attrs], [a.size for a in attrs])

    def direct_sets(self, encoding: Encoding, n: int) -> tuple[tuple[int, ...], ...]:
        """The workload sets measured directly as first tables on n rows (the noisy count under add/remove;
        :data:`AUTO_VERSION` 5, the 1-way start): a small workload's maximal sets
        (:func:`~privbayes.methods.adaptive.workload.direct_sets`, at most the rounds rule's cap of
        :data:`MAX_ROUNDS_PER_ATTRIBUTE`·d) when each is θ-useful at its share of the first budget (PrivBayes's
        θ-usefulness, TODS 2017 §4.3, θ = :data:`~privbayes.methods.adaptive.workload.DIRECT_THETA`: its mean count
        per cell n/|Ω| at least θ times its noise's scale Δ/ε_i, under zCDP the Laplace-equivalent ε_i = 2√ρ_i);
        and their junction tree is within the model's cell cap (:meth:`model_cells_for`, as the rounds' filter);
        none without a workload, for a large one, at a small signal, or in files written before (docs/decisions.md,
        "Workloads")."""
        if self.workload is None or self.auto_version < DIRECT_VERSION or self.init_for(encoding) != "oneway":
            return ()
        sets = direct_sets(self.workload_sets(encoding), MAX_ROUNDS_PER_ATTRIBUTE * len(encoding.attributes))
        if not sets:
            return ()
        relation = self.relation
        rest = (self.total_rho() - (0 if relation.n_public else self.count_rho()) if self.zcdp else
                self.epsilon - (0 if relation.n_public else self.count_epsilon()))
        first = rest * (self.initial_share if self.initial_share is not None else DIRECT_SHARE)
        groups, weights = self._direct_tables(encoding, sets)
        sizes = [a.size for a in encoding.attributes]
        for group, weight in zip(groups[:len(sets)], weights):
            budget = first * weight / sum(weights)
            epsilon = laplace_equivalent(budget) if self.zcdp else float(budget)
            if n * epsilon < DIRECT_THETA * float(relation.count_sensitivity) * math.prod(sizes[a] for a in group):
                return ()
        if tree_cells(sizes, groups) > self.model_cells_for(encoding):  # the model-size filter the rounds apply
            return ()
        return sets

    def _direct_tables(self, encoding: Encoding,
                       sets: tuple[tuple[int, ...], ...]) -> tuple[tuple[tuple[int, ...], ...], list[Fraction]]:
        """``sets`` and the groups of the columns outside them, with their weights in the first share's split."""
        covered = {a for s in sets for a in s}
        outside = first_groups(encoding, self.joint, [a for a in range(len(encoding.attributes)) if a not in covered])
        sizes = [a.size for a in encoding.attributes]
        weights = [split_weight(math.prod(sizes[a] for a in g), self.zcdp) for g in sets]
        weights += [OUTSIDE_WEIGHT * split_weight(math.prod(sizes[a] for a in g), self.zcdp) for g in outside]
        return sets + outside, weights

    def first_tables(self, encoding: Encoding, n: int) -> tuple[tuple[tuple[int, ...], ...], list[Fraction]]:
        """The first measurements' attribute sets and their weights in the split of the first share: the groups of
        :func:`first_groups` weighted √|Ω| (:func:`oneway_weights`); or, with workload sets measured directly
        (:meth:`direct_sets`), those sets and then the groups of the columns outside them, weighted by
        :func:`~privbayes.methods.adaptive.workload.split_weight` (the outside groups times
        :data:`~privbayes.methods.adaptive.workload.OUTSIDE_WEIGHT`).  Public inputs only (n: public, or the noisy
        count)."""
        direct = self.direct_sets(encoding, n)
        if not direct:
            groups = first_groups(encoding, self.joint)
            return groups, oneway_weights(encoding, groups)
        return self._direct_tables(encoding, direct)

    def candidates_for(self, encoding: Encoding, lazy: bool = False) -> Iterable[Candidate]:
        """The candidate marginals of the rounds: with a ``workload`` its sets and their subsets (AIM's downward
        closure), else every set of 1..degree attributes (``lazy``: one at a time, for a reader that may stop
        early; :mod:`privbayes.methods.adaptive.candidates`)."""
        sets = self.workload_sets(encoding)
        if sets:
            return workload_candidates(sets)
        candidates = iter_leaf_candidates(encoding, self.degree_for(encoding))
        return candidates if lazy else tuple(candidates)

    def count_epsilon(self) -> Fraction:
        """ε of the noisy count (add/remove neighbours only)."""
        return self.epsilon * COUNT_SHARE

    def count_rho(self) -> Fraction:
        """ρ of the zCDP fit's noisy count (add/remove neighbours only): the same share of the budget."""
        return self.total_rho() * COUNT_SHARE

    def signal(self, n: int) -> float:
        """n·ε/Δ with ε the budget after the noisy count (under zCDP the Laplace-equivalent ε ≡ 2√ρ of that ρ):
        the count a table measured with all of it resolves against its noise.  ``n`` is public, or under
        add/remove the released noisy count, so every rule of this signal is a function of public inputs."""
        delta, public = float(self.relation.count_sensitivity), self.relation.n_public
        if self.zcdp:
            return n * laplace_equivalent(self.total_rho() - (0 if public else self.count_rho())) / delta
        return n * float(self.epsilon - (0 if public else self.count_epsilon())) / delta

    def ramp_for(self) -> Fraction:
        """The rounds' last budget over their first: ``ramp``; under zCDP from :data:`ZCDP_FLAT_VERSION`
        :data:`ZCDP_RAMP` (a version rule, as :data:`ZCDP_SELECT_SCALE` is: the stored ``ramp`` is the pure-ε one)."""
        return ZCDP_RAMP if self.zcdp and self.auto_version >= ZCDP_FLAT_VERSION else self.ramp

    def select_share_for(self, n: int) -> Fraction:
        """Each round's share of its budget for the selection: ``select_share``, times :data:`SELECT_SCALE` above a
        signal (:meth:`signal` of ``n``, public) of :data:`CAPACITY_SIGNAL` under pure ε and :data:`AUTO_VERSION`
        5; under zCDP times :data:`ZCDP_SELECT_SCALE` from :data:`ZCDP_VERSION` (at every signal)."""
        if self.zcdp:
            return self.select_share * (ZCDP_SELECT_SCALE if self.zcdp_rules else 1)
        if self.auto_version >= 5 and self.signal(n) > CAPACITY_SIGNAL:
            return self.select_share * SELECT_SCALE
        return self.select_share

    @property
    def zcdp_rules(self) -> bool:
        """Whether the zCDP rules of :data:`ZCDP_VERSION` apply (``privacy="zcdp"`` at that version or later)."""
        return self.zcdp and self.auto_version >= ZCDP_VERSION

    def few_rounds(self, rounds: int, encoding: Encoding) -> bool:
        """Whether a zCDP plan of :data:`ZCDP_RETUNED_VERSION` or later, whose rounds rule gave ``rounds`` (fewer than
        the d attributes; neither ``rounds`` nor a workload given: its rounds follow its sets), gets d rounds and
        :data:`ZCDP_FEW_SHARE` (:func:`zcdp_plan`).  At a small ρ the rule's few rounds leave most pairs to the model's
        independence: on Adult at ε = 0.1 (9 rounds) the 96 unmeasured pairs carry 0.065 of Q2's 0.071, and 15 rounds,
        each noisier, measure more of them."""
        return (self.zcdp and self.auto_version >= ZCDP_RETUNED_VERSION and self.rounds is None
                and self.workload is None and rounds < len(encoding.attributes))

    def few_workload_rounds(self, rule: float, encoding: Encoding, direct: bool) -> bool:
        """Whether a zCDP workload fit of :data:`ZCDP_RETUNED_VERSION` or later gets d rounds (its own first share
        kept): where its sets are not measured directly (``direct``) and the rounds rule before the workload's cap
        (``rule``, :func:`zcdp_rounds_rule`) gives fewer rounds than the d attributes.  With as many rounds as sets a
        small ρ measures a few noisy 3-way tables; d rounds measure more of their subsets (docs/decisions.md,
        "Workloads": on Adult at ε = 0.1, 10 seeds, the workload error fell 0.1032 → 0.0977, under the default's
        0.1005)."""
        return (self.zcdp and self.auto_version >= ZCDP_RETUNED_VERSION and self.rounds is None
                and self.workload is not None and not direct and rule < len(encoding.attributes))

    def plan(self, n: int, encoding: Encoding) -> BudgetPlan:
        """Every release of a fit on n rows (the noisy count under add/remove), in the fit's order."""
        if self.zcdp:
            return zcdp_plan(self, n, encoding)
        return adaptive_plan(self, n, encoding)

    def to_parameters(self, encoding: Encoding | None = None) -> dict[str, Any]:
        """The model file's ``parameters``: numbers for readers, exact text for the budgets.  The ``workload`` key
        only when a workload is given (files without one are as before), as its sets and weights over
        ``encoding``'s attributes when given (the shorthands expanded), else as written."""
        out = to_parameters(self, METHOD)
        del out["workload"]
        if not self.zcdp:  # pure-ε files as before
            for key in ZCDP_KEYS:
                del out[key]
        if self.workload is not None and encoding is None:
            out["workload"] = self.workload.document()
        elif self.workload is not None and encoding is not None:
            names = [a.name for a in encoding.attributes]
            out["workload"] = [WorkloadItem(weight, tuple(names[a] for a in s), len(s)).document()
                               for s, weight in self.workload_sets(encoding)]
        return out

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any]) -> AdaptiveSettings:
        """Settings from a model file's ``parameters`` (validated; unknown keys refused).  Files before the ramp
        (1.x adaptive models) had equal rounds; before the selection and joint settings, the exponential mechanism
        and one 1-way table per attribute; before the automatic choices were versioned, version 1."""
        check_choice(params.get("method"), "method", (METHOD,), allow_none=False)
        return cls(**read_parameters(PARAMETERS, params, owner="adaptive"))


def large_signal_share(share: Fraction, signal: float) -> Fraction:
    """``share`` scaled by √(:data:`LARGE_SIGNAL` / ``signal``) above :data:`LARGE_SIGNAL`, at least
    :data:`MIN_SHARE`, rounded down to 1/10,000 (an exact, deterministic function of public inputs).

    The first tables are few and small: their noise falls as 1/(n·ε₁) while their sampling error falls only
    as 1/√n, so at a large signal a fixed half of ε buys them precision far below what the sample can tell
    apart, and the rounds, which measure the many larger marginals the model still lacks, run short
    (docs/decisions.md, "Capacity that follows n·ε": on 10⁶ rows at ε = 1, the first share 1/10 instead of
    1/2 took Q2 from 4.2 to 3.4 times the sampling floor)."""
    if not signal > LARGE_SIGNAL:
        return share
    return _scaled_share(share, math.sqrt(LARGE_SIGNAL / signal))


def zcdp_share(share: Fraction, signal: float) -> Fraction:
    """The zCDP 1-way start's share from :data:`ZCDP_RETUNED_VERSION`: ``share`` scaled by √(:data:`SMALL_SIGNAL` /
    ``signal``) above that signal (:func:`large_signal_share`'s fall, from a quarter of its signal), at least
    :data:`MIN_SHARE`, rounded down to 1/10,000.  The Gaussian's noise composes as √T over the rounds, so a round's
    pair is measured more precisely than under pure ε at the same signal, and measures its two 1-way marginals again:
    on Adult at ε = 1.6 (signal 13,799) 1/4 instead of 2/5 lowered Q3 on each of 5 seeds (docs/decisions.md, "zCDP
    mode")."""
    if not signal > SMALL_SIGNAL:
        return share
    return _scaled_share(share, math.sqrt(SMALL_SIGNAL / signal))


def _scaled_share(share: Fraction, factor: float) -> Fraction:
    """``share`` times ``factor``, rounded down to 1/10,000, at least :data:`MIN_SHARE`."""
    return max(MIN_SHARE, Fraction(math.floor(10**4 * float(share) * factor), 10**4))


def oneway_share(share: Fraction, signal: float) -> Fraction:
    """The 1-way start's share under :data:`AUTO_VERSION` 6: ``share`` scaled by min(√(L/s), max(L/s, L/C)), s the
    ``signal``, L :data:`LARGE_SIGNAL`, C :data:`CAPACITY_SIGNAL`; at least :data:`MIN_SHARE`, rounded down to
    1/10,000 (an exact, deterministic function of public inputs).  Above L it falls as L/s rather than its root
    (:func:`large_signal_share`) until it is L/C (1/5) of ``share`` at C, stays there until the root falls below
    it (at 25·L), and is version 5's share beyond: at 10⁶ rows and ε = 1 the same 1/10 under replace-one, the same
    under add/remove.

    Between L and C the measurements are noisy (on the ground-truth benchmark at 10⁵ rows and ε = 1, ε = 1,000
    reaches 1.15 times the sampling floor, ε = 1 2.5-2.9 times) and the 1-way marginals are the least informative
    tables measured: each round's pair measures two of them again, with the pair's dependence.  There a first share
    of 1/5 instead of version 5's 0.3162 was lower in Q2 and Q3 on both samples and both fit seeds
    (docs/decisions.md, "Capacity that follows n·ε", "(late night): a steeper first share")."""
    if not signal > LARGE_SIGNAL:
        return share
    ratio = LARGE_SIGNAL / signal
    return _scaled_share(share, min(math.sqrt(ratio), max(ratio, LARGE_SIGNAL / CAPACITY_SIGNAL)))


def rounds_for(settings: AdaptiveSettings, n: int, encoding: Encoding, rounds_budget: Fraction) -> int:
    """T: the given ``rounds``, else the rounds rule of the module docstring; with a ``workload``, at most one
    round per workload set (docs/decisions.md, "Workloads": the sets are the targets, each measured once is
    covered, and every further round splits ε further; on Adult's eight 3-way sets 8 rounds instead of the rule's
    30 at ε = 1.6 nearly halved the workload error)."""
    if settings.rounds is not None:
        return check_rounds(settings.rounds, "rounds")
    d = len(encoding.attributes)
    measure = float(rounds_budget * (1 - settings.select_share_for(n)))
    signal = n * measure / float(settings.relation.count_sensitivity)
    most = MAX_ROUNDS_PER_ATTRIBUTE * d  # capped before rounding: a tiny θ makes the root infinite
    if settings.workload is not None:
        most = min(most, len(settings.workload_sets(encoding)))
    elif settings.auto_version >= 4:
        public = settings.signal(n)
        most = capacity_cap(most, public) if settings.auto_version >= 5 else rounds_cap(most, public)
    rule = int(max(1, round(min(math.sqrt(signal / settings.rounds_theta), most))))
    return check_rounds(rule, "the rounds rule's number of rounds")


def capacity_cap(most: int, signal: float) -> int:
    """The rounds cap under :data:`AUTO_VERSION` 5: version 4's growth (:func:`rounds_cap`) brought forward to
    :data:`CAPACITY_SIGNAL`, held from :data:`ROUNDS_SIGNAL` at its value there (1.47 times ``most``) until version
    4's own growth passes it (a signal of 10⁷), and version 4's cap beyond.  The rounds that pay at 10⁶ rows
    (docs/decisions.md, "Capacity that follows n·ε") are added where they were measured; from 10⁷ rows the plan's
    rounds are version 4's, whose time at 10⁸ and 10⁹ rows was measured (docs/scale.md), not a larger number
    nobody has run."""
    early = rounds_cap(most, min(signal, ROUNDS_SIGNAL), CAPACITY_SIGNAL)
    return max(early, rounds_cap(most, signal))


def rounds_cap(most: int, signal: float, start: float = ROUNDS_SIGNAL) -> int:
    """The rounds rule's cap at ``signal`` n·ε/Δ (:data:`AUTO_VERSION` 4; public: the signal the first share reads):
    ``most`` (:data:`MAX_ROUNDS_PER_ATTRIBUTE` per attribute) up to ``start`` (:data:`ROUNDS_SIGNAL`; under
    :data:`AUTO_VERSION` 5 :data:`CAPACITY_SIGNAL`), then scaled by (signal / start)^:data:`ROUNDS_GROWTH`, rounded
    down.  Where measurements are precise the model's
    capacity, not the noise, limits, and the rule's own T = √(n·E_m/(Δ·θ)) is far above the cap (≈ 120 rounds on
    10⁶ rows of 15 columns at ε = 1), so the plan at 10⁸ rows was the 2·d rounds of 10⁵ (docs/decisions.md, "Capacity
    that follows n·ε", the rounds cap: more rounds at 10⁶ rows came closer to the sampling floor once each re-fit
    started matched).  The threshold is above every paper dataset's signal on the grid (at most 72,000), so those
    fits and the release pins keep their plans.  The growth stops at the rounds limit (``PRIVBAYES_MAX_ROUNDS``):
    a large n never turns a plan the version-3 rule allowed into a refusal."""
    if not signal > start:
        return most
    grown = math.floor(most * math.pow(signal / start, float(ROUNDS_GROWTH)))
    return max(most, min(grown, limits().max_rounds))


def round_budgets(total: Fraction, rounds: int, ramp: Fraction) -> list[Fraction]:
    """``total`` split over the rounds in linearly rising budgets, the last ``ramp`` times the first
    (equal budgets when ``ramp`` is 1 or there is one round); exact rationals summing to ``total``.  The rises
    1 + (ramp − 1)·t/(T − 1) sum to T·(1 + ramp)/2: linear time in T, not quadratic."""
    if rounds == 1:
        return [total]
    unit = total / (rounds * (1 + ramp) / 2)
    return [unit * (1 + (ramp - 1) * Fraction(t, rounds - 1)) for t in range(rounds)]


def first_groups(encoding: Encoding, joint: bool,
                 columns: Sequence[int] | None = None) -> tuple[tuple[int, ...], ...]:
    """The attribute sets of the first measurements: one per attribute, or with ``joint`` small attributes
    measured together.  Groups are merged greedily while √(|Ω_g|·|Ω_h|) < √|Ω_g| + √|Ω_h| (largest gain
    first, ties by position): under the √-size split below, each attribute's 1-way noise then falls (its
    standard deviation per cell is Σ_g √|Ω_g| / (ε·√|Ω_a|) whether measured alone or in a group), and the
    joint table adds the group's 2-way marginals for nothing.  A function of the public domain only.

    The gain √x + √y − √(xy) = 1 − (√x − 1)(√y − 1) is largest for the two groups of fewest cells (any pair
    with a one-cell group gains 1), so each merge is found from a heap of (cells, position) in O(log d), not
    by scoring every pair: O(d log d) in all (docs/decisions.md, "Hostile parameters and model files").
    ``columns``: group only these attributes (the columns outside a workload measured directly)."""
    chosen = sorted(columns) if columns is not None else list(range(len(encoding.attributes)))
    sizes = [encoding.attributes[a].size for a in chosen]
    if not joint:
        return tuple((chosen[a],) for a in range(len(sizes)))
    members: dict[int, tuple[int, ...]] = {a: (a,) for a in range(len(sizes))}  # position → attributes
    cells = dict(enumerate(sizes))
    version = dict.fromkeys(cells, 0)  # a merged group's earlier heap entry is stale, even at equal cells
    by_cells = [(c, a, 0) for a, c in cells.items()]  # (cells, position, version)
    by_position = list(members)  # every live position, smallest first (already a heap)
    heapq.heapify(by_cells)

    def smallest(heap: list[Entry], live: Callable[[Entry], bool], count: int) -> list[Entry]:
        out: list[Entry] = []
        while heap and len(out) < count:
            top = heapq.heappop(heap)
            if live(top):
                out.append(top)
        for item in out:
            heapq.heappush(heap, item)
        return out

    while len(members) > 1:
        (c1, p1, _), (c2, p2, _) = smallest(by_cells, lambda e: version.get(e[1]) == e[2], 2)
        if c1 == 1:  # every pair with a one-cell group gains 1: the first such pair by position
            first, second = smallest(by_position, lambda p: p in members, 2)
            i, j = (first, p1) if first != p1 else (first, second)
        else:
            i, j = min(p1, p2), max(p1, p2)
        x, y = cells[i], cells[j]
        if math.sqrt(x) + math.sqrt(y) - math.sqrt(x * y) <= MERGE_GAIN:
            break
        members[i] = tuple(sorted(members[i] + members.pop(j)))
        del cells[j], version[j]
        cells[i], version[i] = x * y, version[i] + 1
        heapq.heappush(by_cells, (x * y, i, version[i]))
    return tuple(sorted(tuple(chosen[a] for a in g) for g in members.values()))


def oneway_weights(encoding: Encoding, groups: tuple[tuple[int, ...], ...] | None = None) -> list[Fraction]:
    """√|Ω_g| per first measurement (each attribute, or each group of :func:`first_groups`), as exact
    rationals (two decimals: a public, deterministic split)."""
    if groups is None:
        groups = tuple((a,) for a in range(len(encoding.attributes)))
    return [split_weight(math.prod(encoding.attributes[a].size for a in g), zcdp=False) for g in groups]


def adaptive_plan(settings: AdaptiveSettings, n: int, encoding: Encoding) -> BudgetPlan:
    """Every release of an adaptive fit, in the order the fit makes them (``n``: the noisy count under
    add/remove)."""
    relation = settings.relation
    delta = relation.count_sensitivity
    epsilon = settings.epsilon
    rest = epsilon - (0 if relation.n_public else settings.count_epsilon())
    init = settings.init_for(encoding)
    degree = settings.degree_for(encoding)
    direct = settings.direct_sets(encoding, n)
    share = DIRECT_SHARE if direct and settings.initial_share is None else settings.share_for(
        init, settings.signal(n), encoding.is_binary)
    oneway = rest * share
    d = len(encoding.attributes)
    T = rounds_for(settings, n, encoding, rest - oneway)
    per_round = (rest - oneway) / T
    budgets = round_budgets(rest - oneway, T, settings.ramp)
    releases = [] if relation.n_public else [
        PlannedRelease(COUNT_STEP, "discrete Laplace", settings.count_epsilon(), kind="count", sensitivity=Fraction(1))]
    network_settings: tuple[tuple[str, Any], ...] = ()
    if init == "network":
        from privbayes.methods.adaptive.network import network_plan

        initial = network_plan(oneway, n, encoding, relation, settings.max_network_degree)
        releases += list(initial.releases)
        network_settings = (("network degree", initial.setting("degree")),)
    else:
        groups, weights = settings.first_tables(encoding, n)
        G = len(groups)
        name = "1-way marginal" if G == d and not direct else "first marginal"
        weight_total = sum(weights)
        releases += [PlannedRelease(f"{name} {g + 1}/{G}", "discrete Laplace", oneway * w / weight_total,
                                    kind="oneway", index=g, sensitivity=delta) for g, w in enumerate(weights)]
        network_settings = (("first marginals", ", ".join(" × ".join(encoding.attributes[a].name for a in g)
                                                           for g in groups)),) if G < d or direct else ()
    select_share = settings.select_share_for(n)
    for t in range(1, T + 1):
        select = budgets[t - 1] * select_share
        measure = budgets[t - 1] - select
        releases += [PlannedRelease(f"round {t}/{T}: select", settings.selection, select, kind="select", index=t,
                                    sensitivity=delta),
                     PlannedRelease(f"round {t}/{T}: measure", "discrete Laplace", measure, kind="measure", index=t,
                                    sensitivity=delta)]
    first = ("PrivBayes's network and noisy tables" if init == "network" else
             f"the {len(direct)} workload sets measured directly and the other columns' 1-way marginals" if direct
             else "1-way marginals" if settings.joint is False or network_settings == () else
             "1-way marginals (small attributes measured jointly)")
    rising = f" (budgets rising to {float(settings.ramp):g}× the first)" if T > 1 and settings.ramp != 1 else ""
    sets = settings.workload_sets(encoding)
    among = (f"{'2' if degree == 2 else '2- and 3'}-way marginals (AIM's score)" if not sets else
             f"{len(sets)} workload set{'' if len(sets) == 1 else 's'} and their subsets (AIM's score and weights; "
             "the workload is public)")
    algorithm = (f"{first}, then {T} rounds{rising} of {settings.selection} selection among the {among} and a "
                 "discrete-Laplace measurement, consistent estimation after each")
    plan_settings = (("algorithm", algorithm), ("rounds", T), ("marginal degree", degree),
                     ("mean epsilon per round", float(per_round)),
                     ("last round over first", float(settings.ramp)), ("select share", float(select_share)),
                     ("initial share", float(share)), ("theta", settings.rounds_theta),
                     ("max model cells", settings.model_cells_for(encoding)), ("n", n), ("attributes", d),
                     ("neighbours", relation.name), ("init", init)) + network_settings + (
                         (("workload sets", len(sets)),) if sets else ())
    return BudgetPlan(Fraction(epsilon), tuple(releases), plan_settings)


def zcdp_rounds(settings: AdaptiveSettings, n: int, encoding: Encoding, rounds_rho: Fraction,
                at_least: int = 1) -> int:
    """T: ``rounds`` if given, else the pure rounds rule n·ε_t/Δ ≥ θ·T with each round's measurement at ε_t =
    2√(ρ_m/T) (:func:`laplace_equivalent`), i.e. T = (2n√ρ_m/(θΔ))^(2/3), ρ_m the rounds' measurement budget (what
    :meth:`AdaptiveSettings.select_share_for` leaves); at least ``at_least`` (d from :data:`ZCDP_RETUNED_VERSION` where
    the rule gives fewer: :meth:`AdaptiveSettings.few_rounds`, :meth:`AdaptiveSettings.few_workload_rounds`) and 1,
    at most :data:`MAX_ROUNDS_PER_ATTRIBUTE`·d, from :data:`ZCDP_CAP_VERSION` :data:`ZCDP_ROUNDS_PER_ATTRIBUTE`·d
    (with a workload, its number of sets, unless ``at_least`` is more)."""
    if settings.rounds is not None:
        return check_rounds(settings.rounds, "rounds")
    per_attribute = ZCDP_ROUNDS_PER_ATTRIBUTE if settings.auto_version >= ZCDP_CAP_VERSION else MAX_ROUNDS_PER_ATTRIBUTE
    most = per_attribute * len(encoding.attributes)
    if settings.workload is not None:
        most = min(most, len(settings.workload_sets(encoding)))
    rule = int(max(1, round(min(max(zcdp_rounds_rule(settings, n, rounds_rho), at_least), max(most, at_least)))))
    return check_rounds(rule, "the rounds rule's number of rounds")


def zcdp_rounds_rule(settings: AdaptiveSettings, n: int, rounds_rho: Fraction) -> float:
    """The zCDP rounds rule before its bounds: (2n√ρ_m/(θΔ))^(2/3) (:func:`zcdp_rounds`)."""
    measure = float(rounds_rho * (1 - settings.select_share_for(n)))
    signal = 2 * n * math.sqrt(measure) / (float(settings.relation.count_sensitivity) * settings.rounds_theta)
    return float(signal ** (2 / 3))


def zcdp_plan(settings: AdaptiveSettings, n: int, encoding: Encoding) -> BudgetPlan:
    """Every release of a zCDP adaptive fit in the fit's order, priced in ρ (ε 0 on every release); the plan's
    ``total`` is the ε the total ρ implies at the report's δ.  From :data:`ZCDP_VERSION` its settings also hold the
    score's "penalty scale" (:data:`ZCDP_PENALTY`), which the rounds read."""
    relation = settings.relation
    l1, l2 = relation.count_sensitivity, l2_sensitivity(relation)
    total = settings.total_rho()
    rest = total - (0 if relation.n_public else settings.count_rho())
    direct = settings.direct_sets(encoding, n)
    share = DIRECT_SHARE if direct and settings.initial_share is None else settings.share_for(
        "oneway", settings.signal(n), encoding.is_binary)
    first = rest * share
    T = zcdp_rounds(settings, n, encoding, rest - first)
    if settings.few_rounds(T, encoding):  # never with a workload, so never with its direct sets
        share = settings.share_for("oneway", settings.signal(n), encoding.is_binary, few=True)
        first = rest * share
        T = zcdp_rounds(settings, n, encoding, rest - first, at_least=len(encoding.attributes))
    elif settings.few_workload_rounds(zcdp_rounds_rule(settings, n, rest - first), encoding, bool(direct)):
        T = zcdp_rounds(settings, n, encoding, rest - first, at_least=len(encoding.attributes))
    zero = Fraction(0)
    gaussian = DiscreteGaussian.name
    releases = [] if relation.n_public else [
        PlannedRelease(COUNT_STEP, gaussian, zero, kind="count", sensitivity=Fraction(1), rho=settings.count_rho())]
    groups, weights = settings.first_tables(encoding, n)
    d, G = len(encoding.attributes), len(groups)
    name = "1-way marginal" if G == d and not direct else "first marginal"
    releases += [PlannedRelease(f"{name} {g + 1}/{G}", gaussian, zero, kind="oneway", index=g, sensitivity=l2,
                                rho=first * w / sum(weights)) for g, w in enumerate(weights)]
    select_share, ramp = settings.select_share_for(n), settings.ramp_for()
    for t, budget in enumerate(round_budgets(rest - first, T, ramp), start=1):
        select = selection_rho(budget * select_share)
        releases += [PlannedRelease(f"round {t}/{T}: select", Exponential.name, zero, kind="select", index=t,
                                    sensitivity=l1, rho=select),
                     PlannedRelease(f"round {t}/{T}: measure", gaussian, zero, kind="measure", index=t,
                                    sensitivity=l2, rho=budget - select)]
    sets = settings.workload_sets(encoding)
    degree = settings.degree_for(encoding)
    among = (f"{'2' if degree == 2 else '2- and 3'}-way marginals (AIM's score)" if not sets else
             f"{len(sets)} workload set{'' if len(sets) == 1 else 's'} and their subsets (AIM's score and weights; "
             "the workload is public)")
    rising = f" (budgets rising to {float(ramp):g}× the first)" if T > 1 and ramp != 1 else ""
    joint = " (small attributes measured jointly)" if G < d else ""
    start = (f"the {len(direct)} workload sets measured directly and the other columns' 1-way marginals" if direct
             else f"1-way marginals{joint}")
    algorithm = (f"{start}, then {T} rounds{rising} of exponential-mechanism selection among the "
                 f"{among} and a discrete-Gaussian measurement, consistent estimation after each (zCDP)")
    first_marginals = (("first marginals", ", ".join(" × ".join(encoding.attributes[a].name for a in g)
                                                     for g in groups)),) if G < d or direct else ()
    plan_settings = (("algorithm", algorithm), ("rounds", T), ("marginal degree", degree),
                     ("mean rho per round", float((rest - first) / T)), ("last round over first", float(ramp)),
                     ("select share", float(select_share)), ("initial share", float(share)),
                     ("theta", settings.rounds_theta), ("max model cells", settings.model_cells_for(encoding)),
                     ("n", n), ("attributes", d), ("neighbours", relation.name), ("init", "oneway"),
                     ("privacy", "zCDP"), ("rho", float(total)), ("delta", float(settings.report_delta()))
                     ) + first_marginals + ((("workload sets", len(sets)),) if sets else ()) + (
                         (("penalty scale", float(ZCDP_PENALTY)),) if settings.zcdp_rules else ())
    epsilon = Fraction(epsilon_for(total, settings.report_delta()))
    return BudgetPlan(epsilon, tuple(releases), plan_settings, total_rho=total)
