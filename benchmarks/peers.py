"""PrivBayes side by side with other DP synthesizers (optional: needs the peers installed).

Data (``--data``, comma-separated):

* ``bundled``: the bundled Adult (45,222 rows) with its schema (``src/privbayes/data/adult.yaml``).
* ``adult``, ``nltcs``, ``acs``, ``br2000``: the paper's datasets with the authors' domains
  (``counting.open(NAME.dat, NAME.domain)``, under ``$PRIVBAYES_DATA``, default /work/shared/data).

Split (``--split``): ``80/20`` (default) is ``train_test_split_indices(n, seed=0)``: every method
turns the training part into as many synthetic rows; ``full`` fits on the whole table (the
paper's counting-task protocol, as benchmarks/consistent_peers.py) and has no SVM score.

Methods (each peer imported lazily; a method whose package is missing gets a "not installed" row):

* ``ours``: ``PrivBayes(eps).fit(train, schema).sample(len(train))`` (default estimation, OS noise).
* ``ours-paper`` / ``ours-projected`` / ``ours-consistent``: ``PrivBayes(eps, random_state=r,
  estimation=...)`` fitted on ``counting.open(train, schema)`` and sampled with ``random_state=r``
  (r = the repetition), so the three learn the same network and measure the same noisy tables.
* ``ours-exact-network``: NOT private, an analysis row: ``ours-consistent`` with the network learnt
  without noise and all of ε on the tables (``non_private_phase="network"``, TODS 2017 §6.4), the
  best that any private structure learning could give this model family at that ε.
* ``ours-add-remove``: ``ours-consistent`` with ``neighbours="add-remove"``: ε-DP under MST's and
  AIM's neighbouring relation (add or remove one tuple, n private), the like-for-like guarantee.
* ``ours-adaptive`` / ``ours-adaptive-replace-one``: ``AdaptiveMarginals(eps, neighbours=..., random_state=r)``
  (issue 31: AIM-style adaptive selection under pure ε, consistent estimation) fitted on
  ``counting.open(train, schema)``, sampled with ``random_state=r``; add/remove (n private, the relation of
  MST and AIM) and replace-one (n public, the library's default relation).
* ``ours-adaptive-zcdp``: ``AdaptiveMarginals(eps, neighbours="add-remove", privacy="zcdp", delta=1e-9,
  random_state=r)`` (issue 43): ρ-zCDP at the ρ that (ε, δ = 1e-9) allows, discrete Gaussian measurements, the
  (ε, δ) guarantee of the AIM and MST peers.  ``ours-adaptive-zcdp-v5``: the same under ``auto_version`` 5's
  automatic choices (the zCDP plan before its re-tuning against AIM run to completion); ``ours-adaptive-zcdp-v6``:
  under version 6's (before the few-rounds rule of version 7).
* ``mst-opendp`` / ``mst-opendp-pure`` / ``aim-opendp`` / ``aim-opendp-pure``: MST and AIM of OpenDP 0.16
  (``dp.mbi``, private-pgm inside) with their defaults, every column's keys given as the public code range,
  add/remove neighbours, rows drawn i.i.d. from the fitted model; ``-pure`` at ``loss_of(epsilon=ε)``
  (Laplace noise), the others at the zCDP ρ that OpenDP converts to (ε, δ = 1e-9) (Gaussian noise).  Two
  compatibility shims, documented in ``_opendp``, let OpenDP's pure-ε budget splitting run at all.
* ``aim-dpmm``: dpmm 0.1.9's AIM (ε, δ = 1e-9) with its defaults (every 2-way set), the schema's code ranges as its
  domain, run in dpmm's own virtualenv by benchmarks/peers_dpmm.py (``_dpmm_aim``); two rows per fit: ``aim-dpmm``
  (dpmm's own rounded sampling) and ``aim-dpmm+sample`` (i.i.d. rows from the same model).
* ``datasynthesizer``: DataSynthesizer's correlated attribute mode (its own PrivBayes variant,
  PyPI ``DataSynthesizer``), given the schema's public domain; ``--datasynthesizer-k`` sets its degree.
* ``mst`` / ``aim``: MST and AIM of SmartNoise Synth (PyPI ``smartnoise-synth``, on private-pgm
  ``mbi`` 1.x), fed our leaf codes with label transformers fitted on the public code range, so
  their domains are ours.  (ε, δ)-DP with SmartNoise's default δ = 1e-9; ours and
  DataSynthesizer claim ε-DP.  Each fit gives two rows: the synthesizer's own ``sample`` and
  ``+sample``, the same model drawn i.i.d. (see ``_smartnoise``).  See docs/peers.md.
* ``mst-r1``: MST run at the smaller ε' that makes it (ε, δ)-DP under our neighbour relation,
  replace-one (``replace_one_epsilon``): the comparison at an equal guarantee.
* ``authors-cpp``: the authors' C++ release (TODS 2017), built from its mirror with a driver of
  our own by benchmarks/authors_cpp.py (the paper's datasets only; docs/authors_cpp.md).

Per (dataset, method, ε, repetition), one fresh child process (this script with ``--child``)
loads the data, imports the method's packages, then fits and samples; it reports wall and CPU
seconds of fit + sample (CPU: the process, all its threads and its waited-for children) and
its peak resident memory before the fit.  The parent reads the child's peak resident memory
(``ru_maxrss`` from ``os.wait4``), kills it after ``--timeout`` seconds (then the row says so),
and scores the output: the average TVD of all 2- and 3-way marginals of the synthetic leaf
codes against the real training codes (``average_marginal_tvd``) and, on Adult, the average
misclassification rate on the real test part of the four SVM targets (TODS 2017, §6.1).
``--threads`` caps the threads of XLA (JAX), numba and BLAS in the child.

    /work/peers-venv/bin/python benchmarks/peers.py [--data bundled|adult,nltcs,acs,br2000]
        [--methods ours-paper,ours-consistent,mst,aim] [--epsilons 0.1,0.4,1.6] [--repeats 3]
        [--budget 120] [--timeout 1800] [--json out.json] [--markdown table.md]
    /work/peers-venv/bin/python benchmarks/peers.py --merge a.json b.json [--json all.json] --markdown table.md

A method stops repeating once its runs at one (dataset, ε) have taken ``--budget`` seconds of
wall time; at least one run is done per (dataset, method, ε).  The JSON file is rewritten after
every run, so an interrupted run keeps what it did.  ``--merge`` groups rows by (dataset,
method, ε) and, where several files have a run of the same (dataset, method, ε, repetition),
keeps the last file's: re-run one method with the same repetitions and merge its file last to
replace it; files with other repetitions of a method are pooled.  ``--repeat-from`` starts at a
later repetition (to split a long run over several processes).  Prints one JSON document, then the tables.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from importlib import metadata, resources

import numpy as np
import pandas as pd

from privbayes import counting
from privbayes.counting import leaf_codes
from privbayes.counting.reading import read_frame
from privbayes.evaluation import (
    PAPER_TARGETS,
    average_marginal_tvd,
    svm_misclassification,
    train_test_split_indices,
)
from privbayes.files.tables import atomic_write_text
from privbayes.schema import Schema
from privbayes.schema.files import load_schema

DATA = os.environ.get("PRIVBAYES_DATA", "/work/shared/data")
DATASETS = ("bundled", "adult", "nltcs", "acs", "br2000")
OURS = {"ours": None, "ours-paper": "paper", "ours-projected": "projected", "ours-consistent": "consistent",
        "ours-exact-network": "consistent", "ours-add-remove": "consistent"}
OURS_OPTIONS = {"ours-exact-network": {"non_private_phase": "network"}, "ours-add-remove": {"neighbours": "add-remove"}}
OPENDP = ("mst-opendp", "mst-opendp-pure", "aim-opendp", "aim-opendp-pure")
METHODS = (*OURS, "ours-adaptive", "ours-adaptive-replace-one", "ours-adaptive-zcdp", "ours-adaptive-zcdp-v5",
           "ours-adaptive-zcdp-v6", "datasynthesizer", "mst", "mst-r1", "aim", "authors-cpp", *OPENDP, "aim-dpmm")
# Default degree of DataSynthesizer's network.  Its Adult example notebook uses 2, but one fit at
# k = 2 takes about 20 CPU minutes here (its greedy search joins parent values row by row in pandas).
DATASYNTHESIZER_K = 1
DATASYNTHESIZER_BINS = 20  # its default histogram size for numeric attributes
# Order of methods in the tables (variants included).
ORDER = ("ours-adaptive", "ours-adaptive-zcdp", "ours-adaptive-zcdp-v6", "ours-adaptive-zcdp-v5",
         "ours-adaptive-replace-one", "ours-paper", "ours-projected", "ours-consistent", "ours-add-remove",
         "ours-exact-network", "ours",
         "authors-cpp",
         "mst+sample", "mst", "mst-r1+sample", "mst-r1", "aim+sample", "aim", *OPENDP, "aim-dpmm+sample", "aim-dpmm")


class NotInstalled(Exception):
    """The peer's package cannot be imported here."""


# --- data ----------------------------------------------------------------------------------------

def bundled_schema() -> Schema:
    """The bundled Adult's public schema (``src/privbayes/data/adult.yaml``)."""
    with resources.as_file(resources.files("privbayes") / "data" / "adult.yaml") as path:
        return load_schema(path)


def load(data: str, split: str) -> tuple[Schema, pd.DataFrame, pd.DataFrame | None]:
    """Schema, training rows and test rows (None with ``split="full"``) of one dataset."""
    if data == "bundled":
        schema = bundled_schema()
        with resources.as_file(resources.files("privbayes") / "data" / "adult.csv.gz") as path:
            frame = pd.read_csv(path, skipinitialspace=True)
    else:
        dat = f"{DATA}/{data}/{data}.dat"
        schema = counting.open(dat, f"{DATA}/{data}/{data}.domain").schema
        frame = read_frame(dat, schema)
    if split == "full":
        return schema, frame, None
    train_idx, test_idx = train_test_split_indices(len(frame), seed=0)
    return schema, frame.iloc[train_idx].reset_index(drop=True), frame.iloc[test_idx].reset_index(drop=True)


# --- the methods: each returns synthetic leaf codes (n_train × d) or {variant: (codes, s, cpu s)} ----

def _ours(estimation: str | None, **options: str) -> Callable[..., np.ndarray]:
    def run(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> np.ndarray:
        from privbayes import PrivBayes

        if estimation is None:  # the bundled-Adult runs of docs/peers.md: default estimation, OS noise
            return leaf_codes(PrivBayes(eps).fit(train, schema).sample(len(train)), schema)
        model = PrivBayes(eps, random_state=rep, estimation=estimation, **options).fit(counting.open(train, schema))
        NOTES.extend(c for c in model.model_.caveats if "seeded" not in c)  # e.g. a fallback of "consistent"
        return leaf_codes(model.sample(len(train), random_state=rep), schema)
    return run


NOTES: list[str] = []  # the model's caveats, reported with the run


def _adaptive(neighbours: str, auto_version: int | None = None, **options: object) -> Callable[..., np.ndarray]:
    """``AdaptiveMarginals(eps, neighbours=..., random_state=r, **options)`` fitted on ``counting.open(train,
    schema)``, sampled with ``random_state=r`` (issue 31; ``options``: the zCDP mode of issue 43); with
    ``auto_version``, the automatic choices of that version (a model-file setting, not a keyword: the settings are
    read back as a file of that version would be)."""
    def run(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> np.ndarray:
        from privbayes import AdaptiveMarginals
        from privbayes.methods.adaptive.settings import AdaptiveSettings

        class Versioned(AdaptiveMarginals):
            def settings(self) -> AdaptiveSettings:
                current = super().settings()
                if auto_version is None:
                    return current
                return AdaptiveSettings.from_parameters(current.to_parameters() | {"auto_version": auto_version})

        model = Versioned(eps, neighbours=neighbours, random_state=rep, **options).fit(counting.open(train, schema))
        return leaf_codes(model.sample(len(train), random_state=rep), schema)
    return run


ADAPTIVE = {"ours-adaptive": "add-remove", "ours-adaptive-replace-one": "replace-one"}


datasynthesizer_k = DATASYNTHESIZER_K  # --datasynthesizer-k


def run_datasynthesizer(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> dict:
    try:
        import DataSynthesizer.DataGenerator as generator_module
        from DataSynthesizer.DataDescriber import DataDescriber
        from DataSynthesizer.DataGenerator import DataGenerator
    except ImportError as exc:
        raise NotInstalled(str(exc)) from None
    # Compatibility shim, not a change of method: with k >= 2 its model keys parent values as
    # str(list(tuple)), which under numpy >= 2 reads "[np.int64(3), ...]", and DataGenerator
    # eval()s these keys in a module that never imported numpy as np (NameError).
    generator_module.np = np
    with tempfile.TemporaryDirectory() as tmp:
        data_file, domain_file, description_file = (os.path.join(tmp, f)
                                                    for f in ("train.csv", "domain.json", "model.json"))
        train.to_csv(data_file, index=False)
        with open(domain_file, "w", encoding="utf-8") as out:
            json.dump({a.name: [str(c) for c in a.categories] for a in schema.attributes if a.kind != "numeric"}, out)
        categorical = {a.name: a.kind != "numeric" for a in schema.attributes}
        describer = DataDescriber(histogram_bins=DATASYNTHESIZER_BINS)
        # It prints its network as it goes; its noise comes from np.random seeded with `seed`
        # (default 0), so each repetition passes its own seed.
        with contextlib.redirect_stdout(io.StringIO()):
            describer.describe_dataset_in_correlated_attribute_mode(
                data_file, k=datasynthesizer_k, epsilon=eps,
                attribute_to_datatype={n: "String" if c else "Integer" for n, c in categorical.items()},
                attribute_to_is_categorical=categorical,
                attribute_to_is_candidate_key={n: False for n in categorical},
                categorical_attribute_domain_file=domain_file,
                numerical_attribute_ranges={a.name: [a.lower, a.upper]
                                            for a in schema.attributes if a.kind == "numeric"},
                seed=1000 + rep)
            describer.save_dataset_description_to_file(description_file)
            generator = DataGenerator()
            generator.generate_dataset_in_correlated_attribute_mode(len(train), description_file, seed=1000 + rep)
        synthetic = generator.synthetic_dataset[schema.names]
    return {f"datasynthesizer k={datasynthesizer_k}": (leaf_codes(synthetic, schema),)}


def replace_one_epsilon(eps: float, delta: float = 1e-9) -> float:
    """The ε' to give SmartNoise's MST so that it is (ε, δ)-DP under replace-one neighbours.

    MST spends ρ = cdp_rho(ε, δ) (zCDP, add/remove one row) in thirds: Gaussian 1-way marginals,
    exponential-mechanism selection, Gaussian 2-way marginals.  Replacing a row moves a count
    vector by √2 in L2 (2 cells change), so each Gaussian third costs 2× its ρ, and moves the
    selection's L1 score by 2, so the exponential-mechanism third (ε²/8-zCDP) costs 4×: 8ρ/3 in
    all.  Running MST at ρ' = 3ρ/8 therefore gives (ε, δ) under replace-one; ε' is found by
    bisection on SmartNoise's own ``cdp_rho`` (increasing in ε)."""
    from snsynth.utils import cdp_rho

    target = 3 * cdp_rho(eps, delta) / 8
    low, high = 0.0, eps
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if cdp_rho(middle, delta) < target else (low, middle)
    return low


def _smartnoise(name: str, replace_one: bool = False) -> Callable[..., dict]:
    """Fit SmartNoise's ``name`` once; sample it as shipped and with i.i.d. sampling.

    With ``replace_one`` (MST only) it runs at :func:`replace_one_epsilon`, so that its guarantee
    is ours: (ε, δ) for replace-one neighbours instead of add/remove; the outputs are named
    ``mst-r1`` and ``mst-r1+sample``.

    As shipped, ``sample`` calls mbi 1.x ``MarkovRandomField.synthetic_data(method="round")``,
    whose stratified rounding ranks the rows of each parent group by row index and so makes
    sibling attributes co-monotone (mbi 2.0 shuffles within groups; smartnoise-synth 1.0.8
    pins mbi < 2).  The ``+sample`` variant draws the same fitted model with
    ``method="sample"`` and then undoes the domain compression and label coding as
    ``sample`` does; its time is the fit plus its own sampling.
    """
    def run(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> dict:
        try:
            from snsynth import Synthesizer
            from snsynth.transform import LabelTransformer
            from snsynth.transform.table import TableTransformer
        except ImportError as exc:
            raise NotInstalled(str(exc)) from None
        # Label transformers fitted on the public code range 0..size-1: the domain is the
        # schema's, not the categories that happen to occur in the private data.
        transformers = []
        for attribute in schema.attributes:
            label = LabelTransformer(nullable=False)
            label.fit(list(range(attribute.size)))
            transformers.append(label)
        np.random.seed(2000 + rep)  # its selection steps and sampling draw from the global np.random
        out, label = {}, name + ("-r1" if replace_one else "")
        wall, cpu = time.perf_counter(), _cpu_seconds()
        synthesizer = Synthesizer.create(name, epsilon=replace_one_epsilon(eps) if replace_one else eps)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synthesizer.fit(pd.DataFrame(codes, columns=schema.names), transformer=TableTransformer(transformers))
            fit_wall, fit_cpu = time.perf_counter() - wall, _cpu_seconds() - cpu
            synthetic = synthesizer.sample(len(train))
            out[label] = (np.asarray(pd.DataFrame(synthetic).to_numpy(), dtype=np.int64),
                         time.perf_counter() - wall, _cpu_seconds() - cpu)
            wall, cpu = time.perf_counter(), _cpu_seconds()
            drawn = synthesizer.synthesizer.synthetic_data(rows=len(train), method="sample")
            if name == "mst":  # MST compressed rare codes of each attribute into one
                drawn = synthesizer.undo_compress_fn(drawn)
            columns = drawn.df[["col" + str(i) for i in range(len(schema))]]
            rows = [tuple(t[1:]) for t in columns.itertuples()]
            synthetic = synthesizer._transformer.inverse_transform(rows)
            out[label + "+sample"] = (np.asarray(pd.DataFrame(synthetic).to_numpy(), dtype=np.int64),
                                     fit_wall + time.perf_counter() - wall, fit_cpu + _cpu_seconds() - cpu)
        return out
    return run


def opendp_rho(eps: float, delta: float) -> float:
    """The largest zCDP ρ that OpenDP 0.16 itself converts to (ε, δ)-DP (``make_zCDP_to_approxDP`` then
    ``make_fix_delta`` on a Gaussian measurement of that ρ; bisection on its noise scale)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)

    def epsilon_of(scale: float) -> float:
        gaussian = dp.m.make_gaussian(*space, scale=scale)
        return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian), delta=delta).map(1.0)[0]

    low, high = 1e-3, 1e6  # noise scales: ε falls as the scale grows
    for _ in range(200):
        middle = (low * high) ** 0.5
        low, high = (middle, high) if epsilon_of(middle) > eps else (low, middle)
    return 1.0 / (2.0 * high * high)


def _opendp(name: str, pure: bool, workload: list[list[str]] | None = None) -> Callable[..., dict]:
    """MST or AIM of OpenDP 0.16 (``dp.mbi``, private-pgm inside) with its defaults, on our leaf codes with
    every column's keys given as the public code range (so the domain is ours, nothing is spent on
    discovering keys), add/remove-one neighbours (``unit_of(contributions=1)``).  Two outputs of one fit: rows drawn
    i.i.d. from the fitted model (``synthesize(method="sample")``), and ``…+round``, OpenDP's default draw
    (``method="round"``: mbi's randomized rounding of each conditional's expected counts, shuffled within groups),
    timed as fit + both draws.  ``pure``: ε-DP (``loss_of(epsilon=ε)``,
    Laplace noise); otherwise zCDP at the ρ that OpenDP converts to (ε, δ = 1e-9)-DP (Gaussian noise).

    Compatibility shim, not a change of method: OpenDP 0.16 splits a pure-ε budget over the selection
    steps with ``prior(d / k)`` and then refuses its own query by a few units in the last place
    ("insufficient budget for query: 0.019999999999999993 > 0.019999999999999983"); the shim makes
    ``prior`` also take off a relative 1e-9, so every step asks for slightly less than it may spend.
    AIM's searches for a noise scale (``binary_search_chain`` without bounds) try negative scales at
    small pure-ε budgets and fail ("scale (-0.5) must not be ... non-negative"); the shim gives them the
    bounds (1e-9, 1e15), inside which the search finds the same scale.
    Keys get a null category appended by OpenDP (``_with_null``); a sampled null (rare: the model's
    probability of an empty cell) is mapped to code 0 and counted in the run's notes.

    ``workload`` (AIM only; benchmarks/workload.py): the steward's attribute sets, by column name, given to AIM as
    its ``queries`` (``dp.mbi.Count(by=...)``, weight 1 each), for which OpenDP takes the downward closure and
    AIM's weights Σ_q |r ∩ q| itself (``_expand_queries``); without one, AIM's default (all 3-way sets)."""
    def run(eps: float, schema: Schema, train: pd.DataFrame | None, codes: np.ndarray, rep: int) -> dict:
        try:
            import opendp.extras.mbi._aim as aim_module
            import opendp.extras.mbi._mst as mst_module
            import opendp.prelude as dp
            import polars as pl
        except ImportError as exc:
            raise NotInstalled(str(exc)) from None
        dp.enable_features("contrib")
        for module in (aim_module, mst_module):
            module.prior = lambda x: np.nextafter(x * (1 - 1e-9), -np.inf)
        search = dp.binary_search_chain
        aim_module.binary_search_chain = lambda make, d_in, d_out, T=None, bounds=None: search(
            make, d_in, d_out, bounds=bounds or (1e-9, 1e15), T=T)
        label = f"{name}-opendp" + ("-pure" if pure else "")
        columns = [f"c{j}" for j in range(codes.shape[1])]
        frame = pl.DataFrame({c: codes[:, j].astype(np.int64) for j, c in enumerate(columns)})
        keys = {c: list(range(a.size)) for c, a in zip(columns, schema.attributes)}
        np.random.seed(2000 + rep)  # mbi's sampling draws from the global np.random
        wall, cpu = time.perf_counter(), _cpu_seconds()
        loss = dp.loss_of(epsilon=eps) if pure else dp.loss_of(rho=opendp_rho(eps, 1e-9))
        context = dp.Context.compositor(data=frame.lazy(), privacy_unit=dp.unit_of(contributions=1),
                                        privacy_loss=loss, split_evenly_over=1)
        if workload is not None:
            position = {a.name: j for j, a in enumerate(schema.attributes)}
            queries = [dp.mbi.Count(by=tuple(columns[position[a]] for a in s)) for s in workload]
        algorithm = dp.mbi.MST() if name == "mst" else dp.mbi.AIM(queries=queries) if workload else dp.mbi.AIM()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = context.query().select(*columns).contingency_table(keys=keys, algorithm=algorithm).release()
            synthetic = table.synthesize(rows=len(codes), method="sample")
            outputs = {label: (_opendp_codes(synthetic, columns), time.perf_counter() - wall, _cpu_seconds() - cpu)}
            rounded = table.synthesize(rows=len(codes), method="round")
        outputs[f"{label}+round"] = (_opendp_codes(rounded, columns), time.perf_counter() - wall,
                                     _cpu_seconds() - cpu)
        return outputs
    return run


def _opendp_codes(synthetic: object, columns: list[str]) -> np.ndarray:
    """OpenDP's synthetic frame as our leaf codes; a sampled null key (OpenDP appends one per column) becomes code 0
    and is counted in the run's notes."""
    out = np.column_stack([synthetic[c].to_numpy() for c in columns])
    missing = int(np.isnan(out).sum()) if out.dtype.kind == "f" else 0
    if missing:
        NOTES.append(f"{missing} sampled null values mapped to code 0")
    return np.nan_to_num(out, nan=0).astype(np.int64)


DPMM_PYTHON = os.environ.get("PRIVBAYES_DPMM_PYTHON", "/work/venv-dpmm/bin/python")


def _dpmm_aim(workload: list[list[str]] | None = None) -> Callable[..., dict]:
    """dpmm 0.1.9's AIM (ε, δ = 1e-9), add/remove, the schema's code ranges as its domain, run by
    benchmarks/peers_dpmm.py in dpmm's own virtualenv (``$PRIVBAYES_DPMM_PYTHON``, default /work/venv-dpmm: it pins
    numpy 1.26, pandas 2.1, opendp 0.12); ``workload``: the steward's sets, AIM's ``W``.  Two outputs of one fit:
    ``aim-dpmm``, the rows as dpmm's ``generate`` draws them (rounded expected counts, little sampling error), and
    ``aim-dpmm+sample``, rows drawn i.i.d. from the same model (as every other method here samples).  Both carry the
    whole run's wall and CPU time, the second interpreter's start and imports included (a few seconds)."""
    def run(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> dict:
        if not os.path.exists(DPMM_PYTHON):
            raise NotInstalled(f"dpmm's virtualenv {DPMM_PYTHON} (benchmarks/peers_dpmm_requirements.txt)")
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers_dpmm.py")
        options = {"epsilon": eps, "delta": 1e-9, "seed": 3000 + rep, "workload": workload}
        with tempfile.TemporaryDirectory(prefix="dpmm-") as tmp:
            source, target = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
            np.savez(source, codes=codes.astype(np.int64), sizes=np.array([a.size for a in schema.attributes]),
                     names=np.array(schema.names))
            wall, cpu = time.perf_counter(), _cpu_seconds()
            done = subprocess.run([DPMM_PYTHON, script, source, target, json.dumps(options)], capture_output=True,
                                  text=True, check=False)
            if done.returncode:
                raise RuntimeError(f"dpmm exited with code {done.returncode}: {done.stderr.strip()[-300:]}")
            seconds, cpu_seconds = time.perf_counter() - wall, _cpu_seconds() - cpu
            with np.load(target) as stored:
                shipped, sampled = stored["codes"], stored["sampled"]
        return {"aim-dpmm": (shipped, seconds, cpu_seconds), "aim-dpmm+sample": (sampled, seconds, cpu_seconds)}
    return run


def workload_runner(method: str, workload: list[list[str]]) -> Callable[..., np.ndarray | dict]:
    """The runner of ``method`` given a steward's ``workload`` (benchmarks/workload.py): ours in both privacy
    definitions with ``workload=``, AIM of OpenDP and of dpmm with it as their workload."""
    runners: dict[str, Callable[[], Callable[..., np.ndarray | dict]]] = {
        "ours-adaptive": lambda: _adaptive("add-remove", workload=workload),
        "ours-adaptive-zcdp": lambda: _adaptive("add-remove", privacy="zcdp", delta=1e-9, workload=workload),
        "aim-opendp": lambda: _opendp("aim", False, workload),
        "aim-dpmm": lambda: _dpmm_aim(workload),
    }
    return runners[method]()


def run_authors_cpp(eps: float, schema: Schema, train: pd.DataFrame, codes: np.ndarray, rep: int) -> dict:
    """The authors' C++ release (TODS 2017), built from its mirror and run by benchmarks/authors_cpp.py:
    one process reads the training rows (.dat), fits (θ = 4, β = 1/2) and samples len(train) rows."""
    import authors_cpp  # next to this script

    try:
        authors_cpp.build()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise NotInstalled(f"cannot build the authors' C++ (git, g++ and the mirror are needed): {exc}") from None
    return authors_cpp.peers_run(eps, schema, train, codes, rep)


RUNNERS: dict[str, Callable[..., np.ndarray | dict]] = {
    **{method: _ours(estimation, **OURS_OPTIONS.get(method, {})) for method, estimation in OURS.items()},
    **{method: _adaptive(neighbours) for method, neighbours in ADAPTIVE.items()},
    "ours-adaptive-zcdp": _adaptive("add-remove", privacy="zcdp", delta=1e-9),
    "ours-adaptive-zcdp-v5": _adaptive("add-remove", 5, privacy="zcdp", delta=1e-9),
    "ours-adaptive-zcdp-v6": _adaptive("add-remove", 6, privacy="zcdp", delta=1e-9),
    "datasynthesizer": run_datasynthesizer, "mst": _smartnoise("mst"), "mst-r1": _smartnoise("mst", replace_one=True),
    "aim": _smartnoise("aim"),
    "authors-cpp": run_authors_cpp, "aim-dpmm": _dpmm_aim(),
    **{f"{name}-opendp" + ("-pure" if pure else ""): _opendp(name, pure) for name in ("mst", "aim")
       for pure in (False, True)},
}
# Imported by the child before its baseline memory is read, so that a peer's peak memory
# counts its fit and sampling, not the loading of its libraries.
PACKAGES = {"datasynthesizer": ("DataSynthesizer.DataDescriber",), "mst": ("jax", "mbi", "snsynth"),
            "mst-r1": ("jax", "mbi", "snsynth"),
            "aim": ("jax", "mbi", "snsynth"),
            **{f"{name}-opendp{suffix}": ("jax", "mbi", "polars", "opendp.prelude") for name in ("mst", "aim")
               for suffix in ("", "-pure")}}


# --- one run, in a child process -----------------------------------------------------------------

def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def child(spec: dict) -> None:
    """Run one (dataset, method, ε, repetition); write the codes (.npz) and timings (.json).

    ``spec["codes"]`` (benchmarks/ground_truth.py): an ``.npy`` file of leaf codes over the bundled schema, fitted
    instead of a dataset; there are no rows as values then (``train`` is None), so only the runners that read the
    codes alone (the OpenDP ones) can take it."""
    if spec.get("codes"):
        schema, train, codes = bundled_schema(), None, np.load(spec["codes"])
    else:
        schema, train, _ = load(spec["data"], spec["split"])
        codes = leaf_codes(train, schema)
    meta: dict = {"status": "ok"}
    try:
        for module in PACKAGES.get(spec["method"], ()):
            try:
                __import__(module)
            except ImportError as exc:
                raise NotInstalled(str(exc)) from None
        meta["rss_before_fit_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        global datasynthesizer_k
        datasynthesizer_k = spec.get("datasynthesizer_k", DATASYNTHESIZER_K)
        wall, cpu = time.perf_counter(), _cpu_seconds()
        runner = workload_runner(spec["method"], spec["workload"]) if spec.get("workload") else RUNNERS[spec["method"]]
        result = runner(spec["epsilon"], schema, train, codes, spec["repeat"])
        if not isinstance(result, dict):  # one output, timed here
            result = {spec["method"]: (result,)}
        result = {name: value if len(value) == 3 else (value[0], time.perf_counter() - wall, _cpu_seconds() - cpu)
                  for name, value in result.items()}
    except NotInstalled as exc:
        meta = {"status": "not installed", "detail": str(exc)}
    except Exception as exc:  # noqa: BLE001 - a peer failing must not stop the others
        meta = {"status": "error", "detail": f"{type(exc).__name__}: {exc}"}
    if meta["status"] == "ok":
        np.savez(spec["out"] + ".npz", **{f"v{i}": value[0] for i, value in enumerate(result.values())})
        meta["variants"] = [{"method": name, "seconds": round(value[1], 2), "cpu_seconds": round(value[2], 2),
                             "library": library_fingerprint(), **({"notes": NOTES} if NOTES else {})}
                            for name, value in result.items()]
    with open(spec["out"] + ".json", "w", encoding="utf-8") as out:
        json.dump(meta, out)


def library_fingerprint() -> str:
    """privbayes version and a hash of its source files: which library a run measured."""
    import hashlib
    from pathlib import Path

    import privbayes

    digest = hashlib.sha256()
    for path in sorted(Path(privbayes.__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return f"{metadata.version('privbayes')}+{digest.hexdigest()[:10]}"


def child_env(threads: int | None) -> dict:
    env = dict(os.environ)
    if threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
            env[var] = str(threads)
        if threads == 1:  # XLA's CPU backend: no Eigen thread pool
            env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
    return env


def run_child(spec: dict, timeout: float, env: dict) -> tuple[dict, list[np.ndarray], float]:
    """Start the child, wait at most ``timeout`` s; its meta, codes, and peak resident memory (MB)."""
    process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)],
                               env=env, start_new_session=True)
    start = time.monotonic()
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > timeout:
            os.killpg(process.pid, 9)
            pid, status, usage = os.wait4(process.pid, 0)
            process.returncode = -9
            return ({"status": "timeout", "detail": f"did not finish in {timeout / 60:g} min",
                     "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1)}, [], usage.ru_maxrss / 1024)
        time.sleep(0.5)
    process.returncode = os.waitstatus_to_exitcode(status)
    try:
        with open(spec["out"] + ".json", encoding="utf-8") as f:
            meta = json.load(f)
    except OSError:
        return {"status": "error", "detail": f"child exited with code {process.returncode}"}, [], usage.ru_maxrss / 1024
    arrays = []
    if meta["status"] == "ok":
        with np.load(spec["out"] + ".npz") as stored:
            arrays = [stored[f"v{i}"] for i in range(len(meta["variants"]))]
    return meta, arrays, usage.ru_maxrss / 1024


# --- measuring -------------------------------------------------------------------------------------

def evaluate(data: str, synth: np.ndarray, train_codes: np.ndarray, test_codes: np.ndarray | None,
             sizes: list[int]) -> dict:
    scores = {"tvd2": average_marginal_tvd(train_codes, synth, sizes, 2),
              "tvd3": average_marginal_tvd(train_codes, synth, sizes, 3)}
    if test_codes is not None and data in ("bundled", "adult"):
        errors = {t.name: svm_misclassification(synth, test_codes, sizes, t) for t in PAPER_TARGETS["adult"]}
        scores.update(svm=float(np.mean(list(errors.values()))), svm_by_target=errors)
    return scores


def run(datasets: list[str], methods: list[str], epsilons: list[float], repeats: range, budget: float,
        timeout: float, threads: int | None, split: str, save: Callable[[list[dict]], None]) -> list[dict]:
    rows: list[dict] = []
    env = child_env(threads)
    skip: set[str] = set()  # methods found not installed
    with tempfile.TemporaryDirectory(prefix="peers-") as tmp:
        for data in datasets:
            schema, train, test = load(data, split)
            sizes = [a.size for a in schema.attributes]
            train_codes = leaf_codes(train, schema)
            test_codes = leaf_codes(test, schema) if test is not None else None
            spent: dict[tuple[str, float], float] = {}
            for rep in repeats:
                for eps in epsilons:
                    for method in methods:
                        if method in skip or (rep > repeats[0] and spent.get((method, eps), 0.0) >= budget):
                            continue
                        row = {"dataset": data, "method": method, "epsilon": eps, "repeat": rep, "split": split}
                        spec = {"data": data, "split": split, "method": method, "epsilon": eps, "repeat": rep,
                                "datasynthesizer_k": datasynthesizer_k, "out": os.path.join(tmp, f"run{len(rows)}")}
                        wall = time.perf_counter()
                        meta, arrays, peak_mb = run_child(spec, timeout, env)
                        spent[(method, eps)] = spent.get((method, eps), 0.0) + time.perf_counter() - wall
                        if meta["status"] != "ok":
                            rows.append({**row, **meta, "peak_rss_mb": round(peak_mb, 1)})
                            print(f"{data} {method} eps={eps} rep={rep}: {meta['status']} {meta.get('detail', '')}",
                                  file=sys.stderr, flush=True)
                            if meta["status"] == "not installed":
                                skip.add(method)
                            save(rows)
                            continue
                        for variant, synth in zip(meta["variants"], arrays):
                            entry = {**row, **variant, "status": "ok", "rows": int(synth.shape[0]),
                                     "peak_rss_mb": round(peak_mb, 1),
                                     "rss_before_fit_mb": round(meta["rss_before_fit_kb"] / 1024, 1),
                                     "load_average": round(os.getloadavg()[0], 2)}
                            entry.update(evaluate(data, synth, train_codes, test_codes, sizes))
                            print(f"{data} {variant['method']} eps={eps} rep={rep}: {entry['seconds']:.1f} s, "
                                  f"{entry['cpu_seconds']:.1f} CPU s, {peak_mb:.0f} MB, TVD2 {entry['tvd2']:.4f}, "
                                  f"TVD3 {entry['tvd3']:.4f}" + (f", SVM {entry['svm']:.4f}" if "svm" in entry else ""),
                                  file=sys.stderr, flush=True)
                            rows.append(entry)
                        save(rows)
    return rows


def _key(row: dict) -> tuple[str, str, float]:
    return row.get("dataset", "bundled"), row["method"], row["epsilon"]


def _rank(method: str) -> tuple[int, str]:
    return (ORDER.index(method) if method in ORDER else len(ORDER), method)


def summarise(rows: list[dict]) -> list[dict]:
    """Mean (and sd) per (dataset, method, ε), with the ratio of mean wall/CPU time to ours at that ε."""
    groups: dict[tuple[str, str, float], list[dict]] = {}
    for r in rows:
        groups.setdefault(_key(r), []).append(r)
    out = []
    for (data, method, eps) in sorted(groups, key=lambda k: (DATASETS.index(k[0]) if k[0] in DATASETS else 9,
                                                              k[2], _rank(k[1]))):
        group = groups[(data, method, eps)]
        ok = [r for r in group if r["status"] == "ok"]
        entry = {"dataset": data, "method": method, "epsilon": eps, "runs": len(ok),
                 "failed": len(group) - len(ok), "status": "ok" if ok else group[0]["status"]}
        if not ok:
            entry["detail"] = group[0].get("detail", "")
            out.append(entry)
            continue
        for key in ("seconds", "cpu_seconds", "peak_rss_mb", "rss_before_fit_mb", "tvd2", "tvd3", "svm"):
            values = [r[key] for r in ok if r.get(key) is not None]
            if values:
                entry[key] = statistics.fmean(values)
                entry[key + "_sd"] = statistics.stdev(values) if len(values) > 1 else None
        out.append(entry)
    for e in out:
        base = next((b for m in ("ours-consistent", "ours") for b in out
                     if (b["dataset"], b["method"], b["epsilon"]) == (e["dataset"], m, e["epsilon"])
                     and b["status"] == "ok"), None)
        if e["status"] == "ok" and base:
            e["time_ratio"] = e["seconds"] / base["seconds"]
            e["cpu_ratio"] = e["cpu_seconds"] / base["cpu_seconds"]
    return out


def machine() -> dict:
    cpu = "unknown"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    versions = {}
    for package in ("privbayes", "numpy", "pandas", "scikit-learn", "numba", "DataSynthesizer", "smartnoise-synth",
                    "mbi", "jax", "jaxlib", "opendp"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {"cpus": os.cpu_count(), "cpu_model": cpu, "python": platform.python_version(),
            "platform": platform.platform(), "load_average": [round(x, 2) for x in os.getloadavg()],
            "packages": versions}


def _fmt(value: float | None, digits: int, sd: float | None = None) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" + (f" ± {sd:.{digits}f}" if sd is not None else "")


def markdown_table(summary: list[dict]) -> str:
    """One line per (dataset, method, ε); times, ratios to ours (consistent, else default), memory, scores."""
    lines = [("| data | method | ε | runs | wall s (fit+sample) | × ours | CPU s | × ours | peak MB (before fit) "
              "| TVD 2-way | TVD 3-way | SVM error |"),
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for e in summary:
        head = f"| {e['dataset']} | {e['method']} | {e['epsilon']:g} |"
        if e["status"] != "ok":
            lines.append(f"{head} 0 | {e['status']}: {e.get('detail', '')} | | | | | | | |")
            continue
        failed = f" (+{e['failed']} failed)" if e["failed"] else ""
        lines.append(
            f"{head} {e['runs']}{failed} | {_fmt(e['seconds'], 1, e['seconds_sd'])} | {_fmt(e.get('time_ratio'), 1)} | "
            f"{_fmt(e['cpu_seconds'], 1)} | {_fmt(e.get('cpu_ratio'), 1)} | "
            f"{_fmt(e.get('peak_rss_mb'), 0)} ({_fmt(e.get('rss_before_fit_mb'), 0)}) | "
            f"{_fmt(e['tvd2'], 4, e['tvd2_sd'])} | {_fmt(e['tvd3'], 4, e['tvd3_sd'])} | "
            f"{_fmt(e.get('svm'), 4, e.get('svm_sd'))} |")
    return "\n".join(lines)


def comparison_table(summary: list[dict], score: str) -> str:
    """Issue 18's view: one line per (dataset, ε), one column per method, mean ± sd of ``score``."""
    methods = sorted({e["method"] for e in summary}, key=_rank)
    cells = {(e["dataset"], e["epsilon"], e["method"]): e for e in summary}
    lines = ["| data | ε | " + " | ".join(methods) + " |", "| --- | ---: |" + " ---: |" * len(methods)]
    for data, eps in sorted({(e["dataset"], e["epsilon"]) for e in summary},
                            key=lambda k: (DATASETS.index(k[0]) if k[0] in DATASETS else 9, k[1])):
        if not any(score in e for (d, x, _), e in cells.items() if (d, x) == (data, eps)):
            continue  # e.g. no SVM score outside Adult
        row = []
        for m in methods:
            e = cells.get((data, eps, m))
            if e is None:
                row.append("")
            elif e["status"] != "ok":
                row.append(e["status"])
            else:
                row.append(_fmt(e.get(score), 4, e.get(score + "_sd")) + f" ({e['runs']})")
        lines.append(f"| {data} | {eps:g} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def tables(summary: list[dict]) -> str:
    out = [markdown_table(summary)]
    for score, title in (("tvd2", "TVD 2-way"), ("tvd3", "TVD 3-way"), ("svm", "SVM error")):
        if any(score in e for e in summary):
            out += ["", f"{title}, mean ± sd (runs):", "", comparison_table(summary, score)]
    return "\n".join(out)


def _run_line(d: dict) -> str:
    info = d["machine"]
    methods = sorted({r["method"] for r in d["results"]}, key=_rank)
    data = sorted({r.get("dataset", "bundled") for r in d["results"]})
    return (f"- {', '.join(data)}: {', '.join(methods)}: run {d['date']}, {d['total_seconds']:.0f} s in all; "
            f"{info['cpus']} cores ({info['cpu_model']}), Python {info['python']}; load average "
            f"{info['load_average_at_start']} at start, {info['load_average']} at the end; "
            f"settings {json.dumps(d.get('settings', {}))}.\n")


def merge(paths: list[str], markdown: str | None, json_path: str | None) -> None:
    documents = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            documents.append(json.load(f))
    chosen: dict[tuple, list[dict]] = {}
    for d in documents:  # a later file's (dataset, method, ε, repetition) replaces an earlier one's
        groups: dict[tuple, list[dict]] = {}
        for r in d["results"]:
            groups.setdefault((*_key(r), r["repeat"]), []).append(r)
        chosen.update(groups)
    rows = [r for group in chosen.values() for r in group]
    summary = summarise(rows)
    text = tables(summary)
    def runs(d: dict) -> list[str]:  # an earlier merge brings its own run lines
        return d["runs"] if "merged" in d else [_run_line(d).strip()]

    merged = [m for p, d in zip(paths, documents)
              for m in (d["merged"] if "merged" in d else [{"file": p, "date": d["date"]}])]
    document = {"benchmark": "peers", "merged": merged, "machine": documents[-1]["machine"],
                "runs": [line for d in documents for line in runs(d)], "summary": summary, "results": rows}
    print(json.dumps({k: v for k, v in document.items() if k != "results"}, indent=1))
    print()
    print(text)
    if json_path:
        atomic_write_text(json_path, json.dumps(document, indent=1) + "\n")
    if markdown:
        info = documents[-1]["machine"]
        atomic_write_text(markdown, "".join(line + "\n" for line in document["runs"]) + "\nPackages: "
                          + ", ".join(f"{k} {v}" for k, v in info["packages"].items() if v) + "\n\n" + text + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="bundled", help=f"comma-separated, from {','.join(DATASETS)}")
    parser.add_argument("--split", choices=("80/20", "full"), default="80/20")
    parser.add_argument("--methods", default="ours,datasynthesizer,mst",
                        help=f"comma-separated, from {','.join(METHODS)}")
    parser.add_argument("--epsilons", default="0.1,0.4,1.6")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repeat-from", type=int, default=0,
                        help="first repetition (its seeds): run repetitions repeat-from .. repeats-1")
    parser.add_argument("--budget", type=float, default=120.0,
                        help="stop repeating a (dataset, method, ε) once its runs took this many wall seconds")
    parser.add_argument("--timeout", type=float, default=1800.0, help="kill a run after this many wall seconds")
    parser.add_argument("--threads", type=int, default=None, help="cap XLA/numba/BLAS threads in the runs")
    parser.add_argument("--markdown", help="also write the run line and the tables to this file")
    parser.add_argument("--datasynthesizer-k", type=int, default=DATASYNTHESIZER_K,
                        help="degree k of DataSynthesizer's network (k = 2 costs ~20 CPU minutes per fit)")
    parser.add_argument("--json", help="also write the JSON document to this file (rewritten after every run)")
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="run nothing: combine earlier runs' JSON files (a later file's (dataset, method, ε, "
                        "repetition) wins)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(json.loads(args.child))
        return
    if args.merge:
        merge(args.merge, args.markdown, args.json)
        return
    global datasynthesizer_k
    datasynthesizer_k = args.datasynthesizer_k
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    datasets = [d.strip() for d in args.data.split(",") if d.strip()]
    for given, allowed, what in ((methods, METHODS, "method"), (datasets, DATASETS, "dataset")):
        unknown = [m for m in given if m not in allowed]
        if unknown:
            parser.error(f"unknown {what}(s) {unknown}; choose from {allowed}")
    started = datetime.datetime.now(datetime.UTC)
    load_before = [round(x, 2) for x in os.getloadavg()]
    t0 = time.perf_counter()
    settings = {"data": datasets,
                "split": "whole table" if args.split == "full" else "train_test_split_indices(n, seed=0)",
                "repeats": [args.repeat_from, args.repeats], "budget_seconds": args.budget,
                "timeout_seconds": args.timeout,
                "threads": args.threads, "datasynthesizer_k": datasynthesizer_k, "command": " ".join(sys.argv)}

    def document(rows: list[dict]) -> dict:
        info = machine()
        info["load_average_at_start"] = load_before
        return {"benchmark": "peers", "date": started.isoformat(timespec="seconds"),
                "total_seconds": round(time.perf_counter() - t0, 1), "machine": info, "settings": settings,
                "summary": summarise(rows), "results": rows}

    def save(rows: list[dict]) -> None:
        if args.json:
            atomic_write_text(args.json, json.dumps(document(rows), indent=1) + "\n")

    rows = run(datasets, methods, [float(e) for e in args.epsilons.split(",")], range(args.repeat_from, args.repeats),
               args.budget,
               args.timeout, args.threads, args.split, save)
    final = document(rows)
    save(rows)
    print(json.dumps(final, indent=1))
    text = tables(final["summary"])
    print()
    print(text)
    if args.markdown:
        info = final["machine"]
        atomic_write_text(args.markdown, _run_line(final) + "\nPackages: "
                          + ", ".join(f"{k} {v}" for k, v in info["packages"].items() if v) + "\n\n" + text + "\n")


if __name__ == "__main__":
    main()
