"""PrivBayes on data drawn from a known Bayesian network of degree 2 (n = 100,000)."""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from helpers import categorical_schema

from privbayes import PrivBayes
from privbayes.privacy.samplers import SeededRandomSource

SIZES = [3, 2, 3, 2, 3]
N = 100_000
# The true network: A → B, (A, B) → C, (B, C) → D, (C, D) → E.  Each conditional row puts
# probability PEAKS[X] on (sum of parent values) mod |X| and spreads the rest evenly.  The
# strengths decrease along the order so that greedy selection (a heuristic, §4.1) meets the
# true families first; every parent configuration keeps ≥ 2.5 % of the rows (asserted below).
PARENTS = {0: (), 1: (0,), 2: (0, 1), 3: (1, 2), 4: (2, 3)}
PEAKS = {0: 0.4, 1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6}


def true_cpts() -> dict[int, np.ndarray]:
    cpts = {}
    for child, parents in PARENTS.items():
        size = SIZES[child]
        configs = (np.indices(tuple(SIZES[p] for p in parents)).reshape(len(parents), -1).sum(axis=0) if parents
                   else np.zeros(1, int))
        rows = np.full((len(configs), size), (1 - PEAKS[child]) / (size - 1))
        rows[np.arange(len(configs)), configs % size] = PEAKS[child]
        cpts[child] = rows.reshape(tuple(SIZES[p] for p in parents) + (size,))
    return cpts


def sample_network(cpts, n, seed):
    rng = np.random.default_rng(seed)
    codes = np.zeros((n, len(SIZES)), dtype=np.int64)
    for child, parents in PARENTS.items():
        rows = (cpts[child][tuple(codes[:, p] for p in parents)] if parents
                else np.broadcast_to(cpts[child], (n, SIZES[child])))
        cdf = np.cumsum(rows, axis=1)
        codes[:, child] = np.minimum((rng.random(n)[:, None] >= cdf).sum(axis=1), SIZES[child] - 1)
    return pd.DataFrame({f"a{j}": codes[:, j] for j in range(len(SIZES))})


@pytest.fixture(scope="module")
def data():
    cpts = true_cpts()
    return cpts, sample_network(cpts, N, seed=9)


def seed_starting_at(root: int) -> int:
    """A DP seed whose first draw (GreedyBayes picks X1 uniformly) is the true root."""
    return next(s for s in range(1000) if SeededRandomSource(s).randbelow(len(SIZES)) == root)


def test_every_parent_configuration_is_well_populated(data):
    cpts, frame = data
    for _child, parents in PARENTS.items():
        if parents:
            assert frame.groupby([f"a{p}" for p in parents]).size().min() >= 0.025 * N


def test_large_epsilon_recovers_parents_and_conditionals(data):
    # With ≥ 2,500 rows per configuration and ≤ 3 values, the expected TVD of an empirical
    # row is ≤ ½·Σ sqrt(p_i/m) ≤ ½·sqrt(3/2500) ≈ 0.017; measured maxima over four data seeds
    # were 0.007-0.010.  The bound 0.02 is the acceptance figure.
    cpts, frame = data
    model = PrivBayes(1e6, degree=2, score="R", random_state=seed_starting_at(0),
                      estimation="projected").fit(frame, categorical_schema(SIZES))
    learned = {pair.child: tuple(sorted(a for a, _ in pair.parents)) for pair in model.network_.pairs}
    assert learned == PARENTS
    for pair, cond in zip(model.network_.pairs, model.conditionals_):
        order = [a for a, _ in pair.parents]
        truth = (np.transpose(cpts[pair.child], [PARENTS[pair.child].index(a) for a in order] + [len(order)])
                 if order else cpts[pair.child])
        tvd = 0.5 * np.abs(cond - truth).sum(axis=-1)
        assert tvd.max() < 0.02, (pair, tvd.max())


def _marginals(frame: pd.DataFrame) -> dict:
    out = {}
    for a, b in combinations(range(len(SIZES)), 2):
        table = pd.crosstab(frame[f"a{a}"], frame[f"a{b}"]).reindex(index=range(SIZES[a]), columns=range(SIZES[b]),
                                                                    fill_value=0)
        out[(a, b)] = table.to_numpy() / len(frame)
    return out


def test_epsilon_one_beats_the_independent_model(data):
    cpts, frame = data
    truth = _marginals(frame)
    synthetic = PrivBayes(1.0, random_state=21).fit(frame, categorical_schema(SIZES)).sample(N, random_state=22)
    synth = _marginals(synthetic.astype(int))
    tvd_synth = np.mean([0.5 * np.abs(synth[k] - truth[k]).sum() for k in truth])
    tvd_indep = np.mean([0.5 * np.abs(np.outer(truth[k].sum(1), truth[k].sum(0)) - truth[k]).sum() for k in truth])
    assert tvd_synth < tvd_indep
