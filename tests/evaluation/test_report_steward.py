"""The evaluation report as a data steward reads it (issue 29): verdict first with the privacy
caveats beside it, the structure drawn is the one listed (every registered method), readable bin
labels, a glossary line for every term, errors naming the file, ``--clip-synthetic``."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema, correlated_frame

from privbayes import AdaptiveMarginals, PrivateMRF, PrivBayes, SAPrivBayes
from privbayes.bayesnet.network import APPair, Network
from privbayes.cli import main
from privbayes.evaluation.caveats import DRAFT_LINE, privacy_summary
from privbayes.evaluation.glossary import TERMS
from privbayes.evaluation.labels import edge_decimals, integer_ranges, readable_labels
from privbayes.evaluation.structure import model_structure
from privbayes.methods.nbc.estimator import SafeNBC
from privbayes.privacy.report import SEEDED_CAVEAT
from privbayes.schema import Attribute, Schema
from privbayes.synthesizers.registry import METHODS

SIZES = [3, 4, 2, 5]
SCHEMA = categorical_schema(SIZES)
FRAME = correlated_frame(SIZES, 600, seed=1)
CASES = {
    "privbayes": lambda: PrivBayes(1.0, random_state=3),
    "sa-privbayes": lambda: SAPrivBayes(1.0, random_state=3),
    "mrf": lambda: PrivateMRF([("a0", "a1"), ("a1", "a2", "a3")], 1.0, random_state=3),
    "nbc": lambda: SafeNBC("a3", gamma=10**14),   # identity case: the synthetic table has the table's size
    "adaptive": lambda: AdaptiveMarginals(1.0, random_state=3),
}


class Page(HTMLParser):
    """Element ids in document order, image alternative texts, link targets, and the text inside
    elements of given ids."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.alts: list[str] = []
        self.links: list[str] = []
        self.text: dict[str, str] = {}
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(values["id"])
        if tag == "img":
            self.alts.append(values.get("alt") or "")
        if tag == "a" and (values.get("href") or "").startswith("#"):
            self.links.append(values["href"][1:])
        if tag not in ("img", "meta", "br"):
            self._open.append((tag, values.get("id")))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        for _, ident in self._open:
            if ident:
                self.text[ident] = self.text.get(ident, "") + data


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per registered method: a model file, a synthetic table sampled from it, the report of
    ``evaluate --model --report`` and what it printed; data.csv, schema.json."""
    folder = tmp_path_factory.mktemp("methods")
    FRAME.to_csv(folder / "data.csv", index=False)
    (folder / "schema.json").write_text(json.dumps(SCHEMA.to_dict()))
    for name, make in CASES.items():
        model = make().fit(FRAME, SCHEMA).released_
        model.save(folder / f"{name}.json")
        model.sample(random_state=4).to_csv(folder / f"{name}.csv", index=False)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = main(["evaluate", str(folder / "data.csv"), str(folder / f"{name}.csv"), "--model",
                         str(folder / f"{name}.json"), "--report", str(folder / f"{name}.html")])
        assert code == 0, printed.getvalue()
        (folder / f"{name}.out").write_text(printed.getvalue())
    return {"folder": folder}


def test_every_registered_method_has_a_case() -> None:
    assert {type(make()).method for make in CASES.values()} == set(METHODS)


def _edges_in_listing(kind: str, lines: list[str], nodes: list[str]) -> set[tuple[str, str]]:
    """The edges a structure's listing names, read back from its text."""
    edges = set()
    for line in lines:
        if kind == "network":
            match = re.fullmatch(r"\d+\. (.+) <- (.+)", line)
            assert match, line
            child, parents = match[1], match[2]
            edges |= {(re.sub(r"@\d+$", "", p), child) for p in parents.split(", ") if parents != "(none)"}
        elif kind == "cliques":
            members = re.fullmatch(r"clique (.+) \(\d+ cells\)", line)[1].split(" - ")
            edges |= {tuple(sorted((a, b))) for i, a in enumerate(members) for b in members[i + 1:]}
        else:
            name = line.split(":")[0]
            if name in nodes[1:]:
                edges.add((nodes[0], name))
    return edges


def _edges_in_picture(alt: str) -> set[tuple[str, str]]:
    _, _, body = alt.partition(": ")
    edges = set()
    for part in body.split("; "):
        if " → " in part:
            a, b = part.split(" → ")
            edges.add((a, b.split(" @")[0]))
        elif " – " in part:
            edges.add(tuple(sorted(part.split(" – "))))
    return edges


@pytest.mark.parametrize("method", sorted(CASES))
def test_evaluate_model_of_every_method_draws_what_it_lists(method: str, released: dict[str, Path]) -> None:
    folder = released["folder"]
    out = (folder / f"{method}.out").read_text()
    page = parse(folder / f"{method}.html")
    structure = model_structure(__import__("privbayes").load(folder / f"{method}.json"))
    listed = page.text["structure"].strip().split("\n")
    assert listed == list(structure.lines)
    drawn = _edges_in_picture(page.alts[-1])
    assert page.alts[-1].startswith(structure.title) and drawn, page.alts[-1]
    assert drawn == _edges_in_listing(structure.kind, listed, list(structure.nodes))
    assert page.ids.index("verdict") < page.ids.index("privacy") < page.ids.index("numbers")
    guarantee = page.text["privacy"]
    if METHODS[method].differentially_private:
        assert "differential privacy" in guarantee and "ε = 1 spent of 1" in guarantee and SEEDED_CAVEAT in guarantee
    else:
        assert page.text["privacy"].lstrip().startswith("Privacy of the synthetic tableNOT differentially private")
    assert re.search(r"^privacy: ", out, re.MULTILINE)


def test_the_network_drawn_is_the_learned_one_as_listed(released: dict[str, Path]) -> None:
    """A model sampled through another network (consistent estimation) shows the network it learned,
    the one ``describe`` (and ``privbayes inspect``) lists."""
    import privbayes

    model = privbayes.load(released["folder"] / "privbayes.json")
    order = [pair.child for pair in model.network.pairs][::-1]   # the sampling order reversed: a chain
    learned = Network((APPair(order[0]),) + tuple(APPair(c, ((p, 0),)) for p, c in itertools.pairwise(order)))
    assert learned.pairs[0].child != model.network.pairs[0].child
    shown = model_structure(dataclasses.replace(model, learned_network=learned))
    names = [a.name for a in model.encoding.attributes]
    assert shown.nodes == tuple(names[c] for c in order) and shown.roots == (0,)
    assert [line.split(". ", 1)[1] for line in shown.lines] == \
        dataclasses.replace(model, learned_network=learned).describe()
    assert {(shown.nodes[e.source], shown.nodes[e.target]) for e in shown.edges} == \
        {(names[p], names[c]) for p, c in itertools.pairwise(order)}
    assert "junction-tree network" in shown.legend


def test_inferred_domain_caveat_sits_beside_the_verdict(released: dict[str, Path],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = released["folder"]
    draft = dict(SCHEMA.to_dict(), inferred=True)
    (folder / "draft.json").write_text(json.dumps(draft))
    report = folder / "draft.html"
    assert main(["evaluate", str(folder / "data.csv"), str(folder / "privbayes.csv"), "--schema",
                 str(folder / "draft.json"), "--report", str(report)]) == 0
    out = capsys.readouterr().out
    verdict_at = out.index("\nverdict: ")
    assert out.index(f"  caveat: {DRAFT_LINE}") > verdict_at and "privacy: not shown" in out[verdict_at:]
    page = parse(report)
    assert DRAFT_LINE in page.text["privacy"] and page.ids[:2] == ["verdict", "privacy"]


def test_every_term_linked_has_its_glossary_line(released: dict[str, Path]) -> None:
    for method in ("privbayes", "mrf", "nbc"):
        page = parse(released["folder"] / f"{method}.html")
        assert page.links and set(page.links) <= set(page.ids), method
        shown = {i[2:] for i in page.ids if i.startswith("g-")}
        expected = {"verdict", "tvd", "marginal", "bin"} | {
            "privbayes": {"epsilon", "sensitivity", "ap", "ledger"}, "mrf": {"epsilon", "clique"},
            "nbc": {"nbc"}}[method]
        assert expected <= shown, (method, shown)
        assert not {"ap", "clique", "nbc"} - expected & shown, (method, shown)
    assert len({t.key for t in TERMS}) == len(TERMS)


def test_privacy_summary_levels(released: dict[str, Path]) -> None:
    import privbayes

    model = privbayes.load(released["folder"] / "privbayes.json")
    summary = privacy_summary(model, SCHEMA)
    assert summary.level == "warn" and ("bad", SEEDED_CAVEAT) in summary.caveats
    nbc = privacy_summary(privbayes.load(released["folder"] / "nbc.json"), SCHEMA)
    assert nbc.level == "bad" and "NOT" in nbc.guarantee
    assert privacy_summary(None, dataclasses.replace(SCHEMA, inferred=True)).caveats[0] == ("bad", DRAFT_LINE)


# --- readable labels ----------------------------------------------------------------------------

INTEGER_ATTRIBUTES = [Attribute("age", "numeric", lower=17, upper=90, bins=16, integer=True),
                      Attribute("w", "numeric", lower=13000, upper=1500000, bins=16, integer=True),
                      Attribute("g", "numeric", lower=110, upper=100000, bins=3, integer=True, scale="log",
                                special_values=(0,)),
                      Attribute("e", "numeric", edges=(-5, -1, 0, 7, 8), integer=True),
                      Attribute("h", "numeric", lower=1, upper=99, bins=13, integer=True, special_values=(40, 50))]


@pytest.mark.parametrize("attr", INTEGER_ATTRIBUTES, ids=lambda a: a.name)
def test_integer_labels_name_exactly_the_integers_counted_in_each_bin(attr: Attribute) -> None:
    ranges = integer_ranges(attr)
    assert ranges is not None
    values = np.arange(math.ceil(attr.lower), math.floor(attr.upper) + 1, dtype=np.float64)
    codes = attr.bin_codes(values)
    for k, (lo, hi) in enumerate(ranges):
        assert list(values[codes == k].astype(int)) == list(range(lo, hi + 1)), (attr.name, k)
    labels = readable_labels(attr)
    assert len(labels) == attr.size and not any("e+" in label or "." in label for label in labels)
    assert all(re.fullmatch(r"(−?[\d,]+( to −?[\d,]+|–[\d,]+)?|= −?[\d,]+)", label) for label in labels), labels


def test_labels_read_as_people_write_them() -> None:
    assert readable_labels(INTEGER_ATTRIBUTES[0])[:2] == ("17–21", "22–26")
    assert readable_labels(INTEGER_ATTRIBUTES[1])[0] == "13,000–105,937"
    assert readable_labels(INTEGER_ATTRIBUTES[3]) == ("−5 to −2", "−1", "0–6", "7–8")
    assert readable_labels(Attribute("x", "numeric", lower=0, upper=1, bins=4)) == (
        "[0, 0.25)", "[0.25, 0.5)", "[0.5, 0.75)", "[0.75, 1]")
    assert readable_labels(Attribute("x", "numeric", lower=13000, upper=1500000, bins=2)) == (
        "[13,000, 756,500)", "[756,500, 1,500,000]")
    assert readable_labels(Attribute("x", "numeric", lower=0, upper=1, bins=3, missing="category",
                                     special_values=(0.125,))) == (
        "[0, 0.333)", "[0.333, 0.667)", "[0.667, 1]", "= 0.125", "<missing>")
    assert readable_labels(Attribute("d", "date", lower="2015-01-01", upper="2016-12-31", granularity="month",
                                     bins=4))[:2] == ("2015-01 to 2015-06", "2015-07 to 2015-12")


@pytest.mark.parametrize("seed", range(20))
def test_rounded_edges_stay_within_one_percent_of_a_bin(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lower = float(rng.uniform(-1e4, 1e4)) * 10.0 ** int(rng.integers(-4, 3))
    edges = lower + np.cumsum(np.concatenate([[0.0], rng.uniform(0.1, 5.0, int(rng.integers(1, 20)))])) \
        * 10.0 ** int(rng.integers(-3, 4))
    decimals = edge_decimals(edges)
    width = float(np.min(np.diff(edges)))
    assert np.max(np.abs(np.round(edges, decimals) - edges)) <= 0.01 * width
    assert decimals == 0 or np.max(np.abs(np.round(edges, decimals - 1) - edges)) > 0.01 * width


# --- which file, and clipping --------------------------------------------------------------------

def test_out_of_bounds_synthetic_values_name_the_file_or_are_clipped(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    schema = Schema((Attribute("x", "numeric", lower=0, upper=10, bins=4), Attribute("c", "binary"),
                     Attribute("d", "date", lower="2020-01-01", upper="2020-12-31", bins=4)))
    (tmp_path / "s.json").write_text(json.dumps(schema.to_dict()))
    rng = np.random.default_rng(0)
    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 366, 200), unit="D")
    late = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 400, 200), unit="D")
    pd.DataFrame({"x": rng.uniform(0, 10, 200).round(2), "c": rng.integers(0, 2, 200),
                  "d": days.strftime("%Y-%m-%d")}).to_csv(tmp_path / "real.csv", index=False)
    pd.DataFrame({"x": rng.uniform(-3, 13, 200).round(2), "c": rng.integers(0, 2, 200),
                  "d": late.strftime("%Y-%m-%d")}).to_csv(tmp_path / "other.csv", index=False)
    args = ["evaluate", str(tmp_path / "real.csv"), str(tmp_path / "other.csv"), "--schema", str(tmp_path / "s.json"),
            "--no-classifier"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"privbayes: error: {tmp_path / 'other.csv'}: column 'x': a value is outside") and \
        err.count("\n") == 1
    assert main([*args, "--clip-synthetic"]) == 0
    out = capsys.readouterr().out
    assert "clipped to the nearest bound (--clip-synthetic)" in out and "verdict: " in out
