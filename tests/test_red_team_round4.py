"""Red team, round 4: hostile parameters, model files and schemas (findings S1-S6, S8-S11).

Each finding has a reproducer that failed on main at c5e27df (a hang, a traceback, gigabytes, a wrong value
or acceptance) and passes now: a one-line refusal naming the parameter or file and the public cap, checked
before any work that grows with it, or the correct output.  Attacks that hung on main run in a subprocess
with a timeout (the old code fails the test instead of hanging it); memory is bounded by construction (the
refusal comes before the allocation) and checked with tracemalloc where an array was the problem.
"""

from __future__ import annotations

import pytest

from privbayes.adaptive.settings import first_groups
from privbayes.encoding import Encoding
from privbayes.schema import Schema
from privbayes.schema.attribute import Attribute


def categorical_encoding(sizes: list[int]) -> Encoding:
    attributes = tuple(Attribute(f"a{j}", "categorical", categories=tuple(range(s))) for j, s in enumerate(sizes))
    return Encoding.build(Schema(attributes), "hierarchical")


# --- S2: the first measurements' groups ----------------------------------------------------------------

@pytest.mark.parametrize("sizes, groups", [
    ([2] * 7, ((0, 1, 6), (2, 3, 4, 5))),
    ([3, 4, 2, 5], ((0, 2), (1, 3))),
    ([16, 7, 2, 2, 5, 41, 6], ((0,), (1,), (2, 3, 4), (5,), (6,))),
    ([1, 2, 3], ((0, 1, 2),)),
    ([2, 2, 2, 4, 16, 10], ((0, 1, 2), (3,), (4,), (5,))),
    ([1, 1, 5, 2, 9, 3, 3, 1], ((0, 1, 2, 6, 7), (3, 5), (4,))),
    ([4] * 5, ((0, 1), (2, 3), (4,))),
    ([2, 2, 2, 3, 3, 3, 3], ((0, 1, 6), (2, 3), (4, 5))),
])
def test_the_first_groups_are_pinned(sizes, groups):
    """The groups are part of the released plan: these are main's (c5e27df), kept by any faster algorithm."""
    assert first_groups(categorical_encoding(sizes), True) == groups
