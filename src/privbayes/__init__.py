"""privbayes: publishing sensitive tables safely with graphical models.

The core is PrivBayes (Zhang, Cormode, Procopiuc, Srivastava, Xiao; ACM TODS 2017):
an ε-differentially private Bayesian network, its noisy conditionals, and
synthetic data sampled from them.
"""

from privbayes.errors import InputError
from privbayes.model_file import load_model as load
from privbayes.privacy.accountant import Accountant, BudgetExceededError
from privbayes.schema import Attribute, Schema, infer_schema
from privbayes.synthesizers.privbayes import PrivBayes

__all__ = ["Accountant", "Attribute", "BudgetExceededError", "InputError", "PrivBayes", "Schema", "infer_schema", "load"]
__version__ = "0.1.0"
