"""Ancestral sampling from a network and its conditionals (TODS 2017, §3, "Generation of synthetic data").

Sampling reads only the released model, never the data: it is post-processing.
Parents that enter a pair generalised are generalised before look-up (§5.2).
:func:`sample_to` streams rows to a file in chunks, for tables larger than memory.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from privbayes.bayesnet.network import Network
from privbayes.core.errors import InputError
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding


def ancestral_sample(
    network: Network, conditionals: Sequence[np.ndarray], encoding: Encoding, n: int, rng: np.random.Generator
) -> np.ndarray:
    """``n`` rows of encoded codes drawn from Π_i Pr*[X_i | Π_i] by inverse CDF: each row's code is the number
    of its parent configuration's cumulative probabilities at or below its uniform draw, found by a binary
    search over the configuration's row (:func:`inverse_cdf`), so memory is O(n) whatever |dom(X)|."""
    attrs = encoding.attributes
    out = np.zeros((n, len(attrs)), dtype=np.int64)
    for pair, cond in zip(network.pairs, conditionals):
        size = attrs[pair.child].size
        rows = np.zeros(n, dtype=np.int64)
        for a, level in pair.parents:
            rows = rows * attrs[a].level_size(level) + attrs[a].levels[level][out[:, a]]
        cdf = np.cumsum(cond.reshape(-1, size), axis=1)
        out[:, pair.child] = np.minimum(inverse_cdf(cdf, rows, rng.random(n)), size - 1)
    return out


def inverse_cdf(cdf: np.ndarray, rows: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Per draw, the number of entries of its row of ``cdf`` (non-decreasing along axis 1) that are ≤ it: the
    count ``(draw >= cdf[row]).sum()`` gives, by ⌈log₂(|dom|+1)⌉ vectorised halvings instead of a rows × |dom|
    comparison (a 65,536-bin child needed 32 GiB for 65,536 rows)."""
    size = cdf.shape[1]
    flat = cdf.ravel()
    low = np.zeros(len(draws), dtype=np.int64)
    high = np.full(len(draws), size, dtype=np.int64)
    base = rows * size
    while True:
        open_ = low < high
        if not open_.any():
            return low
        mid = (low + high) // 2
        at_or_below = flat[base + np.minimum(mid, size - 1)] <= draws
        low = np.where(open_ & at_or_below, mid + 1, low)
        high = np.where(open_ & ~at_or_below, mid, high)


BLOCK_ROWS = 65536
"""Rows drawn from one generator: block b uses the b-th child of the seed's SeedSequence, so
the rows written do not depend on ``chunk_rows`` (only on the seed and n)."""


def sample_to(path: str | os.PathLike, draw: Callable[[int, np.random.Generator], np.ndarray], schema: Schema,
              n: int, seed: int | None, chunk_rows: int = 4 * BLOCK_ROWS, bin_labels: bool = False,
              progress: Callable[[int, int], None] | None = None,
              finish: Callable[[pd.DataFrame, int], pd.DataFrame] | None = None) -> None:
    """Write ``n`` synthetic rows to a CSV or Parquet file, ``chunk_rows`` at a time: ``draw(rows, rng)``
    gives rows of leaf codes, ``finish(frame, start)`` (if any) completes each decoded block whose first
    row is row ``start`` (a condition's exact values, identifier keys).

    Memory stays bounded by one chunk (codes and decoded values) whatever ``n``; the file
    appears only when complete (written beside it, then renamed).  Post-processing of the
    released model: no data is read.  ``keep_ids``: the schema's identifiers numbered across chunks."""
    from privbayes.files.tables import OUTPUT_SUFFIXES, atomic_write

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise InputError(f"{target}: unknown table format {suffix or '(none)'!r}; expected .csv or .parquet")
    if not isinstance(chunk_rows, (int, np.integer)) or chunk_rows < 1:
        raise InputError(f"chunk_rows ({chunk_rows!r}) must be a positive integer")
    blocks_per_chunk = max(1, -(-int(chunk_rows) // BLOCK_ROWS))
    seeds = np.random.SeedSequence(seed)

    def decoded(leaves: np.ndarray, rng: np.random.Generator, start: int) -> pd.DataFrame:
        frame = schema.decode(leaves, rng, bin_labels=bin_labels)
        return finish(frame, start) if finish is not None else frame

    def chunks() -> Iterator[pd.DataFrame]:
        done = 0
        while done < n:
            frames = []
            for _ in range(blocks_per_chunk):
                rows = min(BLOCK_ROWS, n - done)
                if rows <= 0:
                    break
                rng = np.random.default_rng(seeds.spawn(1)[0])
                frames.append(decoded(draw(rows, rng), rng, done))
                done += rows
            yield pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
            if progress is not None:
                progress(done, n)

    def write_csv(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            for i, frame in enumerate(chunks()):
                frame.to_csv(handle, header=i == 0, index=False)

    def write_parquet(tmp: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        probe = np.arange(min(1024, max(a.size for a in schema.attributes)))[:, None]
        leaves = np.column_stack([probe[:, 0] % a.size for a in schema.attributes])
        kinds = pa.Schema.from_pandas(decoded(leaves, np.random.default_rng(0), 0),
                                      preserve_index=False)  # column types from values of every code, not a chunk
        with pq.ParquetWriter(tmp, kinds) as writer:
            for frame in chunks():
                writer.write_table(pa.Table.from_pandas(frame, schema=kinds, preserve_index=False))

    atomic_write(target, write_csv if suffix == ".csv" else write_parquet)
