"""Cost estimates for tables an engine counts (issue 42: a billion rows), and the guard acting on the estimate
that ``privbayes fit`` prints (docs/decisions.md, "A billion rows")."""

from __future__ import annotations

import pytest
from helpers import categorical_schema

from privbayes import AdaptiveMarginals, PrivBayes
from privbayes.core.errors import InputError
from privbayes.counting.base import CountingPlace
from privbayes.synthesizers import costs
from privbayes.synthesizers.costs import CostEstimate

SIZES = [9, 16, 7, 12, 5, 40, 2, 30] * 2  # 16 attributes: the coded rows of 10⁸ rows outgrow the in-memory share
DUCKDB = CountingPlace(in_engine=True, engine_bytes=3 * 2**30, local_bytes=3 * 2**30)


def test_the_guard_refuses_on_the_peak_it_prints(caps):
    """One number: the peak memory ``describe`` prints is the one the guard holds under PRIVBAYES_MAX_FIT_GB."""
    cost = CostEstimate(seconds=10.0, bytes=2**20, peak_bytes=5 * 2**30, method="adaptive")
    assert cost.guarded_bytes == 5 * 2**30 and "peak memory about 5.0 GB" in cost.describe()
    caps(max_fit_bytes=4 * 2**30)
    with pytest.raises(InputError, match=r"about 5\.0 GB of memory.*PRIVBAYES_MAX_FIT_GB.*--backend duckdb"):
        cost.check()
    caps(max_fit_bytes=6 * 2**30)
    cost.check()


@pytest.mark.parametrize("estimator", [AdaptiveMarginals(1.0), PrivBayes(1.0)], ids=["adaptive", "privbayes"])
def test_an_engine_table_costs_its_engine_memory_not_the_rows_read(estimator):
    """At 10⁸ rows an in-memory table holds every cell it read (tens of GB: refused), while DuckDB holds at most its
    memory limit and streams the coded rows (a pass per batch, in the time estimate): the estimate stays within a
    few GB and under the default guard."""
    schema = categorical_schema(SIZES)
    plan = estimator.plan(10**8, schema)
    in_memory = estimator.cost_estimate(plan, schema)
    engine = estimator.cost_estimate(plan, schema, counting=DUCKDB)
    assert in_memory.guarded_bytes > 20 * 2**30
    assert DUCKDB.engine_bytes < engine.guarded_bytes < DUCKDB.engine_bytes + 2 * 2**30
    assert engine.work["stream_rows"] >= 10**8 * len(SIZES) and "stream_rows" not in in_memory.work
    engine.check()


def test_coded_rows_that_fit_the_in_memory_share_are_estimated_as_moved_into_memory():
    """Below the share, the engine's coded rows move into memory (localise's measure: a code and a generalised code a
    column, 16 bytes a row) and are counted there: no streamed passes."""
    schema = categorical_schema(SIZES)
    estimator = AdaptiveMarginals(1.0)
    cost = estimator.cost_estimate(estimator.plan(10**6, schema), schema, counting=DUCKDB)
    assert cost.work["memory local"] == 10**6 * (2 * len(SIZES) + 16)
    assert "stream_rows" not in cost.work
    assert not costs.streamed(10**6, estimator.settings().encoding_for(schema), DUCKDB)


def test_privbayes_fit_refuses_on_the_estimate_it_prints_for_a_duckdb_table(tmp_path, capsys, caps):
    """``fit --dry-run --backend duckdb`` prints the peak of the DuckDB table's estimate; with the cap just below
    it, ``fit`` refuses before counting, naming that number."""
    import re

    import yaml
    from helpers import correlated_frame

    from privbayes.cli import main

    pytest.importorskip("duckdb")
    sizes = [3, 4, 2, 5]
    data, schema = tmp_path / "d.csv", tmp_path / "s.yaml"
    correlated_frame(sizes, 500, seed=1).to_csv(data, index=False)
    schema.write_text(yaml.safe_dump(categorical_schema(sizes).to_dict()))
    args = ["fit", str(data), "--schema", str(schema), "--epsilon", "1", "--backend", "duckdb"]
    assert main([*args, "--dry-run"]) == 0
    printed = float(re.search(r"peak memory about ([\d,.]+) MB", capsys.readouterr().out).group(1).replace(",", ""))
    caps(max_fit_bytes=int((printed - 1) * 2**20))  # restored after the test (conftest's caps)
    assert main([*args, "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "PRIVBAYES_MAX_FIT_GB" in err and f"about {printed:,.1f} MB of memory" in err  # the number it printed
    assert not (tmp_path / "m.json").exists()


def test_privbayes_on_streamed_rows_costs_its_streamed_counting():
    """PrivBayes on rows an engine streams counts bases at the asked levels, kept across steps: its estimate names
    that regime (a constant a pair × row of its own) and the engine's reading, not the in-memory regime's."""
    schema = categorical_schema(SIZES)
    estimator = PrivBayes(1.0)
    plan = estimator.plan(10**8, schema)
    streamed = estimator.cost_estimate(plan, schema, counting=DUCKDB)
    in_memory = estimator.cost_estimate(plan, schema)
    assert streamed.work["streamed_pair_rows"] == in_memory.work["covered_pair_rows"] > 0
    assert "covered_pair_rows" not in streamed.work and "read" not in streamed.work
    assert streamed.work["engine_read"] == in_memory.work["read"] == 10**8 * len(SIZES)
    assert streamed.seconds < in_memory.seconds / 2
