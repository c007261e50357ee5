"""Public names imported on first use (PEP 562), so that ``import privbayes`` and the command
line's ``--help`` do not pay for pandas, pyarrow, numba or scipy."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` (a module path, absolute or relative
    to ``package``) on first access of ``name`` and caches it in the package's namespace."""
    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = exports[name]
        value = getattr(importlib.import_module(module if "." in module else f"{package}.{module}"), name)
        setattr(importlib.import_module(package), name, value)
        return value
    return __getattr__
