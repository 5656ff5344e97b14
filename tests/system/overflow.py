#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""overflow.py: does a page scroll sideways at a given viewport width? For the system tests.

Usage: overflow.py CHROMIUM PROFILE_DIR WIDTH URL...

Drives headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages separated by NUL on fds 3 and 4, so no websocket library is needed), sets a WIDTHx900
viewport, loads each URL and prints "URL scrollWidth clientWidth". The page itself runs no
script (the CSP forbids it); DevTools reads the layout from outside. Exits 1 when a page is
wider than its viewport, 2 on a protocol error or a page that does not load in 30 s.
"""
import json
import os
import subprocess
import sys
import time


class Cdp:
    def __init__(self, chrome, profile, width):
        to_chrome_r, self.wfd = os.pipe()
        self.rfd, from_chrome_w = os.pipe()
        cmd = ('exec "$0" --headless --no-sandbox --disable-gpu --no-first-run '
               '--disable-background-networking --disable-component-update --disable-sync '
               '--hide-scrollbars --remote-debugging-pipe --user-data-dir="$1" '
               '--window-size="$2",900 about:blank 3<&"$3" 4>&"$4"')
        self.proc = subprocess.Popen(
            ["sh", "-c", cmd, chrome, profile, str(width), str(to_chrome_r), str(from_chrome_w)],
            pass_fds=(to_chrome_r, from_chrome_w), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf, self.next_id = b"", 0

    def _read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.rfd, 65536)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=None, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.wfd, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply["result"]

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


MEASURE = ("document.readyState === 'complete' ? [document.documentElement.scrollWidth, "
           "document.documentElement.clientWidth] : null")


def measure(cdp, width, url):
    target = cdp.call("Target.createTarget", url="about:blank")["targetId"]
    s = cdp.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    cdp.call("Emulation.setDeviceMetricsOverride", session=s, width=width, height=900,
             deviceScaleFactor=1, mobile=False)
    cdp.call("Page.navigate", session=s, url=url)
    end = time.time() + 30
    while time.time() < end:  # polls the page's state: no fixed sleep stands for "loaded"
        r = cdp.call("Runtime.evaluate", session=s, expression=MEASURE, returnByValue=True)
        v = r.get("result", {}).get("value")
        if v and cdp.call("Runtime.evaluate", session=s, expression="location.href",
                          returnByValue=True)["result"].get("value") != "about:blank":
            cdp.call("Target.closeTarget", targetId=target)
            return v
        time.sleep(0.1)
    raise RuntimeError("%s did not load in 30 s" % url)


def main():
    chrome, profile, width, urls = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    cdp = Cdp(chrome, profile, width)
    wide = False
    try:
        for url in urls:
            sw, cw = measure(cdp, width, url)
            print(url, sw, cw)
            wide |= sw > cw or cw > width
    except (RuntimeError, OSError, KeyError) as e:
        print("overflow.py:", e, file=sys.stderr)
        return 2
    finally:
        cdp.close()
    return 1 if wide else 0


if __name__ == "__main__":
    sys.exit(main())
