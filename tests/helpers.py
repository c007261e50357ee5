"""Small data generators and statistics shared by the tests."""

from __future__ import annotations

import importlib.util
from collections import Counter
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
from scipy import stats

from privbayes.inference import Domain
from privbayes.methods.mrf import LogLinearModel
from privbayes.schema import Attribute, Schema


def benchmark_module(script: str) -> ModuleType:
    """A script of benchmarks/ (``script`` its file name) loaded as a module, so its helpers can be tested."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / script
    spec = importlib.util.spec_from_file_location(f"{path.stem}_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def categorical_schema(sizes: list[int]) -> Schema:
    return Schema(tuple(Attribute(f"a{j}", "categorical", categories=tuple(range(s))) for j, s in enumerate(sizes)))


def random_frame(sizes: list[int], n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"a{j}": rng.integers(0, s, n) for j, s in enumerate(sizes)})


def correlated_frame(sizes: list[int], n: int, seed: int) -> pd.DataFrame:
    """Each attribute copies the previous one (mod its size) 70 % of the time."""
    rng = np.random.default_rng(seed)
    columns = {"a0": rng.integers(0, sizes[0], n)}
    for j in range(1, len(sizes)):
        copy = rng.random(n) < 0.7
        columns[f"a{j}"] = np.where(copy, columns[f"a{j - 1}"] % sizes[j], rng.integers(0, sizes[j], n))
    return pd.DataFrame(columns)


ZCDP_SIZES = [3, 4, 2, 5]
"""The attribute sizes of the zCDP fits' small correlated table."""


def zcdp_fit(method, relation: str, **params):
    """``method`` (a synthesizer class) fitted under ``privacy="zcdp"`` on a small correlated table (seeded)."""
    frame = correlated_frame(ZCDP_SIZES, 400, seed=1)
    return method(1.0, neighbours=relation, privacy="zcdp", random_state=3, **params).fit(
        frame, categorical_schema(ZCDP_SIZES))


def write_zcdp_table(folder) -> tuple:
    """The zCDP fits' table written to ``folder`` as ``d.csv`` with its schema ``schema.json``."""
    import json

    data, schema = folder / "d.csv", folder / "schema.json"
    correlated_frame(ZCDP_SIZES, 400, seed=1).to_csv(data, index=False)
    schema.write_text(json.dumps(categorical_schema(ZCDP_SIZES).to_dict()))
    return data, schema


def check_rho_spent_as_planned(model, rho: Fraction) -> None:
    """The plan is priced at ``rho``, equals the ledger entry by entry (mechanism, ρ, Δ), and spends it exactly, ε 0
    on every entry."""
    plan, ledger = model.released_.plan, model.released_.record.ledger
    assert plan.total_rho == rho
    plan.check(ledger)
    assert sum(e.rho for e in ledger) == rho and all(e.epsilon == 0 for e in ledger)


def random_log_linear(sizes: list[int], cliques, seed: int, scale: float = 1.0) -> LogLinearModel:
    """A log-linear model with N(0, scale²) parameters on every clique cell."""
    rng = np.random.default_rng(seed)
    domain = Domain(sizes)
    return LogLinearModel(domain, tuple(cliques), tuple(scale * rng.normal(size=domain.shape(c)) for c in cliques))


def kl_divergence(p: LogLinearModel, q: LogLinearModel) -> float:
    """KL(p‖q) = E_p[θ_p − θ_q] − A(θ_p) + A(θ_q) for two models over the same cliques."""
    mu = p.marginals()
    return float(sum(np.sum(m * (a - b)) for m, a, b in zip(mu, p.theta, q.theta))
                 - p.beliefs().log_z + q.beliefs().log_z)


def run_cli(args: list[str], capsys) -> tuple[int, str]:
    """The CLI's exit code (argparse's too) and what it wrote to standard error."""
    from privbayes.cli import main

    capsys.readouterr()
    try:
        code = main(args)
    except SystemExit as exc:  # argparse
        code = exc.code
    return code, capsys.readouterr().err


def chi_square_pvalue(observed: Counter, expected_p: dict) -> float:
    """χ² goodness of fit; cells with expected count < 5 are pooled into one (scipy needs ≥ 5)."""
    n = sum(observed.values())
    keys = sorted(expected_p, key=lambda k: -expected_p[k])
    obs, exp, pooled_o, pooled_e = [], [], 0, 0.0
    for k in keys:
        if n * expected_p[k] >= 5:
            obs.append(observed.get(k, 0))
            exp.append(n * expected_p[k])
        else:
            pooled_o += observed.get(k, 0)
            pooled_e += n * expected_p[k]
    rest = n - sum(obs) - pooled_o  # outputs outside the listed support land here too
    pooled_o += rest
    pooled_e = n - sum(exp)
    if pooled_e > 0:
        obs.append(pooled_o)
        exp.append(pooled_e)
    return float(stats.chisquare(obs, exp).pvalue)

