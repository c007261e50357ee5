"""``privbayes evaluate``: printed TODS 2017 §6.1 metrics, the HTML report, and one-line errors."""

from __future__ import annotations

import base64
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privbayes
from privbayes import PrivBayes
from privbayes.cli import main
from privbayes.counting import leaf_codes
from privbayes.evaluation import average_marginal_tvd, marginal
from privbayes.evaluation.report import evaluate_codes, parse_alphas, parse_target
from privbayes.schema.files import load_schema

SCHEMA = """attributes:
  - {name: a, kind: categorical, categories: [red, green, blue]}
  - {name: b, kind: binary}
  - {name: x, kind: numeric, lower: 0, upper: 10, bins: 4}
  - {name: c, kind: categorical, categories: [0, 1, 2, 3]}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """real.csv, synth.csv (sampled from a tiny fitted model), schema.yaml and model.json."""
    w = tmp_path_factory.mktemp("evaluate")
    rng = np.random.default_rng(0)
    n = 500
    a = rng.integers(0, 3, n)
    frame = pd.DataFrame({"a": np.array(["red", "green", "blue"])[a],
                          "b": np.where(rng.random(n) < 0.85, a % 2, 1 - a % 2),
                          "x": np.clip(a * 3 + rng.normal(1.5, 1.0, n), 0, 10),
                          "c": rng.integers(0, 4, n)})
    frame.to_csv(w / "real.csv", index=False)
    (w / "schema.yaml").write_text(SCHEMA)
    model = PrivBayes(1.0, random_state=1).fit(frame, load_schema(w / "schema.yaml"))
    model.save(w / "model.json")
    model.sample(400, random_state=2).to_csv(w / "synth.csv", index=False)
    return w


def _codes(w: Path) -> tuple[np.ndarray, np.ndarray, list[int]]:
    schema = load_schema(w / "schema.yaml")
    real = leaf_codes(w / "real.csv", schema)
    synth = leaf_codes(w / "synth.csv", schema)
    return real, synth, [a.size for a in schema.attributes]


def test_prints_the_metrics_of_the_library(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = work
    code = main(["evaluate", str(w / "real.csv"), str(w / "synth.csv"), "--schema", str(w / "schema.yaml"),
                 "--alpha", "2,3", "--target", "b=1", "--target", "x>=5"])
    out = capsys.readouterr().out
    assert code == 0
    real, synth, sizes = _codes(w)
    for alpha in (2, 3):
        printed = re.search(rf"^  Q{alpha}\s+([0-9.]+)", out, re.MULTILINE)
        assert printed is not None, out
        assert printed.group(1) == f"{average_marginal_tvd(real, synth, sizes, alpha):.4f}"
    one_way = 0.5 * np.abs(marginal(real, sizes, [0]) - marginal(synth, sizes, [0])).sum()
    assert re.search(rf"^  a\s+categorical\s+3\s+{one_way:.4f}$", out, re.MULTILINE), out
    assert re.search(r"^  b=1\s+\S+\s+0\.\d{4}\s+0\.\d{4}$", out, re.MULTILINE), out
    assert re.search(r"^  x>=5\s", out, re.MULTILINE) and "NOT differentially private" in out
    assert not list(w.glob("*.html"))


def test_huge_or_impossible_alphas_are_skipped_with_a_note(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = work
    assert main(["evaluate", str(w / "real.csv"), str(w / "synth.csv"), "--schema", str(w / "schema.yaml"),
                 "--alpha", "1,9"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  Q1\s+[0-9.]+\s+\(4 marginals\)", out, re.MULTILINE)
    assert re.search(r"^  Q9\s+skipped: α = 9 exceeds the 4 attributes$", out, re.MULTILINE), out
    real, synth, _ = _codes(w)
    ev = evaluate_codes(real, synth, load_schema(w / "schema.yaml"), (2,), max_marginals=5)
    assert ev.marginals[0].tvd is None and "6 marginals (more than 5)" in ev.marginals[0].note


class _Page(HTMLParser):
    """Collects image sources, table cells and external references of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.cells: list[str] = []
        self.external: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "img":
            self.images.append(values.get("src") or "")
        if tag in ("link", "script") or (values.get("href") or "").startswith("http"):
            self.external.append(tag)
        if tag == "td":
            self._in_cell = True
            self.cells.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.cells[-1] += data


def test_html_report_embeds_plots_network_and_ledger(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = work
    report = w / "report.html"
    assert main(["evaluate", str(w / "real.csv"), str(w / "synth.csv"), "--schema", str(w / "schema.yaml"),
                 "--model", str(w / "model.json"), "--report", str(report)]) == 0
    assert f"wrote {report}" in capsys.readouterr().out
    text = report.read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    assert page.external == [] and "http" not in text
    # heatmap + one distribution per attribute + the network
    assert len(page.images) == 1 + 4 + 1
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    ledger = privbayes.load(w / "model.json").privacy_report()["ledger"]
    assert ledger and all(entry["step"] in page.cells and entry["measured"] in page.cells for entry in ledger)
    assert "Caveats" in text and "seeded" in text and "NOT differentially private" in text
    assert [p.name for p in w.iterdir() if p.name.startswith(".")] == []  # no temporary files left


def _bad_cases(w: Path) -> list[tuple[list[str], str]]:
    (w / "outside.csv").write_text("a,b,x,c\nred,0,11,1\n")
    (w / "nocol.csv").write_text("a,b,x\nred,0,1\n")
    (w / "other.yaml").write_text(SCHEMA.replace("name: c,", "name: z,"))
    real, synth, schema = str(w / "real.csv"), str(w / "synth.csv"), str(w / "schema.yaml")
    return [
        ([real, str(w / "nope.csv"), "--schema", schema], f"{w / 'nope.csv'}: no such file"),
        ([real, str(w / "outside.csv"), "--schema", schema], "column 'x': a value is outside the schema's bounds"),
        ([real, str(w / "nocol.csv"), "--schema", schema], "column 'c' of the schema is missing from the data"),
        ([real, synth], "evaluate needs --schema"),
        ([real, synth, "--schema", str(w / "other.yaml"), "--model", str(w / "model.json")],
         "differ from the schema's"),
        ([real, synth, "--schema", schema, "--alpha", "two"], "--alpha ('two') must be a comma-separated list"),
        ([real, synth, "--schema", schema, "--target", "q=1"], "column 'q' is not in the schema"),
        ([real, synth, "--schema", schema, "--target", "a>=1"], ">= needs a numeric attribute"),
        ([real, synth, "--schema", schema, "--target", "a=purple"], "value 'purple' is not one of"),
        ([real, synth, "--schema", schema, "--target", "b=0|1"], "selects every value of 'b'"),
        ([real, synth, "--schema", schema, "--target", "x"], "a numeric column needs a threshold, e.g. x>=NUMBER"),
    ]


def test_bad_inputs_are_one_line_errors_and_leave_no_report(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = work
    report = w / "bad.html"
    for args, message in _bad_cases(w):
        code = main(["evaluate", *args, "--report", str(report)])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("privbayes: error: ") and err.count("\n") == 1, (args, err)
        assert message in err, (args, err)
        assert not report.exists()
    args = [str(w / "real.csv"), str(w / "synth.csv"), "--schema", str(w / "schema.yaml")]
    assert main(["evaluate", *args, "--report", str(w / "no" / "folder.html")]) == 2
    assert "the folder" in capsys.readouterr().err and not (w / "no").exists()
    assert [p.name for p in w.iterdir() if p.name.startswith(".")] == []


def test_evaluate_runs_without_the_eval_extra(work: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Without scikit-learn and matplotlib: every other metric and the verdict are printed, the report
    is written without figures, and one line each says what to install (issue 29)."""
    w = work
    for module in ("matplotlib", "matplotlib.figure", "sklearn", "sklearn.svm", "sklearn.preprocessing"):
        monkeypatch.setitem(sys.modules, module, None)
    report = w / "nomatplotlib.html"
    code = main(["evaluate", str(w / "real.csv"), str(w / "synth.csv"), "--schema", str(w / "schema.yaml"),
                 "--target", "b=1", "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    real, synth, sizes = _codes(w)
    assert re.search(rf"^  Q2\s+{average_marginal_tvd(real, synth, sizes, 2):.4f}", out, re.MULTILINE), out
    assert re.search(r"^verdict: (GOOD|GOOD on average, but \d+ of \d+ column pairs lost their relation|FAIR|POOR): "
                     r"average 2-way TVD", out, re.MULTILINE)
    assert re.search(r"^  x: KS \d\.\d{3}", out, re.MULTILINE)
    assert ("not run: classifier check (SVM task): it needs scikit-learn: pip install 'privbayes[eval]'\n" in out
            and "not run: figures of the report: they need matplotlib: pip install 'privbayes[eval]'\n" in out)
    assert "SVM misclassification" not in out and f"wrote {report} (without figures)" in out
    page = _Page()
    text = report.read_text(encoding="utf-8")
    page.feed(text)
    assert page.images == [] and 'id="verdict"' in text and "pip install &#x27;privbayes[eval]&#x27;" in text


def test_target_and_alpha_parsing(work: Path) -> None:
    schema = load_schema(work / "schema.yaml")
    assert parse_target("a=red|blue", schema).positive == frozenset({0, 2})
    assert parse_target("c = 3", schema).positive == frozenset({3})
    # x has 4 bins of width 2.5 with midpoints 1.25, 3.75, 6.25, 8.75
    assert parse_target("x>=5", schema).positive == frozenset({2, 3})
    assert parse_target("x<3.75", schema).positive == frozenset({0})
    assert parse_target("x=7", schema).positive == frozenset({2})
    assert parse_alphas("3, 2,2") == (2, 3)
    assert parse_target("a", schema) == parse_target("a=blue", schema)   # a column alone: its last category
