"""Small data generators shared by the tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privbayes.schema import Attribute, Schema


def categorical_schema(sizes: list[int]) -> Schema:
    return Schema(tuple(Attribute(f"a{j}", "categorical", categories=tuple(range(s))) for j, s in enumerate(sizes)))


def random_frame(sizes: list[int], n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"a{j}": rng.integers(0, s, n) for j, s in enumerate(sizes)})


def correlated_frame(sizes: list[int], n: int, seed: int) -> pd.DataFrame:
    """Each attribute copies the previous one (mod its size) 70 % of the time."""
    rng = np.random.default_rng(seed)
    columns = {"a0": rng.integers(0, sizes[0], n)}
    for j in range(1, len(sizes)):
        copy = rng.random(n) < 0.7
        columns[f"a{j}"] = np.where(copy, columns[f"a{j - 1}"] % sizes[j], rng.integers(0, sizes[j], n))
    return pd.DataFrame(columns)
