"""A private MRF's settings and budget plan, from public inputs only (ICML 2017, §3-4).

``auto`` (the default), ``naive`` and ``cgm`` release every clique table once with discrete Laplace noise at ε/|C| each
(sensitivity: the relation's count sensitivity, 2 under replace-one, 1 under add/remove), then
estimate θ by post-processing; ``psgd`` releases ``psgd_steps`` noisy gradients as one (ε, δ)
Gaussian composition (δ = 1/n by default, replace-one only: n must be public).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from privbayes.core.errors import InputError
from privbayes.core.validation import check_choice, check_count, check_epsilon, exact, exact_parameter, is_real
from privbayes.methods.mrf.cliques import ALGORITHMS, clique_indices
from privbayes.privacy.neighbours import RELATIONS, REPLACE_ONE, Neighbours, neighbours
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.schema import Schema

METHOD = "mrf"
MECHANISM = "private Markov random field (Bernstein et al., ICML 2017)"
ESTIMATIONS = tuple(ALGORITHMS)
INFERENCE = ("auto", "exact", "loopy")
MAX_L2 = 1e6
"""The largest L2 weight λ: at 10⁶ the penalty n·λ·Σθ² already holds θ at 0 (a uniform model) for any table, and
every float the estimators derive from it stays finite (λ = 10³⁰⁸ overflowed to a traceback)."""
DEFAULT_L2: dict[str, float | None] = {"auto": None, "naive": 1e-4, "cgm": 0.0, "psgd": 0.0}
"""The L2 weight λ of each estimation when none is given; None: calibrated per clique from the public
noise-to-count ratio after the measurements (``auto``, docs/undirected.md)."""
PSGD_STEP = "noisy gradient descent"


def table_step(schema: Schema, clique: Sequence[int]) -> str:
    """The ledger's step name of a clique's noisy table."""
    return f"clique table {','.join(schema.names[v] for v in clique)}"


@dataclass(frozen=True)
class MRFSettings:
    """The public parameters of a private MRF, validated once (one-line :class:`InputError`)."""

    epsilon: Fraction
    estimation: str = "auto"
    neighbours: str = REPLACE_ONE.name
    l2: float | None = None
    inference: str = "auto"
    psgd_steps: int = 50
    psgd_learning_rate: float = 1.0
    delta: Fraction | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        check_choice(self.estimation, "estimation", ESTIMATIONS, allow_none=False)
        check_choice(self.neighbours, "neighbours", tuple(RELATIONS), allow_none=False)
        if self.l2 is not None and (not is_real(self.l2) or not 0 <= self.l2 <= MAX_L2):
            raise InputError(f"l2 ({self.l2!r}) must be a number in [0, {MAX_L2:g}]")
        check_choice(self.inference, "inference", INFERENCE, allow_none=False)
        object.__setattr__(self, "psgd_steps", check_count(self.psgd_steps, "psgd_steps", minimum=1))
        if not is_real(self.psgd_learning_rate) or self.psgd_learning_rate <= 0:
            raise InputError(f"psgd_learning_rate ({self.psgd_learning_rate!r}) must be a finite number > 0")
        if self.delta is not None:
            delta = exact(self.delta, "delta")
            if not 0 < delta < 1:
                raise InputError(f"delta ({self.delta!r}) must be in (0, 1)")
            object.__setattr__(self, "delta", delta)
        if self.estimation == "psgd" and not self.relation.n_public:
            raise InputError("estimation 'psgd' supports neighbours 'replace-one' only (it divides by the public n)")

    @property
    def relation(self) -> Neighbours:
        return neighbours(self.neighbours)

    @property
    def lam(self) -> float | None:
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
        if self.estimation == "psgd":
            releases = (PlannedRelease(PSGD_STEP, "Gaussian (DP-GD, float noise)", self.epsilon, kind="gradients",
                                       delta=self.delta_for(n)),)
        else:
            share = self.epsilon / len(indices)
            releases = tuple(PlannedRelease(table_step(schema, c), "discrete Laplace", share, kind="table", index=i,  # type: ignore[assignment]
                                            sensitivity=self.relation.count_sensitivity)
                             for i, c in enumerate(indices))
        shown = n if self.relation.n_public else "private (estimated from the noisy tables)"
        settings = (("algorithm", ALGORITHMS[self.estimation]), ("cliques", len(indices)), ("n", shown),
                    ("neighbours", self.relation.name),
                    ("l2", "calibrated per clique" if self.lam is None else self.lam), ("inference", self.inference))
        return BudgetPlan(self.epsilon, releases, settings)

    def to_parameters(self) -> dict[str, Any]:
        """The model file's ``parameters``: numbers for readers, exact text for ε and δ."""
        return {"method": METHOD, "epsilon": float(self.epsilon), "epsilon_exact": str(self.epsilon),
                "estimation": self.estimation, "neighbours": self.neighbours, "l2": self.l2,
                "inference": self.inference, "delta": None if self.delta is None else str(self.delta)}

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any], *, version: int) -> MRFSettings:
        """Settings from a model file's ``parameters``; version 1 files (``method``/``relation``/``lam``,
        ε a binary float) are read under their old names."""
        if version < 2:
            known = {"epsilon", "method", "relation", "lam", "inference", "delta"}
            if set(params) - known:
                raise InputError(f"unknown MRF parameters {sorted(set(params) - known)}")
            delta = params.get("delta")
            return cls(check_epsilon(params.get("epsilon"), binary=True), estimation=params.get("method"),  # type: ignore[arg-type]
                       neighbours=params.get("relation"), l2=params.get("lam"), inference=params.get("inference"),  # type: ignore[arg-type]
                       delta=Fraction(delta) if is_real(delta) else delta)  # type: ignore[arg-type]
        known = {"method", "epsilon", "epsilon_exact", "estimation", "neighbours", "l2", "inference", "delta"}
        if set(params) - known:
            raise InputError(f"unknown MRF parameters {sorted(set(params) - known)}")
        check_choice(params.get("method"), "method", (METHOD,), allow_none=False)
        epsilon = exact_parameter(params, "epsilon")
        return cls(epsilon, estimation=params.get("estimation"), neighbours=params.get("neighbours"),  # type: ignore[arg-type]
                   l2=params.get("l2"), inference=params.get("inference"), delta=params.get("delta"))  # type: ignore[arg-type]
