"""The command line's words agree with what it does: degrees, help texts, what --dry-run reads."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from privbayes.cli import main


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 800)
    frame = pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, 800)) % 2, "c": (a + rng.integers(0, 2, 800)) % 3,
                          "d": rng.integers(0, 2, 800)})
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "s.yaml").write_text("attributes:\n- {name: a, kind: categorical, categories: [0, 1, 2]}\n"
                                     "- {name: b, kind: binary}\n"
                                     "- {name: c, kind: categorical, categories: [0, 1, 2]}\n"
                                     "- {name: d, kind: binary}\n")
    return tmp_path


def _help(argv, capsys) -> str:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines at the terminal's width


def test_fit_and_inspect_name_the_network_degree_and_the_plans_marginal_degree(table, capsys):
    assert main(["fit", str(table / "d.csv"), "--schema", str(table / "s.yaml"), "--epsilon", "4", "--seed", "1",
                 "-o", str(table / "m.json")]) == 0
    wrote = capsys.readouterr().out
    found = re.search(r"network degree (\d+) \(rounds chose among (\d)-way marginals: marginal degree = (\d)\)", wrote)
    assert found and found[2] == found[3], wrote
    assert main(["inspect", str(table / "m.json")]) == 0
    shown = capsys.readouterr().out
    assert f"marginal degree = {found[2]}" in shown and f"network degree {found[1]};" in shown
    assert "None" not in shown  # no 'score None' for a method without a score


def test_help_says_the_demo_and_the_default_run_adaptive_marginals(capsys):
    top = _help(["--help"], capsys)
    assert "adaptive marginals (the default method)" in top and "the default method on the bundled Adult" in top
    assert "demo run the default method (adaptive marginals) on the bundled Adult" in top and "PrivBayes on" not in top
    assert "Fit the default method (adaptive marginals;" in _help(["demo", "--help"], capsys)


def test_dry_run_says_it_reads_every_row_under_replace_one_and_refuses_what_the_fit_refuses(table, capsys):
    dry = ["fit", str(table / "d.csv"), "--schema", str(table / "s.yaml"), "--epsilon", "1", "--dry-run"]
    assert main(dry) == 0
    assert "every row read and validated to count it" in capsys.readouterr().out
    assert "reads only n" not in _help(["fit", "--help"], capsys)
    (table / "bad.csv").write_text((table / "d.csv").read_text() + "7,0,0,0\n")
    assert main([*dry[:1], str(table / "bad.csv"), *dry[2:]]) == 2
    assert "column 'a': a value is not one of the schema's 3 categories" in capsys.readouterr().err
    assert main([*dry[:1], str(table / "bad.csv"), *dry[2:], "--neighbours", "add-remove"]) == 0  # reads no data
    assert "nothing has been read" in capsys.readouterr().out
