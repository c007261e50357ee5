"""A released private Markov random field as a value: what :class:`PrivateMRF` publishes.

Everything a user may publish after a fit — the public schema and cliques, θ per clique, the
parameters, the (estimated) number of individuals, and the ledger that paid for the noisy
statistics — and nothing else: no counts, no data (ICML 2017, §3: θ is post-processing of the
noisy clique tables).  It samples, answers marginals and scores other tables without the
private data; the model file (:mod:`privbayes.undirected.model_file`) writes and reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from privbayes.errors import InputError
from privbayes.privacy.accountant import LedgerEntry
from privbayes.schema import QUOTED_NEWLINES_CAVEAT, Schema
from privbayes.undirected.cliques import ALGORITHMS
from privbayes.undirected.measurements import RELATIONS
from privbayes.undirected.model import LogLinearModel

MECHANISM = "private Markov random field (Bernstein et al., ICML 2017)"


@dataclass(frozen=True, eq=False)
class ReleasedMRF:
    """θ over ``cliques`` (attribute indices of ``schema``), with the record of its release.

    ``parameters``: epsilon, method, relation, lam, inference, delta (the estimator's);
    ``n``: the public n, or N estimated from the noisy tables under the add/remove relation."""

    schema: Schema
    cliques: tuple[tuple[int, ...], ...]
    model: LogLinearModel
    parameters: Mapping[str, Any]
    n: float
    ledger: tuple[LedgerEntry, ...]
    seeded: bool

    def __post_init__(self) -> None:
        if tuple(self.model.cliques) != tuple(self.cliques):
            raise ValueError("the model's cliques must be the released cliques")
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))
        object.__setattr__(self, "ledger", tuple(self.ledger))

    @property
    def epsilon_spent(self) -> float:
        return float(sum(entry.epsilon for entry in self.ledger))

    @property
    def delta_spent(self) -> float:
        return float(sum(entry.delta for entry in self.ledger))

    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """p(x_attributes), one axis per attribute (leaf codes, in the given order)."""
        if isinstance(attributes, str):
            attributes = [attributes]
        variables = [self.schema.index(a) for a in attributes]
        if len(set(variables)) != len(variables) or not variables:
            raise InputError("marginal needs one or more distinct attribute names")
        return self.model.marginal(variables)

    def sample(self, n: int, random_state: int | None = None, bin_labels: bool = False) -> pd.DataFrame:
        """``n`` rows in the schema's values (exact on junction trees, Gibbs otherwise)."""
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise InputError(f"n ({n!r}) must be a positive integer")
        rng = np.random.default_rng(random_state)
        return self.schema.decode(self.model.sample(int(n), rng), rng, bin_labels=bin_labels)

    def log_likelihood(self, data: Any) -> float:
        """Mean log-likelihood per row of ``data`` (nats; the paper's holdout log-likelihood, §4.2),
        read through the counting layer with this model's schema."""
        from privbayes import counting

        table = counting.open(data, self.schema)
        counts = [table.counts(list(c)) for c in self.cliques]
        return self.model.log_likelihood(counts, table.n) / table.n

    def privacy_report(self) -> dict[str, Any]:
        """What was spent, on what, under which neighbouring relation, and what is not covered."""
        method, relation = self.parameters["method"], self.parameters["relation"]
        caveats = []
        if method == "psgd":
            caveats.append(f"(ε, δ)-DP with δ = {self.delta_spent:.3g}, not pure ε-DP; Gaussian noise is drawn in "
                           "floating point (numpy), not by an exact sampler")
        if relation == "add-remove":
            caveats.append("paper's relation: each table at sensitivity 1 (add/remove one tuple); "
                           "N was estimated from the noisy tables")
        if self.seeded:
            caveats.append("the DP noise was seeded (reproducible run): do not publish seeded releases")
        caveats.append("the cliques and the schema are public inputs chosen by the user, not covered by epsilon")
        if self.schema.quoted_newlines:
            caveats.append(QUOTED_NEWLINES_CAVEAT)
        return {
            "mechanism": MECHANISM,
            "differentially_private": True,
            "epsilon": float(self.parameters["epsilon"]),
            "epsilon_spent": self.epsilon_spent,
            "delta_spent": self.delta_spent,
            "neighbouring_relation": RELATIONS[relation],
            "seeded": self.seeded,
            "algorithm": ALGORITHMS[method],
            "method": method,
            "cliques": [[self.schema.names[v] for v in c] for c in self.cliques],
            "caveats": caveats,
            "ledger": [entry.to_dict() for entry in self.ledger],
        }
