"""The public candidate cap of GreedyBayes (privbayes.bayesnet.candidates; issue 17).

θ-usefulness (TODS 2017, Alg. 4 line 6) bounds a child's parent domain by τ, which grows
with n·ε; the cap lowers every child's bound to B, the largest integer under which at most
C generalised subsets of all the attributes fit.  Checked here against brute-force
enumeration: B is that largest bound, no child ever gets more than C candidates, the cap
reads only public inputs, GreedyBayes, the cost estimate and the plan's table check use the
same bound, and a fit the cost guard refused before now runs.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privbayes
from privbayes import PrivBayes, counting
from privbayes.bayesnet.candidates import (
    CandidateCap,
    candidate_cap,
    cap_settings,
    count_parent_sets,
    level_sizes,
    parent_bound,
)
from privbayes.bayesnet.greedy import maximal_parent_candidates
from privbayes.bayesnet.usefulness import domain_bound
from privbayes.core.errors import InputError
from privbayes.core.limits import limits
from privbayes.methods.privbayes.cost import check_cost, cost_estimate
from privbayes.schema import Attribute, Schema
from privbayes.schema.encoding import Encoding
from privbayes.schema.files import load_schema

SCHEMA = Schema((
    Attribute("a", "categorical", categories=tuple("pqrstu"), taxonomy=(("p", "q"), ("r", "s", "t"), "u")),
    Attribute("b", "categorical", categories=tuple("wxyz"), taxonomy=(("w", "z"), ("x", "y"))),
    Attribute("c", "categorical", categories=("0", "1")),
    Attribute("e", "categorical", categories=tuple("abcde"), taxonomy=(("a", ("b", "c")), ("d", "e"))),
    Attribute("f", "categorical", categories=tuple("ghi")),
))
ENCODING = Encoding.build(SCHEMA, "hierarchical")


def frame(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({a.name: rng.choice(list(a.categories), n) for a in SCHEMA.attributes})


def brute_count(levels, bound: int) -> int:
    """Generalised subsets (each attribute absent or at one level) with domain size ≤ bound."""
    return sum(1 for choice in itertools.product(*[[None] + list(range(len(ls))) for ls in levels])
               if math.prod(levels[a][c] for a, c in enumerate(choice) if c is not None) <= bound)


def brute_maximal(placed, bound: int, levels) -> set[tuple]:
    """Maximal generalised subsets of ``placed`` within ``bound`` (§5.2's definition), by enumeration."""
    fits = []
    for choice in itertools.product(*[[None] + list(range(len(levels[a]))) for a in placed]):
        chosen = {a: c for a, c in zip(placed, choice) if c is not None}
        if math.prod(levels[a][c] for a, c in chosen.items()) <= bound:
            fits.append(chosen)

    def dominated(s, t):  # t adds an attribute or holds a shared one at a lower level
        return s != t and set(s) <= set(t) and all(t[a] <= s[a] for a in s)
    return {tuple(sorted(s.items())) for s in fits if not any(dominated(s, t) for t in fits)}


@pytest.mark.parametrize("max_sets", [1, 5, 12, 40, 100, 250, 10**6])
def test_the_domain_cap_is_the_largest_bound_within_max_sets(max_sets):
    levels = level_sizes(ENCODING)
    cap = candidate_cap(ENCODING, max_sets)
    full = math.prod(max(ls) for ls in levels)
    assert 1 <= cap.domain_cap <= full
    if cap.limiting:
        assert brute_count(levels, cap.domain_cap + 1) > max_sets
        assert brute_count(levels, cap.domain_cap) <= max_sets or cap.domain_cap == 1
    else:  # every generalised subset fits: the cap is the full product and lowers no bound
        assert brute_count(levels, full) <= max_sets and cap.domain_cap == full
        assert not cap.binds(Fraction(10**9), 2) and cap.bound(Fraction(10**9), 2) == full
    assert count_parent_sets(levels, cap.domain_cap) == brute_count(levels, cap.domain_cap)


@pytest.mark.parametrize("max_sets", [5, 12, 40])
def test_no_child_gets_more_than_max_sets_candidates_and_the_lists_are_the_maximal_sets(caps, max_sets):
    caps(max_candidate_sets=max_sets)
    table = counting.open(frame(1), SCHEMA).encoded(ENCODING)
    levels = level_sizes(ENCODING)
    epsilon2, theta = Fraction(10**6), 4.0  # τ far above every bound: the cap binds for every child
    cap = candidate_cap(ENCODING)
    smallest = min(a.size for a in ENCODING.attributes)
    rule = maximal_parent_candidates(table, epsilon2, theta)
    for placed in itertools.permutations(range(5), 4):
        child = ({0, 1, 2, 3, 4} - set(placed)).pop()
        size = ENCODING.attributes[child].size
        # The capped table size is B·(smallest child domain); each child gets its share of it.
        bound = cap.domain_cap * smallest // size
        assert cap.binds(domain_bound(300, 5, epsilon2, theta, size), size)
        listed = rule(child, list(placed))
        assert len(listed) <= max(1, brute_count(levels, bound)) and brute_count(levels, bound) <= max_sets
        expected = brute_maximal(sorted(placed), bound, levels) or {()}
        assert {tuple(sorted(p)) for p in listed} == expected


def test_the_cap_reads_public_inputs_only():
    """Two tables of the same schema and n with different rows get the same bounds and lists."""
    one = counting.open(frame(1), SCHEMA).encoded(ENCODING)
    two = counting.open(frame(2), SCHEMA).encoded(ENCODING)
    assert not np.array_equal(one.counts([0, 1]), two.counts([0, 1]))
    for epsilon2 in (Fraction(1, 10), Fraction(5), Fraction(10**4)):
        rules = [maximal_parent_candidates(t, epsilon2, 4.0) for t in (one, two)]
        for placed in ([0], [0, 3], [4, 1, 2]):
            for child in set(range(5)) - set(placed):
                assert rules[0](child, placed) == rules[1](child, placed)
    assert cap_settings(300, ENCODING, Fraction(10**4), 4.0) == cap_settings(300, ENCODING, Fraction(10**4), 4.0)


def test_greedy_cost_estimate_and_plan_use_the_same_capped_bound(caps):
    caps(max_candidate_sets=40)
    cap = candidate_cap(ENCODING)
    n, epsilon = 300, 10**4
    model = PrivBayes(epsilon)
    eps2 = Fraction(1 - Fraction(0.3)) * Fraction(epsilon)
    sizes = [a.size for a in ENCODING.attributes]
    small, large = sizes.index(min(sizes)), sizes.index(max(sizes))
    assert cap.binds(domain_bound(n, 5, eps2, 4.0, min(sizes)), min(sizes))
    # Greedy: the smallest child's list with every other attribute placed.
    table = counting.open(frame(3), SCHEMA).encoded(ENCODING)
    others = [j for j in range(5) if j != small]
    listed = maximal_parent_candidates(table, eps2, 4.0)(small, others)
    assert {tuple(sorted(p)) for p in listed} == brute_maximal(others, cap.domain_cap, level_sizes(ENCODING))
    # Cost estimate: all generalised subsets of the others within the same bound.
    estimate = cost_estimate(model.settings(), model.plan(n, SCHEMA), model.encoding_for(SCHEMA))
    bound = parent_bound(n, 5, eps2, 4.0, min(sizes), cap)
    assert bound == cap.domain_cap
    assert estimate.candidates == brute_count([level_sizes(ENCODING)[j] for j in others], bound) >= len(listed)
    largest_bound = cap.domain_cap * min(sizes) // max(sizes)
    assert parent_bound(n, 5, eps2, 4.0, max(sizes), cap) == largest_bound
    assert estimate.largest_cells == min(largest_bound * max(sizes), math.prod(sizes))
    # Plan: the table-size check refuses exactly above the capped bound's largest table.
    cells = min(largest_bound * sizes[large], math.prod(sizes))
    caps(max_table_cells=cells)
    model.plan(n, SCHEMA)
    caps(max_table_cells=cells - 1)
    with pytest.raises(InputError, match="θ-usefulness allows noisy tables of up to"):
        model.plan(n, SCHEMA)


def test_the_issue_17_fit_refused_by_the_cost_guard_passes_with_the_default_cap():
    # 5 M Adult-like rows at ε = 1 (issue 17): about 18 GB estimated without the cap.
    adult = load_schema(Path(privbayes.__file__).parent / "data" / "adult.yaml")
    model = PrivBayes(1.0)
    plan = model.plan(5 * 10**6, adult)
    encoding = model.encoding_for(adult)
    tau = domain_bound(5 * 10**6, 15, Fraction(7, 10), 4.0, 2)
    others = [ls for a, ls in zip(encoding.attributes, level_sizes(encoding)) if a.name != "sex"]  # the smallest child
    assert count_parent_sets(others, math.floor(tau)) * math.floor(tau) > limits().max_fit_bytes
    estimate = cost_estimate(model.settings(), plan, model.encoding_for(adult))
    check_cost(estimate)
    assert estimate.candidates <= limits().max_candidate_sets and estimate.bytes < 2**30


def test_a_fit_the_cost_guard_refused_now_runs_with_the_cap(caps):
    n, epsilon = 300, 10**9
    eps2 = Fraction(7, 10) * epsilon
    levels = level_sizes(ENCODING)
    tau = domain_bound(n, 5, eps2, 4.0, 2)
    # The estimate without the cap (τ itself as the bound): over the memory guard.
    uncapped_bytes = brute_count([levels[j] for j in (0, 1, 3, 4)], math.floor(tau)) * math.floor(tau)
    assert uncapped_bytes > limits().max_fit_bytes
    caps(max_candidate_sets=40)  # this small schema has only 144 generalised subsets in all
    assert candidate_cap(ENCODING).limiting
    model = PrivBayes(epsilon, random_state=0, progress=False, estimation="projected")  # under test: the network
    check_cost(cost_estimate(model.settings(), model.plan(n, SCHEMA), model.encoding_for(SCHEMA)))
    fitted = model.fit(frame(4, n), SCHEMA).model_
    assert sum(e.epsilon for e in fitted.ledger) == Fraction(epsilon)


def test_the_cap_does_not_bind_on_the_paper_datasets_up_to_epsilon_1_6():
    # Level sizes (leaves first) and rows of Adult and BR2000 (../shared/data/README.md); NLTCS and
    # ACS are binary, so they take a fixed degree (Lemma 4.8) and no candidate cap.
    adult = [[16, 8, 4, 2], [7, 4], [16, 8, 4, 2], [16, 10, 3], [16, 8, 4, 2], [7, 3], [14], [6, 4], [5, 3], [2],
             [16, 8, 4, 2], [16, 8, 4, 2], [16, 8, 4, 2], [41, 10, 2], [2]]
    br2000 = [[2], [7, 4, 2], [16, 8, 4, 2], [10, 5, 2], [16, 8, 4, 2], [2], [2], [2], [2], [4, 2], [16, 8, 4, 2],
              [2], [2], [16, 8, 4, 2]]
    for levels, n in ((adult, 45222), (br2000, 38000)):
        smallest = min(ls[0] for ls in levels)
        cap = CandidateCap(limits().max_candidate_sets, _largest_within(levels, limits().max_candidate_sets), smallest)
        for epsilon in (0.05, 0.1, 0.2, 0.4, 0.8, 1.6):
            eps2 = Fraction(7, 10) * Fraction(epsilon)
            assert not any(cap.binds(domain_bound(n, len(levels), eps2, 4.0, ls[0]), ls[0]) for ls in levels)
        # ... while a large enough ε does make it bind (the test can fail).
        assert cap.binds(domain_bound(n, len(levels), Fraction(7, 10) * 4, 4.0, smallest), smallest)


def _largest_within(levels, max_sets: int) -> int:
    """B by linear search with the brute-force count's fast twin (count_parent_sets is checked
    against brute force above)."""
    b = 1
    while count_parent_sets(levels, b + 1) <= max_sets:
        b += 1
    return b


def test_the_plan_records_the_cap(caps):
    caps(max_candidate_sets=40)
    settings = dict(cap_settings(300, ENCODING, Fraction(7 * 10**3), 4.0))
    assert settings["candidate cap (max parent sets per child)"] == limits().max_candidate_sets
    cap = candidate_cap(ENCODING)
    assert settings["table cells cap (θ-usefulness)"] == cap.domain_cap * min(a.size for a in ENCODING.attributes)
    assert settings["children capped"] == "a, b, c, e, f"
    assert dict(cap_settings(300, ENCODING, Fraction(1, 10), 4.0))["children capped"] == "none"
    caps(max_candidate_sets=10**6)  # every generalised subset fits: nothing to cap
    uncapped = dict(cap_settings(300, ENCODING, Fraction(7 * 10**3), 4.0))
    assert uncapped["children capped"] == uncapped["table cells cap (θ-usefulness)"] == "none"


def test_the_cap_comes_from_the_environment(monkeypatch):
    import privbayes.core.limits as limits_module

    monkeypatch.setenv("PRIVBAYES_MAX_CANDIDATE_SETS", "12")
    monkeypatch.setattr(limits_module, "_current", None)
    assert limits().max_candidate_sets == 12
    assert candidate_cap(ENCODING).max_sets == 12
    monkeypatch.setenv("PRIVBAYES_MAX_CANDIDATE_SETS", "0")
    monkeypatch.setattr(limits_module, "_current", None)
    with pytest.raises(InputError, match="PRIVBAYES_MAX_CANDIDATE_SETS"):
        limits()
