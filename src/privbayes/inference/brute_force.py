"""Inference by enumerating every joint configuration: the reference twin for tests.

Exponential in the number of variables, so refused above :data:`MAX_BRUTE_FORCE_CELLS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privbayes.inference.factor import Domain, Factor, logsumexp
from privbayes.inference.protocol import check_potentials

MAX_BRUTE_FORCE_CELLS = 2**22


@dataclass(frozen=True)
class JointTable:
    """The full joint table of log-potentials over all variables 0..T-1."""

    log_joint: np.ndarray
    log_z: float
    exact: bool = True

    def marginal(self, variables: Sequence[int]) -> np.ndarray:
        everything = tuple(range(self.log_joint.ndim))
        factor = Factor(everything, self.log_joint).marginalize(tuple(variables))
        return np.exp(factor.log_values - self.log_z)


class BruteForceEngine:
    exact = True

    def __init__(self, domain: Domain, scopes: Sequence[Sequence[int]]) -> None:
        if domain.cells(range(len(domain))) > MAX_BRUTE_FORCE_CELLS:
            raise ValueError(f"brute force is limited to {MAX_BRUTE_FORCE_CELLS} joint configurations")
        self.domain = domain
        self.scopes = tuple(domain.check_scope(s) for s in scopes)

    def infer(self, log_potentials: Sequence[np.ndarray]) -> JointTable:
        everything = tuple(range(len(self.domain)))
        joint = np.zeros(self.domain.sizes)
        for scope, values in zip(self.scopes, check_potentials(self.domain, self.scopes, log_potentials)):
            joint = joint + Factor(scope, values).aligned(everything)
        return JointTable(joint, float(logsumexp(joint)))
