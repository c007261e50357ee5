"""The adaptive method's plan under zero-concentrated DP (``privacy="zcdp"``; docs/decisions.md, "zCDP mode").

The same releases in the same order as under pure ε (:func:`~privbayes.methods.adaptive.settings.adaptive_plan`),
priced in ρ (Bun & Steinke 2016: sequential composition adds ρ), from public inputs only:

1. under add/remove neighbours a noisy count, discrete Gaussian at ``COUNT_SHARE`` (1/100) of ρ;
2. the first measurements (the 1-way marginals, small attributes jointly) with the first share of the rest,
   split in proportion to √|Ω_g| (the split that minimises the summed noise variance Σ_g |Ω_g|·Δ²/(2ρ_g) for a
   fixed Σ ρ_g), each a discrete Gaussian with σ² = Δ²/(2ρ_g);
3. T rounds with linearly rising budgets (the ``ramp``), each an exponential-mechanism selection with
   ``select_share`` of the round's ρ (charged ε²/8: Cesar & Rogers 2021) and a discrete-Gaussian measurement with
   the rest.

Δ: a count table's L2 sensitivity, 1 under add/remove and √2 under replace-one, for which the rational
:data:`REPLACE_ONE_L2` above it is used; the selection's score moves by the L1 sensitivity (1 or 2) as under
pure ε.  The automatic first share and T are the pure rules with each Gaussian matched to the discrete Laplace
of the same standard deviation, ε ≡ 2√ρ (:func:`laplace_equivalent`): AIM's T = 16·d rounds rely on annealing
that reads measured values, which this plan does not do.
"""

from __future__ import annotations

import math
from fractions import Fraction

from privbayes.core.limits import check_rounds
from privbayes.methods.adaptive.settings import (
    MAX_ROUNDS_PER_ATTRIBUTE,
    AdaptiveSettings,
    first_groups,
    oneway_weights,
    round_budgets,
)
from privbayes.privacy.mechanisms import COUNT_STEP, DiscreteGaussian, Exponential
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.schema.encoding import Encoding

GAUSSIAN = DiscreteGaussian.name
REPLACE_ONE_L2 = Fraction(99, 70)
"""A rational above √2, the L2 sensitivity of a count table under replace-one (docs/decisions.md, "zCDP
accounting": sensitivities are rounded up)."""
SELECT_DIGITS = 10**12
"""A selection's ε = √(8ρ) is rounded down to this many parts of its leading unit (exact: ρ = ε²/8 then)."""


def l2_sensitivity(settings: AdaptiveSettings) -> Fraction:
    """The L2 sensitivity of a count table under the fit's relation: 1 (add/remove) or 99/70 ≥ √2 (replace-one)."""
    return Fraction(1) if not settings.relation.n_public else REPLACE_ONE_L2


def laplace_equivalent(rho: Fraction) -> float:
    """The ε whose discrete Laplace noise (std √2·Δ/ε) has the standard deviation of a Gaussian at ρ
    (σ = Δ/√(2ρ)): 2√ρ.  Only the automatic choices read it (a public function of the budget)."""
    return 2 * math.sqrt(float(rho))


def selection_epsilon(rho: Fraction) -> Fraction:
    """The exponential mechanism's ε for a planned selection ρ = ε²/8 (exact: the plan makes ρ so)."""
    square = 8 * rho
    top, bottom = math.isqrt(square.numerator), math.isqrt(square.denominator)
    if Fraction(top, bottom) ** 2 != square:
        raise ValueError(f"a selection's rho ({float(rho):.6g}) is not the square of a rational over 8")
    return Fraction(top, bottom)


def selection_rho(budget: Fraction) -> Fraction:
    """The largest ρ ≤ ``budget`` of the form ε²/8 with ε a rational of :data:`SELECT_DIGITS` parts: the rest of
    the round's budget goes to its measurement, so the plan spends exactly its total."""
    root = math.sqrt(8 * float(budget))
    unit = Fraction(1, SELECT_DIGITS) * Fraction(2) ** math.frexp(root)[1]
    epsilon = math.floor(Fraction(root) / unit) * unit
    while epsilon > 0 and epsilon**2 / 8 > budget:
        epsilon -= unit
    if epsilon <= 0:
        raise ValueError(f"a selection's rho ({float(budget):.3g}) is too small")
    return epsilon**2 / 8


def gaussian(rho: Fraction, sensitivity: Fraction) -> DiscreteGaussian:
    """The discrete Gaussian whose zCDP cost is exactly ``rho``: σ² = Δ²/(2ρ)."""
    return DiscreteGaussian(sensitivity**2 / (2 * rho), sensitivity)


def selector(rho: Fraction, sensitivity: Fraction) -> Exponential:
    """The exponential mechanism whose zCDP cost ε²/8 is exactly ``rho``."""
    return Exponential(selection_epsilon(rho), sensitivity)


def zcdp_rounds(settings: AdaptiveSettings, n: int, encoding: Encoding, rounds_rho: Fraction) -> int:
    """T: ``rounds`` if given, else the pure rounds rule n·ε_t/Δ ≥ θ·T with each round's measurement at ε_t =
    2√(ρ_m/T) (:func:`laplace_equivalent`), i.e. T = (2n√ρ_m/(θΔ))^(2/3), ρ_m the rounds' measurement budget;
    at least 1, at most :data:`MAX_ROUNDS_PER_ATTRIBUTE`·d (with a workload, its number of sets)."""
    if settings.rounds is not None:
        return check_rounds(settings.rounds, "rounds")
    measure = float(rounds_rho * (1 - settings.select_share))
    signal = 2 * n * math.sqrt(measure) / (float(settings.relation.count_sensitivity) * settings.rounds_theta)
    most = MAX_ROUNDS_PER_ATTRIBUTE * len(encoding.attributes)
    if settings.workload is not None:
        most = min(most, len(settings.workload_sets(encoding)))
    rule = int(max(1, round(min(signal ** (2 / 3), most))))
    return check_rounds(rule, "the rounds rule's number of rounds")


def zcdp_plan(settings: AdaptiveSettings, n: int, encoding: Encoding) -> BudgetPlan:
    """Every release of a zCDP adaptive fit in the fit's order, priced in ρ (ε 0 on every release); the plan's
    ``total`` is the ε the total ρ implies at the report's δ."""
    from privbayes.privacy.zcdp import epsilon_for

    relation = settings.relation
    l1, l2 = relation.count_sensitivity, l2_sensitivity(settings)
    total = settings.total_rho()
    rest = total - (0 if relation.n_public else settings.count_rho())
    share = settings.share_for("oneway", n * laplace_equivalent(rest) / float(l1), encoding.is_binary)
    first = rest * share
    T = zcdp_rounds(settings, n, encoding, rest - first)
    zero = Fraction(0)
    releases = [] if relation.n_public else [
        PlannedRelease(COUNT_STEP, GAUSSIAN, zero, kind="count", sensitivity=Fraction(1), rho=settings.count_rho())]
    groups = first_groups(encoding, settings.joint)
    weights = oneway_weights(encoding, groups)
    d, G = len(encoding.attributes), len(groups)
    name = "1-way marginal" if G == d else "first marginal"
    releases += [PlannedRelease(f"{name} {g + 1}/{G}", GAUSSIAN, zero, kind="oneway", index=g, sensitivity=l2,
                                rho=first * w / sum(weights)) for g, w in enumerate(weights)]
    for t, budget in enumerate(round_budgets(rest - first, T, settings.ramp), start=1):
        select = selection_rho(budget * settings.select_share)
        releases += [PlannedRelease(f"round {t}/{T}: select", Exponential.name, zero, kind="select", index=t,
                                    sensitivity=l1, rho=select),
                     PlannedRelease(f"round {t}/{T}: measure", GAUSSIAN, zero, kind="measure", index=t,
                                    sensitivity=l2, rho=budget - select)]
    sets = settings.workload_sets(encoding)
    degree = settings.degree_for(encoding)
    among = (f"{'2' if degree == 2 else '2- and 3'}-way marginals (AIM's score)" if not sets else
             f"{len(sets)} workload set{'' if len(sets) == 1 else 's'} and their subsets (AIM's score and weights; "
             "the workload is public)")
    rising = f" (budgets rising to {float(settings.ramp):g}× the first)" if T > 1 and settings.ramp != 1 else ""
    joint = " (small attributes measured jointly)" if G < d else ""
    algorithm = (f"1-way marginals{joint}, then {T} rounds{rising} of exponential-mechanism selection among the "
                 f"{among} and a discrete-Gaussian measurement, consistent estimation after each (zCDP)")
    first_marginals = (("first marginals", ", ".join(" × ".join(encoding.attributes[a].name for a in g)
                                                     for g in groups)),) if G < d else ()
    plan_settings = (("algorithm", algorithm), ("rounds", T), ("marginal degree", degree),
                     ("mean rho per round", float((rest - first) / T)), ("last round over first", float(settings.ramp)),
                     ("select share", float(settings.select_share)), ("initial share", float(share)),
                     ("theta", settings.rounds_theta), ("max model cells", settings.model_cells_for(encoding)),
                     ("n", n), ("attributes", d), ("neighbours", relation.name), ("init", "oneway"),
                     ("privacy", "zCDP"), ("rho", float(total)), ("delta", float(settings.report_delta()))
                     ) + first_marginals + ((("workload sets", len(sets)),) if sets else ())
    epsilon = Fraction(epsilon_for(total, settings.report_delta()))
    return BudgetPlan(epsilon, tuple(releases), plan_settings, total_rho=total)
