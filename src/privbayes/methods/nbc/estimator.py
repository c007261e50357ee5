"""``SafeNBC``: publishing a naive Bayes classifier's counts safely (Mozafari & Zaniolo, VLDB 2009).

The release contract's shape where it applies: parameters validated once (:class:`NBCSettings`),
``fit(source, schema)`` opening the data through :func:`privbayes.counting.open`, and a released
value (:class:`~privbayes.methods.nbc.release.NBCRelease`) whose privacy report says first that this is
NOT differential privacy — a deterministic transform bounding privacy breaches of the paper's
possible-worlds attacker.  Its plan is empty: nothing is paid for.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from privbayes.core.errors import InputError
from privbayes.counting import PrivateTable
from privbayes.methods.nbc.parameters import PARAMETERS
from privbayes.methods.nbc.release import METHOD, NBCRelease, NBCSettings, nbc_plan, publish
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema import Schema
from privbayes.synthesizers.contract import PrivateEstimator
from privbayes.synthesizers.costs import CostEstimate
from privbayes.synthesizers.parameters import DeclaredEstimator


class SafeNBC(DeclaredEstimator, PrivateEstimator):
    """SafetyTransform or EST on the NBC views of a table, with ``class_name`` the class column.

    Give one of ``gamma``, ``breach`` or ``prior`` with ``r`` (EST).  The parameters are declared in
    :mod:`privbayes.methods.nbc.parameters`; the section below is derived from them."""

    method = METHOD
    parameters = PARAMETERS
    settings_class = NBCSettings

    def settings(self) -> NBCSettings:
        prior = self.prior
        if isinstance(prior, (str, os.PathLike)):
            from privbayes.files.documents import read_document

            prior = read_document(prior, "prior")
            if not isinstance(prior, dict):
                raise InputError(f"{self.prior}: the prior must map every class label to a probability")
        settings: NBCSettings = self.declared_settings(prior=prior)
        return settings

    def _plan(self, settings: NBCSettings, schema: Schema, n: int) -> BudgetPlan:
        schema.index(self.class_name)  # the class column must be in the schema
        return nbc_plan()

    def _release(self, settings: NBCSettings, table: PrivateTable, domain_source: str,  # type: ignore[override]
                 on_cost: Callable[[CostEstimate], None] | None = None) -> NBCRelease:
        """Not the DP template: nothing is counted with noise, paid for or seeded; the views' own release
        record (:attr:`NBCRelease.record`) says so."""
        return publish(table, self.class_name, settings)
