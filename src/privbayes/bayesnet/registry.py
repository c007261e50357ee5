"""Score functions by the paper's names, per neighbouring relation.

Adding a score: a class following :class:`~privbayes.bayesnet.scores.ScoreFunction`, and one entry
below for each relation whose sensitivity bound it proves (``tests/bayesnet/test_sensitivity_bruteforce.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from privbayes.bayesnet.scores import CountIndependenceDistance, IndependenceDistance, MutualInformation, ScoreFunction
from privbayes.core.errors import InputError
from privbayes.privacy.neighbours import ADD_REMOVE, REPLACE_ONE, Neighbours


def _maximum_joint_distance() -> ScoreFunction:
    from privbayes.bayesnet.fscore import MaximumJointDistance  # numba-backed: imported on first use

    return MaximumJointDistance()


SCORES = {"I": "mutual information (TODS 2017, §4.1)", "R": "distance to independence (§4.3)",
          "F": "distance to a maximum joint distribution (§4.2)"}
"""The score functions by the paper's names."""

_BY_RELATION: dict[str, dict[str, Callable[[], ScoreFunction]]] = {
    REPLACE_ONE.name: {"I": MutualInformation, "R": IndependenceDistance, "F": _maximum_joint_distance},
    ADD_REMOVE.name: {"R": CountIndependenceDistance},  # n·R, in counts: the bound of docs/decisions.md
}


def get_score(name: str, relation: Neighbours = REPLACE_ONE) -> ScoreFunction:
    """I (mutual information), R (distance to independence) or F (distance to a maximum joint
    distribution), with sensitivities for ``relation`` (add/remove: R only, scored in counts)."""
    if name not in SCORES:
        raise InputError(f"score ({name!r}) must be one of {', '.join(SCORES)}")
    scores = _BY_RELATION[relation.name]
    if name not in scores:
        raise InputError(f"score {name} has a sensitivity bound for replace-one neighbours only; with "
                         f"neighbours='{relation.name}' use score {' or '.join(scores)}")
    return scores[name]()
