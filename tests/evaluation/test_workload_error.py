"""The workload error of ``evaluate``: the weighted average TVD over a workload's sets, against a hand
computation, in the Python evaluation and its text, JSON and HTML outputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privbayes.core.errors import InputError
from privbayes.evaluation import workload_tvd
from privbayes.evaluation.report import evaluate_codes, run_evaluate
from privbayes.schema import Attribute, Schema

SCHEMA = Schema(tuple(Attribute(name, "categorical", categories=(0, 1)) for name in ("x", "y", "z")))
REAL = np.array([[0, 0, 0], [0, 1, 1], [1, 1, 0], [1, 1, 1]])
SYNTH = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 1], [1, 1, 1], [0, 1, 0]])


def hand_tvd(attrs: list[int]) -> float:
    """½ Σ |p_real − p_synth| over the cells of ``attrs``, counted row by row."""
    cells = {tuple(row[attrs]) for row in np.vstack([REAL, SYNTH])}
    return 0.5 * sum(abs(np.mean([tuple(r[attrs]) == c for r in REAL]) - np.mean([tuple(r[attrs]) == c for r in SYNTH]))
                     for c in cells)


def test_the_workload_error_is_the_weighted_average_tvd_by_hand():
    # x × y: real (00: 1/4, 01: 1/4, 11: 1/2), synth (00: 2/5, 01: 1/5, 11: 2/5) → ½(3/20 + 1/20 + 1/10) = 3/20
    assert hand_tvd([0, 1]) == pytest.approx(0.15)
    expected = (1 * hand_tvd([0, 1]) + 3 * hand_tvd([1, 2]) + 1 * hand_tvd([0, 1, 2])) / 5
    error, each = workload_tvd(REAL, SYNTH, [2, 2, 2], [((0, 1), 1), ((1, 2), 3), ((0, 1, 2), 1)])
    assert error == pytest.approx(expected, abs=1e-12)
    assert each == pytest.approx([hand_tvd([0, 1]), hand_tvd([1, 2]), hand_tvd([0, 1, 2])], abs=1e-12)
    ev = evaluate_codes(REAL, SYNTH, SCHEMA, workload=[["x", "y"], {"attributes": ["y", "z"], "weight": 3},
                                                       ["x", "y", "z"]])
    assert ev.workload is not None and ev.workload.tvd == pytest.approx(expected, abs=1e-12)
    assert [names for names, _, _ in ev.workload.sets] == [("x", "y"), ("y", "z"), ("x", "y", "z")]
    assert workload_tvd(REAL, REAL, [2, 2, 2], [((2,), 1)]) == (0.0, [0.0])  # identical tables: no error


def test_evaluate_reports_the_workload_error_in_text_json_and_html(tmp_path):
    import io

    for name, codes in (("real", REAL), ("synth", SYNTH)):
        pd.DataFrame(codes, columns=["x", "y", "z"]).to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "w.json").write_text(json.dumps([{"all": 2}]))
    out = io.StringIO()
    ev = run_evaluate(str(tmp_path / "real.csv"), str(tmp_path / "synth.csv"), schema_path=SCHEMA, out=out,
                      classifier=False, json_path=str(tmp_path / "e.json"), report_path=str(tmp_path / "r.html"),
                      workload=str(tmp_path / "w.json"))
    expected = np.mean([hand_tvd([0, 1]), hand_tvd([0, 2]), hand_tvd([1, 2])])
    assert ev.workload is not None and ev.workload.tvd == pytest.approx(expected, abs=1e-12)
    assert f"  workload {expected:.4f}   (3 sets of {tmp_path / 'w.json'}, weighted average)" in out.getvalue()
    document = json.loads((tmp_path / "e.json").read_text())
    assert document["workload"]["tvd"] == pytest.approx(expected, abs=1e-12)
    assert len(document["workload"]["sets"]) == 3
    assert f"workload ({tmp_path / 'w.json'}, weighted)" in (tmp_path / "r.html").read_text()
    without = run_evaluate(str(tmp_path / "real.csv"), str(tmp_path / "synth.csv"), schema_path=SCHEMA,
                           out=io.StringIO(), classifier=False, json_path=str(tmp_path / "e2.json"))
    assert without.workload is None and "workload" not in json.loads((tmp_path / "e2.json").read_text())
    (tmp_path / "bad.json").write_text(json.dumps([["x", "w"]]))
    with pytest.raises(InputError, match=r"bad.json: item 1: column 'w' is not in the schema$"):
        run_evaluate(str(tmp_path / "real.csv"), str(tmp_path / "synth.csv"), schema_path=SCHEMA,
                     out=io.StringIO(), classifier=False, workload=str(tmp_path / "bad.json"))
