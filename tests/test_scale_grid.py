"""The scale grid's helpers in benchmarks/scale.py (issue 42): cells read back from a detached run's log, growth
fitted on a log-log scale from the cells where fixed costs do not dominate, and the plot written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import benchmark_module


@pytest.fixture(scope="module")
def scale():
    return benchmark_module("scale.py")


def _cell(n: int, fit_s: float, method: str = "adaptive", backend: str = "duckdb", **extra) -> dict:
    return {"backend": backend, "method": method, "n": n, "d": 20, "fit_s": fit_s, "fit_cpu_s": fit_s / 2,
            "peak_rss_mb": 100.0, "load_1m": [1.0, 1.5], **extra}


def test_log_cells_reads_the_json_behind_progress_bars_and_its_time_record(scale, tmp_path: Path) -> None:
    row = _cell(10**9, 2516.81, method="privbayes")
    log = tmp_path / "run.log"
    log.write_text(
        "== privbayes 1e9 start 18:44:41 load 1.00 2.62 7.41 1/82 31006 code 531ce34\n"
        "privbayes: cost estimate: about 70 min\n"
        "learning:   5%| 1/19 [01:01<18:20]\rlearning: 100%| 19/19 [26:28<00:00]    " + json.dumps(row) + "\n"
        '\tCommand being timed: "timeout 9000 python benchmarks/scale.py --one duckdb:1e9:20"\n'
        "\tUser time (seconds): 3452.07\n\tElapsed (wall clock) time (h:mm:ss or m:ss): 42:01.35\n"
        "\tMaximum resident set size (kbytes): 4547264\n\tExit status: 0\n"
        "== adaptive 1e9 start 19:30:00 load 2.00\n"  # a second run that printed no JSON line (killed)
        '\tCommand being timed: "python benchmarks/scale.py --one duckdb:1e9:20"\n'
        "\tMaximum resident set size (kbytes): 99\n\tExit status: 137\n")
    (cell,) = scale.log_cells(log)
    assert cell["fit_s"] == 2516.81 and cell["method"] == "privbayes"
    assert cell["source"]["started"] == "18:44:41" and cell["source"]["code"] == "531ce34"
    assert cell["source"]["load_1m"] == 1.0
    assert cell["time_v"] == {"command": "timeout 9000 python benchmarks/scale.py --one duckdb:1e9:20",
                              "user_s": 3452.07, "wall": "42:01.35", "max_rss_kb": 4547264, "exit": 0}
    assert scale._peaks(cell) == (4547264 / 1024, None)  # time -v's peak (DuckDB included) beats the record's


def test_loglog_slope_recovers_the_exponent(scale) -> None:
    points = [(n, 3.0 * n**0.8) for n in (10**6, 10**7, 10**8)]
    assert scale.loglog_slope(points) == pytest.approx(0.8)
    assert scale.loglog_slope([(10**6, 1.0), (10**6, 2.0)]) is None


def test_grid_slopes_leave_out_the_small_cells_and_spark_cpu(scale) -> None:
    rows = [_cell(10**4, 50.0), _cell(10**6, 10.0), _cell(10**7, 100.0),  # 10⁴: fixed costs, left out
            _cell(10**6, 30.0, backend="spark-cluster[2,1,2048]"),
            _cell(10**7, 60.0, backend="spark-cluster[2,1,4096]"),
            _cell(10**7, 60.0, backend="numpy"),  # one cell from 10⁶ up: no slope
            {"backend": "numpy", "method": "adaptive", "n": 10**8, "d": 20, "not_run": "rows do not fit"}]
    slopes = {s["backend"]: s for s in scale.grid_slopes(rows)}
    assert set(slopes) == {"duckdb", "spark-cluster"}
    assert slopes["duckdb"]["time"] == pytest.approx(1.0) and slopes["duckdb"]["cpu"] == pytest.approx(1.0)
    assert slopes["duckdb"]["from"] == 10**6 and slopes["duckdb"]["cells"] == 2
    assert slopes["spark-cluster"]["time"] == pytest.approx(0.30, abs=0.01) and slopes["spark-cluster"]["cpu"] is None
    table = scale.grid_table(rows)
    assert "| adaptive | numpy | 10⁸ | not run: rows do not fit |" in table
    assert "| adaptive | duckdb | 10⁶ | 10.0 | 5.0 | 100 |" in table
    assert table.count("\n| adaptive |") == 7  # six measured cells and the one not run


def test_plot_grid_writes_the_figure(scale, tmp_path: Path) -> None:
    rows = [_cell(10**6, 10.0), _cell(10**7, 80.0, load_1m=[9.0, 8.0]),
            _cell(10**6, 90.0, backend="spark-cluster[2,1,2048]", driver_jvm_peak_mb=500.0,
                  executor_peak_mb=[1000.0, 1200.0])]
    out = tmp_path / "grid.png"
    scale.plot_grid(rows, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
