"""The API reference covers every public name (docs/decisions.md, "API reference").

The reference (docs/api, built by Sphinx in CI with warnings as errors) names each public object with an
autodoc directive.  A name is public when it is in ``privbayes.__all__`` or in the ``__all__`` of a subpackage;
each must be documented, under its own dotted name or as the same object under another (``privbayes.Schema``
documents ``privbayes.schema.Schema``).  The test reads the sources only: it needs no Sphinx.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import types
from pathlib import Path
from typing import Any

import pytest

import privbayes

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api"
GUIDE = ROOT / "docs" / "guide"
DIRECTIVE = re.compile(r"^\.\. auto(function|class|exception|data|attribute|method|module)::\s+(\S+)\s*\n"
                       r"((?:[ \t]+:[^\n]*\n)*)", re.MULTILINE)


def directives() -> list[tuple[str, str, dict[str, str]]]:
    """Every autodoc directive of the reference's sources: (kind, dotted name, options)."""
    found = []
    for page in sorted(API.rglob("*.rst")):
        for kind, target, block in DIRECTIVE.findall(page.read_text("utf-8") + "\n"):
            options = dict(re.findall(r"^[ \t]+:([\w-]+):[ \t]*(.*)$", block, re.MULTILINE))
            found.append((kind, target, options))
    return found


def directive_targets() -> list[str]:
    """The dotted names of every autodoc directive in the reference's sources."""
    return [target for _, target, _ in directives()]


def module_members(module_name: str, excluded: set[str]) -> list[str]:
    """What ``automodule`` with ``:members:`` documents: the names of ``__all__``, else the module's own public
    objects that have a docstring (autodoc skips the others without ``:undoc-members:``)."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name, value in vars(module).items()
                 if not name.startswith("_") and getattr(value, "__module__", None) == module_name
                 and getattr(value, "__doc__", None)]
    return [f"{module_name}.{name}" for name in names if name not in excluded]


def documented_names() -> list[str]:
    """Every dotted name the reference documents: the directives' own, and the members of ``automodule``."""
    names = []
    for kind, target, options in directives():
        names.append(target)
        if kind == "module" and "members" in options:
            excluded = {name.strip() for name in options.get("exclude-members", "").split(",") if name.strip()}
            names += module_members(target, excluded)
    return names


def resolve(dotted: str) -> Any:
    """The object a dotted name names: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ModuleNotFoundError(dotted)


def public_packages() -> dict[str, list[str]]:
    """Each package of privbayes that declares ``__all__``, with its names."""
    packages = {"privbayes": list(privbayes.__all__)}
    for info in pkgutil.walk_packages(privbayes.__path__, "privbayes."):
        if info.ispkg and not any(part.startswith("_") for part in info.name.split(".")):
            module = importlib.import_module(info.name)
            if hasattr(module, "__all__"):
                packages[info.name] = list(module.__all__)
    return packages


def test_every_directive_names_an_object_that_exists():
    targets = directive_targets()
    assert len(targets) > 50
    missing = []
    for target in targets:
        try:
            resolve(target)
        except (ImportError, AttributeError):
            missing.append(target)
    assert missing == []


def _same_value(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):
        return False


def undocumented(targets: list[str]) -> list[str]:
    """The public names (``package.name``) that no name among ``targets`` documents; a module is documented by
    any directive inside it."""
    documented = {id(value) for value in map(resolve, targets)
                  if not isinstance(value, (str, int, float, bool, tuple, frozenset, type(None)))}
    missing = []
    for package, names in public_packages().items():
        for name in names:
            value = getattr(importlib.import_module(package), name)
            own = f"{package}.{name}"
            if own in targets or id(value) in documented:
                continue
            # A constant re-exported from a submodule: the same name, documented inside the package, same value.
            if any(t.startswith(f"{package}.") and t.endswith(f".{name}") and _same_value(resolve(t), value)
                   for t in targets):
                continue
            # A module (``privbayes.methods``' method packages; nbc's ``est``, a function exported under its
            # submodule's name, is the module once that is imported) is documented by what is documented inside it.
            if isinstance(value, types.ModuleType) and any(t.startswith(f"{value.__name__}.") for t in targets):
                continue
            missing.append(own)
    return missing


def test_every_public_name_is_in_the_reference():
    assert {"privbayes", "privbayes.schema", "privbayes.counting", "privbayes.evaluation",
            "privbayes.audit"} <= set(public_packages())
    assert undocumented(documented_names()) == []


def test_a_public_name_without_a_directive_is_caught():
    """The check can fail: without its directive, a public name is reported, under each package exporting it."""
    targets = documented_names()
    assert undocumented([t for t in targets if t != "privbayes.counting.leaf_codes"]) == [
        "privbayes.counting.leaf_codes"]
    assert undocumented([t for t in targets if t != "privbayes.Schema"]) == ["privbayes.Schema",
                                                                              "privbayes.schema.Schema"]


@pytest.mark.parametrize("page", sorted(p.stem for p in GUIDE.glob("*.md")))
def test_every_guide_page_is_in_the_site(page):
    stub = API / "guide" / f"{page}.md"
    assert stub.read_text("utf-8").startswith(f"```{{include}} ../../guide/{page}.md")
    assert re.search(rf"^\s+guide/{page}$", (API / "index.rst").read_text("utf-8"), re.MULTILINE)


def test_no_docstring_cites_an_issue_number():
    """Docstrings cite docs/decisions.md sections, which a reader of the source tree has; issue numbers they lack."""
    citing = [f"{path.relative_to(ROOT)}:{number}"
              for path in sorted((ROOT / "src" / "privbayes").rglob("*.py"))
              for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
              if re.search(r"\bissues? \d+", line, re.IGNORECASE)]
    assert citing == []


def test_the_readme_keeps_the_quickstart_commands_ci_runs():
    """The README is the quickstart: its two commands stay as written, and CI runs the second verbatim."""
    readme = (ROOT / "README.md").read_text("utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    assert blocks[:2] == ["python3 -m pip install . && privbayes demo\n",
                          'python3 -m pip install ".[test]" && python3 -m pytest\n']
    assert blocks[1] in (ROOT / ".ci" / "run").read_text("utf-8")
    for page in sorted(p.stem for p in GUIDE.glob("*.md")):
        assert f"(docs/guide/{page}.md)" in readme
