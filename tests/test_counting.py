"""The counting layer: cached/generalised tables and batched binary families equal direct counts."""

import itertools

import numpy as np
import pytest

from privbayes.counting import InMemoryTable
from privbayes.counting.families import HAVE_NUMBA
from privbayes.encoding import Encoding
from privbayes.schema import Attribute, Schema


def brute_counts(codes, encoding, attributes, levels):
    shape = [encoding.attributes[a].level_size(l) for a, l in zip(attributes, levels)]
    out = np.zeros(shape, dtype=np.int64)
    for row in codes:
        out[tuple(encoding.attributes[a].levels[l][row[a]] for a, l in zip(attributes, levels))] += 1
    return out


def test_counts_with_taxonomy_levels_equal_brute_force():
    rng = np.random.default_rng(1)
    schema = Schema((
        Attribute("a", "categorical", categories=tuple("pqrst"), taxonomy=(("p", "t"), ("q", "r", "s"))),  # non-contiguous
        Attribute("b", "numeric", lower=0, upper=8, bins=8),
        Attribute("c", "binary"),
    ))
    encoding = Encoding.build(schema, "hierarchical")
    codes = np.column_stack([rng.integers(0, 5, 400), rng.integers(0, 8, 400), rng.integers(0, 2, 400)])
    table = InMemoryTable(codes, encoding)
    for attributes in ([0], [1, 0], [2, 0, 1], [0, 2]):
        for levels in np.ndindex(*[encoding.attributes[a].height for a in attributes]):
            np.testing.assert_array_equal(table.counts(attributes, levels), brute_counts(codes, encoding, attributes, levels))
    assert table.n == 400


@pytest.mark.skipif(not HAVE_NUMBA, reason="binary_families needs numba (privbayes[fast])")
@pytest.mark.parametrize("k", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("n_children", [1, 2, 12])
def test_binary_families_equal_counts(k, n_children):
    """Every (parent set, child) table equals a direct count, whatever the order of the
    parent sets; few children take the joint-table path (2^(k+u) ≤ rows), 12 children
    the per-row vector path (2^(k+12) > 3,000 rows)."""
    rng = np.random.default_rng(2 + k)
    d = 19
    schema = Schema(tuple(Attribute(f"x{j}", "binary") for j in range(d)))
    encoding = Encoding.build(schema, "vanilla")
    codes = rng.integers(0, 2, size=(3000, d)) & rng.integers(0, 2, size=(3000, d))  # repeated rows → weights
    table = InMemoryTable(codes, encoding)
    candidates = list(itertools.combinations(range(7), k))
    rng.shuffle(candidates)
    chosen = candidates[:40]
    parents = np.array([list(rng.permutation(p)) for p in chosen], dtype=int).reshape(len(chosen), k)
    children = np.arange(7, 7 + n_children)
    got = table.binary_families(parents, children)
    assert got.shape == (len(parents), n_children, 2, 2**k)
    for p, ps in enumerate(parents):
        for c, x in enumerate(children):
            np.testing.assert_array_equal(got[p, c], table.counts([x, *ps]).reshape(2, -1))
