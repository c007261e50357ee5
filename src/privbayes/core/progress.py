"""A progress display on stderr for steps that take longer than a second."""

from __future__ import annotations

from tqdm import tqdm


class Progress:
    """Named stages with an optional step count; silent when disabled or when a stage is quick."""

    def __init__(self, title: str, enabled: bool) -> None:
        self._title = title
        self._enabled = enabled
        self._bar: tqdm | None = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def stage(self, description: str, total: int | None) -> None:
        self._close()
        if self._enabled:
            self._bar = tqdm(total=total, desc=f"{self._title}: {description}", delay=1.0, leave=False)

    def update(self, done: int, total: int) -> None:
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
