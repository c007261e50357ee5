"""Random small NBC views for the nbc tests (seeded numpy; no counting layer needed)."""

from __future__ import annotations

import numpy as np

from privbayes.methods.nbc.views import AttributeCounts, NBCViews


def views_from_codes(codes: np.ndarray, sizes: list[int], classes: int) -> NBCViews:
    """The views of a table of leaf codes whose last column is the class."""
    prior = tuple(int(v) for v in np.bincount(codes[:, -1], minlength=classes))
    attributes = []
    for i, size in enumerate(sizes):
        table = np.zeros((size, classes), dtype=np.int64)
        np.add.at(table, (codes[:, i], codes[:, -1]), 1)
        attributes.append(AttributeCounts(f"A{i}", tuple(str(t) for t in range(size)),
                                          tuple(tuple(int(v) for v in row) for row in table)))
    return NBCViews("C", tuple(f"c{c}" for c in range(classes)), prior, tuple(attributes))


def random_views(rng: np.random.Generator, tie_mode: str) -> NBCViews:
    """Small random views with 2-4 classes.  ``tie_mode``: "copy" makes the last two classes
    identical copies (every tuple ties them), "skewed" draws from a very skewed distribution
    (many zeros), "plain" uniform codes."""
    classes = int(rng.integers(2, 5))
    n = int(rng.integers(1, 4))
    sizes = [int(rng.integers(2, 5)) for _ in range(n)]
    while True:
        rows = int(rng.integers(classes * 2, 40))
        if tie_mode == "skewed":
            codes = np.column_stack([np.minimum(rng.geometric(0.6, rows) - 1, s - 1) for s in sizes]
                                    + [rng.integers(0, classes, rows)])
        else:
            codes = np.column_stack([rng.integers(0, s, rows) for s in sizes] + [rng.integers(0, classes, rows)])
        if tie_mode == "copy":
            base = codes[codes[:, -1] == classes - 2]
            codes = np.concatenate([codes[codes[:, -1] < classes - 2], base,
                                    np.column_stack([base[:, :-1], np.full(len(base), classes - 1)])])
        if len(codes) and np.all(np.bincount(codes[:, -1], minlength=classes) > 0):
            return views_from_codes(codes, sizes, classes)
