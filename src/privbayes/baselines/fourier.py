"""The Fourier baseline (TODS 2017, §6.1 (ii)).

Barak, Chaudhuri, Dwork, Kale, McSherry and Talwar, "Privacy, accuracy, and
consistency too: a holistic solution to contingency table release" (PODS 2007).
For binary attributes the marginal over a set S is determined by the Fourier
(Walsh-Hadamard) coefficients

    f_β = Σ_x (-1)^{β·x} count(x),      β ⊆ S,

and the marginal over S is their inverse transform:
count_S(y) = 2^{-|S|} Σ_{β ⊆ S} (-1)^{β·y} f_β.  So it suffices to release, with
noise, the coefficients β ⊆ S for every requested S (for Qα: every |β| ≤ α) and to
reconstruct each marginal from them; the marginals are then consistent *with each
other* before our per-marginal consistency (non-negativity, normalisation).

Privacy.  Each f_β is an integer; replacing one tuple x by x' changes it by
(-1)^{β·x'} - (-1)^{β·x} ∈ {-2, 0, 2}.  With K released coefficients the vector has
L1 sensitivity 2K, and discrete Laplace noise of scale 2K/ε on each is ε-DP (one
ledger entry).  f_∅ = n is public under "replace one tuple, n public" and is used
exactly, not released with noise.  The coefficients are computed from the counting
layer's exact marginals: f_β for β ⊆ S is the transform of the marginal over S.

Non-binary attributes.  Barak et al. assume binary attributes; here an attribute of
ℓ values is written as its ⌈log2 ℓ⌉-bit binary code, most significant bit first —
exactly the code of ``Encoding.build(schema, "binary")`` (TODS 2017, §5.1) — and the
coefficients range over subsets of the bits of each requested marginal.  Bit patterns
≥ ℓ are values outside the public domain: they are dropped from the reconstructed
marginal (post-processing).  A table built on the binary encoding itself gives
marginals over single bits instead; both are the Fourier baseline on binary data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privbayes.baselines.common import (
    MarginalRelease,
    Subset,
    SubsetsArg,
    as_random_source,
    consistent,
    resolve_subsets,
    walsh_hadamard,
)
from privbayes.core.validation import check_epsilon
from privbayes.counting.base import PrivateTable
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.mechanisms import COUNT_TABLE_SENSITIVITY, laplace_counts
from privbayes.privacy.samplers import RandomSource
from privbayes.schema.encoding import Encoding, bit_width


@dataclass(frozen=True)
class BitLayout:
    """Where each attribute's bits sit among all bits (public: from the domain)."""

    sizes: tuple[int, ...]
    widths: tuple[int, ...]
    offsets: tuple[int, ...]

    @classmethod
    def of(cls, encoding: Encoding) -> BitLayout:
        sizes = tuple(a.size for a in encoding.attributes)
        widths = tuple(bit_width(s) for s in sizes)
        offsets = tuple(int(o) for o in np.cumsum((0,) + widths[:-1]))
        return cls(sizes, widths, offsets)

    def bits(self, subset: Subset) -> list[int]:
        """Global bit ids of ``subset``'s attributes, in axis order, most significant first."""
        return [self.offsets[a] + b for a in subset for b in range(self.widths[a])]

    def masks(self, subset: Subset) -> list[int]:
        """The bit set β (as an int mask over global bit ids) of every local index of the
        transform over ``subset``'s bits (C order, first bit most significant)."""
        masks = [0]
        for bit in self.bits(subset):
            masks = [m | extra for m in masks for extra in (0, 1 << bit)]
        return masks


def exact_fourier_coefficients(table: PrivateTable, subsets: Sequence[Subset]) -> dict[int, int]:
    """NOT PRIVATE: the exact coefficients f_β for every non-empty β ⊆ bits(S), S in ``subsets``.

    Keys are bit masks over the layout's global bit ids.  The only caller that releases
    anything is :func:`fourier_marginals`, which adds noise; tests use this directly.
    """
    layout = BitLayout.of(table.encoding)
    coefficients: dict[int, int] = {}
    for subset in subsets:
        counts = np.asarray(table.counts(subset), dtype=np.int64)
        padded = np.zeros(tuple(2 ** layout.widths[a] for a in subset), dtype=np.int64)
        padded[tuple(slice(0, s) for s in counts.shape)] = counts
        transform = walsh_hadamard(padded)
        for mask, value in zip(layout.masks(subset)[1:], transform[1:].tolist()):
            coefficients.setdefault(mask, value)
    return coefficients


def marginals_from_coefficients(
    coefficients: Mapping[int, float], n: int, encoding: Encoding, subsets: Sequence[Subset]
) -> dict[Subset, np.ndarray]:
    """Count tables over each subset reconstructed from its coefficients (inverse transform).

    Post-processing only: ``coefficients`` (noisy or exact) must hold every non-empty
    β ⊆ bits(S); f_∅ is ``n``.  Cells of bit patterns outside the domain are dropped.
    Without noise the result equals the exact count tables.
    """
    layout = BitLayout.of(encoding)
    tables: dict[Subset, np.ndarray] = {}
    for subset in subsets:
        masks = layout.masks(subset)
        vector = np.array([n] + [coefficients[m] for m in masks[1:]])
        counts = walsh_hadamard(vector) / len(masks)
        counts = counts.reshape(tuple(2 ** layout.widths[a] for a in subset))
        tables[subset] = counts[tuple(slice(0, layout.sizes[a]) for a in subset)]
    return tables


def fourier_marginals(
    table: PrivateTable,
    marginals: SubsetsArg,
    epsilon: float | Fraction,
    rng: RandomSource | int | None = None,
) -> MarginalRelease:
    """Release the marginals over ``marginals`` (α or subsets) via noisy Fourier coefficients, ε-DP.

    One discrete Laplace release of all K coefficients (scale 2K/ε, sensitivity 2K),
    then inverse transforms and consistency.  ``rng`` as in
    :func:`privbayes.baselines.laplace.laplace_marginals`.
    """
    eps = check_epsilon(epsilon)
    source = as_random_source(rng)
    subsets = resolve_subsets(table.encoding, marginals)
    accountant = Accountant(eps)
    exact = exact_fourier_coefficients(table, subsets)
    keys = sorted(exact)
    noisy = laplace_counts(
        np.array([exact[k] for k in keys], dtype=np.int64),
        eps,
        accountant,
        source,
        step="Fourier coefficients",
        measured=f"{len(keys)} Fourier coefficients f_β, 1 ≤ |β| (bits of the requested marginals)",
        sensitivity=COUNT_TABLE_SENSITIVITY * len(keys),
    )
    tables = marginals_from_coefficients(dict(zip(keys, noisy.tolist())), table.n, table.encoding, subsets)
    return MarginalRelease({s: consistent(t) for s, t in tables.items()}, accountant, source.seeded)
