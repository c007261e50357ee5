"""Classification baselines of the multiple-SVM task (TODS 2017, §6.1 and §6.6).

* :func:`no_privacy`: the hinge-loss C-SVM (C = 1) on the real training data, the
  same model the task trains on synthetic data (not private; no accountant).
* :func:`majority`: a noisy count of Y = 1 (discrete Laplace, sensitivity 1, ε);
  predict 1 for every test row iff the noisy count exceeds n/2.
* :func:`private_erm`: Chaudhuri, Monteleoni and Sarwate, "Differentially private
  empirical risk minimization" (JMLR 2011), Algorithm 2 (objective perturbation) with
  the Huber-loss SVM, the loss the paper uses because PrivateERM does not support the
  hinge loss.

Budget.  The paper trains four classifiers per dataset: "PrivateERM" (and Majority)
spend ε/4 on each, "PrivateERM (Single)" spends ε on one.  Each call spends the
``epsilon`` it is given; pass ``accountant`` to charge one shared accountant instead
of a fresh one, e.g. ``acc = Accountant(eps)`` then four calls with ``eps / 4``.

Data access.  These learners need rows, not contingency tables, so they read the
integer-coded training array directly rather than through the counting layer; every
quantity that depends on it passes through a mechanism that debits the accountant.
Labels come from a :class:`~privbayes.evaluation.classifiers.Target`.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import sparse
from scipy.optimize import minimize
from sklearn.preprocessing import OneHotEncoder

from privbayes.baselines.common import as_random_source
from privbayes.core.validation import check_epsilon
from privbayes.evaluation.classifiers import Target, svm_misclassification
from privbayes.privacy.accountant import Accountant, Cost
from privbayes.privacy.mechanisms import DiscreteLaplace
from privbayes.privacy.samplers import RandomSource
from privbayes.schema.codes import check_codes, check_sizes


@dataclass(frozen=True)
class ClassificationResult:
    """Misclassification rate on the test rows, the predictions (None for NoPrivacy) and
    the accountant charged (None for NoPrivacy, which is not private)."""

    error: float
    predictions: np.ndarray | None
    accountant: Accountant | None
    seeded: bool = False


def _labelled(train: np.ndarray, test: np.ndarray, sizes: Sequence[int], target: Target):
    sizes_arr = check_sizes(sizes)
    train = check_codes(train, sizes_arr, "train_codes")
    test = check_codes(test, sizes_arr, "test_codes")
    if not 0 <= target.column < sizes_arr.size:
        raise ValueError(f"target.column ({target.column}) must be a column index in 0..{sizes_arr.size - 1}")
    if not target.positive or not all(0 <= c < sizes_arr[target.column] for c in target.positive):
        raise ValueError(
            f"target.positive {sorted(target.positive)} must be non-empty codes in "
            f"0..{sizes_arr[target.column] - 1} (sizes[{target.column}])"
        )
    return sizes_arr, train, test, target.labels(train), target.labels(test)


@dataclass(frozen=True)
class ObjectivePerturbation:
    """The measurement of Chaudhuri et al. 2011, Alg. 2: ε-DP for ‖x‖ ≤ 1, |y| ≤ 1 and a
    loss with |ℓ'| ≤ 1, whose L2 sensitivity of the gradient sum is 2 (Thm 9)."""

    epsilon: Fraction
    name = "objective perturbation (floating-point noise)"
    sensitivity = Fraction(2)

    def cost(self) -> Cost:
        return Cost(self.epsilon)


def _accountant(epsilon: Fraction, accountant: Accountant | None) -> Accountant:
    return Accountant(epsilon) if accountant is None else accountant


def no_privacy(train_codes: np.ndarray, test_codes: np.ndarray, sizes: Sequence[int],
               target: Target) -> ClassificationResult:
    """NoPrivacy: the linear hinge-loss SVM with C = 1 on the real training data (not private)."""
    return ClassificationResult(svm_misclassification(train_codes, test_codes, sizes, target), None, None)


def majority(
    train_codes: np.ndarray,
    test_codes: np.ndarray,
    sizes: Sequence[int],
    target: Target,
    epsilon: float | Fraction,
    rng: RandomSource | int | None = None,
    *,
    accountant: Accountant | None = None,
) -> ClassificationResult:
    """Majority (TODS 2017, §6.1): predict 1 for all iff count(Y = 1) + DLap(1/ε) > n/2, ε-DP.

    Replacing one tuple changes the count by at most 1, so discrete Laplace of scale 1/ε
    is ε-DP; n is public.
    """
    eps = check_epsilon(epsilon)
    _, train, _, y_train, y_test = _labelled(train_codes, test_codes, sizes, target)
    acc = _accountant(eps, accountant)
    source = as_random_source(rng)
    noisy = DiscreteLaplace(eps, sensitivity=Fraction(1)).release(
        np.array([int(y_train.sum())]), acc, source,
        step=f"Majority {target.name}", measured=f"count of {target.name} = 1 in the training data",
    )
    label = bool(2 * int(noisy[0]) > train.shape[0])
    predictions = np.full(y_test.shape, label)
    return ClassificationResult(float(np.mean(predictions != y_test)), predictions, acc, source.seeded)


def huber_svm_loss(z: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Huber hinge loss ℓ(z) and ℓ'(z) of the margin z (Chaudhuri et al. 2011, §3.4.2).

    ℓ(z) = 0 for z > 1 + h; (1 + h − z)² / 4h for |1 − z| ≤ h; 1 − z for z < 1 − h.
    Its second derivative is at most c = 1/2h.
    """
    loss = np.where(z > 1 + h, 0.0, np.where(z < 1 - h, 1 - z, (1 + h - z) ** 2 / (4 * h)))
    slope = np.where(z > 1 + h, 0.0, np.where(z < 1 - h, -1.0, -(1 + h - z) / (2 * h)))
    return loss, slope


def private_erm(
    train_codes: np.ndarray,
    test_codes: np.ndarray,
    sizes: Sequence[int],
    target: Target,
    epsilon: float | Fraction,
    rng: RandomSource | int | None = None,
    *,
    regularization: float = 0.01,
    huber_h: float = 0.5,
    accountant: Accountant | None = None,
) -> ClassificationResult:
    """PrivateERM: objective perturbation (Chaudhuri et al. 2011, Alg. 2), Huber SVM, ε-DP.

    Features are the one-hot codes of all attributes but the target plus a constant 1,
    scaled by 1/sqrt(m + 1) (m feature attributes), so ‖x‖ = 1; labels are ±1.  With
    c = 1/2h and Λ = ``regularization``:

        ε' = ε − log(1 + 2c/nΛ + c²/n²Λ²); if ε' > 0 then Δ = 0,
        else Δ = c / (n (e^{ε/4} − 1)) − Λ and ε' = ε/2;
        b with density ∝ exp(−ε' ‖b‖ / 2): ‖b‖ ~ Gamma(p, 2/ε'), direction uniform;
        f = argmin (1/n) Σ ℓ(y_i fᵀx_i) + (Λ/2) ‖f‖² + bᵀf / n + (Δ/2) ‖f‖².

    Known limitations of this baseline.  (1) The noise vector b is *floating-point*
    (there is no exact integer sampler for it): it is drawn by a numpy Generator seeded
    with 128 bits from the OS CSPRNG (``secrets.randbits(128)``), or from ``rng`` when
    that is a seeded source (reproducible runs) — never a floating-point Laplace sampler.  (2) The
    guarantee assumes the exact minimiser; L-BFGS stops at a tolerance.  Λ defaults to
    0.01, a fixed choice (the paper does not state its value; it is not tuned on data).
    """
    eps = check_epsilon(epsilon)
    if isinstance(regularization, bool) or not isinstance(regularization, (int, float)) or not regularization > 0:
        raise ValueError(f"regularization ({regularization!r}) must be a number > 0")
    if isinstance(huber_h, bool) or not isinstance(huber_h, (int, float)) or not 0 < huber_h < math.inf:
        raise ValueError(f"huber_h ({huber_h!r}) must be a finite number > 0")
    sizes_arr, train, test, y_train, y_test = _labelled(train_codes, test_codes, sizes, target)
    source = as_random_source(rng)
    acc = _accountant(eps, accountant)
    acc.charge(ObjectivePerturbation(eps), step=f"PrivateERM {target.name}",
               measured=f"Huber-SVM weights for {target.name} (‖x‖ ≤ 1, c = 1/2h)")
    features = [j for j in range(sizes_arr.size) if j != target.column]
    encoder = OneHotEncoder(categories=[np.arange(sizes_arr[j]) for j in features])
    scale = 1.0 / math.sqrt(len(features) + 1)

    def design(codes: np.ndarray) -> sparse.csr_matrix:
        onehot = encoder.transform(codes[:, features])
        return sparse.hstack([onehot, np.ones((codes.shape[0], 1))], format="csr") * scale

    encoder.fit(train[:, features])
    x_train, x_test = design(train), design(test)
    y = np.where(y_train, 1.0, -1.0)
    n, p = x_train.shape
    c, lam, e = 1.0 / (2 * huber_h), float(regularization), float(eps)
    eps_prime = e - math.log(1 + 2 * c / (n * lam) + c * c / (n * n * lam * lam))
    delta = 0.0
    if eps_prime <= 0:
        delta = c / (n * math.expm1(e / 4)) - lam
        eps_prime = e / 2
    seed = source.randbelow(1 << 128) if source.seeded else secrets.randbits(128)
    noise_rng = np.random.default_rng(seed)
    direction = noise_rng.standard_normal(p)
    b = direction / np.linalg.norm(direction) * noise_rng.gamma(shape=p, scale=2.0 / eps_prime)

    def objective(f: np.ndarray) -> tuple[float, np.ndarray]:
        loss, slope = huber_svm_loss(y * (x_train @ f), huber_h)
        value = loss.mean() + 0.5 * (lam + delta) * f @ f + b @ f / n
        grad = x_train.T @ (y * slope) / n + (lam + delta) * f + b / n
        return float(value), grad

    result = minimize(objective, np.zeros(p), jac=True, method="L-BFGS-B", options={"maxiter": 5000, "gtol": 1e-10})
    predictions = (x_test @ result.x) > 0
    return ClassificationResult(float(np.mean(predictions != y_test)), predictions, acc, source.seeded)
