"""Maximum likelihood from (pseudo-)marginals, with L2 regularisation (ICML 2017, §3).

Per individual, the negative log-likelihood of data marginals µ̂ is A(θ) − θᵀµ̂; we add
λ‖θ‖² (§3.1: it keeps θ finite when some µ̂_C(i_C) = 0) and minimise the convex
objective with L-BFGS (SciPy), calling inference for A(θ) and its gradient µ(θ) − µ̂.
λ may also be one weight per clique, Σ_C λ_C‖θ_C‖² (the calibrated estimator of
:mod:`privbayes.methods.mrf.estimation` sets each from its clique's noise-to-count ratio).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privbayes.methods.mrf.model import LogLinearModel, clique_marginals, flatten, unflatten


def fit_mle(model: LogLinearModel, target: Sequence[np.ndarray], lam: float | Sequence[float], *,
            max_iters: int = 500, tol: float = 1e-6) -> LogLinearModel:
    """argmin_θ A(θ) − θᵀµ̂ + Σ_C λ_C‖θ_C‖², started from ``model``'s θ (warm starts in EM); ``lam`` is
    one λ for every clique or one per clique."""
    weights = np.broadcast_to(np.asarray(lam, dtype=np.float64), (len(model.cliques),))
    if not np.all(weights >= 0):
        raise ValueError(f"lam ({lam!r}) must be >= 0")
    try:
        from scipy.optimize import minimize
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("fitting an MRF needs SciPy: pip install 'privbayes[undirected]'") from None
    mu_hat = flatten(target)
    domain, cliques, engine = model.domain, model.cliques, model.engine
    # One λ: the scalar form (bit-for-bit the objective before per-clique weights existed).
    per_cell = (float(weights[0]) if np.all(weights == weights[0])
                else np.repeat(weights, [domain.cells(c) for c in cliques]))

    def objective(vector: np.ndarray) -> tuple[float, np.ndarray]:
        tables = unflatten(vector, domain, cliques)
        beliefs = engine.infer(tables)
        mu = flatten(clique_marginals(beliefs, cliques))
        value = beliefs.log_z - vector @ mu_hat + (per_cell * vector) @ vector
        return value, mu - mu_hat + 2 * per_cell * vector

    result = minimize(objective, flatten(model.theta), jac=True, method="L-BFGS-B",
                      options={"maxiter": max_iters, "gtol": tol, "ftol": 1e-11})
    return model.with_theta(unflatten(result.x, domain, cliques))
