"""What an evaluation found: the values ``privbayes evaluate`` prints and the HTML report shows."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privbayes.evaluation.numeric import NumericCheck
from privbayes.evaluation.pairs import Comparison
from privbayes.evaluation.verdict import References

NOT_PRIVATE = ("these statistics describe REAL exactly and are NOT differentially private: "
               "keep them with the data steward")


@dataclass(frozen=True)
class MarginalScore:
    """Average TVD over Qα, or ``tvd = None`` and a note when α was skipped."""

    alpha: int
    count: int
    tvd: float | None
    note: str = ""


@dataclass(frozen=True)
class WorkloadScore:
    """The workload error: the weighted average TVD over a steward's workload (``source``: its file), and each
    set's names, weight and TVD."""

    source: str
    tvd: float
    sets: tuple[tuple[tuple[str, ...], float, float], ...]


@dataclass(frozen=True)
class AttributeScore:
    """One attribute's 1-way distributions (real, synthetic) and their TVD."""

    name: str
    kind: str
    labels: tuple[str, ...]
    real: np.ndarray = field(repr=False)
    synth: np.ndarray = field(repr=False)

    @property
    def tvd(self) -> float:
        return 0.5 * float(np.abs(self.real - self.synth).sum())


@dataclass(frozen=True)
class SvmScore:
    """Misclassification rates for one target (TODS 2017, §6.1, the multiple-SVM task)."""

    target: str
    positive_real: float
    positive_synth: float
    synthetic: float
    reference: float


@dataclass(frozen=True)
class Evaluation:
    """Everything ``privbayes evaluate`` prints and the HTML report shows."""

    n_real: int
    n_synth: int
    marginals: tuple[MarginalScore, ...]
    attributes: tuple[AttributeScore, ...]
    svm: tuple[SvmScore, ...]
    notes: tuple[str, ...] = ()
    references: References | None = None
    numeric: tuple[NumericCheck, ...] = ()
    verdict: str = ""
    skipped: tuple[str, ...] = ()
    """Checks left out for want of an optional dependency, each one line saying what to install."""
    comparison: Comparison | None = None
    """Every column and pair against its references: the lost pairs and far-off columns."""
    default_target: str = ""
    """Why the classifier check's target was chosen (or why none was) when the user named none."""
    workload: WorkloadScore | None = None
    """The workload error, when a workload was given."""
