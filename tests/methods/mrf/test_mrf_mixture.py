"""``auto`` rule 4: CGM-EM's share η_C of each clique's targets follows the clique's public noise-to-count ratio x_C;
where every η_C is 0 the default is rule 2 exactly and CGM-EM is not run (docs/decisions.md, "MRF default estimate").
One test per regime the rule distinguishes: x_C < 0.1, the rise, the plateau, the fall and x_C past the band."""

from __future__ import annotations

import numpy as np
import pytest

from privbayes.inference import Domain
from privbayes.inference.projection import project_simplex
from privbayes.methods.mrf import LogLinearModel, NoisyStatistics, estimation
from privbayes.methods.mrf.estimation import (
    AUTO_RULE,
    MIX_BAND,
    MIX_FLOOR,
    MIX_SHARE,
    auto_estimate,
    calibrated_mle,
    detection_floors,
    floored_marginals,
    floored_mle,
    mixed_targets,
    mixture_shares,
    noise_to_count,
    zeroed_share,
)


def _stats(n: float, scale: float, seed: int = 1) -> NoisyStatistics:
    """Two released tables of 16 and 32 cells (so x differs by 2× between the cliques), some cells negative."""
    rng = np.random.default_rng(seed)
    tables = (rng.integers(-30, 200, size=(4, 4)), rng.integers(-30, 200, size=(4, 8)))
    return NoisyStatistics(((0, 1), (1, 2)), tables, scale, n, "replace-one")


def _start() -> LogLinearModel:
    return LogLinearModel.uniform(Domain((4, 4, 8)), ((0, 1), (1, 2)))


@pytest.mark.parametrize("n, scale, regime", [
    (1e6, 2.0, "signal dominates: x_C < 10⁻⁴"),
    (3_000.0, 10.0, "x = 0.075 and 0.151: below the band, and rising"),
    (1_000.0, 10.0, "x = 0.23 and 0.45: both rising"),
    (400.0, 10.0, "x = 0.57 and 1.13: both on the plateau"),
    (150.0, 10.0, "x = 1.5 and 3.0: the plateau and the fall"),
    (100.0, 20.0, "x = 4.5 and 9: past the band"),
])
def test_the_share_follows_x_per_clique(n, scale, regime):
    """η_C is 0 below 0.1 and from 4 on, rises in log x to η at 0.5, holds to 2 and falls in log x to 0 at 4."""
    start, full, fall, end = MIX_BAND
    for x, eta in zip(noise_to_count(_stats(n, scale)), mixture_shares(_stats(n, scale))):
        if x < start or x >= end:
            assert eta == 0.0, regime
        elif x < full:
            assert eta == pytest.approx(MIX_SHARE * np.log(x / start) / np.log(full / start)), regime
            assert 0 < eta < MIX_SHARE
        elif x < fall:
            assert eta == MIX_SHARE, regime
        else:
            assert eta == pytest.approx(MIX_SHARE * np.log(end / x) / np.log(end / fall)), regime
            assert 0 < eta < MIX_SHARE


@pytest.mark.parametrize("n, scale", [(8_000.0, 3.0), (100.0, 20.0)])
def test_where_every_share_is_zero_auto_is_rule_2_and_runs_no_cgm(n, scale, monkeypatch):
    """Small noise (x = 0.008 and 0.017) or dominant noise (x ≥ 4): the fitted θ is rule 2's to the bit, and
    CGM-EM never runs."""
    stats = _stats(n, scale)
    assert mixture_shares(stats) == (0.0, 0.0)

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("CGM-EM ran")

    monkeypatch.setattr(estimation, "cgm_em", forbidden)
    fitted, rule2 = calibrated_mle(_start(), stats), floored_mle(_start(), stats)
    for a, b in zip(fitted.theta, rule2.theta):
        np.testing.assert_array_equal(a, b)
    for target, floored in zip(mixed_targets(stats, None), floored_marginals(stats)):
        np.testing.assert_array_equal(target, floored)


def test_a_positive_share_mixes_cgm_and_the_steeper_floor_only_on_its_clique():
    """x = 0.075 and 0.151: the first clique (η = 0) keeps rule 2's target; the second mixes (1 − η)·its table
    floored at 0.8·b/N·min(1, 0.2/z)⁴ with η·CGM-EM's marginal."""
    stats = _stats(3_000.0, 10.0)
    shares = mixture_shares(stats)
    assert shares[0] == 0.0 < shares[1]
    smooth = [np.full((4, 4), 1 / 16), np.full((4, 8), 1 / 32)]
    targets = mixed_targets(stats, smooth)
    np.testing.assert_array_equal(targets[0], floored_marginals(stats)[0])
    projected = project_simplex(stats.tables[1] / stats.n)
    z = zeroed_share([project_simplex(t / stats.n) for t in stats.tables])
    floor = 0.8 * 10 / 3_000 * min(1.0, MIX_FLOOR[0] / z) ** MIX_FLOOR[1]
    assert detection_floors(stats)[1] > 0 and (projected == 0).any()
    raised = np.where(projected > 0, projected, floor)
    np.testing.assert_allclose(targets[1], (1 - shares[1]) * raised / raised.sum() + shares[1] * smooth[1])
    assert all(t.sum() == pytest.approx(1.0) for t in targets)


def test_in_the_band_auto_runs_cgm_once_and_records_the_shares(monkeypatch):
    """x = 0.57 and 1.13 (the plateau): one CGM-EM run, a proper fitted model, and the model file's line names rule 4
    and both shares."""
    stats = _stats(400.0, 10.0)
    calls = []
    real = estimation.cgm_em

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(estimation, "cgm_em", counted)
    fitted = calibrated_mle(_start(), stats)
    assert len(calls) == 1
    assert all(np.isfinite(t).all() for t in fitted.theta)
    line = auto_estimate(stats)
    assert line.startswith(f"auto rule {AUTO_RULE}: MLE of (1 − η_C)·floored marginals + η_C·CGM-EM's")
    assert f"CGM-EM shares [{MIX_SHARE:.3g}, {MIX_SHARE:.3g}]" in line
