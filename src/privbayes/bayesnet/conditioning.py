"""Conditional sampling from a released Bayesian network: rows given fixed values of some columns.

The network's conditionals Pr*[X_i | Π_i] are factors of one joint distribution over the encoded
attributes (a generalised parent reads its leaf through its taxonomy level); a condition
``column = value`` is one more factor, 1 where the column's leaf code is the value's and 0
elsewhere (over the column's bits for the binary and Gray encodings).  Exact inference with that
evidence (:mod:`privbayes.inference.evidence`) draws exactly from Pr*[x | conditions] — the
conditional of the released model, post-processing of it, so it costs no privacy.  A condition of
probability zero under the model, or a tree over the exact-inference cap, is refused in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from privbayes.bayesnet.network import Network
from privbayes.core.errors import InputError
from privbayes.inference.evidence import TooLargeForExact, ZeroProbability, evidence_sampler
from privbayes.inference.factor import Domain
from privbayes.schema.encoding import Encoding, bit_width
from privbayes.schema.values import leaf_conditions


def network_factors(network: Network, conditionals: Sequence[np.ndarray],
                    encoding: Encoding) -> tuple[Domain, list[tuple[int, ...]], list[np.ndarray]]:
    """The released joint as factors over the encoded attributes: each conditional spread from its
    parents' levels to their leaf codes, in log space."""
    attrs = encoding.attributes
    domain = Domain(tuple(a.size for a in attrs))
    scopes, tables = [], []
    for pair, table in zip(network.pairs, conditionals):
        parents = [a for a, _ in pair.parents]
        index = [attrs[a].levels[level] for a, level in pair.parents] + [np.arange(attrs[pair.child].size)]
        leaf_table = table[np.ix_(*index)]  # levels → leaves: a generalised parent's leaves share its row
        with np.errstate(divide="ignore"):
            tables.append(np.log(leaf_table))
        scopes.append((*parents, pair.child))
    return domain, scopes, tables


def evidence_factors(encoding: Encoding, codes: Mapping[int, int]) -> tuple[list[tuple[int, ...]], list[np.ndarray]]:
    """One factor per condition: 0 where the attribute's encoded variables decode to its code, −∞ elsewhere."""
    scopes: list[tuple[int, ...]] = []
    tables: list[np.ndarray] = []
    for j, code in codes.items():
        if encoding.name in ("vanilla", "hierarchical"):
            table = np.full(encoding.attributes[j].size, -np.inf)
            table[code] = 0.0
            scopes.append((j,))
        else:
            first = sum(bit_width(a.size) for a in encoding.schema.attributes[:j])
            width = bit_width(encoding.schema.attributes[j].size)
            patterns = np.array(np.unravel_index(np.arange(2**width), (2,) * width)).T  # every bit pattern
            decoded = _decoded(encoding, j, patterns)
            table = np.where(decoded == code, 0.0, -np.inf).reshape((2,) * width)
            scopes.append(tuple(range(first, first + width)))
        tables.append(table)
    return scopes, tables


def _decoded(encoding: Encoding, j: int, patterns: np.ndarray) -> np.ndarray:
    """The leaf code of attribute ``j`` that each of its bit patterns decodes to."""
    widths = [bit_width(a.size) for a in encoding.schema.attributes]
    full = np.zeros((len(patterns), sum(widths)), dtype=np.int64)
    start = sum(widths[:j])
    full[:, start:start + widths[j]] = patterns
    return encoding.decode(full)[:, j]


def conditional_draw(network: Network, conditionals: Sequence[np.ndarray], encoding: Encoding,
                     conditions: Mapping[str, Any]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """A function drawing ``n`` rows of leaf codes (n × d) from the model given ``conditions``."""
    codes = leaf_conditions(encoding.schema, conditions)
    domain, scopes, tables = network_factors(network, conditionals, encoding)
    extra_scopes, extra_tables = evidence_factors(encoding, codes)
    try:
        draw, _ = evidence_sampler(domain, scopes + extra_scopes, tables + extra_tables)
    except ZeroProbability:
        shown = ", ".join(f"{name} = {value!r}" for name, value in conditions.items())
        raise InputError(f"the conditions {shown} have probability zero under the model: nothing to sample") from None
    except TooLargeForExact as exc:
        raise InputError(f"conditional sampling needs exact inference: {exc}") from None

    def rows(n: int, rng: np.random.Generator) -> np.ndarray:
        leaves = encoding.decode(draw(n, rng))
        for j, code in codes.items():  # by construction; checked, as the evidence is the promise
            if not np.all(leaves[:, j] == code):
                raise AssertionError("a conditioned column was drawn off its condition")
        return leaves
    return rows

