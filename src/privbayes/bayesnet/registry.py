"""Score functions by the paper's names."""

from __future__ import annotations

from privbayes.bayesnet.scores import CountIndependenceDistance, IndependenceDistance, MutualInformation, ScoreFunction
from privbayes.errors import InputError
from privbayes.privacy.neighbours import REPLACE_ONE, Neighbours


def get_score(name: str, relation: Neighbours = REPLACE_ONE) -> ScoreFunction:
    """I (mutual information), R (distance to independence) or F (distance to a maximum joint
    distribution), with sensitivities for ``relation`` (add/remove: R only, scored in counts)."""
    if not relation.n_public:
        if name != "R":
            raise InputError(f"score {name} has a sensitivity bound for replace-one neighbours only; with "
                             "neighbours='add-remove' use score R")
        return CountIndependenceDistance()
    if name == "I":
        return MutualInformation()
    if name == "R":
        return IndependenceDistance()
    if name == "F":
        from privbayes.bayesnet.fscore import MaximumJointDistance

        return MaximumJointDistance()
    raise InputError(f"score ({name!r}) must be one of I, R, F")
