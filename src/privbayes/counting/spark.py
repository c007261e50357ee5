"""Counting back-end on Apache Spark (a cluster; ``local[*]`` on one machine).

The recipe of :mod:`privbayes.counting.engine` in Spark SQL: Spark reads a CSV file's lines
(its text source: no CSV parser, no schema inference) and its Python workers split them by the
strict dialect's own code (:mod:`privbayes.counting.dialect`, shipped with the task), after the
driver has streamed the file once through the same bounded reader (caps, UTF-8, line length,
header); Parquet is read in its own types.  Both get a pattern-free link to the file
(:mod:`privbayes.counting.paths`), never the user's path; on a cluster, whose executors cannot see
the driver's link, the file's resolved path when it holds no pattern character.  Each column's distinct values are
labelled in Python by
:func:`privbayes.counting.labels.label_column`; the value → code maps travel with the task to
the Python workers, where Arrow looks every value up (``mapInArrow``; integer columns by direct addressing);
the coded rows are cached as distinct rows with multiplicities; the workers count them into dense numpy tables,
in jobs of a bounded number of cells (:meth:`SparkTable._count`), and Spark sums the partial tables.

Needs Java 17+ and ``pip install 'privbayes[spark]'``.  Pass an existing
``SparkSession`` as ``backend`` to count on a cluster (its settings are left as they are); otherwise the
active session is reused as it is, or a quiet ``local[*]`` session is started (:func:`local_session`).
The file must be readable by the driver (the preflight) and by the workers at the same path.  Text
tables Spark does not split itself (other compressions or encodings, ``.dat``, a schema with
``quoted_newlines``) are read and labelled in memory and only counted in Spark.

On a cluster (:func:`on_cluster`: any master but ``local[...]``) the coded rows stay cached in the executors and
every table is counted there, unless the schema's whole domain fits the driver (:func:`driver_may_hold_rows`, a
rule on the public schema alone): the driver's memory is bounded by the plan's cells, not by n (docs/scale.md,
"Spark on a cluster"; docs/decisions.md, "Spark on a cluster").
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, Self

import numpy as np

from privbayes.core.errors import InputError
from privbayes.counting.base import Request, all_answered, check_request
from privbayes.counting.engine import (
    _DENSE_CELLS,
    LOCAL_MEMORY_SHARE,
    EngineTable,
    Refused,
    check_columns,
    code_type,
    label_distinct,
    local_bytes,
    pack_sql,
    parquet_schema,
    physical_memory,
    unique_prefix,
)
from privbayes.counting.labels import InvalidValuesError
from privbayes.counting.paths import PATTERN_CHARACTERS, LiteralPath
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding


class SparkTable(EngineTable):
    """Rows coded and counted by Spark; the coded rows stay cached in the cluster."""

    def __init__(self, session: Any, frame: Any, rows_name: str, schema: Schema, n: int) -> None:
        super().__init__(schema, n)
        self.session, self.rows_name, self._frame = session, rows_name, frame

    def _fetch(self, sql: str) -> Any:
        return self.session.sql(sql).toArrow()

    def counts_many(self, requests: Sequence[Request]) -> list[np.ndarray]:
        """Every request's table, counted in the executors (:meth:`_count`): tables whose leaf table is small enough
        to hold densely through the engines' plan (bases counted at the leaves and summed out,
        :meth:`EngineTable.counts_many`); larger ones directly at their requested taxonomy levels, whose table —
        within the cell cap — is the largest the driver ever holds, where a leaf-level answer would grow with the
        rows (up to n cells)."""
        if self.local is not None:
            return self.local.counts_many(requests)
        attrs = self.encoding.attributes
        normal = [check_request(self.encoding, attributes, levels) for attributes, levels in requests]
        large = [i for i, (a, _) in enumerate(normal) if math.prod(attrs[x].size for x in a) > _DENSE_CELLS]
        answers: list[np.ndarray | None] = [None] * len(normal)
        small = [i for i in range(len(normal)) if i not in set(large)]
        for i, table in zip(small, super().counts_many([requests[i] for i in small]) if small else []):
            answers[i] = table
        if large:  # each set of (attribute, level) variables counted once, by attribute; requests transpose it
            variables = {i: tuple(sorted(zip(*normal[i]))) for i in large}
            wanted = list(dict.fromkeys(variables.values()))
            shapes = [tuple(attrs[a].level_size(l) for a, l in v) for v in wanted]
            flats = [np.zeros(math.prod(shape), np.int64) for shape in shapes]
            for t, lo, cell, count in self._count([(tuple(a for a, _ in v), tuple(l for _, l in v)) for v in wanted]):
                flats[t][cell + lo] = count
            tables = [flat.reshape(shape) for flat, shape in zip(flats, shapes)]
            self.stats.counted += len(wanted)
            for i in large:
                order = [a for a, _ in variables[i]]
                answers[i] = np.transpose(tables[wanted.index(variables[i])], [order.index(a) for a in normal[i][0]])
        return all_answered(answers)

    def _leaf_counts(self, keys: list[tuple[int, ...]]) -> dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]:
        """Sparse leaf tables (packed key, count) of attribute sets of at most ``_DENSE_CELLS`` cells (the engines'
        plan asks for no larger ones here: :meth:`counts_many`), counted by :meth:`_count` as the plan reads them
        (:class:`_Answers`): the driver holds one job's answer at a time, not the whole pass's."""
        for key in keys:
            pack_sql(self.encoding, key)  # the engines' refusal of a key too large to pack
        self.stats.passes -= 1  # the engines count this call as a pass; :meth:`_count` counts each job
        attrs = self.encoding.attributes
        left = [-(-math.prod(attrs[a].size for a in key) // _WORKER_CELLS) for key in keys]  # slices, as in _jobs
        return _Answers(keys, left, self._count([(key, (0,) * len(key)) for key in keys]))

    def localise(self, share: float | None = None) -> Self:
        """On a cluster (:func:`on_cluster`), keep counting in the executors unless :func:`driver_may_hold_rows`;
        on ``local[...]`` the driver is the machine, and the engines' rule applies (:meth:`EngineTable.localise`)."""
        if on_cluster(self.session) and not driver_may_hold_rows(self.encoding, share):
            return self
        return super().localise(share)

    def _count(self, wanted: list[tuple[tuple[int, ...], tuple[int, ...]]]
               ) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        """Tables of (attributes, levels) counted in Spark jobs, as slices ``(table, lo, cells, counts)``: the nonzero
        cells ``lo + cells`` of the table's row-major cells and their counts, job after job (lazily).

        The tables' cells, in order, are cut into jobs of at most :data:`_WORKER_CELLS` (:func:`_jobs`: a table
        beyond that in slices of its row-major cells), a rule on the plan alone.  In a job, every Python worker
        counts its partitions into the job's dense cells (:func:`_piece_counts`: ``_WORKER_CELLS`` float64 at
        most) and sends their nonzero cells; Spark sums them by cell and the driver receives at most
        ``_WORKER_CELLS`` (cell, count) pairs a job (128 MB), so its memory is bounded by the plan whatever n
        (docs/decisions.md, "Spark on a cluster").  A ``GROUPING SETS`` query instead expands every row once
        per table before aggregating (64 × the rows hashed and shuffled: minutes a pass on 10⁶ × 20) and answers
        at the leaves, up to n cells for a large table.  Each job is a pass over the rows (``stats.passes``)."""
        from pyspark.sql.types import LongType, StructField, StructType

        attrs = self.encoding.attributes
        shapes = [tuple(attrs[a].level_size(l) for a, l in zip(key, levels)) for key, levels in wanted]
        schema = StructType([StructField("g", LongType(), False), StructField("c", LongType(), False)])
        _ship_by_value(sys.modules[__name__])  # its functions travel by value: the workers need no privbayes
        for job in _jobs([math.prod(shape) for shape in shapes], _WORKER_CELLS):
            start = time.perf_counter()
            pieces = [_Piece(wanted[t][0], wanted[t][1], tuple(None if l == 0 else attrs[a].levels[l]
                                                               for a, l in zip(*wanted[t])), shapes[t], lo, hi)
                      for t, lo, hi in job]
            with _no_pandas_version_note():
                partial = self._frame.mapInArrow(_piece_counts(pieces), schema)
            result = partial.groupBy("g").sum("c").toArrow()
            cell, count = result.column("g").to_numpy(), result.column("sum(c)").to_numpy()
            del result
            self.stats.passes += 1
            self.stats.seconds += time.perf_counter() - start
            offset = 0
            for t, lo, hi in job:
                mine = (cell >= offset) & (cell < offset + hi - lo)
                yield t, lo, (cell[mine] - offset).astype(np.int64), count[mine].astype(np.int64)
                offset += hi - lo


class _Answers(dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]):
    """The sparse leaf tables of ``keys`` as :meth:`EngineTable.counts_many` reads them, each once: counted job by
    job (``slices`` from :meth:`SparkTable._count`, ``left[t]`` of them for table t) only when a table not yet
    complete is read, and let go once read, so that the driver holds about one job's answer rather than a whole
    pass's (up to 64 bases of 2²² cells)."""

    def __init__(self, keys: list[tuple[int, ...]], left: list[int],
                 slices: Iterator[tuple[int, int, np.ndarray, np.ndarray]]) -> None:
        super().__init__()
        self._keys, self._left, self._slices = keys, left, slices
        self._parts: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}

    def __missing__(self, key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        t = self._keys.index(key)
        while self._left[t]:
            got = next(self._slices, None)
            if got is None:  # pragma: no cover - the jobs cover every table's cells
                raise RuntimeError("a counting job's answer is missing")
            table, lo, cells, counts = got
            self._parts.setdefault(table, []).append((cells + lo, counts))
            self._left[table] -= 1
        if t not in self._parts:
            raise KeyError(key)  # read already
        parts = self._parts.pop(t)
        return np.concatenate([c for c, _ in parts]), np.concatenate([w for _, w in parts])


_WORKER_CELLS = 2**23
"""Cells of one counting job (:meth:`SparkTable._count`): what a Python worker holds while counting (float64: 64 MB)
and the most (cell, count) pairs a job sends the driver (128 MB)."""


class _Piece(NamedTuple):
    """Cells ``lo``..``hi`` (row-major) of the table over ``attributes`` at ``levels``: each attribute's leaf → level
    map (None at the leaves) and the table's shape."""

    attributes: tuple[int, ...]
    levels: tuple[int, ...]
    maps: tuple[np.ndarray | None, ...]
    shape: tuple[int, ...]
    lo: int
    hi: int


def _jobs(cells: list[int], budget: int) -> list[list[tuple[int, int, int]]]:
    """Tables of ``cells`` cells cut into jobs of at most ``budget`` cells, in order: (table, lo, hi) slices, a
    table beyond the budget in slices of it.  Depends on the plan (the tables' sizes) only."""
    jobs: list[list[tuple[int, int, int]]] = []
    room = 0
    for t, size in enumerate(cells):
        for lo in range(0, size, budget):
            hi = min(size, lo + budget)
            if hi - lo > room:
                jobs.append([])
                room = budget
            jobs[-1].append((t, lo, hi))
            room -= hi - lo
    return jobs


def _piece_counts(pieces: list[_Piece]) -> Callable[[Any], Any]:
    """The function a Python worker runs on its partition of coded rows ``c0..c{d-1}, w``: every piece's cells
    counted densely, one after the other in one array (cell ``g``), sent as its nonzero cells (batches ``g, c``).

    Weights are summed in float64 and exact: every partial sum is at most n < 2^53 (as in
    :func:`~privbayes.counting.engine.spread`)."""

    def count(batches: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        tables = [np.zeros(piece.hi - piece.lo, np.float64) for piece in pieces]
        for chunk in _in_chunks(batches):
            weights = chunk.column("w").to_numpy().astype(np.float64)
            codes: dict[tuple[int, int], Any] = {}
            for piece, table in zip(pieces, tables):
                packed = np.zeros(chunk.num_rows, np.int64)
                for a, level, labels, size in zip(piece.attributes, piece.levels, piece.maps, piece.shape):
                    if (a, 0) not in codes:
                        codes[a, 0] = chunk.column(f"c{a}").to_numpy().astype(np.int64)
                    if (a, level) not in codes:
                        codes[a, level] = codes[a, 0] if labels is None else labels[codes[a, 0]]
                    packed *= size
                    packed += codes[a, level]
                mass = weights
                if piece.lo or piece.hi < math.prod(piece.shape):  # a slice of a large table: its cells only
                    inside = (packed >= piece.lo) & (packed < piece.hi)
                    packed, mass = packed[inside] - piece.lo, weights[inside]
                if len(table) <= len(packed):
                    table += np.bincount(packed, weights=mass, minlength=len(table))
                else:  # more cells than rows: add the rows' own cells
                    cells, inverse = np.unique(packed, return_inverse=True)
                    table[cells] += np.bincount(inverse, weights=mass)
        offset = 0
        for table in tables:
            found = np.flatnonzero(table)
            for first in range(0, len(found), _LOOKUP_ROWS):
                part = found[first:first + _LOOKUP_ROWS]
                yield pa.RecordBatch.from_arrays([pa.array(part + offset), pa.array(table[part].astype(np.int64))],
                                                 names=["g", "c"])
            offset += len(table)

    return count


def _in_chunks(batches: Any) -> Any:
    """Arrow record batches regrouped into tables of at least :data:`_LOOKUP_ROWS` rows (the last may be smaller):
    numpy and Arrow calls cost per call as well as per row."""
    import pyarrow as pa

    pending, rows = [], 0
    for batch in batches:
        pending.append(batch)
        rows += batch.num_rows
        if rows >= _LOOKUP_ROWS:
            yield pa.Table.from_batches(pending)
            pending, rows = [], 0
    if pending:
        yield pa.Table.from_batches(pending)


def on_cluster(session: Any) -> bool:
    """Does ``session`` run its executors outside the driver's process?  Every master but ``local`` and
    ``local[...]`` (``local-cluster[...]``, ``spark://``, ``yarn``, ``k8s://``) does."""
    master = str(session.sparkContext.master)
    return not (master == "local" or master.startswith("local["))


def driver_may_hold_rows(encoding: Encoding, share: float | None = None) -> bool:
    """May a table on a cluster move its coded rows to the driver?  Only when the schema's whole domain — a row
    for every cell, the most distinct rows any data can have — fits in ``share`` (default
    :data:`~privbayes.counting.engine.LOCAL_MEMORY_SHARE`) of the driver's memory.

    The rule reads the public schema only, never the data or n (private under add/remove neighbours before its
    noisy count is paid for), so where a fit counts — and its driver's memory — says nothing about the rows; and
    the driver's memory does not grow with n (docs/decisions.md, "Spark on a cluster")."""
    share = LOCAL_MEMORY_SHARE if share is None else share
    cells = math.prod(a.size for a in encoding.schema.attributes)
    return local_bytes(encoding, cells) <= share * physical_memory()


QUIET_LOG_LEVEL = "ERROR"
"""Spark's log level on the sessions this module creates: its INFO/WARN chatter (and console progress bars, also
off) would bury our own one-line notes and warnings, which are Python warnings and stay visible."""


def local_session(session: Any = None) -> Any:
    """``session`` as given, else the active SparkSession, else a new quiet ``local[*]`` one (:func:`start_session`).

    A session the user passes, or one already active, is used as it is: its log level, progress bars and
    other settings are the user's and are not changed (docs/decisions.md, "Quiet Spark")."""
    if session is not None:
        return session
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    return active if active is not None else start_session()


def start_session(master: str = "local[*]", options: dict[str, str] | None = None) -> Any:
    """A new quiet SparkSession on ``master`` (``local[*]``; ``local-cluster[2,1,1024]`` in the tests), with
    ``options`` on top of ours.

    It logs at :data:`QUIET_LOG_LEVEL` (``spark.log.level``, from the context's start) and draws no console
    progress bars (``spark.ui.showConsoleProgress``).  When this starts the process's JVM, the JVM's own output —
    lines printed before any log level applies (a JVM module warning, the log4j profile, a loopback-address
    warning) — goes to a private temporary file, removed once the JVM is up (:func:`_launch_jvm`)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    # Python workers (the Arrow look-ups) run this interpreter, which has pyarrow, unless the user chose one.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    settings = {"spark.master": master, "spark.app.name": "privbayes", "spark.sql.shuffle.partitions": "8",
                "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
                "spark.log.level": QUIET_LOG_LEVEL, **(options or {})}
    builder = SparkSession.builder
    for key, value in settings.items():
        builder = builder.config(key, value)
    with _no_pandas_version_note():
        if SparkContext._gateway is None:  # no JVM yet in this process: start it with its output off the console
            _launch_jvm(settings)
        return builder.getOrCreate()


@contextlib.contextmanager
def _no_pandas_version_note() -> Iterator[None]:
    """PySpark warns about the pandas version when a context starts and for Arrow-only functions, which use no
    pandas: not a note for our users."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
        yield


def _launch_jvm(settings: dict[str, str]) -> None:
    """Start the JVM behind pyspark (as ``SparkContext`` would) with its stdout and stderr in a private file, and
    start the context on it; a JVM that does not start is a one-line :class:`InputError` naming that file."""
    import tempfile

    from pyspark import SparkConf, SparkContext
    from pyspark.errors import PySparkRuntimeError
    from pyspark.java_gateway import launch_gateway as untyped

    launch_gateway: Callable[..., Any] = untyped  # untyped in pyspark
    conf = SparkConf(loadDefaults=True).setAll(list(settings.items()))
    handle, log = tempfile.mkstemp(prefix="privbayes-spark-", suffix=".log")  # mode 0600
    try:
        with os.fdopen(handle, "wb") as output:
            gateway = launch_gateway(conf, popen_kwargs={"stdout": output, "stderr": output})
    except PySparkRuntimeError:
        raise InputError(f"backend 'spark': Spark's JVM did not start (Spark needs Java 17+); its output is in "
                         f"{log}") from None
    os.unlink(log)  # the JVM keeps writing to the open file; nothing is left behind at exit
    SparkContext(conf=conf, gateway=gateway)


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _errors() -> tuple[type[BaseException], ...]:
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    return (PySparkException, Py4JJavaError)


def spark_from_file(path: Any, suffix: str, schema: Schema, session: Any = None, *,
                    allow_empty: bool = False) -> SparkTable:
    """A :class:`SparkTable` over a UTF-8 CSV (maybe .gz/.bz2) or a Parquet file, read in place."""
    import weakref

    import pyarrow as pa

    from privbayes.counting.reading import TableFile, open_text

    where = str(path)
    text = suffix == ".csv"
    if text:  # the driver streams the file once through the shared reader before Spark starts
        table = open_text(path, schema, path.sep if isinstance(path, TableFile) else None, "utf-8")
        check_columns(table.columns, schema, where)
        table.lines.drain()
    else:
        parquet_schema(path, schema, where)
    spark = local_session(session)
    prefix = unique_prefix()
    link = _OwnPath(path, where) if on_cluster(spark) else LiteralPath(path)  # Spark may read the file again
    try:
        if text:
            frame = _text_rows(spark, link.path, table)
        else:
            frame = spark.read.parquet(link.path)
            check_columns(list(frame.columns), schema, where)
            frame = frame.selectExpr(*[_ident(a.name) for a in schema.attributes])
        frame.createOrReplaceTempView(f"{prefix}_src")
        distinct = _distinct_columns(spark, f"{prefix}_src", schema)
        n = distinct.column("n")[0].as_py()
        if n == 0 and not allow_empty:
            raise InputError(f"{where}: the data has no rows")
        maps = []
        for j, attr in enumerate(schema.attributes):
            column = _column(distinct, j)
            try:
                keys, codes = label_distinct(schema, j, column, where, null_is_malformed=text)
            except Refused as refused:
                rows = _rows_of(spark, f"{prefix}_src", attr.name, refused.values, "_i" if text else None)
                raise InvalidValuesError(str(refused), rows) from None
            maps.append((keys, pa.array(codes, code_type(attr.size))))
        rows = _coded(frame.selectExpr(*[_ident(a.name) for a in schema.attributes]), maps, schema).cache()
        rows.count()
        rows.createOrReplaceTempView(f"{prefix}_rows")
        spark.catalog.dropTempView(f"{prefix}_src")
    except _errors() as exc:  # engine messages may quote a line of the file: name the kind only
        link.close()
        raise InputError(f"{where}: cannot read the table (Spark {type(exc).__name__})") from None
    except BaseException:
        link.close()
        raise
    counted = SparkTable(spark, rows, f"{prefix}_rows", schema, int(n))
    weakref.finalize(counted, link.close)
    return counted.localise()


class _OwnPath:
    """The file's own path for executors on other machines, which cannot see a link in the driver's temporary
    folder (:class:`~privbayes.counting.paths.LiteralPath`): its resolved path as a ``file:`` URI (a cluster's
    default file system may be HDFS), refused when it holds a character Hadoop reads as a pattern."""

    def __init__(self, path: Any, where: str) -> None:
        resolved = os.path.realpath(path)
        if PATTERN_CHARACTERS & set(resolved):
            raise InputError(f"{where}: Spark on a cluster reads the file at its own path, which holds a pattern "
                             "character (* ? [ ] { } \\ , :); rename the file or link it under a plain name")
        self.path = "file:" + resolved

    def close(self) -> None:
        """Nothing to remove (the link's counterpart)."""


def _text_rows(spark: Any, link: str, table: Any) -> Any:
    """The schema's columns of a CSV file's rows (null in every column of a malformed row) and each
    row's position ``_i`` (file order), split by the strict dialect in the Python workers.

    The driver has streamed the file through the shared reader (``table``: every cap, UTF-8, the
    header); Spark's text source then cuts the same lines (at ``\\n``, ``\\r`` and ``\\r\\n``); the workers
    skip empty lines and split the rest.  The header is the first non-empty line, i.e. the row with
    ``_i`` = 0 (the first split of a file is the first partition), which a look at the first
    partition checks."""
    from pyspark.sql.types import BooleanType, StringType, StructField, StructType

    from privbayes.counting import dialect as dialect_module

    names = [table.columns[i] for i in table.wanted]
    fields = [f"f{k}" for k in range(len(names))]
    out = StructType([StructField(f, StringType(), True) for f in fields] + [StructField("_h", BooleanType(), False)])
    dialect, width, wanted, header = table.dialect, len(table.columns), table.wanted, table.lines.header

    def split(batches: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        for batch in batches:
            lines = batch.column(0).cast(pa.large_string())
            lines = lines.filter(pc.not_equal(lines, ""))
            columns = dialect.fields(lines, width, wanted)
            first = pc.or_(pc.equal(lines, header), pc.equal(lines, "\ufeff" + header))
            yield pa.RecordBatch.from_arrays([c.cast(pa.string()) for c in columns] + [first], names=fields + ["_h"])

    _ship_by_value(dialect_module)
    with _no_pandas_version_note():
        rows = spark.read.text(link).mapInArrow(split, out)
    rows = rows.selectExpr(*[f"{f} AS {_ident(c)}" for f, c in zip(fields, names)], "_h",
                           "monotonically_increasing_id() AS _i")
    first = rows.select("_i", "_h").limit(1).collect()  # reads the first partition only
    if not first or first[0]["_i"] != 0 or not first[0]["_h"]:
        raise InputError(f"{table.where}: Spark did not read the header line first; read this file with "
                         "--backend duckdb, or convert it to Parquet")
    return rows.where("_i <> 0").drop("_h")


def _ship_by_value(module: Any) -> None:
    """Pickle ``module``'s code with the task, so that workers need no privbayes installed."""
    from pyspark import cloudpickle

    registered: Callable[[], set[str]] = cloudpickle.list_registry_pickle_by_value  # untyped in pyspark
    register: Callable[[Any], None] = cloudpickle.register_pickle_by_value
    if module.__name__ not in registered():
        register(module)


_LOOKUP_ROWS = 2**18
"""Rows of a Python worker's chunk looked up at once: Arrow's look-up hashes a column's whole value set on each
call (up to the column's distinct values: 0.4 s for 10⁶ integers), so per 10,000-row Arrow batch it cost more than
the rows; a chunk holds 2¹⁸ rows × d columns (≈ 40 MB at d = 20)."""


def _coded(frame: Any, maps: list[tuple[Any, Any]], schema: Schema) -> Any:
    """Distinct coded rows ``c0..c{d-1}, w``: each column's values looked up in its (keys, codes)
    map by Arrow in the Python workers.  One linear pass; a chain of d broadcast joins instead
    re-projects every row d times, and Spark stops generating code for it past 100 columns."""
    from pyspark.sql.types import IntegerType, ShortType, StructField, StructType

    names = [f"c{j}" for j in range(len(maps))]
    direct = [_direct_table(keys, codes) for keys, codes in maps]
    out = StructType([StructField(c, ShortType() if a.size < 2**15 else IntegerType(), False)
                      for c, a in zip(names, schema.attributes)])

    def code(batches: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        # Spark groups −0.0 with 0.0 (so its distinct values hold one); Arrow does not
        def canonical(values: Any) -> Any:
            return pc.add(values, pa.scalar(0.0, values.type)) if pa.types.is_floating(values.type) else values

        value_sets: dict[tuple[int, Any], Any] = {}  # each column's keys in its type, cast once a partition

        def look_up(chunk: Any) -> Any:
            columns = []
            for j, ((keys, codes), addressed) in enumerate(zip(maps, direct)):
                if addressed is not None:
                    columns.append(_direct_codes(chunk.column(j), addressed, j))
                    continue
                column = canonical(chunk.column(j))
                if (j, column.type) not in value_sets:
                    value_sets[j, column.type] = canonical(keys.cast(column.type))
                found = pc.index_in(column, value_set=value_sets[j, column.type], skip_nulls=False)
                if found.null_count:  # every value was labelled: a miss is a bug, never a silent null
                    raise RuntimeError(f"column {j}: a value without a code")
                columns.append(pc.take(codes, found))
            return pa.Table.from_arrays(columns, names=names).to_batches()

        for chunk in _in_chunks(batches):  # Arrow hashes the value set on each call: call it on chunks
            yield from look_up(chunk)

    _ship_by_value(sys.modules[__name__])  # its functions travel by value: the workers need no privbayes
    with _no_pandas_version_note():
        coded = frame.mapInArrow(code, out)
    return coded.groupBy(*names).count().withColumnRenamed("count", "w")


_DIRECT_SPAN = 4
"""An integer column is coded by direct addressing (:func:`_direct_table`) when its values span at most this many
times its distinct values (at least 2¹⁶): a table of int32 codes no more than 4 × the keys' own bytes."""


class _Direct(NamedTuple):
    """Codes of an integer column by direct addressing: ``table[value − low]`` (−1: no such value), and the code of
    its null, if it has one."""

    low: int
    table: np.ndarray
    null: int | None
    kind: Any
    """The codes' Arrow type."""


def _direct_table(keys: Any, codes: Any) -> _Direct | None:
    """The direct-address table of an integer column's (keys, codes) map (nulls last, as
    :func:`~privbayes.counting.engine.label_distinct` gives them), or None for other columns and sparse value sets.

    Arrow's ``index_in`` hashes the whole value set on every call: 0.1-0.2 CPU-s a chunk of 2¹⁸ rows against
    1.48·10⁶ integers, several times an indexed read (docs/decisions.md, "Spark on a cluster").  Same codes: each
    value's code is looked up, only faster."""
    import pyarrow as pa

    values = keys.drop_null()
    if not pa.types.is_integer(keys.type) or len(values) == 0:
        return None
    numbers = values.to_numpy().astype(np.int64)
    low, high = int(numbers.min()), int(numbers.max())
    if high - low + 1 > max(_DIRECT_SPAN * len(numbers), 2**16):
        return None
    table = np.full(high - low + 1, -1, np.int32)
    table[numbers - low] = codes.to_numpy()[:len(numbers)]
    return _Direct(low, table, int(codes[len(codes) - 1].as_py()) if keys.null_count else None, codes.type)


def _direct_codes(column: Any, direct: _Direct, j: int) -> Any:
    """Codes of an integer column's chunk by :func:`_direct_table` (Arrow, in the code's type)."""
    import pyarrow as pa

    nulls = column.is_null().to_numpy(zero_copy_only=False) if column.null_count else None
    numbers = column.fill_null(direct.low).to_numpy().astype(np.int64) if nulls is not None else \
        column.to_numpy().astype(np.int64)
    inside = (numbers >= direct.low) & (numbers < direct.low + len(direct.table))
    if not inside.all():  # every value was labelled: a miss is a bug, never a wrong code
        raise RuntimeError(f"column {j}: a value without a code")
    codes = direct.table[numbers - direct.low]
    if nulls is not None:
        if direct.null is None:
            raise RuntimeError(f"column {j}: a null without a code")
        codes[nulls] = direct.null
    if (codes < 0).any():
        raise RuntimeError(f"column {j}: a value without a code")
    return pa.array(codes, pa.int32()).cast(direct.kind)


def _distinct_columns(spark: Any, view: str, schema: Schema) -> Any:
    """Every column's set of distinct values, whether it holds a null, and the row count: one job."""
    parts = [f"COLLECT_SET({_ident(a.name)}) AS s{j}, MAX(CASE WHEN {_ident(a.name)} IS NULL THEN 1 ELSE 0 END) AS z{j}"
             for j, a in enumerate(schema.attributes)]
    return spark.sql(f"SELECT COUNT(*) AS n, {', '.join(parts)} FROM {view}").toArrow()


def _column(distinct: Any, j: int) -> Any:
    """Column j's distinct values as a pyarrow ChunkedArray, a null last if the column has one."""
    import pyarrow as pa

    values = distinct.column(f"s{j}").combine_chunks().flatten()
    chunks = [values] + ([pa.nulls(1, values.type)] if distinct.column(f"z{j}")[0].as_py() else [])
    return pa.chunked_array(chunks, values.type)


def _rows_of(spark: Any, view: str, name: str, values: Any, order: str | None = None) -> tuple[int, ...]:
    """1-based data row numbers (file order: by the column ``order``, else by scan order) of up to
    five rows holding one of ``values``."""
    import pyarrow as pa

    key = order or "monotonically_increasing_id()"
    spark.createDataFrame(pa.table({"v": values})).createOrReplaceTempView(f"{view}_bad")
    found = spark.sql(f"SELECT r FROM (SELECT ROW_NUMBER() OVER (ORDER BY {key}) AS r, "
                      f"{_ident(name)} AS v FROM {view}) AS t LEFT SEMI JOIN {view}_bad AS b ON t.v <=> b.v "
                      "ORDER BY r LIMIT 5").collect()
    spark.catalog.dropTempView(f"{view}_bad")
    return tuple(int(row[0]) for row in found)


def spark_from_codes(leaves: np.ndarray, schema: Schema, session: Any = None) -> SparkTable:
    """A :class:`SparkTable` over leaf codes already labelled in memory (DataFrames, .dat files)."""
    import pyarrow as pa

    spark = local_session(session)
    prefix = unique_prefix()
    names = [f"c{j}" for j in range(len(schema.attributes))]
    codes = spark.createDataFrame(pa.table({c: pa.array(leaves[:, j], code_type(a.size))
                                            for j, (c, a) in enumerate(zip(names, schema.attributes))}))
    rows = codes.groupBy(*names).count().withColumnRenamed("count", "w").cache()
    rows.count()
    rows.createOrReplaceTempView(f"{prefix}_rows")
    return SparkTable(spark, rows, f"{prefix}_rows", schema, len(leaves)).localise()
