"""The bottom layer, imported by every other: the library's errors and warnings, the resource caps applied to
hostile inputs before any work grows with them, checks of parameter values, progress lines, lazy exports."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"ColumnsLeftOut": "errors", "IndependentColumnsWarning": "errors", "InferredDomainWarning": "errors",
            "InputError": "errors", "UncoveredColumnsWarning": "errors", "Limits": "limits", "configure": "limits"}
"""Public names and their submodules, imported on first use (PEP 562): every package imports this one, and
``privbayes --help`` loads it."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["ColumnsLeftOut", "IndependentColumnsWarning", "InferredDomainWarning", "InputError", "Limits",
           "UncoveredColumnsWarning", "configure"]
