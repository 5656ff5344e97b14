#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/capacitybench.py: the time and memory of one capacity pass (docs/detector.md, Capacity
headroom), side by side with the PromQL a user would write instead in Prometheus.

bench/store_bench -C writes N routers x 8 weeks of 10-minute polls (the demo's density: 9 cores,
4 WireGuard interfaces, each stream on a core of its own with a daily swing, noise and growth),
rolled up as the store rolls them; bench/capacity_bench makes the pass twice on it, as the
running detector and --report do. Then bench/density_export writes the same WireGuard byte
counters as OpenMetrics, promtool makes TSDB blocks of them, and a Prometheus on loopback
answers the demand half of the pass: each stream's p95 of the week's rates, and the slope of
its 56 daily p95 peaks. PromQL has no counterpart for the capacity itself (a fit of a core's
load against a stream's rate) nor for a Theil-Sen trend; the table says so.

Figures only, never a pass or fail; it writes only its own temp dir (and --db, when asked to
make it), talks only to 127.0.0.1 and stops only the Prometheus it started, by pid."""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HOURS = 8 * 7 * 24
STEP_S = 600
T0 = 1700000000  # store_bench's first poll, s


def note(msg):
    print("capacitybench: " + msg, file=sys.stderr, flush=True)


def die(msg):
    note(msg)
    sys.exit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def proc_cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def make_db(a, db):
    note("%d routers x 8 weeks of 10-minute polls into %s (store_bench -C; minutes)" % (a.n, db))
    t = time.monotonic()
    with open(db + ".log", "w") as log:
        rc = subprocess.call([os.path.join(a.build, "bench/store_bench"), "-r", str(a.n), "-c", "9",
                              "-i", "4", "-p", "0", "-H", str(HOURS), "-I", str(STEP_S), "-C",
                              "-o", db], stdout=log, stderr=log)
    if rc != 0:
        die("store_bench failed: see %s.log" % db)
    return time.monotonic() - t


def wgwatch_pass(a, t, db):
    conf = os.path.join(t, "wgwatch.conf")
    with open(conf, "w") as f:
        f.write("[daemon]\ndatabase = %s\ninterval = 10m\n" % db)
    out = subprocess.run([os.path.join(a.build, "bench/capacity_bench"), "-c", conf, "-n", "2"],
                         stdout=subprocess.PIPE, check=True, text=True).stdout
    return json.loads(out)


def prom_blocks(a, t, db):
    om, tsdb = os.path.join(t, "wg.om"), os.path.join(t, "tsdb")
    note("exporting the WireGuard byte counters (bench/density_export --only)")
    subprocess.run([os.path.join(a.build, "bench/density_export"), "--only",
                    "wgwatch_iface_rx_bytes,wgwatch_iface_tx_bytes", db, om],
                   stdout=subprocess.PIPE, check=True)
    om_bytes = os.path.getsize(om)
    note("promtool tsdb create-blocks-from openmetrics (%.1f GiB of text; minutes)" % (om_bytes / 2**30))
    t0 = time.monotonic()
    with open(os.path.join(t, "promtool.log"), "w") as log:
        rc = subprocess.call(["promtool", "tsdb", "create-blocks-from", "openmetrics",
                              "--max-block-duration=%dh" % HOURS, om, tsdb], stdout=log, stderr=log)
    took = time.monotonic() - t0
    os.unlink(om)
    if rc != 0:
        die("promtool failed: see %s/promtool.log" % t)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(tsdb) for f in fs)
    return tsdb, {"om_bytes": om_bytes, "blocks_s": took, "tsdb_bytes": size}


def prom_query(port, pid, q, at):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": q, "time": at}))
    c0, t0 = proc_cpu_s(pid), time.monotonic()
    with urllib.request.urlopen(url, timeout=3600) as r:
        body = json.load(r)
    wall, cpu = time.monotonic() - t0, proc_cpu_s(pid) - c0
    if body.get("status") != "success":
        die("PromQL %s: %s" % (q, body))
    return wall, cpu, [float(x["value"][1]) for x in body["data"]["result"]]


def prometheus(a, t, tsdb):
    port = free_port()
    cfg = os.path.join(t, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global: {}\n")
    log = open(os.path.join(t, "prometheus.log"), "w")
    p = subprocess.Popen(["prometheus", "--config.file=" + cfg, "--storage.tsdb.path=" + tsdb,
                          "--storage.tsdb.retention.time=10y", "--query.timeout=1h",
                          "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
                         stdout=log, stderr=log)
    try:
        end = time.time() + 600
        while True:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % port, timeout=5).read()
                break
            except OSError:
                if time.time() > end or p.poll() is not None:
                    die("Prometheus never ready: see %s/prometheus.log" % t)
                time.sleep(0.5)
        at = T0 + HOURS * 3600 - STEP_S
        r = {"rss_ready_kib": proc_kib(p.pid, "VmRSS"), "week_s": 0, "week_cpu_s": 0,
             "trend_s": 0, "trend_cpu_s": 0, "p95": []}
        for d in ("rx", "tx"):  # one direction a query: irate drops the name
            w, c, v = prom_query(port, p.pid, "quantile_over_time(0.95, irate(wgwatch_iface_%s_bytes[20m])"
                                 "[7d:10m])" % d, at)
            r["week_s"] += w
            r["week_cpu_s"] += c
            r["p95"] += [x * 8 for x in v]
            w, c, v = prom_query(port, p.pid, "deriv(quantile_over_time(0.95, irate(wgwatch_iface_%s_bytes"
                                 "[20m])[1d:10m])[56d:1d])" % d, at)
            r["trend_s"] += w
            r["trend_cpu_s"] += c
            r["trend_series"] = r.get("trend_series", 0) + len(v)
        r["hwm_kib"] = proc_kib(p.pid, "VmHWM")
        r["version"] = subprocess.run(["prometheus", "--version"], stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True).stdout.split()[2]
        return r
    finally:
        p.terminate()
        p.wait()


def mib(kib):
    return "%.0f MiB" % (kib / 1024)


def show(a, w, built_s, db_bytes, prom):
    p1, p2 = w["passes"][0], w["passes"][1]
    print("11. Capacity pass: %d routers x 8 weeks of 10-minute polls (store_bench -C: 9 cores, 4 wg"
          " interfaces, each stream on a core of its own), database %.1f GiB%s"
          % (w["routers"], db_bytes / 2**30, ", built in %.0f s" % built_s if built_s else ""))
    print("   one pass as the detector and --report make it (before = %d d): %d streams, %d pinned,"
          " %d projected, %d unknown, %d with a date" % (w["before_s"] // 86400, w["streams"], w["pinned"],
                                                         w["projected"], w["unknown"], w["dated"]))
    rows = [("", "wgwatch capacity pass", "Prometheus %s, PromQL" % prom["version"] if prom else "Prometheus")]
    rows.append(("computes", "capacity, p95 day and week, 56 daily", "p95 of the week's 10-min rates"))
    rows.append(("", "peaks, Theil-Sen date, per stream", "(quantile_over_time of irate),"))
    rows.append(("", "", "56 daily p95s and their slope (deriv)"))
    rows.append(("wall, 1st pass", "%.1f s (%.1f ms a router)" % (p1["wall_s"], 1e3 * p1["wall_s"] / w["routers"]),
                 "%.1f s week + %.1f s daily peaks" % (prom["week_s"], prom["trend_s"]) if prom else "-"))
    rows.append(("wall, 2nd pass", "%.1f s" % p2["wall_s"], ""))
    rows.append(("CPU", "%.1f s, %.1f s" % (p1["cpu_s"], p2["cpu_s"]),
                 "%.1f s + %.1f s" % (prom["week_cpu_s"], prom["trend_cpu_s"]) if prom else "-"))
    rows.append(("memory", "heap +%s at its peak (RssAnon; SQLite's %.1f MiB)"
                 % (mib(p1["anon_peak_kib"] - p1["anon_kib"]), p1["sqlite_hw_bytes"] / 2**20),
                 "RSS %s with the blocks open, peak %s" % (mib(prom["rss_ready_kib"]), mib(prom["hwm_kib"]))
                 if prom else "-"))
    rows.append(("", "peak RSS +%s (the database's mapped pages too)" % mib(p1["hwm_kib"] - p1["rss_kib"]), ""))
    rows.append(("major faults", "%d, %d" % (p1["majflt"], p2["majflt"]), ""))
    if prom:
        rows.append(("storage", "%.1f GiB (all values; roll-ups)" % (db_bytes / 2**30),
                     "%.1f GiB of blocks (2 counters), built in %.0f s" % (prom["tsdb_bytes"] / 2**30, prom["blocks_s"])))
        rows.append(("median p95 of the week", "%.1f Mbit/s" % (w["p95_week_median_bps"] / 1e6),
                     "%.1f Mbit/s" % (statistics.median(prom["p95"]) / 1e6)))
        rows.append(("capacity, date", "yes", "no: no fit of a core's load in PromQL"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        print("   " + "  ".join(r[i].ljust(widths[i]) for i in range(3)).rstrip())
    if not prom:
        print("   (Prometheus side skipped: %s)" % a.why_no_prom)
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the build dir (bench/store_bench, bench/capacity_bench,"
                    " bench/density_export)")
    ap.add_argument("--n", type=int, default=1000, help="routers (default 1000)")
    ap.add_argument("--db", help="the store_bench database: made once if missing, then reused")
    ap.add_argument("--no-prom", action="store_true", help="skip the Prometheus side")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    a = ap.parse_args()
    a.why_no_prom = "--no-prom"
    for p in ("bench/store_bench", "bench/capacity_bench", "bench/density_export"):
        if not os.access(os.path.join(a.build, p), os.X_OK):
            die("no %s in %s (make %s)" % (p, a.build, p))
    t = tempfile.mkdtemp(prefix="wgwatch-capbench.")
    try:
        db = a.db or os.path.join(t, "cap.db")
        built_s = make_db(a, db) if not os.path.exists(db) else None
        db_bytes = sum(os.path.getsize(db + x) for x in ("", "-wal") if os.path.exists(db + x))
        note("capacity_bench: two passes")
        w = wgwatch_pass(a, t, db)
        prom = None
        if not a.no_prom and not (shutil.which("promtool") and shutil.which("prometheus")):
            a.why_no_prom = "no promtool or prometheus (apt-get install prometheus)"
        elif not a.no_prom:
            tsdb, prom = prom_blocks(a, t, db)
            note("Prometheus: the PromQL")
            prom.update(prometheus(a, t, tsdb))
        show(a, w, built_s, db_bytes, prom)
    finally:
        if a.keep:
            note("kept " + t)
        else:
            shutil.rmtree(t, ignore_errors=True)


if __name__ == "__main__":
    main()
