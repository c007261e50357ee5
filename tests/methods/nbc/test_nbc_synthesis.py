"""Synthetic tables whose NBC-enabling views equal the published integers (VLDB 2009, §6.2.4)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from helpers_nbc import random_views, views_from_codes

from privbayes.core.errors import InputError
from privbayes.methods.nbc.safety import normalised, safety_transform
from privbayes.methods.nbc.synthesis import synthetic_codes


@pytest.mark.parametrize("seed", range(10))
def test_synthetic_codes_have_exactly_the_views(seed):
    views = random_views(np.random.default_rng(seed), ["plain", "copy", "skewed"][seed % 3])
    codes = synthetic_codes(views, np.random.default_rng(seed))
    assert views_from_codes(codes, [len(a.values) for a in views.attributes], views.classes) == views


def test_transformed_views_too_large_or_not_integer_are_refused():
    views = random_views(np.random.default_rng(1), "plain")
    published = safety_transform(views, Fraction(11, 10)).views
    with pytest.raises(InputError, match=r"^the published counts describe more than 1000 rows; .*larger --gamma"):
        synthetic_codes(published, np.random.default_rng(0), max_rows=1000)
    with pytest.raises(InputError, match="needs integer counts"):
        synthetic_codes(normalised(views), np.random.default_rng(0))
    unrealistic = views.with_counts([p + 1 for p in views.prior], [a.counts for a in views.attributes])
    with pytest.raises(InputError, match="needs realistic views"):
        synthetic_codes(unrealistic, np.random.default_rng(0))
