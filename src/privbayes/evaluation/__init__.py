"""Utility metrics for synthetic data and released marginals (TODS 2017, §6.1).

* :mod:`~privbayes.evaluation.marginals`: α-way marginals and their average
  total variation distance over Qα (the counting task).
* :mod:`~privbayes.evaluation.classifiers`: the multiple-SVM task.
* :mod:`~privbayes.evaluation.information`: mutual information and KL divergence.

Every function takes integer-coded tables: an (n, d) integer array whose
column j holds codes ``0 .. sizes[j] - 1``.
"""

from privbayes.evaluation.classifiers import (
    PAPER_TARGETS,
    Target,
    svm_misclassification,
    train_test_split_indices,
)
from privbayes.evaluation.information import (
    kl_divergence,
    mutual_information,
    network_mutual_information,
)
from privbayes.evaluation.marginals import (
    all_marginals,
    average_marginal_tvd,
    average_tvd_of_marginals,
    marginal,
    marginal_tvd_table,
    workload_tvd,
)

__all__ = [
    "PAPER_TARGETS",
    "Target",
    "all_marginals",
    "average_marginal_tvd",
    "average_tvd_of_marginals",
    "kl_divergence",
    "marginal",
    "marginal_tvd_table",
    "mutual_information",
    "network_mutual_information",
    "svm_misclassification",
    "train_test_split_indices",
    "workload_tvd",
]
