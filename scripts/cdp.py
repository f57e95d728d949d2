"""Headless Chromium over its DevTools protocol on a pipe
(`--remote-debugging-pipe`: JSON messages on fds 3 and 4, each ended by a
NUL byte), for the web page's screenshots and timings.

    with Chromium(1200, 800) as browser:
        browser.open("http://127.0.0.1:7377/")
        browser.eval("document.title")
        browser.screenshot("find.png")
"""

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time


class Chromium:
    def __init__(self, width, height):
        self.profile = tempfile.mkdtemp(prefix="keep-chromium-")
        to_child, self._to = os.pipe()
        self._from, from_child = os.pipe()
        program = shutil.which("chromium") or shutil.which("chromium-browser")
        if not program:
            raise SystemExit("chromium is not installed (./scripts/setup.sh installs it)")

        # fds 3 and 4 of the browser are the two pipes (a shell moves them
        # there: subprocess closes every other descriptor).
        self.child = subprocess.Popen(
            ["sh", "-c", f'exec "$0" "$@" 3<&{to_child} 4>&{from_child}', program,
             "--headless=new", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--hide-scrollbars", "--mute-audio",
             f"--window-size={width},{height}", f"--user-data-dir={self.profile}",
             "about:blank"],
            pass_fds=(to_child, from_child),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("CDP_DEBUG") else subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next = 0
        self.session = None
        targets = self.send("Target.getTargets", {}, page=False)
        page = next(t for t in targets["targetInfos"] if t["type"] == "page")
        attached = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, page=False)
        self.session = attached["sessionId"]
        self.send("Page.enable", {})
        self.send("Runtime.enable", {})
        self.resize(width, height)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.child.kill()
        self.child.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._from, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium stopped")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params, page=True):
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if page and self.session:
            message["sessionId"] = self.session
        os.write(self._to, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def eval(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.eval(f"(() => {{ try {{ return {expression}; }} catch (e) {{ return null; }} }})()")
            if value:
                return value
            time.sleep(0.02)
        raise RuntimeError(f"waited for {expression}")

    def open(self, url):
        self.eval("window.__leaving = true")
        self.send("Page.navigate", {"url": url})
        self.wait_for("!window.__leaving && document.readyState === 'complete'")

    def resize(self, width, height):
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})

    def screenshot(self, path, full=False):
        params = {"format": "png"}
        if full:
            params["captureBeyondViewport"] = True
        shot = self.send("Page.captureScreenshot", params)
        with open(path, "wb") as out:
            out.write(base64.b64decode(shot["data"]))
