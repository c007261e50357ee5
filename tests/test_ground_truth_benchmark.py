"""The ground-truth benchmark's helpers in benchmarks/ground_truth.py (issue 41): the MRF truth's cliques, the truth
itself (the same rows for the same seed, over the network truth's leaf codes; one fit, ~4 CPU s), the table's
unfinished cells and the plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import benchmark_module


@pytest.fixture(scope="module")
def ground_truth():
    return benchmark_module("ground_truth.py")


def test_mrf_cliques_are_the_maximum_spanning_tree_and_the_most_informative_small_triangles(ground_truth) -> None:
    # A chain 0-1-2-3-4 and 5 hanging from 0 carry the most information; of the chords, 0-2, 1-3 and 2-4 the most.
    info = np.zeros((6, 6))
    for (i, j), value in {(0, 1): 0.9, (1, 2): 0.8, (2, 3): 0.7, (3, 4): 0.6, (0, 5): 0.2, (0, 2): 0.5,
                          (1, 3): 0.4, (2, 4): 0.3, (1, 5): 0.05, (0, 4): 0.1}.items():
        info[i, j] = info[j, i] = value
    assert ground_truth.mrf_cliques(info, [2] * 6) == [(0, 5), (0, 1, 2), (1, 2, 3), (2, 3, 4)]
    # A triangle over MRF_TRIANGLE_CELLS is never closed: the next chord's is, and the large one's tree pair stays.
    big = [2, 2, 2, 2, ground_truth.MRF_TRIANGLE_CELLS, 2]
    assert ground_truth.mrf_cliques(info, big) == [(3, 4), (0, 1, 2), (1, 2, 3), (0, 1, 5)]


def test_the_mrf_truth_is_fixed_and_draws_the_network_truths_leaf_codes(ground_truth) -> None:
    schema, model = ground_truth.truth("mrf")
    rows = ground_truth.draw(model, 300, 10)
    assert rows.shape == (300, 15)
    assert np.array_equal(rows, ground_truth.draw(model, 300, 10))
    assert not np.array_equal(rows, ground_truth.draw(model, 300, 11))
    assert (rows >= 0).all() and (rows < np.array([a.size for a in schema.attributes])).all()
    assert len(model.cliques) == 12 and sum(len(c) == 3 for c in model.cliques) == ground_truth.MRF_TRIANGLES


def _cell(truth: str, method: str, n: int, ratio: float, **extra) -> dict:
    return {"rows": n, "epsilon": 1.0, "truth": truth, "method": method, "options": {}, "floor_q2": 0.01,
            "floor_q3": 0.02, "status": "ok", "q2": 0.01 * ratio, "q3": 0.02 * ratio, "ratio_q2": ratio,
            "ratio_q3": ratio, "seconds": 2.0, "cpu_seconds": 1.0, "load_average": 3.0, **extra}


def test_a_timed_out_cell_is_kept_in_the_table_with_its_cpu_seconds(ground_truth, tmp_path: Path) -> None:
    cells = [_cell("network", "adaptive", 10**4, 2.5),
             {**_cell("network", "aim-opendp", 10**4, 0), "status": "timeout", "detail": "did not finish in 20 min",
              "cpu_seconds": 1187.0}]
    lines = tmp_path / "cells.jsonl"
    lines.write_text("".join(json.dumps(c) + "\n" for c in cells))
    assert ground_truth.read_cells(str(lines)) == cells
    text = ground_truth.table(cells).splitlines()
    assert "adaptive (replace-one, pure ε)" in text[2] and "2.50 / 2.50" in text[2]
    assert "aim-opendp (add/remove, δ = 1e-9)" in text[3]
    assert "timeout: did not finish in 20 min (1187 CPU s)" in text[3]


def test_the_plot_is_written(ground_truth, tmp_path: Path) -> None:
    cells = [_cell(truth, method, n, ratio) for truth in ("network", "mrf") for method in ("adaptive", "mst-opendp")
             for n, ratio in ((10**4, 4.0), (10**5, 2.5))]
    listed = tmp_path / "cells.json"
    listed.write_text(json.dumps(cells))
    figure = tmp_path / "grid.png"
    ground_truth.plot(ground_truth.read_cells(str(listed)), str(figure))
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
