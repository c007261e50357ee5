"""θ-usefulness (TODS 2017, Lemma 4.8 and §5.2)."""

from fractions import Fraction

from privbayes.bayesnet.usefulness import binary_degree, binary_usefulness, domain_bound


def test_lemma_4_8_formula():
    # nε2 / ((d − k)·2^(k+2)) with n = 1000, ε2 = 0.5, d = 10, k = 2: 500 / (8·16).
    assert binary_usefulness(1000, 10, Fraction(1, 2), 2) == Fraction(500, 128)


def test_degree_on_nltcs_at_eps_1_6():
    # NLTCS: n = 21,574, d = 16, ε2 = 0.7·1.6 = 1.12: k = 7 gives 24162.88/(9·512) = 5.24 ≥ 4,
    # k = 8 gives 24162.88/(8·1024) = 2.95 < 4.
    eps2 = Fraction(7, 10) * Fraction(16, 10)
    assert binary_degree(21574, 16, eps2, 4) == 7
    assert binary_usefulness(21574, 16, eps2, 7) >= 4 > binary_usefulness(21574, 16, eps2, 8)


def test_degree_falls_to_zero_when_nothing_is_useful():
    assert binary_degree(100, 10, Fraction(1, 100), 4) == 0


def test_degree_is_the_largest_useful_k():
    for n, d, eps in [(5000, 8, Fraction(1)), (47461, 23, Fraction(2, 5)), (300, 5, Fraction(3))]:
        k = binary_degree(n, d, eps, 4)
        assert all(binary_usefulness(n, d, eps, j) < 4 for j in range(k + 1, d))
        if k > 0:
            assert binary_usefulness(n, d, eps, k) >= 4


def test_domain_bound_for_alg_4():
    # m = |dom X|·|dom Π| ≤ nε2/(2dθ): n = 1000, ε2 = 0.8, d = 5, θ = 4 → 20 cells; |dom X| = 4 → τ = 5.
    assert domain_bound(1000, 5, Fraction(4, 5), 4, 4) == 5
