"""The toy method: every attribute's 1-way marginal released once with discrete Laplace noise at ε/d, then
sampled independently (post-processing of the noisy counts, clipped and normalised)."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError
from privbayes.inference.sampling import chosen_draw
from privbayes.privacy.accountant import LedgerEntry
from privbayes.privacy.mechanisms import DiscreteLaplace
from privbayes.privacy.neighbours import Neighbours, neighbours
from privbayes.privacy.plan import BudgetPlan, PlannedRelease
from privbayes.privacy.record import ReleaseRecord
from privbayes.privacy.report import PrivacyReport
from privbayes.schema import Schema
from privbayes.synthesizers.contract import FitContext, Measured, PrivateEstimator
from privbayes.synthesizers.parameters import DeclaredEstimator, DeclaredSettings, read_parameters, to_parameters
from toy_method.parameters import PARAMETERS

METHOD = "toy"
FORMAT = "toy-marginals"


class ToySettings(DeclaredSettings):
    """The toy's settings: fields, defaults and checks from :data:`PARAMETERS`."""

    parameters = PARAMETERS

    @property
    def relation(self) -> Neighbours:
        return neighbours(self.neighbours)

    def plan(self, n: int, schema: Schema) -> BudgetPlan:
        share = self.epsilon / len(schema.attributes)
        return BudgetPlan(self.epsilon, tuple(
            PlannedRelease(f"marginal {a.name}", "discrete Laplace", share, kind="table", index=i,
                           sensitivity=self.relation.count_sensitivity) for i, a in enumerate(schema.attributes)),
            (("n", n),))


class ToyRelease:
    """The released value: the schema, the noisy marginals as probabilities, and the release record."""

    method = METHOD

    def __init__(self, schema: Schema, probabilities: list[np.ndarray], settings: ToySettings,
                 record: ReleaseRecord) -> None:
        self.schema, self.probabilities, self.settings, self.record = schema, probabilities, settings, record

    @property
    def plan(self) -> BudgetPlan:
        return self.record.plan

    @property
    def n(self) -> int:
        return int(self.record.n or 0)

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False, *,
               conditions: Any = None, keep_ids: bool = False, draw: str | None = None) -> pd.DataFrame:
        if chosen_draw(draw, "iid") != "iid":
            raise InputError("the toy method draws its columns independently: draw 'balanced' does not apply")
        rng = np.random.default_rng(random_state)
        codes = np.column_stack([rng.choice(len(p), size=n or self.n, p=p) for p in self.probabilities])
        return self.schema.decode(codes, rng, bin_labels)

    def privacy_report(self) -> PrivacyReport:
        return self.record.report(method=METHOD, mechanism="noisy 1-way marginals",
                                  algorithm="independent noisy marginals", schema=self.schema,
                                  relation=self.settings.relation, differentially_private=True)

    def describe(self) -> list[str]:
        return [f"marginal {a.name}" for a in self.schema.attributes]

    def summary(self) -> str:
        return f"{len(self.schema)} independent marginals"

    def to_document(self) -> dict[str, Any]:
        return {"format": FORMAT, "schema": self.schema.to_dict(), "n": self.n,
                "parameters": to_parameters(self.settings, METHOD),
                "probabilities": [p.tolist() for p in self.probabilities],
                "ledger": [e.to_dict() for e in self.record.ledger]}

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(self.to_document(), out)


def from_document(document: dict[str, Any], source: str) -> ToyRelease:
    """The loader: settings from the file's parameters, the plan recomputed, the ledger checked."""
    settings = ToySettings(**read_parameters(PARAMETERS, document["parameters"], owner="toy"))
    ledger = tuple(LedgerEntry.from_dict(e) for e in document["ledger"])
    schema = Schema.from_dict(document["schema"])
    plan = settings.plan(document["n"], schema)
    plan.check(ledger)
    record = ReleaseRecord(plan, ledger, document["n"], False, "given by the user (public)")
    return ToyRelease(schema, [np.asarray(p) for p in document["probabilities"]], settings, record)


class ToyMarginals(DeclaredEstimator, PrivateEstimator):
    """Noisy 1-way marginals, sampled independently."""

    method = METHOD
    parameters = PARAMETERS
    settings_class = ToySettings

    def settings(self) -> ToySettings:
        settings: ToySettings = self.declared_settings()
        return settings

    def plan(self, n: int, schema: Schema) -> BudgetPlan:
        return self.settings().plan(n, schema)

    def _plan(self, settings: ToySettings, schema: Schema, n: int) -> BudgetPlan:
        return settings.plan(n, schema)

    def _measure(self, settings: ToySettings, fit: FitContext) -> Measured:
        probabilities = []
        for release, attribute in zip(fit.plan.releases, fit.schema.attributes):
            mechanism = DiscreteLaplace(release.epsilon, settings.relation.count_sensitivity)
            noisy = np.clip(mechanism.release(fit.table.counts([release.index]), fit.accountant, fit.rng,
                                              step=release.step, measured=f"1-way marginal of {attribute.name}"),
                            0, None).astype(float)
            probabilities.append(noisy / noisy.sum() if noisy.sum() > 0 else np.full(noisy.size, 1 / noisy.size))
        return Measured(lambda record: ToyRelease(fit.schema, probabilities, settings, record))
