"""`inspect --audit` and `evaluate --audit` cite a saved `privbayes audit --json` run beside the
guarantee (docs/privacy-assurance.md, "The tight self-audit"); the audit file is hostile input like
any other: bounded, every field checked, the verdict recomputed from its numbers."""

import json

import numpy as np
import pandas as pd
import pytest
from helpers import run_cli

from privbayes.audit.result import cite_audit
from privbayes.cli import main
from privbayes.core.errors import InputError

SCHEMA = ("attributes:\n"
          "  - {name: a, kind: categorical, categories: [x, y, z]}\n"
          "  - {name: b, kind: binary}\n")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    """Data, a schema, a model and a real audit file of the noisy count."""
    w = tmp_path_factory.mktemp("cite")
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.choice(list("xyz"), 60), "b": rng.integers(0, 2, 60)}).to_csv(w / "d.csv", index=False)
    (w / "s.yaml").write_text(SCHEMA)
    assert main(["fit", str(w / "d.csv"), "--schema", str(w / "s.yaml"), "--epsilon", "1", "--seed", "1",
                 "-o", str(w / "m.json")]) == 0
    assert main(["sample", str(w / "m.json"), "-n", "60", "--seed", "1", "-o", str(w / "synth.csv")]) == 0
    assert main(["audit", "--method", "noisy-count", "--epsilon", "1", "--runs", "500", "--json",
                 str(w / "audit.json")]) == 0
    return w


def test_inspect_cites_the_audit_in_text_and_json(ws, capsys):
    assert main(["inspect", str(ws / "m.json"), "--audit", str(ws / "audit.json")]) == 0
    text = capsys.readouterr().out
    lower = json.loads((ws / "audit.json").read_text())["epsilon_lower"]
    assert f"empirical lower bound {lower:.3f} on the true ε against the claimed 1" in text
    assert "consistent with the claim" in text
    assert main(["inspect", str(ws / "m.json"), "--json", "--audit", str(ws / "audit.json")]) == 0
    assert "noisy-count" in json.loads(capsys.readouterr().out)["audit"]


def test_evaluate_cites_the_audit_in_the_terminal_the_json_and_the_report(ws, capsys):
    out, page = ws / "e.json", ws / "r.html"
    assert main(["evaluate", str(ws / "d.csv"), str(ws / "synth.csv"), "--schema", str(ws / "s.yaml"),
                 "--model", str(ws / "m.json"), "--audit", str(ws / "audit.json"), "--no-classifier",
                 "--json", str(out), "--report", str(page)]) == 0
    assert "self-audit of the implementation (noisy-count" in capsys.readouterr().out
    assert "self-audit of the implementation" in json.loads(out.read_text())["privacy"]["audit"]
    assert "self-audit of the implementation" in page.read_text()


def test_the_verdict_is_recomputed_from_the_numbers_not_read(ws, tmp_path):
    document = json.loads((ws / "audit.json").read_text()) | {"epsilon_lower": 1.5, "verdict": "consistent"}
    (tmp_path / "a.json").write_text(json.dumps(document))
    line, refuted = cite_audit(str(tmp_path / "a.json"))
    assert refuted and "VIOLATION" in line


@pytest.mark.parametrize("change", [{"epsilon": float("nan")}, {"epsilon": True}, {"epsilon": -1},
                                    {"confidence": 1.5}, {"runs_per_table": 2.5}, {"subject": "x" * 201},
                                    {"subject": None}, {"epsilon_lower": "0.9"}])
def test_a_hostile_audit_file_is_refused_in_one_line(ws, tmp_path, capsys, change):
    document = json.loads((ws / "audit.json").read_text()) | change
    (tmp_path / "a.json").write_text(json.dumps(document, allow_nan=True))
    with pytest.raises(InputError, match="audit"):
        cite_audit(str(tmp_path / "a.json"))
    code, err = run_cli(["inspect", str(ws / "m.json"), "--audit", str(tmp_path / "a.json")], capsys)
    assert code != 0 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_missing_audit_file_is_refused_before_evaluate_reads_anything(ws, tmp_path, capsys):
    code, err = run_cli(["evaluate", str(tmp_path / "absent.csv"), str(ws / "synth.csv"), "--schema",
                         str(ws / "s.yaml"), "--audit", str(tmp_path / "none.json")], capsys)
    assert code != 0 and "none.json" in err and "absent.csv" not in err
