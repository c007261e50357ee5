"""The cost model of every DP method (issue 32): an estimate from public inputs, file-size bounds that
hold, and fits at ε → ∞ and with zero-variance columns that raise no warning."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame

from privbayes import AdaptiveMarginals, PrivateMRF, PrivBayes, SAPrivBayes
from privbayes.cli import main
from privbayes.synthesizers.costs import CostEstimate

SIZES = [3, 4, 2, 5]
CLIQUES = [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]


def _estimators(epsilon: float) -> dict[str, object]:
    return {"privbayes": PrivBayes(epsilon, random_state=1), "adaptive": AdaptiveMarginals(epsilon, random_state=1),
            "sa-privbayes": SAPrivBayes(epsilon, random_state=1),
            "mrf": PrivateMRF(CLIQUES, epsilon, random_state=1)}


@pytest.mark.parametrize("name", ["privbayes", "adaptive", "sa-privbayes", "mrf"])
def test_every_dp_method_estimates_time_memory_and_file_size(name):
    schema = categorical_schema(SIZES)
    estimator = _estimators(1.0)[name]
    small = estimator.cost_estimate(estimator.plan(1000, schema), schema)
    large = estimator.cost_estimate(estimator.plan(10**7, schema), schema)
    assert isinstance(small, CostEstimate)
    assert 0 < small.seconds <= large.seconds and 0 < small.peak_bytes < large.peak_bytes
    assert small.file_bytes > 0 and small.work["read"] == 1000 * len(SIZES)
    assert "expected time about" in small.describe() and "peak memory about" in small.describe()


@pytest.mark.parametrize("name", ["adaptive", "sa-privbayes", "mrf"])
@pytest.mark.parametrize("epsilon", [0.5, 50.0])
def test_the_file_size_bound_holds_for_every_method(tmp_path, name, epsilon):
    schema = categorical_schema(SIZES)
    estimator = _estimators(epsilon)[name]
    estimator.fit(correlated_frame(SIZES, 2000, seed=3), schema)
    estimator.save(tmp_path / "m.json")
    bound = estimator.cost_estimate(estimator.released_.plan, schema).file_bytes
    assert os.path.getsize(tmp_path / "m.json") <= bound


@pytest.mark.parametrize("method", ["privbayes", "adaptive", "sa-privbayes"])
def test_dry_run_prints_seconds_memory_and_file_size(tmp_path, capsys, method):
    data, schema = tmp_path / "d.csv", tmp_path / "s.yaml"
    correlated_frame(SIZES, 500, seed=1).to_csv(data, index=False)
    import yaml

    schema.write_text(yaml.safe_dump(categorical_schema(SIZES).to_dict()))
    assert main(["fit", str(data), "--schema", str(schema), "--method", method, "--epsilon", "1", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "expected time about" in out and "peak memory about" in out and "model file at most" in out


def test_dry_run_under_add_remove_estimates_at_the_assumed_n(tmp_path, capsys):
    schema = tmp_path / "s.yaml"
    import yaml

    schema.write_text(yaml.safe_dump(categorical_schema(SIZES).to_dict()))
    args = ["fit", str(tmp_path / "absent.csv"), "--schema", str(schema), "--method", "mrf", "--cliques",
            "a0,a1;a1,a2", "--epsilon", "1", "--neighbours", "add-remove", "--dry-run"]
    assert main(args + ["--assume-n", "1000"]) == 0
    small = capsys.readouterr().out
    assert main(args + ["--assume-n", "10000000"]) == 0
    large = capsys.readouterr().out
    assert "expected time about" in small and small != large


def _zero_variance_frame(n: int) -> pd.DataFrame:
    """Correlated columns and one constant column (every table over it has one non-zero cell)."""
    frame = correlated_frame(SIZES, n, seed=5)
    frame["a2"] = 1
    return frame


@pytest.mark.parametrize("name", ["privbayes", "adaptive", "sa-privbayes", "mrf"])
def test_epsilon_to_infinity_with_a_constant_column_fits_without_warnings(name):
    """Issue 32: at ε = 10⁹ the noise variances underflow to zero (0/0 made NaN weights in consistent
    estimation); with a constant column some tables are all zeros but one cell.  Every method must
    fit, sample and report without any warning (warnings are errors here)."""
    schema = categorical_schema(SIZES)
    estimator = _estimators(1e9)[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            estimator.fit(_zero_variance_frame(400), schema)
        sample = estimator.sample(200, random_state=2)
    assert (sample["a2"] == 1).all()  # at ε → ∞ the constant column stays constant
    assert estimator.privacy_report()["epsilon"] == pytest.approx(1e9)


BINARY = [2] * 9


@pytest.mark.parametrize("name", ["adaptive", "privbayes"])
@pytest.mark.parametrize("epsilon", [0.3, 5.0])
def test_the_file_size_bound_holds_on_binary_data(tmp_path, name, epsilon):
    """Binary data takes the fixed-degree path (Lemma 4.8's k; adaptive: the network's tables first),
    whose file bound counts each table by its position (at most min(i, k) parents)."""
    schema = categorical_schema(BINARY)
    estimator = _estimators(epsilon)[name]
    estimator.fit(correlated_frame(BINARY, 3000, seed=4), schema)
    estimator.save(tmp_path / "m.json")
    bound = estimator.cost_estimate(estimator.released_.plan, schema).file_bytes
    assert os.path.getsize(tmp_path / "m.json") <= bound


def test_table_bounds_count_each_position_by_its_parents():
    """The i-th placed attribute has at most min(i, k) parents: binary tables 2^(min(i,k)+1), and
    never more than the largest table given."""
    from privbayes.methods.privbayes.cost import table_bounds
    from privbayes.schema.encoding import Encoding

    binary = Encoding.build(categorical_schema([2] * 6), "vanilla")
    assert table_bounds(binary, 2**4, 3) == [2, 4, 8, 16, 16, 16]
    assert table_bounds(binary, 10, 3) == [2, 4, 8, 10, 10, 10]
    mixed = Encoding.build(categorical_schema([3, 5, 2]), "vanilla")
    assert table_bounds(mixed, 10**6, 1) == [5, 15, 15]
    assert table_bounds(mixed, 7, None) == [7, 7, 7]


def test_the_numba_and_cover_thresholds_mirror_the_in_memory_back_end():
    """The cost model charges numba's loading past the back-end's ski-rental threshold, and counting with
    bases from its cover threshold; it keeps its own copies (the layer may not import the back-end),
    which must follow the back-end's."""
    from privbayes.counting import memory
    from privbayes.synthesizers import costs

    assert costs.NUMPY_VISITS == memory._NUMPY_VISITS
    assert costs.COVER_ROWS == memory._COVER_ROWS
    assert costs.numba_loaded(costs.NUMPY_VISITS) == 1.0 and costs.numba_loaded(costs.NUMPY_VISITS - 1) == 0.0
