"""``evaluate`` names what an average hides: the column pairs that lost their relation and the columns
far off (terminal, JSON, report), with a sampling-noise tolerance; the default classifier target is
balanced; ``--json`` holds every printed number (docs/decisions.md, "Evaluate: lost pairs and the
default target")."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privbayes import PrivBayes
from privbayes.cli import main
from privbayes.counting import leaf_codes
from privbayes.evaluation.pairs import ColumnValue, Comparison, PairValue, compare, sampling_noise
from privbayes.evaluation.report import default_target
from privbayes.evaluation.verdict import References, verdict
from privbayes.schema import Attribute, Schema
from privbayes.schema.files import load_schema
from tests.helpers import categorical_schema, correlated_frame

SIZES = [3, 4, 2, 5, 3]
SHUFFLED = "a2"
ADULT = resources.files("privbayes") / "data"


@pytest.fixture(scope="module")
def shuffled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """real.csv (a chain: each column copies the previous one 70 % of the time) and synth.csv, the same
    rows with column a2 shuffled: exact 1-way marginals, a2 independent of everything."""
    w = tmp_path_factory.mktemp("lost")
    real = correlated_frame(SIZES, 3000, seed=0)
    real.to_csv(w / "real.csv", index=False)
    synth = real.copy()
    synth[SHUFFLED] = np.random.default_rng(1).permutation(synth[SHUFFLED].to_numpy())
    synth.to_csv(w / "synth.csv", index=False)
    (w / "schema.json").write_text(json.dumps(categorical_schema(SIZES).to_dict()))
    return w


def _run(w: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code = main(["evaluate", str(w / "real.csv"), str(w / "synth.csv"), "--schema", str(w / "schema.json"),
                 *extra])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def test_a_column_sampled_independently_is_named_in_the_terminal_the_json_and_the_report(
        shuffled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = shuffled
    out = _run(w, capsys, "--no-classifier", "--json", str(w / "lost.json"), "--report", str(w / "lost.html"))
    printed = set(re.findall(r"^  (a\d) × (a\d)\s+\d\.\d{4}", out, re.MULTILINE))
    assert {("a1", "a2"), ("a2", "a3")} <= printed  # a2's neighbours in the chain
    assert all(SHUFFLED in pair for pair in printed), printed  # the untouched pairs are identical
    assert re.search(r"^column pairs that lost their relation: \d of 10 ", out, re.MULTILINE)
    line = next(x for x in out.splitlines() if x.startswith("verdict: "))
    assert line.startswith(f"verdict: GOOD on average, but {len(printed)} of 10 column pairs lost their relation: ")
    assert "a1 × a2" in line and "a2 × a3" in line
    document = json.loads((w / "lost.json").read_text())
    assert {tuple(p) for p in document["lost_pairs"]} == printed
    assert document["verdict"] == line.removeprefix("verdict: ")
    assert sum(p["lost"] for p in document["pairs"]) == len(printed) and document["far_columns"] == []
    page = (w / "lost.html").read_text(encoding="utf-8")
    lost = page[page.index('<div id="lost">'):]
    assert page.index('<div id="lost">') < page.index('id="numbers"')  # at the top, before the numbers
    assert all(f"{a} × {b}" in lost[:lost.index("</div>")] for a, b in printed)
    assert 'class="verdict mixed"' in page and 'id="g-lost"' in page


def test_a_fit_without_parents_loses_the_chain_and_evaluate_says_so(shuffled: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """PrivBayes at degree 0 (no column has parents; ε = 100 so that noise is not the story)."""
    w = shuffled
    frame = pd.read_csv(w / "real.csv")
    model = PrivBayes(100.0, degree=0, random_state=1).fit(frame, categorical_schema(SIZES))
    model.save(w / "degree0.json")
    model.sample(3000, random_state=2).to_csv(w / "degree0.csv", index=False)
    code = main(["evaluate", str(w / "real.csv"), str(w / "degree0.csv"), "--model", str(w / "degree0.json"),
                 "--no-classifier", "--json", str(w / "degree0-eval.json")])
    out = capsys.readouterr().out
    assert code == 0, out
    chain = {(f"a{j}", f"a{j + 1}") for j in range(len(SIZES) - 1)}
    assert chain <= set(re.findall(r"^  (a\d) × (a\d)\s+\d\.\d{4}", out, re.MULTILINE)), out
    assert chain <= {tuple(p) for p in json.loads((w / "degree0-eval.json").read_text())["lost_pairs"]}
    line = next(x for x in out.splitlines() if x.startswith("verdict: "))
    assert not line.startswith("verdict: GOOD:") and "lost their relation" in line


def test_the_json_holds_every_printed_number(shuffled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sklearn")
    w = shuffled
    out = _run(w, capsys, "--json", str(w / "all.json"))
    doc = json.loads((w / "all.json").read_text())
    assert doc["format"] == "privbayes-evaluation" and doc["version"] == 1 and doc["private"] is False
    assert doc["real"]["rows"] == doc["synthetic"]["rows"] == 3000
    qa = re.findall(r"^  Q(\d+)\s+(\d\.\d{4})\s+\(([\d,]+) marginals\)$", out, re.MULTILINE)
    assert qa == [(str(m["alpha"]), f"{m['tvd']:.4f}", f"{m['count']:,}") for m in doc["marginals"]]
    for what in ("one_way", "two_way"):
        row = re.search(rf"^  {what[:3].replace('one', '1').replace('two', '2')}-way\s+(.+)$", out, re.MULTILINE)
        assert row is not None and row.group(1).split() == [f"{doc['references'][what][k]:.4f}"
                                                            for k in ("synthetic", "uniform", "independent")]
    columns = re.findall(r"^  (a\d)\s+(\w+)\s+(\d+)\s+(\d\.\d{4})$", out, re.MULTILINE)
    assert columns == [(c["name"], c["kind"], str(c["values"]), f"{c['tvd']:.4f}") for c in doc["columns"]]
    lost = re.findall(r"^  (a\d × a\d)\s+(\d\.\d{4})\s+(\d\.\d{4})\s+(\d\.\d{4})\s+(\d\.\d{4})$", out, re.MULTILINE)
    by_label = {" × ".join(p["columns"]): p for p in doc["pairs"]}
    assert lost and lost == [(label, *(f"{by_label[label][k]:.4f}" for k in ("tvd", "independent", "noise",
                                                                              "synthetic_noise")))
                             for label in (" × ".join(p) for p in doc["lost_pairs"])]
    svm = re.findall(r"^  (\S+=\S+)\s+(\d\.\d{3})/(\d\.\d{3})\s+(\d\.\d{4})\s+(\d\.\d{4})$", out, re.MULTILINE)
    assert svm == [(t["target"], f"{t['positive_real']:.3f}", f"{t['positive_synthetic']:.3f}",
                    f"{t['synthetic']:.4f}", f"{t['reference']:.4f}") for t in doc["classifier"]["targets"]]
    assert f"note: {doc['classifier']['default_target']}" in out
    assert f"verdict: {doc['verdict']}\n" in out and f"privacy: {doc['privacy']['guarantee']}" in out
    assert list(doc) == ["format", "version", "private", "real", "synthetic", "verdict", "references", "rules",
                         "lost_pairs", "far_columns", "marginals", "columns", "pairs", "numeric", "classifier",
                         "notes", "not_run", "privacy"]


def test_json_output_path_is_checked_before_any_work(shuffled: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = shuffled
    for bad, says in (("out.txt", "must end in .json"), ("no/out.json", "does not exist")):
        assert main(["evaluate", str(w / "real.csv"), str(w / "synth.csv"), "--schema", str(w / "schema.json"),
                     "--json", str(w / bad)]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, err
    assert not (w / "out.txt").exists()


def test_two_samples_of_the_same_data_flag_no_pair_and_no_column() -> None:
    """The noise tolerance: Adult split in two random halves (fixed seed), and two small samples of
    one chain distribution, where weak dependences sit at the noise level."""
    with resources.as_file(ADULT / "adult.yaml") as schema_path, resources.as_file(ADULT / "adult.csv.gz") as data:
        schema = load_schema(schema_path)
        codes = leaf_codes(data, schema)
    order = np.random.default_rng(7).permutation(codes.shape[0])
    half = codes.shape[0] // 2
    sizes = [a.size for a in schema.attributes]
    adult = compare(codes[order[:half]], codes[order[half:]], sizes, schema.names)
    assert adult.pairs is not None and len(adult.pairs) == 105
    assert adult.lost_pairs == () and adult.far_columns == ()
    assert max(p.tvd / p.noise for p in adult.pairs) < 1  # every pair below its noise, none at the edge of it
    small_schema = categorical_schema(SIZES)
    small = [leaf_codes(correlated_frame(SIZES, 400, seed=s), small_schema) for s in (11, 12)]
    chain = compare(small[0], small[1], SIZES, small_schema.names)
    assert chain.lost_pairs == () and chain.far_columns == ()
    assert "no column pair lost its relation" in verdict(References((0, 1, 0), (0, 1, 1)), (), chain)


def test_the_noise_bound_holds_for_random_samples() -> None:
    """sampling_noise bounds the TVD of two samples of one distribution (and of one sample against the
    distribution itself) with probability ≥ 0.95; measured on 400 draws each (fixed seed)."""
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(12))
    n, m, draws = 300, 200, 400
    both = [0.5 * np.abs(rng.multinomial(n, p) / n - rng.multinomial(m, p) / m).sum() for _ in range(draws)]
    alone = [0.5 * np.abs(rng.multinomial(m, p) / m - p).sum() for _ in range(draws)]
    assert np.mean(np.array(both) > sampling_noise(p, 1 / n + 1 / m, 1)) <= 0.05
    assert np.mean(np.array(alone) > sampling_noise(p, 1 / m, 1)) <= 0.05
    assert sampling_noise(p, 1 / m, 1) < sampling_noise(p, 1 / n + 1 / m, 1) < sampling_noise(p, 1 / n + 1 / m, 50)


def _pair(tvd: float, independent: float, noise: float = 0.01) -> PairValue:
    return PairValue(("x", "y"), tvd, 0.6, independent, noise, noise)


def test_a_good_average_cannot_hide_a_lost_pair() -> None:
    columns = (ColumnValue("x", 0.0, 0.3, 0.01), ColumnValue("y", 0.2, 0.3, 0.01))
    kept, lost = _pair(0.02, 0.30), _pair(0.295, 0.30)  # lost: within noise of the independent reference
    assert not kept.lost and lost.lost and not _pair(0.008, 0.0).lost and _pair(0.05, 0.0).lost
    assert not _pair(0.015, 0.008).lost  # no real relation (reference under the noise): only clearly worse counts
    good = References((0.1, 0.3, 0.0), (0.05, 0.6, 0.1))
    assert verdict(good, (), Comparison(columns[:1], (kept,))).startswith("GOOD: ")
    line = verdict(good, (), Comparison(columns, (kept, lost)))
    assert line.startswith("GOOD on average, but 1 of 2 column pairs lost their relation: ") and "x × y" in line
    assert line.endswith("; 1 column far off (1-way TVD > 0.05): y (0.200)")
    fair = verdict(References((0.1, 0.3, 0.0), (0.2, 0.6, 0.1)), (), Comparison(columns[:1], (lost,)))
    assert fair.startswith("FAIR: ") and fair.endswith("; 1 of 1 column pairs lost their relation: x × y")
    many = Comparison(columns[:1], tuple(PairValue((f"c{k}", "y"), 0.3, 0.6, 0.3, 0.01, 0.01) for k in range(5)))
    assert verdict(good, (), many).endswith("c0 × y, c1 × y, c2 × y (+2 more)")


def _table(shares: dict[str, list[int]]) -> tuple[Schema, np.ndarray]:
    schema = Schema(tuple(Attribute(name, "categorical", categories=tuple(f"v{k}" for k in range(len(counts))))
                          for name, counts in shares.items()))
    return schema, np.column_stack([np.repeat(np.arange(len(c)), c) for c in shares.values()])


def test_the_default_target_is_balanced_never_a_985_percent_majority() -> None:
    schema, codes = _table({"mid": [200, 300, 500], "rare": [960, 20, 20], "outcome": [985, 15]})
    target, why = default_target(schema, codes)
    assert target is not None and target.name == "mid=v2" and target.positive == frozenset({2})
    assert "real share 50.0%: the most balanced" in why and "majority over 95%" in why
    schema, codes = _table({"rare": [960, 20, 20], "outcome": [985, 15]})
    target, why = default_target(schema, codes)
    assert target is None and why.startswith("no default SVM target") and "--target to choose" in why
    schema, codes = _table({"first": [600, 400], "last": [400, 600]})  # a tie: the rarer side of the later column
    assert default_target(schema, codes)[0].name == "last=v0"  # type: ignore[union-attr]


def test_evaluate_says_which_default_target_and_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(5)
    n = 2000
    group = rng.integers(0, 2, n)
    frame = pd.DataFrame({"group": group, "score": np.where(rng.random(n) < 0.8, group, rng.integers(0, 3, n)),
                          "outcome": np.where(np.arange(n) < round(0.985 * n), 0, 1)})
    frame.to_csv(tmp_path / "real.csv", index=False)
    frame.sample(frac=1.0, random_state=1).to_csv(tmp_path / "synth.csv", index=False)
    schema = Schema((Attribute("group", "binary"), Attribute("score", "categorical", categories=(0, 1, 2)),
                     Attribute("outcome", "binary")))
    (tmp_path / "schema.json").write_text(json.dumps(schema.to_dict()))
    out = _run(tmp_path, capsys)
    assert re.search(r"^note: SVM target by default: group=\S+ \(real share \d\d\.\d%: the most balanced", out,
                     re.MULTILINE), out
    assert not re.search(r"^  outcome=", out, re.MULTILINE)
