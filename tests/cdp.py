"""A headless Chromium driven through the DevTools protocol over a pipe (no extra package).

``chromium --remote-debugging-pipe`` reads protocol commands from file descriptor 3 and
writes replies and events to descriptor 4, each message a JSON object followed by a NUL
byte. :class:`Browser` starts it, opens one page (a flattened session), and offers what the
report test needs: navigate, evaluate JavaScript in the page or in one of its frames,
screenshots, and every console message, uncaught exception, log entry and network request
seen meanwhile.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    def __init__(self, executable: str, width: int = 1600, height: int = 1000):
        self._profile = tempfile.mkdtemp(prefix="baiuv-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()

        def child_fds():  # the protocol descriptors must be 3 (commands) and 4 (replies)
            import fcntl

            a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)  # out of the way of 3 and 4 first
            b = fcntl.fcntl(out_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)  # dup2 to another number clears close-on-exec
            os.dup2(b, 4)

        args = [
            executable,
            "--headless=new",
            "--remote-debugging-pipe",
            "--no-sandbox",  # CI runs as root
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--mute-audio",
            f"--window-size={width},{height}",
            f"--user-data-dir={self._profile}",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args,
            preexec_fn=child_fds,
            close_fds=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._id = 0
        self._pending: list[dict] = []
        self.console: list[dict] = []  # Runtime.consoleAPICalled
        self.exceptions: list[dict] = []  # Runtime.exceptionThrown
        self.log: list[dict] = []  # Log.entryAdded
        self.requests: list[str] = []  # URLs of Network.requestWillBeSent
        self.session = None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    # -- protocol -------------------------------------------------------------------------
    def _read_message(self, timeout: float) -> dict:
        import select

        deadline = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no message from the browser in time")
            ready, _, _ = select.select([self._out_r], [], [], left)
            if ready:
                chunk = os.read(self._out_r, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed its protocol pipe")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def _dispatch(self, msg: dict) -> None:
        method = msg.get("method")
        params = msg.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.console.append(params)
        elif method == "Runtime.exceptionThrown":
            self.exceptions.append(params)
        elif method == "Log.entryAdded":
            self.log.append(params["entry"])
        elif method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        self._pending.append(msg)

    def call(self, method: str, timeout: float = 30.0, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self.session is not None and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read_message(timeout)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._dispatch(reply)

    def wait_event(self, method: str, timeout: float = 30.0) -> dict:
        for i, msg in enumerate(self._pending):
            if msg.get("method") == method:
                return self._pending.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read_message(max(deadline - time.monotonic(), 0.001))
            self._dispatch(msg)
            if msg.get("method") == method:
                self._pending.remove(msg)
                return msg

    # -- page -----------------------------------------------------------------------------
    def navigate(self, url: str, timeout: float = 60.0) -> None:
        self._pending.clear()
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", timeout)

    def evaluate(self, expression: str, context_id: int | None = None):
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        if context_id is not None:
            params["contextId"] = context_id
        res = self.call("Runtime.evaluate", **params)
        if "exceptionDetails" in res:
            raise BrowserError(f"{expression[:80]}...: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 30.0, context_id: int | None = None):
        """Evaluate ``expression`` until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression, context_id)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {expression!r}")
            time.sleep(0.2)

    def frame_context(self, url_prefix: str) -> int:
        """Execution context of the first child frame whose URL starts with ``url_prefix``."""

        def frames(node):
            yield node["frame"]
            for child in node.get("childFrames", []):
                yield from frames(child)

        tree = self.call("Page.getFrameTree")["frameTree"]
        for frame in frames(tree):
            if frame.get("parentId") and frame["url"].startswith(url_prefix):
                world = self.call("Page.createIsolatedWorld", frameId=frame["id"])
                return world["executionContextId"]
        raise BrowserError(f"no frame with a URL starting with {url_prefix!r}")

    def screenshot(self, path: str | Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = [
            " ".join(str(a.get("value", a.get("description", ""))) for a in c.get("args", []))
            for c in self.console
            if c.get("type") in ("error", "assert")
        ]
        out += [e["exceptionDetails"].get("text", "") + " " + str(e) for e in self.exceptions]
        out += [
            f"{e.get('source')}: {e.get('text')}" for e in self.log if e.get("level") == "error"
        ]
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._cmd_w, self._out_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
