"""privbayes.inference against brute-force enumeration on a table of awkward small models."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from privbayes.inference import (
    Domain,
    Factor,
    build_junction_tree,
    gibbs_sample,
    logsumexp,
    make_engine,
    sample,
    sample_junction_tree,
)

# (name, sizes, scopes, is the factor graph a tree?)
CASES = [
    ("chain", (2, 3, 2, 3, 2, 3), [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], True),
    ("star tree", (3, 2, 2, 3, 2), [(0, 1), (0, 2), (0, 3), (3, 4)], True),
    ("cycle", (2, 3, 2, 3, 2), [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)], False),
    ("singletons", (3, 2, 3), [(0,), (1,), (2,)], True),
    ("permuted duplicates", (2, 3, 3), [(0, 1), (1, 0), (2, 1), (1,), (1, 2)], False),
    ("triangle + pendant", (2, 2, 3, 2), [(0, 1, 2), (2, 1), (2, 3)], False),
    ("disconnected", (3, 2, 2, 3), [(0, 1), (2, 3)], True),
    ("uncovered variable", (2, 3, 2, 2), [(0, 1), (1, 3)], True),
    ("cycle with chord", (2, 2, 3, 2, 2, 3), [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (1, 4)], False),
]


def _potentials(sizes, scopes, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    return [scale * rng.normal(size=tuple(sizes[v] for v in s)) for s in scopes]


def _queries(sizes, scopes):
    """Every scope, every variable, and every pair inside a scope."""
    out = {tuple(s) for s in scopes} | {(v,) for v in range(len(sizes))}
    for s in scopes:
        out |= set(itertools.combinations(s, 2))
    return sorted(out)


@pytest.mark.parametrize("name,sizes,scopes,is_tree", CASES, ids=[c[0] for c in CASES])
def test_junction_tree_matches_enumeration(name, sizes, scopes, is_tree):
    domain = Domain(sizes)
    potentials = _potentials(sizes, scopes, seed=len(name))
    truth = make_engine(domain, scopes, "brute").infer(potentials)
    exact = make_engine(domain, scopes, "exact").infer(potentials)
    # Both are sums of the same finite numbers in a different order: agreement to rounding.
    assert exact.log_z == pytest.approx(truth.log_z, abs=1e-10)
    for query in _queries(sizes, scopes):
        np.testing.assert_allclose(exact.marginal(query), truth.marginal(query), atol=1e-12)


@pytest.mark.parametrize("scale", [50.0, 300.0])
def test_junction_tree_survives_extreme_potentials(scale):
    """Calibration in linear space scales each clique by its largest entry: potentials of ±several
    hundred (exp would overflow or underflow unscaled) give the enumeration's log Z and marginals,
    and impossible cells (−inf) stay impossible."""
    _, sizes, scopes, _ = CASES[1]  # the star tree
    domain = Domain(sizes)
    potentials = _potentials(sizes, scopes, seed=11, scale=scale)
    potentials[0][0, 0] = -np.inf
    truth = make_engine(domain, scopes, "brute").infer(potentials)
    exact = make_engine(domain, scopes, "exact").infer(potentials)
    assert exact.log_z == pytest.approx(truth.log_z, rel=1e-12)
    for query in _queries(sizes, scopes):
        np.testing.assert_allclose(exact.marginal(query), truth.marginal(query), atol=1e-12)
    assert exact.marginal((0, 1))[0, 0] == 0.0


def test_junction_tree_keeps_mass_that_no_single_factor_favours():
    """The joint's mass sits where each factor alone is tiny (x1 = 1: e^−900 in one factor, the other
    factor's favourite x1 = 0 is e^−2000 in the joint).  Calibration in linear space, even with each
    factor scaled by its maximum, underflows both to 0 and loses Z; log space must not."""
    domain = Domain((2, 2, 2))
    scopes = [(0, 1), (1, 2)]
    first = np.array([[0.0, -900.0], [0.0, -900.0]])
    second = np.array([[-2000.0, -2000.0], [0.0, 0.0]])
    truth = make_engine(domain, scopes, "brute").infer([first, second])
    exact = make_engine(domain, scopes, "exact").infer([first, second])
    assert np.isfinite(exact.log_z)
    assert exact.log_z == pytest.approx(truth.log_z, rel=1e-12)
    np.testing.assert_allclose(exact.marginal((1,)), truth.marginal((1,)), atol=1e-12)
    assert exact.marginal((1,))[1] == pytest.approx(1.0)


def test_brute_force_is_the_definition():
    """The twin itself against a hand enumeration of p(x) ∝ exp(Σ θ)."""
    domain = Domain((2, 3))
    scopes = [(1, 0), (0,)]
    potentials = _potentials(domain.sizes, scopes, seed=3)
    weights = np.array([[math.exp(potentials[0][b, a] + potentials[1][a]) for b in range(3)] for a in range(2)])
    beliefs = make_engine(domain, scopes, "brute").infer(potentials)
    assert beliefs.log_z == pytest.approx(math.log(weights.sum()), abs=1e-12)
    np.testing.assert_allclose(beliefs.marginal((1, 0)), (weights / weights.sum()).T, atol=1e-14)


@pytest.mark.parametrize("name,sizes,scopes,is_tree", [c for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]])
def test_loopy_bp_is_exact_on_trees(name, sizes, scopes, is_tree):
    domain = Domain(sizes)
    potentials = _potentials(sizes, scopes, seed=7)
    truth = make_engine(domain, scopes, "brute").infer(potentials)
    loopy = make_engine(domain, scopes, "loopy", tol=1e-13, max_iters=2000).infer(potentials)
    assert loopy.converged
    # BP on a tree converges to the exact fixed point; messages stop changing at 1e-13, so
    # beliefs (products of ≤ 6 messages) are exact to ~1e-11.
    assert loopy.log_z == pytest.approx(truth.log_z, abs=1e-9)
    for query in _queries(sizes, scopes):
        np.testing.assert_allclose(loopy.marginal(query), truth.marginal(query), atol=1e-9)


def test_loopy_bp_on_a_cycle_is_close_but_not_exact():
    name, sizes, scopes, _ = CASES[2]
    domain = Domain(sizes)
    potentials = _potentials(sizes, scopes, seed=1, scale=0.3)
    truth = make_engine(domain, scopes, "brute").infer(potentials)
    loopy = make_engine(domain, scopes, "loopy").infer(potentials)
    assert loopy.converged
    errors = [np.abs(loopy.marginal((v,)) - truth.marginal((v,))).max() for v in range(len(sizes))]
    # Weak couplings (sd 0.3): loopy BP is accurate to a few 1e-3 but a single loop makes it inexact.
    assert max(errors) < 0.02 and max(errors) > 1e-8


def test_auto_switches_to_loopy_when_the_tree_is_too_large():
    domain = Domain((3,) * 6)
    scopes = [(i, j) for i in range(6) for j in range(i + 1, 6)]  # complete graph: one clique of 729 cells
    assert make_engine(domain, scopes).exact
    assert not make_engine(domain, scopes, max_exact_cells=700).exact


def test_junction_tree_has_running_intersection():
    domain = Domain((2,) * 6)
    scopes = CASES[8][2]
    tree = build_junction_tree(domain, scopes)
    for v in range(6):  # the cliques that contain v form a connected subtree
        holding = {i for i, c in enumerate(tree.cliques) if v in c}
        linked = {(p, c) for p, c in tree.edges if p in holding and c in holding}
        assert len(linked) == len(holding) - 1
    assert all(tree.covering_clique(s) is not None for s in scopes)


def test_factor_product_and_marginal_match_loops():
    rng = np.random.default_rng(0)
    a = Factor((2, 0), rng.normal(size=(3, 2)))
    b = Factor((0, 1), rng.normal(size=(2, 4)))
    ab = a.product(b)
    for x2, x0, x1 in itertools.product(range(3), range(2), range(4)):
        assert ab.log_values[x2, x0, x1] == pytest.approx(a.log_values[x2, x0] + b.log_values[x0, x1])
    m = ab.marginalize((1, 2))
    assert m.log_values[3, 1] == pytest.approx(math.log(sum(math.exp(ab.log_values[1, x0, 3]) for x0 in range(2))))
    assert float(logsumexp(np.full(3, -np.inf))) == -np.inf


@pytest.mark.parametrize("shape", [(2,), (3,), (5, 7), (4, 3, 2), (2, 16), (3, 17), (6, 1, 9), (2, 3, 5)])
def test_logsumexp_is_the_reference_formula_to_the_bit_on_every_axis_set(shape: tuple[int, ...]) -> None:
    """The fast path (one temporary; a short last axis maximised by halving) against the textbook formula,
    exactly: with -inf cells, whole -inf slices and odd short axes, on every set of axes."""
    rng = np.random.default_rng(3)
    values = rng.normal(size=shape) * 4
    values.flat[::3] = -np.inf
    values[..., 0] = -np.inf if values.ndim > 1 else values[..., 0]
    for axes in [None, *(c for r in range(1, len(shape) + 1) for c in itertools.combinations(range(len(shape)), r))]:
        top = np.max(values, axis=axes, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore"):
            expected = np.log(np.sum(np.exp(values - top), axis=axes, keepdims=True)) + top
        expected = np.squeeze(expected, axis=axes) if axes is not None else expected.reshape(())
        assert np.array_equal(logsumexp(values, axis=axes), expected), axes


def _bernstein_radius(p: np.ndarray, n: int, cells: int, delta: float = 1e-6) -> np.ndarray:
    """t with P(|p̂ − p| ≥ t) ≤ δ/cells for a binomial proportion (Bernstein's inequality,
    2·exp(−n t² / (2p(1−p) + 2t/3)) = δ/cells solved for t); a union bound over the cells
    makes a false failure of the whole test less likely than δ."""
    log_term = math.log(2 * cells / delta)
    a, b, c = n, -2 * log_term / 3, -2 * p * (1 - p) * log_term
    return (-b + np.sqrt(b * b - 4 * a * c)) / (2 * a)


@pytest.mark.parametrize("case", [0, 2, 5, 6], ids=["chain", "cycle", "triangle", "disconnected"])
def test_exact_sampling_matches_marginals(case):
    name, sizes, scopes, _ = CASES[case]
    domain = Domain(sizes)
    potentials = _potentials(sizes, scopes, seed=11)
    truth = make_engine(domain, scopes, "brute").infer(potentials)
    engine = make_engine(domain, scopes, "exact")
    n = 20_000
    draws = sample_junction_tree(engine.infer(potentials), domain, n, np.random.default_rng(5))
    assert draws.shape == (n, len(sizes))
    queries = [tuple(s) for s in scopes]
    cells = sum(domain.cells(q) for q in queries)
    for query in queries:
        flat = np.ravel_multi_index(tuple(draws[:, v] for v in query), domain.shape(query))
        empirical = np.bincount(flat, minlength=domain.cells(query)) / n
        p = truth.marginal(query).ravel()
        assert np.all(np.abs(empirical - p) <= _bernstein_radius(p, n, cells))


def _gibbs_bias(domain, scopes, potentials, sweeps):
    """Exact total-variation distance between the law of one Gibbs chain after ``sweeps``
    systematic sweeps (uniform start, as in ``gibbs_sample``) and the target: the sweep's
    transition matrix over all joint states, built by enumeration."""
    states = list(itertools.product(*[range(s) for s in domain.sizes]))
    index = {x: i for i, x in enumerate(states)}
    log_p = np.array([sum(t[tuple(x[v] for v in s)] for s, t in zip(scopes, potentials)) for x in states])
    sweep = np.eye(len(states))
    for v in range(len(domain)):
        kernel = np.zeros((len(states), len(states)))
        for i, x in enumerate(states):
            targets = [index[x[:v] + (a,) + x[v + 1:]] for a in range(domain.sizes[v])]
            weights = np.exp(log_p[targets] - log_p[targets].max())
            kernel[i, targets] = weights / weights.sum()
        sweep = sweep @ kernel
    law = np.full(len(states), 1 / len(states)) @ np.linalg.matrix_power(sweep, sweeps)
    target = np.exp(log_p - log_p.max())
    return 0.5 * np.abs(law - target / target.sum()).sum()


def test_gibbs_sampling_matches_marginals():
    name, sizes, scopes, _ = CASES[2]
    domain = Domain(sizes)
    potentials = _potentials(sizes, scopes, seed=2, scale=0.5)
    truth = make_engine(domain, scopes, "brute").infer(potentials)
    n, sweeps = 10_000, 40
    draws = gibbs_sample(domain, scopes, potentials, n, np.random.default_rng(9), sweeps=sweeps)
    bias = _gibbs_bias(domain, scopes, potentials, sweeps)
    assert bias < 1e-3  # the chain has mixed: the tolerance below is dominated by sampling error
    cells = sum(domain.cells(s) for s in scopes)
    for scope in scopes:
        flat = np.ravel_multi_index(tuple(draws[:, v] for v in scope), domain.shape(scope))
        empirical = np.bincount(flat, minlength=domain.cells(scope)) / n
        p = truth.marginal(scope).ravel()
        # Independent chains, each with law within TV `bias` of the target: every cell's
        # expected frequency is within `bias` of p, and Bernstein bounds the sampling error.
        assert np.all(np.abs(empirical - p) <= _bernstein_radius(p, n, cells) + bias)


def test_sample_dispatches_on_the_engine():
    sizes, scopes = (2, 3, 2), [(0, 1), (1, 2)]
    domain = Domain(sizes)
    potentials = _potentials(sizes, scopes, seed=4)
    for method in ("exact", "loopy"):
        draws = sample(make_engine(domain, scopes, method), potentials, 50, np.random.default_rng(0), sweeps=5)
        assert draws.shape == (50, 3) and draws.max(axis=0).tolist() <= [1, 2, 1]


def test_bad_potentials_are_refused():
    domain = Domain((2, 3))
    engine = make_engine(domain, [(0, 1)], "exact")
    with pytest.raises(ValueError, match="shape"):
        engine.infer([np.zeros((3, 2))])
    with pytest.raises(ValueError, match="repeats"):
        make_engine(domain, [(0, 0)], "exact")
    with pytest.raises(ValueError, match="outside"):
        make_engine(domain, [(0, 2)], "loopy")


def _reference_junction_tree(domain, scopes, heuristic):
    """The quadratic construction (every candidate scored at every step, every clique pair compared):
    the twin of the heap-based one in :mod:`privbayes.inference.junction_tree`."""
    import itertools

    neighbours = [set() for _ in range(len(domain))]
    for scope in scopes:
        for a in scope:
            neighbours[a].update(b for b in scope if b != a)
    graph = [set(nb) for nb in neighbours]
    order, remaining = [], set(range(len(domain)))
    while remaining:
        def cost(v):
            nb = graph[v] & remaining
            fill = sum(1 for a, b in itertools.combinations(sorted(nb), 2) if b not in graph[a])
            weight = domain.cells(sorted(nb | {v}))
            return (fill, weight, v) if heuristic == "min_fill" else (weight, fill, v)
        v = min(remaining, key=cost)
        for a in graph[v] & remaining:
            graph[a] |= (graph[v] & remaining) - {a}
        order.append(v)
        remaining.remove(v)
    eliminated, cliques = set(), []
    for v in order:
        nb = neighbours[v] - eliminated
        for a in nb:
            neighbours[a] |= nb - {a}
        cliques.append(frozenset(nb | {v}))
        eliminated.add(v)
    maximal = [tuple(sorted(c)) for i, c in enumerate(cliques)
               if not any(c < d or (c == d and j < i) for j, d in enumerate(cliques) if j != i)]
    pairs = sorted(((len(set(a) & set(b)), i, j)
                    for i, a in enumerate(maximal) for j, b in enumerate(maximal) if i < j),
                   key=lambda e: (-e[0], e[1], e[2]))
    parent = list(range(len(maximal)))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i
    adjacency = [[] for _ in maximal]
    for _, i, j in pairs:
        if root(i) != root(j):
            parent[root(i)] = root(j)
            adjacency[i].append(j)
            adjacency[j].append(i)
    edges, seen, frontier = [], {0}, [0]
    while frontier:
        nxt = []
        for i in frontier:
            for j in sorted(adjacency[i]):
                if j not in seen:
                    seen.add(j)
                    edges.append((i, j))
                    nxt.append(j)
        frontier = nxt
    return tuple(maximal), tuple(edges)


@pytest.mark.parametrize("heuristic", ["min_fill", "min_weight"])
def test_the_junction_tree_is_the_quadratic_constructions(heuristic):
    # Random models, disconnected ones and repeated scopes included: the heap-ordered elimination, the
    # indexed maximality test and Kruskal over sharing pairs give exactly the tree of the quadratic twin.
    rng = np.random.default_rng(12)
    for _ in range(300):
        n = int(rng.integers(1, 14))
        domain = Domain(tuple(int(s) for s in rng.integers(1, 5, n)))
        scopes = [tuple(sorted(rng.choice(n, int(rng.integers(1, min(3, n) + 1)), replace=False).tolist()))
                  for _ in range(int(rng.integers(0, 12)))]
        tree = build_junction_tree(domain, scopes, heuristic)
        assert (tree.cliques, tree.edges) == _reference_junction_tree(domain, scopes, heuristic), scopes


def test_a_20000_variable_chain_gets_its_junction_tree():
    # 20,000 variables in a chain (the quadratic construction took 8 s at 2,000 and would take ~15 min here;
    # benchmarks/hostile_inputs.py measures the 2,000-variable MRF file).
    domain = Domain((3,) * 20_000)
    tree = build_junction_tree(domain, [(i, i + 1) for i in range(19_999)])
    assert len(tree.cliques) == 19_999 and len(tree.edges) == 19_998
