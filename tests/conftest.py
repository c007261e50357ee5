"""Shared fixtures: paths to the papers' datasets (read in place, never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"the papers' datasets are not at {SHARED_DATA}")
    return SHARED_DATA
