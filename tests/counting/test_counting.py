"""The counting layer: cached/generalised tables and batched binary families equal direct counts."""

import itertools
import subprocess
import sys

import numpy as np
import pytest

from privbayes.counting import InMemoryTable, memory
from privbayes.counting.families import HAVE_NUMBA
from privbayes.schema import Attribute, Schema
from privbayes.schema.encoding import Encoding


def brute_counts(codes, encoding, attributes, levels):
    shape = [encoding.attributes[a].level_size(l) for a, l in zip(attributes, levels)]
    out = np.zeros(shape, dtype=np.int64)
    for row in codes:
        out[tuple(encoding.attributes[a].levels[l][row[a]] for a, l in zip(attributes, levels))] += 1
    return out




def test_counts_with_taxonomy_levels_equal_brute_force(counting_path):
    rng = np.random.default_rng(1)
    schema = Schema((
        # non-contiguous
        Attribute("a", "categorical", categories=tuple("pqrst"), taxonomy=(("p", "t"), ("q", "r", "s"))),
        Attribute("b", "numeric", lower=0, upper=8, bins=8),
        Attribute("c", "binary"),
    ))
    encoding = Encoding.build(schema, "hierarchical")
    codes = np.column_stack([rng.integers(0, 5, 400), rng.integers(0, 8, 400), rng.integers(0, 2, 400)])
    table = InMemoryTable(codes, encoding)
    for attributes in ([0], [1, 0], [2, 0, 1], [0, 2]):
        for levels in np.ndindex(*[encoding.attributes[a].height for a in attributes]):
            np.testing.assert_array_equal(table.counts(attributes, levels),
                                          brute_counts(codes, encoding, attributes, levels))
    assert table.n == 400


@pytest.mark.skipif(not HAVE_NUMBA, reason="binary_families needs numba (privbayes[fast])")
@pytest.mark.parametrize("k", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("n_children", [1, 2, 12])
def test_binary_families_equal_counts(k, n_children, monkeypatch):
    """Every (parent set, child) table equals a direct count, whatever the order of the
    parent sets; few children take the joint-table path (2^(k+u) ≤ rows), 12 children
    the per-row vector path (2^(k+12) > 3,000 rows)."""
    monkeypatch.setattr(memory, "_NUMPY_VISITS", 0)
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


@pytest.mark.skipif(not HAVE_NUMBA, reason="no numba")
def test_small_work_is_counted_with_numpy_and_numba_loads_once_it_pays():
    """A table counts with bincount until its row × column visits reach ``_NUMPY_VISITS``,
    then loads numba's kernels; the counts are the same either way.  Run in a fresh process,
    where numba has not been imported by other tests."""
    script = """
import sys
import numpy as np
from privbayes.counting import InMemoryTable, memory
from privbayes.counting.families import kernels_loaded
from privbayes.schema.encoding import Encoding
from privbayes.schema import Attribute, Schema
schema = Schema(tuple(Attribute(f"a{j}", "categorical", categories=tuple(range(4))) for j in range(6)))
codes = np.random.default_rng(0).integers(0, 4, size=(5000, 6))
table = InMemoryTable(codes, Encoding.build(schema, "vanilla"))
rows = len(table._multiplicity)
memory._NUMPY_VISITS = 10 * 3 * rows  # room for ten 3-way tables
memory.plan_bases = lambda encoding, levels, targets, rows: [(t, [i]) for i, t in enumerate(targets)]  # one each
small = [table.counts([0, 1, j]) for j in range(2, 6)]  # 4 tables: numpy
assert "numba" not in sys.modules and not kernels_loaded()
large = table.counts_many([([i, j, k], None) for i in range(6) for j in range(i) for k in range(j)])  # 20: numba
assert kernels_loaded()
for j, got in enumerate(small):
    direct = np.zeros((4, 4, 4), np.int64)
    np.add.at(direct, (codes[:, 0], codes[:, 1], codes[:, 2 + j]), 1)
    assert (got == direct).all()
assert all(t.sum() == 5000 for t in large)
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
