#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pages.py: the page-latency half of bench/run (section 7, bench/README.md).

gen:     writes a 30-day database for N routers shaped like bench/fleet.scenario (9 cores, 4 wg
         interfaces), in the schema of schema/001 and 002 (PRAGMA user_version 2): raw 60 s
         samples for the last RAW hours (what `retention` keeps) and 5-minute roll-ups for the
         whole span, as the store would have left them; wgwatchd migrates it to the current
         schema when it opens it. Pure SQL (recursive CTEs), in key order.
measure: GETs the fleet page and router pages for each range, one request after the other over
         one keep-alive connection, and writes p50/p95/p99 per page and range as JSON.
print:   prints those JSON files as tables.
It only reads and writes the files it is given and talks to 127.0.0.1; it never judges a figure."""

import argparse
import http.client
import json
import os
import random
import sqlite3
import statistics
import sys
import time

DAY = 86400000
BUCKET = 300000
RANGES = ("6h", "24h", "7d", "30d")


def schema(db, src):
    for f in ("001-initial.sql", "002-verdicts.sql"):
        with open(os.path.join(src, "schema", f)) as fh:
            db.executescript(fh.read())
    db.execute("PRAGMA user_version = 2")


def routers(db, n, now, days):
    first = now - days * DAY
    db.execute("CREATE TEMP TABLE seq(i INTEGER PRIMARY KEY)")
    db.execute("WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)"
               " INSERT INTO seq SELECT i FROM s", (max(n, 9),))
    db.execute("INSERT INTO routers (id, name, first_seen_ms, last_poll_ms, last_ok_ms, version,"
               " channel, firmware, upgrade_firmware, board, architecture, cpu_model, uptime_ms,"
               " info_ms) SELECT i, printf('hub-%04d', i), ?1, ?2, ?2, '7.22.3', 'stable',"
               " '7.22.3', '7.22.3', 'CCR1009-7G-1C-1S+', 'tile', 'tilegx', 86400000, ?2"
               " FROM seq WHERE i <= ?3", (first, now, n))
    db.execute("INSERT INTO interfaces (id, router_id, name, type) SELECT (r.i - 1) * 4 + k.i,"
               " r.i, 'wg' || (k.i - 1), 'wg' FROM seq r, seq k WHERE r.i <= ? AND k.i <= 4"
               " ORDER BY 1", (n,))
    # 'first' on 7.21.5, the upgrade to 7.22.3 2 to 26 days ago, a reboot a day later.
    db.execute("INSERT INTO version_history (router_id, time_ms, kind, new_version, new_firmware,"
               " new_board, architecture) SELECT i, ?, 'first', '7.21.5', '7.21.5',"
               " 'CCR1009-7G-1C-1S+', 'tile' FROM seq WHERE i <= ?", (first, n))
    db.execute("INSERT INTO version_history (router_id, time_ms, kind, old_version, new_version,"
               " old_firmware, new_firmware, old_board, new_board, architecture, uptime_ms)"
               " SELECT i, ? - (2 + i % 25) * 86400000 - i * 1000, 'upgrade', '7.21.5', '7.22.3',"
               " '7.21.5', '7.21.5', 'CCR1009-7G-1C-1S+', 'CCR1009-7G-1C-1S+', 'tile', 60000"
               " FROM seq WHERE i <= ?", (now, n))
    db.execute("INSERT INTO version_history (router_id, time_ms, kind, old_version, new_version,"
               " uptime_ms) SELECT router_id, time_ms + 86400000, 'reboot', new_version,"
               " new_version, 30000 FROM version_history WHERE kind = 'upgrade'")


def times(db, table, start, end, step):
    db.execute("CREATE TEMP TABLE %s(t INTEGER PRIMARY KEY)" % table)
    db.execute("WITH RECURSIVE s(t) AS (SELECT ? UNION ALL SELECT t + ? FROM s WHERE t + ? < ?)"
               " INSERT INTO %s SELECT t FROM s" % table, (start, step, step, end))


def rollups(db, n):
    # Core 4 busy (about 60%), the others about 12%; per-mille loads vary with time and router.
    db.execute("INSERT INTO cpu_rollup SELECT r.i, b.t, c.i - 1, 10,"
               " 0, CASE WHEN c.i = 5 THEN 560 ELSE 100 END + (b.t / 300000 + r.i * 7 + c.i * 3) % 80,"
               " 1000 FROM seq r CROSS JOIN buckets b CROSS JOIN seq c WHERE r.i <= ? AND c.i <= 9", (n,))
    # 200 Mbit/s tx and 120 rx over the four interfaces (bytes/s), with a daily-ish ripple.
    db.execute("INSERT INTO iface_rollup SELECT f.id, b.t, 10,"
               " 3750000 + (b.t / 300000 + f.id) % 97 * 10000, 4000000,"
               " 6250000 + (b.t / 300000 + f.id) % 89 * 15000, 7000000, 0, 0"
               " FROM interfaces f CROSS JOIN buckets b WHERE f.router_id <= ?", (n,))


def raw(db, n, step):
    db.execute("INSERT INTO polls (router_id, time_ms, duration_ms, source)"
               " SELECT r.i, p.t, 40, 'rest' FROM seq r CROSS JOIN polltimes p WHERE r.i <= ?", (n,))
    db.execute("INSERT INTO cpu_samples SELECT r.i, p.t, c.i - 1,"
               " CASE WHEN c.i = 5 THEN 560 ELSE 100 END + (p.t / 60000 + r.i * 7 + c.i * 3) % 80, 5"
               " FROM seq r CROSS JOIN polltimes p CROSS JOIN seq c WHERE r.i <= ? AND c.i <= 9", (n,))
    b = step // 1000
    db.execute("INSERT INTO iface_samples SELECT f.id, p.t,"
               " (p.t - m.t0) / 1000 * 3900000, (p.t - m.t0) / 1000 * 6500000,"
               " (p.t - m.t0) / 1000 * 3900, (p.t - m.t0) / 1000 * 6500, 0, 0,"
               " ?1, 3900000 * ?2, 6500000 * ?2, 0"
               " FROM (SELECT min(t) - 60000 AS t0 FROM polltimes) m CROSS JOIN interfaces f"
               " CROSS JOIN polltimes p WHERE f.router_id <= ?3", (step, b, n))


def cmd_gen(a):
    if os.path.exists(a.db):
        os.unlink(a.db)
    t0 = time.time()
    now = int(t0 * 1000) // 60000 * 60000
    db = sqlite3.connect(a.db, isolation_level=None)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -400000")
    schema(db, a.src)                            # executescript: its own transactions
    db.execute("BEGIN")
    routers(db, a.routers, now, a.days)
    first = (now - a.days * DAY) // BUCKET * BUCKET
    raw_from = (now - a.raw_hours * 3600000) // BUCKET * BUCKET
    times(db, "buckets", first, now - 2 * BUCKET, BUCKET)
    times(db, "polltimes", raw_from, now, a.step * 1000)
    rollups(db, a.routers)
    raw(db, a.routers, a.step * 1000)
    rolled = db.execute("SELECT max(t) + ? FROM buckets", (BUCKET,)).fetchone()[0]
    db.executemany("INSERT INTO store_state VALUES (?, ?)",
                   (("rollup_ms", rolled), ("raw_purged_ms", raw_from), ("rollup_purged_ms", first)))
    db.execute("COMMIT")
    db.execute("PRAGMA journal_mode = WAL")
    db.close()
    rows = {}
    db = sqlite3.connect(a.db)
    for t in ("cpu_samples", "iface_samples", "cpu_rollup", "iface_rollup", "polls"):
        rows[t] = db.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
    db.close()
    out = {"routers": a.routers, "days": a.days, "raw_hours": a.raw_hours, "step_s": a.step,
           "rows": rows, "bytes": os.path.getsize(a.db), "gen_s": round(time.time() - t0, 1)}
    print(json.dumps(out))


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def timed_get(conn, path):
    t = time.perf_counter()
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    ms = (time.perf_counter() - t) * 1000
    if r.status != 200:
        sys.exit("pages.py: GET %s: %d" % (path, r.status))
    return ms, len(body)


def cmd_measure(a):
    conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=120)
    rnd = random.Random(1)
    pages = [("fleet", None, lambda: "/")]
    for rg in RANGES:
        pages.append(("router", rg, lambda rg=rg: "/router/hub-%04d?range=%s" %
                      (rnd.randint(1, a.routers), rg)))
    out = []
    for kind, rg, path in pages:
        timed_get(conn, path())                  # warm: page cache, prepared plans
        ms, size = zip(*(timed_get(conn, path()) for _ in range(a.requests)))
        out.append({"page": kind, "range": rg or "", "n": len(ms), "p50": pct(ms, .5),
                    "p95": pct(ms, .95), "p99": pct(ms, .99), "max": max(ms),
                    "kib": statistics.median(size) / 1024})
    with open(a.o, "w") as fh:
        json.dump({"label": a.label, "pages": out}, fh)


def cmd_print(a):
    for f in a.files:
        d = json.load(open(f))
        print("7. page latency%s: %d sequential GETs per row, one keep-alive connection, ms"
              % (" (" + d["label"] + ")" if d.get("label") else "", d["pages"][0]["n"]))
        print("   %-8s %-5s %8s %8s %8s %8s %8s" % ("page", "range", "p50", "p95", "p99", "max", "KiB"))
        for p in d["pages"]:
            print("   %-8s %-5s %8.1f %8.1f %8.1f %8.1f %8.0f" % (p["page"], p["range"], p["p50"],
                  p["p95"], p["p99"], p["max"], p["kib"]))
        print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--db", required=True)
    g.add_argument("--src", required=True, help="the source tree (for schema/)")
    g.add_argument("--routers", type=int, default=1000)
    g.add_argument("--days", type=int, default=30)
    g.add_argument("--raw-hours", type=int, default=25)
    g.add_argument("--step", type=int, default=60, help="raw sample interval, s")
    m = sub.add_parser("measure")
    m.add_argument("--port", type=int, required=True)
    m.add_argument("--routers", type=int, default=1000)
    m.add_argument("--requests", type=int, default=200)
    m.add_argument("--label", default="")
    m.add_argument("-o", required=True)
    p = sub.add_parser("print")
    p.add_argument("files", nargs="+")
    a = ap.parse_args()
    {"gen": cmd_gen, "measure": cmd_measure, "print": cmd_print}[a.cmd](a)


if __name__ == "__main__":
    main()
