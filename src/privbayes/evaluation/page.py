"""The HTML report of ``privbayes evaluate``, written for the data steward who decides
(docs/decisions.md, "The evaluation report for a data steward").

Top of the page, in one glance: the verdict (GOOD / FAIR / POOR, in words) and beside it what
protects the table (the model's guarantee and ε, the inferred-domain and seeding caveats, and
that this report is itself not private: :mod:`privbayes.evaluation.caveats`); under them every
column pair that lost its relation and every column far off (:mod:`privbayes.evaluation.pairs`),
all of them, so a GOOD average cannot hide one.  Then the
numbers behind the verdict (TODS 2017 §6.1), the figures, the raw-value and classifier checks,
the model's released structure (drawn and listed from one value:
:mod:`privbayes.evaluation.structure`) with its privacy report and ledger, and a glossary line
for every term used (:mod:`privbayes.evaluation.glossary`).

One self-contained file: inline CSS, images as ``data:`` URIs, no script, no external asset.
Without matplotlib the figures are left out and the page says in one line what to install.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np

from privbayes.evaluation.caveats import PrivacySummary
from privbayes.evaluation.glossary import glossary
from privbayes.evaluation.results import Evaluation
from privbayes.evaluation.structure import Structure

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1200px;color:#222;
 padding:0 1em;line-height:1.4}
h1{font-size:1.6em;margin:.2em 0}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.files{color:#555;margin:.2em 0 1em;word-break:break-all}
.top{display:flex;flex-wrap:wrap;gap:16px;align-items:stretch}
.top>div{flex:1 1 420px;border-radius:6px;padding:.8em 1.1em;border:1px solid #ccc}
.verdict.good{background:#e8f5e9;border-color:#66bb6a}.verdict.fair{background:#fff8e1;border-color:#ffb300}
.verdict.poor{background:#ffebee;border-color:#e53935}
.verdict.mixed{background:#fff8e1;border-color:#ffb300}.verdict.mixed .grade{font-size:1.5em}
#lost{border:2px solid #ffb300;border-radius:6px;padding:.4em 1.1em;margin-top:16px;background:#fffdf5}
.grade{font-size:2.2em;font-weight:700;letter-spacing:.04em;margin:0}
.privacy h2{margin:0 0 .3em;border:0;font-size:1.2em}
.privacy ul{margin:.3em 0;padding-left:1.2em}.privacy li{margin:.25em 0}
.ok{color:#1b5e20}.warn{color:#7a5a00}.bad{color:#b71c1c;font-weight:600}
.guarantee{font-weight:600}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;
 vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}
.note{background:#f3f3f3;padding:.4em .8em;border-left:4px solid #999}
.grid{display:flex;flex-wrap:wrap;gap:8px}img{max-width:100%}
nav{margin:.9em 0}nav a{margin-right:1em}dl dt{font-weight:600;margin-top:.5em}dl dd{margin-left:1.5em}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto}
""".replace("\n", "")


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f'<td class="n">{v:.4f}</td>'
    if isinstance(v, int) and not isinstance(v, bool):
        return f'<td class="n">{v:,}</td>'
    return f"<td>{escape(str(v))}</td>"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table; floats with 4 decimals, integers with thousands separators, text escaped."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    return f"<table><tr>{head}</tr>" + "".join(f"<tr>{''.join(_cell(v) for v in r)}</tr>" for r in rows) + "</table>"


def image(png: str, alt: str) -> str:
    return f'<img src="data:image/png;base64,{png}" alt="{escape(alt)}">'


class Terms:
    """Links to the glossary's lines, for the terms the page's glossary holds (plain text otherwise)."""

    def __init__(self, keys: set[str]) -> None:
        self.keys = keys

    def __call__(self, key: str, text: str) -> str:
        return f'<a href="#g-{key}">{escape(text)}</a>' if key in self.keys else escape(text)


# --- the top: verdict and privacy ------------------------------------------------------------------

def verdict_block(ev: Evaluation, term: Terms) -> str:
    """The verdict's grade in large type, its line, and what the numbers mean in words."""
    grade, _, rest = ev.verdict.partition(":")
    level = grade.split()[0].lower() if grade.strip() else ""
    lost = ev.comparison is not None and bool(ev.comparison.lost_pairs or ev.comparison.far_columns)
    if level == "good" and lost:
        level = "mixed"  # a GOOD average with something lost is not shown in green
    words = ""
    refs = ev.references
    if refs is not None:
        synth, uniform, independent = refs.two_way if refs.two_way is not None else refs.one_way
        what = "pairs of columns" if refs.two_way is not None else "single columns"
        words = (f"<p>On average over all {what}, {synth:.1%} of the synthetic rows would have to change value to "
                 f"match the real table ({term('tvd', 'TVD')} {synth:.3f}). A table that kept each column but no "
                 f"relation between them would be {independent:.1%} away, random rows {uniform:.1%} "
                 f"({term('independent', 'references')}).</p>")
    return (f'<div id="verdict" class="verdict {escape(level)}"><p class="grade">'
            f"{escape(grade.strip())}</p><p><b>{escape(rest.strip())}</b></p>{words}"
            f'<p>How this is judged: {term("verdict", "verdict")}; every term is explained in the '
            f'<a href="#glossary">glossary</a>.</p></div>')


def privacy_block(summary: PrivacySummary, term: Terms) -> str:
    """The guarantee and the caveats, beside the verdict."""
    lines = ((summary.audit,) if summary.audit is not None else ()) + summary.caveats
    items = "".join(f'<li class="{level}">{escape(text)}</li>' for level, text in lines)
    return (f'<div id="privacy" class="privacy"><h2>Privacy of the synthetic table</h2>'
            f'<p class="guarantee {summary.level}">{escape(summary.guarantee)}</p>'
            f"<ul>{items}</ul><p>Terms: {term('epsilon', 'ε')}, {term('domain', 'domain and inferred draft')}, "
            f"{term('seeded', 'seeded noise')}.</p></div>")


def losses_block(ev: Evaluation, term: Terms) -> str:
    """Every column far off and every pair that lost its relation, with the numbers that decided it;
    empty when there is none."""
    comparison = ev.comparison
    if comparison is None or not (comparison.lost_pairs or comparison.far_columns):
        return ""
    parts = ['<div id="lost">']
    far = comparison.far_columns
    if far:
        parts += [f"<h2>Columns far off: {len(far)} of {len(comparison.columns)}</h2>"
                  f"<p>Their own shares differ from the real table's ({term('lost', 'far off')}).</p>",
                  table(["column", "TVD", "uniform", "sampling noise"], [(c.name, c.tvd, c.uniform, c.noise)
                                                                         for c in far])]
    lost = comparison.lost_pairs
    if lost:
        parts += [f"<h2>Column pairs that lost their relation: {len(lost)} of {len(comparison.pairs or ())}</h2>"
                  f"<p>The synthetic table is no closer to the real pair than a table of independent columns "
                  f"could be ({term('lost', 'lost relation')}): whatever links these columns in the real table is "
                  f"missing from the synthetic one.</p>",
                  table(["pair", "TVD", "independent columns", "sampling noise", "synthetic sampling noise"],
                        [(p.label, p.tvd, p.independent, p.noise, p.synthetic_noise) for p in lost])]
    return "".join(parts) + "</div>"


# --- the model -----------------------------------------------------------------------------------

def model_section(model: Any, structure: Structure, figures: bool, term: Terms) -> str:
    """The released structure (the picture is drawn from the same value as the listing under it),
    the model's privacy report and its ledger."""
    report = model.privacy_report()
    ledger = [(e["step"], e["mechanism"], f'{e["epsilon"]:.6g}', f'{e["sensitivity"]:.4g}', e["measured"])
              for e in report["ledger"]]
    caveats = "".join(f"<li>{escape(c)}</li>" for c in report["caveats"]) or "<li>none</li>"
    parts = [f'<h2 id="model">{escape(structure.title)}</h2>']
    if structure.legend:
        parts.append(f"<p>{escape(structure.legend)}</p>")
    if structure.drawable and figures:
        from privbayes.evaluation.plots import structure_png

        parts.append(image(structure_png(structure), structure.edge_text()))
    parts.append(f'<pre id="structure">{escape(chr(10).join(structure.lines))}</pre>')
    parts += ["<h2>Privacy report of the model</h2>", table(["field", "value"], report.summary()),
              f"<h3>Caveats</h3><ul>{caveats}</ul>"]
    if ledger:
        parts += [f"<h3>Ledger</h3><p>Every noisy release and what it cost ({term('ledger', 'plan and ledger')}, "
                  f"{term('sensitivity', 'Δ')}).</p>",
                  table(["step", "mechanism", "ε", "sensitivity Δ", "measured"], ledger)]
    else:
        parts.append("<p>Nothing was paid for with ε: the release has no ledger.</p>")
    return "".join(parts)


# --- the page ------------------------------------------------------------------------------------

def _flags(ev: Evaluation, model: Any, structure: Structure | None) -> set[str]:
    flags = set()
    if ev.numeric:
        flags.add("numeric")
    if ev.svm:
        flags.add("svm")
    if model is not None:
        report = model.privacy_report()
        if report["differentially_private"]:
            flags.add("model")
        if report["delta_spent"]:
            flags.add("delta")
    if structure is not None:
        flags.add(structure.kind)
    if ev.comparison is not None and (ev.comparison.lost_pairs or ev.comparison.far_columns):
        flags.add("lost")
    return flags


def render_html(ev: Evaluation, pairs: np.ndarray, privacy: PrivacySummary, model: Any = None,
                real_name: str = "REAL", synth_name: str = "SYNTH", figures: bool = True,
                figures_note: str = "") -> str:
    """The self-contained page (see the module's order); ``figures=False`` leaves the images out
    and shows ``figures_note`` (what to install) where they would be."""
    from privbayes.evaluation.structure import model_structure

    if figures:
        from privbayes.evaluation.plots import distribution_png, heatmap_png
    structure = model_structure(model) if model is not None else None
    terms = glossary(_flags(ev, model, structure))
    term = Terms({t.key for t in terms})
    missing = f'<p class="note">{escape(figures_note)}</p>' if not figures and figures_note else ""
    parts = ["<h1>Evaluation of a synthetic table</h1>",
             f'<p class="files">synthetic: {escape(synth_name)} (n = {ev.n_synth:,}) · real: {escape(real_name)} '
             f"(n = {ev.n_real:,}) · {len(ev.attributes)} columns</p>",
             '<div class="top">' + (verdict_block(ev, term) if ev.verdict else "") + privacy_block(privacy, term)
             + "</div>" + losses_block(ev, term),
             '<nav><a href="#numbers">numbers</a><a href="#columns">columns</a>'
             + ('<a href="#raw">raw values</a>' if ev.numeric else "") + '<a href="#classifier">classifier</a>'
             + ('<a href="#model">model</a>' if model is not None else "") + '<a href="#glossary">glossary</a></nav>']
    parts.append(f'<h2 id="numbers">The numbers behind the verdict</h2><p>Average {term("tvd", "TVD")} of the '
                 f"synthetic table and of two {term('uniform', 'references')} computed from the real table; "
                 f"lower is closer to the real table.</p>")
    if ev.references is not None:
        rows = [("single columns (1-way)", *ev.references.one_way)]
        if ev.references.two_way is not None:
            rows.append(("pairs of columns (2-way)", *ev.references.two_way))
        parts.append(table(["average TVD", "synthetic", "uniform", "independent columns"], rows))
    qa = [(f"Q{s.alpha}", s.count, s.tvd if s.tvd is not None else s.note) for s in ev.marginals]
    if ev.workload is not None:
        qa.append((f"workload ({ev.workload.source}, weighted)", len(ev.workload.sets), ev.workload.tvd))
    parts += [f"<p>Over every {term('marginal', 'α-way marginal')} (the sets Qα of TODS 2017 §6.1):</p>",
              table(["Qα", "marginals", "average TVD"], qa)]
    names = [a.name for a in ev.attributes]
    parts.append("<h3>Every pair of columns</h3>" + (image(heatmap_png(names, pairs), "2-way TVD heatmap")
                                                      if figures else missing))
    parts += ['<h2 id="columns">Each column</h2>',
              f"<p>Real and synthetic shares of each value ({term('bin', 'bins')} for numbers and dates).</p>",
              table(["column", "kind", "values", "TVD"], [(a.name, a.kind, len(a.labels), a.tvd)
                                                           for a in ev.attributes])]
    if figures:
        parts.append('<div class="grid">' + "".join(image(distribution_png(a.name, a.labels, a.real, a.synth, a.tvd),
                                                          f"{a.name}: real and synthetic shares")
                                                    for a in ev.attributes) + "</div>")
    else:
        parts.append(missing + "".join(
            f"<details><summary>{escape(a.name)} (TVD {a.tvd:.4f})</summary>"
            + table(["value", "real share", "synthetic share"],
                    [(label, float(r), float(x)) for label, r, x in zip(a.labels, a.real, a.synth)]) + "</details>"
            for a in ev.attributes))
    if ev.numeric:
        qs = [f"q{int(q * 100)}" for q, _, _ in ev.numeric[0].quantiles]
        numeric_rows = [(c.name, c.ks, "; ".join(f"= {v}: {r:.1%} / {s:.1%}" for v, r, s in c.masses) or "none",
                         *(f"{r} / {s}" for _, r, s in c.quantiles)) for c in ev.numeric]
        parts += ['<h2 id="raw">Numeric columns on their raw values</h2>',
                  f"<p>Real / synthetic: {term('ks', 'KS distance')}, {term('mass', 'point masses and quantiles')}"
                  ".</p>", table(["column", "KS distance", "point masses", *qs], numeric_rows)]
    parts.append('<h2 id="classifier">Classifier check</h2>')
    if ev.svm:
        parts += [f"<p>{term('svm', 'SVM misclassification rate')}: lower is better; compare the two last "
                  "columns.</p>",
                  table(["target", "positive share (real)", "positive share (synthetic)", "trained on synthetic",
                         "trained on real (no privacy)"],
                        [(s.target, s.positive_real, s.positive_synth, s.synthetic, s.reference) for s in ev.svm])]
    skipped = [s for s in ev.skipped if "classifier" in s]
    parts.append("".join(f'<p class="note">{escape(s)}</p>' for s in skipped)
                 or ("" if ev.svm else '<p class="note">not run (--no-classifier, or no balanced categorical '
                                       'target: see the notes)</p>'))
    if ev.notes:
        parts.append("<h3>Notes</h3><ul>" + "".join(f"<li>{escape(n)}</li>" for n in ev.notes) + "</ul>")
    if model is not None and structure is not None:
        parts.append(model_section(model, structure, figures, term))
    parts.append('<h2 id="glossary">Glossary</h2><dl>' + "".join(
        f'<dt id="g-{t.key}">{escape(t.term)}</dt><dd>{escape(t.text)}</dd>' for t in terms) + "</dl>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>privbayes evaluation: {escape(ev.verdict.partition(':')[0] or 'report')}</title>"
            f"<style>{_CSS}</style></head><body>" + "\n".join(parts) + "</body></html>\n")


def write_html_report(path: str, ev: Evaluation, pairs: np.ndarray, privacy: PrivacySummary, model: Any = None,
                      real_name: str = "REAL", synth_name: str = "SYNTH", figures: bool = True,
                      figures_note: str = "") -> None:
    """Render the report and write it atomically (no partial file on failure)."""
    from privbayes.files.tables import atomic_write_text

    atomic_write_text(path, render_html(ev, pairs, privacy, model, real_name, synth_name, figures, figures_note))
