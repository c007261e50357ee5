"""The white-box statistic of the self-audit: the exact privacy loss of a release's transcript.

A fit is a sequence of mechanism releases, each on an input the method computed from the data and from
the earlier outputs (adaptivity).  Its transcript is the list of (mechanism, output).  For neighbouring
tables D and D', the privacy loss of a transcript is

    L = Σ_r log Pr[output_r | input_r(D)] − log Pr[output_r | input_r(D')],

where input_r(D') is what the method *would* have asked on D' after seeing the same earlier outputs.  We
get it by running the fit on D with a recording tap (:data:`privbayes.privacy.mechanisms.tap`), then
replaying it on D' with the same seed: at each release the replay logs D''s input and draws with D's input,
so it consumes the random source identically and sees the same outputs.  Every data-independent coin the
method tosses (a random order, say) is then the same in both passes, and L is a function of the transcript
(and the seed, which does not depend on the data): a valid test statistic, and by Neyman-Pearson the most
powerful one when it is the exact log-likelihood ratio.

If the replay asks a different question (another mechanism, ε, sensitivity or shape) or, when asked to
compare them, the two passes release different values from the same transcript, data reached the release
outside the mechanisms: L = +∞ (a transcript D' cannot produce).  Per-release log-likelihoods:

* discrete Laplace at scale s: log Pr[y | x] = log tanh(1/(2s)) − |y − x|/s per coordinate;
* exponential mechanism with factor f = ε/(2Δ): log Pr[i | u] = f·u_i − log Σ_j exp(f·u_j);
* permute-and-flip (McKenna & Sheldon 2020): candidate j accepted with p_j = exp(−f(max u − u_j)) in a
  uniformly random order, so with U(0, 1) arrival times Pr[i] = p_i ∫₀¹ Π_{j≠i}(1 − p_j t) dt, a
  polynomial of degree K − 1 integrated exactly by Gauss-Legendre with ⌈K/2⌉ + 1 nodes.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from privbayes.privacy import mechanisms
from privbayes.privacy.mechanisms import DiscreteLaplace, Exponential, PermuteAndFlip
from privbayes.privacy.samplers import RationalScores


class TranscriptComplete(BaseException):
    """Raised by a tap to stop a fit once every release of interest is recorded (what follows is
    post-processing).  A BaseException, so that no ``except Exception`` of a method swallows it."""


class Diverged(BaseException):
    """The replay on the neighbour asked another question than the recorded transcript."""


@dataclass
class Release:
    """One release of a transcript: the mechanism, its input on the primary table, its output, and the input
    the replay computed on the shadow table."""

    mechanism: Any
    primary: Any
    output: Any
    shadow: Any = None


def _copy(value: Any) -> Any:
    if isinstance(value, RationalScores):
        return RationalScores(value.numerators.copy(), value.denominator)
    if isinstance(value, np.ndarray):
        return value.copy()
    return list(value) if isinstance(value, (list, tuple)) else value


def _floats(scores: Any) -> np.ndarray:
    if isinstance(scores, RationalScores):
        return np.asarray(scores.to_float(), dtype=np.float64)
    return np.array([float(s) for s in scores], dtype=np.float64)


def _same_question(recorded: Any, asked: Any, recorded_input: Any, asked_input: Any) -> bool:
    """Whether the replay asks what the transcript recorded: the same mechanism (ε, Δ) on an input of the
    same shape."""
    if type(recorded) is not type(asked) or recorded != asked:
        return False
    if isinstance(recorded, DiscreteLaplace):
        return bool(np.shape(recorded_input) == np.shape(asked_input))
    return len(recorded_input) == len(asked_input)


@dataclass
class Recorder:
    """The primary pass's tap: release as usual and record; once the releases have spent ``total`` (the
    method's ε: nothing private can follow) stop the fit."""

    total: Fraction | None = None
    releases: list[Release] = field(default_factory=list)
    spent: Fraction = Fraction(0)

    def __call__(self, mechanism: Any, exact: Any, draw: Callable[[Any], Any]) -> Any:
        output = draw(exact)
        self.releases.append(Release(mechanism, _copy(exact), _copy(output)))
        self.spent += mechanism.epsilon
        if self.total is not None and self.spent >= self.total:
            raise TranscriptComplete
        return output


@dataclass
class Replayer:
    """The shadow pass's tap: log the shadow input, draw with the recorded primary input (same coins, same
    output), and stop after the last recorded release when ``stop``."""

    releases: list[Release]
    stop: bool = True
    position: int = 0

    def __call__(self, mechanism: Any, exact: Any, draw: Callable[[Any], Any]) -> Any:
        if self.position >= len(self.releases):
            raise Diverged
        release = self.releases[self.position]
        if not _same_question(release.mechanism, mechanism, release.primary, exact):
            raise Diverged
        output = draw(release.primary)
        if not np.array_equal(np.asarray(output), np.asarray(release.output)):
            raise Diverged  # pragma: no cover - the same seed and input give the same coins
        release.shadow = _copy(exact)
        self.position += 1
        if self.stop and self.position == len(self.releases):
            raise TranscriptComplete
        return output


@contextlib.contextmanager
def tapped(tap: mechanisms.Tap) -> Iterator[None]:
    """Install ``tap`` on every mechanism release for the duration of the block."""
    previous, mechanisms.tap = mechanisms.tap, tap
    try:
        yield
    finally:
        mechanisms.tap = previous


def laplace_log_ratio(output: np.ndarray, exact: np.ndarray, other: np.ndarray, scale: float) -> np.ndarray:
    """log Pr[output | exact] − log Pr[output | other] of discrete Laplace noise at ``scale``, per coordinate
    (the normaliser cancels)."""
    out = np.asarray(output, dtype=np.float64)
    diff = np.abs(out - np.asarray(other, dtype=np.float64)) - np.abs(out - np.asarray(exact, dtype=np.float64))
    return diff / scale


def gaussian_log_ratio(output: np.ndarray, exact: np.ndarray, other: np.ndarray, sigma2: float) -> np.ndarray:
    """log Pr[output | exact] − log Pr[output | other] of discrete Gaussian noise N_Z(0, σ²), per coordinate:
    ((z − other)² − (z − exact)²)/(2σ²) (the normaliser cancels: both are the same lattice, shifted)."""
    out = np.asarray(output, dtype=np.float64)
    diff = (out - np.asarray(other, dtype=np.float64)) ** 2 - (out - np.asarray(exact, dtype=np.float64)) ** 2
    return diff / (2 * sigma2)


def exponential_log_pmf(scores: np.ndarray, factor: float) -> np.ndarray:
    """log Pr[i] of the exponential mechanism for every candidate i."""
    z = factor * np.asarray(scores, dtype=np.float64)
    top = z.max()
    return z - (top + math.log(float(np.exp(z - top).sum())))


def permute_and_flip_log_pmf(scores: np.ndarray, factor: float) -> np.ndarray:
    """log Pr[i] of permute-and-flip for every candidate i (exact up to floating point; module docstring)."""
    u = np.asarray(scores, dtype=np.float64)
    accept = np.exp(-factor * (u.max() - u))
    k = u.size
    nodes, weights = np.polynomial.legendre.leggauss(k // 2 + 1)
    t, w = (nodes + 1) / 2, weights / 2
    logs = np.log1p(-np.outer(t, accept))  # t < 1, so 1 − p_j t > 0
    total = logs.sum(axis=1)
    integrals = (w[:, None] * np.exp(total[:, None] - logs)).sum(axis=0)
    return np.log(accept) + np.log(integrals)


def release_log_ratio(release: Release) -> float:
    """log Pr[output | primary input] − log Pr[output | shadow input] of one release."""
    mechanism = release.mechanism
    if isinstance(mechanism, DiscreteLaplace):
        return float(laplace_log_ratio(release.output, release.primary, release.shadow, float(mechanism.scale)).sum())
    factor = float(mechanism.factor)
    pmf = permute_and_flip_log_pmf if isinstance(mechanism, PermuteAndFlip) else exponential_log_pmf
    if not isinstance(mechanism, (Exponential, PermuteAndFlip)):
        raise TypeError(f"no likelihood for the {mechanism.name} mechanism")
    i = int(release.output)
    return float(pmf(_floats(release.primary), factor)[i] - pmf(_floats(release.shadow), factor)[i])


def released_text(estimator: Any) -> str:
    """The released value as canonical JSON text (to compare two passes' releases)."""
    return json.dumps(estimator.released_.to_document(), sort_keys=True, default=str)


def transcript_loss(fit: Callable[[Any], Any], primary: Any, shadow: Any, *, total: Fraction | None,
                    compare_release: bool) -> tuple[float, int]:
    """(L, releases): the privacy loss log Pr[T | primary] − log Pr[T | shadow] of one seeded fit's transcript T.

    ``fit(table)`` runs the seeded estimator; ``total`` (the method's ε) stops both passes once it is spent
    (None: run the fits to the end); ``compare_release`` runs them to the end and also requires both passes to
    release the same value."""
    recorder = Recorder(None if compare_release else total)
    with tapped(recorder):
        try:
            primary_fit = fit(primary)
        except TranscriptComplete:
            primary_fit = None
    releases = recorder.releases
    replayer = Replayer(releases, stop=not compare_release)
    with tapped(replayer):
        try:
            shadow_fit = fit(shadow)
        except TranscriptComplete:
            shadow_fit = None
        except Diverged:
            return math.inf, len(releases)
        except Exception:  # the neighbour fails where the primary succeeded: another outcome
            return math.inf, len(releases)
    if replayer.position != len(releases):
        return math.inf, len(releases)
    if compare_release and released_text(primary_fit) != released_text(shadow_fit):
        return math.inf, len(releases)
    return sum(release_log_ratio(r) for r in releases), len(releases)
