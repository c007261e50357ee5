"""The tight self-audit (``privbayes audit``): its statistics, its hook, and that it separates the real
mechanisms (bound ≤ ε, close to ε for a mechanism alone) from planted bugs and NOT-private modes (bound > ε).

Every audit runs with a fixed seed, so each assertion is deterministic; the 95 % confidence of the bound is
what makes "≤ ε" meaningful (a correct mechanism exceeds it with probability ≤ 5 % per seed).
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import privbayes.methods.adaptive.rounds as rounds_module
import privbayes.methods.privbayes.estimator as privbayes_module
import privbayes.privacy.mechanisms as mechanisms_module
from privbayes import counting
from privbayes.audit import alone, audit
from privbayes.audit.bounds import calibrate, clopper_pearson_lower, events
from privbayes.audit.mia import clopper_pearson_upper
from privbayes.audit.pairs import candidate_pairs, flip_pair, network_control_pair
from privbayes.audit.transcript import (
    Recorder,
    exponential_log_pmf,
    permute_and_flip_log_pmf,
    released_text,
    tapped,
    transcript_loss,
)
from privbayes.cli import audit as cli_audit
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.privacy.accountant import Accountant
from privbayes.privacy.plan import BudgetPlan
from privbayes.synthesizers.registry import synthesizer

FLIP = [flip_pair(2, 20, 11, "replace-one")]
FLIP_AR = [flip_pair(2, 20, 11, "add-remove")]

# =============================================================================== statistics


def test_clopper_pearson_bounds_match_known_values():
    # 0 of n: the upper bound is 1 − α^(1/n) exactly; n of n: the lower bound is α^(1/n).
    assert clopper_pearson_upper(0, 100, 0.05) == pytest.approx(1 - 0.05 ** (1 / 100), rel=1e-9)
    assert clopper_pearson_lower(100, 100, 0.05) == pytest.approx(0.05 ** (1 / 100), rel=1e-9)
    assert clopper_pearson_lower(0, 100, 0.05) == 0.0
    # 5 of 10: the bounds are where the exact binomial tail equals α.
    low, high = clopper_pearson_lower(5, 10, 0.05), clopper_pearson_upper(5, 10, 0.05)
    assert stats.binom.sf(4, 10, low) == pytest.approx(0.05, rel=1e-6)
    assert stats.binom.cdf(5, 10, high) == pytest.approx(0.05, rel=1e-6)
    assert low == pytest.approx(0.2224, abs=1e-4) and high == pytest.approx(0.7776, abs=1e-4)


def _pf_enumerated(scores, factor):
    """Permute-and-flip's distribution by enumerating every order."""
    u = np.asarray(scores, float)
    accept = np.exp(-factor * (u.max() - u))
    out = np.zeros(len(u))
    orders = list(itertools.permutations(range(len(u))))
    for order in orders:
        stay = 1.0
        for i in order:
            out[i] += stay * accept[i] / len(orders)
            stay *= 1 - accept[i]
    return out


@pytest.mark.parametrize("scores", [[1, 0, 0, 0], [0, 1, 1, 1, 1], [0.3, 2, 1.5], [2, 2, 1, 0, 0, 1]])
def test_permute_and_flip_pmf_is_exact(scores):
    assert np.exp(permute_and_flip_log_pmf(np.array(scores, float), 0.7)) == pytest.approx(
        _pf_enumerated(scores, 0.7), rel=1e-10)


def test_exponential_pmf_is_the_softmax():
    u = np.array([3.0, 1.0, -2.0])
    expected = np.exp(0.4 * u) / np.exp(0.4 * u).sum()
    assert np.exp(exponential_log_pmf(u, 0.4)) == pytest.approx(expected, rel=1e-12)


def test_events_and_calibration_count_the_threshold_sets():
    loss_d, loss_d2 = np.array([1.0, 1.0, 0.0, -1.0]), np.array([1.0, 0.0, -1.0, -1.0])
    high, low = events(loss_d, loss_d2, 0.5, -0.5)
    assert (high.hits_d, high.hits_d2, low.hits_d, low.hits_d2) == (2, 1, 1, 2)
    (t_high, t_low), expected = calibrate(np.repeat(loss_d, 50), np.repeat(loss_d2, 50))
    assert 0 < expected < events(np.repeat(loss_d, 50), np.repeat(loss_d2, 50), t_high, t_low)[0].bound
    assert t_high == pytest.approx(1.0, abs=1e-6) and t_low == pytest.approx(-1.0, abs=1e-6)


# =============================================================================== the hook


@pytest.mark.parametrize("method, params", [("adaptive", {}), ("privbayes", {"neighbours": "add-remove"}),
                                            ("sa-privbayes", {}), ("mrf", {"cliques": [("a", "b")]})])
def test_the_tap_leaves_releases_byte_identical(method, params):
    d, _ = FLIP[0].frames()
    table = counting.open(d, FLIP[0].schema)
    plain = released_text(synthesizer(method, epsilon=1.0, random_state=7, **params).fit(table))
    recorder = Recorder()
    with tapped(recorder):
        recorded = released_text(synthesizer(method, epsilon=1.0, random_state=7, **params).fit(table))
    assert recorded == plain and len(recorder.releases) >= 1
    assert mechanisms_module.tap is None


def test_the_loss_of_a_table_against_itself_is_zero():
    d, _ = FLIP[0].frames()
    table = counting.open(d, FLIP[0].schema)

    def fit(t, seed=3):
        return synthesizer("adaptive", epsilon=1.0, random_state=seed).fit(t)
    assert transcript_loss(fit, table, table, total=None, compare_release=True)[0] == 0.0


# =============================================================================== mechanisms alone


@pytest.mark.parametrize("name, relation, runs, least", [
    ("discrete-laplace", None, 20_000, 0.9), ("discrete-laplace", "add-remove", 20_000, 0.9),
    ("noisy-count", None, 20_000, 0.9), ("permute-and-flip", None, 6000, 0.85),
    ("exponential", None, 6000, 0.65)])  # its worst case is rare (privbayes.audit.alone): ≈ 0.83 at 5·10⁴ runs
def test_mechanisms_alone_are_audited_close_to_epsilon(name, relation, runs, least):
    params = {"neighbours": relation} if relation else {}
    result = audit(name, 1.0, runs=runs, seed=11, **params)
    assert result.verdict == "consistent" and result.epsilon_lower <= 1.0, result.lines()
    assert result.epsilon_lower >= least, result.lines()


def _half_noise(monkeypatch):
    real = mechanisms_module.discrete_laplace
    monkeypatch.setattr(mechanisms_module, "discrete_laplace", lambda scale, size, rng: real(scale / 2, size, rng))


def test_half_noise_in_discrete_laplace_is_caught_alone(monkeypatch):
    _half_noise(monkeypatch)
    result = audit("discrete-laplace", 1.0, runs=5000, seed=12)
    assert result.verdict == "VIOLATION" and result.epsilon_lower > 1.5, result.lines()


def test_a_selection_at_twice_its_factor_is_caught_alone(monkeypatch):
    monkeypatch.setattr(mechanisms_module.PermuteAndFlip, "factor", property(lambda self: self.epsilon))
    result = audit("permute-and-flip", 1.0, runs=3000, seed=13)
    assert result.verdict == "VIOLATION", result.lines()


# =============================================================================== end to end


@pytest.mark.parametrize("method, params, pairs", [("privbayes", {}, FLIP), ("adaptive", {}, FLIP),
                                                   ("privbayes", {"neighbours": "add-remove"}, FLIP_AR),
                                                   ("sa-privbayes", {}, FLIP), ("mrf", {}, FLIP)])
def test_methods_end_to_end_are_consistent(method, params, pairs):
    result = audit(method, 1.0, runs=200, seed=21, pairs=pairs, compare_release=False, **params)
    assert result.verdict == "consistent" and result.epsilon_lower <= 1.0, result.lines()
    assert not any("could not give" in note for note in result.notes), result.lines()


def test_half_noise_is_caught_end_to_end(monkeypatch):
    _half_noise(monkeypatch)
    result = audit("mrf", 1.0, runs=1000, seed=22, pairs=FLIP, compare_release=False)
    assert result.verdict == "VIOLATION", result.lines()


def test_a_round_not_charged_is_caught(monkeypatch):
    # adaptive, one round: the round's measurement is released once more (fresh noise, charged to a
    # throw-away accountant) and averaged in: two releases at the round's ε.  The uncharged one comes after ε
    # is spent, so only the full audit (compare_release, the default) sees it; --transcript-only stops first.
    real = rounds_module._measure

    def twice(table, candidate, release, sensitivity, accountant, rng, measured, index, counts=None):
        first = real(table, candidate, release, sensitivity, accountant, rng, measured, index, counts)
        again = real(table, candidate, release, sensitivity, Accountant(release.epsilon), rng, measured, index,
                     counts)
        return type(first)(first.pair, first.variables, (first.counts + again.counts) // 2, first.scale)
    monkeypatch.setattr(rounds_module, "_measure", twice)
    params = dict(rounds=1, initial_share=Fraction(1, 100), select_share=Fraction(1, 100), max_model_cells=3,
                  init="oneway", joint=False, marginal_degree=2)
    result = audit("adaptive", 1.0, runs=1000, seed=23, pairs=FLIP, **params)
    assert result.verdict == "VIOLATION", result.lines()


def test_the_true_n_where_the_noisy_count_belongs_is_caught(monkeypatch):
    import privbayes.synthesizers.contract as template  # the fit template releases the count

    real = template.noisy_count

    def true_n(n, epsilon, accountant, rng, *, step):
        real(n, epsilon, accountant, rng, step=step)
        return n
    monkeypatch.setattr(template, "noisy_count", true_n)
    result = audit("privbayes", 1.0, runs=60, seed=24, pairs=FLIP_AR, neighbours="add-remove")
    assert result.verdict == "VIOLATION", result.lines()


def test_a_data_chosen_share_is_caught(monkeypatch):
    # The conditionals' budgets follow the data (more for the first table when attribute 0 is mostly 0),
    # with the plan check silenced so that the fit completes: the neighbour asks at another ε.
    real = privbayes_module.measure_tables

    def chosen(table, network, budgets, accountant, rng, sensitivity):
        total = sum(b for b in budgets.values() if b is not None)
        if table.counts([0])[0] > table.n / 2:
            budgets = {0: total * 3 / 4, 1: total / 4}
        return real(table, network, budgets, accountant, rng, sensitivity)
    monkeypatch.setattr(privbayes_module, "measure_tables", chosen)
    monkeypatch.setattr(BudgetPlan, "check", lambda self, ledger: None)
    result = audit("privbayes", 1.0, runs=60, seed=25, pairs=FLIP, compare_release=False, degree=0)
    assert result.verdict == "VIOLATION", result.lines()


@pytest.mark.parametrize("method, params", [("privbayes", {"non_private_phase": "marginals"}),
                                            ("privbayes", {"non_private_phase": "network", "degree": 1}),
                                            ("sa-privbayes", {"mode": "faithful"})])
def test_not_private_modes_are_caught(method, params):
    result = audit(method, 1.0, runs=40, seed=26, pairs=[FLIP[0], network_control_pair("replace-one")], **params)
    assert result.verdict == "VIOLATION", result.lines()


def test_candidate_pairs_move_every_marginal_by_the_full_sensitivity():
    for relation, delta in (("replace-one", 2), ("add-remove", 1)):
        for pair in candidate_pairs(relation)[:-1]:
            d, d2 = (counting.open(f, pair.schema) for f in pair.frames())
            for attributes in ([0], [1], [0, 1]):
                assert int(np.abs(d.counts(attributes) - d2.counts(attributes)).sum()) == delta


# =============================================================================== command line


def test_cli_audit_prints_the_bound_and_writes_json(tmp_path, capsys):
    out = tmp_path / "audit.json"
    assert main(["audit", "--method", "discrete-laplace", "--epsilon", "1", "--runs", "3000", "--workers", "1",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "claimed epsilon = 1" in printed and "verdict: consistent" in printed
    document = json.loads(out.read_text())
    assert document["epsilon"] == 1.0 and 0.5 < document["epsilon_lower"] <= 1.0
    assert {"runs_per_table", "pair", "statistic", "events"} <= set(document)


def test_cli_audit_refuses_flags_the_method_does_not_take(capsys):
    assert main(["audit", "--method", "mrf", "--mode", "faithful", "--runs", "10"]) == 2
    assert "--mode does not apply to --method mrf" in capsys.readouterr().err
    assert main(["audit", "--method", "nbc", "--runs", "10"]) == 2
    assert "not differentially private" in capsys.readouterr().err


def test_cli_mechanisms_match_the_library():
    assert cli_audit.MECHANISMS == alone.MECHANISMS


def test_library_refuses_bad_inputs():
    for kwargs in ({"runs": 0}, {"runs": 10**8}, {"epsilon": -1}, {"epsilon": math.inf}, {"random_state": 3}):
        with pytest.raises(InputError):
            audit("privbayes", **({"epsilon": 1.0} | kwargs))
