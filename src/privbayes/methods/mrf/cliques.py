"""The user's cliques of a private MRF, and the algorithms that fit it (ICML 2017)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from privbayes.core.errors import InputError
from privbayes.schema import Schema

ALGORITHMS = {
    "auto": "noisy sufficient statistics + naive MLE of the projected marginals, the cells the projection zeroed "
            "floored at the detection limit, its L2 weight per clique set from the public noise-to-count ratio "
            "(ICML 2017, §3.1; docs/decisions.md, MRF default estimate)",
    "naive": "noisy sufficient statistics + naive MLE on simplex-projected marginals (ICML 2017, §3.1)",
    "cgm": "noisy sufficient statistics + CGM EM with non-linear BP (ICML 2017, §3.2, Alg. 1-2)",
    "psgd": "noisy full-batch gradient descent, Gaussian noise, (ε, δ)-DP (Abadi et al. 2016; ICML 2017, §4)",
}


def clique_indices(cliques: Any, schema: Schema | None) -> tuple[tuple[int, ...], ...]:
    """Cliques as attribute indices; each a non-empty list of distinct names of ``schema``."""
    if isinstance(cliques, (str, bytes)) or not isinstance(cliques, Sequence) or len(cliques) == 0:
        raise InputError("cliques must be a non-empty list of attribute-name tuples")
    out = []
    for clique in cliques:
        if isinstance(clique, str):
            clique = (clique,)
        if not isinstance(clique, Sequence) or len(clique) == 0 or not all(isinstance(a, str) for a in clique):
            raise InputError(f"clique {clique!r} must be a non-empty tuple of attribute names")
        if len(set(clique)) != len(clique):
            raise InputError(f"clique {tuple(clique)!r} repeats an attribute")
        out.append(tuple(schema.index(a) for a in clique) if schema is not None else tuple(range(len(clique))))
    return tuple(out)
