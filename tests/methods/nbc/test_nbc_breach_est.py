"""γ from breach levels (Lemma 2), Corollary 4, k-SIND (Lemma 10) and EST (§7), VLDB 2009."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from helpers_nbc import random_views

from privbayes.core.errors import InputError
from privbayes.methods.nbc.attack import posterior_exact
from privbayes.methods.nbc.breach import (
    GAMMA_DENOMINATOR,
    amplification,
    breach_ratio,
    gamma_from_breach,
    k_sind,
    lemma2_lhs,
    satisfies_corollary4,
)
from privbayes.methods.nbc.equivalence import check_equivalence
from privbayes.methods.nbc.est import est
from privbayes.methods.nbc.views import AttributeCounts, NBCViews

V1 = NBCViews("Sal", ("50K", "70K"), (2, 5), (AttributeCounts("Adr", ("W", "P"), ((1, 4), (1, 1))),
                                               AttributeCounts("Age", ("30", "40"), ((1, 1), (1, 4)))))
V2 = NBCViews("Sal", ("50K", "70K"), (2, 3), (AttributeCounts("Adr", ("W", "P"), ((1, 2), (1, 1))),
                                               AttributeCounts("Age", ("30", "40"), ((1, 1), (1, 2)))))


@pytest.mark.parametrize("classes", [2, 3, 4, 7])
@pytest.mark.parametrize("levels", [("0.5", "0.6"), ("0.51", "0.8"), ("0.1", "0.9"), ("0.3", "0.31")])
def test_gamma_from_breach_is_the_largest_grid_point_inside_condition_7(classes, levels):
    l1, l2 = (Fraction(x) for x in levels)
    gamma = gamma_from_breach(l1, l2, classes)
    rho = breach_ratio(l1, l2)
    assert gamma > 1 and lemma2_lhs(gamma, classes) < rho
    assert lemma2_lhs(gamma + Fraction(1, GAMMA_DENOMINATOR), classes) >= rho
    if classes == 2:
        assert gamma < rho <= gamma + Fraction(1, GAMMA_DENOMINATOR)  # γ* = ρ for two classes


def test_breach_levels_are_validated():
    with pytest.raises(InputError, match="need 0 < L1 < L2 < 1"):
        gamma_from_breach(Fraction(1, 2), Fraction(1, 2), 2)


def test_corollary4_and_k_sind_on_figure1():
    # V2: P ratio 3/2, N ratios ≤ 2 → smallest γ = 2² = 4 (n = 2)
    assert amplification(V2) == 4 and satisfies_corollary4(V2, Fraction(4))
    assert not satisfies_corollary4(V2, Fraction(399, 100))
    assert amplification(V1) == 16
    zero = V1.with_counts((2, 5), [((0, 4), (2, 1)), ((1, 1), (1, 4))])
    assert amplification(zero) is None and not satisfies_corollary4(zero, Fraction(10**9))
    assert k_sind(V1) == 2


def test_corollary4_does_not_bound_the_posterior():
    """Views meeting Corollary 4 with γ = 4 exactly (n = 2: every ratio ≤ 2) whose exact
    possible-worlds posterior ratio for I0 = ⟨a, a⟩ is ≈ 7.96 > γ: Lemma 3's condition (9)
    does not imply Lemma 2's (8).  The large-count limit is ρ^(2n−1) = 8, which the
    "posterior" condition bounds."""
    column = AttributeCounts("A", ("a", "b"), ((10, 20), (1000, 500)))
    views = NBCViews("C", ("0", "1"), (1010, 520), (column, AttributeCounts("B", ("a", "b"), column.counts)))
    assert views.is_realistic() and satisfies_corollary4(views, Fraction(4))
    p = posterior_exact(views, {0: 0, 1: 0})
    assert p[1] / p[0] > Fraction(79, 10)
    assert amplification(views, condition="posterior") == 8 >= p[1] / p[0]


def test_lemma2_on_figure1_posteriors():
    """§4: with L1 = 0.51, L2 = 0.8, V1 (88 %) breaches and V2 (78 %) does not, for Bob's 50 % prior."""
    p1 = posterior_exact(V1, {0: 0, 1: 1})[1]
    p2 = posterior_exact(V2, {0: 0, 1: 1})[1]
    assert p1 > Fraction(8, 10) > p2 > Fraction(51, 100)


def test_est_guarantees_r_closeness_when_statement14_allows():
    prior = (Fraction(49, 100), Fraction(51, 100))
    out = est(V1, prior, Fraction(3))
    assert check_equivalence(V1, out.views).equivalent
    assert out.views.is_realistic()
    assert out.achieved == amplification(out.views, prior, "posterior") <= 3
    assert satisfies_corollary4(out.views, Fraction(3), prior, "posterior")
    paper = est(V1, prior, Fraction(2), condition="corollary4")  # ρ^n instead of ρ^(2n−1)
    assert paper.achieved == amplification(paper.views, prior) <= 2 < out.achieved


@pytest.mark.parametrize("seed", range(12))
def test_est_on_random_views_is_equivalent_or_refuses(seed):
    views = random_views(np.random.default_rng(500 + seed), ["plain", "copy", "skewed"][seed % 3])
    c = views.classes
    prior = [Fraction(1, c) + (Fraction(1, 1000) if i == 0 else -Fraction(1, 1000 * (c - 1))) for i in range(c)]
    try:
        out = est(views, prior, Fraction(50))
    except InputError as exc:
        assert "Statement 14" in str(exc)
        return
    assert check_equivalence(views, out.views).equivalent
    assert out.achieved <= 50 and out.views.is_realistic()


def test_est_refuses_when_statement14_fails():
    with pytest.raises(InputError, match=r"^EST: r-closeness r = 1.3 cannot be guaranteed .*Statement 14"):
        est(V1, (Fraction(3, 4), Fraction(1, 4)), Fraction(13, 10))


def test_est_uniform_prior_is_safety_transform():
    out = est(V1, (Fraction(1, 2), Fraction(1, 2)), Fraction(3, 2))
    assert check_equivalence(V1, out.views).equivalent and out.achieved <= Fraction(3, 2)


@pytest.mark.parametrize("prior, message", [
    ((Fraction(1, 2),), "one probability per class label"),
    ((Fraction(1), Fraction(0)), "probability > 0"),
    ((Fraction(1, 2), Fraction(1, 3)), "must sum to 1"),
])
def test_est_prior_is_validated(prior, message):
    with pytest.raises(InputError, match=message):
        est(V1, prior, Fraction(2))
