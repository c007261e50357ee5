"""``privbayes evaluate`` on the base install (issue 29): with only the packages that
``pip install .`` brings importable, the marginal metrics, the raw-value checks and the verdict
are printed, the report is written without figures, and one line each names what to install.

The command runs in a child interpreter whose import system does not find any module that is
not in the standard library, not privbayes, and not provided by the distributions that the base
install pulls in (the closure of ``[project] dependencies`` in pyproject.toml, read from the
installed packages' metadata, extras left out).  So an optional dependency imported anywhere
on the way (scikit-learn, matplotlib, scipy, numba, ...) makes the command fail here as it
would after ``pip install .``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from privbayes import PrivBayes
from privbayes.schema import Attribute, Schema

ROOT = Path(__file__).resolve().parents[2]

BLOCKER = """
import importlib.abc, importlib.machinery, sys, sysconfig
ALLOWED = set({allowed!r})
STDLIB = tuple({{sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}})
class BaseInstallOnly(importlib.abc.MetaPathFinder):
    # Wraps a finder: a module outside the base install is not found (as if not installed).
    def __init__(self, inner):
        self.inner = inner
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        spec = self.inner.find_spec(name, path, target)
        if spec is None or top in ALLOWED or top in sys.stdlib_module_names:
            return spec
        origin = spec.origin or ""
        return spec if origin.startswith(STDLIB) and "-packages" not in origin else None
    def invalidate_caches(self):
        getattr(self.inner, "invalidate_caches", lambda: None)()
KEEP = (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter)
sys.meta_path[:] = [f if f in KEEP else BaseInstallOnly(f) for f in sys.meta_path]
sys.argv = ["privbayes", *{args!r}]
from privbayes.cli import main
sys.exit(main(sys.argv[1:]))
"""


def base_distributions() -> set[str]:
    """The distributions ``pip install .`` installs: the base dependencies and theirs, no extras."""
    wanted = [Requirement(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
    seen: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if name in seen or (requirement.marker is not None and not requirement.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        try:
            wanted += [Requirement(r) for r in metadata.requires(name) or ()]
        except metadata.PackageNotFoundError:
            pass
    return seen


def base_modules() -> set[str]:
    """Top-level modules of the base distributions, and privbayes."""
    base = base_distributions()
    return {module for module, dists in metadata.packages_distributions().items()
            if any(canonicalize_name(d) in base for d in dists)} | {"privbayes"}


def test_the_blocked_modules_are_the_optional_ones() -> None:
    allowed = base_modules()
    assert {"numpy", "pandas", "pyarrow", "yaml", "privbayes"} <= allowed
    assert not {"sklearn", "matplotlib", "scipy", "numba", "duckdb"} & allowed


def test_evaluate_prints_metrics_and_verdict_with_only_the_base_install(tmp_path: Path) -> None:
    schema = Schema((Attribute("age", "numeric", lower=17, upper=90, bins=8, integer=True),
                     Attribute("job", "categorical", categories=("a", "b", "c")),
                     Attribute("paid", "numeric", lower=1, upper=1000, bins=4, special_values=(0,)),
                     Attribute("income", "binary", categories=("low", "high"))))
    rng = np.random.default_rng(0)
    n = 400
    job = rng.integers(0, 3, n)
    frame = pd.DataFrame({"age": rng.integers(17, 91, n), "job": np.array(["a", "b", "c"])[job],
                          "paid": np.where(rng.random(n) < 0.4, 0, rng.integers(1, 1001, n)),
                          "income": np.where((job == 2) ^ (rng.random(n) < 0.2), "high", "low")})
    frame.to_csv(tmp_path / "real.csv", index=False)
    (tmp_path / "schema.json").write_text(json.dumps(schema.to_dict()))
    model = PrivBayes(1.0, random_state=1).fit(frame, schema).released_
    model.save(tmp_path / "model.json")
    model.sample(300, random_state=2).to_csv(tmp_path / "synth.csv", index=False)
    args = ["evaluate", str(tmp_path / "real.csv"), str(tmp_path / "synth.csv"),
            "--model", str(tmp_path / "model.json"),
            "--report", str(tmp_path / "report.html")]
    child = subprocess.run([sys.executable, "-c", BLOCKER.format(allowed=sorted(base_modules()), args=args)],
                           capture_output=True, text=True, timeout=300, check=False,
                           env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert child.returncode == 0, child.stderr
    out = child.stdout
    assert re.search(r"^  Q2\s+\d\.\d{4}\s+\(6 marginals\)$", out, re.MULTILINE), out
    assert re.search(r"^  2-way\s+\d\.\d{4}", out, re.MULTILINE) and re.search(r"^  paid: KS \d\.\d{3}; =0:", out,
                                                                                 re.MULTILINE)
    assert re.search(r"^verdict: (GOOD|GOOD on average, but \d+ of \d+ column pairs lost their relation|FAIR|POOR): ",
                     out, re.MULTILINE)
    assert "\nprivacy: ε-differential privacy" in out
    assert "not run: classifier check (SVM task): it needs scikit-learn: pip install 'privbayes[eval]'\n" in out
    assert "not run: figures of the report: they need matplotlib: pip install 'privbayes[eval]'\n" in out
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'id="verdict"' in page and "<img" not in page and "17–26" in page
