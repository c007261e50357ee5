"""A distinguishing audit: run a mechanism on two neighbouring inputs and look for a DP violation.

An ε-DP mechanism M satisfies, for neighbouring inputs A, B and every set S of outputs,
Pr[M(A) ∈ S] ≤ e^ε Pr[M(B) ∈ S] (+ δ).  After mapping outputs into a finite set of K
*events* (any map is post-processing, so it keeps the guarantee), the smallest δ for which
the inequality holds over all S is

    δ_ε(A ‖ B) = Σ_events max(0, p_A(e) − e^ε p_B(e)).

The auditor draws N outputs on each side, estimates this sum with the empirical
frequencies (the statistic of Google's DP stochastic tester, ``VerifyApproximateDp``) and
tests it in both directions against δ + tolerance.

Tolerance from a concentration bound (:func:`concentration_tolerance`).  Write
X_e = p̂_A(e) − e^ε p̂_B(e) and δ̂ = Σ_e max(0, X_e).

* Bias: max(0, μ + Y) ≤ max(0, μ) + max(0, Y) and E max(0, Y) = ½ E|Y| ≤ ½ sd(Y) for a
  centred Y, so E δ̂ ≤ δ_ε + ½ Σ_e sd(X_e) ≤ δ_ε + ½ √((K − 1)(1 + e^{2ε}) / N)
  (Cauchy–Schwarz, Σ_e p(1 − p) ≤ 1 − 1/K).
* Deviation: one of the N draws on side A moves δ̂ by at most 1/N, one on side B by at most
  e^ε/N, so McDiarmid gives Pr[δ̂ ≥ E δ̂ + t] ≤ exp(−2t²N / (1 + e^{2ε})).

Hence for an ε-DP mechanism (δ_ε = 0 ≤ δ), with τ = √((1 + e^{2ε})/N) · (½√(K − 1) +
√(ln(2/α)/2)), the two-direction test fails with probability at most α.  The same bound
read the other way bounds the miss probability: if the true violation is V > τ, the test
passes with probability at most exp(−2(V − τ)² N / (1 + e^{2ε})) (:func:`miss_probability`).

Google's tester instead uses N = 10⁶, ε = ln 3, an empirical tolerance of 0.0025 and a
majority of 9 votes (:func:`ballot`); both modes are offered.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privbayes.schema import Attribute, Schema

GOOGLE_RUNS = 1_000_000
GOOGLE_EPSILON = math.log(3)
GOOGLE_TOLERANCE = 0.0025
GOOGLE_VOTES = 9

Mechanism = Callable[[int], Hashable]
"""One run of a mechanism: a run index (used to derive its seed) → an event."""


def approximate_delta(counts_a: Mapping[Hashable, int], counts_b: Mapping[Hashable, int], runs: int,
                      epsilon: float) -> float:
    """Σ_events max(0, c_A/N − e^ε c_B/N): the empirical δ for which A ≤ e^ε B + δ holds."""
    factor = math.exp(epsilon)
    return sum(max(0.0, (count - factor * counts_b.get(event, 0)) / runs) for event, count in counts_a.items())


def concentration_tolerance(runs: int, epsilon: float, events: int, false_failure: float) -> float:
    """τ such that an ε-DP mechanism fails the two-direction test with probability ≤ ``false_failure``.

    ``events`` (K) must bound the number of distinct events the event map can produce.
    """
    if runs < 1 or events < 1 or not 0 < false_failure < 1:
        raise ValueError(f"runs ({runs}) and events ({events}) must be ≥ 1 and false_failure "
                         f"({false_failure}) in (0, 1)")
    spread = math.sqrt((1 + math.exp(2 * epsilon)) / runs)
    return spread * (0.5 * math.sqrt(events - 1) + math.sqrt(math.log(2 / false_failure) / 2))


def miss_probability(violation: float, runs: int, epsilon: float, events: int, false_failure: float) -> float:
    """Upper bound on Pr[pass] for a mechanism whose true violation δ_ε is ``violation`` (δ = 0)."""
    gap = violation - concentration_tolerance(runs, epsilon, events, false_failure)
    if gap <= 0:
        return 1.0
    return math.exp(-2 * gap**2 * runs / (1 + math.exp(2 * epsilon)))


@dataclass(frozen=True)
class DistinguishResult:
    """One vote of the distinguishing test."""

    epsilon: float
    delta: float
    tolerance: float
    runs: int
    events_seen: int
    violation_ab: float
    violation_ba: float

    @property
    def violation(self) -> float:
        """The larger of the two directions' empirical δ."""
        return max(self.violation_ab, self.violation_ba)

    @property
    def passed(self) -> bool:
        return self.violation <= self.delta + self.tolerance

    def summary(self) -> str:
        verdict = "pass" if self.passed else "FAIL"
        return (f"{verdict}: δ̂(A‖B) = {self.violation_ab:.4f}, δ̂(B‖A) = {self.violation_ba:.4f}, "
                f"bound δ + τ = {self.delta + self.tolerance:.4f} (ε = {self.epsilon:.4g}, N = {self.runs}, "
                f"{self.events_seen} events seen)")


def histogram(events: Iterable[Hashable]) -> Counter:
    return Counter(events)


def compare_histograms(counts_a: Mapping[Hashable, int], counts_b: Mapping[Hashable, int], runs: int, *,
                    epsilon: float, delta: float, tolerance: float) -> DistinguishResult:
    """The two-direction test on two histograms of ``runs`` draws each."""
    seen = len(set(counts_a) | set(counts_b))
    return DistinguishResult(epsilon, delta, tolerance, runs, seen,
                             approximate_delta(counts_a, counts_b, runs, epsilon),
                             approximate_delta(counts_b, counts_a, runs, epsilon))




def distinguish(mechanism_a: Mechanism, mechanism_b: Mechanism, *, epsilon: float, runs: int, events: int | None = None,
                delta: float = 0.0, tolerance: float | None = None, false_failure: float = 1e-6,
                first_run: int = 0) -> DistinguishResult:
    """Run each mechanism ``runs`` times (run indices ``first_run …``) and test the histograms.

    Give ``tolerance`` explicitly (e.g. Google's 0.0025), or ``events`` (an a-priori bound K on
    the number of distinct events) to use :func:`concentration_tolerance` at ``false_failure``.
    The mechanisms receive the run index and must derive independent randomness from it
    (e.g. seed ``10**9 + i`` for A and ``2·10**9 + i`` for B).
    """
    if tolerance is None:
        if events is None:
            raise ValueError("give either tolerance or events (a bound on the number of distinct events)")
        tolerance = concentration_tolerance(runs, epsilon, events, false_failure)
    counts_a = histogram(mechanism_a(i) for i in range(first_run, first_run + runs))
    counts_b = histogram(mechanism_b(i) for i in range(first_run, first_run + runs))
    if events is not None and len(set(counts_a) | set(counts_b)) > events:
        raise ValueError(f"the event map produced {len(set(counts_a) | set(counts_b))} distinct events, "
                         f"more than the bound K = {events} the tolerance assumes")
    return compare_histograms(counts_a, counts_b, runs, epsilon=epsilon, delta=delta, tolerance=tolerance)


@dataclass(frozen=True)
class BallotResult:
    """Majority of votes, each an independent :func:`distinguish` run (Google's ``RunBallot``)."""

    votes: tuple[DistinguishResult, ...]

    @property
    def accepts(self) -> int:
        return sum(v.passed for v in self.votes)

    @property
    def passed(self) -> bool:
        return self.accepts > len(self.votes) - self.accepts


def ballot(mechanism_a: Mechanism, mechanism_b: Mechanism, *, votes: int = GOOGLE_VOTES, runs: int = GOOGLE_RUNS,
           epsilon: float = GOOGLE_EPSILON, tolerance: float | None = GOOGLE_TOLERANCE, events: int | None = None,
           delta: float = 0.0, false_failure: float = 1e-6,
           on_vote: Callable[[DistinguishResult], None] | None = None) -> BallotResult:
    """Vote until one side holds a majority of ``votes`` (stops early, like Google's RunBallot)."""
    results: list[DistinguishResult] = []
    accept = reject = 0
    while max(accept, reject) <= votes // 2:
        result = distinguish(mechanism_a, mechanism_b, epsilon=epsilon, runs=runs, events=events, delta=delta,
                             tolerance=tolerance, false_failure=false_failure, first_run=len(results) * runs)
        results.append(result)
        if on_vote is not None:
            on_vote(result)
        accept += result.passed
        reject += not result.passed
    return BallotResult(tuple(results))


# --- neighbouring toy datasets and event maps for end-to-end PrivBayes -----------------------------

def binary_schema(names: str | Iterable[str]) -> Schema:
    """A schema of binary attributes (public domain of the toy datasets)."""
    return Schema(tuple(Attribute(name, "binary") for name in names))


def network_pair() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Neighbours (n = 6, three binary attributes) on which the *exact* greedy network differs
    for every choice of the first attribute (score F, degree 1, unique argmax with margin 1/n).

    A = (0,1,1), (1,0,1)×2, (1,1,0)×3 and B replaces one (1,1,0) by (1,0,1).  A non-private
    "argmax score" selection therefore outputs disjoint networks on A and B (δ = 1).
    """
    rows_a = [(0, 1, 1), (1, 0, 1), (1, 0, 1), (1, 1, 0), (1, 1, 0), (1, 1, 0)]
    rows_b = rows_a[:3] + [(1, 0, 1)] + rows_a[4:]
    return pd.DataFrame(rows_a, columns=list("abc")), pd.DataFrame(rows_b, columns=list("abc"))


def cells_pair() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Neighbours (n = 4, two binary attributes) that move one tuple from cell (0,1) to (1,0).

    Cell (1,0) is empty in A and cell (0,1) is empty in B, so a release that skips the noise
    on empty cells is exposed by which cells of the released joint are non-zero.
    """
    rows_a = [(0, 0), (0, 0), (1, 1), (0, 1)]
    rows_b = rows_a[:3] + [(1, 0)]
    return pd.DataFrame(rows_a, columns=list("ab")), pd.DataFrame(rows_b, columns=list("ab"))


def network_event(model) -> tuple:
    """The released network: ((child, parents), …) in sampling order."""
    return tuple((p.child, p.parents) for p in model.network_.pairs)


def released_joint(model) -> np.ndarray:
    """The joint distribution Π_i Pr*[X_i | Π_i] of a fitted model over its encoded domain.

    Enumerates the whole domain: only for toy models (a few small attributes).
    """
    attrs = model.encoding_.attributes
    sizes = [a.size for a in attrs]
    joint = np.ones(sizes)
    for codes in itertools.product(*(range(s) for s in sizes)):
        p = 1.0
        for pair, cond in zip(model.network_.pairs, model.conditionals_):
            index = tuple(int(attrs[a].levels[lvl][codes[a]]) for a, lvl in pair.parents) + (codes[pair.child],)
            p *= float(cond[index])
        joint[codes] = p
    return joint


def support_event(model, cells: Sequence[tuple[int, ...]] | None = None) -> tuple[bool, ...]:
    """Which ``cells`` (default: all) of the released joint are non-zero (noisy counts clipped at 0
    give exact zeros)."""
    joint = released_joint(model)
    if cells is None:
        return tuple(bool(v > 0) for v in joint.ravel())
    return tuple(bool(joint[cell] > 0) for cell in cells)


def argmax_event(model) -> tuple:
    """The network plus, for each released conditional, the argmax child value of every row."""
    return network_event(model) + tuple(tuple(c.reshape(-1, c.shape[-1]).argmax(axis=1).tolist())
                                        for c in model.conditionals_)
