"""dpmm 0.1.9's AIM on leaf codes, in dpmm's own virtualenv (benchmarks/peers.py ``aim-dpmm`` calls it).

dpmm pins numpy 1.26, pandas 2.1 and opendp 0.12, so it lives in a virtualenv of its own
(benchmarks/peers_dpmm_requirements.txt) and this script imports nothing of privbayes (as audit_dpmm.py):

    /work/venv-dpmm/bin/python benchmarks/peers_dpmm.py IN.npz OUT.npz '{"epsilon": 1.6, "delta": 1e-9, "seed": 0,
        "workload": [["age", "sex", "income"], ...]}'

``IN.npz`` holds ``codes`` (n × d leaf codes), ``sizes`` (each column's number of codes: the public domain, passed
as dpmm's ``domain``, not inferred from the data) and ``names``.  ``AIMGM`` with its defaults (its
``compress=True`` and ``max_model_size`` 80 MB, 1,000 mirror-descent steps per round), ``n_jobs=1``, seeded with
``RandomState(seed)``, under add/remove neighbours and (ε, δ) (dpmm's ``cdp_rho``).  A ``workload`` goes to AIM as
its ``W`` (attribute sets by column name, weight 1): dpmm's ``AIMGM.fit`` does not pass one, but its ``AIM.fit``
hands keyword arguments to ``AIM._fit(data, W=...)``, which takes the downward closure and AIM's weights itself
(``compile_workload``).  With a workload ``compress`` is off: dpmm's compressor is fitted on the 1-way marginals
AIM measures, which are then the workload's columns only, and fails on the others (KeyError); AIM itself measures
the workload's closure only (as in the paper), so the columns outside it are drawn uniformly.  Without one,
dpmm's default: every 2-way set (``degree=2``).  Writes ``codes`` (n rows
as dpmm's ``generate`` draws them: its graphical model's ``synthetic_data(method="round")``, which rounds each
conditional's expected counts and so has far less sampling error than i.i.d. rows) and ``sampled`` (n rows drawn
i.i.d. from the same model, ``method="sample"``: what the other methods' samplers do) to ``OUT.npz``.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd


def main(argv: list[str]) -> int:
    source, target, options = argv[0], argv[1], json.loads(argv[2])
    from dpmm.models.aim import AIMGM

    with np.load(source, allow_pickle=False) as stored:
        codes, sizes, names = stored["codes"], stored["sizes"], [str(n) for n in stored["names"]]
    frame = pd.DataFrame(codes.astype(np.int64), columns=names)
    domain = {name: int(size) for name, size in zip(names, sizes)}
    workload = options.get("workload")
    model = AIMGM(epsilon=options["epsilon"], delta=options["delta"], domain=domain, compress=not workload,
                  random_state=np.random.RandomState(options["seed"]), n_jobs=1)
    if workload:
        model.generator.fit(frame, W=[(tuple(s), 1.0) for s in workload])
    else:
        model.fit(frame)
    synthetic = model.generate(n_records=len(frame))[names]
    drawn = model.generator.model.synthetic_data(rows=len(frame), method="sample")
    if model.generator.compress:
        drawn = model.generator.compressor.reverse(drawn)
    np.savez(target, codes=synthetic.to_numpy().astype(np.int64), sampled=drawn.df[names].to_numpy().astype(np.int64))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
