"""A released Bayesian-network model as a value: what a synthesizer publishes.

Everything in it is public: the schema (the public domain), the encoding, the
network, the noisy conditionals, the budget plan and the ledger that paid for them,
the parameters and the facts of the run (n, seeded, where the domain came from).
Sampling and inspection take this value and nothing else — they never see the data
— and :mod:`privbayes.model_file` round-trips it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from privbayes.bayesnet.network import Network
from privbayes.bayesnet.sampling import ancestral_sample
from privbayes.encoding import Encoding
from privbayes.privacy.accountant import NEIGHBOURING_RELATION, LedgerEntry
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema import Schema
from privbayes.validation import check_count, check_seed


@dataclass(frozen=True, eq=False)
class BayesNetModel:
    """A fitted network with its conditionals Pr*[X_i | Π_i], and the record of its release."""

    schema: Schema
    encoding: Encoding
    network: Network
    conditionals: tuple[np.ndarray, ...]
    plan: BudgetPlan
    ledger: tuple[LedgerEntry, ...]
    parameters: Mapping[str, Any]
    n: int
    degree: int
    algorithm: str
    seeded: bool
    domain_source: str
    differentially_private: bool
    caveats: tuple[str, ...]
    mechanism: str = "PrivBayes (Zhang et al., ACM TODS 2017)"
    library_version: str = ""

    def __post_init__(self) -> None:
        if len(self.conditionals) != len(self.network.pairs):
            raise ValueError("one conditional per AP pair is needed")
        for table in self.conditionals:
            table.setflags(write=False)

    @property
    def epsilon_spent(self) -> float:
        return float(sum(entry.epsilon for entry in self.ledger))

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False) -> pd.DataFrame:
        """``n`` synthetic rows (default: as many as the input) in the schema's values."""
        n = self.n if n is None else check_count(n, "n", minimum=1)
        rng = np.random.default_rng(check_seed(random_state, "random_state"))
        encoded = ancestral_sample(self.network, self.conditionals, self.encoding, n, rng)
        return self.schema.decode(self.encoding.decode(encoded), rng, bin_labels=bin_labels)

    def privacy_report(self) -> dict[str, Any]:
        """What was spent, on what, under which neighbouring relation, and what is not covered."""
        return {
            "mechanism": self.mechanism,
            "differentially_private": self.differentially_private,
            "epsilon": float(self.plan.total),
            "epsilon_spent": self.epsilon_spent,
            "neighbouring_relation": NEIGHBOURING_RELATION,
            "n": self.n,
            "domain_source": self.domain_source,
            "seeded": self.seeded,
            "algorithm": self.algorithm,
            "encoding": self.encoding.name,
            **{key: self.parameters.get(key) for key in ("score", "beta", "theta")},
            "caveats": list(self.caveats),
            "plan": self.plan.to_dict(),
            "ledger": [entry.to_dict() for entry in self.ledger],
            "library_version": self.library_version,
        }

    def describe(self) -> list[str]:
        """The network, one readable line per AP pair."""
        return self.network.describe(self.encoding)
