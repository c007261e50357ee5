"""``views.json``: the versioned file of published NBC-enabling views.

    {"format": "privbayes-nbc-views", "version": 2,
     "class": NAME, "labels": [class labels in the schema's order; the last wins ties],
     "prior": [P_c, ...],
     "attributes": [{"name": A, "values": [value names], "counts": [[N_{t,c} per class] per value t]}, ...],
     "safety": {"method": "identity" | "safety-transform" | "est", "gamma": G | "r": R, ...},
     "privacy_report": {...},
     "schema": {...}, "parameters": {...}}      (version 2: the public schema and the publishing parameters,
                                                  written by a release; version 1 files load without them)

Counts are JSON integers (arbitrary precision: read them as big integers, not doubles).
Reading validates sizes before building anything and fails with one line naming the problem.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from privbayes.core.errors import InputError
from privbayes.files.documents import parse_json
from privbayes.methods.nbc.attack import measured_breach
from privbayes.methods.nbc.parameters import CONDITIONS, parse_fraction
from privbayes.methods.nbc.safety import SafeViews
from privbayes.methods.nbc.views import AttributeCounts, NBCViews

FORMAT = "privbayes-nbc-views"
VERSION = 2
READABLE_VERSIONS = (1, 2)
MAX_BYTES = 64 * 2**20
MAX_CLASSES = 1024
MAX_ATTRIBUTES = 1024
MAX_VALUES = 1 << 16
MAX_DIGITS = 4000
CONDITION_TEXT = {
    "posterior": "every ratio rho between two classes' counts of one value (and of P) satisfies rho^(2n-1) <= "
                 "the bound, exactly; this bounds the attacker's posterior ratio for every quasi-identifier when "
                 "the counts are large, and implies Corollary 4",
    "corollary4": "Corollary 4 as printed: rho^n <= the bound, exactly; NOTE: this alone does not bound the "
                  "attacker's posterior ratio by the bound (up to bound^((2n-1)/n) for large counts; docs/nbc.md)",
}


def privacy_report(safe: SafeViews) -> dict[str, Any]:
    """What the file guarantees, in words and numbers (never differential privacy)."""
    prior = None if safe.prior is None else [float(f) for f in safe.prior]
    report: dict[str, Any] = {
        "guarantee": "privacy breach (Mozafari & Zaniolo, VLDB 2009): bounds how far an attacker who enumerates the "
                     "possible worlds consistent with these views (all equally likely) can move his belief about "
                     "anyone's class label" + (" away from the prior F (r-closeness)" if prior else ""),
        "differentially_private": False,
        "not_differential_privacy": "This is NOT differential privacy: the transformation is deterministic, adds no "
                                    "noise, and protects only against the possible-worlds attacker of the paper.",
        "nbc_equivalent": True,
        "condition": CONDITION_TEXT[safe.condition]
        + (" (class c's counts divided by F(c): Statement 11)" if prior else ""),
        "k_sind": "each class of the original table is a SIND class (Lemma 10); k = the smallest class count of the "
                  "original table, which is not published",
        ("achieved_r" if prior else "achieved_gamma"): float(safe.achieved),
    }
    try:
        amp, close = (v if math.isfinite(v) else "unbounded" for v in measured_breach(safe.views, prior))
        report["measured_large_count"] = {
            "amplification": amp, "r_closeness" if prior else "r_closeness_uniform": close,
            "note": "Bob's posterior over all quasi-identifiers in the large-count limit, "
                    "computed from the published counts only"}
    except InputError:
        report["measured_large_count"] = "not computed: too many quasi-identifier values"
    return report


def to_document(safe: SafeViews) -> dict[str, Any]:
    views = safe.views
    safety: dict[str, Any] = {"method": safe.method, "condition": safe.condition, "achieved": float(safe.achieved),
                              "achieved_exact": str(safe.achieved)}
    if safe.gamma is not None:
        safety.update(gamma=float(safe.gamma), gamma_exact=str(safe.gamma))
    if safe.r is not None:
        safety.update(r=float(safe.r), r_exact=str(safe.r), prior=[str(f) for f in safe.prior or ()])
    if safe.k is not None:
        safety.update(k=safe.k, kappa=str(safe.kappa))
    return {"format": FORMAT, "version": VERSION, "class": views.class_name, "labels": list(views.labels),
            "prior": [int(p) for p in views.prior],
            "attributes": [{"name": a.name, "values": list(a.values),
                            "counts": [[int(v) for v in row] for row in a.counts]}
                           for a in views.attributes],
            "safety": safety, "privacy_report": privacy_report(safe)}


def save_views(safe: SafeViews, path: str | os.PathLike[str]) -> None:
    from privbayes.files.tables import atomic_write_text

    atomic_write_text(path, json.dumps(to_document(safe), indent=1) + "\n")


def load_views(path: str | os.PathLike[str]) -> tuple[NBCViews, dict[str, Any]]:
    """The views and the "safety" entry of a views.json file, validated."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such views file")
    if path.stat().st_size > MAX_BYTES:
        raise InputError(f"{path}: the views file is larger than {MAX_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: the views file is not valid UTF-8 text") from None
    # values, depth and finiteness bounded before anything walks the document (privbayes.files.documents)
    return from_document(parse_json(text, str(path), "views"), str(path))


def _list(raw: Any, key: str, where: str, limit: int) -> list[Any]:
    value = raw.get(key) if isinstance(raw, dict) else None
    if not isinstance(value, list):
        raise InputError(f"{where}: '{key}' must be a list")
    if not value or len(value) > limit:
        raise InputError(f"{where}: '{key}' must have between 1 and {limit} entries")
    return value


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: counts must be non-negative integers")
    if value.bit_length() > MAX_DIGITS * 3.33:
        raise InputError(f"{where}: a count has more than {MAX_DIGITS} digits")
    return value


def _names(values: list[Any], where: str) -> tuple[str, ...]:
    if not all(isinstance(v, str) for v in values):
        raise InputError(f"{where}: names must be strings")
    return tuple(values)


def from_document(raw: Any, where: str) -> tuple[NBCViews, dict[str, Any]]:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: expected a JSON object")
    if raw.get("format") != FORMAT:
        raise InputError(f"{where}: not a views file (format must be {FORMAT!r})")
    if raw.get("version") not in READABLE_VERSIONS:
        raise InputError(f"{where}: unsupported views file version {raw.get('version')!r} (this reader knows "
                         f"{', '.join(map(str, READABLE_VERSIONS))})")
    if not isinstance(raw.get("class"), str):
        raise InputError(f"{where}: 'class' must be a string")
    labels = _names(_list(raw, "labels", where, MAX_CLASSES), f"{where}: labels")
    prior = [_count(v, f"{where}: prior") for v in _list(raw, "prior", where, MAX_CLASSES)]
    if len(prior) != len(labels):
        raise InputError(f"{where}: 'prior' needs one count per label")
    attributes = []
    for index, attr in enumerate(_list(raw, "attributes", where, MAX_ATTRIBUTES)):
        at = f"{where}: attribute #{index}"
        if not isinstance(attr, dict) or not isinstance(attr.get("name"), str):
            raise InputError(f"{at}: needs a string 'name'")
        counts = _list(attr, "counts", at, MAX_VALUES)
        values = _names(_list(attr, "values", at, MAX_VALUES), f"{at}: values")
        if len(values) != len(counts):
            raise InputError(f"{at}: 'values' and 'counts' differ in length")
        rows = []
        for row in counts:
            if not isinstance(row, list) or len(row) != len(labels):
                raise InputError(f"{at}: each row of counts needs one count per label")
            rows.append(tuple(_count(v, at) for v in row))
        attributes.append(AttributeCounts(attr["name"], values, tuple(rows)))
    safety = raw.get("safety")
    if not isinstance(safety, dict) or safety.get("method") not in ("identity", "safety-transform", "est"):
        raise InputError(f"{where}: 'safety' must name the method (identity, safety-transform or est)")
    if safety.get("condition") not in CONDITIONS:
        raise InputError(f"{where}: safety.condition must be one of {', '.join(CONDITIONS)}")
    for key in ("gamma_exact", "r_exact"):
        if key in safety:
            safety[key] = parse_fraction(safety[key], f"{where}: safety.{key}")
    if "prior" in safety:
        safety["prior"] = [parse_fraction(f, f"{where}: safety.prior")
                           for f in _list(safety, "prior", where, MAX_CLASSES)]
        if len(safety["prior"]) != len(labels):
            raise InputError(f"{where}: safety.prior needs one probability per label")
    return NBCViews(raw["class"], labels, tuple(prior), tuple(attributes)), safety
