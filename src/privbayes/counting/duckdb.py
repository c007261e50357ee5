"""The DuckDB counting back-end: the recipe of :mod:`privbayes.counting.engine` in DuckDB
(embedded, out of core: reads Parquet and CSV in place; a text table streams through the strict
reader into an engine table).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from typing import Any

import numpy as np

from privbayes.core.errors import InputError
from privbayes.counting.engine import (
    EngineTable,
    Refused,
    check_columns,
    code_type,
    label_distinct,
    parquet_schema,
    unique_prefix,
)
from privbayes.counting.labels import InvalidValuesError
from privbayes.counting.paths import LiteralPath
from privbayes.schema import Schema


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class DuckDBTable(EngineTable):
    """Rows coded and counted inside DuckDB (embedded, out of core: reads Parquet/CSV in place)."""

    def __init__(self, connection: Any, rows_name: str, schema: Schema, n: int) -> None:
        super().__init__(schema, n)
        self.connection, self.rows_name = connection, rows_name
        self.engine_bytes = _memory_limit(connection)

    def _fetch(self, sql: str) -> Any:
        return self.connection.sql(sql).to_arrow_table()

    def _batches(self, sql: str) -> Any:
        reader = self.connection.sql(sql).to_arrow_reader(2**20)
        yield from reader

    def _release_rows(self) -> None:
        _drop(self.connection, self.rows_name, "TABLE")

    def _streams_rows(self) -> bool:
        from privbayes.counting.families import HAVE_NUMBA

        return HAVE_NUMBA


ENGINE_SHARE = 1 / 4
"""Share of the fit's memory cap (``limits().max_fit_bytes``, ``PRIVBAYES_MAX_FIT_GB``) that a DuckDB connection
the library opens may use (``memory_limit``); beyond it DuckDB spills to a temporary directory of its own
(docs/decisions.md, "A billion rows")."""
STORED_ROWS = 2**27
"""Rows above which the coded rows are neither deduplicated (a GROUP BY with about as many groups as rows, spilled
at this size, costs more than it saves on mostly distinct rows) nor held in memory: they go, compressed, to a
database file in the temporary directory."""


def engine_memory() -> int:
    """Bytes a DuckDB connection opened by the library may use: :data:`ENGINE_SHARE` of the fit's cap."""
    from privbayes.core.limits import limits

    return max(2**28, int(limits().max_fit_bytes * ENGINE_SHARE))


def _connect(connection: Any) -> tuple[Any, str]:
    """The connection (a new one bounded by :func:`engine_memory`, spilling to a fresh temporary directory
    removed when the connection is collected) and a fresh prefix for this table's objects."""
    import duckdb

    if connection is not None:
        return connection, unique_prefix()
    folder = tempfile.mkdtemp(prefix="privbayes-duckdb-")
    con = duckdb.connect(config={"memory_limit": f"{engine_memory() // 2**20}MiB", "temp_directory": folder})
    weakref.finalize(con, shutil.rmtree, folder, True)
    return con, unique_prefix()


def _memory_limit(con: Any) -> int:
    """The connection's ``memory_limit`` in bytes (a setting, public)."""
    text = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    number, _, unit = str(text).partition(" ")
    scale = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
             "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}.get(unit.strip(), 1)
    try:
        return int(float(number) * scale)
    except ValueError:  # pragma: no cover - an unbounded or unknown setting
        return 0


def _stored_rows(con: Any, prefix: str) -> str:
    """A database file for the coded rows in a fresh temporary directory, attached to ``con`` (compressed storage:
    10⁹ × 20 small codes take about 17 GB on disk where an in-memory table would take 48 GB); the file is removed
    when ``con`` is collected."""
    folder = tempfile.mkdtemp(prefix="privbayes-rows-")
    con.execute(f"ATTACH {_literal(os.path.join(folder, 'rows.duckdb'))} AS {prefix}_db")
    weakref.finalize(con, shutil.rmtree, folder, True)
    return f"{prefix}_db"


def duckdb_from_file(path: Any, suffix: str, schema: Schema, connection: Any = None, *,
                     allow_empty: bool = False) -> DuckDBTable:
    """A :class:`DuckDBTable` over a table file: a text table (CSV, ``.dat``; any compression; a
    :class:`~privbayes.counting.reading.TableFile`'s separator and encoding) streams through the
    strict reader into an engine table, batch by batch as it is read (out of core), each text
    stored as the number of its first appearance (:class:`_TextIds`); Parquet is read in place
    through a pattern-free link (:mod:`privbayes.counting.paths`)."""
    import duckdb
    import pyarrow as pa

    con, prefix = _connect(connection)
    where = str(path)
    text = suffix in (".csv", ".dat")
    link = None
    try:
        if text:
            texts = _stream_text(con, f"{prefix}_src", path, schema)
        else:
            link = LiteralPath(path)
            scan = f"read_parquet({_literal(link.path)})"
            parquet_schema(link.path, schema, where)
            columns = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()]
            check_columns(columns, schema, where)
            select = ", ".join(_ident(a.name) for a in schema.attributes)
            con.execute(f"CREATE TEMP VIEW {prefix}_src AS SELECT {select} FROM {scan}")
        n = con.execute(f"SELECT COUNT(*) FROM {prefix}_src").fetchall()[0][0]
        if n == 0 and not allow_empty:
            raise InputError(f"{where}: the data has no rows")
        maps = []
        for j, attr in enumerate(schema.attributes):
            if text:  # the distinct texts, in the order of their ids; a null last for malformed rows
                column, ids = texts[attr.name].distinct()
            else:
                query = f"SELECT DISTINCT {_ident(attr.name)} AS v FROM {prefix}_src"
                column = con.sql(query).to_arrow_table().column(0)
            try:
                keys, codes = label_distinct(schema, j, column, where, null_is_malformed=text)
            except Refused as refused:
                values = ids.take(refused.indices) if text else refused.values
                rows = _rows_of(con, f"{prefix}_src", attr.name, values, "_r" if text else None)
                raise InvalidValuesError(str(refused), rows) from None
            if text:
                keys = ids
            maps.append(f"{prefix}_m{j}")
            con.register(maps[-1], pa.table({"v": keys, "code": pa.array(codes, code_type(attr.size))}))
        joins = " ".join(f"LEFT JOIN {m} ON s.{_ident(a.name)} IS NOT DISTINCT FROM {m}.v"
                         for m, a in zip(maps, schema.attributes))
        coded = ", ".join(f"{m}.code AS c{j}" for j, m in enumerate(maps))
        rows_name = f"{prefix}_rows"
        if n > STORED_ROWS:  # every row kept, weight 1, in a compressed file
            rows_name = f"{_stored_rows(con, prefix)}.{rows_name}"
            con.execute(f"CREATE TABLE {rows_name} AS SELECT {coded}, CAST(1 AS BIGINT) AS w "
                        f"FROM {prefix}_src AS s {joins}")
        else:
            con.execute(f"CREATE TEMP TABLE {rows_name} AS SELECT {coded}, COUNT(*) AS w "
                        f"FROM {prefix}_src AS s {joins} GROUP BY ALL")
        for m in maps:
            con.unregister(m)
    except duckdb.Error as exc:  # engine messages may quote a line of the file: name the kind only
        raise InputError(f"{where}: cannot read the table (DuckDB {type(exc).__name__})") from None
    finally:
        _drop(con, f"{prefix}_src", "TABLE" if text else "VIEW")
        if link is not None:
            link.close()
    table = DuckDBTable(con, rows_name, schema, int(n))
    table.unit_weights = n > STORED_ROWS
    return table.localise()


class _TextIds:
    """One text column's distinct values, numbered in the order they first appear.

    The engine stores each row's number (4 bytes) instead of its text: the distinct texts are
    known in Python as they stream by, and labelling needs nothing else (5·10⁶ Adult rows load in a
    fraction of the time of the texts)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.malformed = False

    def ids(self, column: Any) -> Any:
        """The numbers of a batch's texts (int32; null in a malformed row)."""
        import pyarrow as pa

        encoded = column.dictionary_encode()
        index = self.index
        numbers = np.fromiter((index.setdefault(v, len(index)) for v in encoded.dictionary.to_pylist()), np.int32,
                              len(encoded.dictionary))
        local = encoded.indices
        if local.null_count == 0:
            return pa.array(numbers[local.to_numpy()], pa.int32())
        self.malformed = True
        numbers = np.append(numbers, np.int32(0))  # a place for the nulls to point at (masked) when all are null
        return pa.array(numbers[local.fill_null(0).to_numpy()], pa.int32(),
                        mask=local.is_null().to_numpy(zero_copy_only=False))

    def distinct(self) -> tuple[Any, Any]:
        """The distinct texts (a null last when a row was malformed) and their numbers."""
        import pyarrow as pa

        values = pa.array(list(self.index), pa.large_string())
        numbers = pa.array(np.arange(len(values), dtype=np.int32), pa.int32())
        if self.malformed:
            values = pa.concat_arrays([values, pa.nulls(1, pa.large_string())])
            numbers = pa.concat_arrays([numbers, pa.nulls(1, pa.int32())])
        return pa.chunked_array([values]), numbers


def _stream_text(con: Any, name: str, path: Any, schema: Schema) -> dict[str, _TextIds]:
    """Create table ``name`` (each schema column as the number of its text, null in a malformed
    row, and the row number ``_r``) from a CSV or ``.dat`` file read by the strict reader, batch by
    batch; returns each column's numbering."""
    import pyarrow as pa

    from privbayes.counting.reading import TableFile, open_text

    sep, encoding = (path.sep, path.encoding) if isinstance(path, TableFile) else (None, "utf-8")
    table = open_text(path, schema, sep, encoding)
    check_columns(table.columns, schema, table.where)
    names = [table.columns[i] for i in table.wanted]
    texts = {c: _TextIds() for c in names}
    con.execute(f"CREATE TEMP TABLE {name} ({', '.join(_ident(c) + ' INTEGER' for c in names)}, _r BIGINT)")
    first = 0
    for columns in table.batches():
        rows = len(columns[0])
        batch = pa.table([texts[c].ids(column) for c, column in zip(names, columns)]
                         + [pa.array(np.arange(first + 1, first + rows + 1), pa.int64())],
                         names=[f"f{i}" for i in range(len(columns))] + ["_r"])
        con.register(f"{name}_batch", batch)
        try:
            con.execute(f"INSERT INTO {name} SELECT * FROM {name}_batch")
        finally:
            con.unregister(f"{name}_batch")
        first += rows
    return texts


def _drop(con: Any, name: str, kind: str) -> None:
    import duckdb

    try:
        con.execute(f"DROP {kind} IF EXISTS {name}")
    except duckdb.Error:  # pragma: no cover - the connection is unusable anyway
        pass


def _rows_of(con: Any, view: str, name: str, values: Any, order: str | None = None) -> tuple[int, ...]:
    """1-based data row numbers (file order: the column ``order``, else scan order) of up to five
    rows holding one of ``values``."""
    import pyarrow as pa

    bad = f"{view}_bad"
    con.register(bad, pa.table({"v": values}))
    number = order if order is not None else "ROW_NUMBER() OVER ()"
    try:
        found = con.execute(f"SELECT r FROM (SELECT {number} AS r, {_ident(name)} AS v FROM {view}) AS t "
                            f"WHERE EXISTS (SELECT 1 FROM {bad} WHERE {bad}.v IS NOT DISTINCT FROM t.v) "
                            "ORDER BY r LIMIT 5").fetchall()
    finally:
        con.unregister(bad)
    return tuple(int(r) for (r,) in found)


def duckdb_from_codes(leaves: np.ndarray, schema: Schema, connection: Any = None) -> DuckDBTable:
    """A :class:`DuckDBTable` over leaf codes already labelled in memory (DataFrames, .dat files)."""
    import pyarrow as pa

    con, prefix = _connect(connection)
    con.register(f"{prefix}_codes", pa.table({f"c{j}": pa.array(leaves[:, j], code_type(a.size))
                                              for j, a in enumerate(schema.attributes)}))
    con.execute(f"CREATE TEMP TABLE {prefix}_rows AS SELECT *, COUNT(*) AS w FROM {prefix}_codes GROUP BY ALL")
    con.unregister(f"{prefix}_codes")
    return DuckDBTable(con, f"{prefix}_rows", schema, len(leaves)).localise()
