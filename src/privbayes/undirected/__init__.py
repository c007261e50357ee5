"""Private undirected graphical models (Bernstein et al., ICML 2017): noisy clique tables,
naive MLE, CGM-EM with non-linear BP, and the PSGD baseline."""

from privbayes.undirected.estimation import CGMOptions, cgm_em, naive_mle, nlbp
from privbayes.undirected.estimator import PrivateMRF
from privbayes.undirected.measurements import NoisyStatistics, measure
from privbayes.undirected.mle import fit_mle
from privbayes.undirected.model import LogLinearModel
from privbayes.undirected.projection import project_simplex

__all__ = ["CGMOptions", "LogLinearModel", "NoisyStatistics", "PrivateMRF", "cgm_em", "fit_mle", "measure",
           "naive_mle", "nlbp", "project_simplex"]
