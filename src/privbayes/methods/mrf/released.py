"""A released private Markov random field as a value: what :class:`~privbayes.methods.mrf.estimator.PrivateMRF`
publishes.

Everything a user may publish after a fit — the public schema and cliques, θ per clique, the
parameters and the budget plan they imply, the (estimated) number of individuals, and the ledger
that paid for the noisy statistics — and nothing else: no counts, no data (ICML 2017, §3: θ is
post-processing of the noisy clique tables).  It samples, answers marginals and scores other
tables without the private data; :mod:`privbayes.methods.mrf.model_file` reads and verifies it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError
from privbayes.core.validation import check_count, check_seed
from privbayes.files import blocks
from privbayes.files.tables import atomic_write_text
from privbayes.inference.evidence import TooLargeForExact, ZeroProbability, evidence_sampler
from privbayes.inference.sampling import chosen_draw
from privbayes.methods.mrf.cliques import ALGORITHMS
from privbayes.methods.mrf.model import LogLinearModel
from privbayes.methods.mrf.settings import MECHANISM, METHOD
from privbayes.privacy.neighbours import neighbours
from privbayes.privacy.record import RecordViews, ReleaseRecord
from privbayes.privacy.report import PrivacyReport
from privbayes.schema import Schema
from privbayes.schema.values import fixed_values, leaf_conditions

FORMAT = "privbayes-mrf"
VERSION = 3
"""Version 3 (docs/decisions.md, "Model files that load"): θ per clique as a compact block
(:mod:`privbayes.files.blocks`), not JSON text. Version 2: the estimator's parameters under the contract's names, the
plan and the fit's facts."""


@dataclass(frozen=True, eq=False)
class ReleasedMRF(RecordViews):
    """θ over ``cliques`` (attribute indices of ``schema``), with the record of its release.

    ``parameters``: :meth:`MRFSettings.to_parameters`; ``n``: the public n, or N estimated from the
    noisy tables under add/remove neighbours; ``plan``: recomputed from the parameters on load; ``estimate``:
    what ``auto`` fitted (its floor and L2 weights, public values), empty for the other estimations and old files."""

    schema: Schema
    cliques: tuple[tuple[int, ...], ...]
    model: LogLinearModel
    parameters: Mapping[str, Any]
    record: ReleaseRecord
    """The plan (recomputed from the parameters on load), ledger, n, seeded noise, domain source and caveats."""
    estimate: str = ""
    draw: str = "balanced"
    """How unconditional samples are drawn on a junction tree (:data:`privbayes.inference.sampling.DRAWS`): the
    balanced draw for new releases, ``"iid"`` for files written before it (they keep sampling the same rows)."""

    def __post_init__(self) -> None:
        if tuple(self.model.cliques) != tuple(self.cliques):
            raise ValueError("the model's cliques must be the released cliques")
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @property
    def method(self) -> str:
        return METHOD



    @property
    def n(self) -> float:
        """The public n, or N estimated from the noisy tables under add/remove neighbours."""
        return self.record.n if self.record.n is not None else 0.0







    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """p(x_attributes), one axis per attribute (leaf codes, in the given order)."""
        if isinstance(attributes, str):
            attributes = [attributes]
        variables = [self.schema.index(a) for a in attributes]
        if len(set(variables)) != len(variables) or not variables:
            raise InputError("marginal needs one or more distinct attribute names")
        return self.model.marginal(variables)

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False, *,
               conditions: Mapping[str, Any] | None = None, keep_ids: bool = False,
               draw: str | None = None) -> pd.DataFrame:
        """``n`` rows (default: the released n, rounded) in the schema's values (exact on junction
        trees, Gibbs otherwise); with ``conditions`` ({column: value}), exactly from the model given
        those values (evidence factors on the same junction tree; post-processing); ``keep_ids``: the
        schema's dropped identifiers regenerated in front as keys 1..n; ``draw``: ``"balanced"`` or ``"iid"``
        instead of the model's own (:func:`~privbayes.inference.sampling.chosen_draw`; Gibbs chains are
        independent, so a balanced draw needs a junction tree)."""
        n = max(1, round(self.n)) if n is None else check_count(n, "n", minimum=1)
        rng = np.random.default_rng(check_seed(random_state, "random_state"))
        chosen = chosen_draw(draw, self.draw, conditions is not None)
        if draw == "balanced" and not self.model.engine.exact:
            raise InputError("draw 'balanced' needs exact inference: this model is sampled by Gibbs chains, "
                             "whose rows are independent")
        if keep_ids:
            self.schema.with_ids(pd.DataFrame())  # refused before any work if the schema lists no identifier
        if conditions is None:
            frame = self.schema.decode(self.model.sample(int(n), rng, chosen), rng, bin_labels=bin_labels)
            return self.schema.with_ids(frame) if keep_ids else frame
        codes = leaf_conditions(self.schema, conditions)
        scopes = list(self.cliques) + [(j,) for j in codes]
        evidence = []
        for j, code in codes.items():
            table = np.full(self.schema.attributes[j].size, -np.inf)
            table[code] = 0.0
            evidence.append(table)
        try:
            rows, _ = evidence_sampler(self.model.domain, scopes, list(self.model.theta) + evidence)
        except ZeroProbability:
            shown = ", ".join(f"{name} = {value!r}" for name, value in conditions.items())
            raise InputError(f"the conditions {shown} have probability zero under the model: "
                             "nothing to sample") from None
        except TooLargeForExact as exc:
            raise InputError(f"conditional sampling needs exact inference: {exc}") from None
        frame = fixed_values(self.schema.decode(rows(int(n), rng), rng, bin_labels=bin_labels), self.schema,
                             conditions, bin_labels)
        return self.schema.with_ids(frame) if keep_ids else frame

    def log_likelihood(self, data: Any) -> float:
        """Mean log-likelihood per row of ``data`` (nats; the paper's holdout log-likelihood, §4.2),
        read through the counting layer with this model's schema."""
        from privbayes import counting

        table = counting.open(data, self.schema)
        counts = [table.counts(list(c)) for c in self.cliques]
        return self.model.log_likelihood(counts, table.n) / table.n

    def privacy_report(self) -> PrivacyReport:
        """What was spent, on what, under which neighbouring relation, and what is not covered."""
        estimation = self.parameters["estimation"]
        relation = neighbours(self.parameters["neighbours"])
        caveats = []
        if estimation == "psgd":
            caveats.append(f"(ε, δ)-DP with δ = {self.delta_spent:.3g}, not pure ε-DP; Gaussian noise is drawn in "
                           "floating point (numpy), not by an exact sampler")
        if not relation.n_public:
            caveats.append("each table at sensitivity 1 (add/remove one tuple); N was estimated from the noisy tables")
        caveats.append("the cliques are public inputs chosen by the user, not covered by epsilon")
        return self.record.report(
            method=METHOD, mechanism=MECHANISM, algorithm=ALGORITHMS[estimation], schema=self.schema,
            relation=relation, differentially_private=True, approximate=estimation == "psgd", caveats=caveats,
            settings={"estimation": estimation, "cliques": [[self.schema.names[v] for v in c] for c in self.cliques]})

    def describe(self) -> list[str]:
        """One readable line per clique (``privbayes inspect``)."""
        return [f"clique {' - '.join(self.schema.names[v] for v in c)} "
                f"({int(np.prod([self.schema.attributes[v].size for v in c]))} cells)" for c in self.cliques]

    def summary(self) -> str:
        """One line: what was released."""
        return f"{len(self.cliques)} cliques over {len(self.schema)} attributes, N = {self.n:g}"

    def to_document(self) -> dict[str, Any]:
        """The model file's JSON document."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "library_version": self.library_version,
            "mechanism": MECHANISM,
            "schema": self.schema.to_dict(),
            "cliques": [[self.schema.names[v] for v in c] for c in self.cliques],
            "parameters": dict(self.parameters),
            "fitted": {"n": self.n, "seeded": self.seeded, "epsilon_spent": self.epsilon_spent,
                       "delta_spent": self.delta_spent, "domain_source": self.domain_source,
                       "caveats": list(self.caveats), "estimate": self.estimate, "draw": self.draw},
            "plan": self.plan.to_dict(),
            "theta": [blocks.encode(t) for t in self.model.theta],
            "ledger": [entry.to_dict() for entry in self.ledger],
        }

    def to_text(self) -> str:
        """The model file's text (what :meth:`save` writes; ``privbayes fit`` checks its size first)."""
        return json.dumps(self.to_document())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the versioned JSON model file (atomically); sampling from it never needs the data."""
        atomic_write_text(path, self.to_text())
