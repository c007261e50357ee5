"""Score functions by the paper's names."""

from __future__ import annotations

from privbayes.bayesnet.scores import IndependenceDistance, MutualInformation, ScoreFunction
from privbayes.errors import InputError


def get_score(name: str) -> ScoreFunction:
    """I (mutual information), R (distance to independence) or F (distance to a maximum joint distribution)."""
    if name == "I":
        return MutualInformation()
    if name == "R":
        return IndependenceDistance()
    if name == "F":
        from privbayes.bayesnet.fscore import MaximumJointDistance

        return MaximumJointDistance()
    raise InputError(f"score ({name!r}) must be one of I, R, F")
