"""Pinned releases: for fixed seeds, what every method writes and samples (the layout move's safety net).

``python tests/release_pins.py --record`` writes ``tests/data/pins/`` (one model file per case, saved by the
code that recorded it) and ``tests/data/release_digests.json`` (sha256 of each model file's canonical JSON and
of the rows it samples).  ``tests/test_release_pins.py`` refits every case and compares; it also loads every
recorded file and the older fixtures (model files v1-v2) and checks that they sample the recorded rows.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import warnings
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

import privbayes
from privbayes import AdaptiveMarginals, PrivateMRF, PrivBayes, SAPrivBayes
from privbayes.core.errors import UncoveredColumnsWarning
from privbayes.schema import Schema
from privbayes.schema.files import load_schema

DATA = Path(__file__).parent / "data"
PINS = DATA / "pins"
DIGESTS = DATA / "release_digests.json"
ROWS = 1500
"""Rows of the bundled Adult sample used for the fits (the first ones: small and quick)."""
SAMPLE = 400
"""Rows sampled from each model for its digest (the classifier's views: the rows they count)."""
CHAIN = [("age", "education"), ("education", "occupation"), ("occupation", "income"), ("sex", "income")]

CASES: dict[str, Callable[[], Any]] = {
    "adaptive": lambda: AdaptiveMarginals(1.0, random_state=11),
    "adaptive-add-remove": lambda: AdaptiveMarginals(1.0, neighbours="add-remove", random_state=11),
    "privbayes": lambda: PrivBayes(1.0, random_state=11),
    "privbayes-add-remove": lambda: PrivBayes(1.0, neighbours="add-remove", random_state=11),
    "privbayes-projected": lambda: PrivBayes(1.0, estimation="projected", random_state=11),
    "privbayes-paper": lambda: PrivBayes(1.0, estimation="paper", random_state=11),
    "sa-privbayes": lambda: SAPrivBayes(1.0, random_state=11),
    "mrf": lambda: PrivateMRF(CHAIN, 1.0, random_state=11),
    "mrf-cgm": lambda: PrivateMRF(CHAIN, 1.0, estimation="cgm", random_state=11),
    "mrf-add-remove": lambda: PrivateMRF(CHAIN, 1.0, estimation="naive", neighbours="add-remove", random_state=11),
    "nbc": lambda: privbayes.synthesizer("nbc", class_name="income", gamma=10**14),
}
NBC_COLUMNS = ("sex", "race", "relationship", "income")
OLD_FIXTURES = sorted(p.name for p in DATA.glob("model_v*.json") if p.name != "model_v1_samples.json")


def adult() -> tuple[pd.DataFrame, Any]:
    """The first :data:`ROWS` rows of the bundled Adult sample and its public schema."""
    data_dir = resources.files("privbayes") / "data"
    with resources.as_file(data_dir / "adult.yaml") as schema_path:
        schema = load_schema(schema_path)
    with resources.as_file(data_dir / "adult.csv.gz") as data_path, gzip.open(data_path, "rt") as handle:
        frame = pd.read_csv(handle, nrows=ROWS, skipinitialspace=True)
    return frame, schema


def file_digest(path: Path) -> str:
    """sha256 of the model file's JSON, keys sorted (the library's version string left out)."""
    document = json.loads(path.read_text())
    document.pop("library_version", None)
    return hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()


def rows_digest(path: Path) -> str:
    """sha256 of the rows the model file samples for a fixed seed, written as CSV."""
    released = privbayes.load(path)
    # a classifier's views publish counts: it samples exactly the rows they describe
    rows = released.sample(None if released.method == "nbc" else SAMPLE, random_state=5)
    return hashlib.sha256(rows.to_csv(index=False).encode()).hexdigest()


def fit_case(name: str, directory: Path) -> Path:
    """Fit ``name`` on the Adult rows and save its model file in ``directory``."""
    frame, schema = adult()
    if name == "nbc":  # few, small columns: counts the synthetic table can hold
        frame = frame[list(NBC_COLUMNS)]
        schema = Schema(tuple(schema.attributes[schema.index(c)] for c in NBC_COLUMNS))
    with warnings.catch_warnings():  # the MRF's chain leaves columns uncovered, on purpose: it says so
        warnings.simplefilter("ignore", UncoveredColumnsWarning)
        estimator = CASES[name]().fit(frame, schema)
    path = directory / f"{name}.json"
    estimator.released_.save(path)
    return path


def record() -> None:
    PINS.mkdir(parents=True, exist_ok=True)
    digests: dict[str, dict[str, str]] = {"fits": {}, "old": {}}
    for name in CASES:
        path = fit_case(name, PINS)
        digests["fits"][name] = {"file": file_digest(path), "rows": rows_digest(path)}
    for fixture in OLD_FIXTURES:
        digests["old"][fixture] = {"rows": rows_digest(DATA / fixture)}
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/release_pins.py --record")
    record()
