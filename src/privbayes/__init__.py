"""privbayes: publishing sensitive tables safely with graphical models.

The core is PrivBayes (Zhang, Cormode, Procopiuc, Srivastava, Xiao; ACM TODS 2017):
an ε-differentially private Bayesian network, its noisy conditionals, and
synthetic data sampled from them.  Private data enters only through
:func:`privbayes.counting.open`; what a synthesizer releases is a model value
(:class:`BayesNetModel`) that :func:`load` reads back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privbayes._version import __version__
from privbayes.core.lazy import lazy_exports

_EXPORTS = {
    "Accountant": "privbayes.privacy.accountant",
    "AdaptiveMarginals": "privbayes.methods.adaptive.estimator",
    "Attribute": "privbayes.schema",
    "BayesNetModel": "privbayes.bayesnet.model",
    "BudgetExceededError": "privbayes.privacy.accountant",
    "InputError": "privbayes.core.errors",
    "PrivBayes": "privbayes.methods.privbayes.estimator",
    "PrivacyReport": "privbayes.privacy.report",
    "PrivateMRF": "privbayes.methods.mrf.estimator",
    "SAPrivBayes": "privbayes.methods.sa_privbayes.estimator",
    "Schema": "privbayes.schema",
    "infer_schema": "privbayes.counting.draft",
    "load": "privbayes.synthesizers.registry",
    "private_draft": "privbayes.synthesizers.private_draft",
    "synthesizer": "privbayes.synthesizers.registry",
}
"""Public names and their modules, imported on first use (PEP 562) so that ``import privbayes``
and ``privbayes --help`` do not pay for pandas, pyarrow or numba."""

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from privbayes.bayesnet.model import BayesNetModel
    from privbayes.core.errors import InputError
    from privbayes.counting.draft import infer_schema
    from privbayes.methods.adaptive.estimator import AdaptiveMarginals
    from privbayes.methods.mrf.estimator import PrivateMRF
    from privbayes.methods.privbayes.estimator import PrivBayes
    from privbayes.methods.sa_privbayes.estimator import SAPrivBayes
    from privbayes.privacy.accountant import Accountant, BudgetExceededError
    from privbayes.privacy.report import PrivacyReport
    from privbayes.schema import Attribute, Schema
    from privbayes.synthesizers.private_draft import private_draft
    from privbayes.synthesizers.registry import load, synthesizer


__getattr__ = lazy_exports(__name__, _EXPORTS)  # and privbayes.counting and the other subpackages


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = ["Accountant", "AdaptiveMarginals", "Attribute", "BayesNetModel", "BudgetExceededError", "InputError",
           "PrivBayes", "PrivacyReport",
           "PrivateMRF", "SAPrivBayes",
           "Schema", "__version__", "infer_schema", "load", "private_draft",
           "synthesizer"]
