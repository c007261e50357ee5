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


def _groups(text: str) -> dict[str, str]:
    """``--help`` output (unwrapped) → {group title: its text}."""
    titles = ["options:", "common parameters", "--method adaptive (the default):", "--method privbayes:",
              "--method sa-privbayes:", "--method mrf:", "--method nbc:"]
    found = sorted((text.index(t), t) for t in titles if t in text)
    return {t: text[i:(found[k + 1][0] if k + 1 < len(found) else len(text))] for k, (i, t) in enumerate(found)}


def test_fit_flags_are_derived_from_each_methods_declarations():
    import inspect

    from privbayes.cli.arguments import flags, method_parameters
    from privbayes.synthesizers.registry import METHODS

    declared = method_parameters()
    assert set(declared) == set(METHODS)
    for name, method in METHODS.items():
        signature = inspect.signature(method.estimator_class()).parameters
        # every keyword of the estimator is declared, and every declared flag is a keyword (progress, cgm: no flag)
        assert {p.name for p in declared[name]} == set(signature) - {"progress", "cgm"}, name
        for p in declared[name]:
            shared = flags()[p.name]  # one flag per name: methods sharing a name share its flag and parser
            assert (p.cli_flag, p.check.cli, p.nargs) == (shared.cli_flag, shared.check.cli, shared.nargs), p.name
    assert flags()["random_state"].cli_flag == "--seed" and flags()["class_name"].cli_flag == "--class"


def test_declared_choices_are_the_registries():
    from privbayes.bayesnet.registry import SCORES
    from privbayes.methods.mrf.cliques import ALGORITHMS
    from privbayes.methods.mrf.parameters import ESTIMATIONS
    from privbayes.methods.nbc.breach import CONDITIONS
    from privbayes.methods.nbc.parameters import CONDITIONS as DECLARED_CONDITIONS
    from privbayes.methods.privbayes.parameters import ENCODINGS
    from privbayes.methods.privbayes.parameters import SCORES as DECLARED_SCORES
    from privbayes.privacy.neighbours import RELATIONS
    from privbayes.schema.encoding import ENCODINGS as ALL_ENCODINGS
    from privbayes.synthesizers.parameters import NEIGHBOURS_CHOICES

    assert DECLARED_SCORES == tuple(SCORES) and ENCODINGS == ALL_ENCODINGS and ESTIMATIONS == tuple(ALGORITHMS)
    assert DECLARED_CONDITIONS == tuple(CONDITIONS) and NEIGHBOURS_CHOICES == tuple(RELATIONS)


def test_fit_help_imports_no_method(capsys):
    import subprocess
    import sys

    code = ("import sys; from privbayes.cli import main\ntry: main(['fit', '--help'])\nexcept SystemExit: pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'pandas')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]")  # the declarations are read, no estimator, numpy or pandas


def test_fit_help_lists_common_options_first_then_one_group_per_method(capsys):
    groups = _groups(_help(["fit", "--help"], capsys))
    assert list(groups) == ["options:", "common parameters", "--method adaptive (the default):",
                            "--method privbayes:", "--method sa-privbayes:", "--method mrf:", "--method nbc:"]
    assert "--epsilon EPSILON" in groups["common parameters"] and "--seed SEED" in groups["common parameters"]
    assert "--rounds ROUNDS" in groups["--method adaptive (the default):"]
    assert "--theta THETA" in groups["--method privbayes:"]
    assert "--rounds-theta" in groups["--method adaptive (the default):"]
    assert "also --degree, --beta (listed above)" in groups["--method sa-privbayes:"]
    assert "--cliques" in groups["--method mrf:"] and "--class COLUMN" in groups["--method nbc:"]


@pytest.mark.parametrize("method, own, other", [("privbayes", "--encoding", "--rounds"),
                                                ("sa-privbayes", "--screening-share", "--neighbours"),
                                                ("mrf", "--cliques", "--beta"), ("nbc", "--gamma", "--epsilon"),
                                                ("adaptive", "--joint", "--l2")])
def test_fit_method_help_lists_only_the_common_options_and_that_methods(capsys, method, own, other):
    for argv in (["fit", "--method", method, "--help"], ["fit", "d.csv", f"--method={method}", "-h"]):
        text = _help(argv, capsys)
        assert own in text and other not in text and "--schema" in text and "--dry-run" in text
        assert [t for t in _groups(text) if t.startswith("--method ")] == [
            f"--method {method}" + (" (the default):" if method == "adaptive" else ":")]


def test_every_flag_still_parses_and_another_methods_flag_is_refused_naming_it(table, capsys):
    base = ["fit", str(table / "d.csv"), "--schema", str(table / "s.yaml"), "--epsilon", "1", "--dry-run"]
    assert main([*base, "--method", "privbayes", "--theta", "5", "--score", "R"]) == 0
    assert main([*base, "--method", "privbayes", "--rounds", "3"]) == 2
    assert "--rounds does not apply to --method privbayes" in capsys.readouterr().err
