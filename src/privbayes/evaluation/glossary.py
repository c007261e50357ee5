"""One line for each term the evaluation report uses, in words a data steward reads
(docs/decisions.md, "The evaluation report for a data steward").

:func:`glossary` picks the terms a given report shows: the privacy terms when a model file was
given (δ only when some was spent), the network, clique or NBC terms by the model's kind, the
classifier and raw-value terms when those sections are present.  ``docs/data_stewards.md``
says the same at more length.
"""

from __future__ import annotations

from dataclasses import dataclass

from privbayes.evaluation.pairs import FAR_ONE_WAY


@dataclass(frozen=True)
class Term:
    key: str
    """the anchor of its line (``#g-<key>``)"""
    term: str
    text: str
    shown_when: str = "always"
    """``always`` or a context flag of :func:`glossary` (``model``, ``delta``, ``network``, ...)"""


TERMS: tuple[Term, ...] = (
    Term("verdict", "verdict (GOOD / FAIR / POOR)",
         "where the synthetic table's average 2-way TVD lies between the two references: GOOD at or below "
         "independent columns (relations between columns are kept), FAIR between the references (each column is "
         "kept, their relations only weakly), POOR at or above uniform noise. An average can hide a lost "
         "relation, so a GOOD average with one reads 'GOOD on average, but N column pairs lost their relation', "
         "and the lost pairs and far-off columns are listed."),
    Term("tvd", "TVD (total variation distance)",
         "how different two distributions are: the share of rows that would have to change value to turn one "
         "into the other. 0 = identical, 1 = nothing in common; 0.05 means 5 % of the rows."),
    Term("marginal", "α-way marginal, Qα",
         "an α-way marginal counts every combination of values of α columns (2-way: a cross-table of two "
         "columns). Qα is the set of all α-way marginals, and the report gives their average TVD, the yardstick "
         "of the PrivBayes paper (TODS 2017 §6.1). Q2 is every pair of columns."),
    Term("uniform", "uniform reference",
         "the TVD of a table whose rows are spread evenly over every possible combination of values: what a "
         "model that learned nothing would give."),
    Term("independent", "independent-columns reference",
         "the TVD of a table with every column exactly as in the real table but no relation between columns. "
         "Below it, the synthetic table keeps relations between columns."),
    Term("lost", "lost relation, column far off",
         "a pair of columns whose real relation is beyond sampling noise lost it when its synthetic TVD is not "
         "below the independent-columns reference by more than the synthetic table's sampling noise (a table with "
         "no relation between the two could score it) and is itself above the sampling noise of both tables; a "
         "pair with no real relation is flagged only when clearly worse than independent columns (TVD above the "
         "reference plus the noise). A column is far off when its "
         f"1-way TVD exceeds {FAR_ONE_WAY} and its sampling noise. Sampling noise is a bound on the TVD two random "
         "samples of one table reach by chance (docs/decisions.md, 'Evaluate: lost pairs and the default target').",
         "lost"),
    Term("bin", "bin",
         "numeric and date columns are modelled by ranges of values: 17–21 holds the whole numbers 17 to 21, "
         "[0.25, 0.5) the numbers from 0.25 up to but not including 0.5, and = 0 a special value kept apart."),
    Term("ks", "KS distance (Kolmogorov–Smirnov)",
         "for a numeric column, the largest gap between the real and synthetic shares of values below any "
         "threshold. 0 = the same distribution, 1 = no overlap.", "numeric"),
    Term("mass", "point mass, quantile qN",
         "a point mass is one value holding a large share of a column (0 in an income column); bins would smear "
         "it, so its share is checked on the raw values. qN is the value below which N % of the column lies.",
         "numeric"),
    Term("svm", "SVM misclassification rate",
         "the classifier check: a linear support vector machine trained on the synthetic table predicts the target "
         "on held-out real rows; compare its error with the same machine trained on real rows (no privacy).",
         "svm"),
    Term("epsilon", "ε (epsilon)",
         "the privacy budget of the model: changing one person's row (under add/remove: adding or removing it) "
         "changes the probability of anything the model releases by a factor of at most e^ε (ε = 1: 2.7; "
         "ε = 0.1: 1.1). Smaller is more private. Whatever is made from the model afterwards (synthetic rows, "
         "its description) costs no more ε.", "model"),
    Term("delta", "δ (delta)",
         "for (ε, δ)-differential privacy: a small probability with which the ε bound may fail. 0 for pure "
         "ε-differential privacy.", "delta"),
    Term("neighbours", "neighbouring datasets",
         "the two tables the guarantee compares: replace-one (one person's row changed; the number of rows n is "
         "public) or add/remove (one row more or less; n is protected too).", "model"),
    Term("sensitivity", "Δ (sensitivity)",
         "the most one person's row can change a number before noise is added; the noise is scaled to Δ/ε. "
         "Scores that are averages over the rows have a small Δ such as 6.6e-05: that is expected.", "model"),
    Term("ledger", "plan and ledger",
         "the plan lists every noisy release and its ε before any data are read; the ledger records what was "
         "actually spent. The model is refused on loading unless the two agree.", "model"),
    Term("domain", "domain, inferred draft",
         "the domain is the schema: columns, categories, bounds. It is published with the model and is NOT "
         "protected by ε, so it must come from public knowledge. A draft from 'schema infer' (marked "
         "'inferred: true') was read from the private data; review it and delete that line before a release."),
    Term("seeded", "seeded noise",
         "the noise came from a fixed seed so that a test run can be repeated. Anyone who knows the seed can "
         "undo the noise: never publish a seeded release.", "model"),
    Term("ap", "AP pair, parents, degree",
         "an attribute-parent pair (TODS 2017 §2.2): a column and the columns it is drawn from in the Bayesian "
         "network, written child <- parents. The degree is the largest number of parents. A parent marked @i is "
         "generalised to level i of its taxonomy (coarser values).", "network"),
    Term("clique", "clique",
         "a set of columns of a Markov random field whose joint counts were measured with noise; the synthetic "
         "table reproduces these combinations best. The cliques are chosen by the user and are public.",
         "cliques"),
    Term("nbc", "NBC views",
         "the counts a naive Bayes classifier needs (the class, and each column per class), changed only as much as "
         "a bound on an attacker's gain requires. This is NOT differential privacy: no ε protects the rows.",
         "nbc"),
)


def glossary(flags: set[str]) -> tuple[Term, ...]:
    """The terms to show when the report has the sections named in ``flags`` (plus ``always``)."""
    return tuple(t for t in TERMS if t.shown_when == "always" or t.shown_when in flags)
