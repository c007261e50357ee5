"""privbayes: publishing sensitive tables safely with graphical models.

The core is PrivBayes (Zhang, Cormode, Procopiuc, Srivastava, Xiao; ACM TODS 2017):
an ε-differentially private Bayesian network, its noisy conditionals, and
synthetic data sampled from them.  Private data enters only through
:func:`privbayes.counting.open`; what a synthesizer releases is a model value
(:class:`BayesNetModel`) that :func:`load` reads back.
"""

from privbayes._version import __version__
from privbayes.bayesnet.model import BayesNetModel
from privbayes.counting.draft import infer_schema
from privbayes.errors import InputError
from privbayes.model_file import load_model as load
from privbayes.privacy.accountant import Accountant, BudgetExceededError
from privbayes.schema import Attribute, Schema
from privbayes.synthesizers.privbayes import PrivBayes
from privbayes.synthesizers.sa_privbayes import SAPrivBayes

__all__ = ["Accountant", "Attribute", "BayesNetModel", "BudgetExceededError", "InputError", "PrivBayes", "SAPrivBayes",
           "Schema", "__version__", "infer_schema", "load"]
