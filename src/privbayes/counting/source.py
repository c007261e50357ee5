"""``open``: the one way private data enters the library.

A source — a table file (CSV, Parquet, the authors' ``.dat``) or a pandas DataFrame
— is read with types taken from the schema (:mod:`privbayes.counting.reading`),
every value labelled on its own (:mod:`privbayes.counting.labels`), and handed back
as a :class:`PrivateTable` whose only outputs are the row count and exact counts.

Back-ends: ``numpy`` (in memory), ``duckdb`` (embedded, out of core) and ``spark``
(a cluster).  Text tables (CSV, ``.dat``) are read by one strict, row-local dialect
(:mod:`privbayes.counting.dialect`): numpy and DuckDB share the streaming reader (DuckDB
stores the rows as they stream, out of core), Spark reads the lines itself and splits them
with the same code in its workers (``.csv``, ``.csv.gz``, ``.csv.bz2`` in UTF-8, without
``quoted_newlines``; other text tables are labelled in memory and only counted in Spark).
Parquet files are read in place by the engines.  DataFrames are labelled in memory.  ``auto`` takes DuckDB for a
file larger than :data:`AUTO_MEMORY_SHARE` of the machine's memory.  ``backend`` may
also be an open DuckDB connection or an existing ``SparkSession``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError
from privbayes.counting.base import PrivateTable
from privbayes.counting.labels import label_column
from privbayes.counting.memory import InMemoryTable
from privbayes.counting.reading import TableFile, raw_columns, read_frame, table_path
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding

Source: TypeAlias = str | os.PathLike[str] | pd.DataFrame
BACKENDS = ("numpy", "duckdb", "spark", "auto")
AUTO_MEMORY_SHARE = 1 / 16
"""``auto`` counts in DuckDB files larger than this share of physical memory (in memory,
pandas holds a text table at several times its file size)."""
_SPARK_TEXT = (".csv", ".csv.gz", ".csv.bz2")
"""Text tables Spark reads itself (Hadoop decompresses these); others are labelled in memory."""


def source_name(source: Source) -> str:
    """How error messages name a source: its path, or "data" for a DataFrame (the path it was read
    from, when :func:`~privbayes.counting.reading.read_frame` read it)."""
    return str(source.attrs.get("source", "data")) if isinstance(source, pd.DataFrame) else str(source)


def check_source(source: Any) -> None:
    """Refuse, in one line, data that is neither a DataFrame nor a path (a numpy array, a list…)."""
    if not isinstance(source, (str, os.PathLike, pd.DataFrame)):
        hint = (" (wrap it: pandas.DataFrame(array, columns=[...]) names its columns)"
                if isinstance(source, np.ndarray) else "")
        raise InputError(f"data must be a pandas DataFrame or the path of a CSV, Parquet or .dat file, got "
                         f"{type(source).__module__.split('.')[0]}.{type(source).__name__}{hint}")


def leaf_codes(source: Source, schema: Schema, *, allow_empty: bool = False) -> np.ndarray:
    """The schema's leaf codes (n × d) of every row of ``source`` (no rows: refused unless
    ``allow_empty``).

    For the counting layer and for evaluation (which compares tables and releases
    nothing); everything else receives a :class:`PrivateTable`.
    """
    check_source(source)
    where = source_name(source)
    frame = source if isinstance(source, pd.DataFrame) else read_frame(source, schema)
    columns = raw_columns(frame, schema, where, allow_empty=allow_empty)
    return np.column_stack([label_column(a, columns[a.name].positions, columns[a.name].distinct,
                                         f"{where}: column {a.name!r}") for a in schema.attributes])


def open(source: Source, schema: Any, backend: Any = "numpy", *,  # noqa: A001 - the entry point's name
         allow_empty: bool = False) -> PrivateTable:
    """Open private data: the one way in for rows (the privacy boundary, docs/architecture.md).

    Every row is read, typed and validated by the schema (its ``missing`` and ``invalid`` policies) before
    anything is counted; errors name the file, column and kind of problem, never a value.

    Parameters
    ----------
    source : str or os.PathLike or pandas.DataFrame
        A CSV (with header; possibly compressed), Parquet or ``.dat`` file, or a DataFrame.
    schema : Schema or str or os.PathLike or dict
        The public domain: a :class:`~privbayes.Schema`, a schema file (YAML, JSON or ``.domain``) or its dict.
    backend : str or duckdb.DuckDBPyConnection or pyspark.sql.SparkSession, default "numpy"
        Who counts: ``"numpy"`` (in memory), ``"duckdb"``, ``"spark"``, ``"auto"`` (DuckDB for files larger
        than 1/16 of memory), a DuckDB connection or a SparkSession.
    allow_empty : bool, default False
        Accept data without rows: a mechanism whose guarantee makes n private (add/remove neighbours) must
        not fail on the empty table, a neighbour of every one-row table.

    Returns
    -------
    PrivateTable
        The row count and exact contingency tables behind a narrow interface; exact counts must only
        flow into a mechanism of :mod:`privbayes.privacy` that pays for them.
    """
    from privbayes.schema.files import as_schema

    check_source(source)
    name, engine = _backend(backend)
    schema = as_schema(schema)
    if name == "auto":
        name = "duckdb" if _large(source) and _importable("duckdb") else "numpy"
    if name == "numpy":
        return InMemoryTable(leaf_codes(source, schema, allow_empty=allow_empty),
                             Encoding.build(schema, "hierarchical"), allow_empty=allow_empty)
    path = _in_place(source, name, schema)
    if name == "duckdb":
        from privbayes.counting.duckdb import duckdb_from_codes, duckdb_from_file

        return (duckdb_from_file(source, table_path(Path(path)), schema, engine, allow_empty=allow_empty)
                if path is not None
                else duckdb_from_codes(leaf_codes(source, schema, allow_empty=allow_empty), schema, engine))
    from privbayes.counting.spark import spark_from_codes, spark_from_file

    return (spark_from_file(source, table_path(Path(path)), schema, engine, allow_empty=allow_empty)
            if path is not None
            else spark_from_codes(leaf_codes(source, schema, allow_empty=allow_empty), schema, engine))


def _backend(backend: Any) -> tuple[str, Any]:
    """The back-end's name and the engine handle passed in (or None)."""
    module = type(backend).__module__
    if module.lstrip("_").startswith("duckdb"):
        return "duckdb", backend
    if module.startswith("pyspark"):
        return "spark", backend
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InputError(f"backend ({backend!r}) must be one of {', '.join(BACKENDS)}, "
                         "a DuckDB connection or a SparkSession")
    if backend in ("duckdb", "spark") and not _importable("duckdb" if backend == "duckdb" else "pyspark"):
        raise InputError(f"backend {backend!r} needs an extra: pip install 'privbayes[{backend}]'")
    return backend, None


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _large(source: Source) -> bool:
    """Is ``source`` a file larger than :data:`AUTO_MEMORY_SHARE` of physical memory?"""
    if isinstance(source, pd.DataFrame) or not os.path.isfile(source):
        return False
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - systems without sysconf
        return False
    return os.path.getsize(source) > AUTO_MEMORY_SHARE * memory


def _in_place(source: Source, engine: str, schema: Schema) -> str | None:
    """The path of a file ``engine`` reads itself (DuckDB: every table file; Spark: Parquet, and
    UTF-8 CSV it can decompress and split by lines), else None (labelled in memory instead)."""
    if isinstance(source, pd.DataFrame):
        return None
    path = os.fspath(source)
    suffix = table_path(Path(path))  # the reader's own checks and messages (format, folder, missing file)
    if engine == "duckdb" or suffix in (".parquet", ".pq"):
        return path
    if isinstance(source, TableFile) and source.encoding != "utf-8":
        return None  # Spark reads UTF-8 only
    if schema.quoted_newlines:
        return None  # records spanning lines: not splittable by lines, read in memory
    return path if path.lower().endswith(_SPARK_TEXT) else None
