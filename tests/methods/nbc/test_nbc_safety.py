"""SafetyTransform (VLDB 2009, §6.2): NBC-equivalence checked exhaustively on random small
views (ties and zeros included), Corollary 4 exactly, and brute-force twins of the numerics."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from helpers_nbc import random_views
from hypothesis import given, settings
from hypothesis import strategies as st

from privbayes.core.errors import InputError
from privbayes.methods.nbc import approx, safety
from privbayes.methods.nbc.breach import amplification, satisfies_corollary4
from privbayes.methods.nbc.equivalence import check_equivalence, integer_scores
from privbayes.methods.nbc.est import est
from privbayes.methods.nbc.safety import normalised, safety_transform
from privbayes.methods.nbc.views import AttributeCounts, NBCViews

GAMMAS = [Fraction(21, 20), Fraction(3, 2), Fraction(3), Fraction(50)]


def check_output(original: NBCViews, gamma: Fraction) -> None:
    out = safety_transform(original, gamma)
    verdict = check_equivalence(original, out.views)
    assert verdict.equivalent, verdict.counterexample
    assert satisfies_corollary4(out.views, gamma)  # the paper's (10): ρ^n ≤ γ
    assert out.achieved == amplification(out.views, condition="posterior") <= gamma  # the default: ρ^(2n−1) ≤ γ
    assert out.views.is_realistic()
    assert all(isinstance(v, int) and v > 0 for v in out.views.all_counts())


@pytest.mark.parametrize("seed", range(120))
def test_random_views_stay_equivalent_and_safe(seed):
    rng = np.random.default_rng(seed)
    original = random_views(rng, ["plain", "copy", "skewed"][seed % 3])
    check_output(original, GAMMAS[seed % len(GAMMAS)])


def test_tied_classes_keep_the_later_class_first():
    rng = np.random.default_rng(7)
    original = random_views(rng, "copy")
    out = safety_transform(original, Fraction(11, 10)).views
    scores = integer_scores(out)
    c = original.classes
    assert np.all(scores[:, c - 1] >= scores[:, c - 2])  # copies tie everywhere: the later class stays ahead


def test_statement8_bound_when_the_domain_is_not_enumerated(monkeypatch):
    monkeypatch.setattr(safety, "gap_lower_bound", lambda views: approx.gap_lower_bound(views, limit=0))
    for seed in range(10):
        check_output(random_views(np.random.default_rng(1000 + seed), ["plain", "copy", "skewed"][seed % 3]),
                     Fraction(6, 5))


def test_safe_views_are_returned_unchanged():
    views = NBCViews("C", ("a", "b"), (10, 11), (AttributeCounts("A", ("x", "y"), ((5, 6), (5, 5))),))
    out = safety_transform(views, Fraction(2))
    assert out.method == "identity" and out.views == views and out.achieved == Fraction(6, 5)  # n = 1: ρ^1
    assert safety_transform(views, Fraction(6, 5) - Fraction(1, 10**6)).method == "safety-transform"


def test_gamma_must_exceed_one():
    views = NBCViews("C", ("a", "b"), (1, 1), (AttributeCounts("A", ("x",), ((1, 1),)),))
    with pytest.raises(InputError, match=r"--gamma: the amplification γ must be > 1, got 1$"):
        safety_transform(views, Fraction(1))


@pytest.mark.parametrize("seed", range(20))
def test_gap_bound_is_below_the_true_gap(seed):
    views = random_views(np.random.default_rng(seed), "plain")
    bound = approx.gap_lower_bound(views)
    scores = integer_scores(views)
    true = min((abs(math.log(int(a)) - math.log(int(b))) for row in scores for a in row for b in row
                if a and b and a != b), default=1.0)
    assert 0 < bound <= min(true, 1.0) + 1e-12  # ln(A/B) ≥ (A−B)/A
    assert approx.gap_lower_bound(views, limit=0) <= bound


@pytest.mark.parametrize("k", [1, 3, 17, 200])
def test_exp_approx_error_bound_by_exact_powers(k):
    """|ln r − ln(N)/k| ≤ h/2, checked without logarithms: (r(1−h/2))^k ≤ N ≤ (r(1+h))^k."""
    h = Fraction(1, 10**9)
    counts = [1, 2, 3, 10, 977, 45222, 10**12 + 39]
    for n, r in zip(counts, approx.exp_approx(Fraction(1, k), counts, Fraction(0), Fraction(0), Fraction(0),
                                             Fraction(1), h)):
        assert (r * (1 - h / 2)) ** k <= n <= (r * (1 + h)) ** k


def test_realise_keeps_sums_and_moves_scores_within_h():
    rng = np.random.default_rng(3)
    h = Fraction(1, 10**6)
    prior = [Fraction(int(x), 7) for x in rng.integers(5, 50, 3)]
    counts = [[[Fraction(int(x), 3) for x in rng.integers(1, 20, 4)] for _ in range(2)] for _ in range(3)]
    new_prior, new_counts = approx.realise(prior, counts, h)
    for c in range(3):
        assert all(sum(attr) == new_prior[c] for attr in new_counts[c])
    # every class's score moved by the same factor λ up to h: compare two tuples and two classes
    def score(p, cs, c, t):
        return Fraction(math.prod(cs[c][i][t[i]] for i in range(2))) / Fraction(p[c])
    ratios = [score(new_prior, new_counts, c, t) / score(prior, counts, c, t)
              for c in range(3) for t in [(0, 0), (3, 2)]]
    assert max(ratios) / min(ratios) <= Fraction(math.exp(2 * float(h)))  # Step 3 exact, Step 4 ≤ h per score


def test_normalised_views_rank_identically():
    views = random_views(np.random.default_rng(5), "plain")
    assert check_equivalence(views, normalised(views)).equivalent
    assert sum(normalised(views).prior) == 1


def test_gap_bound_survives_integers_beyond_floats():
    views = random_views(np.random.default_rng(9), "plain")
    big = 10**400  # a uniform scaling multiplies every score by the same factor: same relative gaps
    scaled = views.with_counts([p * big for p in views.prior], [[[v * big for v in row] for row in a.counts]
                                                                 for a in views.attributes])
    assert approx.gap_lower_bound(scaled) == approx.gap_lower_bound(views)


def test_papers_tie_example_keeps_the_later_class():
    """§6.2.2 "Preserving ties": N¹_{t,1}N²_{t',1} = 4·4 = 16 = 2·8 = N¹_{t,2}N²_{t',2}, P1 = P2 = 100;
    a fixed precision of 10⁻² would flip the prediction to class 1, the biased rounding must not."""
    views = NBCViews("C", ("1", "2"), (100, 100), (AttributeCounts("A1", ("t", "u"), ((4, 2), (96, 98))),
                                                  AttributeCounts("A2", ("t'", "u'"), ((4, 8), (96, 92)))))
    assert views.score((0, 0), 0) == views.score((0, 0), 1) and views.classify((0, 0)) == 1
    for gamma in (Fraction(101, 100), Fraction(2)):
        out = safety_transform(views, gamma).views
        assert out.classify((0, 0)) == 1 and check_equivalence(views, out).equivalent


@st.composite
def arbitrary_views(draw):
    """Views that need not come from a table (e.g. a hand-written views file): any counts, zeros and ties."""
    classes = draw(st.integers(2, 4))
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    count = st.integers(0, 12)
    prior = tuple(draw(st.integers(1, 30)) for _ in range(classes))
    attributes = tuple(AttributeCounts(f"A{i}", tuple(map(str, range(size))),
                                       tuple(tuple(draw(count) for _ in range(classes)) for _ in range(size)))
                       for i, size in enumerate(sizes))
    return NBCViews("C", tuple(map(str, range(classes))), prior, attributes)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(arbitrary_views(), st.sampled_from(GAMMAS), st.sampled_from(["posterior", "corollary4"]))
def test_arbitrary_views_stay_equivalent_and_safe(views, gamma, condition):
    out = safety_transform(views, gamma, condition)
    assert check_equivalence(views, out.views).equivalent
    assert satisfies_corollary4(out.views, gamma, condition=condition) and out.views.is_realistic()


@settings(max_examples=40, deadline=None, derandomize=True)
@given(arbitrary_views(), st.integers(1, 200))
def test_arbitrary_views_through_est(views, tilt):
    """EST (§7) either refuses naming Statement 14 or returns equivalent, realistic views that
    meet Statement 11's condition for r exactly."""
    c = views.classes
    prior = [Fraction(1, c) + Fraction(tilt, 10**4) * (1 if i == 0 else Fraction(-1, c - 1)) for i in range(c)]
    r = Fraction(20)
    try:
        out = est(views, prior, r)
    except InputError as exc:
        assert "Statement 14" in str(exc)
        return
    assert check_equivalence(views, out.views).equivalent and out.views.is_realistic()
    assert satisfies_corollary4(out.views, r, prior, "posterior")
