"""``open``: the one way private data enters the library.

A source — a table file (CSV, Parquet, the authors' ``.dat``) or a pandas DataFrame
(later a DuckDB relation or a Spark DataFrame) — is read with types taken from the
schema (:mod:`privbayes.counting.reading`), every value labelled on its own
(:mod:`privbayes.counting.labels`), and handed back as a :class:`PrivateTable`
whose only outputs are the row count and exact counts.
"""

from __future__ import annotations

import os
from typing import Any, Union

import numpy as np
import pandas as pd

from privbayes.counting.base import PrivateTable
from privbayes.counting.labels import label_column
from privbayes.counting.memory import InMemoryTable
from privbayes.counting.reading import raw_columns, read_frame
from privbayes.encoding import Encoding
from privbayes.errors import InputError
from privbayes.schema import Schema

Source = Union[str, os.PathLike, pd.DataFrame]
BACKENDS = ("numpy",)


def source_name(source: Source) -> str:
    """How error messages name a source: its path, or "data" for a DataFrame."""
    return "data" if isinstance(source, pd.DataFrame) else str(source)


def leaf_codes(source: Source, schema: Schema) -> np.ndarray:
    """The schema's leaf codes (n × d) of every row of ``source``.

    For the counting layer and for evaluation (which compares tables and releases
    nothing); everything else receives a :class:`PrivateTable`.
    """
    where = source_name(source)
    frame = source if isinstance(source, pd.DataFrame) else read_frame(source, schema)
    columns = raw_columns(frame, schema, where)
    return np.column_stack([label_column(a, columns[a.name].positions, columns[a.name].distinct,
                                         f"{where}: column {a.name!r}") for a in schema.attributes])


def open(source: Source, schema: Any, backend: str = "numpy") -> PrivateTable:  # noqa: A001 - the entry point's name
    """A :class:`PrivateTable` over ``source`` typed and validated by ``schema`` (a Schema,
    a schema file path, or a schema dict)."""
    from privbayes.io import as_schema

    if backend not in BACKENDS:
        raise InputError(f"backend ({backend!r}) must be one of {', '.join(BACKENDS)}")
    schema = as_schema(schema)
    leaves = leaf_codes(source, schema)
    return InMemoryTable(leaves, Encoding.build(schema, "hierarchical"))
