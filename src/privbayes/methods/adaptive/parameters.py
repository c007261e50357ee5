"""The adaptive method's parameters, each declared once (docs/decisions.md, "Adaptive marginals" and "Parameter
names"; :mod:`privbayes.synthesizers.parameters`).  Budgets and shares are exact rationals of the decimals
written (0.2 → 1/5).

Imports nothing heavy: the command line reads these declarations to build ``privbayes fit``'s flags.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from privbayes.core.errors import InputError
from privbayes.core.limits import check_rounds
from privbayes.core.validation import check_count, exact
from privbayes.methods.adaptive.workload import parse_workload
from privbayes.synthesizers.parameters import (
    EPSILON,
    NEIGHBOURS,
    PROGRESS,
    RANDOM_STATE,
    ZCDP_PARAMETERS,
    Check,
    Parameter,
    choice_check,
    count_check,
    fixed,
    flag_check,
    number,
    positive_check,
    positive_int,
    ratio,
    share_check,
)

DEGREES = (2, 3)
INITS = ("auto", "oneway", "network")
SELECTIONS = ("permute-and-flip", "exponential")
"""Each round's selection mechanism (docs/decisions.md, "Adaptive marginals: joint first marginals and
permute-and-flip"); model files written before it was a setting selected with the exponential mechanism."""
AUTO_VERSION = 6
"""The version of the automatic choices (``init="auto"``, ``marginal_degree=None``, the first share, the rounds).  1
(model files written before it was recorded): PrivBayes's network first on binary data, 2-way candidates.  2: joint
first tables on every domain; on binary data 3-way candidates and a first share of 3/10.  3: above a signal n·ε/Δ of
20,000 the first share falls with the signal, leaving more of ε to the rounds.  4: above a signal of 10⁶ the rounds
rule's cap grows with it (:func:`privbayes.methods.adaptive.settings.rounds_cap`), and a fit with a workload starts
from a first share of 1/4 (:data:`privbayes.methods.adaptive.workload.WORKLOAD_SHARE`).  5: above a signal of 100,000
(:data:`privbayes.methods.adaptive.settings.CAPACITY_SIGNAL`) the rounds cap grows from there, held from 10⁶ at
version 4's cap there until version 4's growth passes it (:func:`privbayes.methods.adaptive.settings.capacity_cap`),
and each round's selection gets a quarter of ``select_share``; a small workload's sets are measured directly as first
tables (:meth:`privbayes.methods.adaptive.settings.AdaptiveSettings.direct_sets`).  6: under pure ε the 1-way start's
first share on a domain not all binary falls as 20,000 / (n·ε/Δ) above that signal rather than its root, to 1/5 of
itself at 100,000, and version 5's share where that is lower
(:func:`privbayes.methods.adaptive.settings.oneway_share`); under zCDP the rounds' selections get half of
``select_share``, the score's noise penalty is halved, the 1-way start gets 2/5 of ρ, and the re-fits are shorter and
start matched (:data:`privbayes.methods.adaptive.settings.ZCDP_VERSION`); 6 is a new pure-ε fit's version.  7
(zCDP only, :data:`ZCDP_AUTO_VERSION`; pure-ε files stay at 6, byte-identical): where the rounds rule gives fewer
rounds than attributes, d rounds and 1/2 of ρ for the 1-way start, and above a signal of 5,000 that start's share
falls with the signal (:data:`privbayes.methods.adaptive.settings.ZCDP_RETUNED_VERSION`).  8 (zCDP only): the
rounds rule's cap is 3 rounds per attribute instead of 2
(:data:`privbayes.methods.adaptive.settings.ZCDP_CAP_VERSION`).  9 (zCDP only): every round gets the same ρ
(:data:`privbayes.methods.adaptive.settings.ZCDP_FLAT_VERSION`)."""
ZCDP_AUTO_VERSION = 9
"""The version of a new zCDP fit's automatic choices (:data:`AUTO_VERSION` and the zCDP-only rules above it)."""
AUTO_VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8, 9)
RAMP = Fraction(4)
"""The last round's budget over the first's (docs/decisions.md, "Adaptive marginals: budget ramp")."""
DEFAULT_MODEL_CELLS = 2**20
"""Default cap on the cells of the model's junction tree (exact inference at every round)."""
MAX_NETWORK_DEGREE = 5
"""The network start's degree is Lemma 4.8's k, at most this (docs/decisions.md, "Adaptive marginals: joint first
marginals and permute-and-flip"); model files written before it had no cap."""


def _rounds(value: Any, name: str) -> int:
    return check_rounds(check_count(value, name, minimum=1), name)


def _model_cells(value: Any, name: str) -> int:
    from privbayes.inference import MAX_EXACT_CELLS

    cells = check_count(value, name, minimum=1)
    if cells > MAX_EXACT_CELLS:
        raise InputError(f"{name} ({cells}) must be at most {MAX_EXACT_CELLS:,} (the released model is sampled by "
                         "exact inference)")
    return cells


def _ramp(value: Any, name: str) -> Fraction:
    ramp = exact(value, name) if isinstance(value, str) else Fraction(value)
    if not 1 <= ramp <= 100:
        raise InputError(f"{name} ({float(ramp):g}) must be between 1 and 100")
    return ramp


def _auto_version(value: Any, name: str) -> int:
    if isinstance(value, bool) or value not in AUTO_VERSIONS:
        raise InputError(f"{name} ({value!r}) must be one of {', '.join(map(str, AUTO_VERSIONS))}")
    return int(value)


PARAMETERS: tuple[Parameter, ...] = (
    EPSILON,
    Parameter("marginal_degree", "the largest candidate marginal the rounds choose among: 2 (all 1- and 2-way "
              "marginals) or 3 (also the 3-way ones)", None, count_check(1, positive_int, DEGREES), optional=True,
              auto="3 when every column is binary and there are at most 4,096 3-way marginals, else 2",
              key="degree", formerly="degree"),
    Parameter("rounds", "the number of select-and-measure rounds", None, Check(_rounds, "int ≥ 1", positive_int),
              optional=True, auto="the rounds rule T = √(n·E_m/(Δ·θ)) with θ = rounds_theta (--dry-run shows it)"),
    Parameter("initial_share", "share of ε for the first measurements", None, share_check(ratio), optional=True,
              auto="1/2 for the 1-way marginals, 11/20 at n·ε/Δ below 5,000, 3/10 when every column is binary, 3/4 "
              "for the network; scaled by √(20,000/(n·ε/Δ)) above n·ε/Δ = 20,000", stored="exact"),
    Parameter("select_share", "share of each round's budget for its selection (a quarter of it above n·ε/Δ = "
              "100,000)", 0.2, share_check(ratio), stored="exact"),
    Parameter("rounds_theta", "the rounds rule's θ: the signal n·ε_m/Δ each round's measurement must keep; higher "
              "gives fewer, less noisy rounds", 25.0, positive_check(number), key="theta", formerly="theta"),
    Parameter("max_model_cells", "cap on the cells of the model's junction tree (a fit also keeps it within 64 times "
              "the cells of the candidate marginals of two or more columns)", DEFAULT_MODEL_CELLS,
              Check(_model_cells, "int ≥ 1", positive_int)),
    NEIGHBOURS,
    Parameter("init", "the first measurements: oneway (the 1-way marginals), network (PrivBayes's network and "
              "tables) or auto (the 1-way marginals, small columns measured jointly)", "auto", choice_check(INITS)),
    Parameter("ramp", "the last round's budget over the first's (model files only)", RAMP,
              Check(_ramp, "float in [1, 100]"), stored="exact", legacy=Fraction(1), keyword=False),
    fixed("encoding", "hierarchical"),
    Parameter("selection", "each round's selection mechanism: permute-and-flip (never worse in expectation than the "
              "exponential mechanism, McKenna & Sheldon 2020) or exponential", SELECTIONS[0],
              choice_check(SELECTIONS), legacy="exponential"),
    Parameter("joint", "measure small columns together in the first tables", True, flag_check(), legacy=False),
    Parameter("max_network_degree", "with init network: the network's largest degree", MAX_NETWORK_DEGREE,
              count_check(1, positive_int), optional=True, auto="Lemma 4.8's k", legacy=None),
    Parameter("auto_version", "the version of the automatic choices (model files only)", None,
              Check(_auto_version, "1, 2, 3, 4, 5, 6 or 7"), optional=True,
              auto=f"{AUTO_VERSION} under pure ε, {ZCDP_AUTO_VERSION} under zCDP", legacy=1, keyword=False),
    Parameter("workload", "the marginals the analysts will query: a YAML or JSON file (in Python also a list) of "
              "attribute sets, optionally weighted, e.g. [[age, sex], {attributes: [age, income], weight: 2}, "
              "{all: 3}, {containing: income, size: 2}]; the rounds then choose among its sets and their subsets, "
              "weighted toward it as AIM does.  Public input, recorded in the model file", None,
              Check(parse_workload, "path or list of attribute sets"), optional=True,
              auto="none: every marginal_degree-way set weighs the same", metavar="FILE", legacy=None),
    *ZCDP_PARAMETERS,
    RANDOM_STATE,
    PROGRESS,
)
"""The adaptive method's parameters, in the model file's order (``marginal_degree`` and ``rounds_theta`` are the
file's ``degree`` and ``theta``)."""
