"""Shared plumbing for the paper-reproduction scripts: datasets, output folder, CSV/PNG writing."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from privbayes.domainfile import read_dat, read_domain
from privbayes.schema import Schema

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
OUT = Path(__file__).resolve().parents[1] / "docs" / "figures"
EPSILONS = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)


def load(name: str) -> tuple[Schema, "object", np.ndarray]:
    """Schema, raw frame and leaf codes of one of the papers' datasets."""
    schema = read_domain(DATA / name / f"{name}.domain")
    frame = read_dat(DATA / name / f"{name}.dat", schema)
    return schema, frame, schema.encode(frame, name)


def write_csv(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def mean_by(rows: list[dict], keys: tuple[str, ...], value: str) -> dict[tuple, float]:
    groups: dict[tuple, list[float]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(float(row[value]))
    return {k: float(np.mean(v)) for k, v in groups.items()}
