"""A released Bayesian-network model as a value: what a synthesizer publishes.

Everything in it is public: the schema (the public domain), the encoding, the
network, the noisy conditionals, the budget plan and the ledger that paid for them,
the parameters and the facts of the run (n, seeded, where the domain came from).
Sampling and inspection take this value and nothing else — they never see the data
— and :mod:`privbayes.bayesnet.model_file` round-trips it.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privbayes._version import __version__
from privbayes.bayesnet.conditioning import conditional_draw
from privbayes.bayesnet.network import Network
from privbayes.bayesnet.sampling import BLOCK_ROWS, AncestralSampler, sample_to, usable_cores
from privbayes.core.validation import check_count, check_seed
from privbayes.files import blocks
from privbayes.files.tables import atomic_write_text
from privbayes.inference.sampling import chosen_draw
from privbayes.privacy.neighbours import neighbours
from privbayes.privacy.record import RecordViews, ReleaseRecord
from privbayes.privacy.report import PrivacyReport
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding
from privbayes.schema.values import fixed_values

if TYPE_CHECKING:
    from privbayes.estimation.potentials import Potential


FORMAT = "privbayes-model"
VERSION = 4
"""Version 3: ε and β kept as exact text beside their numbers; typed plan entries.  Version 4 (issue
32): arrays as compact blocks (:mod:`privbayes.files.blocks`), and a consistent model as its potentials
(:mod:`privbayes.estimation.potentials`) instead of its junction tree's conditionals."""


def workload_note(workload: Any) -> str:
    """The privacy report's line on a steward's workload (the adaptive method's ``workload`` parameter): public
    input, like the schema (docs/decisions.md, "Workloads")."""
    count = len(workload) if isinstance(workload, list) else 0
    return (f"public input, like the schema: {count} attribute set{'' if count == 1 else 's'} and their weights (the "
            "model file's parameters), toward which the rounds' selections were weighted; the workload itself is not "
            "protected")


@dataclass(frozen=True, eq=False)
class BayesNetModel(RecordViews):
    """A fitted network with its conditionals Pr*[X_i | Π_i], and the record of its release."""

    schema: Schema
    encoding: Encoding
    network: Network
    conditionals: tuple[np.ndarray, ...]
    parameters: Mapping[str, Any]
    record: ReleaseRecord
    """The plan, ledger, n (under add/remove neighbours: the released noisy count), seeded noise, domain
    source and caveats of the release (:mod:`privbayes.privacy.record`)."""
    degree: int
    algorithm: str
    differentially_private: bool
    mechanism: str = "PrivBayes (Zhang et al., ACM TODS 2017)"
    learned_network: Network | None = None
    """The network GreedyBayes learned, when the sampling ``network`` is another one: with
    estimation="consistent" the model is sampled through its junction tree's network, whose
    families contain the learned ones (docs/consistent.md).  ``None``: ``network`` is the learned one."""

    potentials: tuple[Potential, ...] | None = None
    """The log-potentials a consistent model was calibrated from, one per measured table, when the
    ``conditionals`` are their junction tree's (:func:`privbayes.bayesnet.junction.network_of`): the
    model file stores these, a fraction of the conditionals' size, and the loader rebuilds the rest."""

    draw: str = "balanced"
    """How unconditional samples are drawn (:data:`privbayes.inference.sampling.DRAWS`): the balanced draw for
    every new release; ``"iid"`` for model files written before it, which keep sampling the rows they sampled."""

    def __post_init__(self) -> None:
        if len(self.conditionals) != len(self.network.pairs):
            raise ValueError("one conditional per AP pair is needed")
        if self.learned_network is not None and \
                sorted(p.child for p in self.learned_network.pairs) != sorted(p.child for p in self.network.pairs):
            raise ValueError("the learned network must cover the same attributes")
        for table in self.conditionals:
            table.setflags(write=False)



    @property
    def n(self) -> int:
        """The number of input tuples (under add/remove neighbours: the released noisy count)."""
        return int(self.record.n or 0)






    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False, *,
               conditions: Mapping[str, Any] | None = None, keep_ids: bool = False,
               draw: str | None = None) -> pd.DataFrame:
        """``n`` synthetic rows (default: as many as the input) in the schema's values; with
        ``conditions`` ({column: value}), rows drawn exactly from the model given those values
        (post-processing: :mod:`privbayes.bayesnet.conditioning`); ``keep_ids``: the schema's dropped
        identifiers regenerated in front as keys 1..n (:meth:`Schema.with_ids`); ``draw``: ``"balanced"`` or
        ``"iid"`` instead of the model's own (:func:`~privbayes.inference.sampling.chosen_draw`)."""
        n = self.n if n is None else check_count(n, "n", minimum=1)
        rng = np.random.default_rng(check_seed(random_state, "random_state"))
        rows = self._draw(conditions, draw)
        frame = fixed_values(self.schema.decode(rows(n, rng), rng, bin_labels=bin_labels), self.schema, conditions,
                             bin_labels)
        return self.schema.with_ids(frame) if keep_ids else frame

    def sample_to(self, path: Any, n: int | None = None, chunk_rows: int = 4 * BLOCK_ROWS,
                  random_state: int | None = None, bin_labels: bool = False, progress: bool = True, *,
                  conditions: Mapping[str, Any] | None = None, keep_ids: bool = False,
                  workers: int | None = None, draw: str | None = None) -> None:
        """Write ``n`` synthetic rows (default: as many as the input) to a CSV/Parquet file in chunks
        of ``chunk_rows``: bounded memory for any n, a progress bar on stderr, the file written
        atomically.  ``workers`` processes (default: the usable cores) draw and format chunks while one
        writes them in order.  The rows depend on ``random_state`` and n, not on ``chunk_rows`` nor
        ``workers``: the file is the same byte for byte.  ``draw``: as :meth:`sample`."""
        from privbayes.core.progress import Progress

        n = self.n if n is None else check_count(n, "n", minimum=1)
        seed = check_seed(random_state, "random_state")
        workers = usable_cores() if workers is None else check_count(workers, "workers", minimum=1)
        self._draw(conditions, draw)  # refused now (conditions of probability zero, …), before any file or process
        if keep_ids:
            self.schema.with_ids(pd.DataFrame())  # refused now, before any file, if the schema lists no identifier
        with Progress("sample", enabled=progress) as bar:
            bar.stage("writing rows", n)
            finishing = keep_ids or (bool(conditions) and not bin_labels)  # else the rows are final as decoded
            sample_to(path, _Draw(self, conditions, draw), self.schema, n, seed, chunk_rows, bin_labels, bar.update,
                      _Finish(self.schema, conditions, bin_labels, keep_ids) if finishing else None, workers)

    def _draw(self, conditions: Mapping[str, Any] | None,
              draw: str | None = None) -> Callable[[int, np.random.Generator], np.ndarray]:
        """Rows of leaf codes: ancestral sampling (``draw``, else the model's own), or exact sampling given
        ``conditions``."""
        chosen = chosen_draw(draw, self.draw, conditions is not None)
        if conditions is not None:
            return conditional_draw(self.network, self.conditionals, self.encoding, conditions)
        return functools.partial(_leaves, self.encoding, AncestralSampler(self.network, self.conditionals,
                                                                          self.encoding, chosen))

    @property
    def method(self) -> str:
        """The registry name of the method that released this model."""
        return str(self.parameters.get("method", "privbayes"))

    def privacy_report(self) -> PrivacyReport:
        """What was spent, on what, under which neighbouring relation, and what is not covered."""
        return self.record.report(
            method=self.method, mechanism=self.mechanism, algorithm=self.algorithm, schema=self.schema,
            relation=neighbours(self.parameters.get("neighbours")), differentially_private=self.differentially_private,
            settings={"encoding": self.encoding.name,
                      **{key: self.parameters.get(key) for key in ("score", "beta", "theta")},
                      **({"workload": workload_note(self.parameters["workload"])} if "workload" in self.parameters
                         else {})})

    def describe(self) -> list[str]:
        """The learned network, one readable line per AP pair."""
        return (self.learned_network or self.network).describe(self.encoding)

    def summary(self) -> str:
        """One line: what was released."""
        return f"{len(self.network.pairs)} attributes, degree {self.degree}"

    def to_document(self) -> dict[str, Any]:
        """The model file's JSON document (:mod:`privbayes.bayesnet.model_file` reads and verifies it)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "library_version": self.library_version or __version__,
            "mechanism": self.mechanism,
            "schema": self.schema.to_dict(),
            "encoding": self.encoding.name,
            "parameters": dict(self.parameters),
            "fitted": {"n": self.n, "degree": self.degree, "algorithm": self.algorithm, "seeded": self.seeded,
                       "domain_source": self.domain_source, "epsilon_spent": self.epsilon_spent,
                       "differentially_private": self.differentially_private, "caveats": list(self.caveats),
                       "draw": self.draw},
            "plan": self.plan.to_dict(),
            "network": self.network.to_list(),
            **({"learned_network": self.learned_network.to_list()} if self.learned_network is not None else {}),
            **({"potentials": [{"variables": [list(v) for v in p.variables], "theta": blocks.encode(p.theta)}
                               for p in self.potentials]} if self.potentials is not None else
               {"conditionals": [blocks.encode(c) for c in self.conditionals]}),
            "ledger": [entry.to_dict() for entry in self.ledger],
        }

    def to_text(self) -> str:
        """The model file's text (what :meth:`save` writes; ``privbayes fit`` checks its size first)."""
        return json.dumps(self.to_document())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the versioned JSON model file (atomically); sampling from it never needs the data."""
        atomic_write_text(path, self.to_text())



def _leaves(encoding: Encoding, sampler: AncestralSampler, rows: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` rows of the schema's leaf codes drawn by ``sampler`` (a value that pickles: the sampler's tables
    travel with it).  Where some encoded variable is not binary, the encoding splits no attribute into bits
    (only the binary and Gray encodings do) and its codes are the leaf codes: they are returned as drawn, a
    column per attribute contiguous, not copied into rows."""
    codes = sampler(rows, rng)
    return encoding.decode(codes) if encoding.is_binary else codes


class _Draw:
    """``model._draw(conditions, draw)`` that pickles, for worker processes: the model, the conditions and the
    draw travel, and each process builds its sampler once, on its first block."""

    def __init__(self, model: BayesNetModel, conditions: Mapping[str, Any] | None, draw: str | None = None) -> None:
        self.model, self.conditions, self.draw = model, conditions, draw
        self._rows: Callable[[int, np.random.Generator], np.ndarray] | None = None

    def __getstate__(self) -> tuple[BayesNetModel, Mapping[str, Any] | None, str | None]:
        return self.model, self.conditions, self.draw

    def __setstate__(self, state: tuple[BayesNetModel, Mapping[str, Any] | None, str | None]) -> None:
        self.model, self.conditions, self.draw = state
        self._rows = None

    def __call__(self, rows: int, rng: np.random.Generator) -> np.ndarray:
        if self._rows is None:
            self._rows = self.model._draw(self.conditions, self.draw)
        return self._rows(rows, rng)


@dataclass(frozen=True)
class _Finish:
    """Completes a decoded block whose first row is row ``start``: a condition's exact values, identifier
    keys (a value that pickles, for worker processes)."""

    schema: Schema
    conditions: Mapping[str, Any] | None
    bin_labels: bool
    keep_ids: bool

    def __call__(self, frame: pd.DataFrame, start: int) -> pd.DataFrame:
        frame = fixed_values(frame, self.schema, self.conditions, self.bin_labels)
        return self.schema.with_ids(frame, start) if self.keep_ids else frame
