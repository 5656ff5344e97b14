#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""columns.py: are a table's columns on screen at a given viewport width? For the system tests.

Usage: columns.py CHROMIUM PROFILE_DIR WIDTH URL TABLE_ID [COLUMN...]

Loads URL in headless Chromium at a WIDTHx900 viewport (over the DevTools protocol, as
overflow.py does: the page runs no script, DevTools reads the layout from outside) and prints
one line per check, "ok ..." or "bad ...":
- each COLUMN (a header's text, e.g. "Attention"): every cell of it that is displayed (its
  header, and its cells in the rows that have every column; a narrow layout may hide the
  header row) lies within the viewport as the page opens, not off screen to the right nor
  scrolled out of sight in the table's box;
- without COLUMN, every column so, and the table whole: its box does not scroll sideways and
  no cell's text overflows its cell (nothing cut).
Exits 1 when a check is bad, 2 on a protocol error, a missing table or column, or a page that
does not load in 30 s. Never touches the page: it only reads rectangles.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from overflow import Cdp  # noqa: E402  (one DevTools client for the tests)

# Runs in the page through Runtime.evaluate; returns [[ok, text], ...] or {"error": text}.
CHECK = r"""
(function (id, names) {
  const t = document.getElementById(id);
  if (!t || !t.tHead) return {error: "no table #" + id};
  const W = document.documentElement.clientWidth;
  const heads = [...t.tHead.rows[0].cells];
  const label = (h) => h.textContent.replace(/\s+/g, " ").trim();
  const rows = [...t.tBodies].flatMap((b) => [...b.rows]).filter((r) => r.cells.length === heads.length);
  const out = [];
  const whole = names.length === 0;
  if (whole) names = heads.map(label).filter((n) => n !== "");
  for (const name of names) {
    const i = heads.findIndex((h) => label(h) === name);
    if (i < 0) return {error: "#" + id + " has no column " + JSON.stringify(name)};
    const cells = [heads[i], ...rows.map((r) => r.cells[i])]
      .filter((c) => c.getClientRects().length > 0 && getComputedStyle(c).visibility !== "hidden");
    if (cells.length === 0) { out.push([false, name + ": not displayed at all"]); continue; }
    const off = cells.filter((c) => { const r = c.getBoundingClientRect(); return r.left < -0.5 || r.right > W + 0.5; });
    const right = Math.round(Math.max(...cells.map((c) => c.getBoundingClientRect().right)));
    out.push([off.length === 0, name + ": " + (off.length ? off.length + " of " + cells.length +
      " cells off screen" : cells.length + " cells on screen") + ", right edge " + right + " of " + W]);
  }
  if (whole) {
    const box = t.parentElement;
    out.push([box.scrollWidth <= box.clientWidth, "#" + id + " box " + box.scrollWidth + " wide in " + box.clientWidth]);
    const cut = [...t.querySelectorAll("th,td")].filter((c) => c.getClientRects().length > 0 &&
      c.scrollWidth > c.clientWidth + 1).map((c) => label(c).slice(0, 40));
    out.push([cut.length === 0, "cells whose text overflows them: " + (cut.length ? JSON.stringify(cut) : "none")]);
  }
  return out;
})
"""


def check(cdp, width, url, table, names):
    target = cdp.call("Target.createTarget", url="about:blank")["targetId"]
    s = cdp.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    cdp.call("Emulation.setDeviceMetricsOverride", session=s, width=width, height=900,
             deviceScaleFactor=1, mobile=False)
    cdp.call("Page.navigate", session=s, url=url)
    expr = "document.readyState === 'complete' && location.href !== 'about:blank' ? %s(%s, %s) : null" % (
        CHECK, json.dumps(table), json.dumps(names))
    end = time.time() + 30
    while time.time() < end:  # polls the page's state: no fixed sleep stands for "loaded"
        v = cdp.call("Runtime.evaluate", session=s, expression=expr,
                     returnByValue=True).get("result", {}).get("value")
        if v is not None:
            cdp.call("Target.closeTarget", targetId=target)
            if isinstance(v, dict):
                raise RuntimeError("%s: %s" % (url, v["error"]))
            return v
        time.sleep(0.1)
    raise RuntimeError("%s did not load in 30 s" % url)


def main():
    chrome, profile, width, url, table = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    cdp = Cdp(chrome, profile, width)
    try:
        results = check(cdp, width, url, table, sys.argv[6:])
    except (RuntimeError, OSError, KeyError) as e:
        print("columns.py:", e, file=sys.stderr)
        return 2
    finally:
        cdp.close()
    for good, text in results:
        print("ok" if good else "bad", "%dpx" % width, text)
    return 0 if all(good for good, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
