"""NBC-enabling views and the naive Bayes classifier they define (Mozafari & Zaniolo, VLDB 2009, §3).

The views are the counts ``P_c = |σ_{C=c}(T)|`` and ``N^i_{t,c} = |σ_{A_i=t ∧ C=c}(T)|``; the
classifier compares, for a tuple τ = (t_1, …, t_n), the scores of eq. (2)

    X_{τ,c} = P_c · Π_i N^i_{t_i,c} / P_c  =  Π_i N^i_{t_i,c} / P_c^(n−1),

and breaks ties by a fixed precedence: the *later* class in the schema's order wins (§6.1,
"the larger the class label the higher the precedence").  The full ranking of the classes of
a tuple (recommendation use, Def. 2) sorts by (X, index) in descending order.

Counts are Python integers or ``fractions.Fraction``; every comparison is exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

import numpy as np

from privbayes.core.errors import InputError
from privbayes.counting import PrivateTable
from privbayes.schema import MISSING_LABEL, Attribute, NumericAttribute

Count = int | Fraction

LABEL_DIGITS = 6
"""Significant digits of the bin labels (as ``Schema.decode(bin_labels=True)``)."""
MAX_LABEL_DIGITS = 18


@dataclass(frozen=True)
class AttributeCounts:
    """``counts[t][c]`` = N^i_{t,c} for one attribute A_i; ``values`` names the values t."""

    name: str
    values: tuple[str, ...]
    counts: tuple[tuple[Count, ...], ...]

    def __post_init__(self) -> None:
        if len(self.values) != len(self.counts) or not self.counts:
            raise InputError(f"views: attribute {self.name!r}: one row of counts per value is needed")


@dataclass(frozen=True)
class NBCViews:
    """The NBC signature (P, N) of §3: class labels in precedence order (last wins ties)."""

    class_name: str
    labels: tuple[str, ...]
    prior: tuple[Count, ...]
    attributes: tuple[AttributeCounts, ...]

    def __post_init__(self) -> None:
        classes = len(self.labels)
        if classes < 2:
            raise InputError(f"views: class {self.class_name!r} needs at least 2 labels")
        if len(self.prior) != classes:
            raise InputError(f"views: the prior needs one count per class label ({classes})")
        if not self.attributes:
            raise InputError("views: at least one attribute is needed")
        for value in self.prior:
            _check_count(value, "prior", positive=True)
        for attr in self.attributes:
            for row in attr.counts:
                if len(row) != classes:
                    raise InputError(f"views: attribute {attr.name!r}: each value needs one count per class label")
                for value in row:
                    _check_count(value, f"attribute {attr.name!r}", positive=False)

    @property
    def n(self) -> int:
        """Number of (non-class) attributes."""
        return len(self.attributes)

    @property
    def classes(self) -> int:
        return len(self.labels)

    @property
    def domain_size(self) -> int:
        return math.prod(len(a.values) for a in self.attributes)

    def all_counts(self) -> list[Count]:
        return [*self.prior, *(v for a in self.attributes for row in a.counts for v in row)]

    def is_realistic(self) -> bool:
        """Σ_t N^i_{t,c} = P_c for every attribute and class (Statement 9a)."""
        return all(sum(row[c] for row in a.counts) == self.prior[c]
                   for a in self.attributes for c in range(self.classes))

    def with_counts(self, prior: Sequence[Count], counts: Sequence[Sequence[Sequence[Count]]]) -> NBCViews:
        """The same labels and attributes with other counts."""
        return NBCViews(self.class_name, self.labels, tuple(prior),
                        tuple(AttributeCounts(a.name, a.values, tuple(tuple(r) for r in rows))
                              for a, rows in zip(self.attributes, counts)))

    # --- the classifier (eq. 2) --------------------------------------------------------------

    def score(self, tup: Sequence[int], c: int) -> Fraction:
        """X_{τ,c} of eq. (2), exactly."""
        numerator = math.prod(a.counts[t][c] for a, t in zip(self.attributes, tup))
        return Fraction(numerator) / Fraction(self.prior[c]) ** (self.n - 1)

    def ranking(self, tup: Sequence[int]) -> tuple[int, ...]:
        """Classes of τ from first to last: by X descending, ties to the later class."""
        scores = [self.score(tup, c) for c in range(self.classes)]
        return tuple(sorted(range(self.classes), key=lambda c: (scores[c], c), reverse=True))

    def classify(self, tup: Sequence[int]) -> int:
        return self.ranking(tup)[0]

    def classify_many(self, codes: np.ndarray) -> np.ndarray:
        """Predicted class of each row of leaf codes (n_rows × n), by exact integer arithmetic.

        Rows are grouped by distinct tuple, so the cost is that of the distinct tuples.
        """
        codes = np.asarray(codes, dtype=np.int64)
        distinct, inverse = np.unique(codes, axis=0, return_inverse=True)
        predicted = np.array([self.classify(tuple(int(v) for v in row)) for row in distinct], dtype=np.int64)
        return predicted[inverse.reshape(-1)]


def _check_count(value: object, where: str, positive: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, Rational)):
        raise InputError(f"views: {where}: counts must be integers or fractions, got {type(value).__name__}")
    if value < 0 or (positive and value == 0):
        raise InputError(f"views: {where}: counts must be {'positive' if positive else 'non-negative'}")


def views_from_table(table: PrivateTable, class_attribute: str) -> NBCViews:
    """The NBC-enabling views of a :class:`~privbayes.counting.PrivateTable` (§3).

    Every non-class attribute of the schema is an A_i; numeric attributes enter through their
    bins (leaf codes).  Counts come from ``table.counts([i, class])`` only.
    """
    schema = table.schema
    names = schema.names
    if class_attribute not in names:
        raise InputError(f"--class: column {class_attribute!r} is not in the schema")
    k = names.index(class_attribute)
    cls = schema.attributes[k]
    if cls.missing != "refuse":
        raise InputError(f"--class: column {class_attribute!r} must have 'missing: refuse' (a class label per row)")
    labels = attribute_values(cls)
    prior = tuple(int(v) for v in np.asarray(table.counts([k])).reshape(-1))
    if any(v == 0 for v in prior):
        raise InputError(f"column {class_attribute!r}: every class label of the schema must occur in the data "
                         "(the NBC of eq. (2) needs P_c > 0)")
    attributes = []
    for i, attr in enumerate(schema.attributes):
        if i == k:
            continue
        table_ic = np.asarray(table.counts([i, k]))
        attributes.append(AttributeCounts(attr.name, attribute_values(attr),
                                          tuple(tuple(int(v) for v in row) for row in table_ic)))
    return NBCViews(class_attribute, labels, prior, tuple(attributes))


def attribute_values(attr: Attribute) -> tuple[str, ...]:
    """Names of an attribute's leaf codes, one per code in code order (``attr.size`` names).

    The code space is the schema's (:mod:`privbayes.schema`): categories in declared order (a
    taxonomy does not reorder them); for numeric and date attributes the bins ``"[lo, hi)"``
    (equal-width, log-spaced or declared ``edges``; dates as ISO text) and then the special
    values ``"=v"`` in declared order, exactly as ``Schema.decode(..., bin_labels=True)`` names
    them; last ``"<missing>"`` when the attribute has a missing-value code (``missing:
    category``, which ``invalid: category`` also uses).  Bin labels get more significant digits
    only if 6 would make two of them equal.
    """
    if isinstance(attr, NumericAttribute):
        labels = attr.bin_labels(LABEL_DIGITS)
        digits = LABEL_DIGITS
        while len(set(labels)) < len(labels) and digits < MAX_LABEL_DIGITS:
            digits += 3
            labels = attr.bin_labels(digits)
    else:
        labels = [str(c) for c in attr.categories]
    names = tuple(labels) + (MISSING_LABEL,) * (attr.size - attr.base_size)
    if len(names) != attr.size:  # the schema's code space changed shape: never publish misaligned rows
        raise InputError(f"schema: attribute {attr.name!r}: {attr.size} leaf codes but {len(names)} value names")
    return names
