"""The adaptive method's mechanisms under zero-concentrated DP (``privacy="zcdp"``; docs/decisions.md, "zCDP mode").

The plan (:func:`privbayes.methods.adaptive.settings.zcdp_plan`) has the same releases in the same order as under
pure ε (:func:`~privbayes.methods.adaptive.settings.adaptive_plan`), priced in ρ (Bun & Steinke 2016: sequential
composition adds ρ), from public inputs only:

1. under add/remove neighbours a noisy count, discrete Gaussian at ``COUNT_SHARE`` (1/100) of ρ;
2. the first measurements (the 1-way marginals, small attributes jointly) with the first share of the rest,
   split in proportion to √|Ω_g| (the split that minimises the summed noise variance Σ_g |Ω_g|·Δ²/(2ρ_g) for a
   fixed Σ ρ_g), each a discrete Gaussian with σ² = Δ²/(2ρ_g);
3. T rounds with linearly rising budgets (the ``ramp``; equal from ``auto_version`` 9), each an
   exponential-mechanism selection with ``select_share`` of the round's ρ (half of it from ``auto_version`` 6;
   charged ε²/8: Cesar & Rogers 2021) and a discrete-Gaussian measurement with the rest.

Δ: a count table's L2 sensitivity, 1 under add/remove and √2 under replace-one; the selection's score moves by the
L1 sensitivity (1 or 2) as under pure ε.  The automatic first share and T are the pure rules with each Gaussian
matched to the discrete Laplace of the same standard deviation, ε ≡ 2√ρ: AIM's T = 16·d rounds rely on annealing
that reads measured values, which this plan does not do.  From ``auto_version`` 6 the first share is 2/5 (not on
binary data or with a workload), the selections' score counts half of AIM's noise penalty, and the re-fits are short
and start matched (:data:`~privbayes.methods.adaptive.settings.ZCDP_VERSION`; docs/decisions.md, "zCDP mode").  From
``auto_version`` 7 (zCDP only) a plan whose rounds rule gives fewer rounds than attributes has d rounds and gives the
1-way start 1/2 of ρ, and above a signal of 5,000 that start's share falls with the signal
(:data:`~privbayes.methods.adaptive.settings.ZCDP_RETUNED_VERSION`).  From ``auto_version`` 8 the rounds rule is
capped at 3·d rounds (:data:`~privbayes.methods.adaptive.settings.ZCDP_CAP_VERSION`), and from 9 every round gets the
same ρ (:data:`~privbayes.methods.adaptive.settings.ZCDP_FLAT_VERSION`).
The mechanisms at an exact ρ are method-neutral and live in :mod:`privbayes.privacy.zcdp_mechanisms` (PrivBayes uses
them too); they are named here for this method's modules.
"""

from __future__ import annotations

from privbayes.privacy.zcdp_mechanisms import (
    REPLACE_ONE_L2,
    SELECT_DIGITS,
    gaussian,
    l2_sensitivity,
    laplace_equivalent,
    selection_epsilon,
    selection_rho,
    selector,
)

__all__ = ["REPLACE_ONE_L2", "SELECT_DIGITS", "gaussian", "l2_sensitivity", "laplace_equivalent",
           "selection_epsilon", "selection_rho", "selector"]
