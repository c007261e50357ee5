"""A private MRF's settings and budget plan, from public inputs only (ICML 2017, §3-4).

``auto`` (the default), ``naive`` and ``cgm`` release every clique table once with discrete Laplace noise at ε/|C| each
(sensitivity: the relation's count sensitivity, 2 under replace-one, 1 under add/remove), then
estimate θ by post-processing; ``psgd`` releases ``psgd_steps`` noisy gradients as one (ε, δ)
Gaussian composition (δ = 1/n by default, replace-one only: n must be public).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from privbayes.core.errors import InputError
from privbayes.core.validation import check_choice, check_epsilon, is_real
from privbayes.inference.protocol import Method
from privbayes.methods.mrf.cliques import ALGORITHMS, clique_indices
from privbayes.methods.mrf.measurements import Relation
from privbayes.methods.mrf.parameters import ESTIMATIONS, INFERENCE, MAX_L2, PARAMETERS  # noqa: F401 (their home before)
from privbayes.privacy.neighbours import Neighbours, neighbours
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.schema import Schema
from privbayes.synthesizers.parameters import DeclaredSettings, read_parameters, to_parameters

METHOD = "mrf"
MECHANISM = "private Markov random field (Bernstein et al., ICML 2017)"
DEFAULT_L2: dict[str, float | None] = {"auto": None, "naive": 1e-4, "cgm": 0.0, "psgd": 0.0}
"""The L2 weight λ of each estimation when none is given; None: calibrated per clique from the public
noise-to-count ratio after the measurements (``auto``, docs/undirected.md)."""
PSGD_STEP = "noisy gradient descent"


def table_step(schema: Schema, clique: Sequence[int]) -> str:
    """The ledger's step name of a clique's noisy table."""
    return f"clique table {','.join(schema.names[v] for v in clique)}"


class MRFSettings(DeclaredSettings):
    """The public parameters of a private MRF, validated once (one-line :class:`InputError`; declared in
    :mod:`privbayes.methods.mrf.parameters`)."""

    parameters = PARAMETERS
    epsilon: Fraction
    estimation: str
    neighbours: Relation
    l2: float | None
    inference: Method
    psgd_steps: int
    psgd_learning_rate: float
    delta: Fraction | None

    def check(self) -> None:
        if self.estimation == "psgd" and not self.relation.n_public:
            raise InputError("estimation 'psgd' supports neighbours 'replace-one' only (it divides by the public n)")

    @property
    def relation(self) -> Neighbours:
        return neighbours(self.neighbours)

    @property
    def l2_weight(self) -> float | None:
        """The L2 weight λ in force; None when it is calibrated per clique (``auto`` without ``l2``)."""
        return DEFAULT_L2[self.estimation] if self.l2 is None else float(self.l2)

    def delta_for(self, n: int) -> Fraction:
        """psgd's δ: the given one, else 1/n (ICML 2017, §4)."""
        return self.delta if self.delta is not None else Fraction(1, max(n, 1))

    def plan(self, n: int, schema: Schema, cliques: Sequence[Sequence[str]]) -> BudgetPlan:
        """Every release of a fit on n rows of ``schema`` over ``cliques`` (attribute names).  Under
        add/remove neighbours n is private and the plan does not depend on it (no release is sized by
        n; N is estimated from the noisy tables afterwards)."""
        indices = clique_indices(cliques, schema)
        releases: tuple[PlannedRelease, ...]
        if self.estimation == "psgd":
            releases = (PlannedRelease(PSGD_STEP, "Gaussian (DP-GD, float noise)", self.epsilon, kind="gradients",
                                       delta=self.delta_for(n)),)
        else:
            share = self.epsilon / len(indices)
            releases = tuple(PlannedRelease(table_step(schema, c), "discrete Laplace", share, kind="table", index=i,
                                            sensitivity=self.relation.count_sensitivity)
                             for i, c in enumerate(indices))
        shown = n if self.relation.n_public else "private (estimated from the noisy tables)"
        settings = (("algorithm", ALGORITHMS[self.estimation]), ("cliques", len(indices)), ("n", shown),
                    ("neighbours", self.relation.name),
                    ("l2", "calibrated per clique" if self.l2_weight is None else self.l2_weight),
                    ("inference", self.inference))
        return BudgetPlan(self.epsilon, releases, settings)

    def to_parameters(self) -> dict[str, Any]:
        """The model file's ``parameters``: numbers for readers, exact text for ε and δ."""
        return to_parameters(self, METHOD)

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], *, version: int) -> MRFSettings:
        """Settings from a model file's ``parameters``; version 1 files (``method``/``relation``/``lam``,
        ε a binary float) are read under their old names."""
        if version < 2:
            known = {"epsilon", "method", "relation", "lam", "inference", "delta"}
            if set(params) - known:
                raise InputError(f"unknown MRF parameters {sorted(set(params) - known)}")
            delta: Any = params.get("delta")
            return cls(check_epsilon(params.get("epsilon"), binary=True), estimation=params.get("method"),
                       neighbours=params.get("relation"), l2=params.get("lam"), inference=params.get("inference"),
                       delta=Fraction(delta) if is_real(delta) else delta)
        check_choice(params.get("method"), "method", (METHOD,), allow_none=False)
        return cls(**read_parameters(PARAMETERS, params, owner="MRF"))
