"""A small Chrome DevTools Protocol client for the HTML report's browser tests.

Headless Chromium started with ``--remote-debugging-pipe`` reads protocol messages on fd 3 and
writes them on fd 4, each a JSON object ended by a NUL byte: no websocket library, no driver,
no network port. The tests use it to load a page, click elements with real mouse events (the
browser's own hit testing decides what is clicked), press keys, read the rendered DOM back
with ``Runtime.evaluate`` and take screenshots.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"))
                 if p), None)


class BrowserError(RuntimeError):
    """The browser answered a command with an error, or did not answer in time."""


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, profile: Path, width: int = 1400, height: int = 1000,
                 timeout: float = 60.0) -> None:
        if CHROMIUM is None:
            raise BrowserError("chromium is not installed")
        self.timeout = timeout
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # The pipes arrive as the shell's stdin and stdout, which it moves to fds 3 and 4
        # before it becomes Chromium (no preexec_fn: unsafe once the test process has threads).
        self.proc = subprocess.Popen(
            ["/bin/sh", "-c", 'exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null', CHROMIUM,
             "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=to_child_r, stdout=from_child_w, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._next = 0
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    # -- protocol --------------------------------------------------------------------------

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_child, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                for waiting in list(self._replies.values()):
                    waiting.put({"error": {"message": "browser closed the pipe"}})
                return
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        waiting = self._replies.get(message["id"])
                    if waiting is not None:
                        waiting.put(message)
                else:
                    self.events.put(message)

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send one command (to the browser, or to a page's session) and wait for its answer."""
        with self._lock:
            self._next += 1
            ident = self._next
            self._replies[ident] = queue.Queue()
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        try:
            reply = self._replies[ident].get(timeout=self.timeout)
        except queue.Empty:
            raise BrowserError(f"{method}: no answer in {self.timeout:.0f} s") from None
        finally:
            with self._lock:
                self._replies.pop(ident, None)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """A command to the page."""
        return self.call(method, session=self.session, **params)

    # -- what a test does ------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event (the report's script has run by then)."""
        while not self.events.empty():
            self.events.get_nowait()
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            if event.get("method") == "Page.loadEventFired":
                return
        raise BrowserError(f"{url}: not loaded in {self.timeout:.0f} s")

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable values)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            detail = result["exceptionDetails"]
            raise BrowserError(f"{expression[:80]}: "
                               f"{detail.get('exception', {}).get('description') or detail}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 10.0) -> Any:
        """Poll a JavaScript expression until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(expression)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.05)

    def click(self, selector: str) -> dict[str, Any]:
        """Scroll the element into view and click its middle with the mouse.

        Returns what the browser's hit test finds under that point (tag, id, class) before the
        click, so a test can tell that the element itself, not something over it, got it."""
        point = self.js(
            f"(function(){{var el=document.querySelector({json.dumps(selector)});"
            "if(!el){return null;}el.scrollIntoView({block:'center',inline:'center'});"
            "var r=el.getBoundingClientRect();var x=r.left+r.width/2,y=r.top+r.height/2;"
            "var hit=document.elementFromPoint(x,y);"
            "return {x:x,y:y,hit:hit&&(hit===el||el.contains(hit)||hit.contains(el)),"
            "tag:hit&&hit.tagName,cls:hit&&hit.getAttribute('class')};})()")
        if point is None:
            raise BrowserError(f"nothing matches {selector}")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=point["x"], y=point["y"],
                      button="left" if kind != "mouseMoved" else "none", clickCount=1)
        return point

    def key(self, key: str, code: int) -> None:
        """Press and release one key (``ArrowDown``, 40) in the focused element."""
        for kind in ("rawKeyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                      windowsVirtualKeyCode=code, nativeVirtualKeyCode=code)

    def screenshot(self, path: Path, full_page: bool = True) -> None:
        """A PNG of the page: the whole document, or what the window shows."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            width, height = self.js("[document.documentElement.scrollWidth,"
                                    "document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
        data = self.send("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        with contextlib.suppress(BrowserError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
