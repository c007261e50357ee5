"""The command line end to end on a small table: fit → inspect → sample, and one-line errors."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from privbayes.cli import main


@pytest.fixture
def workspace(tmp_path):
    rng = np.random.default_rng(0)
    n = 600
    a = rng.integers(0, 3, n)
    frame = pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.8, a % 2, 1 - a % 2), "x": rng.uniform(0, 10, n)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "schema.yaml").write_text(
        "attributes:\n"
        "  - {name: a, kind: categorical, categories: [0, 1, 2]}\n"
        "  - {name: b, kind: binary}\n"
        "  - {name: x, kind: numeric, lower: 0, upper: 10, bins: 4}\n")
    return tmp_path


def test_fit_inspect_sample(workspace, capsys):
    w = workspace
    assert main(["fit", "--method", "privbayes", str(w / "data.csv"), "--schema", str(w / "schema.yaml"), "--epsilon",
                 "1",
                 "--seed", "1", "-o", str(w / "m.json")]) == 0
    assert main(["inspect", str(w / "m.json")]) == 0
    out = capsys.readouterr().out
    assert "ledger:" in out and "network step 1/2" in out and "conditional 3/3" in out
    assert main(["sample", str(w / "m.json"), "-n", "123", "-o", str(w / "s.parquet"), "--seed", "2"]) == 0
    synthetic = pd.read_parquet(w / "s.parquet")
    assert synthetic.shape == (123, 3) and synthetic["x"].between(0, 10).all()


def test_fit_under_add_remove_neighbours(workspace, capsys):
    w = workspace
    assert main(["fit", "--method", "privbayes", str(w / "data.csv"), "--schema", str(w / "schema.yaml"), "--epsilon",
                 "1",
                 "--neighbours", "add-remove", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "n is private and nothing has been read" in out and "n =" not in out
    assert main(["fit", "--method", "privbayes", str(w / "data.csv"), "--schema", str(w / "schema.yaml"), "--epsilon",
                 "1",
                 "--neighbours", "add-remove", "--seed", "1", "-o", str(w / "m.json")]) == 0
    assert main(["inspect", str(w / "m.json")]) == 0
    out = capsys.readouterr().out
    assert "add or remove one tuple" in out and "count n" in out and "(a noisy count)" in out
    (w / "empty.csv").write_text("a,b,x\n")  # no rows: a neighbour of one-row tables, so it must fit too
    assert main(["fit", "--method", "privbayes", str(w / "empty.csv"), "--schema", str(w / "schema.yaml"),
                 "--epsilon", "1",
                 "--neighbours", "add-remove", "-o", str(w / "e.json")]) == 0
    code = main(["fit", "--method", "privbayes", str(w / "data.csv"), "--schema", str(w / "schema.yaml"), "--epsilon",
                 "1",
                 "--neighbours", "add-remove", "--score", "I", "-o", str(w / "x.json")])
    assert code == 2 and "use score R" in capsys.readouterr().err and not (w / "x.json").exists()
    code = main(["fit", "--method", "privbayes", str(w / "data.csv"), "--schema", str(w / "schema.yaml"), "--epsilon",
                 "1",
                 "--method", "sa-privbayes", "--neighbours", "add-remove", "-o", str(w / "x.json")])
    assert code == 2 and "--neighbours does not apply to --method sa-privbayes" in capsys.readouterr().err


def test_fit_reads_the_authors_dat_and_domain_files(workspace, capsys):
    """The papers' release format: a headerless .dat file is read with its .domain schema;
    without a schema it is refused with a one-line error and no model file."""
    w = workspace
    frame = pd.read_csv(w / "data.csv")
    frame.to_csv(w / "data.dat", sep=" ", header=False, index=False)
    (w / "data.domain").write_text("D 0 1 2\nD 0 1\nC 0 10\n")
    assert main(["fit", "--method", "privbayes", str(w / "data.dat"), "--schema", str(w / "data.domain"), "--epsilon",
                 "1",
                 "--seed", "3", "-o", str(w / "dat.json")]) == 0
    assert main(["sample", str(w / "dat.json"), "-n", "50", "-o", str(w / "s.csv"), "--seed", "4"]) == 0
    assert pd.read_csv(w / "s.csv").shape == (50, 3)
    capsys.readouterr()
    assert main(["fit", "--method", "privbayes", str(w / "data.dat"), "--infer-schema", "--epsilon", "1", "-o",
                 str(w / "x.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "a .dat file has no header" in err[-1] and not (w / "x.json").exists()


def test_fit_without_schema_is_refused_and_infer_is_flagged(workspace, capsys):
    w = workspace
    assert main(["fit", "--method", "privbayes", str(w / "data.csv"), "--epsilon", "1", "-o", str(w / "m.json")]) == 2
    assert "fit needs --schema" in capsys.readouterr().err
    assert not (w / "m.json").exists()
    assert main(["fit", "--method", "privbayes", str(w / "data.csv"), "--infer-schema", "--epsilon", "1", "-o",
                 str(w / "m.json")]) == 0
    assert "NOT covered by epsilon" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--epsilon", "0"], "--epsilon (0.0) must be a finite number > 0"),
    (["--epsilon", "nan"], "argument --epsilon: expected a finite number, got 'nan'"),
    (["--epsilon", "1", "--beta", "1"], "--beta ('1') must be in (0, 1)"),
    (["--epsilon", "1", "--theta", "-2"], "--theta (-2.0) must be a finite number > 0"),
])
def test_bad_parameters_are_one_line_errors(workspace, capsys, args, message):
    w = workspace
    try:
        code = main(["fit", "--method", "privbayes", str(w / "data.csv"), "--schema", str(w / "schema.yaml"), *args,
                     "-o", str(w / "m.json")])
    except SystemExit as usage:  # argparse's own errors: one line too (cli._Parser)
        code = usage.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (w / "m.json").exists()


def test_no_traceback_for_a_missing_file(tmp_path):
    result = subprocess.run([sys.executable, "-m", "privbayes.cli", "sample", str(tmp_path / "nope.json"), "-n", "5",
                             "-o", str(tmp_path / "o.csv")], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip() == f"privbayes: error: {tmp_path / 'nope.json'}: no such model file"
    assert not (tmp_path / "o.csv").exists()


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path, capsys):
    from privbayes.cli import main

    frame = pd.DataFrame({"a": [0, 1, 2, 1] * 25, "b": [0, 1, 1, 0] * 25})
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "s.yaml").write_text("attributes:\n- {name: a, kind: categorical, categories: [0, 1, 2]}\n"
                                     "- {name: b, kind: binary}\n")
    assert main(["fit", "--method", "privbayes", str(tmp_path / "d.csv"), "--schema", str(tmp_path / "s.yaml"),
                 "--epsilon", "0.5",
                 "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "n = 100, public" in out and "1 × exponential at ε = 0.15" in out
    assert "2 × discrete Laplace at ε = 0.175" in out and "total ε = 0.5 of 0.5" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "s.yaml"]


def test_the_adaptive_settings_have_flags_and_the_plan_shows_them(tmp_path, capsys):
    frame = pd.DataFrame({c: [0, 1, 1, 0] * 2500 for c in "abcdef"})  # Lemma 4.8's k is 5 at this n and ε
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "s.yaml").write_text("attributes:\n" + "".join(f"- {{name: {c}, kind: binary}}\n" for c in "abcdef"))
    base = ["fit", str(tmp_path / "d.csv"), "--schema", str(tmp_path / "s.yaml"), "--epsilon", "1", "--dry-run"]
    assert main(base) == 0
    out = capsys.readouterr().out  # binary data: joint first tables, 3-way candidates, permute-and-flip
    assert "init = oneway" in out and "marginal degree = 3" in out and "permute-and-flip at" in out
    assert main(base + ["--selection", "exponential", "--no-joint", "--marginal-degree", "2"]) == 0
    out = capsys.readouterr().out
    assert "exponential at" in out and "permute-and-flip" not in out and "marginal degree = 2" in out
    assert "1-way marginal 1/6" in out and "first marginal" not in out
    assert main(base + ["--init", "network"]) == 0
    assert "network degree = 5" in capsys.readouterr().out
    assert main(base + ["--init", "network", "--max-network-degree", "1"]) == 0
    assert "network degree = 1" in capsys.readouterr().out
    assert main(base + ["--method", "privbayes", "--joint"]) == 2
    assert "--joint does not apply to --method privbayes" in capsys.readouterr().err
    assert main(base + ["--degree", "2"]) == 2  # the flag adaptive had before the rename names the new one
    assert "--degree does not apply to --method adaptive (the default; --method privbayes for PrivBayes) (renamed " \
           "--marginal-degree)" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "s.yaml"]


def test_a_closed_pipe_is_not_an_error(tmp_path):
    # `privbayes inspect model.json | head -0`: the reader leaves early; no error line, exit 0.
    frame = pd.DataFrame({"a": [0, 1, 2, 1] * 25, "b": [0, 1, 1, 0] * 25})
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "s.yaml").write_text("attributes:\n- {name: a, kind: categorical, categories: [0, 1, 2]}\n"
                                     "- {name: b, kind: binary}\n")
    assert main(["fit", "--method", "privbayes", str(tmp_path / "d.csv"), "--schema", str(tmp_path / "s.yaml"),
                 "--epsilon", "1",
                 "-o", str(tmp_path / "m.json")]) == 0
    inspect = subprocess.Popen([sys.executable, "-m", "privbayes.cli", "inspect", str(tmp_path / "m.json")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    inspect.stdout.close()  # the reader goes away before the first line (the child is still importing)
    stderr = inspect.stderr.read().decode()
    inspect.stderr.close()
    assert inspect.wait() == 0 and "error" not in stderr
