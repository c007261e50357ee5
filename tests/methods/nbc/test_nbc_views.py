"""NBC views, classifier and Bob's possible-worlds attack on the paper's Figure 1
(Mozafari & Zaniolo, VLDB 2009, §1)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pandas as pd
import pytest

from privbayes.core.errors import InputError
from privbayes.counting import open as open_table
from privbayes.methods.nbc.attack import posterior_exact, posterior_limit
from privbayes.methods.nbc.equivalence import check_equivalence, rankings
from privbayes.methods.nbc.views import AttributeCounts, NBCViews, views_from_table
from privbayes.schema import Schema

SCHEMA = Schema.from_dict({"attributes": [
    {"name": "Adr", "kind": "categorical", "categories": ["W", "P"]},
    {"name": "Age", "kind": "categorical", "categories": ["30", "40"]},
    {"name": "Sal", "kind": "categorical", "categories": ["50K", "70K"]},
]})
# T1 and T2 of Figure 1 (one consistent instance of each: d1 and d'1).
T1 = [("W", "40", "70K")] * 4 + [("P", "30", "70K"), ("W", "40", "50K"), ("P", "30", "50K")]
T2 = [("W", "40", "70K")] * 2 + [("P", "30", "70K"), ("W", "40", "50K"), ("P", "30", "50K")]


def views_of(rows) -> NBCViews:
    frame = pd.DataFrame(rows, columns=["Adr", "Age", "Sal"])
    return views_from_table(open_table(frame, SCHEMA), "Sal")


def worlds(views: NBCViews):
    """Every instance consistent with the views, as Figure 1 lists them: within each class the
    Adr column is fixed and the Age column takes every distinct arrangement of its multiset."""
    per_class = []
    for c in range(views.classes):
        adr = [t for t, row in enumerate(views.attributes[0].counts) for _ in range(row[c])]
        ages = [t for t, row in enumerate(views.attributes[1].counts) for _ in range(row[c])]
        per_class.append([list(zip(adr, arrangement)) for arrangement in sorted(set(itertools.permutations(ages)))])
    for combo in itertools.product(*per_class):
        yield [(a, g, c) for c, rows in enumerate(combo) for a, g in rows]


def bob(views: NBCViews, adr: int, age: int, label: int) -> Fraction:
    """§1: the average over worlds of the share of ⟨adr, age⟩ tuples that have ``label``."""
    shares = []
    for world in worlds(views):
        match = [c for a, g, c in world if (a, g) == (adr, age)]
        if match:
            shares.append(Fraction(match.count(label), len(match)))
    return sum(shares) / len(shares)


def test_figure1_views_from_the_counting_layer():
    v1 = views_of(T1)
    assert v1.labels == ("50K", "70K")
    assert v1.prior == (2, 5)
    assert v1.attributes[0].counts == ((1, 4), (1, 1))  # N^Adr_{W,70K} = 4, P_50K = 2 (§3)
    assert v1.is_realistic()


def test_figure1_bob_gets_88_and_78_percent():
    v1, v2 = views_of(T1), views_of(T2)
    assert len(list(worlds(v1))) == 10 and len(list(worlds(v2))) == 6  # d1..d10 and d'1..d'6
    w, forty, k70 = 0, 1, 1
    assert bob(v1, w, forty, k70) == Fraction(1, 10) * (Fraction(4, 5) + 4 * Fraction(3, 4) + 5)  # 0.88
    assert bob(v2, w, forty, k70) == Fraction(1, 6) * (Fraction(2, 3) + Fraction(1, 2) * 2 + 3)  # 0.78 (77.8 %)
    assert round(float(bob(v1, w, forty, k70)), 2) == 0.88 and round(float(bob(v2, w, forty, k70)), 2) == 0.78
    # the chained-hypergeometric count agrees with the enumeration
    assert posterior_exact(v1, {0: w, 1: forty})[k70] == bob(v1, w, forty, k70)
    assert posterior_exact(v2, {0: w, 1: forty})[k70] == bob(v2, w, forty, k70)


def test_figure1_both_classifiers_predict_50k_for_p30_and_are_equivalent():
    v1, v2 = views_of(T1), views_of(T2)
    p, thirty = 1, 0
    # 5·1/5·1/5 < 2·1/2·1/2
    assert v1.score((p, thirty), 1) == Fraction(1, 5) < v1.score((p, thirty), 0) == Fraction(1, 2)
    assert v2.score((p, thirty), 1) == Fraction(1, 3) < v2.score((p, thirty), 0)  # 3·1/3·1/3 < 2·1/2·1/2
    assert v1.classify((p, thirty)) == v2.classify((p, thirty)) == 0
    assert check_equivalence(v1, v2).equivalent


def test_ties_go_to_the_later_class():
    views = NBCViews("C", ("a", "b", "c"), (2, 2, 2), (AttributeCounts("A", ("x", "y"), ((1, 1, 1), (1, 1, 1))),))
    assert views.ranking((0,)) == (2, 1, 0)
    assert rankings(views).tolist() == [[2, 1, 0], [2, 1, 0]]
    other = views.with_counts((2, 2, 2), [((1, 1, 2), (1, 1, 1))])  # c wins x outright; same ranking
    assert check_equivalence(views, other).equivalent
    flipped = views.with_counts((2, 2, 2), [((1, 2, 1), (1, 1, 1))])  # b beats c on x: ranking differs
    verdict = check_equivalence(views, flipped)
    assert not verdict.equivalent and verdict.counterexample == ((0,), 1, 2)


def test_large_count_limit_is_the_nbc_posterior():
    v1 = views_of(T1)
    post = posterior_limit(v1, [0, 1])
    x = [v1.score((0, 1), c) for c in range(2)]
    assert post[0, 1, 1] == pytest.approx(float(x[1] / sum(x)), rel=1e-12)


def test_every_class_must_occur():
    with pytest.raises(InputError, match="every class label"):
        views_of([("W", "40", "70K"), ("P", "30", "70K")])
