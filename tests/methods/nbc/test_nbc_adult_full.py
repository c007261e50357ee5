"""Adult with the bundled schema, all 14 attributes (4.5·10^14 domain tuples): ``nbc check`` decides
NBC-equivalence exactly without enumerating the domain (issue 28) — SafetyTransform's output in
both orders, and tampered views with a real counterexample."""

from __future__ import annotations

import time
from fractions import Fraction
from importlib import resources

import pytest

from privbayes.cli import main
from privbayes.counting import open as open_table
from privbayes.methods.nbc.equivalence import check_equivalence
from privbayes.methods.nbc.safety import safety_transform
from privbayes.methods.nbc.views import NBCViews, views_from_table
from privbayes.schema.files import load_schema

DATA = resources.files("privbayes") / "data"


@pytest.fixture(scope="module")
def adult() -> NBCViews:
    with resources.as_file(DATA / "adult.csv.gz") as data, resources.as_file(DATA / "adult.yaml") as schema:
        return views_from_table(open_table(str(data), load_schema(str(schema))), "income")


def disagree(first: NBCViews, second: NBCViews, tup: tuple[int, ...], c: int, d: int) -> bool:
    return (first.score(tup, c) <= first.score(tup, d)) != (second.score(tup, c) <= second.score(tup, d))


@pytest.mark.parametrize("gamma", [Fraction(11, 10), Fraction(283)])
def test_the_whole_adult_domain_is_checked(adult, gamma):
    assert adult.n == 14 and adult.domain_size > 4 * 10**14
    published = safety_transform(adult, gamma).views
    start = time.perf_counter()
    verdict = check_equivalence(adult, published)
    assert verdict.equivalent and verdict.tuples == adult.domain_size
    assert verdict.nodes < 200 and time.perf_counter() - start < 60  # measured: 25 boxes, under 1 s
    assert check_equivalence(published, adult).equivalent  # Def. 2 is symmetric; so is the check


def test_tampered_adult_views_give_a_real_counterexample(adult):
    published = safety_transform(adult, Fraction(283)).views
    for factor in (Fraction(1000001, 1000000), Fraction(3, 2)):  # the later class made a little / a lot less likely
        tampered = published.with_counts([published.prior[0], int(published.prior[1] * factor)],
                                         [a.counts for a in published.attributes])
        verdict = check_equivalence(adult, tampered)
        assert not verdict.equivalent and disagree(adult, tampered, *verdict.counterexample)


def test_cli_check_on_the_bundled_schema(tmp_path, capsys):
    with resources.as_file(DATA / "adult.csv.gz") as data, resources.as_file(DATA / "adult.yaml") as schema:
        views = str(tmp_path / "v.json")
        assert main(["nbc", "publish", str(data), "--schema", str(schema), "--class", "income", "--gamma", "283",
                     "-o", views]) == 0
        assert main(["nbc", "check", views, str(data), "--schema", str(schema)]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("OK: NBC-equivalent on all 453000938127360 domain tuples")
