"""The release contract's one fit template (docs/architecture.md, "The release contract") and the release
record every released value carries (:mod:`privbayes.privacy.record`).

A toy method (one noisy histogram) shows the template's steps in order: the noisy count where n is private,
the plan at that count, the memory guard before any table, the method's measure-and-estimate step, the plan =
ledger check, the shared caveats and the record.  The registered methods' cases (``test_contract.CASES``)
show the guard inside the library for every DP method, and the record behind every privacy report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from test_contract import CASES, FRAME, SCHEMA

import privbayes
from privbayes.core.errors import InferredDomainWarning, InputError
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import COUNT_STEP, laplace_counts
from privbayes.privacy.neighbours import Neighbours, neighbours
from privbayes.privacy.plan import BudgetPlan, PlanMismatchError, PlannedRelease
from privbayes.privacy.record import ReleaseRecord
from privbayes.privacy.report import CORE, READ_FROM_DATA_CAVEAT, SEEDED_CAVEAT
from privbayes.schema import Schema
from privbayes.synthesizers.contract import FitContext, Measured, PrivateEstimator
from privbayes.synthesizers.costs import CostEstimate

TOY_CAVEAT = "a toy release"


@dataclass(frozen=True)
class ToySettings:
    epsilon: Fraction
    relation: Neighbours


@dataclass(frozen=True)
class ToyRelease:
    schema: Schema
    record: ReleaseRecord
    histogram: np.ndarray

    @property
    def plan(self) -> BudgetPlan:
        return self.record.plan


class ToyHistogram(PrivateEstimator):
    """The noisy histogram of the first column: a quarter of ε on the count where n is private, the rest on the
    histogram (``skip``: a method that forgets its release; ``working_bytes``: its memory estimate)."""

    method = "toy"

    def __init__(self, epsilon: float = 1.0, *, neighbours: str = "replace-one", random_state: int | None = None,
                 skip: bool = False, working_bytes: int = 0) -> None:
        self.epsilon = epsilon
        self.neighbours = neighbours
        self.random_state = random_state
        self.skip = skip
        self.working_bytes = working_bytes
        self.seen: list[tuple[Any, ...]] = []

    def settings(self) -> ToySettings:
        return ToySettings(Fraction(str(self.epsilon)), neighbours(self.neighbours))

    def _count_epsilon(self, settings: ToySettings) -> Fraction:
        return settings.epsilon / 4

    def _plan(self, settings: ToySettings, schema: Schema, n: int) -> BudgetPlan:
        count = () if settings.relation.n_public else (
            PlannedRelease(COUNT_STEP, "discrete Laplace", settings.epsilon / 4, kind="count"),)
        rest = settings.epsilon - sum((r.epsilon for r in count), Fraction(0))
        return BudgetPlan(settings.epsilon, (*count, PlannedRelease("histogram", "discrete Laplace", rest)),
                          (("n", n),))

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None, *,
                      counting: object = None) -> CostEstimate:
        return CostEstimate(seconds=1.0, bytes=self.working_bytes, method=self.method)

    def _measure(self, settings: ToySettings, fit: FitContext) -> Measured:
        self.seen.append((tuple(e.step for e in fit.accountant.ledger), fit.n, fit.plan.setting("n")))
        histogram = np.zeros(1)
        if not self.skip:
            histogram = laplace_counts(fit.table.counts([0]), fit.plan.releases[-1].epsilon, fit.accountant, fit.rng,
                                       step="histogram", measured=SCHEMA.names[0],
                                       sensitivity=settings.relation.count_sensitivity)
        return Measured(lambda record: ToyRelease(fit.schema, record, histogram), (TOY_CAVEAT,))  # type: ignore[arg-type, return-value]


def test_the_template_releases_the_noisy_count_first_and_plans_at_it() -> None:
    toy = ToyHistogram(neighbours="add-remove", random_state=5).fit(FRAME, SCHEMA)
    (ledger_before, n, planned_n), = toy.seen
    assert ledger_before == (COUNT_STEP,)  # the count is paid for before the method's step runs
    assert n == planned_n == toy.released_.record.n and n != len(FRAME)  # noisy (seed 5), the plan's n
    assert [e.step for e in toy.released_.record.ledger] == [COUNT_STEP, "histogram"]
    assert toy.released_.record.caveats == (TOY_CAVEAT, SEEDED_CAVEAT)


def test_the_template_uses_the_public_n_under_replace_one_and_adds_the_shared_caveats() -> None:
    toy = ToyHistogram()
    with pytest.warns(InferredDomainWarning):
        toy.fit(FRAME, infer_schema_from_data=True)
    assert toy.seen == [((), len(FRAME), len(FRAME))]
    record = toy.released_.record
    assert (record.n, record.seeded) == (len(FRAME), False)
    assert record.caveats == (TOY_CAVEAT, READ_FROM_DATA_CAVEAT)


def test_the_template_refuses_a_ledger_that_differs_from_the_plan() -> None:
    toy = ToyHistogram(random_state=1, skip=True)
    with pytest.raises(PlanMismatchError):
        toy.fit(FRAME, SCHEMA)
    assert not hasattr(toy, "released_")


def test_the_memory_guard_refuses_before_the_method_measures(caps) -> None:
    caps(max_fit_bytes=2**20)
    toy = ToyHistogram(neighbours="add-remove", random_state=1, working_bytes=2**21)
    with pytest.raises(InputError, match="PRIVBAYES_MAX_FIT_GB"):
        toy.fit(FRAME, SCHEMA)
    assert toy.seen == [] and not hasattr(toy, "released_")


def test_a_cost_observer_sees_the_estimate_the_guard_passed() -> None:
    seen: list[CostEstimate] = []
    toy = ToyHistogram(random_state=1, working_bytes=123)
    toy.fit_opened(toy.open(FRAME, SCHEMA), on_cost=seen.append)
    assert [c.bytes for c in seen] == [123] and len(toy.seen) == 1


DP_CASES = sorted(name for name in CASES if name != "nbc")


@pytest.mark.parametrize("name", DP_CASES)
def test_every_dp_method_checks_the_memory_guard_inside_the_library(name: str, caps, monkeypatch) -> None:
    """PRIVBAYES_MAX_FIT_GB holds for a library fit of every method (the command line is not needed), under
    add/remove at the noisy count: nothing but that count is released before the refusal."""
    charged: list[str] = []
    charge = Accountant.charge

    def recording(self: Accountant, mechanism: Any, **kwargs: Any) -> Any:
        charged.append(kwargs["step"])
        return charge(self, mechanism, **kwargs)
    monkeypatch.setattr(Accountant, "charge", recording)
    caps(max_fit_bytes=1)  # below any fit's working memory
    estimator = CASES[name]()
    with pytest.raises(InputError, match="PRIVBAYES_MAX_FIT_GB"):
        estimator.fit(FRAME, SCHEMA)
    assert set(charged) <= {COUNT_STEP} and not hasattr(estimator, "released_")


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_privacy_report_core_is_the_release_record(name: str, tmp_path) -> None:
    estimator = CASES[name]().fit(FRAME, SCHEMA)
    released = estimator.released_
    record, report = released.record, released.privacy_report()
    assert set(CORE) <= set(report)
    assert (report["n"], report["seeded"], report["library_version"]) == (
        None if name == "nbc" else record.n, record.seeded, record.library_version)
    assert report["ledger"] == [entry.to_dict() for entry in record.ledger]
    assert report["plan"] == record.plan.to_dict()
    assert list(report["caveats"][:len(record.caveats)]) == list(record.caveats)
    if name != "nbc":
        assert report["epsilon_spent"] == pytest.approx(float(record.plan.spent))
        assert SEEDED_CAVEAT in record.caveats  # every DP case is seeded
    path = tmp_path / "model.json"
    released.save(path)
    assert privbayes.load(path).record == record  # the files keep their keys; loading rebuilds the same record


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_the_command_line_warns_of_a_slow_fit_from_the_templates_estimate(relation, tmp_path, capsys, monkeypatch):
    """``privbayes fit`` runs the template and observes the estimate its guard passed (n public only: under
    add/remove the command line says nothing of a cost, as before)."""
    from privbayes import PrivBayes
    from privbayes.cli import main

    FRAME.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA.to_dict()))
    slow = CostEstimate(seconds=7200.0, bytes=1, method="privbayes")
    monkeypatch.setattr(PrivBayes, "cost_estimate", lambda self, plan, schema, n=None, counting=None: slow)
    assert main(["fit", str(tmp_path / "data.csv"), "--schema", str(tmp_path / "schema.json"), "--method", "privbayes",
                 "--neighbours", relation, "--epsilon", "1", "--seed", "3", "-o", str(tmp_path / "m.json")]) == 0
    err = capsys.readouterr().err
    assert ("(hours)" in err and "a smaller --epsilon goes faster" in err) == (relation == "replace-one")
    assert privbayes.load(tmp_path / "m.json").record.seeded
