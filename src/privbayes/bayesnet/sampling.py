"""Ancestral sampling from a network and its conditionals (TODS 2017, §3, "Generation of synthetic data").

Sampling reads only the released model, never the data: it is post-processing.
Parents that enter a pair generalised are generalised before look-up (§5.2).
:func:`sample_to` streams rows to a file in chunks, for tables larger than memory.
"""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
import os
import shutil
import sys
import tempfile
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privbayes.bayesnet import draw_kernel
from privbayes.bayesnet.network import Network
from privbayes.core.errors import InputError
from privbayes.files.parquet_parts import PartsWriter, check_spliced, encode_part
from privbayes.inference import DRAWS, BalancedDraw
from privbayes.schema import Schema
from privbayes.schema.decoding import coded_text, decode_arrow, distinct_values
from privbayes.schema.encoding import Encoding


def ancestral_sample(
    network: Network, conditionals: Sequence[np.ndarray], encoding: Encoding, n: int, rng: np.random.Generator,
    draw: str = "iid",
) -> np.ndarray:
    """``n`` rows of encoded codes drawn from Π_i Pr*[X_i | Π_i] (:class:`AncestralSampler`, built for one call)."""
    return AncestralSampler(network, conditionals, encoding, draw)(n, rng)


@dataclass(frozen=True)
class _Step:
    """One AP pair's part of a draw: its child, the parents' codes at their levels, and its conditional's
    cumulative rows with their guide table (:func:`guide_table`, :func:`guided_count`)."""

    child: int
    size: int
    parents: tuple[tuple[int, int, np.ndarray], ...]
    """(attribute, size of its level, code → code at the level) per parent."""
    cdf: np.ndarray
    guide: np.ndarray


class AncestralSampler:
    """Draws rows of encoded codes from Π_i Pr*[X_i | Π_i] by inverse CDF, pair by pair in the network's order
    (TODS 2017, §3): each row's code is the number of its parent configuration's cumulative probabilities at or
    below its uniform draw (at most |dom| − 1).  The cumulative tables and their guide tables are built once,
    so a model sampled block by block pays for them once; memory per draw is O(n) whatever |dom(X)|.
    ``draw`` (:data:`privbayes.inference.sampling.DRAWS`): ``"iid"``, a uniform number per row and pair;
    ``"balanced"``, the numbers stratified within each parent configuration
    (:class:`~privbayes.inference.sampling.BalancedDraw`)."""

    def __init__(self, network: Network, conditionals: Sequence[np.ndarray], encoding: Encoding,
                 draw: str = "iid") -> None:
        if draw not in DRAWS:
            raise ValueError(f"draw must be one of {', '.join(DRAWS)}")
        attrs = encoding.attributes
        self.width = len(attrs)
        self.draw = draw
        steps = []
        for pair, cond in zip(network.pairs, conditionals):
            size = attrs[pair.child].size
            cdf = np.cumsum(cond.reshape(-1, size), axis=1)
            parents = tuple((a, attrs[a].level_size(level), attrs[a].levels[level]) for a, level in pair.parents)
            ended = np.concatenate([cdf, np.full((len(cdf), 1), np.inf)], axis=1).ravel()
            steps.append(_Step(pair.child, size, parents, ended, guide_table(cdf)))
        self.steps = tuple(steps)
        self._packed: tuple[np.ndarray, ...] | None = None

    def __call__(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` rows (n × d encoded codes); the uniform draws are ``rng.random(n)`` per pair, in the network's
        order (drawn as one pairs × n array: the same numbers).  Where the compiled kernel is loaded
        (:mod:`privbayes.bayesnet.draw_kernel`), it counts on the same draws: the same codes.  A balanced draw
        needs each pair's parents before its numbers: pair by pair, in numpy."""
        out = np.zeros((self.width, n), dtype=np.int64)  # a row per attribute: parents are read contiguously
        if self.draw == "balanced":
            return self._balanced(out, BalancedDraw(n, rng))
        uniforms = rng.random((len(self.steps), n))
        compiled = draw_kernel.loaded()
        if compiled is not None:
            compiled(out, uniforms, *self.packed())
            return out.T
        for step, draws in zip(self.steps, uniforms):
            count = guided_count(step.cdf, step.guide, step.size, self._configurations(step, out), draws)
            np.minimum(count, step.size - 1, out=out[step.child])
        return out.T

    def _balanced(self, out: np.ndarray, balanced: BalancedDraw) -> np.ndarray:
        for step in self.steps:
            rows = self._configurations(step, out)
            count = guided_count(step.cdf, step.guide, step.size, rows, balanced.uniforms(rows))
            np.minimum(count, step.size - 1, out=out[step.child])
            balanced.drawn(out[step.child])
        return out.T

    @staticmethod
    def _configurations(step: _Step, out: np.ndarray) -> np.ndarray:
        """Each row's parent configuration for ``step`` (its row of the cumulative table)."""
        rows = np.zeros(out.shape[1], dtype=np.int64)
        for a, level_size, level in step.parents:
            rows *= level_size
            rows += level[out[a]]
        return rows

    def packed(self) -> tuple[np.ndarray, ...]:
        """The steps as flat arrays for the compiled kernel (:func:`privbayes.bayesnet.draw_kernel._draw_rows`),
        built once."""
        if self._packed is None:
            steps: list[tuple[int, ...]] = []
            parents: list[tuple[int, int, int]] = []
            levels: list[np.ndarray] = []
            ended: list[np.ndarray] = []
            guides: list[np.ndarray] = []
            at = {"levels": 0, "ended": 0, "guide": 0}
            for step in self.steps:
                first = len(parents)
                for a, level_size, level in step.parents:
                    parents.append((a, level_size, at["levels"]))
                    levels.append(level)
                    at["levels"] += len(level)
                steps.append((step.child, step.size, first, len(parents), at["ended"], at["guide"]))
                ended.append(step.cdf)
                guides.append(step.guide)
                at["ended"] += len(step.cdf)
                at["guide"] += len(step.guide)
            self._packed = (np.array(steps, dtype=np.int64).reshape(-1, 6),
                            np.array(parents, dtype=np.int64).reshape(-1, 3),
                            np.concatenate(levels or [np.zeros(0)]).astype(np.int64),
                            np.concatenate(ended), np.concatenate(guides).astype(np.int64))
        return self._packed


KERNEL_ROWS = 1 << 22
"""Streamed samples from this many rows on load the compiled draw (:func:`privbayes.bayesnet.draw_kernel.load`,
with numba; the same codes) before their workers fork, while one process forked earlier draws the first chunks
(:func:`rendered`): below, loading numba costs more than it saves."""


def guide_table(cdf: np.ndarray) -> np.ndarray:
    """Per row r of ``cdf`` (configurations × |dom|, non-decreasing along axis 1) and per bucket k of |dom|
    equal buckets of [0, 1): r · (|dom| + 1) plus a lower bound of the count of the row's entries at or
    below any draw in the bucket (Devroye 1986, §III.2.4, "guide tables"), i.e. where a search in the rows
    ended by +∞ (:func:`guided_count`) may start.  An entry is counted from two buckets after the one it falls
    in, so rounding in ``entry · |dom|`` can never make the bound too high."""
    configs, size = cdf.shape
    first = np.clip(np.ceil(cdf * size + 0.5).astype(np.int64) + 1, 0, size)  # bucket from which the entry counts
    counts = np.bincount((np.arange(configs)[:, None] * (size + 1) + first).ravel(), minlength=configs * (size + 1))
    bound = np.cumsum(counts.reshape(configs, size + 1)[:, :size], axis=1)
    return (bound + np.arange(configs)[:, None] * (size + 1)).ravel()


def guided_count(ended: np.ndarray, guide: np.ndarray, size: int, rows: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Per draw, the number of entries of its row of the cumulative table that are ≤ it — exactly
    ``(draw >= cdf[row]).sum()`` — from the rows ended by +∞ (``ended``: configurations × (|dom| + 1), flat)
    and their guide table: start at the guide's lower bound and step forward while the next entry is ≤ the
    draw (+∞ never is).  About two steps per draw whatever the distribution, each over the draws still
    moving, instead of ⌈log₂(|dom|+1)⌉ vectorised halvings of the whole block."""
    bucket = (draws * size).astype(np.int64)
    np.minimum(bucket, size - 1, out=bucket)
    bucket += rows * size
    position = guide[bucket]
    moving = np.flatnonzero(ended[position] <= draws)
    while moving.size:
        at = position[moving] + 1
        position[moving] = at
        moving = moving[ended[at] <= draws[moving]]
    position -= rows * (size + 1)
    return position


BLOCK_ROWS = 65536
"""Rows drawn from one generator: block b uses the b-th child of the seed's SeedSequence, so
the rows written depend only on the seed and n — not on ``chunk_rows`` nor on the number of workers."""

IN_FLIGHT = 2
"""Chunks in flight per worker process (being drawn, or drawn and waiting for the writer): memory stays
bounded by ``IN_FLIGHT × workers`` chunks whatever n."""


DICTIONARY_VALUES = 1 << 17
"""Columns whose domain allows at most this many distinct values are dictionary-encoded in Parquet files, larger
ones written plain (:func:`parquet_options`): 2¹⁷ 8-byte values fill pyarrow's 1 MiB dictionary page, past which
its writer falls back to plain encoding after hashing every value in vain."""


def parquet_options(schema: Schema, kinds: Any, bin_labels: bool) -> dict[str, Any]:
    """The Parquet writer's options for a table of column types ``kinds`` (a ``pyarrow.Schema``) sampled from
    ``schema``, from public inputs alone (docs/decisions.md, "Parallel sampling"): a dictionary for columns of at
    most :data:`DICTIONARY_VALUES` values (:func:`~privbayes.schema.decoding.distinct_values`), plain encoding for
    the others and for columns the schema does not decode (identifier keys, all distinct) — Parquet's first two
    encodings, which every reader reads; statistics (min, max, nulls) for every column but text, whose minimum
    and maximum cost about an eighth of the CPU of sampling Adult's rows, to skip no row group of a sample (each
    holds nearly every category)."""
    import pyarrow as pa

    attributes = {a.name: a for a in schema.attributes}

    def text(kind: Any) -> bool:
        kind = kind.value_type if pa.types.is_dictionary(kind) else kind
        return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))

    return {"use_dictionary": [f.name for f in kinds if f.name in attributes
                               and distinct_values(attributes[f.name], bin_labels) <= DICTIONARY_VALUES],
            "write_statistics": [f.name for f in kinds if not text(f.type)]}


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system reports it): ``workers``' default."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Chunks:
    """Everything needed to render chunk ``i`` of a sampled table, picklable so that worker processes can
    render chunks apart: chunk i is blocks ``i·per_chunk …`` and block b draws from the b-th child of
    ``root`` — so a chunk's rows depend on its index alone, never on which process drew it."""

    draw: Callable[[int, np.random.Generator], np.ndarray]
    finish: Callable[[pd.DataFrame, int], pd.DataFrame] | None
    schema: Schema
    n: int
    root: np.random.SeedSequence
    block_rows: int
    per_chunk: int
    bin_labels: bool
    arrow_schema: Any = None
    """The column types handed to the Parquet writer (a ``pyarrow.Schema``: text categories as dictionaries of
    codes, :func:`~privbayes.schema.decoding.coded_text`), or ``None`` for CSV."""
    parquet_options: Mapping[str, Any] | None = None
    """The Parquet writer's options (:func:`parquet_options`)."""

    @property
    def count(self) -> int:
        """The number of chunks."""
        return -(-self.n // (self.block_rows * self.per_chunk))

    def _rng(self, b: int) -> np.random.Generator:
        """Block ``b``'s generator: the b-th child of the root (what ``root.spawn`` gives the b-th time, built
        directly)."""
        return np.random.default_rng(np.random.SeedSequence(self.root.entropy, spawn_key=(*self.root.spawn_key, b),
                                                            pool_size=self.root.pool_size))

    def _blocks(self, i: int) -> range:
        first = i * self.per_chunk
        return range(first, min(first + self.per_chunk, -(-self.n // self.block_rows)))

    def block(self, b: int) -> pd.DataFrame:
        """Block ``b``'s decoded and finished rows."""
        start = b * self.block_rows
        rng = self._rng(b)
        frame = self.schema.decode(self.draw(min(self.block_rows, self.n - start), rng), rng,
                                   bin_labels=self.bin_labels)
        return self.finish(frame, start) if self.finish is not None else frame

    def frame(self, i: int) -> pd.DataFrame:
        """Chunk ``i``'s rows."""
        frames = [self.block(b) for b in self._blocks(i)]
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]

    def table(self, i: int) -> Any:
        """Chunk ``i``'s rows as an Arrow table of the file's column types: decoded straight to Arrow
        (:func:`~privbayes.schema.decoding.decode_arrow`: the same values and draws as through pandas) unless
        a finishing step needs the pandas frame."""
        import pyarrow as pa

        if self.finish is not None:
            return pa.Table.from_pandas(self.frame(i), schema=self.arrow_schema, preserve_index=False)
        tables = []
        for b in self._blocks(i):
            rng = self._rng(b)
            codes = self.draw(min(self.block_rows, self.n - b * self.block_rows), rng)
            tables.append(decode_arrow(self.schema.attributes, codes, rng, self.arrow_schema, self.bin_labels))
        return pa.concat_tables(tables)

    def render(self, i: int) -> str | bytes:
        """Chunk ``i`` as the writer takes it: CSV text (the header in chunk 0) or Parquet bytes encoded here
        (:func:`~privbayes.files.parquet_parts.encode_part`), so that the writer only appends them."""
        if self.arrow_schema is None:
            return self.frame(i).to_csv(None, header=i == 0, index=False)
        return encode_part(self.table(i), self.parquet_options)


_CHUNKS: Chunks | None = None
"""A worker process's job, installed once when the process starts (:func:`_install`)."""


def _install(chunks: Chunks) -> None:
    global _CHUNKS
    _CHUNKS = chunks


def _render(i: int, folder: str) -> str:
    """Render chunk ``i`` into a file of ``folder`` (Parquet bytes or CSV text) and return its path: a file in
    shared memory hands a chunk over for a memory copy, where a pipe moved it in 64 KiB pieces (slower
    than drawing it, on a busy machine)."""
    assert _CHUNKS is not None, "the worker's job is installed when it starts"
    payload = _CHUNKS.render(i)
    path = os.path.join(folder, f"chunk{i}")
    with open(path, "wb") as handle:
        handle.write(payload.encode("utf-8") if isinstance(payload, str) else payload)
    return path


def _read_chunk(path: str, text: bool) -> str | bytes:
    """A chunk a worker rendered into ``path`` (:func:`_render`), read into memory; the file is removed."""
    try:
        with open(path, "rb") as handle:
            payload = handle.read()
        return payload.decode("utf-8") if text else payload
    finally:
        os.unlink(path)


EARLY_CHUNKS = 2
"""Chunks drawn by the numpy loop in a process forked before the compiled draw is loaded (:func:`rendered`):
about what one core renders while another loads numba."""


def rendered(chunks: Chunks, workers: int, kernel: bool = False) -> Iterator[Any]:
    """The chunks rendered in order: here, or by ``workers`` processes with at most ``IN_FLIGHT`` chunks each
    in flight (bounded memory), handed over through files in shared memory (:func:`_render`) and still in
    order (docs/decisions.md, "Parallel sampling").  ``kernel``: the compiled draw is loaded first
    (:data:`KERNEL_ROWS`); where workers are forked, one process forked before the load renders the first
    :data:`EARLY_CHUNKS` chunks with the numpy loop (the same codes) while this one loads it, so that the
    load leaves no core idle."""
    workers = min(workers, chunks.count)
    if workers <= 1:
        if kernel:
            draw_kernel.load()
        yield from map(chunks.render, range(chunks.count))
        return
    shared = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    folder = tempfile.mkdtemp(prefix="privbayes-sample-", dir=shared)
    pools: list[ProcessPoolExecutor] = []
    try:
        pending: deque[Future[str]] = deque()
        ahead = iter(range(chunks.count))
        if kernel and FORK and not draw_kernel.tried() and chunks.count > EARLY_CHUNKS:
            pools.append(_pool(chunks, 1))
            for i in itertools.islice(ahead, EARLY_CHUNKS):
                pending.append(pools[0].submit(_render, i, folder))
        if kernel:
            draw_kernel.load()  # before the workers fork: they share it
        pools.append(_pool(chunks, workers))
        for i in itertools.islice(ahead, IN_FLIGHT * workers):
            pending.append(pools[-1].submit(_render, i, folder))
        while pending:
            payload = _read_chunk(pending.popleft().result(), text=chunks.arrow_schema is None)
            for i in itertools.islice(ahead, 1):
                pending.append(pools[-1].submit(_render, i, folder))
            yield payload
    finally:
        for pool in pools:
            pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(folder, ignore_errors=True)


FORK = sys.platform.startswith("linux")
"""Worker processes are forked (Linux), else spawned (:func:`_pool`)."""


def _pool(chunks: Chunks, workers: int) -> ProcessPoolExecutor:
    """Worker processes holding ``chunks``.  Forked where the system forks (Linux): they start at once with
    the model already in memory, and a caller's script is not run again in them (as it would be by spawn
    or a fork server without a ``__main__`` guard).  They run numpy, pandas and pyarrow code only, which
    survives a fork of a process with idle threads, so Python's warning about forking such a process
    (3.12+) is silenced here only.  Elsewhere they are spawned and receive ``chunks`` pickled."""
    context = multiprocessing.get_context("fork" if FORK else "spawn")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_install, initargs=(chunks,))
        if FORK:  # forked now, inside the filter (a fork context starts every process on the first submit)
            pool.submit(int).result()
    return pool


def sample_to(path: str | os.PathLike, draw: Callable[[int, np.random.Generator], np.ndarray], schema: Schema,
              n: int, seed: int | None, chunk_rows: int = 4 * BLOCK_ROWS, bin_labels: bool = False,
              progress: Callable[[int, int], None] | None = None,
              finish: Callable[[pd.DataFrame, int], pd.DataFrame] | None = None, workers: int = 1) -> None:
    """Write ``n`` synthetic rows to a CSV or Parquet file, ``chunk_rows`` at a time: ``draw(rows, rng)``
    gives rows of leaf codes, ``finish(frame, start)`` (if any) completes each decoded block whose first
    row is row ``start`` (a condition's exact values, identifier keys).

    ``workers`` > 1: chunks are drawn, decoded and formatted by that many processes (``draw`` and ``finish``
    must then pickle) while this process writes them in order: the file is the same byte for byte
    whatever ``workers``.  Memory stays bounded by a few chunks per worker (codes and decoded values)
    whatever ``n``; the file appears only when complete (written beside it, then renamed).
    Post-processing of the released model: no data is read."""
    from privbayes.files.tables import OUTPUT_SUFFIXES, atomic_write

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise InputError(f"{target}: unknown table format {suffix or '(none)'!r}; expected .csv or .parquet")
    if not isinstance(chunk_rows, (int, np.integer)) or chunk_rows < 1:
        raise InputError(f"chunk_rows ({chunk_rows!r}) must be a positive integer")
    if not isinstance(workers, (int, np.integer)) or workers < 1:
        raise InputError(f"workers ({workers!r}) must be a positive integer")
    chunks = Chunks(draw, finish, schema, n, np.random.SeedSequence(seed), BLOCK_ROWS,
                    max(1, -(-int(chunk_rows) // BLOCK_ROWS)), bin_labels)

    def report(i: int) -> None:
        if progress is not None:
            progress(min(n, (i + 1) * chunks.per_chunk * chunks.block_rows), n)

    def write_csv(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            for i, text in enumerate(rendered(chunks, int(workers), n >= KERNEL_ROWS)):
                handle.write(text)
                report(i)

    def write_parquet(tmp: Path) -> None:
        import pyarrow as pa

        probe = np.arange(min(1024, max(a.size for a in schema.attributes)))[:, None]
        leaves = np.column_stack([probe[:, 0] % a.size for a in schema.attributes])
        frame = schema.decode(leaves, np.random.default_rng(0), bin_labels=bin_labels)
        kinds = pa.Schema.from_pandas(finish(frame, 0) if finish is not None else frame,
                                      preserve_index=False)  # column types from values of every code, not a chunk
        job = dataclasses.replace(chunks, arrow_schema=coded_text(schema.attributes, kinds) if finish is None
                                  else kinds, parquet_options=parquet_options(schema, kinds, bin_labels))
        with open(tmp, "wb") as handle:
            writer = PartsWriter(handle, schema=kinds)  # the file stores ``kinds``: text read back as text
            for i, part in enumerate(rendered(job, int(workers), n >= KERNEL_ROWS)):
                assert isinstance(part, bytes)
                writer.append(part)
                report(i)
            writer.close()
        check_spliced(tmp, n)

    atomic_write(target, write_csv if suffix == ".csv" else write_parquet)
