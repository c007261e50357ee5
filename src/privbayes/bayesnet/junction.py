"""The Bayesian network of a calibrated junction tree: how a consistent estimate is released.

The estimator (:mod:`privbayes.estimation.consistent`) and the model-file loader
(:mod:`privbayes.estimation.potentials`) end with a calibrated junction tree; the released model is the
network that tree defines (root clique, then each clique's new variables given its separator), whose
ancestral sampling is exact sampling from the estimate (Koller & Friedman 2009, §10.2 and §12.1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privbayes.bayesnet.network import APPair, Network
from privbayes.estimation.potentials import Potential, calibrate
from privbayes.estimation.tables import conditional_from_joint
from privbayes.inference import CalibratedTree
from privbayes.schema.encoding import Encoding


def junction_tree_network(calibrated: CalibratedTree) -> tuple[Network, tuple[np.ndarray, ...]]:
    """The Bayesian network of a calibrated junction tree, with its exact conditionals.

    The root clique's variables in order, each given the ones before; then, walking the tree
    from the root, each clique's new variables given its separator and the new ones before.
    Its joint is Π_C p(x_C) / Π_S p(x_S) = p, so ancestral sampling from it is exact."""
    tree = calibrated.tree
    order = [(0, ())] + [(child, tree.separator(parent, child)) for parent, child in tree.edges]
    pairs, conditionals = [], []
    for clique, separator in order:
        given = list(separator)
        for v in (v for v in tree.cliques[clique] if v not in separator):
            pairs.append(APPair(v, tuple((p, 0) for p in given)))
            conditionals.append(conditional_from_joint(calibrated.marginal(given + [v])))
            given.append(v)
    return Network(tuple(pairs)), tuple(conditionals)


def network_of(encoding: Encoding, potentials: Sequence[Potential]) -> tuple[Network, tuple[np.ndarray, ...]]:
    """The released network and conditionals of ``potentials`` (the junction tree's Bayesian network)."""
    with np.errstate(all="ignore"):  # a hostile θ may overflow: the caller validates the conditionals
        return junction_tree_network(calibrate(encoding, potentials))
