"""The HTML report of ``privbayes evaluate`` and its figures (base64 PNG, matplotlib Agg).

The report of ``privbayes evaluate`` (TODS 2017, §6.1 metrics) embeds three kinds of
figure: real vs synthetic 1-way distributions, a heatmap of 2-way marginal TVDs, and
the learned Bayesian network (AP pairs, §2.2; a parent generalised to taxonomy level
i, Alg. 6, is drawn dashed and labelled ``@i``).  matplotlib is the optional extra
``privbayes[eval]``; it is imported only when a figure is drawn.  Figures are built
with :class:`matplotlib.figure.Figure` directly, so the global pyplot backend and its
figure registry are never touched.  networkx is not needed: the network is laid out
on a circle in sampling order.  The page is one self-contained file: inline CSS,
images as ``data:`` URIs, no external assets.
"""

from __future__ import annotations

import base64
import io
import math
from html import escape
from typing import Any, Sequence

import numpy as np

from privbayes.errors import InputError
from privbayes.evaluation.results import NOT_PRIVATE, Evaluation

REAL_COLOUR = "#1f77b4"
SYNTH_COLOUR = "#ff7f0e"
_DPI = 96


def require_matplotlib() -> None:
    """Fail with one line naming the extra if matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        raise InputError("--report needs matplotlib: pip install 'privbayes[eval]'") from None


def _figure(width: float, height: float) -> Any:
    require_matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=_DPI, layout="constrained")


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, facecolor="white")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _short(label: str, limit: int = 18) -> str:
    """``label`` cut to ``limit`` characters, as plain text for matplotlib (see :func:`_plain`)."""
    return _plain(label if len(label) <= limit else label[: limit - 1] + "…")


def _plain(text: str) -> str:
    """``text`` shown literally: matplotlib reads a label with two ``$`` as mathtext, and a name
    such as ``$\\foo$`` or ``$x^$`` then makes the whole report fail.  Column names and categories
    come from the user's schema, so every ``$`` is escaped (``\\$`` is drawn as ``$``)."""
    return text.replace("$", r"\$")


def distribution_png(name: str, labels: Sequence[str], real: np.ndarray, synth: np.ndarray, tvd: float) -> str:
    """Side-by-side bars of one attribute's real and synthetic frequencies (numeric: per bin)."""
    k = len(labels)
    fig = _figure(min(max(4.2, 0.32 * k + 1.8), 11.0), 3.0)
    ax = fig.add_subplot()
    x = np.arange(k)
    width = 0.4
    ax.bar(x - width / 2, real, width, label="real", color=REAL_COLOUR)
    ax.bar(x + width / 2, synth, width, label="synthetic", color=SYNTH_COLOUR)
    ax.set_title(f"{_plain(str(name))}  (1-way TVD {tvd:.4f})", fontsize=10)
    ax.set_ylabel("frequency", fontsize=9)
    step = max(1, math.ceil(k / 40))
    ax.set_xticks(x[::step], [_short(str(labels[i])) for i in range(0, k, step)],
                  rotation=0 if k <= 4 and max(len(str(s)) for s in labels) <= 10 else 60,
                  ha="center" if k <= 4 else "right", fontsize=8)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlim(-0.6, k - 0.4)
    ax.legend(fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def heatmap_png(names: Sequence[str], matrix: np.ndarray) -> str:
    """Heatmap of the TVD of every 2-way marginal (i, j); the diagonal is blank."""
    d = len(names)
    side = min(max(4.5, 0.38 * d + 2.5), 14.0)
    fig = _figure(side + 1.0, side)
    ax = fig.add_subplot()
    shown = np.array(matrix, dtype=float)
    np.fill_diagonal(shown, np.nan)
    import matplotlib

    cmap = matplotlib.colormaps["Reds"].with_extremes(bad="#eeeeee")
    top = float(np.nanmax(shown)) if d > 1 else 0.0
    image = ax.imshow(shown, cmap=cmap, vmin=0.0, vmax=max(top, 1e-9))
    labels = [_short(str(n), 22) for n in names]
    ax.set_xticks(range(d), labels, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(d), labels, fontsize=8)
    if d <= 14:
        for i in range(d):
            for j in range(d):
                if i != j:
                    value = shown[i, j]
                    ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if value > 0.6 * top else "black")
    ax.set_title("TVD of each 2-way marginal (real vs synthetic)", fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8, label="TVD")
    return _png(fig)


def network_png(pairs: Sequence[tuple[int, Sequence[tuple[int, int]]]], names: Sequence[str]) -> str:
    """The Bayesian network: nodes on a circle in sampling order, arrows from parents to child.

    ``pairs`` are (child, ((parent, level), ...)) in sampling order; ``names[a]`` labels
    encoded attribute a.  A generalised parent (level > 0) is dashed and labelled ``@level``.
    """
    d = len(pairs)
    side = min(max(5.5, 0.3 * d + 4.0), 13.0)
    fig = _figure(side, 0.85 * side)
    ax = fig.add_subplot()
    angles = {child: math.pi / 2 - 2 * math.pi * i / d for i, (child, _) in enumerate(pairs)}
    where = {a: (math.cos(t), math.sin(t)) for a, t in angles.items()}
    for child, parents in pairs:
        for parent, level in parents:
            ax.annotate("", xy=where[child], xytext=where[parent], zorder=1,
                        arrowprops=dict(arrowstyle="-|>", color="#555555" if level == 0 else "#9467bd",
                                        linestyle="-" if level == 0 else "--", lw=1.0, mutation_scale=12,
                                        shrinkA=11, shrinkB=11, connectionstyle="arc3,rad=0.12"))
            if level:
                (x0, y0), (x1, y1) = where[parent], where[child]
                ax.text(x0 + 0.4 * (x1 - x0), y0 + 0.4 * (y1 - y0), f"@{level}", fontsize=7, color="#9467bd",
                        ha="center", va="center", zorder=3,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
    for i, (child, parents) in enumerate(pairs):
        x, y = where[child]
        ax.scatter([x], [y], s=260, color=REAL_COLOUR if parents else "#2ca02c", zorder=2, edgecolors="white")
        ax.text(x, y, str(i + 1), ha="center", va="center", fontsize=7, color="white", zorder=4)
        t = angles[child]
        ax.text(1.14 * math.cos(t), 1.14 * math.sin(t), _short(str(names[child]), 24), fontsize=8, zorder=4,
                ha="left" if math.cos(t) > 0.1 else ("right" if math.cos(t) < -0.1 else "center"),
                va="bottom" if math.sin(t) > 0.1 else ("top" if math.sin(t) < -0.1 else "center"))
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-1.3, 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title("learned network", fontsize=10)
    return _png(fig)


# --- the HTML report ----------------------------------------------------------------------------

_CSS = ("body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
        "td.n{text-align:right;font-variant-numeric:tabular-nums}.warn{background:#fff3cd;padding:.6em;"
        "border-left:4px solid #e0a800}.grid{display:flex;flex-wrap:wrap;gap:8px}img{max-width:100%}")


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f'<td class="n">{v:.4f}</td>'
        return f'<td class="n">{v}</td>' if isinstance(v, int) else f"<td>{escape(str(v))}</td>"
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    return f"<table><tr>{head}</tr>" + "".join(f"<tr>{''.join(cell(v) for v in r)}</tr>" for r in rows) + "</table>"


def _img(png: str, alt: str) -> str:
    return f'<img src="data:image/png;base64,{png}" alt="{escape(alt)}">'


def _model_section(model: Any) -> str:
    """The released model's structure (a picture for Bayesian networks: the learned network, the one
    listed under it) and its privacy report, for a model of any method."""
    report = model.privacy_report()
    summary = report.summary()
    ledger = [(e["step"], e["mechanism"], f'{e["epsilon"]:.6g}', f'{e["sensitivity"]:.4g}', e["measured"])
              for e in report["ledger"]]
    caveats = "".join(f"<li>{escape(c)}</li>" for c in report["caveats"]) or "<li>none</li>"
    lines = escape("\n".join(model.describe()))
    network = getattr(model, "learned_network", None) or getattr(model, "network", None)
    if network is not None:
        names = [a.name for a in model.encoding.attributes]
        pairs = [(p.child, p.parents) for p in network.pairs]
        structure = ("<h2>Learned network</h2><p>Nodes are numbered in the order they were learned (green: no "
                     "parents); an arrow runs from each parent to its child; a dashed arrow labelled @i is a parent "
                     "generalised to taxonomy level i.</p>" + _img(network_png(pairs, names), "network"))
    else:
        structure = "<h2>Released structure</h2>"
    return (structure + f"<pre>{lines}</pre>"
            "<h2>Privacy report of the model</h2>" + _table(["field", "value"], summary)
            + f"<h3>Caveats</h3><ul>{caveats}</ul>"
            "<h3>Ledger</h3>" + _table(["step", "mechanism", "ε", "sensitivity Δ", "measured"], ledger))


def render_html(ev: Evaluation, pairs: np.ndarray, model: Any = None, real_name: str = "REAL",
                synth_name: str = "SYNTH") -> str:
    """A self-contained HTML page: metrics, plots as base64 PNG, network and privacy ledger."""
    qa = [(f"Q{s.alpha}", s.count, s.tvd if s.tvd is not None else s.note) for s in ev.marginals]
    parts = [f"<h1>privbayes evaluate</h1><p>{escape(synth_name)} (n = {ev.n_synth}) vs {escape(real_name)} "
             f"(n = {ev.n_real}), {len(ev.attributes)} attributes; metrics of TODS 2017 §6.1.</p>",
             f'<p class="warn">{escape(NOT_PRIVATE[0].upper() + NOT_PRIVATE[1:])}.</p>',
             "<h2>α-way marginals: average TVD over Qα</h2>", _table(["Qα", "marginals", "average TVD"], qa)]
    if ev.verdict:
        parts.insert(1, f"<h2>Verdict</h2><p><b>{escape(ev.verdict)}</b></p>")
    if ev.references is not None:
        rows = [("1-way", *ev.references.one_way)] + ([("2-way", *ev.references.two_way)]
                                                      if ev.references.two_way is not None else [])
        parts += ["<h2>References (computed from the real table)</h2>",
                  _table(["average TVD", "synthetic", "uniform", "independent marginals"], rows)]
    if ev.numeric:
        rows = [(c.name, c.ks, "; ".join(f"={v}: {r:.1%} / {s:.1%}" for v, r, s in c.masses) or "none",
                 "  ".join(f"q{int(q * 100)} {r} / {s}" for q, r, s in c.quantiles)) for c in ev.numeric]
        parts += ["<h2>Numeric columns on raw values</h2>",
                  _table(["column", "KS distance", "point masses (real / synthetic)", "quantiles (real / synthetic)"],
                         rows)]
    if ev.svm:
        parts += ["<h2>SVM misclassification rate</h2>",
                  _table(["target", "positive rate (real)", "positive rate (synthetic)", "trained on synthetic",
                          "trained on real (no privacy)"],
                         [(s.target, s.positive_real, s.positive_synth, s.synthetic, s.reference) for s in ev.svm])]
    if ev.notes:
        parts.append("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in ev.notes) + "</ul>")
    names = [a.name for a in ev.attributes]
    parts += ["<h2>2-way marginals</h2>", _img(heatmap_png(names, pairs), "2-way TVD heatmap"),
              "<h2>1-way distributions</h2>",
              _table(["attribute", "kind", "values", "TVD"], [(a.name, a.kind, len(a.labels), a.tvd)
                                                              for a in ev.attributes]),
              '<div class="grid">' + "".join(_img(distribution_png(a.name, a.labels, a.real, a.synth, a.tvd), a.name)
                                             for a in ev.attributes) + "</div>"]
    if model is not None:
        parts.append(_model_section(model))
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>privbayes evaluation report</title>'
            f"<style>{_CSS}</style></head><body>" + "\n".join(parts) + "</body></html>\n")


def write_html_report(path: str, ev: Evaluation, pairs: np.ndarray, model: Any = None, real_name: str = "REAL",
                      synth_name: str = "SYNTH") -> None:
    """Render the report and write it atomically (no partial file on failure)."""
    from privbayes.io import atomic_write_text

    atomic_write_text(path, render_html(ev, pairs, model, real_name, synth_name))

