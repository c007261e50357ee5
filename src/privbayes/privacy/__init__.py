"""The mechanisms and their bookkeeping: exact noise samplers (:mod:`.samplers`), the mechanisms that declare
their sensitivity and cost and charge every release (:mod:`.mechanisms`), the accountant and its ledger
(:mod:`.accountant`), the budget plan every fit is checked against (:mod:`.plan`), the neighbouring relations
(:mod:`.neighbours`), the privacy report every method returns (:mod:`.report`), zero-concentrated DP's
conversion to (ε, δ) (:mod:`.zcdp`) and the mechanisms at an exact ρ that zCDP plans use
(:mod:`.zcdp_mechanisms`).  Nothing here reads rows."""

from __future__ import annotations

from privbayes.core.lazy import lazy_exports

_EXPORTS = {"Accountant": "accountant", "BudgetExceededError": "accountant", "LedgerEntry": "accountant",
            "DiscreteGaussian": "mechanisms", "DiscreteLaplace": "mechanisms", "Exponential": "mechanisms",
            "PermuteAndFlip": "mechanisms",
            "Neighbours": "neighbours", "BudgetPlan": "plan", "PlanMismatchError": "plan",
            "PlannedRelease": "plan", "PrivacyReport": "report", "ZCDPAccountant": "accountant",
            "random_source": "samplers"}
"""Public names and their submodules, imported on first use (PEP 562): importing one module of the package
does not load the others."""

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["Accountant", "BudgetExceededError", "BudgetPlan", "DiscreteGaussian", "DiscreteLaplace", "Exponential",
           "LedgerEntry", "Neighbours", "PermuteAndFlip", "PlanMismatchError", "PlannedRelease", "PrivacyReport",
           "ZCDPAccountant", "random_source"]
