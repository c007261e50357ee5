"""NoisyConditionals (TODS 2017, Alg. 1 and Alg. 3) and ancestral sampling."""

from fractions import Fraction

import numpy as np
import pytest
from helpers import categorical_schema, correlated_frame

import privbayes.bayesnet.measurements as measurements_module
from privbayes import counting
from privbayes.bayesnet.conditionals import noisy_conditionals
from privbayes.bayesnet.network import APPair, Network
from privbayes.bayesnet.sampling import ancestral_sample
from privbayes.estimation.tables import conditional_from_joint
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.samplers import random_source
from privbayes.schema.encoding import Encoding

SIZES = [2, 3, 2, 4]
# An Alg. 2 network of degree k = 2: Π_3 = {X_1, X_2} holds every earlier attribute.
NETWORK = Network((APPair(1), APPair(0, ((1, 0),)), APPair(2, ((1, 0), (0, 0))), APPair(3, ((0, 0), (2, 0)))))


@pytest.fixture(scope="module")
def table():
    schema = categorical_schema(SIZES)
    encoding = Encoding.build(schema, "vanilla")
    return counting.open(correlated_frame(SIZES, 4000, seed=11), schema).encoded(encoding)


def test_alg_1_derives_the_first_k_conditionals_from_table_k_plus_1(table, monkeypatch):
    released = []
    real = measurements_module.laplace_counts

    def capture(*args, **kwargs):
        out = real(*args, **kwargs)
        released.append(out)
        return out

    monkeypatch.setattr(measurements_module, "laplace_counts", capture)
    accountant = Accountant(1.0)
    conds = noisy_conditionals(table, NETWORK, {2: Fraction(1, 2), 3: Fraction(1, 2)}, accountant, random_source(3),
                               degree=2)
    assert len(released) == 2  # only pairs k+1..d are measured
    joint = np.maximum(released[0], 0).astype(float)  # axes: X1, X0, X2 (parents of pair 3, then child)
    joint /= joint.sum()
    expected_first = joint.sum(axis=(1, 2))                   # Pr*[X1]
    expected_second = conditional_from_joint(joint.sum(axis=2))  # Pr*[X0 | X1]
    np.testing.assert_allclose(conds[0], expected_first)
    np.testing.assert_allclose(conds[1], expected_second)
    np.testing.assert_allclose(conds[2], conditional_from_joint(joint))
    assert float(accountant.spent) == pytest.approx(1.0)


def test_exact_conditionals_equal_the_data(table):
    conds = noisy_conditionals(table, NETWORK, {2: None, 3: None}, None, random_source(0), degree=2)
    counts = table.counts([0, 2, 3])
    truth = counts / counts.sum(axis=2, keepdims=True)
    np.testing.assert_allclose(conds[3], truth)
    for cond in conds:
        np.testing.assert_allclose(cond.sum(axis=-1), 1.0)


def test_empty_parent_rows_fall_back_to_the_child_marginal():
    joint = np.array([[0.0, 0.0, 0.0], [0.2, 0.6, 0.2]])  # parent value 0 has no mass
    cond = conditional_from_joint(joint)
    np.testing.assert_allclose(cond[0], [0.2, 0.6, 0.2])
    np.testing.assert_allclose(cond[1], [0.2, 0.6, 0.2])
    np.testing.assert_allclose(conditional_from_joint(np.zeros((2, 2))), 0.5)


def test_ancestral_sampling_follows_the_conditionals():
    schema = categorical_schema([2, 3])
    encoding = Encoding.build(schema, "vanilla")
    network = Network((APPair(0), APPair(1, ((0, 0),))))
    conds = [np.array([0.25, 0.75]), np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])]
    rows = ancestral_sample(network, conds, encoding, 200_000, np.random.default_rng(1))
    assert set(map(tuple, rows[rows[:, 0] == 0])) == {(0, 0)}
    # Pr[X0 = 1] = 0.75: 5 standard deviations of a binomial proportion at n = 200,000 is 0.005.
    assert abs(rows[:, 0].mean() - 0.75) < 0.005
    ones = rows[rows[:, 0] == 1]
    assert abs((ones[:, 1] == 1).mean() - 0.5) < 0.006
