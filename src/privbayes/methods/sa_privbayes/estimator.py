"""SA-PrivBayes: AMI ordering, threshold screening and score-driven budgets (Yuan, Zhang, Lin, Wang,
Jia, "Differential Privacy Data Publication Based on Scoring Function", Future Internet 2026).

Alg. 1 orders the attributes by average mutual information (AMI), starts the network from the
highest, screens each step's candidate parent sets (threshold λ, fuzzy coefficient α, budget ε_τ) and
picks one with the exponential mechanism at ε_exp/(d − 1); Alg. 2 releases the d − k noisy tables
with budgets from three score clusters in the ratio q.  Two modes (docs/sa_privbayes.md):

* ``"strict"`` (default): ε_τ buys a noisy mutual-information matrix; the order, the first node, the
  screening (top-λ) and the table budgets are post-processing of it, so the release is ε-DP with
  ε = ε_τ + ε_exp + Σ ε_i exactly;
* ``"faithful"``: the algorithms as written (exact MIM, exact scores against a noisy threshold,
  budgets weighted by exact scores): NOT differentially private, reported as such with a caveat per
  uncharged step.

Counting, the mechanisms, the noisy conditionals (Alg. 2 = TODS 2017 Alg. 1 with per-table budgets)
and sampling are PrivBayes's; the released value is the same :class:`BayesNetModel`.
"""

from __future__ import annotations

from privbayes.bayesnet.conditionals import noisy_conditionals
from privbayes.bayesnet.model import BayesNetModel
from privbayes.core.errors import InputError
from privbayes.counting import PrivateTable
from privbayes.counting.base import CountingPlace
from privbayes.methods.sa_privbayes.allocation import node_budgets, strict_node_budgets
from privbayes.methods.sa_privbayes.ami import (
    MutualInformationMatrix,
    mutual_information_matrix,
    noisy_mutual_information_matrix,
)
from privbayes.methods.sa_privbayes.greedy import Screen, list_sensitivity, ordered_greedy_bayes
from privbayes.methods.sa_privbayes.parameters import PARAMETERS
from privbayes.methods.sa_privbayes.screening import paper_screening, strict_screening
from privbayes.methods.sa_privbayes.settings import FAITHFUL_CAVEATS, METHOD, SASettings
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.samplers import RandomSource
from privbayes.schema import Schema
from privbayes.schema.encoding import Encoding
from privbayes.synthesizers.contract import FitContext, Measured, PrivateEstimator
from privbayes.synthesizers.costs import CostEstimate
from privbayes.synthesizers.fitted import BayesNetViews
from privbayes.synthesizers.parameters import DeclaredEstimator


class SAPrivBayes(BayesNetViews, DeclaredEstimator, PrivateEstimator):
    """SA-PrivBayes synthesizer with PrivBayes's API (fit returns self, learned attributes end in _).

    Its parameters are declared in :mod:`privbayes.methods.sa_privbayes.parameters` (paper defaults, §5.2 and
    §5.5); the section below is derived from them.
    """

    method = METHOD
    parameters = PARAMETERS
    settings_class = SASettings

    def settings(self) -> SASettings:
        """The validated parameters (one-line InputError naming the parameter)."""
        if self.alpha is not None and self.mode != "faithful":
            raise InputError("alpha applies to mode 'faithful' only (strict screening has no fuzzy band)")
        settings: SASettings = self.declared_settings()
        return settings

    @staticmethod
    def encoding_for(schema: Schema) -> Encoding:
        """SA-PrivBayes works on the attributes as they are (no generalisation)."""
        return Encoding.build(schema, "vanilla")

    def _plan(self, settings: SASettings, schema: Schema, n: int) -> BudgetPlan:
        """The budget plan of a fit on n rows of ``schema``, before any data is read."""
        return settings.plan(n, self.encoding_for(schema))

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None, *,
                      counting: CountingPlace | None = None) -> CostEstimate:
        """Time, peak memory and model-file size of a fit with ``plan`` (:mod:`privbayes.methods.sa_privbayes.cost`)."""
        from privbayes.methods.sa_privbayes.cost import sa_cost

        return sa_cost(plan, self.encoding_for(schema), counting)

    # --- fitting -----------------------------------------------------------------------------------

    def _prepare(self, settings: SASettings, table: PrivateTable) -> PrivateTable:
        return table.encoded(self.encoding_for(table.schema))

    def _progress_title(self, settings: SASettings) -> str:
        return f"SA-PrivBayes ({settings.mode})"

    def _measure(self, settings: SASettings, fit: FitContext) -> Measured:
        """Alg. 1 (AMI order, screening, exponential mechanism) then Alg. 2 (budgets by score cluster)."""
        encoding = self.encoding_for(fit.schema)
        table, plan, accountant, rng, progress = fit.table, fit.plan, fit.accountant, fit.rng, fit.progress
        d, k = len(encoding.attributes), plan.setting("degree")
        sizes = [a.size for a in encoding.attributes]
        progress.stage("mutual-information matrix", None)
        exact = mutual_information_matrix(table, d)  # leaves only through the exponential mechanism (strict)
        if settings.mode == "strict":
            guide = noisy_mutual_information_matrix(table, d, settings.epsilon_tau, accountant, rng)
            screen: Screen = lambda step, child, sets: strict_screening(guide, child, sets, settings.keep_fraction)  # noqa: E731
        else:
            guide = exact
            screen = _paper_rule(settings, table.n, sizes, exact, accountant, rng)
        progress.stage("learning the network", d - 1)
        network = ordered_greedy_bayes(table.n, sizes, exact, guide.order(), k, settings.epsilon_exp, accountant,
                                       rng, screen, progress.update)
        progress.stage("releasing noisy conditionals", None)
        measured = [(p.child, [a for a, _ in p.parents]) for p in network.pairs[k:]]
        if settings.mode == "strict":
            budgets = strict_node_budgets(guide, measured, settings.epsilon2, settings.q)
        else:
            budgets = node_budgets([exact.total(c, ps) for c, ps in measured], settings.epsilon2, settings.q)
        conditionals = noisy_conditionals(table, network, dict(zip(range(k, d), budgets)), accountant, rng, degree=k)
        caveats = () if settings.differentially_private else tuple(FAITHFUL_CAVEATS)
        return Measured(lambda record: BayesNetModel(
            schema=fit.schema, encoding=encoding, network=network, conditionals=tuple(conditionals),
            parameters=settings.to_parameters(), record=record, degree=k, algorithm=plan.setting("algorithm"),
            differentially_private=settings.differentially_private, mechanism=settings.mechanism), caveats)


def _paper_rule(settings: SASettings, n: int, sizes: list[int], exact: MutualInformationMatrix,
                accountant: Accountant,
                rng: RandomSource) -> Screen:
    """Alg. 1 lines 9-18 as written: exact scores against a threshold noised at ε_τ/(d − 1) (NOT private)."""
    d = len(sizes)

    def screen(step: int, child: int, parent_sets: list[list[int]]) -> tuple[int, ...]:
        return paper_screening([exact.total(child, ps) for ps in parent_sets], settings.keep_fraction,
                               settings.alpha, settings.epsilon_tau / (d - 1),
                               list_sensitivity(n, sizes, child, parent_sets), accountant, rng,
                               step=f"screening step {step}/{d - 1}")
    return screen
