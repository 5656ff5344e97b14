#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""benchlib.py: the measuring half of bench/run. Scrapes wgwatchd's /metrics, reads
/proc/PID/stat and /proc/PID/status, and turns pairs of snapshots into figures. It only reads
(loopback HTTP, /proc, the database file); it starts a process only in `timed` (the command
bench/run hands it, waited for), never stops one and never judges a figure as pass or fail."""

import argparse
import glob
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")
FAMILIES = ("wgwatch_polls_total", "wgwatch_polls_late_total", "wgwatch_store_samples_total",
            "wgwatch_poll_duration_seconds", "wgwatch_poll_start_delay_seconds",
            "wgwatch_router_up", "wgwatch_poll_errors_total",
            "wgwatch_sqlite_memory_bytes", "wgwatch_store_sqlite_memory_bytes")


def scrape(port):
    """Returns {family: [(labels, value)]} for the families bench/run needs, and the size."""
    url = "http://127.0.0.1:%d/metrics" % port
    with urllib.request.urlopen(url, timeout=60) as r:
        text = r.read().decode("utf-8", "replace")
    out = {f: [] for f in FAMILIES}
    for line in text.splitlines():
        if not line.startswith(FAMILIES):
            continue
        head, _, val = line.rpartition(" ")
        name, _, labels = head.partition("{")
        base = name
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix) and name[:-len(suffix)] in out:
                base = name[:-len(suffix)]
        if base in out:
            out[base].append((name, labels.rstrip("}"), float(val)))
    return out, len(text)


def proc_cpu_s(pid):
    """utime + stime of every thread of PID, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def proc_main_cpu_s(pid):
    """utime + stime of the main thread (the event loop) alone, in seconds."""
    with open("/proc/%d/task/%d/stat" % (pid, pid)) as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def box_cpu_s():
    """(busy, all) CPU seconds of the whole machine from /proc/stat; steal counts as busy."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    idle = v[3] + v[4]
    return (sum(v) - idle) / TICKS, sum(v) / TICKS


def proc_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def proc_fds(pid):
    """(open descriptors, soft open-files limit) of PID."""
    n = len(os.listdir("/proc/%d/fd" % pid))
    with open("/proc/%d/limits" % pid) as f:
        for line in f:
            if line.startswith("Max open files"):
                return n, int(line.split()[3])
    return n, 0


def pids(arg):
    """--sim takes one pid or a comma-separated list (a fleet split over several sims)."""
    return [int(p) for p in arg.split(",") if p]


def histogram(rows):
    """(sum, count, {le: cumulative count}) of one histogram family's lines."""
    total, count, buckets = 0.0, 0.0, {}
    for name, labels, v in rows:
        if name.endswith("_sum"):
            total = v
        elif name.endswith("_count"):
            count = v
        elif name.endswith("_bucket"):
            buckets[labels.split('le="')[1].split('"')[0]] = v
    return total, count, buckets


def summarize(fams):
    s = {"polls": 0.0, "routers_polled": 0, "late": 0.0, "samples": 0.0, "up": 0,
         "errors": 0.0}
    # Optional: SQLite's heap (page cache included), where wgwatchd exports it (under either
    # name: the family is new).
    sq = fams["wgwatch_sqlite_memory_bytes"] + fams["wgwatch_store_sqlite_memory_bytes"]
    s["sqlite_mem"] = sum(v for _, _, v in sq) if sq else None
    for _, _, v in fams["wgwatch_polls_total"]:
        s["polls"] += v
        s["routers_polled"] += 1 if v >= 1 else 0
    for _, _, v in fams["wgwatch_polls_late_total"]:
        s["late"] += v
    for _, _, v in fams["wgwatch_store_samples_total"]:
        s["samples"] += v
    for _, _, v in fams["wgwatch_router_up"]:
        s["up"] += int(v)
    for _, _, v in fams["wgwatch_poll_errors_total"]:
        s["errors"] += v
    s["hist_sum"], s["hist_count"], s["buckets"] = histogram(fams["wgwatch_poll_duration_seconds"])
    # Optional: the start-delay histogram is newer than the rest (None where not exported).
    d = fams["wgwatch_poll_start_delay_seconds"]
    s["delay_sum"], s["delay_count"], s["delay_buckets"] = histogram(d) if d else (None, None, None)
    return s


def min_polls(fams):
    vals = [v for _, _, v in fams["wgwatch_polls_total"]]
    return (min(vals) if vals else 0), len(vals)


def cmd_warm(a):
    """Waits until every one of N routers finished at least --polls polls."""
    end = time.monotonic() + a.timeout
    while time.monotonic() < end:
        try:
            least, n = min_polls(scrape(a.port)[0])
            if n >= a.n and least >= a.polls:
                return 0
        except OSError:
            pass
        time.sleep(0.5)
    print("benchlib: warm-up: not every router polled %d times in %d s" % (a.polls, a.timeout),
          file=sys.stderr)
    return 1


def read_proc(snap, a):
    snap["t_proc"] = time.monotonic()
    snap["daemon_cpu"] = proc_cpu_s(a.daemon)
    snap["sim_cpu"] = sum(proc_cpu_s(p) for p in pids(a.sim))
    snap["loop_cpu"] = proc_main_cpu_s(a.daemon)
    snap["box_busy"], snap["box_all"] = box_cpu_s()


def cmd_snap(a):
    """One snapshot. --first scrape: scrape then /proc (start of a window), so the window's
    CPU time holds no render of /metrics; --first proc: /proc then scrape (end of a window)."""
    snap = {}
    if a.first == "proc":
        read_proc(snap, a)
    snap["t_scrape"] = time.monotonic()
    fams, size = scrape(a.port)
    snap["t_scrape_end"] = time.monotonic()
    if a.first == "scrape":
        read_proc(snap, a)
    snap["loadavg"] = float(open("/proc/loadavg").read().split()[0])
    snap["daemon_rss"] = proc_rss_kib(a.daemon)
    snap["sim_rss"] = sum(proc_rss_kib(p) for p in pids(a.sim))
    snap["nsims"] = len(pids(a.sim))
    snap["daemon_fds"], snap["fd_limit"] = proc_fds(a.daemon)
    snap["metrics_bytes"] = size
    snap.update(summarize(fams))
    json.dump(snap, open(a.out, "w"))
    return 0


def quantile(q, b0, b1):
    """histogram_quantile over the bucket increase between two snapshots, like Prometheus."""
    les = sorted(((float(k), b1[k] - b0.get(k, 0)) for k in b1), key=lambda x: x[0])
    if not les or les[-1][1] <= 0:
        return float("nan")
    rank, prev_le, prev_c = q * les[-1][1], 0.0, 0.0
    for le, c in les:
        if c >= rank:
            if le == float("inf"):
                return prev_le
            return prev_le + (le - prev_le) * (rank - prev_c) / max(c - prev_c, 1e-9)
        prev_le, prev_c = le, c
    return float("nan")


def bound_of_all(b0, b1):
    """The smallest bucket bound holding every observation between two snapshots (an upper
    bound of the maximum; inf when some fell above the last finite bound)."""
    les = sorted(((float(k), b1[k] - b0.get(k, 0)) for k in b1), key=lambda x: x[0])
    if not les or les[-1][1] <= 0:
        return float("nan")
    return next(le for le, c in les if c >= les[-1][1])


def delay_figures(A, B):
    if A.get("delay_buckets") is None or B.get("delay_buckets") is None:
        return {}
    n = B["delay_count"] - A["delay_count"]
    return {"delay_starts": n,
            "delay_mean_ms": 1e3 * (B["delay_sum"] - A["delay_sum"]) / max(n, 1),
            "delay_p50_ms": 1e3 * quantile(0.5, A["delay_buckets"], B["delay_buckets"]),
            "delay_p99_ms": 1e3 * quantile(0.99, A["delay_buckets"], B["delay_buckets"]),
            "delay_max_le_ms": 1e3 * bound_of_all(A["delay_buckets"], B["delay_buckets"])}


def cmd_window(a):
    """Figures of a polling window from snapshots A and B, as JSON (-o)."""
    A, B = json.load(open(a.a)), json.load(open(a.b))
    # Between the two scrapes' starts: wgwatchd takes its figures as a render begins, and at
    # 10,000 routers the 120 MB body takes seconds more to arrive.
    wall = B["t_scrape"] - A["t_scrape"]
    cpu_wall = B["t_proc"] - A["t_proc"]
    polls = B["polls"] - A["polls"]
    fin = B["hist_count"] - A["hist_count"]
    # The CPU span (between the /proc reads, inside the scrapes) is shorter than the polls'
    # span by a render: count the polls of the CPU span at the window's rate.
    cpu_polls = max(polls * cpu_wall / wall, 1)
    # VmRSS: the median of the window's once-a-second readings (--rss), else the end's
    samples = [int(x) for x in open(a.rss).read().split()] if a.rss else []
    rss = statistics.median(samples) if samples else B["daemon_rss"]
    r = {"n": a.n, "interval": a.interval, "wall_s": wall, "polls": polls,
         "polls_per_s": polls / wall,
         "late": B["late"] - A["late"],
         "errors": B["errors"] - A["errors"], "up": B["up"],
         "daemon_cpu_pct": 100 * (B["daemon_cpu"] - A["daemon_cpu"]) / cpu_wall,
         "sim_cpu_pct": 100 * (B["sim_cpu"] - A["sim_cpu"]) / cpu_wall,
         "loop_cpu_pct": 100 * (B["loop_cpu"] - A["loop_cpu"]) / cpu_wall,
         "other_cpu_pct": 100 * ((B["box_busy"] - A["box_busy"]) - (B["daemon_cpu"] - A["daemon_cpu"])
                                 - (B["sim_cpu"] - A["sim_cpu"])) / cpu_wall,
         "box_cpus": os.cpu_count(), "loadavg": B["loadavg"],
         "daemon_us_per_poll": 1e6 * (B["daemon_cpu"] - A["daemon_cpu"]) / cpu_polls,
         "sim_us_per_poll": 1e6 * (B["sim_cpu"] - A["sim_cpu"]) / cpu_polls,
         "daemon_rss_kib": rss, "daemon_rss_end_kib": B["daemon_rss"], "sim_rss_kib": B["sim_rss"],
         "daemon_rss_min_kib": min(samples) if samples else rss,
         "daemon_rss_max_kib": max(samples) if samples else rss,
         "rss_kib_per_router": rss / a.n,
         "sqlite_mem_kib": B["sqlite_mem"] / 1024 if B.get("sqlite_mem") is not None else None,
         "daemon_fds": B["daemon_fds"], "fd_limit": B["fd_limit"], "nsims": B["nsims"],
         "samples_per_s": (B["samples"] - A["samples"]) / wall,
         "samples_per_poll": (B["samples"] - A["samples"]) / max(polls, 1),
         "poll_mean_ms": 1e3 * (B["hist_sum"] - A["hist_sum"]) / max(fin, 1),
         "poll_p50_ms": 1e3 * quantile(0.5, A["buckets"], B["buckets"]),
         "poll_p99_ms": 1e3 * quantile(0.99, A["buckets"], B["buckets"]),
         "expected_polls_per_s": a.n / a.interval}
    r.update(delay_figures(A, B))
    json.dump(r, open(a.out, "w"))
    return 0


def cmd_dbsize(a):
    """Bytes on disk per stored sample (one core, interface or peer of one poll), after wgwatchd
    stopped (WAL checkpointed). Since schema 003 a poll's samples are packed into its polls row,
    so the samples are counted as polls rows x the samples per poll measured while polling."""
    db = sqlite3.connect("file:%s?mode=ro" % a.db, uri=True)
    polls = db.execute("SELECT count(*) FROM polls").fetchone()[0]
    r = json.load(open(a.out))
    rows = polls * r.get("samples_per_poll", 0)
    try:
        raw = db.execute("SELECT sum(pgsize) FROM dbstat WHERE name IN ('polls', 'polls_key')").fetchone()[0]
    except sqlite3.Error:
        raw = None
    files = sum(os.path.getsize(f) for f in glob.glob(a.db + "*") if not f.endswith(".lock"))
    r.update({"db_bytes": files, "sample_rows": int(rows),
              "db_bytes_per_sample": files / max(rows, 1),
              "table_bytes_per_sample": (raw / max(rows, 1)) if raw else None})
    json.dump(r, open(a.out, "w"))
    return 0


def cmd_https(a):
    """One line of REST-over-HTTPS polling figures (keep-alive: a TLS handshake per router only
    when its connection is new), from the window JSON."""
    w = json.load(open(a.window))
    print("REST over HTTPS (keep-alive, self-signed certificate, tls_verify = no), %d routers, interval %d s:"
          % (w["n"], w["interval"]))
    print("  polls/s %.0f (want %.0f), late %d, errors %d, wgwatchd %.0f us/poll, sim %.0f us/poll,"
          " wgwatchd %.0f%% of a CPU, other %.0f%%"
          % (w["polls_per_s"], w["expected_polls_per_s"], w["late"], w["errors"],
             w["daemon_us_per_poll"], w["sim_us_per_poll"], w["daemon_cpu_pct"], w["other_cpu_pct"]))
    print()
    return 0


def cmd_render(a):
    """Median of curl -w '%{time_total} %{size_download}' lines on stdin."""
    times, sizes = [], []
    for line in sys.stdin:
        t, s = line.split()
        times.append(float(t))
        sizes.append(int(float(s)))
    r = {"n": a.n, "runs": len(times), "median_ms": 1e3 * statistics.median(times),
         "min_ms": 1e3 * min(times), "max_ms": 1e3 * max(times),
         "bytes": int(statistics.median(sizes))}
    r["lines"] = a.lines
    json.dump(r, open(a.out, "w"))
    return 0


def wrk_ms(tok):
    for unit, f in (("us", 1e-3), ("ms", 1.0), ("s", 1e3), ("m", 6e4)):
        if tok.endswith(unit) and tok[:-len(unit)].replace(".", "").isdigit():
            return float(tok[:-len(unit)]) * f
    return float("nan")


def cmd_wrk(a):
    """wrk --latency output on stdin plus the polling window during it (-w) -> JSON."""
    r = {"n": a.n, "rps": float("nan"), "p50_ms": float("nan"), "p99_ms": float("nan"),
         "requests": 0, "errors": ""}
    for line in sys.stdin:
        w = line.split()
        if line.startswith("Requests/sec:"):
            r["rps"] = float(w[1])
        elif len(w) == 2 and w[0] == "50%":
            r["p50_ms"] = wrk_ms(w[1])
        elif len(w) == 2 and w[0] == "99%":
            r["p99_ms"] = wrk_ms(w[1])
        elif "requests in" in line:
            r["requests"] = int(w[0])
        elif line.strip().startswith(("Socket errors", "Non-2xx")):
            r["errors"] += line.strip() + "; "
    r["window"] = json.load(open(a.window))
    json.dump(r, open(a.out, "w"))
    return 0


def report_counts(path):
    """Counts in a wgwatchd --report output: verdicts by verdict and by method, cohorts, routers
    bound by one core. A verdict row is ROUTER IFACE DIR FROM -> TO DATE TIME BEFORE AFTER RATIO
    METHOD VERDICT [(hint)] [(after window filling)]."""
    r = {"verdicts": 0, "by_verdict": {}, "by_method": {}, "cohorts": 0, "bound": 0,
         "cohort_rows": []}
    section = None
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if line.startswith(("Upgrade verdicts", "Cohorts", "Single-core bound")):
            section = w[0]
        elif w[0] in ("ROUTER", "UPGRADE"):
            continue
        elif section == "Upgrade" and len(w) >= 13:
            r["verdicts"] += 1
            r["by_verdict"][w[12]] = r["by_verdict"].get(w[12], 0) + 1
            r["by_method"][w[11]] = r["by_method"].get(w[11], 0) + 1
        elif section == "Cohorts":
            r["cohorts"] += 1
            r["cohort_rows"].append(line.rstrip())
        elif section == "Single-core":
            r["bound"] += 1
    return r


def cmd_timed(a):
    """Runs COMMAND (stdout to --stdout), then writes its wall time, CPU time and peak RSS
    (os.wait4's rusage) and the counts of its --report output as JSON (-o)."""
    t0 = time.monotonic()
    with open(a.stdout, "w") as out:
        p = subprocess.Popen(a.command, stdout=out)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    r = {"n": a.n, "wall_s": wall, "user_s": ru.ru_utime, "sys_s": ru.ru_stime,
         "maxrss_kib": ru.ru_maxrss, "status": os.waitstatus_to_exitcode(status),
         "build_s": a.build_s, "db_bytes": a.db_bytes, "label": a.label}
    r.update(report_counts(a.stdout))
    json.dump(r, open(a.out, "w"))
    return 0 if r["status"] == 0 else 1


def cmd_detector(a):
    """The detector section of the report, from cmd_timed's JSON."""
    r = json.load(open(a.file))
    print("8. Detector: wgwatchd --report (every verdict evaluated once, read-only) on %s" % r["label"])
    print("  routers %d, database %.0f MiB (built by store_bench in %.0f s), exit status %d"
          % (r["n"], r["db_bytes"] / 2**20, r["build_s"], r["status"]))
    print("  wall %.2f s, CPU %.2f s (user %.2f, sys %.2f), peak RSS %.1f MiB"
          % (r["wall_s"], r["user_s"] + r["sys_s"], r["user_s"], r["sys_s"], r["maxrss_kib"] / 1024))
    per = 1e3 * (r["user_s"] + r["sys_s"]) / max(r["verdicts"], 1)
    print("  verdicts %d (%.2f ms CPU each), cohorts %d, routers bound by one core %d"
          % (r["verdicts"], per, r["cohorts"], r["bound"]))
    print("  by verdict: " + ", ".join("%s %d" % kv for kv in sorted(r["by_verdict"].items())))
    print("  by method:  " + ", ".join("%s %d" % kv for kv in sorted(r["by_method"].items())))
    for line in r["cohort_rows"]:
        print("  cohort: " + line)
    print()
    return 0


def fmt(v, spec):
    if v is None or (isinstance(v, float) and v != v):
        return "-"
    return format(v, spec)


def table_of(rows, cols):
    table = [[c[0] for c in cols]]
    for r in rows:
        table.append([fmt(r.get(key), spec) if not callable(key) else fmt(key(r), spec)
                      for _, key, spec in cols])
    print_table(table)


def report_slow(rows):
    print("1b. REST polling at the interval operators run (one window per size, after one poll each)")
    table_of(rows, [
        ("routers", "n", "d"), ("intvl s", "interval", "g"), ("window s", "wall_s", ".1f"),
        ("polls/s", "polls_per_s", ".0f"), ("want/s", "expected_polls_per_s", ".0f"),
        ("late", "late", ".0f"), ("errors", "errors", ".0f"),
        ("start delay p50 ms", "delay_p50_ms", ".2f"), ("p99 ms", "delay_p99_ms", ".1f"),
        ("max <= ms", "delay_max_le_ms", "g"), ("poll p99 ms", "poll_p99_ms", ".1f"),
        ("wgwatchd%", "daemon_cpu_pct", ".1f"), ("loop%", "loop_cpu_pct", ".1f"),
        ("us/poll", "daemon_us_per_poll", ".0f"), ("sim%", "sim_cpu_pct", ".1f"),
        ("other%", "other_cpu_pct", ".0f")])


def report_polling(rows, base):
    print("1. REST polling (figures over the measuring window, after warm-up)")
    table_of(rows, [
        ("routers", "n", "d"), ("intvl s", "interval", "g"), ("window s", "wall_s", ".1f"),
        ("polls/s", "polls_per_s", ".0f"), ("want/s", "expected_polls_per_s", ".0f"),
        ("late", "late", ".0f"), ("errors", "errors", ".0f"),
        ("poll p50 ms", "poll_p50_ms", ".1f"), ("p99 ms", "poll_p99_ms", ".1f"),
        ("start delay p99 ms", "delay_p99_ms", ".1f"),
        ("wgwatchd us/poll", "daemon_us_per_poll", ".0f"), ("sim us/poll", "sim_us_per_poll", ".0f")])
    print("   CPU in % of one CPU over the window (loop = wgwatchd's main thread; other = the rest of")
    print("   the machine: anything but wgwatchd and the sim, e.g. other jobs on a shared box)")
    table_of(rows, [
        ("routers", "n", "d"), ("wgwatchd%", "daemon_cpu_pct", ".0f"), ("loop%", "loop_cpu_pct", ".0f"),
        ("other thr%", lambda r: r["daemon_cpu_pct"] - r["loop_cpu_pct"], ".0f"),
        ("sim%", "sim_cpu_pct", ".0f"), ("other%", "other_cpu_pct", ".0f"),
        ("CPUs", "box_cpus", "d"), ("loadavg", "loadavg", ".1f")])
    report_memory(rows, base)
    print("   store")
    table_of(rows, [
        ("routers", "n", "d"), ("rows/s", "samples_per_s", ".0f"), ("rows/poll", "samples_per_poll", ".1f"),
        ("sample rows", "sample_rows", "d"), ("DB MiB", lambda r: r.get("db_bytes", 0) / 2**20, ".1f"),
        ("DB B/row", "db_bytes_per_sample", ".1f"), ("tables B/row", "table_bytes_per_sample", ".1f")])


def above_base(r, base, sqlite):
    """(VmRSS - baseline VmRSS) / routers in KiB; with sqlite, SQLite's heap is taken out of
    both, so what is left is wgwatchd's own memory per router. None when not measurable."""
    if base is None or r["n"] <= base["n"]:
        return None
    rss, brss = r["daemon_rss_kib"], base["daemon_rss_kib"]
    if sqlite:
        if r.get("sqlite_mem_kib") is None or base.get("sqlite_mem_kib") is None:
            return None
        rss, brss = rss - r["sqlite_mem_kib"], brss - base["sqlite_mem_kib"]
    return (rss - brss) / (r["n"] - base["n"])


def report_memory(rows, base):
    if base is None:
        print("   memory (no baseline run)")
    else:
        sq = base.get("sqlite_mem_kib")
        print("   memory (baseline: wgwatchd polling %d router%s, measured the same way: VmRSS %.1f MiB%s)"
              % (base["n"], "" if base["n"] == 1 else "s", base["daemon_rss_kib"] / 1024,
                 "" if sq is None else ", SQLite heap %.2f MiB" % (sq / 1024)))
    table_of(rows, [
        ("routers", "n", "d"), ("RSS MiB", lambda r: r["daemon_rss_kib"] / 1024, ".1f"),
        ("min-max", lambda r: "%.1f-%.1f" % (r.get("daemon_rss_min_kib", r["daemon_rss_kib"]) / 1024,
                                             r.get("daemon_rss_max_kib", r["daemon_rss_kib"]) / 1024), "s"),
        ("KiB/router", "rss_kib_per_router", ".1f"),
        ("-base KiB/router", lambda r: above_base(r, base, False), ".1f"),
        ("SQLite MiB", lambda r: r["sqlite_mem_kib"] / 1024 if r.get("sqlite_mem_kib") is not None else None, ".1f"),
        ("-base-SQLite KiB/router", lambda r: above_base(r, base, True), ".1f"),
        ("fds", "daemon_fds", "d"), ("fd limit", "fd_limit", "d"),
        ("sims", "nsims", "d"), ("sim RSS MiB", lambda r: r["sim_rss_kib"] / 1024, ".1f")])


def load_sized(d, prefix):
    """The figures of $T/PREFIX-N.json for every N, by N."""
    return [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, prefix + "-*.json")),
                                               key=lambda f: int(f.split("-")[-1][:-5]))]


def report_memory_summary(rows, base, beside, beside_base, beside_label):
    """The figure to watch for growth, first: wgwatchd's memory per router above its baseline,
    and the --beside build's measured the same way on the same sims."""
    if base is None or not [r for r in rows if r["n"] > base["n"]]:
        return
    print("Memory per router: (VmRSS - VmRSS polling 1 router) / (routers - 1), KiB, VmRSS the median")
    print("of a reading a second over the window; in brackets with SQLite's heap")
    print("(wgwatch_store_sqlite_memory_bytes) taken out of both")
    old = {r["n"]: r for r in beside}
    for r in rows:
        if r["n"] <= base["n"]:
            continue
        line = "  %6d routers: wgwatchd %s KiB (%s)" % (
            r["n"], fmt(above_base(r, base, False), ".1f"), fmt(above_base(r, base, True), ".1f"))
        if r["n"] in old and beside_base is not None:
            o = old[r["n"]]
            line += "; beside: %s KiB (%s)" % (fmt(above_base(o, beside_base, False), ".1f"),
                                               fmt(above_base(o, beside_base, True), ".1f"))
        print(line)
    if beside:
        print("  beside: %s, the same window after ours" % beside_label)
    print()


def print_table(table):
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print("  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)))
    print()


def cmd_report(a):
    rows = load_sized(a.dir, "poll")
    base_f = os.path.join(a.dir, "base-1.json")
    base = json.load(open(base_f)) if os.path.exists(base_f) else None
    beside_f = os.path.join(a.dir, "beside-base-1.json")
    beside_base = json.load(open(beside_f)) if os.path.exists(beside_f) else None
    report_memory_summary(rows, base, load_sized(a.dir, "beside-poll"), beside_base, a.beside)
    if rows:
        report_polling(rows, base)
    slow = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(a.dir, "slow-*.json")),
                                               key=lambda f: int(f.split("-")[-1][:-5]))]
    if slow:
        report_slow(slow)
    renders = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(a.dir, "render-*.json")),
                                                  key=lambda f: int(f.split("-")[-1][:-5]))]
    if renders:
        print("2. GET /metrics render (curl, sequential, while polling)")
        t = [["routers", "runs", "median ms", "min ms", "max ms", "bytes", "lines", "MB/s"]]
        for r in renders:
            t.append([str(r["n"]), str(r["runs"]), fmt(r["median_ms"], ".1f"), fmt(r["min_ms"], ".1f"),
                      fmt(r["max_ms"], ".1f"), str(r["bytes"]), str(r["lines"]),
                      fmt(r["bytes"] / r["median_ms"] / 1e3, ".1f")])
        print_table(t)
    for f in sorted(glob.glob(os.path.join(a.dir, "wrk-*.json"))):
        r = json.load(open(f))
        w = r["window"]
        print("3. wrk on /metrics while polling %d routers (%s)" % (r["n"], a.wrk_args))
        t = [["req/s", "requests", "p50 ms", "p99 ms", "polls/s", "want/s", "late polls",
              "poll p99 ms", "wgwatchd%", "loop%", "sim%", "other%"],
             [fmt(r["rps"], ".1f"), str(r["requests"]), fmt(r["p50_ms"], ".1f"), fmt(r["p99_ms"], ".1f"),
              fmt(w["polls_per_s"], ".0f"), fmt(w["expected_polls_per_s"], ".0f"), fmt(w["late"], ".0f"),
              fmt(w["poll_p99_ms"], ".0f"), fmt(w["daemon_cpu_pct"], ".0f"), fmt(w["loop_cpu_pct"], ".0f"),
              fmt(w["sim_cpu_pct"], ".0f"), fmt(w["other_cpu_pct"], ".0f")]]
        print_table(t)
        if r["errors"]:
            print("  wrk: " + r["errors"] + "\n")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("warm")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--polls", type=int, default=2)
    s.add_argument("--timeout", type=int, default=120)
    s = sub.add_parser("snap")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--daemon", type=int, required=True)
    s.add_argument("--sim", required=True, help="pid, or pids separated by commas")
    s.add_argument("--first", choices=("scrape", "proc"), required=True)
    s.add_argument("-o", "--out", required=True)
    s = sub.add_parser("window")
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--interval", type=float, required=True)
    s.add_argument("--rss", help="wgwatchd's VmRSS readings of the window, KiB, one a line")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("-o", "--out", required=True)
    s = sub.add_parser("dbsize")
    s.add_argument("--db", required=True)
    s.add_argument("-o", "--out", required=True)
    s = sub.add_parser("render")
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--lines", type=int, default=0)
    s.add_argument("-o", "--out", required=True)
    s = sub.add_parser("wrk")
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--window", required=True)
    s.add_argument("-o", "--out", required=True)
    s = sub.add_parser("timed")
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--build-s", type=float, default=float("nan"))
    s.add_argument("--db-bytes", type=int, default=0)
    s.add_argument("--label", default="")
    s.add_argument("--stdout", required=True)
    s.add_argument("-o", "--out", required=True)
    s.add_argument("command", nargs="+")
    s = sub.add_parser("detector")
    s.add_argument("file")
    s = sub.add_parser("https")
    s.add_argument("window")
    s = sub.add_parser("report")
    s.add_argument("--wrk-args", default="")
    s.add_argument("--beside", default="", help="what the beside-*.json figures measured")
    s.add_argument("dir")
    a = p.parse_args()
    return globals()["cmd_" + a.cmd](a)


# ---- helpers the side-by-side benchmarks (snmpbench.py, collectdbench.py) share ----

def box_busy_s():
    """Busy CPU seconds of the whole machine from /proc/stat (steal counts as busy)."""
    return box_cpu_s()[0]


def free_port(kind=None):
    """A free loopback port (TCP unless kind says otherwise)."""
    import socket
    s = socket.socket(socket.AF_INET, kind or socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_for(cond, limit, what, who="bench"):
    """Polls cond (OSError counts as not yet) until it holds, or exits after limit seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            if cond():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("%s: %s did not happen in %d s" % (who, what, limit))


def metric_sum(port, fam, timeout=120):
    """The sum of every series of family fam on wgwatchd's /metrics at port."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=timeout) as r:
        text = r.read().decode()
    return sum(float(l.rpartition(" ")[2]) for l in text.splitlines() if l.startswith(fam + "{"))


def cpu_window(seconds, pids, sim_pids, count):
    """CPU of the pollers (pids, summed) and of the sims, their RSS, the machine's other CPU, and
    count() before and after a window of seconds."""
    def cpu(ps):
        return sum(proc_cpu_s(p) for p in ps)
    c0, t0 = count(), time.monotonic()
    p0, s0, b0 = cpu(pids), cpu(sim_pids), box_busy_s()
    time.sleep(seconds)
    p1, s1, b1 = cpu(pids), cpu(sim_pids), box_busy_s()
    wall = time.monotonic() - t0
    c1 = count()
    return {"polls": c1 - c0, "wall": wall, "cpu": p1 - p0, "sim": s1 - s0,
            "rss": sum(proc_rss_kib(p) for p in pids), "other": (b1 - b0) - (p1 - p0) - (s1 - s0)}


class Procs:
    """The processes a run started, stopped by pid (SIGTERM, then wait, then SIGKILL)."""
    def __init__(self, grace=30):
        self.p = []
        self.grace = grace

    def start(self, argv, log):
        self.p.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=open(log, "w")))
        return self.p[-1]

    def stop(self, proc):
        import signal
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(self.grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.p.remove(proc)

    def stop_all(self):
        for proc in list(self.p):
            self.stop(proc)


if __name__ == "__main__":
    sys.exit(main())
