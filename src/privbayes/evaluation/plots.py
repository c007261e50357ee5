"""The figures of the evaluation report (base64 PNG, matplotlib Agg).

Three kinds of figure: real vs synthetic 1-way distributions (with the readable value labels of
:mod:`privbayes.evaluation.labels`), a heatmap of 2-way marginal TVDs, and the released
structure of the model (:mod:`privbayes.evaluation.structure`: the learned Bayesian network,
TODS 2017 §2.2, a parent generalised to taxonomy level i, Alg. 6, dashed and labelled ``@i``;
an MRF's cliques; the NBC views around their class).  matplotlib is the optional extra
``privbayes[eval]`` (≈ 97 MB with its dependencies): it is imported only when a figure is
drawn, and without it the report is written without figures and says what to install
(:func:`matplotlib_available`).  Figures are built with :class:`matplotlib.figure.Figure`
directly, so the global pyplot backend and its figure registry are never touched; networkx is
not needed (nodes are laid out on a circle, or around the NBC class).
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from privbayes.core.errors import InputError
from privbayes.evaluation.structure import Structure

REAL_COLOUR = "#1f77b4"
ROOT_COLOUR = "#2ca02c"
SYNTH_COLOUR = "#ff7f0e"
_DPI = 96


PLOTS_NEED = "figures of the report: they need matplotlib: pip install 'privbayes[eval]'"


def matplotlib_available() -> bool:
    """Whether matplotlib (the figures' optional dependency) can be imported."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        return False
    return True


def require_matplotlib() -> None:
    """Fail with one line naming the extra if matplotlib is not installed."""
    if not matplotlib_available():
        raise InputError(PLOTS_NEED)


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
    ax.set_title(f"{_plain(str(name))}  (1-way TVD {tvd:.4f})", fontsize=10, loc="left")
    ax.set_ylabel("frequency", fontsize=9)
    step = max(1, math.ceil(k / 40))
    shown = [_short(str(labels[i]), 24) for i in range(0, k, step)]
    flat = k <= 4 and max(len(s) for s in shown) <= 10
    ax.set_xticks(x[::step], shown, rotation=0 if flat else 50, ha="center" if flat else "right",
                  rotation_mode="anchor", fontsize=8)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlim(-0.6, k - 0.4)
    ax.legend(fontsize=8, frameon=False, ncols=2, loc="lower right", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.1)
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


def structure_png(structure: Structure) -> str:
    """The released structure: nodes on a circle in the listing's order (or around the NBC class),
    arrows from parent to child (lines for cliques), roots in green; a generalised parent's arrow
    is dashed and labelled ``@i``."""
    d = len(structure.nodes)
    side = min(max(5.5, 0.3 * d + 4.0), 13.0)
    fig = _figure(side, 0.85 * side)
    ax = fig.add_subplot()
    where, angles = _layout(structure)
    for edge in structure.edges:
        dashed = bool(edge.label)
        ax.annotate("", xy=where[edge.target], xytext=where[edge.source], zorder=1,
                    arrowprops=dict(arrowstyle="-|>" if edge.directed else "-",
                                    color="#9467bd" if dashed else "#555555", linestyle="--" if dashed else "-",
                                    lw=1.0, mutation_scale=12, shrinkA=11, shrinkB=11,
                                    connectionstyle="arc3,rad=0.12" if structure.layout == "circle" else "arc3"))
        if edge.label:
            (x0, y0), (x1, y1) = where[edge.source], where[edge.target]
            ax.text(x0 + 0.4 * (x1 - x0), y0 + 0.4 * (y1 - y0), edge.label, fontsize=7, color="#9467bd",
                    ha="center", va="center", zorder=3,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
    for i, name in enumerate(structure.nodes):
        x, y = where[i]
        ax.scatter([x], [y], s=260, color=ROOT_COLOUR if i in structure.roots else REAL_COLOUR, zorder=2,
                   edgecolors="white")
        ax.text(x, y, str(i + 1), ha="center", va="center", fontsize=7, color="white", zorder=4)
        t = angles.get(i)
        if t is None:  # the centre of a star: its name below the node
            ax.text(x, y - 0.13, _short(name, 24), fontsize=9, ha="center", va="top", zorder=4, weight="bold")
            continue
        ax.text(1.14 * math.cos(t), 1.14 * math.sin(t), _short(name, 24), fontsize=8, zorder=4,
                ha="left" if math.cos(t) > 0.1 else ("right" if math.cos(t) < -0.1 else "center"),
                va="bottom" if math.sin(t) > 0.1 else ("top" if math.sin(t) < -0.1 else "center"))
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-1.3, 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(_plain(structure.title), fontsize=10)
    return _png(fig)


def _layout(structure: Structure) -> tuple[dict[int, tuple[float, float]], dict[int, float]]:
    """Node positions, and the angle of each node on the circle (none for a star's centre)."""
    d = len(structure.nodes)
    ring = list(range(1, d)) if structure.layout == "star" else list(range(d))
    angles = {node: math.pi / 2 - 2 * math.pi * k / max(1, len(ring)) for k, node in enumerate(ring)}
    where = {node: (math.cos(t), math.sin(t)) for node, t in angles.items()}
    if structure.layout == "star":
        where[0] = (0.0, 0.0)
    return where, angles
