"""File formats that are not private data: bounded YAML/JSON documents (:mod:`.documents`), compact array
blocks inside model files (:mod:`.blocks`) and atomic writes of every output (:mod:`.tables`)."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"read_document": "documents", "atomic_write": "tables", "atomic_write_many": "tables",
            "atomic_write_text": "tables", "write_table": "tables"}
"""Public names and their submodules, imported on first use (PEP 562): importing one module of the package
does not load the others."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["atomic_write", "atomic_write_many", "atomic_write_text", "read_document", "write_table"]
