"""One ``__init__`` style (docs/architecture.md, "Packages"): every package's ``__init__.py`` is a docstring and a
curated ``__all__``, its names imported directly or on first use through :func:`privbayes.core.lazy.lazy_exports`;
``import privbayes`` and ``privbayes --help`` stay light."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import privbayes
from privbayes.core.lazy import lazy_exports

PACKAGE = Path(privbayes.__file__).resolve().parent
SRC = PACKAGE.parent


def _packages() -> dict[str, Path]:
    return {".".join(path.relative_to(SRC).parent.parts): path for path in sorted(PACKAGE.rglob("__init__.py"))}


def _style_problems(name: str, source: str) -> list[str]:
    """What in an ``__init__``'s source breaks the style: a missing docstring or ``__all__``, an ``__all__`` that is
    not a literal list of distinct strings, or code other than imports, ``_EXPORTS``, ``__getattr__``/``__dir__``
    and ``__all__``."""
    tree = ast.parse(source)
    documented = ast.get_docstring(tree) is not None
    problems = [] if documented else [f"{name}: no docstring"]
    names: list[str] | None = None
    for node in tree.body[documented:]:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            continue
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.FunctionDef) and node.name == "__dir__":
            continue
        target = (node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1
                  else node.target if isinstance(node, ast.AnnAssign) else None)
        if isinstance(target, ast.Name) and target.id == "__all__" and node.value is not None:
            value = node.value
            if not (isinstance(value, ast.List) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                        for e in value.elts)):
                problems.append(f"{name}: __all__ is not a literal list of names")
                names = []
                continue
            names = [e.value for e in value.elts]
            if len(set(names)) != len(names):
                problems.append(f"{name}: __all__ repeats a name")
            continue
        if isinstance(target, ast.Name) and target.id in ("_EXPORTS", "__getattr__"):
            continue
        problems.append(f"{name}: line {node.lineno} is code, not an export")
    if names is None:
        problems.append(f"{name}: no __all__")
    return problems


def test_the_style_check_sees_code_and_a_missing_all():
    assert _style_problems("p", '"""Doc."""\nfrom x import y\n__all__ = ["y"]\n') == []
    assert _style_problems("p", '"""Doc."""\nfrom x import y\n') == ["p: no __all__"]
    assert _style_problems("p", 'from x import y\n__all__ = ["y"]\n') == ["p: no docstring"]
    assert _style_problems("p", '"""Doc."""\ndef f():\n    pass\n__all__ = ["f"]\n') == [
        "p: line 2 is code, not an export"]
    assert _style_problems("p", '"""Doc."""\n__all__ = sorted(["a"])\n') == [
        "p: __all__ is not a literal list of names"]
    assert _style_problems("p", '"""Doc."""\n__all__ = ["a", "a"]\n') == ["p: __all__ repeats a name"]


@pytest.mark.parametrize("name", sorted(_packages()))
def test_every_package_init_is_a_docstring_and_a_curated_all(name):
    assert _style_problems(name, _packages()[name].read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("name", sorted(_packages()))
def test_every_public_name_resolves_and_every_lazy_export_is_public(name):
    """A function exported lazily from the module of its own name would be the function until that module is
    imported, then the module: which one depends on what ran before (eager exports rebind it once, for good)."""
    module = importlib.import_module(name)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    exports = vars(module).get("_EXPORTS", {})
    for public in module.__all__:
        getattr(module, public)
        assert not (public in submodules and public in exports), \
            f"{name}.{public} is exported lazily from a submodule of the same name"
    assert set(exports) <= set(module.__all__), f"{name}: lazy exports missing from __all__"


def test_a_lazy_package_imports_a_name_or_a_submodule_on_first_use():
    getattr_ = lazy_exports("privbayes.estimation", {"NoisyTable": "measurements"})
    from privbayes.estimation.measurements import NoisyTable

    assert getattr_("NoisyTable") is NoisyTable
    assert getattr_("queries") is importlib.import_module("privbayes.estimation.queries")
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        getattr_("nothing")


LIGHT = """
import contextlib, io, sys
import privbayes
from privbayes.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["--help"])
    except SystemExit:
        pass
print(sorted(m for m in ("numpy", "pandas", "pyarrow", "numba", "scipy", "yaml") if m in sys.modules))
"""


def test_import_privbayes_and_the_help_load_no_numeric_library():
    result = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True, check=True,
                            env={"PYTHONPATH": str(SRC), "PATH": ""})
    assert result.stdout.strip() == "[]"
