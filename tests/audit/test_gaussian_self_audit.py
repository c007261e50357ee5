"""The self-audit of the discrete Gaussian alone (``privbayes audit --method discrete-gaussian --delta D``;
docs/privacy-assurance.md, "The discrete Gaussian alone").

The claim is (ε, δ): the mechanism is the discrete Gaussian of ρ = ``rho_for(ε, δ)`` (CKS 2020 Cor. 13), on the
discrete Laplace audit's worst-case tables.  Its loss is the exact log-likelihood ratio; the bound is on ε at δ,
ln((p⁻ − δ)/q⁺).  Planted break: σ halved (the true ρ is four times the claim), which must exceed the claimed ε.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

import privbayes.privacy.mechanisms as mechanisms_module
from privbayes.audit import audit
from privbayes.audit.bounds import clopper_pearson_lower, ratio_bound
from privbayes.audit.mia import clopper_pearson_upper
from privbayes.audit.transcript import gaussian_log_ratio
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.privacy.zcdp import rho_for

CLAIM = {"epsilon": 2.0, "delta": 1e-3}  # ρ ≈ 0.193, σ² ≈ 2.59 at Δ = 1


@pytest.fixture
def sigma_halved(monkeypatch):
    """Broken variant: the sampler draws with σ halved (σ² / 4) while the ledger charges the claimed ρ."""
    real = mechanisms_module.discrete_gaussian
    monkeypatch.setattr(mechanisms_module, "discrete_gaussian", lambda sigma2, size, rng: real(sigma2 / 4, size, rng))


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_the_discrete_gaussian_alone_is_consistent_with_its_claim(relation):
    result = audit("discrete-gaussian", CLAIM["epsilon"], runs=20_000, seed=31, delta=CLAIM["delta"],
                   neighbours=relation)
    assert result.verdict == "consistent" and result.epsilon_lower <= CLAIM["epsilon"], result.lines()
    assert result.epsilon_lower >= 1.0, result.lines()  # the audit has power: half the claim certified
    assert result.parameters["delta"] == "1/1000" and result.runs == 15_000 and result.calibration_runs == 5000


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_sigma_halved_is_caught_above_the_claimed_epsilon_at_its_delta(sigma_halved, relation):
    result = audit("discrete-gaussian", CLAIM["epsilon"], runs=20_000, seed=31, delta=CLAIM["delta"],
                   neighbours=relation)
    assert result.verdict == "VIOLATION" and result.epsilon_lower > CLAIM["epsilon"] + 0.5, result.lines()


def test_the_loss_is_the_exact_log_likelihood_ratio():
    sigma2 = 2.5
    z = np.array([[3, 7], [-4, 5]])
    d, d2 = np.array([5, 5]), np.array([4, 6])
    pmf = lambda x, centre: -((x - centre) ** 2) / (2 * sigma2)  # noqa: E731 (log pmf up to the shared normaliser)
    expected = (pmf(z, d) - pmf(z, d2)).sum(axis=1)
    assert np.allclose(gaussian_log_ratio(z, d, d2, sigma2).sum(axis=1), expected)


def test_a_bound_at_delta_takes_delta_off_the_lower_probability():
    lower, upper = clopper_pearson_lower(500, 1000, 0.01), clopper_pearson_upper(100, 1000, 0.01)
    assert ratio_bound(500, 1000, 100, 1000, 0.01) == pytest.approx(math.log(lower / upper))
    assert ratio_bound(500, 1000, 100, 1000, 0.01, delta=0.1) == pytest.approx(math.log((lower - 0.1) / upper))
    assert ratio_bound(50, 1000, 1, 1000, 0.01, delta=0.2) == -math.inf  # p⁻ ≤ δ: no bound


def test_the_command_line_audits_the_gaussian_and_refuses_a_claim_without_delta(tmp_path, capsys):
    out = tmp_path / "audit.json"
    assert main(["audit", "--method", "discrete-gaussian", "--epsilon", "2", "--delta", "1e-3", "--runs", "8000",
                 "--workers", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "claimed epsilon = 2" in printed and "verdict: consistent" in printed and "δ = 0.001" in printed
    assert json.loads(out.read_text())["parameters"]["rho"] == str(rho_for(Fraction(2), Fraction(1, 1000)))
    assert main(["audit", "--method", "discrete-gaussian", "--epsilon", "2", "--runs", "100"]) == 2
    assert "needs delta" in capsys.readouterr().err
    assert main(["audit", "--method", "discrete-laplace", "--delta", "1e-3", "--runs", "100"]) == 2
    assert "--delta does not apply to --method discrete-laplace" in capsys.readouterr().err
    with pytest.raises(InputError, match=r"delta \(2\) must be in \(0, 1\)"):
        audit("discrete-gaussian", 1.0, runs=100, delta=2)
