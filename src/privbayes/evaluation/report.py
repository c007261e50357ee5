"""``privbayes evaluate``: how close is a synthetic table to the real one? (TODS 2017, §6.1)

The metrics are those of the paper's experiments (§6.1, "Tasks"):

* the counting task: the average total variation distance over the query set Qα of
  all α-way marginals (the paper reports Q2/Q3 or Q3/Q4); α whose Qα would hold more
  than ``max_marginals`` marginals are skipped with a note;
* the 1-way TVD of every attribute (where a model loses or keeps each distribution);
* references computed on the spot (uniform; independent marginals of REAL), a one-line
  verdict (:mod:`privbayes.evaluation.verdict`), and raw-value checks of numeric
  columns (point masses, quantiles, KS distance: :mod:`privbayes.evaluation.numeric`);
* every pair whose relation the synthetic table lost and every column far off, named in the
  verdict (:mod:`privbayes.evaluation.pairs`);
* the multiple-SVM task, on the given binary targets, else on a default one (the most balanced
  categorical value against the rest, never one with a majority over 95 %: :func:`default_target`):
  a linear hinge-loss C-SVM
  (C = 1) per target, trained on SYNTH, scored on a held-out 20 % of REAL, beside the
  no-privacy reference trained on the other 80 % of REAL.  Both are scored on the
  same 20 %.  The paper fits the synthesizer on the 80 % part only; if SYNTH came
  from a model fitted on all of REAL its score is optimistic.

Everything above runs on the base install (numpy, pandas).  The classifier check needs
scikit-learn and the report's figures matplotlib (the extra ``privbayes[eval]``, ≈ 300 MB
with scipy); without them the rest is printed, the report is written without figures, and
one line each says what to install (docs/decisions.md, "evaluate on the base install").

The HTML report (:mod:`privbayes.evaluation.page`) puts the verdict first with the privacy
caveats beside it (:mod:`privbayes.evaluation.caveats`), then the numbers, the figures
(:mod:`privbayes.evaluation.plots`), the model's released structure and ledger and a glossary.
Nothing here is differentially private: the numbers and the report describe the real
data exactly and are for the data steward, not for publication.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError
from privbayes.evaluation.caveats import privacy_summary, privacy_text
from privbayes.evaluation.classifiers import (
    CLASSIFIER_NEEDS,
    Target,
    sklearn_available,
    svm_misclassification,
    train_test_split_indices,
)
from privbayes.evaluation.labels import readable_labels
from privbayes.evaluation.marginals import average_marginal_tvd, marginal, workload_tvd
from privbayes.evaluation.numeric import numeric_check
from privbayes.evaluation.pairs import FAR_ONE_WAY, Comparison, compare
from privbayes.evaluation.results import (
    NOT_PRIVATE,
    AttributeScore,
    Evaluation,
    MarginalScore,
    SvmScore,
    WorkloadScore,
)
from privbayes.evaluation.verdict import references, verdict
from privbayes.schema import Attribute, NumericAttribute, Schema
from privbayes.schema.serialisation import attribute_from_dict, attribute_to_dict


def target_codes(attr: Attribute, values: Sequence[str], where: str) -> np.ndarray:
    """Leaf codes of values named on the command line (parameters, so the message may echo them)."""
    from privbayes.counting.labels import label_column

    codes = []
    for value in values:
        try:
            codes.append(label_column(attr, np.zeros(1, np.int64), np.array([value], dtype=object), where)[0])
        except InputError:
            raise InputError(f"{where}: value {value!r} is not one of the schema's values of {attr.name!r}") from None
    return np.array(codes)

DEFAULT_ALPHAS: tuple[int, ...] = (2, 3)
MAX_MARGINALS = 50_000

_TARGET = re.compile(r"^(?P<column>[^<>=]+?)\s*(?P<op>>=|<=|=|>|<)\s*(?P<value>.+)$")
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}


# --- parsing command-line values ----------------------------------------------------------------

def parse_alphas(text: str) -> tuple[int, ...]:
    """``"2,3"`` → ``(2, 3)``: the α of the Qα to evaluate, each an integer ≥ 1."""
    try:
        alphas = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        alphas = ()
    if not alphas or alphas[0] < 1:
        raise InputError(f"--alpha ({text!r}) must be a comma-separated list of integers >= 1, e.g. 2,3")
    return alphas


def parse_target(text: str, schema: Schema) -> Target:
    """A binary SVM target from ``COLUMN=V1|V2`` (a set of values), ``COLUMN>=X`` (numeric), or
    ``COLUMN`` alone (categorical or binary: its last declared category against the rest, e.g.
    ``income`` is ``income=>50K`` with categories ``[<=50K, >50K]``; public, and the same on every run).

    A numeric attribute is known only by its bins, so ``=X`` selects the bin holding X and
    ``>=X``, ``>X``, ``<=X``, ``<X`` select the bins whose midpoint satisfies the comparison
    (the paper's BR2000 "age > 20" is likewise cut at a bin edge).
    """
    if text.strip() in schema.names:
        attr = schema.attributes[schema.index(text.strip())]
        if attr.numeric:
            raise InputError(f"--target ({text!r}): a numeric column needs a threshold, e.g. {text.strip()}>=NUMBER")
        if attr.size < 2:
            raise InputError(f"--target ({text!r}): {attr.name!r} has one value; the SVM task needs two classes")
        return Target(f"{attr.name}={attr.categories[-1]}", schema.index(attr.name), frozenset({attr.base_size - 1}))
    match = _TARGET.match(text.strip())
    if match is None:
        raise InputError(f"--target ({text!r}) must look like COLUMN, COLUMN=VALUE, COLUMN=V1|V2 or COLUMN>=NUMBER")
    column, op, value = match["column"].strip(), match["op"], match["value"].strip()
    if column not in schema.names:
        raise InputError(f"--target ({text!r}): column {column!r} is not in the schema")
    j = schema.names.index(column)
    attr = schema.attributes[j]
    if op == "=":
        values = [v.strip() for v in value.split("|")]
        positive = {int(code) for code in target_codes(attr, values, f"--target {text!r}")}
    elif not (isinstance(attr, NumericAttribute) and attr.kind == "numeric"):
        raise InputError(f"--target ({text!r}): {op} needs a numeric attribute; use {column}=V1|V2")
    else:
        try:
            x = float(value)
        except ValueError:
            raise InputError(f"--target ({text!r}): {value!r} is not a number") from None
        edges = attr.bin_edges()
        positive = {b for b in range(attr.bins) if _COMPARE[op]((edges[b] + edges[b + 1]) / 2, x)}
        positive |= {attr.bins + i for i, v in enumerate(attr.special_values) if _COMPARE[op](v, x)}
    if not positive:
        raise InputError(f"--target ({text!r}) selects no value of {column!r}")
    if len(positive) == attr.size:
        raise InputError(f"--target ({text!r}) selects every value of {column!r}; the SVM task needs two classes")
    return Target(text.strip(), j, frozenset(positive))


# --- metrics ------------------------------------------------------------------------------------

def value_labels(attr: Attribute) -> tuple[str, ...]:
    """Display labels of an attribute's leaf codes: categories, or readable bins (``17–21``,
    ``[0.25, 0.5)``: :func:`privbayes.evaluation.labels.readable_labels`)."""
    return readable_labels(attr)


def evaluate_codes(real: np.ndarray, synth: np.ndarray, schema: Schema, alphas: Sequence[int] = DEFAULT_ALPHAS,
                   targets: Sequence[Target] = (), split_seed: int = 0,
                   max_marginals: int = MAX_MARGINALS, workload: Any = None) -> Evaluation:
    """The TODS 2017 §6.1 metrics of a synthetic table against the real one (leaf codes, n × d); with a
    ``workload`` (a workload file's path, a list of attribute sets, or a parsed
    :class:`~privbayes.methods.adaptive.workload.Workload`), also its workload error (:func:`workload_score`)."""
    sizes = [a.size for a in schema.attributes]
    d = len(sizes)
    notes: list[str] = []
    scores = []
    for alpha in alphas:
        count = math.comb(d, alpha)
        if alpha > d:
            scores.append(MarginalScore(alpha, 0, None, f"skipped: α = {alpha} exceeds the {d} attributes"))
        elif count > max_marginals:
            note = f"skipped: {count:,} marginals (more than {max_marginals:,})"
            scores.append(MarginalScore(alpha, count, None, note))
        else:
            scores.append(MarginalScore(alpha, count, average_marginal_tvd(real, synth, sizes, alpha)))
    attributes = tuple(
        AttributeScore(a.name, a.kind, value_labels(a), marginal(real, sizes, [j]), marginal(synth, sizes, [j]))
        for j, a in enumerate(schema.attributes))
    svm: list[SvmScore] = []
    if targets:
        if real.shape[0] < 5:
            raise InputError(f"the SVM task needs at least 5 real rows for its 80/20 split, got {real.shape[0]}")
        train, test = train_test_split_indices(real.shape[0], split_seed)
        for target in targets:
            svm.append(SvmScore(target.name, float(target.labels(real).mean()), float(target.labels(synth).mean()),
                                svm_misclassification(synth, real[test], sizes, target),
                                svm_misclassification(real[train], real[test], sizes, target)))
        notes.append(f"SVM: linear hinge-loss C-SVM, C = 1, one-hot features (TODS 2017 §6.1); both models are "
                     f"scored on the same {len(test)} held-out rows of REAL (80/20 split, seed {split_seed})")
    comparison = compare(real, synth, sizes, schema.names)
    refs = references(comparison)
    return Evaluation(real.shape[0], synth.shape[0], tuple(scores), attributes, tuple(svm), tuple(notes), refs,
                      (), verdict(refs, (), comparison), comparison=comparison,
                      workload=None if workload is None else workload_score(real, synth, schema, workload))


def workload_score(real: np.ndarray, synth: np.ndarray, schema: Schema, workload: Any) -> WorkloadScore:
    """The workload error of a synthetic table (AIM, VLDB 2022, §2): the average TVD over the workload's sets,
    weighted by their weights (shorthands expanded, repeated sets' weights added:
    :meth:`~privbayes.methods.adaptive.workload.Workload.resolve`)."""
    from privbayes.methods.adaptive.workload import parse_workload

    parsed = parse_workload(workload)
    sets = parsed.resolve(schema.names, [a.size for a in schema.attributes])
    error, tvds = workload_tvd(real, synth, [a.size for a in schema.attributes], sets)
    return WorkloadScore(parsed.source, error, tuple((tuple(schema.names[a] for a in s), float(w), t)
                                                     for (s, w), t in zip(sets, tvds)))


MAX_MAJORITY = 0.95
"""A default classifier target never has a class holding more than this share of the real rows."""


def default_target(schema: Schema, real: np.ndarray) -> tuple[Target | None, str]:
    """The classifier target when the user names none, and why (docs/decisions.md, "Evaluate: lost pairs
    and the default target").

    Candidates are every value of every categorical (or binary) column against the rest of that column;
    a candidate whose majority class holds more than :data:`MAX_MAJORITY` of the real rows is never
    used (a 98.5 % class is predicted by a constant).  The most balanced wins (real share closest to
    1/2); ties go to the rarer side, then the later column (often the outcome), then the earlier value."""
    best: tuple[tuple[float, bool, int, int], Target, float] | None = None
    for j, attr in enumerate(schema.attributes):
        if attr.numeric:
            continue
        shares = np.bincount(real[:, j], minlength=attr.size) / max(real.shape[0], 1)
        labels = value_labels(attr)
        for v in range(attr.base_size):
            share = float(shares[v])
            if max(share, 1 - share) > MAX_MAJORITY:
                continue
            key = (abs(share - 0.5), share > 0.5, -j, v)
            if best is None or key < best[0]:
                best = (key, Target(f"{attr.name}={labels[v]}", j, frozenset({v})), share)
    if best is None:
        return None, (f"no default SVM target: no categorical value splits the real rows with a majority of at most "
                      f"{MAX_MAJORITY:.0%}; --target to choose")
    _, target, share = best
    return target, (f"SVM target by default: {target.name} (real share {share:.1%}: the most balanced categorical "
                    f"value against the rest; targets with a majority over {MAX_MAJORITY:.0%} are never chosen; "
                    f"--target to choose)")


# --- text output --------------------------------------------------------------------------------

def format_text(ev: Evaluation, real_name: str = "REAL", synth_name: str = "SYNTH",
                privacy: Sequence[str] = ()) -> str:
    """A readable plain-text table of an :class:`Evaluation`; the verdict last, with the lines of
    ``privacy`` (:func:`privbayes.evaluation.caveats.privacy_text`) right under it."""
    lines = [f"{synth_name} (n = {ev.n_synth}) vs {real_name} (n = {ev.n_real}), {len(ev.attributes)} attributes",
             "", "α-way marginals: average total variation distance over Qα (TODS 2017 §6.1)"]
    for score in ev.marginals:
        if score.tvd is None:
            lines.append(f"  Q{score.alpha:<3} {score.note}")
        else:
            lines.append(f"  Q{score.alpha:<3} {score.tvd:.4f}   ({score.count:,} marginals)")
    if ev.workload is not None:
        lines.append(f"  workload {ev.workload.tvd:.4f}   ({len(ev.workload.sets):,} sets of {ev.workload.source}, "
                     "weighted average)")
    if ev.references is not None:
        lines += ["", "references (computed from REAL): average TVD", f"  {'':<8} {'SYNTH':>8} {'uniform':>8} "
                  f"{'independent':>12}", "  1-way    " + "  ".join(f"{x:>8.4f}" for x in ev.references.one_way)]
        if ev.references.two_way is not None:
            lines.append("  2-way    " + "  ".join(f"{x:>8.4f}" for x in ev.references.two_way))
    if ev.numeric:
        lines += ["", "numeric columns on raw values (real / synthetic)"]
        for c in ev.numeric:
            masses = ", ".join(f"={v}: {r:.1%}/{s:.1%}" for v, r, s in c.masses) or "no point masses"
            quartiles = " ".join(f"q{int(q * 100)} {r}/{s}" for q, r, s in c.quantiles)
            lines += [f"  {c.name}: KS {c.ks:.3f}; {masses}", f"    {quartiles}"]
    width = max(9, *(len(a.name) for a in ev.attributes))
    lines += ["", "1-way total variation distance per attribute",
              f"  {'attribute':<{width}}  {'kind':<11}  {'values':>6}  {'TVD':>6}"]
    for a in ev.attributes:
        lines.append(f"  {a.name:<{width}}  {a.kind:<11}  {len(a.labels):>6}  {a.tvd:>6.4f}")
    if ev.svm:
        width = max(6, *(len(s.target) for s in ev.svm))
        lines += ["", "SVM misclassification rate (trained on SYNTH vs no-privacy reference trained on REAL)",
                  f"  {'target':<{width}}  {'positive (real/synth)':>21}  {'SYNTH':>6}  {'REAL':>6}"]
        for s in ev.svm:
            rates = f"{s.positive_real:.3f}/{s.positive_synth:.3f}"
            lines.append(f"  {s.target:<{width}}  {rates:>21}  {s.synthetic:>6.4f}  {s.reference:>6.4f}")
    lines += [""] + [f"note: {note}" for note in ev.notes] + ([] if privacy else [f"note: {NOT_PRIVATE}"])
    lines += [f"not run: {line}" for line in ev.skipped]
    lines += _losses_text(ev.comparison)
    if ev.verdict:
        lines += ["", f"verdict: {ev.verdict}"]
    lines += list(privacy)
    return "\n".join(lines)


PRINTED_PAIRS = 20
"""Lost pairs listed in the text output; all of them are in --json and --report."""


def _losses_text(comparison: Comparison | None) -> list[str]:
    """The far-off columns and the pairs that lost their relation (at most :data:`PRINTED_PAIRS`)."""
    if comparison is None:
        return []
    lines = []
    far = comparison.far_columns
    if far:
        lines += ["", f"columns far off: {len(far)} of {len(comparison.columns)} (1-way TVD above {FAR_ONE_WAY} "
                  f"and above sampling noise)", f"  {'column':<24} {'SYNTH':>8} {'uniform':>8} {'noise':>8}"]
        lines += [f"  {c.name:<24} {c.tvd:>8.4f} {c.uniform:>8.4f} {c.noise:>8.4f}" for c in far]
    lost = comparison.lost_pairs
    if lost:
        lines += ["", f"column pairs that lost their relation: {len(lost)} of {len(comparison.pairs or ())} "
                  "(a real relation beyond sampling noise that the synthetic table keeps no better than independent "
                  "columns, or, without one, a 2-way TVD clearly worse than independent columns)",
                  f"  {'pair':<40} {'SYNTH':>8} {'independent':>12} {'noise':>8} {'synthetic noise':>16}"]
        lines += [f"  {p.label:<40} {p.tvd:>8.4f} {p.independent:>12.4f} {p.noise:>8.4f} {p.synthetic_noise:>16.4f}"
                  for p in lost[:PRINTED_PAIRS]]
        if len(lost) > PRINTED_PAIRS:
            lines.append(f"  ... and {len(lost) - PRINTED_PAIRS} more (all of them in --json and --report)")
    return lines


def average_tvd_against(real: Any, others: Sequence[Any], schema: Schema, alpha: int = 2) -> list[float]:
    """Average α-way marginal TVD of each of ``others`` (paths or DataFrames) against ``real``."""
    from privbayes.counting import leaf_codes
    from privbayes.schema.files import as_schema

    schema = as_schema(schema)
    sizes = [a.size for a in schema.attributes]
    real_codes = leaf_codes(real, schema)
    return [average_marginal_tvd(real_codes, leaf_codes(other, schema), sizes, alpha) for other in others]


def verdict_against(real: Any, synthetic: Any, schema: Schema) -> str:
    """The one-line verdict of ``synthetic`` against ``real`` (paths or DataFrames) on the leaf codes."""
    from privbayes.counting import leaf_codes
    from privbayes.schema.files import as_schema

    schema = as_schema(schema)
    sizes = [a.size for a in schema.attributes]
    comparison = compare(leaf_codes(real, schema), leaf_codes(synthetic, schema), sizes, schema.names)
    return verdict(references(comparison), (), comparison)


# --- the command --------------------------------------------------------------------------------

def _load_inputs(real_path: Any, synth_path: Any, schema_arg: Any, model_path: str | None, sep: str | None = None,
                 encoding: str | None = None) -> tuple[Schema, Any, pd.DataFrame, pd.DataFrame, list[str]]:
    from privbayes.counting.reading import read_frame
    from privbayes.schema.files import as_schema
    from privbayes.synthesizers.registry import load

    if schema_arg is None and model_path is None:
        raise InputError("evaluate needs --schema (the public domain), or --model to use the model's schema")
    notes: list[str] = []
    model = load(model_path) if model_path is not None else None
    model_schema: Any = getattr(model, "schema", None)
    if schema_arg is None and model_schema is None:
        raise InputError(f"{model_path}: this model file does not carry its schema; give --schema")
    schema = as_schema(schema_arg) if schema_arg is not None else model_schema
    if model is not None and getattr(model, "schema", None) is not None:
        if model.schema.names != schema.names:
            raise InputError(f"{model_path}: the model's attributes {model.schema.names} differ from the "
                             f"schema's {schema.names}")
        differ = [a.name for a, b in zip(schema.attributes, model.schema.attributes) if a != b]
        if differ:
            notes.append(f"the model's domain of {differ[0]!r} differs from --schema; the metrics use --schema")
    frames = [p if isinstance(p, pd.DataFrame) else read_frame(p, schema, sep, encoding)
              for p in (real_path, synth_path)]
    return schema, model, frames[0], frames[1], notes


def table_codes(frame: pd.DataFrame, schema: Schema, where: str) -> np.ndarray:
    """The leaf codes of a table read for evaluation, errors naming ``where`` (the file)."""
    from privbayes.counting.labels import label_column
    from privbayes.counting.reading import raw_columns

    columns = raw_columns(frame, schema, where)
    return np.column_stack([label_column(a, columns[a.name].positions, columns[a.name].distinct,
                                         f"{where}: column {a.name!r}") for a in schema.attributes])


def clipping(schema: Schema) -> Schema:
    """``schema`` with numbers and dates outside the bounds clipped to the nearest bound (for a
    synthetic table made by another tool: ``--clip-synthetic``).  Each attribute is rebuilt from its schema-file
    mapping, as a file spells it (a date's bounds as ISO text, not the ordinals it holds)."""
    return dataclasses.replace(schema, attributes=tuple(
        attribute_from_dict({**attribute_to_dict(a), "invalid": "clip"}, "schema")
        if a.numeric and a.invalid == "refuse" else a
        for a in schema.attributes))


def run_evaluate(real_path: Any, synth_path: Any, *, schema_path: Any = None, model_path: str | None = None,
                 report_path: str | None = None, alpha: str = "2,3", targets: Sequence[str] = (),
                 split_seed: int = 0, out: TextIO | None = None, sep: str | None = None,
                 encoding: str | None = None, classifier: bool = True, clip_synthetic: bool = False,
                 json_path: str | None = None, audit_path: str | None = None, workload: Any = None) -> Evaluation:
    """Compute the metrics, references and verdict, print them, and write the HTML report and the JSON
    document (:mod:`privbayes.evaluation.export`) if asked (atomically); ``audit_path`` (a ``privbayes audit
    --json`` file) is cited beside the guarantee; ``workload`` (a workload file or a list of attribute sets) adds
    the workload error.  ``schema_path`` may be a path, a
    dict or a Schema.  What needs an optional dependency that is missing (the classifier check:
    scikit-learn; the figures: matplotlib) is left out with one line saying what to install; everything
    else is printed."""
    from privbayes.evaluation.plots import PLOTS_NEED, matplotlib_available

    out = sys.stdout if out is None else out
    alphas = parse_alphas(alpha)
    for path in (report_path, json_path):
        folder = os.path.dirname(os.path.abspath(path)) if path is not None else ""
        if path is not None and not os.path.isdir(folder):
            raise InputError(f"{path}: the folder {folder!r} does not exist")
    if audit_path is not None:  # a bad audit file is refused before any work
        from privbayes.audit.result import cite_audit

        cite_audit(audit_path)
    if workload is not None:  # a bad workload file is refused before any work
        from privbayes.methods.adaptive.workload import parse_workload

        workload = parse_workload(workload)
    schema, model, real_frame, synth_frame, notes = _load_inputs(real_path, synth_path, schema_path, model_path,
                                                                 sep, encoding)
    real = table_codes(real_frame, schema, _name(real_path))
    synth = table_codes(synth_frame, clipping(schema) if clip_synthetic else schema, _name(synth_path))
    if clip_synthetic:
        notes.append("numbers of the synthetic table outside the schema's bounds were clipped to the nearest bound "
                     "(--clip-synthetic)")
    parsed = [parse_target(t, schema) for t in targets]
    skipped: list[str] = []
    why = ""
    if classifier and real.shape[0] >= 5 and not sklearn_available():
        skipped.append(CLASSIFIER_NEEDS)
        parsed = []
    elif not parsed and classifier and real.shape[0] >= 5:
        default, why = default_target(schema, real)
        parsed = [default] if default is not None else []
        notes.append(why)
    figures = report_path is not None and matplotlib_available()
    if report_path is not None and not figures:
        skipped.append(PLOTS_NEED)
    ev = evaluate_codes(real, synth, schema, alphas, parsed, split_seed, workload=workload)
    checks = tuple(numeric_check(a, real_frame[a.name], synth_frame[a.name]) for a in schema.attributes if a.numeric)
    ev = dataclasses.replace(ev, notes=tuple(notes) + ev.notes, numeric=checks, skipped=tuple(skipped),
                             verdict=verdict(ev.references, checks, ev.comparison) if ev.references is not None
                             else "", default_target=why)
    privacy = privacy_summary(model, schema, audit_path)
    print(format_text(ev, str(real_path), str(synth_path), privacy_text(privacy)), file=out)
    if json_path is not None:
        from privbayes.evaluation.export import write_json

        write_json(json_path, ev, privacy, real_name=str(real_path), synth_name=str(synth_path))
        print(f"wrote {json_path}", file=out)
    if report_path is not None:
        from privbayes.evaluation.marginals import marginal_tvd_table
        from privbayes.evaluation.page import write_html_report

        pairs = marginal_tvd_table(real, synth, [a.size for a in schema.attributes])
        write_html_report(report_path, ev, pairs, privacy, model, real_name=str(real_path),
                          synth_name=str(synth_path), figures=figures, figures_note=f"Not drawn: {PLOTS_NEED}.")
        print(f"wrote {report_path}" + ("" if figures else " (without figures)"), file=out)
    return ev


def _name(source: Any) -> str:
    """How messages name a table: its path, or "data" for a DataFrame."""
    return "data" if isinstance(source, pd.DataFrame) else str(source)
