"""The type a column had when it went in, for the schema draft (docs/decisions.md, "What goes in comes out").

A DataFrame's columns carry their pandas dtype; a Parquet file carries Arrow types and, when pandas
wrote it, pandas' own description of each column (``object`` or ``str``, ``Int64``, an ordered
``category``…).  A CSV carries text only: its columns have no type here (``family`` None) and the
draft spells their values by rule instead (:mod:`privbayes.counting.draft`).

This reads the file's layout and, for a Parquet dictionary column, its dictionary (the categories,
in their order): that is data, like everything the draft reads, and the draft is flagged as such.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

Family = Literal["bool", "int", "float", "category", "datetime", "date", "text"]


@dataclass(frozen=True)
class ColumnType:
    """A column's type family, the pandas dtype name the draft records, and (a ``category``) its
    categories in order and whether they are ordered."""

    family: Family | None = None
    dtype: str | None = None
    categories: tuple[Any, ...] | None = None
    ordered: bool = False


TEXT_COLUMN = ColumnType()
"""A column of a text table: no type."""


def python_value(value: Any) -> Any:
    """A category as a schema file holds it: a Python bool, int, float or str."""
    if isinstance(value, np.generic):
        value = value.item()
    return value if isinstance(value, (bool, int, float, str)) else str(value)


def frame_type(column: pd.Series) -> ColumnType:
    """The type of a DataFrame column (object columns by what their values are)."""
    dtype = column.dtype
    name = str(dtype)
    if isinstance(dtype, pd.CategoricalDtype):
        return ColumnType("category", "category", tuple(python_value(c) for c in dtype.categories),
                          bool(dtype.ordered))
    if pd.api.types.is_bool_dtype(dtype):
        return ColumnType("bool", name)
    if pd.api.types.is_integer_dtype(dtype):
        return ColumnType("int", name)
    if pd.api.types.is_float_dtype(dtype):
        return ColumnType("float", name)
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return ColumnType("datetime", name)
    if pd.api.types.is_string_dtype(dtype) and name != "object":
        return ColumnType("text", name)
    if name != "object":
        return ColumnType()
    inferred = pd.api.types.infer_dtype(column, skipna=True)
    families: dict[str, Family] = {"boolean": "bool", "integer": "int", "floating": "float",
                                   "mixed-integer-float": "float", "date": "date"}
    family = families.get(inferred, "text")
    return ColumnType(family, "date" if family == "date" else "object")


def file_types(path: str | os.PathLike[str]) -> dict[str, ColumnType]:
    """The types of a table file's columns: Parquet's (from its Arrow schema and pandas metadata), or
    none for a text table (CSV, ``.dat``)."""
    from privbayes.counting.reading import table_path

    if table_path(Path(path)) not in (".parquet", ".pq"):
        return {}
    return _parquet_types(Path(path))


def _parquet_types(path: Path) -> dict[str, ColumnType]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow_schema = pq.read_schema(path)
    try:  # pandas' description of the columns, when pandas wrote the file (a hostile one may be malformed)
        metadata = arrow_schema.pandas_metadata or {}
        written = {c.get("field_name", c.get("name")): c for c in metadata.get("columns", []) if isinstance(c, dict)}
        empty = arrow_schema.empty_table().to_pandas()
    except (ValueError, TypeError, KeyError, AttributeError, pa.ArrowException):
        written, empty = {}, arrow_schema.remove_metadata().empty_table().to_pandas()
    out = {}
    for field in arrow_schema:
        kind = field.type
        if pa.types.is_dictionary(kind):
            column = pq.read_table(path, columns=[field.name]).column(0).unify_dictionaries()
            values = column.chunk(0).dictionary.to_pylist() if column.num_chunks else []
            out[field.name] = ColumnType("category", "category", tuple(python_value(v) for v in values),
                                         bool(kind.ordered))
        elif pa.types.is_date(kind):
            out[field.name] = ColumnType("date", "date")
        elif pa.types.is_decimal(kind):
            out[field.name] = ColumnType("float", None)  # Decimal objects: numbers, default dtypes
        else:
            found = frame_type(empty[field.name]) if field.name in empty.columns else ColumnType()
            if found.family == "text" and (written.get(field.name) or {}).get("numpy_type") == "object":
                found = ColumnType("text", "object")  # pandas wrote an object column of text
            out[field.name] = found
    return out
