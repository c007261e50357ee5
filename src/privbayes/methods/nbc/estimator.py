"""``SafeNBC``: publishing a naive Bayes classifier's counts safely (Mozafari & Zaniolo, VLDB 2009).

The release contract's shape where it applies: parameters validated once (:class:`NBCSettings`),
``fit(source, schema)`` opening the data through :func:`privbayes.counting.open`, and a released
value (:class:`~privbayes.methods.nbc.release.NBCRelease`) whose privacy report says first that this is
NOT differential privacy — a deterministic transform bounding privacy breaches of the paper's
possible-worlds attacker.  Its plan is empty: nothing is paid for.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from privbayes.core.errors import InputError
from privbayes.counting import PrivateTable
from privbayes.methods.nbc.release import METHOD, NBCRelease, NBCSettings, nbc_plan, publish
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema import Schema
from privbayes.synthesizers.contract import PrivateEstimator


class SafeNBC(PrivateEstimator):
    """SafetyTransform or EST on the NBC views of a table, with ``class_name`` the class column.

    Give one of ``gamma`` (amplification γ > 1), ``breach`` = (L1, L2) (block every L1-to-L2
    breach), or ``prior`` (a mapping label → probability, or a YAML/JSON file of one) with ``r``
    > 1 (EST, r-closeness); ``condition`` "posterior" (default) or "corollary4".  Numbers are read as
    the decimals written (1.1 is 11/10)."""

    method = METHOD

    def __init__(self, class_name: str, *, gamma: Any = None, breach: Any = None,
                 prior: Mapping[str, Any] | str | os.PathLike[str] | None = None, r: Any = None,
                 condition: str = "posterior") -> None:
        self.class_name = class_name
        self.gamma = gamma
        self.breach = breach
        self.prior = prior
        self.r = r
        self.condition = condition

    def settings(self) -> NBCSettings:
        if not isinstance(self.class_name, str) or not self.class_name:
            raise InputError(f"class_name ({self.class_name!r}) must name the class column")
        prior = self.prior
        if isinstance(prior, (str, os.PathLike)):
            from privbayes.files.documents import read_document

            prior = read_document(prior, "prior")
            if not isinstance(prior, dict):
                raise InputError(f"{self.prior}: the prior must map every class label to a probability")
        return NBCSettings(gamma=self.gamma, breach=self.breach, prior=prior, r=self.r, condition=self.condition)  # type: ignore[arg-type]

    def _plan(self, settings: NBCSettings, schema: Schema, n: int) -> BudgetPlan:
        schema.index(self.class_name)  # the class column must be in the schema
        return nbc_plan()

    def _release(self, settings: NBCSettings, table: PrivateTable, domain_source: str,  # type: ignore[override]
                 on_cost: Any = None) -> NBCRelease:
        """Not the DP template: nothing is counted with noise, paid for or seeded; the views' own release
        record (:attr:`NBCRelease.record`) says so."""
        return publish(table, self.class_name, settings)
