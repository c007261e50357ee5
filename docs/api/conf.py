"""Sphinx configuration of the API reference and the user guide (docs/decisions.md, "API reference").

Build: ``python -m sphinx -W --keep-going -b html docs/api OUTDIR`` (``pip install '.[docs]'``); CI runs it with
warnings as errors.  The reference pages name every public object with an autodoc directive
(tests/test_api_docs.py checks that each name of ``privbayes.__all__`` and of each subpackage's ``__all__`` is
there); the guide pages under docs/guide are Markdown, included through myst-parser (docs/api/guide/*.md).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))  # this tree's privbayes, installed or not

from privbayes import __version__  # noqa: E402

project = "privbayes"
author = "the privbayes authors"
copyright = "the privbayes authors, BSD-3-Clause"
version = release = __version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode", "numpydoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Signatures show the annotations as written; members in source order; no inherited dunder noise.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"exclude-members": "__init__, __new__"}
# numpydoc renders the Parameters/Returns sections; class members are listed by autodoc, not by numpydoc's
# autosummary tables (which would need generated stub pages).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

myst_heading_anchors = 3

html_theme = "furo"
html_title = f"privbayes {__version__}"
html_static_path: list[str] = []


def _constructor_signature(app: Any, what: str, name: str, obj: Any, options: Any, signature: str | None,
                           return_annotation: str | None) -> tuple[str, str | None] | None:
    """A class whose ``__new__`` only forwards ``(*args, **kwargs)`` (the contract's estimators check the call
    there) shows its ``__init__``'s parameters, the ones a user passes, instead of autodoc's ``(*args, **kwargs)``."""
    if what != "class" or signature is None or not signature.startswith("(*args"):
        return None
    from sphinx.util.inspect import signature as sphinx_signature
    from sphinx.util.inspect import stringify_signature

    return stringify_signature(sphinx_signature(obj.__init__, bound_method=True), show_return_annotation=False), None


def setup(app: Any) -> None:
    app.connect("autodoc-process-signature", _constructor_signature)
