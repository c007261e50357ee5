"""A distinguishing audit of the adaptive method under zCDP, end to end (``AdaptiveMarginals.fit`` with
``privacy="zcdp"``, nothing bypassed).

The scenario of ``test_adaptive_audit.py`` (two binary copies a and b, n = 20; A has 11 rows (0, 0) and 9 rows
(1, 1), its replace-one neighbour B 10 and 10; one round measures one 1-way marginal; the event is V < −½ for
the measured attribute, K = 2), now with discrete Gaussian tables.  A ρ-zCDP release is (ε, δ(ε))-DP with δ(ε)
from CKS 2020 Cor. 13 (:func:`~privbayes.privacy.zcdp.delta_for`), so the audit claims that δ at ε = ln 3 for the
fit's ρ = 1/2 (δ ≈ 0.22).  Noiseless tables make the event certain on A and impossible on B (δ_ε = 1): caught.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from test_adaptive_audit import PARAMS, _frames, _low

import privbayes.privacy.mechanisms as mechanisms_module
from privbayes import AdaptiveMarginals, counting
from privbayes.audit.distinguish import binary_schema, distinguish, miss_probability
from privbayes.privacy.zcdp import delta_for

LN3 = math.log(3)
RHO = Fraction(1, 2)
ALPHA = 1e-3


def _audit(runs: int):
    schema = binary_schema("ab")
    tables = [counting.open(f, schema) for f in _frames()]

    def release(table, seed_base):
        def run(i):
            return _low(AdaptiveMarginals(LN3, privacy="zcdp", rho=RHO, random_state=seed_base + i, **PARAMS)
                        .fit(table))
        return run
    return distinguish(release(tables[0], 10**6), release(tables[1], 2 * 10**6), epsilon=LN3, runs=runs, events=2,
                       delta=delta_for(RHO, LN3), false_failure=ALPHA)


def test_end_to_end_adaptive_zcdp_audit_passes():
    result = _audit(500)
    print(result.summary())
    assert result.passed, result.summary()


def test_end_to_end_adaptive_zcdp_audit_rejects_noiseless_tables(monkeypatch):
    # Every table charged in ρ but released without noise: V is −2 on A and 0 on B, δ_ε = 1 > δ(ε) ≈ 0.22.
    monkeypatch.setattr(mechanisms_module, "discrete_gaussian", lambda sigma2, size, rng: np.zeros(size, np.int64))
    claimed = delta_for(RHO, LN3)
    assert 0.2 < claimed < 0.25 and miss_probability(1.0 - claimed, 500, LN3, 2, ALPHA) < 1e-6
    result = _audit(500)
    print(result.summary())
    assert not result.passed and result.violation > 0.9, result.summary()
