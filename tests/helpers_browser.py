"""A headless Chromium driven over the DevTools protocol through a pipe (standard library only).

``--remote-debugging-pipe`` makes Chromium read protocol messages from its file descriptor 3
and write its answers and events to descriptor 4, each message a JSON text ended by a NUL
byte.  No WebSocket client, no browser download: the test uses the system's Chromium
(Debian's ``chromium``), started with the flags this machine needs (no sandbox as root, no
GPU, no background networking, a fresh profile).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars")


def find_chromium() -> str | None:
    """The Chromium binary: ``$PRIVBAYES_CHROMIUM`` if set, else the first of :data:`CANDIDATES` on PATH."""
    chosen = os.environ.get("PRIVBAYES_CHROMIUM")
    if chosen:
        return chosen if os.access(chosen, os.X_OK) else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    """The browser did not answer in time, exited, or answered with a protocol error."""


class Browser:
    """One headless Chromium process and one page (a flat session attached to a new target)."""

    def __init__(self, binary: str, width: int = 1280, height: int = 900, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="privbayes-chromium-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        self._process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self._profile}", f"--window-size={width},{height}",
             "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=_pipes_at_3_and_4(to_browser, from_browser))  # noqa: PLW1509 (no threads)
        for fd in (to_browser, from_browser):
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        try:
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                      mobile=False)
        except BaseException:
            self.close()
            raise

    # --- the protocol -----------------------------------------------------------------------

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command (on the page's session once attached) and wait for its answer."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def wait_for(self, event: str, timeout: float | None = None) -> dict[str, Any]:
        """The first event called ``event`` (already received or still to come)."""
        for seen in self.events:
            if seen["method"] == event:
                return seen
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            message = self._message(deadline)
            if "method" in message:
                self.events.append(message)
                if message["method"] == event:
                    return message

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("the browser did not answer in time")
            ready, _, _ = select.select([self._read], [], [], left)
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise BrowserError(f"the browser exited (code {self._process.poll()})")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    # --- what a test needs ------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event, recording console messages and exceptions."""
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"script failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads seen so far."""
        out = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(f"exception: {params['exceptionDetails'].get('text')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                out.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}".strip())
        return out

    def screenshot(self, path: Path, full_page: bool = False) -> None:
        """A PNG of the viewport (or of the whole page)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", **params)["data"]))

    def close(self) -> None:
        """End the browser process (it was started here) and remove its profile."""
        try:
            self.session = ""
            self.call("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pipes_at_3_and_4(to_browser: int, from_browser: int) -> Any:
    """In the child: the command pipe's read end at descriptor 3, the answer pipe's write end at 4."""
    def arrange() -> None:
        # Copies at descriptors >= 10 first (closed on exec), so that neither end is overwritten by
        # the other's dup2; the copies at 3 and 4 are inheritable, the only ones besides stdio
        # (Python's own descriptors are not inheritable, PEP 446).
        a = fcntl.fcntl(to_browser, fcntl.F_DUPFD_CLOEXEC, 10)
        b = fcntl.fcntl(from_browser, fcntl.F_DUPFD_CLOEXEC, 10)
        os.dup2(a, 3)
        os.dup2(b, 4)
    return arrange
