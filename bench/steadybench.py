#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""steadybench.py: wgwatchd's CPU per router poll minute by minute over a long run, thread by
thread, for what a short window cannot show: work that grows with the data kept (the detector's
rounds) or comes every few minutes (the store's roll-ups). It starts wgwatch-sim and wgwatchd
(and, with --baseline, an earlier wgwatchd on its own sim afterwards) on loopback, stops them by
pid, and prints figures only, never pass/fail (see bench/README.md)."""

import argparse
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, Procs, metric_sum  # noqa: E402
from benchlib import wait_for as _wait_for  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def wait_for(cond, limit, what):
    _wait_for(cond, limit, what, "steadybench")


def threads_cpu(pid):
    """CPU seconds (utime + stime) of each thread of pid, summed by thread name."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            name = open("/proc/%d/task/%s/comm" % (pid, tid)).read().strip()
            f = open("/proc/%d/task/%s/stat" % (pid, tid)).read().rpartition(")")[2].split()
        except OSError:
            continue  # a thread that ended meanwhile
        name = "loop" if name == "wgwatchd" else name
        out[name] = out.get(name, 0.0) + (int(f[11]) + int(f[12])) / TICKS
    return out


def start(a, build, d, procs):
    """A sim of a.routers fleet.scenario hubs and wgwatchd polling them over REST."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fleet.scenario")).read()
    sc, conf, ready = os.path.join(d, "fleet.scenario"), os.path.join(d, "routers.conf"), os.path.join(d, "ready")
    open(sc, "w").write(re.sub(r"(?m)^count = .*$", "count = %d" % a.routers, src))
    sim = procs.start([os.path.join(a.build, "wgwatch-sim"), "-q", "-a", "127.54.0.1", "-p", str(free_port()),
                       "-c", conf, "-r", ready, sc], os.path.join(d, "sim.log"))
    wait_for(lambda: os.path.exists(ready), 180, "wgwatch-sim ready")
    port = free_port()
    routers = [l for l in open(conf).read().splitlines() if not l.startswith("snmp")]
    open(os.path.join(d, "wgwatch.conf"), "w").write("\n".join(
        ["[daemon]", "listen = 127.0.0.1:%d" % port, "database = wgwatch.db", "interval = %ds" % a.interval,
         "timeout = 5s", "max_in_flight = 256", ""] + routers) + "\n")
    dmn = procs.start([os.path.join(build, "wgwatchd"), "-q", "-c", os.path.join(d, "wgwatch.conf")],
                      os.path.join(d, "wgwatchd.log"))
    wait_for(lambda: metric_sum(port, "wgwatch_polls_total") >= a.routers, 120, "a poll of every router")
    return sim, dmn, port


def run(a, label, build):
    """One long run; returns each minute's polls and CPU seconds by thread."""
    procs = Procs()
    rows = []
    with tempfile.TemporaryDirectory(prefix="steadybench.") as d:
        sim, dmn, port = start(a, build, d, procs)
        try:
            polls0, cpu0, t0 = metric_sum(port, "wgwatch_polls_total"), threads_cpu(dmn.pid), time.monotonic()
            for m in range(a.minutes):
                time.sleep(max(0.0, t0 + 60 * (m + 1) - time.monotonic()))
                cpu1 = threads_cpu(dmn.pid)  # /proc first, then /metrics: no render in the CPU
                polls1 = metric_sum(port, "wgwatch_polls_total")
                rows.append((polls1 - polls0, {k: v - cpu0.get(k, 0.0) for k, v in cpu1.items()}))
                polls0, cpu0 = polls1, cpu1
                report_minute(label, m + 1, rows[-1])
        finally:
            procs.stop(dmn)
            procs.stop(sim)
    return rows


def report_minute(label, m, row):
    polls, cpu = row
    total = sum(cpu.values())
    parts = "  ".join("%s %.0f" % (k, 1e6 * v / max(polls, 1)) for k, v in sorted(cpu.items()) if v > 0)
    print("%s minute %2d: %6d polls  %5.0f us/poll  (%s)" % (label, m, polls, 1e6 * total / max(polls, 1), parts),
          flush=True)


def summary(label, rows, skip):
    """Minutes after the first `skip`: the mean over them, and the mean of the first ones."""
    def us(rs):
        polls = sum(r[0] for r in rs)
        return 1e6 * sum(sum(r[1].values()) for r in rs) / max(polls, 1)
    late = rows[skip:]
    print("%s: minutes 2-%d %.0f us/poll, minutes %d-%d %.0f us/poll (roll-ups every 5 minutes included)"
          % (label, skip, us(rows[1:skip]), skip + 1, len(rows), us(late)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", required=True, help="dir with wgwatchd and wgwatch-sim")
    p.add_argument("--baseline", help="dir with an earlier wgwatchd, run after --build's on a new sim")
    p.add_argument("--routers", type=int, default=100)
    p.add_argument("--interval", type=int, default=1, help="seconds")
    p.add_argument("--minutes", type=int, default=16)
    a = p.parse_args()
    if a.minutes < 12:
        raise SystemExit("steadybench: --minutes must be at least 12 (the detector's window is 10)")
    print("steadybench: %d routers of wgwatch-sim at a %d s interval over REST, %d minutes each;"
          " CPU us per router poll by thread (/proc/PID/task), polls from /metrics" % (a.routers, a.interval, a.minutes))
    runs = [("wgwatchd", a.build)] + ([("baseline", a.baseline)] if a.baseline else [])
    got = [(label, run(a, label, build)) for label, build in runs]
    for label, rows in got:
        summary(label, rows, 10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
