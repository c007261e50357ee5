"""Public names imported on first use (PEP 562), so that ``import privbayes`` and the command
line's ``--help`` do not pay for pandas, pyarrow, numba or scipy, and importing one module of a
package does not load its siblings."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` (a module path, absolute or relative
    to ``package``) on first access of ``name``, or the submodule ``package.name`` for any other name,
    and caches it in the package's namespace."""
    def __getattr__(name: str) -> Any:
        if name in exports:
            module = exports[name]
            value = getattr(importlib.import_module(module if "." in module else f"{package}.{module}"), name)
        else:
            try:
                value = importlib.import_module(f"{package}.{name}")  # a submodule not imported yet
            except ModuleNotFoundError as error:
                if error.name != f"{package}.{name}":  # the submodule exists; something it imports does not
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        setattr(importlib.import_module(package), name, value)
        return value
    return __getattr__
