"""Neighbouring relations: what "one individual's data" means for a guarantee.

* ``replace-one`` (TODS 2017, Def. 2.1; the default): neighbours differ in one tuple's
  values and have the same n, which is public.  A count table moves by at most 2 in L1
  (one cell −1, another +1).
* ``add-remove`` (unbounded DP; the relation of MST, AIM and Private-PGM): neighbours
  differ by one tuple's presence, so n is private.  A count table moves by at most 1 in
  L1.  An ε-DP release under add-remove is 2ε-DP under replace-one (a replacement is a
  removal then an addition); the converse does not hold, since a replace-one release may
  publish n exactly.

Mechanisms take their sensitivity from the relation, so the ledger shows the Δ it paid at.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from privbayes.core.errors import InputError
from privbayes.schema import DraftRelease


@dataclass(frozen=True)
class Neighbours:
    """A neighbouring relation and the facts of it that the mechanisms need."""

    name: str
    description: str
    count_sensitivity: Fraction
    """L1 change of a contingency table between neighbours."""
    n_public: bool
    """Whether the number of tuples is the same in all neighbours (so may be used as public)."""


REPLACE_ONE = Neighbours("replace-one", "replace one tuple; the number of tuples n is public (TODS 2017, Def. 2.1)",
                         Fraction(2), True)
ADD_REMOVE = Neighbours("add-remove", "add or remove one tuple; the number of tuples n is private (a noisy count "
                        "is released)", Fraction(1), False)
RELATIONS = {r.name: r for r in (REPLACE_ONE, ADD_REMOVE)}


def neighbours(name: str | None) -> Neighbours:
    """The relation called ``name`` (``None``: replace-one, the TODS relation)."""
    if name is None:
        return REPLACE_ONE
    if name not in RELATIONS:
        raise InputError(f"neighbours ({name!r}) must be one of {', '.join(RELATIONS)}")
    return RELATIONS[name]


def draft_cost(draft: DraftRelease, fit: Neighbours) -> Fraction:
    """What a private schema draft costs under the fit's relation, so that draft + fit compose
    sequentially (docs/decisions.md, "Private schema drafts"): its ε under the same relation; twice its
    ε for an add-remove draft under a replace-one fit (a replacement is a removal and an addition).  A
    replace-one draft under an add-remove fit is refused: replace-one ε-DP implies nothing under
    add-remove in general (it may publish n)."""
    if draft.neighbours == fit.name:
        return draft.epsilon
    if draft.neighbours == ADD_REMOVE.name:
        return 2 * draft.epsilon
    raise InputError("the schema's private draft was released under replace-one neighbours, which does not cover "
                     "an add-remove fit; draft it with --neighbours add-remove")
