"""The adaptive fit's cost estimate above the large signal (docs/decisions.md, "A cost model from public work
counts"): the re-fits start matched there and the junction tree grows, so the estimate follows the model's size."""

from __future__ import annotations

from fractions import Fraction

from helpers import categorical_schema

from privbayes import AdaptiveMarginals
from privbayes.methods.adaptive.cost import MATCHED_REACH, matched_growth, matched_reach
from privbayes.methods.adaptive.settings import LARGE_SIGNAL

SIZES = [9, 16, 7, 15, 6, 5, 2, 14, 42, 41, 6, 5, 2, 2, 3]


def _cost(n: int, **options: object):
    estimator = AdaptiveMarginals(1.0, random_state=0, **options)  # replace-one: signal n·ε/2
    schema = categorical_schema(SIZES)
    return estimator.cost_estimate(estimator.plan(n, schema), schema)


def test_the_large_signal_estimate_grows_with_the_model_it_may_reach():
    n = 20 * LARGE_SIGNAL  # signal 10 × LARGE_SIGNAL: the tree is taken to reach MATCHED_REACH of the cap
    costs = [_cost(n, max_model_cells=cap) for cap in (2**16, 2**18, 2**20)]
    assert all("matched_model" in c.work and "round_model2" not in c.work for c in costs)
    assert [c.work["matched_final"] for c in costs] == sorted(c.work["matched_final"] for c in costs)
    assert costs[0].seconds < costs[1].seconds < costs[2].seconds
    assert costs[0].work["round_candidates"] == costs[2].work["round_candidates"]


def test_the_large_signal_estimate_grows_with_the_signal_and_its_model():
    costs = [_cost(n) for n in (2 * LARGE_SIGNAL + 2, 5 * LARGE_SIGNAL, 8 * LARGE_SIGNAL, 14 * LARGE_SIGNAL)]
    finals = [c.work["matched_final"] for c in costs]
    assert finals == sorted(finals) and finals[0] < finals[-1]
    assert [c.seconds for c in costs] == sorted(c.seconds for c in costs)
    assert matched_reach(LARGE_SIGNAL) == 0.0 and matched_reach(10**9) == MATCHED_REACH


def test_below_the_large_signal_the_estimate_keeps_its_small_tree_terms():
    small = _cost(LARGE_SIGNAL)  # signal LARGE_SIGNAL / 2: re-fits as before
    assert "round_model2" in small.work and "matched_model" not in small.work
    assert _cost(LARGE_SIGNAL, max_model_cells=2**16).seconds == small.seconds


def test_matched_growth_is_geometric_from_the_first_measurements_within_the_cap():
    grown = matched_growth(200.0, 2**19, 30)
    assert len(grown) == 30 and grown[0] > 200.0 and abs(grown[-1] - 2**19) < 1e-6 * 2**19
    ratios = [b / a for a, b in zip(grown, grown[1:])]
    assert max(ratios) - min(ratios) < 1e-9 and min(ratios) > 1.0
    assert matched_growth(5000.0, 2**10, 4) == [5000.0] * 4  # a top below the first tables: no growth


def test_the_tree_grows_with_the_rounds_budget_version_6_leaves_them():
    """auto_version 6 gives the rounds more of ε between the large and the capacity signal: the reach reads the signal
    whose version-5 first share would leave the rounds that budget; version 5's plans, binary domains and signals
    where both versions' shares agree read the signal itself."""
    from privbayes.methods.adaptive.cost import adaptive_cost, growth_signal
    from privbayes.methods.adaptive.settings import AdaptiveSettings, large_signal_share, oneway_share

    settings = AdaptiveSettings(1)
    old = AdaptiveSettings.from_parameters(settings.to_parameters() | {"auto_version": 5})
    encoding = settings.encoding_for(categorical_schema(SIZES))
    for signal in (LARGE_SIGNAL / 2, 2.5 * LARGE_SIGNAL, 5 * LARGE_SIGNAL, 25 * LARGE_SIGNAL, 100 * LARGE_SIGNAL):
        now, before = oneway_share(Fraction(1, 2), signal), large_signal_share(Fraction(1, 2), signal)
        expected = signal * (1 - float(now)) / (1 - float(before))
        assert growth_signal(settings, encoding, signal) == expected >= signal
        assert (expected > signal) == (now < before) and growth_signal(old, encoding, signal) == signal
    bits = settings.encoding_for(categorical_schema([2] * 6))
    assert growth_signal(settings, bits, 3 * LARGE_SIGNAL) == 3 * LARGE_SIGNAL
    n = 10 * LARGE_SIGNAL  # replace-one, signal 5 × LARGE_SIGNAL: first share 0.1 (version 5: 0.2236)
    assert (adaptive_cost(settings, settings.plan(n, encoding), encoding).seconds
            > adaptive_cost(old, old.plan(n, encoding), encoding).seconds)
