"""Maximum likelihood from (pseudo-)marginals, with L2 regularisation (ICML 2017, §3).

Per individual, the negative log-likelihood of data marginals µ̂ is A(θ) − θᵀµ̂; we add
λ‖θ‖² (§3.1: it keeps θ finite when some µ̂_C(i_C) = 0) and minimise the convex
objective with L-BFGS (SciPy), calling inference for A(θ) and its gradient µ(θ) − µ̂.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from privbayes.undirected.model import LogLinearModel, clique_marginals, flatten, unflatten


def fit_mle(model: LogLinearModel, target: Sequence[np.ndarray], lam: float, *, max_iters: int = 500,
            tol: float = 1e-6) -> LogLinearModel:
    """argmin_θ A(θ) − θᵀµ̂ + λ‖θ‖², started from ``model``'s θ (warm starts in EM)."""
    if not lam >= 0:
        raise ValueError(f"lam ({lam!r}) must be >= 0")
    try:
        from scipy.optimize import minimize
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError("fitting an MRF needs SciPy: pip install 'privbayes[undirected]'") from None
    mu_hat = flatten(target)
    domain, cliques, engine = model.domain, model.cliques, model.engine

    def objective(vector: np.ndarray) -> tuple[float, np.ndarray]:
        tables = unflatten(vector, domain, cliques)
        beliefs = engine.infer(tables)
        mu = flatten(clique_marginals(beliefs, cliques))
        value = beliefs.log_z - vector @ mu_hat + lam * vector @ vector
        return value, mu - mu_hat + 2 * lam * vector

    result = minimize(objective, flatten(model.theta), jac=True, method="L-BFGS-B",
                      options={"maxiter": max_iters, "gtol": tol, "ftol": 1e-11})
    return model.with_theta(unflatten(result.x, domain, cliques))
