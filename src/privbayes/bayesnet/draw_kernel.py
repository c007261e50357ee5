"""The ancestral draw compiled with numba (``privbayes[fast]``): row by row, pair by pair, the same guided
inverse-CDF count as :func:`privbayes.bayesnet.sampling.guided_count` on the same uniform draws, so the codes
are identical to the numpy loop's; one pass over the rows instead of a dozen vectorised passes per pair
(docs/scale.md, "Sampling on every core").  numba is loaded on request only (:func:`load`, by streamed sampling
of many rows): loading it costs more than drawing a small sample."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

STEPS = 2
"""Forward steps taken without a branch before the loop that finishes the count: the guide table leaves about
two on average (:func:`privbayes.bayesnet.sampling.guide_table`), and a taken-or-not branch per row costs
more than the step."""

_KERNEL: list[Callable[..., None] | None] = []
"""The compiled kernel once loaded by :func:`load` ([None] when numba is not installed)."""


def _draw_rows(out: Any, uniforms: Any, steps: Any, parents: Any, levels: Any, ended: Any, guide: Any) -> None:
    """Fill ``out`` (d × n codes) from ``uniforms`` (pairs × n).  ``steps`` rows: child, |dom|, first and end
    parent in ``parents``, start in ``ended`` and in ``guide``; ``parents`` rows: attribute, size of its
    level, start of its code → level-code map in ``levels``."""
    for k in range(steps.shape[0]):  # pair by pair, as the numpy loop: each row of ``out`` is read in order
        child, size, first, last, start, gstart = steps[k, 0], steps[k, 1], steps[k, 2], steps[k, 3], steps[k, 4], \
            steps[k, 5]
        for i in range(out.shape[1]):
            row = 0
            for p in range(first, last):
                row = row * parents[p, 1] + levels[parents[p, 2] + out[parents[p, 0], i]]
            draw = uniforms[k, i]
            bucket = min(int(draw * size), size - 1)
            position = guide[gstart + row * size + bucket]
            for _ in range(STEPS):  # without a branch: a step taken or not is added, 0 or 1, never past +∞
                position += ended[start + position] <= draw
            while ended[start + position] <= draw:  # rarely entered: a predictable branch
                position += 1
            out[child, i] = min(position - row * (size + 1), size - 1)


def load() -> bool:
    """Load numba and the compiled kernel into this process (worker processes forked later share it); whether
    it is there (numba installed).  Called before drawing a large sample: the load costs about a second."""
    if not _KERNEL:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is installed with the test extra
            _KERNEL.append(None)
        else:
            compiled = numba.njit(cache=True, nogil=True)(_draw_rows)
            empty = np.zeros((0, 0), dtype=np.int64)
            compiled(empty, np.zeros((0, 0)), np.zeros((0, 6), dtype=np.int64), np.zeros((0, 3), dtype=np.int64),
                     np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64))  # compiled or loaded now
            _KERNEL.append(compiled)
    return _KERNEL[0] is not None


def tried() -> bool:
    """Whether :func:`load` has run in this process (the kernel may still be absent: numba not installed)."""
    return bool(_KERNEL)


def loaded() -> Callable[..., None] | None:
    """The compiled kernel if :func:`load` has loaded it in this process, else ``None`` (the numpy loop)."""
    return _KERNEL[0] if _KERNEL else None
