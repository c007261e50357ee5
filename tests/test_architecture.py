"""The seams of the library (issue 11): one way in for private data, no import cycles,
any PrivateTable accepted, released models as values that old files still load into."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import correlated_frame

import privbayes
from privbayes import PrivBayes, counting
from privbayes.counting import PrivateTable
from privbayes.schema import Attribute, Schema
from privbayes.schema.encoding import Encoding

PACKAGE = Path(privbayes.__file__).resolve().parent
DATA = Path(__file__).resolve().parent / "data"

# Reading private rows is the counting layer's job.  evaluation/ compares a synthetic table
# with the real one by design and releases nothing; audit/ plays the attacker (it knows the
# target rows) in our privacy tests and releases nothing either.
MAY_READ = ("counting", "evaluation", "audit")
READERS = {"read_csv", "read_parquet", "read_table", "read_fwf", "read_excel", "read_json", "read_feather",
           "read_orc", "ParquetFile", "loadtxt", "genfromtxt", "fromfile", "ParquetDataset", "dataset"}
ROW_LEVEL = {"leaf_codes", "label_column", "read_frame", "raw_columns", "InMemoryTable"}


def _violations(source: str) -> list[str]:
    """Calls of table readers, and uses of the counting layer's row-level functions, in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in READERS:
                found.append(f"line {node.lineno}: calls {name}")
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("privbayes.counting"):
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in ROW_LEVEL]
        if isinstance(node, ast.Attribute) and node.attr in ROW_LEVEL and getattr(node.value, "id", "") == "counting":
            found.append(f"line {node.lineno}: uses counting.{node.attr}")
    return found


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(("privbayes",) + (parts[:-1] if parts[-1] == "__init__" else parts))
        out[name] = path
    return out


def test_the_scanner_sees_a_reader_and_a_row_level_import():
    # The rule below could fail: the scanner flags what it must flag.
    assert _violations("import pandas as pd\ndf = pd.read_csv('x.csv')")
    assert _violations("from privbayes.counting import leaf_codes")
    assert _violations("from privbayes import counting\ncounting.leaf_codes(x, s)")
    assert not _violations("from privbayes import counting\ncounting.open(x, s)")


def test_only_the_counting_layer_reads_private_data():
    offenders = {}
    for name, path in _modules().items():
        if name.split(".")[1:2] and name.split(".")[1] in MAY_READ:
            continue
        found = _violations(path.read_text(encoding="utf-8"))
        if found:
            offenders[name] = found
    assert offenders == {}


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """The nodes of ``tree`` outside ``if TYPE_CHECKING:`` blocks (imports for type checkers only
    are not dependencies at run time)."""
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if (isinstance(child, ast.If)
                    and getattr(child.test, "id", getattr(child.test, "attr", "")) == "TYPE_CHECKING"):
                stack.extend(child.orelse)
                continue
            stack.append(child)
    return out


def _imports(name: str, path: Path, known: set[str], typing: bool = False) -> set[str]:
    """privbayes modules that ``name`` imports anywhere in its file (module level or inside functions;
    in ``if TYPE_CHECKING:`` blocks too when ``typing``)."""
    out = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in (ast.walk(tree) if typing else _runtime_nodes(tree)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            for a in node.names:  # `from privbayes import counting` imports the submodule
                target = f"{base}.{a.name}"
                out.add(target if target in known else base)
    return {m for m in out if m in known and m != name}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        stack.pop()
        return None
    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_type_checking_imports_are_not_dependencies(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import privbayes.schema\n"
                      "else:\n    import privbayes.core.limits\ndef f():\n    import privbayes.core.errors\n")
    known = {"privbayes.schema", "privbayes.core.limits", "privbayes.core.errors"}
    assert _imports("privbayes.m", source, known) == {"privbayes.core.limits", "privbayes.core.errors"}


def _function_level_imports(name: str, path: Path, known: set[str]) -> list[str]:
    """privbayes modules imported inside a function or method of ``name`` (an import placed there to dodge a
    cycle hides the dependency from a reader of the module's head)."""
    found = []
    for func in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("privbayes"):
                    found.append(f"{name}.{func.name} imports {node.module}")
                elif isinstance(node, ast.Import):
                    found += [f"{name}.{func.name} imports {a.name}" for a in node.names if a.name in known]
    return found


def test_the_function_level_import_finder_finds_one(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import privbayes.core.errors\nclass A:\n    def f(self):\n"
                      "        from privbayes.schema.dates import date_text\n")
    assert _function_level_imports("m", source, {"privbayes.core.errors"}) == \
        ["m.f imports privbayes.schema.dates"]


def test_the_schemas_modules_form_a_hierarchy():
    """The public domain's modules import each other acyclically counting imports for type checkers too, and
    none imports another inside a function: each module reads knowing only the ones below it
    (docs/decisions.md, "Attribute kinds as classes")."""
    modules = {name: path for name, path in _modules().items() if name.startswith("privbayes.schema")}
    known = set(_modules())
    graph = {name: _imports(name, path, known, typing=True) & set(modules) for name, path in modules.items()}
    assert _cycle(graph) is None
    assert [f for name, path in modules.items() for f in _function_level_imports(name, path, known)] == []
    assert _cycle({"privbayes.schema.attribute": {"privbayes.schema.decoding"},
                   "privbayes.schema.decoding": {"privbayes.schema.attribute"}}) is not None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles_among_privbayes_modules():
    modules = _modules()
    known = set(modules)
    # The package's __init__ re-exports the public API; importing a submodule through it is not a
    # dependency of the submodule on everything the package exports.
    graph = {name: _imports(name, path, known) - {"privbayes"} for name, path in modules.items()}
    assert _cycle(graph) is None


def _package(module: str) -> str:
    """The package a module belongs to: a folder of ``privbayes`` (each method's folder its own), or the module."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[1:2] == ["methods"] and len(parts) > 2 else parts[:2])


def test_no_two_packages_import_each_other():
    """Packages form a hierarchy, as the modules do: no cycle at the package level either (run-time imports,
    function-level ones included), so each folder can be read knowing only the ones below it."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        if name == "privbayes":
            continue
        targets = {_package(t) for t in _imports(name, path, known) - {"privbayes"}} - {_package(name)}
        graph.setdefault(_package(name), set()).update(targets)
    for targets in list(graph.values()):
        for t in targets:
            graph.setdefault(t, set())
    assert _package("privbayes.methods.adaptive.rounds") == "privbayes.methods.adaptive"
    assert _cycle(graph) is None


# The layer table of docs/architecture.md, lowest first: a module imports modules of its own layer or
# lower ones only (function-level imports count).  Prefixes match a module and its submodules.
LAYERS = (
    ("foundation", ("privbayes._version", "privbayes.core")),
    ("files", ("privbayes.files",)),
    ("public domain", ("privbayes.schema",)),
    ("privacy", ("privbayes.privacy",)),
    ("counting", ("privbayes.counting",)),
    ("inference", ("privbayes.inference",)),
    ("estimation", ("privbayes.estimation",)),
    ("networks", ("privbayes.bayesnet",)),
    ("contract", ("privbayes.synthesizers",)),
    ("methods", ("privbayes.methods",)),
    ("baselines", ("privbayes.baselines",)),
    ("around", ("privbayes.evaluation", "privbayes.audit", "privbayes.cli",
                # the paper's SVM comparison (NoPrivacy, Majority, PrivateERM) trains on the real rows' codes
                # that evaluation hands it, as §6.1 does; it is a yardstick beside evaluation, releases nothing
                "privbayes.baselines.classification")),
)
APART = {("privbayes.privacy", "privbayes.counting"), ("privbayes.counting", "privbayes.privacy"),
         ("privbayes.inference", "privbayes.counting"), ("privbayes.inference", "privbayes.privacy"),
         ("privbayes.estimation", "privbayes.counting")}
"""Layers that must not import each other although the order alone would allow it: mechanisms never see
rows and the counting layer never adds noise; inference is shared by every model and knows neither;
estimation sees measurements only, never a table."""
ALGORITHMS = ("estimation", "networks", "methods", "baselines")
"""The layers of algorithms (they measure a table, never read it)."""
ALGORITHMS_MAY_USE = ("privbayes.counting", "privbayes.counting.base")
"""Of the counting layer, algorithms see the PrivateTable protocol only (the package's face and its base)."""


def _layer(module: str) -> tuple[int, str]:
    """The layer of ``module`` by its longest matching prefix in the table."""
    matches = [(len(prefix), rank, prefix) for rank, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes
               if module == prefix or module.startswith(prefix + ".")]
    assert matches, f"{module} is in no layer of the table: add it"
    _, rank, prefix = max(matches)
    return rank, prefix


def _layer_violations(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module, targets in sorted(graph.items()):
        rank, prefix = _layer(module)
        for target in sorted(targets):
            other, other_prefix = _layer(target)
            if other > rank:
                found.append(f"{module} ({LAYERS[rank][0]}) imports {target} ({LAYERS[other][0]})")
            elif (prefix.split(".")[:2] != other_prefix.split(".")[:2]
                  and (".".join(prefix.split(".")[:2]), ".".join(other_prefix.split(".")[:2])) in APART):
                found.append(f"{module} imports {target}: these layers stay apart")
            elif (LAYERS[rank][0] in ALGORITHMS and LAYERS[other][0] == "counting"
                  and target not in ALGORITHMS_MAY_USE):
                found.append(f"{module} imports {target}: algorithms see the PrivateTable protocol only")
    return found


def test_the_layer_check_sees_a_violation():
    assert _layer_violations({"privbayes.schema": {"privbayes.counting"}, "privbayes.counting": set()})
    assert _layer_violations({"privbayes.privacy.plan": {"privbayes.counting"}, "privbayes.counting": set()})
    assert _layer_violations({"privbayes.bayesnet.greedy": {"privbayes.counting.reading"}})
    assert _layer_violations({"privbayes.estimation.consistent": {"privbayes.counting"}})
    assert _layer_violations({"privbayes.estimation.consistent": {"privbayes.bayesnet.network"}})
    assert not _layer_violations({"privbayes.bayesnet.greedy": {"privbayes.counting", "privbayes.privacy"}})


def test_every_module_imports_only_its_layer_or_lower_ones():
    modules = _modules()
    known = set(modules)
    graph = {name: _imports(name, path, known) - {"privbayes"} for name, path in modules.items() if name != "privbayes"}
    assert _layer_violations(graph) == []


class MinimalTable(PrivateTable):
    """A hand-written back-end: counts only, no batched form, no re-encoding of its own."""

    def __init__(self, leaves: np.ndarray, schema: Schema) -> None:
        self.schema, self.encoding = schema, Encoding.build(schema, "hierarchical")
        self._leaves = leaves

    @property
    def n(self) -> int:
        return len(self._leaves)

    def counts(self, attributes, levels=None):
        levels = [0] * len(attributes) if levels is None else levels
        attrs = self.schema.attributes
        shape = tuple(attrs[a].level_size(l) for a, l in zip(attributes, levels))
        out = np.zeros(shape, np.int64)
        np.add.at(out, tuple(attrs[a].levels[l][self._leaves[:, a]] for a, l in zip(attributes, levels)), 1)
        return out


SIZES = [3, 2, 4, 2, 3]


def _schema(taxonomy: bool) -> Schema:
    attrs = [Attribute(f"a{j}", "categorical", categories=tuple(range(s))) for j, s in enumerate(SIZES)]
    if taxonomy:
        attrs[2] = Attribute("a2", "categorical", categories=(0, 1, 2, 3), taxonomy=((0, 1), (2, 3)))
    return Schema(tuple(attrs))


@pytest.mark.parametrize("params, taxonomy", [
    ({}, False),                                      # Alg. 4 + Alg. 3, score R
    ({"score": "I"}, True),                           # hierarchical encoding, generalised parents
    ({"degree": 2}, False),                           # Alg. 2 + Alg. 1
    ({"encoding": "binary", "estimation": "projected"}, False),  # score F through the generic encoded view
    # (projected: the consistent estimation over 20-odd bits is slow and reads no data anyway)
    ({"encoding": "gray", "score": "R", "degree": 3}, False),
])
def test_a_minimal_private_table_gives_the_numpy_backends_model(params, taxonomy):
    schema = _schema(taxonomy)
    frame = correlated_frame(SIZES, 3000, seed=5)
    numpy_table = counting.open(frame, schema)
    minimal = MinimalTable(counting.leaf_codes(frame, schema), schema)
    a = PrivBayes(2.0, random_state=9, **params).fit(numpy_table).model_
    b = PrivBayes(2.0, random_state=9, **params).fit(minimal).model_
    assert a.network == b.network
    assert all(np.array_equal(x, y) for x, y in zip(a.conditionals, b.conditionals))
    assert a.ledger == b.ledger


def test_the_plan_is_known_before_the_data_and_equals_the_ledger():
    schema = _schema(False)
    model = PrivBayes(1.0, random_state=2)
    plan = model.plan(3000, schema)  # no data read
    fitted = model.fit(correlated_frame(SIZES, 3000, seed=5), schema).model_
    assert fitted.plan == plan
    assert [(r.step, r.mechanism, r.epsilon) for r in plan.releases] == \
        [(e.step, e.mechanism, e.epsilon) for e in fitted.ledger]
    assert plan.spent == fitted.plan.total == 1


def test_a_released_model_is_a_frozen_value_that_round_trips(tmp_path):
    schema = _schema(True)
    model = PrivBayes(1.0, random_state=3).fit(correlated_frame(SIZES, 2000, seed=1), schema).model_
    with pytest.raises(AttributeError):
        model.n = 5  # type: ignore[misc]
    with pytest.raises(ValueError):
        model.conditionals[0][...] = 0
    path = tmp_path / "m.json"
    model.save(path)  # the value alone is saved and loaded: no estimator involved
    loaded = privbayes.load(path)
    assert isinstance(loaded, privbayes.BayesNetModel)
    assert loaded.network == model.network and loaded.ledger == model.ledger and loaded.plan == model.plan
    assert loaded.sample(200, random_state=4).equals(model.sample(200, random_state=4))


@pytest.mark.parametrize("name", ["alg4", "degree1", "binary"])
def test_models_saved_by_version_0_1_still_load_and_sample_the_same(name):
    # Files written by privbayes 0.1.0 (commit 642bd14); samples recorded with that version.
    model = privbayes.load(DATA / f"model_v1_{name}.json")
    expected = json.loads((DATA / "model_v1_samples.json").read_text())[name]
    got = model.sample(50, random_state=11).astype(object).values.tolist()
    assert got == expected
    assert model.library_version == "0.1.0" and model.differentially_private


V2_SAMPLES = {  # privbayes 0.2 at fcc28a3 (model file version 2, ε and β binary floats): sample(5, random_state=4)
    "privbayes": [[2, 1, 1, 0], [2, 2, 0, 2], [2, 0, 0, 2], [0, 2, 1, 0], [2, 2, 1, 0]],
    "add_remove": [[2, 1, 0, 3], [1, 2, 1, 1], [2, 0, 1, 1], [0, 2, 0, 1], [1, 1, 1, 4]],
    "sa": [[0, 3, 0, 4], [2, 2, 0, 2], [0, 2, 0, 4], [2, 3, 0, 0], [2, 3, 0, 2]],
}


@pytest.mark.parametrize("name", sorted(V2_SAMPLES))
def test_models_saved_by_version_2_files_still_load_and_sample_the_same(name, tmp_path):
    # Version 2 took ε = 0.1 and β = 0.3 as binary floats; the loader recomputes the plan the same way,
    # so the ledger still matches; saved again, the file is version 3 and loads to the same model.
    model = privbayes.load(DATA / f"model_v2_{name}.json")
    assert model.sample(5, random_state=4).astype(object).values.tolist() == V2_SAMPLES[name]
    model.save(tmp_path / "again.json")
    again = privbayes.load(tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["version"] == 4
    assert again.ledger == model.ledger and again.plan == model.plan
    assert again.sample(5, random_state=4).equals(model.sample(5, random_state=4))


def test_an_unknown_model_version_is_refused_with_both_versions(tmp_path):
    doc = json.loads((DATA / "model_v1_alg4.json").read_text())
    doc["version"] = 7
    (tmp_path / "m.json").write_text(json.dumps(doc))
    with pytest.raises(privbayes.InputError,
                       match=r"unsupported version 7 \(this library, .*, reads versions 1, 2, 3, 4\)"):
        privbayes.load(tmp_path / "m.json")
