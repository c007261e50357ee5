"""Counting back-end on Apache Spark (a cluster; ``local[*]`` on one machine).

The recipe of :mod:`privbayes.counting.duckdb` in Spark SQL: Spark reads CSV as text
only (no schema inference; an empty field is the empty text) or Parquet in its own
types; each column's distinct values are labelled in Python by
:func:`privbayes.counting.labels.label_column`; the value → code maps travel with the task to
the Python workers, where Arrow looks every value up (``mapInArrow``); the coded rows are cached
as distinct rows with multiplicities; counts are ``GROUPING SETS`` queries over packed leaf keys,
spread over the full domain in numpy.

Needs Java 17+ and ``pip install 'privbayes[spark]'``.  Pass an existing
``SparkSession`` as ``backend`` to count on a cluster; otherwise a ``local[*]`` session
is started (or the active one reused).  CSV is read with ``multiLine`` (quoted line
breaks, as pandas reads them), which a cluster cannot split: prefer Parquet for big data.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import numpy as np

from privbayes.counting.duckdb import (
    EngineTable,
    _Refused,
    check_columns,
    code_type,
    csv_header,
    label_distinct,
    unique_prefix,
)
from privbayes.counting.labels import InvalidValuesError
from privbayes.errors import InputError
from privbayes.schema import Schema

_CSV = {"quote": '"', "escape": '"', "inferSchema": "false", "multiLine": "true",
        "encoding": "UTF-8", "mode": "FAILFAST"}


class SparkTable(EngineTable):
    """Rows coded and counted by Spark; the coded rows stay cached in the cluster."""

    def __init__(self, session: Any, frame: Any, rows_name: str, schema: Schema, n: int) -> None:
        super().__init__(schema, n)
        self.session, self.rows_name, self._frame = session, rows_name, frame

    def _fetch(self, sql: str) -> Any:
        return self.session.sql(sql).toArrow()


def local_session(session: Any = None) -> Any:
    """``session``, else the active SparkSession, else a new ``local[*]`` one."""
    if session is not None:
        return session
    from pyspark.sql import SparkSession

    # Python workers (the Arrow look-ups) run this interpreter, which has pyarrow, unless the user chose one.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return (SparkSession.builder.master("local[*]").appName("privbayes")
            .config("spark.sql.shuffle.partitions", "8").config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false").getOrCreate())


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _errors() -> tuple[type, ...]:
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    return (PySparkException, Py4JJavaError)


def spark_from_file(path: str, suffix: str, schema: Schema, session: Any = None, *,
                    allow_empty: bool = False) -> SparkTable:
    """A :class:`SparkTable` over a CSV (maybe .gz/.bz2) or Parquet file, read in place."""
    import pyarrow as pa

    spark = local_session(session)
    prefix = unique_prefix()
    try:
        if suffix == ".csv":
            sep, columns = csv_header(path, schema)
            frame = spark.read.options(header="true", sep=sep, **_CSV).csv(path).toDF(*columns)
        else:
            frame = spark.read.parquet(path)
            columns = list(frame.columns)
        check_columns(columns, schema, path)
        wrap = "COALESCE({0}, '')" if suffix == ".csv" else "{0}"  # an empty CSV field is the empty text
        frame = frame.selectExpr(*[f"{wrap.format(_ident(a.name))} AS {_ident(a.name)}" for a in schema.attributes])
        frame.createOrReplaceTempView(f"{prefix}_src")
        distinct = _distinct_columns(spark, f"{prefix}_src", schema)
        n = distinct.column("n")[0].as_py()
        if n == 0 and not allow_empty:
            raise InputError(f"{path}: the data has no rows")
        maps = []
        for j, attr in enumerate(schema.attributes):
            column = _column(distinct, j)
            try:
                keys, codes = label_distinct(schema, j, column, path)
            except _Refused as refused:
                raise InvalidValuesError(str(refused), _rows_of(spark, f"{prefix}_src", attr.name, refused.values)) from None
            maps.append((keys, pa.array(codes, code_type(attr.size))))
        rows = _coded(frame, maps, schema).cache()
        rows.count()
        rows.createOrReplaceTempView(f"{prefix}_rows")
        spark.catalog.dropTempView(f"{prefix}_src")
    except _errors() as exc:  # engine messages may quote a line of the file: name the kind only
        raise InputError(f"{path}: cannot read the table (Spark {type(exc).__name__})") from None
    return SparkTable(spark, rows, f"{prefix}_rows", schema, int(n)).localise()


def _coded(frame: Any, maps: list[tuple[Any, Any]], schema: Schema) -> Any:
    """Distinct coded rows ``c0..c{d-1}, w``: each column's values looked up in its (keys, codes)
    map by Arrow in the Python workers.  One linear pass; a chain of d broadcast joins instead
    re-projects every row d times, and Spark stops generating code for it past 100 columns."""
    from pyspark.sql.types import IntegerType, ShortType, StructField, StructType

    names = [f"c{j}" for j in range(len(maps))]
    out = StructType([StructField(c, ShortType() if a.size < 2**15 else IntegerType(), False)
                      for c, a in zip(names, schema.attributes)])

    def code(batches: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        def canonical(values: Any) -> Any:  # Spark groups −0.0 with 0.0 (so its distinct values hold one); Arrow does not
            return pc.add(values, pa.scalar(0.0, values.type)) if pa.types.is_floating(values.type) else values

        for batch in batches:
            columns = []
            for j, (keys, codes) in enumerate(maps):
                column = canonical(batch.column(j))
                found = pc.index_in(column, value_set=canonical(keys.cast(column.type)), skip_nulls=False)
                if found.null_count:  # every value was labelled: a miss is a bug, never a silent null
                    raise RuntimeError(f"column {j}: a value without a code")
                columns.append(pc.take(codes, found))
            yield pa.RecordBatch.from_arrays(columns, names=names)

    with warnings.catch_warnings():  # PySpark checks the pandas version even for Arrow-only functions
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
        coded = frame.mapInArrow(code, out)
    return coded.groupBy(*names).count().withColumnRenamed("count", "w")


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


def _rows_of(spark: Any, view: str, name: str, values: Any) -> tuple[int, ...]:
    """1-based data row numbers (file order) of up to five rows holding one of ``values``."""
    import pyarrow as pa

    spark.createDataFrame(pa.table({"v": values})).createOrReplaceTempView(f"{view}_bad")
    found = spark.sql(f"SELECT r FROM (SELECT ROW_NUMBER() OVER (ORDER BY monotonically_increasing_id()) AS r, "
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
