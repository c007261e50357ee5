"""PrivBayes: ε-differentially private synthetic data via a Bayesian network (TODS 2017).

Three phases (§3): learn a network with ε1 = βε (GreedyBayes), release noisy
conditionals with ε2 = (1 − β)ε (NoisyConditionals), then sample (free).
Binary encoded data use Alg. 2 + Alg. 1 with the degree k of Lemma 4.8; general
domains use Alg. 4 (+ Alg. 5/6) + Alg. 3.  By sequential composition the
release is (ε1 + ε2)-DP (Thm 3.2) under "replace one tuple, n public".
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import pandas as pd

from privbayes.bayesnet.conditionals import noisy_conditionals
from privbayes.bayesnet.greedy import fixed_degree_candidates, greedy_bayes, maximal_parent_candidates
from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.registry import get_score
from privbayes.bayesnet.sampling import ancestral_sample
from privbayes.bayesnet.usefulness import binary_degree
from privbayes.counting import InMemoryTable
from privbayes.encoding import ENCODINGS, Encoding
from privbayes.errors import InputError
from privbayes.io import load_schema, read_table
from privbayes.privacy.accountant import NEIGHBOURING_RELATION, Accountant
from privbayes.privacy.samplers import RandomSource, random_source
from privbayes.progress import Progress
from privbayes.schema import Schema, infer_schema

NonPrivatePhase = Literal["network", "marginals"]


def _check_parameters(epsilon: Any, beta: Any, theta: Any, score: Any, encoding: Any, degree: Any, phase: Any) -> None:
    def real(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not real(epsilon) or epsilon <= 0:
        raise InputError(f"epsilon ({epsilon!r}) must be a finite number > 0")
    if not real(beta) or not 0 < beta < 1:
        raise InputError(f"beta ({beta!r}) must be in (0, 1)")
    if not real(theta) or theta <= 0:
        raise InputError(f"theta ({theta!r}) must be a finite number > 0")
    if score not in (None, "I", "R", "F"):
        raise InputError(f"score ({score!r}) must be one of I, R, F")
    if encoding not in (None, *ENCODINGS):
        raise InputError(f"encoding ({encoding!r}) must be one of {', '.join(ENCODINGS)}")
    if degree is not None and (not isinstance(degree, int) or isinstance(degree, bool) or degree < 0):
        raise InputError(f"degree ({degree!r}) must be a non-negative integer")
    if phase not in (None, "network", "marginals"):
        raise InputError(f"non_private_phase ({phase!r}) must be 'network' or 'marginals'")


class PrivBayes:
    """ε-DP synthesizer (scikit-learn conventions: fit returns self, learned attributes end in _).

    Parameters: ``epsilon`` total budget; ``beta`` share of ε for the network (default 0.3);
    ``theta`` usefulness threshold (default 4); ``score`` I, R or F (default F when every
    encoded attribute is binary, else R); ``encoding`` (default hierarchical when a
    categorical attribute has a taxonomy, else vanilla); ``degree`` a fixed k instead of
    θ-usefulness; ``non_private_phase`` "network" or "marginals" runs that phase without
    noise (the paper's BestNetwork / BestMarginal analysis, §6.4: NOT private);
    ``random_state`` seeds the DP noise (for reproducible experiments; the report says so).
    """

    def __init__(self, epsilon: float = 1.0, *, beta: float = 0.3, theta: float = 4.0, score: str | None = None,
                 encoding: str | None = None, degree: int | None = None,
                 non_private_phase: NonPrivatePhase | None = None, random_state: int | None = None,
                 progress: bool = False) -> None:
        self.epsilon = epsilon
        self.beta = beta
        self.theta = theta
        self.score = score
        self.encoding = encoding
        self.degree = degree
        self.non_private_phase = non_private_phase
        self.random_state = random_state
        self.progress = progress

    # --- fitting ---------------------------------------------------------------------------------

    def check_parameters(self) -> None:
        """Raise :class:`InputError` naming the first parameter outside its range."""
        _check_parameters(self.epsilon, self.beta, self.theta, self.score, self.encoding, self.degree,
                          self.non_private_phase)

    def fit(self, data: pd.DataFrame | str | os.PathLike, schema: Schema | str | os.PathLike | None = None,
            *, infer_schema_from_data: bool = False) -> "PrivBayes":
        """Learn the private model from a DataFrame or a CSV/Parquet/.dat path."""
        self.check_parameters()
        source = str(data) if not isinstance(data, pd.DataFrame) else "data"
        if schema is not None and not isinstance(schema, Schema):
            schema = load_schema(schema)
        frame = data if isinstance(data, pd.DataFrame) else read_table(data, schema)
        self.schema_, self.domain_source_ = self._resolve_schema(frame, schema, infer_schema_from_data)
        leaves = self.schema_.encode(frame, source)
        with Progress("PrivBayes", enabled=self.progress) as progress:
            self._fit_codes(leaves, progress)
        return self

    def _resolve_schema(self, frame: pd.DataFrame, schema: Schema | str | os.PathLike | None,
                        infer: bool) -> tuple[Schema, str]:
        if schema is not None:
            return (schema if isinstance(schema, Schema) else load_schema(schema)), "given by the user (public)"
        if not infer:
            raise InputError("fit needs a schema (the public domain); pass one, or ask to infer it from the data, "
                             "which is not covered by epsilon")
        return infer_schema(frame), "inferred from the private data: NOT covered by epsilon"

    def _fit_codes(self, leaves: np.ndarray, progress: Progress) -> None:
        schema = self.schema_
        name = self.encoding or ("hierarchical" if any(a.taxonomy is not None for a in schema.attributes) else "vanilla")
        self.encoding_ = Encoding.build(schema, name)
        table = InMemoryTable(self.encoding_.encode(leaves), self.encoding_)
        self.n_ = table.n
        d = len(self.encoding_.attributes)
        score_name = self.score or ("F" if self.encoding_.is_binary else "R")
        self.score_ = score_name
        score = get_score(score_name)
        rng = random_source(self.random_state)
        self.seeded_ = rng.seeded
        accountant = Accountant(self.epsilon)
        eps = Fraction(self.epsilon)
        eps1 = Fraction(self.beta) * eps
        eps2 = eps - eps1
        fixed = self.degree is not None or self.encoding_.is_binary
        k = None
        if fixed:
            k = self.degree if self.degree is not None else binary_degree(self.n_, d, eps2, self.theta)
            k = min(k, d - 1)
        learn_eps1, release_eps2 = {"network": (None, eps), "marginals": (eps, None)}.get(
            self.non_private_phase, (eps1, eps2))
        if k == 0:  # independent attributes: the order needs no data, so all of ε goes to the marginals
            self.network_ = _random_order(d, rng)
            release_eps2 = None if release_eps2 is None else eps
        else:
            rule = fixed_degree_candidates(k) if fixed else maximal_parent_candidates(table, eps2, self.theta)
            progress.stage("learning the network", d - 1)
            self.network_ = greedy_bayes(table, score, rule, learn_eps1, accountant, rng, progress.update)
        progress.stage("releasing noisy conditionals", None)
        self.conditionals_ = noisy_conditionals(table, self.network_, release_eps2, accountant, rng, degree=k)
        self.degree_ = k if k is not None else self.network_.degree
        self.algorithm_ = (f"GreedyBayes Alg. 2 with degree k = {k} + NoisyConditionals Alg. 1" if fixed
                           else "GreedyBayes Alg. 4 (maximal parent sets, Alg. 5/6) + NoisyConditionals Alg. 3")
        self.ledger_ = accountant.ledger
        self.epsilon_spent_ = float(accountant.spent)

    # --- using the model ---------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "network_"):
            raise InputError("this PrivBayes model is not fitted yet; call fit first")

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False) -> pd.DataFrame:
        """``n`` synthetic rows (default: as many as the input) in the original schema."""
        self._check_fitted()
        n = self.n_ if n is None else n
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise InputError(f"n ({n!r}) must be a positive integer")
        rng = np.random.default_rng(random_state)
        encoded = ancestral_sample(self.network_, self.conditionals_, self.encoding_, int(n), rng)
        return self.schema_.decode(self.encoding_.decode(encoded), rng, bin_labels=bin_labels)

    def privacy_report(self) -> dict[str, Any]:
        """What was spent, on what, under which neighbouring relation, and what is not covered."""
        self._check_fitted()
        caveats = []
        if not self.domain_source_.startswith("given"):
            caveats.append("the domain (categories, bounds) was read from the data and is not covered by epsilon")
        if self.non_private_phase:
            caveats.append(f"the {self.non_private_phase} phase ran WITHOUT noise (analysis mode): "
                           "this model is NOT differentially private")
        if self.seeded_:
            caveats.append("the DP noise was seeded (reproducible run): do not publish seeded releases")
        return {
            "mechanism": "PrivBayes (Zhang et al., ACM TODS 2017)",
            "differentially_private": self.non_private_phase is None,
            "epsilon": float(self.epsilon),
            "epsilon_spent": self.epsilon_spent_,
            "neighbouring_relation": NEIGHBOURING_RELATION,
            "n": self.n_,
            "domain_source": self.domain_source_,
            "seeded": self.seeded_,
            "algorithm": self.algorithm_,
            "encoding": self.encoding_.name,
            "score": self.score_,
            "beta": self.beta,
            "theta": self.theta,
            "caveats": caveats,
            "ledger": [entry.to_dict() for entry in self.ledger_],
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the model as versioned JSON (atomic); sampling from it never needs the data."""
        from privbayes.model_file import save_model

        self._check_fitted()
        save_model(self, path)


def _random_order(d: int, rng: RandomSource) -> Network:
    """A uniformly random attribute order with empty parent sets (Fisher-Yates on the DP source)."""
    order = list(range(d))
    for i in range(d - 1, 0, -1):
        j = rng.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    return Network(tuple(APPair(a) for a in order))
