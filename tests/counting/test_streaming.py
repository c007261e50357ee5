"""Issue 17: streaming synthesis to CSV/Parquet in chunks (bounded memory, atomic, reproducible)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privbayes import PrivBayes
from privbayes.bayesnet.sampling import BLOCK_ROWS
from privbayes.core.errors import InputError
from privbayes.schema import Attribute, Schema


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(0)
    n = 3000
    a = rng.integers(0, 3, n)
    frame = pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.7, a % 2, rng.integers(0, 2, n)),
                          "x": np.round(rng.uniform(0, 10, n), 1), "c": rng.choice(["p", "q", "r,s"], n)})
    schema = Schema((Attribute("a", "categorical", categories=(0, 1, 2)), Attribute("b", "binary"),
                     Attribute("x", "numeric", lower=0, upper=10, bins=5),
                     Attribute("c", "categorical", categories=("p", "q", "r,s"))))
    return PrivBayes(2.0, random_state=1).fit(frame, schema).model_


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_rows_do_not_depend_on_the_chunk_size(tmp_path, model, suffix):
    n = BLOCK_ROWS + 1234  # two generator blocks, the second partial
    small, large = tmp_path / f"small{suffix}", tmp_path / f"large{suffix}"
    model.sample_to(small, n, chunk_rows=1000, random_state=5, progress=False)
    model.sample_to(large, n, chunk_rows=10**6, random_state=5, progress=False)
    read = pd.read_csv if suffix == ".csv" else pd.read_parquet
    a, b = read(small), read(large)
    assert len(a) == n and list(a.columns) == ["a", "b", "x", "c"]
    pd.testing.assert_frame_equal(a, b)
    assert set(a["c"]) <= {"p", "q", "r,s"} and a["x"].between(0, 10).all()
    other = tmp_path / f"other{suffix}"
    model.sample_to(other, n, chunk_rows=1000, random_state=6, progress=False)
    assert not read(other).equals(a)


def test_streamed_rows_follow_the_model(tmp_path, model):
    """The root attribute's frequencies match its released marginal within 5 standard errors
    per cell (binomial: sqrt(p(1 − p)/n)); with a fixed seed the check is deterministic."""
    n = 200_000
    path = tmp_path / "s.parquet"
    model.sample_to(path, n, chunk_rows=50_000, random_state=2, progress=False)
    root = model.network.pairs[0]
    assert not root.parents
    name = model.schema.attributes[root.child].name
    codes = {c: i for i, c in enumerate(model.schema.attributes[root.child].categories or ())}
    values = pd.read_parquet(path)[name]
    p = np.asarray(model.conditionals[0], dtype=float).ravel()
    if codes:
        freq = np.bincount(values.map(codes).to_numpy(), minlength=len(p))[: len(p)] / n
    else:  # numeric or binary root: compare by bins through the schema's own coding
        freq = np.bincount(model.schema.attributes[root.child].bin_codes(values.to_numpy(float)), minlength=len(p)) / n
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12)


def test_memory_stays_bounded_by_a_chunk(tmp_path, model, monkeypatch):
    """No draw holds more than one block of rows and no write more than one chunk, whatever n
    (so peak memory is set by chunk_rows, not by n)."""
    from privbayes.bayesnet import sampling

    drawn, written = [], []

    def counting_draws(n, rng):
        drawn.append(n)
        return model.encoding.decode(sampling.ancestral_sample(model.network, model.conditionals, model.encoding, n,
                                                               rng))

    to_csv = pd.DataFrame.to_csv

    def counting_writes(self, *args, **kwargs):
        written.append(len(self))
        return to_csv(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", counting_writes)
    n = 5 * BLOCK_ROWS + 7
    sampling.sample_to(tmp_path / "m.csv", counting_draws, model.schema, n, 1, chunk_rows=2 * BLOCK_ROWS)
    assert sum(drawn) == n and max(drawn) == BLOCK_ROWS
    assert written == [2 * BLOCK_ROWS, 2 * BLOCK_ROWS, BLOCK_ROWS + 7]


def test_a_failed_write_leaves_nothing(tmp_path, model, monkeypatch):
    from privbayes.bayesnet import sampling

    calls = []

    def fail_second(done, total):
        calls.append(done)
        if len(calls) == 2:
            raise RuntimeError("disk full")

    target = tmp_path / "out.csv"
    with pytest.raises(RuntimeError):
        sampling.sample_to(target, model._draw(None), model.schema, 3 * BLOCK_ROWS, 0, chunk_rows=BLOCK_ROWS,
                           progress=fail_second)
    assert list(tmp_path.iterdir()) == []


def test_bad_arguments_are_refused(tmp_path, model):
    with pytest.raises(InputError, match="unknown table format"):
        model.sample_to(tmp_path / "out.xlsx", 10, progress=False)
    with pytest.raises(InputError, match="chunk_rows"):
        model.sample_to(tmp_path / "out.csv", 10, chunk_rows=0, progress=False)
    with pytest.raises(InputError):
        model.sample_to(tmp_path / "out.csv", 0, progress=False)
