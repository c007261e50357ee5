"""Size caps checked before anything a schema, model file or plan declares is allocated.

A schema or model file is untrusted input: a few bytes can declare 2^23 bins or a
2^40-cell table.  Every declared size is compared with these caps *before* an array
is built, so hostile files are refused in milliseconds.  The defaults fit a 24 GB
machine with room to spare; each can be raised through an environment variable
(``PRIVBAYES_MAX_BINS``, ``PRIVBAYES_MAX_CATEGORIES``, ``PRIVBAYES_MAX_TAXONOMY_DEPTH``,
``PRIVBAYES_MAX_TABLE_CELLS``, ``PRIVBAYES_MAX_MODEL_CELLS``, ``PRIVBAYES_MAX_FILE_MB``, ``PRIVBAYES_MAX_FIT_GB``,
``PRIVBAYES_MAX_CANDIDATE_SETS``, ``PRIVBAYES_MAX_ATTRIBUTES``, ``PRIVBAYES_MAX_DOMAIN_CODES``,
``PRIVBAYES_MAX_DOCUMENT_NODES``, ``PRIVBAYES_MAX_DOCUMENT_DEPTH``, ``PRIVBAYES_MAX_LINE_KB``,
``PRIVBAYES_MAX_INPUT_MB``, ``PRIVBAYES_MAX_EXPANSION``, ``PRIVBAYES_MAX_ROUNDS``) or :func:`configure`.

Per-attribute caps alone are not enough: 300 attributes of 2^16 bins each fit in a 25 KB
model file and build 2.7 GB of generalisation levels.  So the attributes of one schema are
capped in number and in their total size (:func:`check_domain_total`), and every YAML/JSON
document read from a user is capped in nodes and nesting depth
(:mod:`privbayes.files.documents`) before anything walks it.

The line, input and expansion caps bound the reading of a text table (CSV, ``.dat``; compressed
or not), checked while it streams: a hostile file is refused after at most that many bytes, never
decompressed whole first.  They are the operator's resource limits, not part of the privacy
guarantee: a refusal says only that the input exceeds them, so set them far above the expected
size (docs/decisions.md, "Strict reading").
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace

from privbayes.core.errors import InputError


@dataclass(frozen=True)
class Limits:
    max_bins: int = 2**16
    """Bins of one numeric attribute."""
    max_categories: int = 10**6
    """Categories of one categorical attribute."""
    max_taxonomy_depth: int = 32
    """Nesting depth of a taxonomy tree."""
    max_table_cells: int = 2**27
    """Cells of one released or counted table (2^27 int64 cells = 1 GiB)."""
    max_model_cells: int = 2**24
    """Cells of all the arrays one model file declares or rebuilds, together (2^24 float64 = 128 MiB):
    compact blocks deflate, so a file's size no longer bounds them as the JSON text of every number did
    (docs/decisions.md, "Model files that load").  The largest Adult model of the paper's grid rebuilds 1.8·10⁶
    cells."""
    max_file_bytes: int = 64 * 2**20
    """Size of a schema or model file."""
    max_fit_bytes: int = 12 * 2**30
    """Estimated memory of one fit (the cost estimate refuses a fit above it before reading data)."""
    max_candidate_sets: int = 2**16
    """Candidate parent sets of one child in GreedyBayes with θ-usefulness: the parent-domain bound
    is lowered until at most this many generalised subsets fit under it
    (:mod:`privbayes.bayesnet.candidates`; public, so it costs no privacy).  The default binds
    on none of the paper's four datasets at ε ≤ 1.6."""
    max_attributes: int = 10_000
    """Attributes of one schema or model (the papers' datasets have at most 40)."""
    max_domain_codes: int = 2**21
    """Total size of one schema's domain: the sum over its attributes of bins and special values,
    or categories and taxonomy groups, plus one per attribute (for the missing code); at least
    one attribute at the categories cap fits."""
    max_document_nodes: int = 2**23
    """Values (scalars, lists, mappings) of one schema, prior, views or model document."""
    max_document_depth: int = 64
    """Nesting depth of one such document (a schema at the taxonomy-depth cap nests 37 deep in a model file)."""
    max_line_bytes: int = 2**20
    """Bytes of one line of a text table (the header or a data row; with ``quoted_newlines``, one
    record): a longer line refuses the file as soon as the reader has seen that many bytes of it."""
    max_input_bytes: int = 2**36
    """Decompressed bytes of one text table (64 GiB)."""
    max_expansion: int = 500
    """Decompressed bytes per compressed byte read so far, of a compressed text table, checked once
    more than :data:`EXPANSION_GRACE` bytes are out.  Real tables compress far less (gzip: Adult 9 : 1, ACS
    16 : 1, NLTCS 63 : 1); gzip's ceiling is ≈ 1032 : 1, which only near-constant text approaches
    (an 80 KB .gz of 2·10⁷ rows)."""
    max_rounds: int = 10_000
    """Rounds of one adaptive fit, given or from the rounds rule (each round re-fits the model, and a model
    file's plan has two releases per round): the rule gives at most 2 per attribute, 80 on the papers' widest
    dataset, more above a signal n·ε/Δ of 10⁶ (up to this limit: ``methods.adaptive.settings.rounds_cap``)."""


_ENV = {"max_bins": "PRIVBAYES_MAX_BINS", "max_categories": "PRIVBAYES_MAX_CATEGORIES",
        "max_taxonomy_depth": "PRIVBAYES_MAX_TAXONOMY_DEPTH", "max_table_cells": "PRIVBAYES_MAX_TABLE_CELLS",
        "max_model_cells": "PRIVBAYES_MAX_MODEL_CELLS",
        "max_candidate_sets": "PRIVBAYES_MAX_CANDIDATE_SETS", "max_attributes": "PRIVBAYES_MAX_ATTRIBUTES",
        "max_domain_codes": "PRIVBAYES_MAX_DOMAIN_CODES", "max_document_nodes": "PRIVBAYES_MAX_DOCUMENT_NODES",
        "max_document_depth": "PRIVBAYES_MAX_DOCUMENT_DEPTH", "max_expansion": "PRIVBAYES_MAX_EXPANSION",
        "max_rounds": "PRIVBAYES_MAX_ROUNDS"}

_SCALED = {"max_file_bytes": ("PRIVBAYES_MAX_FILE_MB", 2**20), "max_fit_bytes": ("PRIVBAYES_MAX_FIT_GB", 2**30),
           "max_line_bytes": ("PRIVBAYES_MAX_LINE_KB", 2**10), "max_input_bytes": ("PRIVBAYES_MAX_INPUT_MB", 2**20)}
EXPANSION_GRACE = 4 * 2**20
"""Decompressed bytes always allowed before :attr:`Limits.max_expansion` applies (small files
of a repetitive table may compress very well)."""


def _from_environment() -> Limits:
    values: dict[str, int] = {}
    for field, variable in _ENV.items():
        if variable in os.environ:
            values[field] = _positive(os.environ[variable], variable)
    for field, (variable, unit) in _SCALED.items():
        if variable in os.environ:
            values[field] = _positive(os.environ[variable], variable) * unit
    return Limits(**values)


def _positive(text: str, name: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{name} ({text!r}) must be a positive integer") from None
    if value < 1:
        raise InputError(f"{name} ({text!r}) must be a positive integer")
    return value


_current: Limits | None = None


def limits() -> Limits:
    """The caps in force (defaults, overridden by the environment, then by :func:`configure`)."""
    global _current
    if _current is None:
        _current = _from_environment()
    return _current


def configure(**caps: int) -> Limits:
    """Change caps for this process, e.g. ``configure(max_table_cells=2**30)``."""
    global _current
    _current = replace(limits(), **caps)
    return _current


def check_cells(sizes: Iterable[int], what: str) -> int:
    """The number of cells of a table with these axis sizes; refuse it above the cap."""
    cells = math.prod(int(s) for s in sizes)
    cap = limits().max_table_cells
    if cells > cap:
        raise InputError(f"{what} would have {cells:.3g} cells, more than the limit of {cap:,} "
                         "(PRIVBAYES_MAX_TABLE_CELLS)")
    return cells


def check_file_size(path: os.PathLike | str, what: str) -> None:
    """Refuse a schema or model file above the size cap before reading it."""
    size = os.path.getsize(path)
    cap = limits().max_file_bytes
    if size > cap:
        raise InputError(f"{path}: the {what} file has {size / 2**20:.1f} MB, more than the limit of "
                         f"{cap / 2**20:.0f} MB (PRIVBAYES_MAX_FILE_MB)")


def check_rounds(rounds: int, where: str) -> int:
    """Refuse more adaptive rounds than the cap, before any round's budget is computed."""
    cap = limits().max_rounds
    if rounds > cap:
        raise InputError(f"{where} ({rounds:,}) is above the limit of {cap:,} rounds (PRIVBAYES_MAX_ROUNDS)")
    return rounds


def check_domain_total(attributes: int, codes: int, where: str) -> None:
    """Refuse a schema that declares more attributes, or a larger domain in total, than the caps,
    before any attribute is built (``codes`` as :attr:`Limits.max_domain_codes` counts them)."""
    caps = limits()
    if attributes > caps.max_attributes:
        raise InputError(f"{where}: {attributes:,} attributes is above the limit of {caps.max_attributes:,} "
                         "(PRIVBAYES_MAX_ATTRIBUTES)")
    if codes > caps.max_domain_codes:
        raise InputError(f"{where}: the attributes declare {codes:,} bins, categories and taxonomy groups in total, "
                         f"more than the limit of {caps.max_domain_codes:,} (PRIVBAYES_MAX_DOMAIN_CODES)")
