#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""snmpbench.py: the SNMP part of bench/run. wgwatchd polling N routers of wgwatch-sim's SNMP
face, against Debian's prometheus-snmp-exporter scraping the same agents with a generated
`mikrotik` module (the same objects: system and MIKROTIK-MIB scalars by GET, hrProcessorLoad and
the IF-MIB/ifXTable columns by GETBULK walks). Both are driven at full speed; the figure is CPU
seconds (utime + stime from /proc/PID/stat, all threads) per 1,000 router polls, and the sim's
own CPU beside it. It starts its own processes on loopback, stops them by pid, prints figures
and never judges them."""

import argparse
import http.client
import os
import re
import shutil
import sys
import tempfile
import threading
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import proc_cpu_s as cpu_s, free_port, Procs, metric_sum, cpu_window  # noqa: E402
from benchlib import wait_for as _wait_for  # noqa: E402


def wait_for(cond, limit, what):
    _wait_for(cond, limit, what, "snmpbench")


TICKS = os.sysconf("SC_CLK_TCK")
COMMUNITY = "bench-snmp"
SIM_ADDR = "127.51.0.1"
EXPORTER = "prometheus-snmp-exporter"

# (name, OID, exporter type, walked column or GET scalar)
OBJECTS = [
    ("sysDescr", "1.3.6.1.2.1.1.1", "DisplayString", "get"),
    ("sysUpTime", "1.3.6.1.2.1.1.3", "gauge", "get"),
    ("ifDescr", "1.3.6.1.2.1.2.2.1.2", "DisplayString", "if"),
    ("ifType", "1.3.6.1.2.1.2.2.1.3", "gauge", "if"),
    ("ifOperStatus", "1.3.6.1.2.1.2.2.1.8", "gauge", "if"),
    ("ifInOctets", "1.3.6.1.2.1.2.2.1.10", "counter", "if"),
    ("ifInDiscards", "1.3.6.1.2.1.2.2.1.13", "counter", "if"),
    ("ifOutOctets", "1.3.6.1.2.1.2.2.1.16", "counter", "if"),
    ("ifOutDiscards", "1.3.6.1.2.1.2.2.1.19", "counter", "if"),
    ("hrProcessorLoad", "1.3.6.1.2.1.25.3.3.1.2", "gauge", "cpu"),
    ("ifName", "1.3.6.1.2.1.31.1.1.1.1", "DisplayString", "if"),
    ("ifHCInOctets", "1.3.6.1.2.1.31.1.1.1.6", "counter", "if"),
    ("ifHCInUcastPkts", "1.3.6.1.2.1.31.1.1.1.7", "counter", "if"),
    ("ifHCOutOctets", "1.3.6.1.2.1.31.1.1.1.10", "counter", "if"),
    ("ifHCOutUcastPkts", "1.3.6.1.2.1.31.1.1.1.11", "counter", "if"),
    ("mtxrLicVersion", "1.3.6.1.4.1.14988.1.1.4.4", "DisplayString", "get"),
    ("mtxrSerialNumber", "1.3.6.1.4.1.14988.1.1.7.3", "DisplayString", "get"),
    ("mtxrFirmwareVersion", "1.3.6.1.4.1.14988.1.1.7.4", "DisplayString", "get"),
    ("mtxrFirmwareUpgradeVersion", "1.3.6.1.4.1.14988.1.1.7.7", "DisplayString", "get"),
    ("mtxrBoardName", "1.3.6.1.4.1.14988.1.1.7.9", "DisplayString", "get"),
]


def exporter_module():
    """snmp.yml (snmp_exporter 0.21 format) with one module, `mikrotik`, generated from OBJECTS."""
    y = ["mikrotik:", "  version: 2", "  auth:", "    community: %s" % COMMUNITY,
         "  max_repetitions: 24", "  retries: 2", "  timeout: 5s", "  walk:"]
    y += ["  - %s" % o for _, o, _, k in OBJECTS if k != "get"]
    y += ["  get:"] + ["  - %s.0" % o for _, o, _, k in OBJECTS if k == "get"]
    y += ["  metrics:"]
    for name, o, typ, kind in OBJECTS:
        if name in ("ifName", "ifDescr"):
            continue        # lookups only
        y += ["  - name: %s" % name, "    oid: %s" % o, "    type: %s" % typ,
              "    help: %s (%s)" % (name, o)]
        if kind == "cpu":
            y += ["    indexes:", "    - labelname: hrDeviceIndex", "      type: gauge"]
        if kind == "if":
            y += ["    indexes:", "    - labelname: ifIndex", "      type: gauge",
                  "    lookups:", "    - labels: [ifIndex]", "      labelname: ifName",
                  "      oid: 1.3.6.1.2.1.31.1.1.1.1", "      type: DisplayString"]
    return "\n".join(y) + "\n"


def start_sim(a, d, procs):
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fleet.scenario")).read()
    open(os.path.join(d, "fleet.scenario"), "w").write(re.sub(r"(?m)^count = .*$", "count = %d" % a.n, src))
    port = free_port()
    sim = procs.start([os.path.join(a.build, "wgwatch-sim"), "-q", "-a", SIM_ADDR, "-p", str(port),
                       "--snmp-only", "--snmp-community", COMMUNITY, "-c", os.path.join(d, "routers.conf"),
                       "-r", os.path.join(d, "sim.ready"), os.path.join(d, "fleet.scenario")],
                      os.path.join(d, "sim.log"))
    wait_for(lambda: os.path.exists(os.path.join(d, "sim.ready")), 120, "wgwatch-sim ready")
    targets = re.findall(r"(?m)^snmp = (\S+)$", open(os.path.join(d, "routers.conf")).read())
    return sim, targets


def window(a, pid, sim, count):
    return cpu_window(a.window, [pid], [sim.pid], count)

def bench_wgwatchd(a, d, procs, sim):
    port = free_port()
    open(os.path.join(d, "wgwatch.conf"), "w").write(
        "[daemon]\nlisten = 127.0.0.1:%d\ndatabase = wgwatch.db\ninterval = 100ms\ntimeout = 5s\n"
        "max_in_flight = %d\ninclude = routers.conf\n" % (port, a.concurrency))
    dmn = procs.start([os.path.join(a.build, "wgwatchd"), "-q", "-c", os.path.join(d, "wgwatch.conf")],
                      os.path.join(d, "daemon.log"))
    wait_for(lambda: metric_sum(port, "wgwatch_polls_total") >= 2 * a.n, 300, "two polls of every router")
    w = window(a, dmn.pid, sim, lambda: metric_sum(port, "wgwatch_polls_total"))
    w["errors"] = metric_sum(port, "wgwatch_poll_errors_total")
    procs.stop(dmn)
    return w


class Driver:
    """Scrapes /snmp?target=T&module=mikrotik round-robin over the targets from `threads`
    threads, each on a kept-alive connection, as fast as the exporter answers."""
    def __init__(self, port, targets, threads):
        self.port, self.targets, self.done, self.bad = port, targets, 0, 0
        self.lock, self.stop = threading.Lock(), False
        self.th = [threading.Thread(target=self.run, args=(i, threads), daemon=True) for i in range(threads)]
        for t in self.th:
            t.start()

    def run(self, i, k):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        j = i
        while not self.stop:
            c.request("GET", "/snmp?module=mikrotik&target=%s" % self.targets[j % len(self.targets)])
            r = c.getresponse()
            body = r.read()
            ok = r.status == 200 and b"hrProcessorLoad{" in body and b"ifHCInOctets{" in body
            with self.lock:
                self.done += 1
                self.bad += 0 if ok else 1
            j += k

    def count(self):
        with self.lock:
            return self.done

    def close(self):
        self.stop = True
        for t in self.th:
            t.join(60)


def bench_exporter(a, d, procs, sim, targets):
    port = free_port()
    open(os.path.join(d, "snmp.yml"), "w").write(exporter_module())
    exp = procs.start([shutil.which(EXPORTER), "--config.file=" + os.path.join(d, "snmp.yml"),
                       "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
                      os.path.join(d, "exporter.log"))
    wait_for(lambda: urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=5).status == 200, 30,
             "the exporter listening")
    drv = Driver(port, targets, a.concurrency)
    wait_for(lambda: drv.count() >= min(a.n, 500), 120, "exporter warm-up")
    me0 = cpu_s(os.getpid())
    w = window(a, exp.pid, sim, drv.count)
    w["driver"] = cpu_s(os.getpid()) - me0
    drv.close()
    w["errors"] = drv.bad
    procs.stop(exp)
    return w


def report(a, wg, ex):
    rows = [("wgwatchd", wg), ("snmp_exporter", ex)]
    print("6. SNMP: %d routers of wgwatch-sim's SNMP face (v2c), polled at full speed for %d s each" %
          (a.n, a.window))
    print("   (CPU s per 1,000 router polls from /proc/PID/stat utime+stime, all threads; a machine with")
    print("    %d CPUs shared with other jobs: figures are upper bounds)" % os.cpu_count())
    head = ["poller", "polls", "polls/s", "errors", "CPU s/1k polls", "sim CPU s/1k polls", "poller%", "sim%",
            "other%"]
    t = [head]
    for name, w in rows:
        k = max(w["polls"], 1) / 1000
        t.append([name, "%d" % w["polls"], "%.0f" % (w["polls"] / w["wall"]), "%d" % w["errors"],
                  "%.3f" % (w["cpu"] / k), "%.3f" % (w["sim"] / k), "%.0f" % (100 * w["cpu"] / w["wall"]),
                  "%.0f" % (100 * w["sim"] / w["wall"]), "%.0f" % (100 * w["other"] / w["wall"])])
    widths = [max(len(r[i]) for r in t) for i in range(len(head))]
    for r in t:
        print("  " + "  ".join(c.rjust(w) for c, w in zip(r, widths)))
    per = [w["cpu"] / max(w["polls"], 1) for _, w in rows]
    print("   snmp_exporter / wgwatchd CPU per poll: %.1fx; the load driver (Python, %d connections) "
          "took %.0f%% more (in other%%)\n" % (per[1] / max(per[0], 1e-9), a.concurrency,
                                             100 * ex["driver"] / ex["wall"]))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", required=True, help="dir with wgwatchd and wgwatch-sim")
    p.add_argument("--n", type=int, default=1000, help="routers (default 1000)")
    p.add_argument("--window", type=int, default=20, help="seconds measured per poller")
    p.add_argument("--concurrency", type=int, default=64, help="requests in flight (both pollers)")
    p.add_argument("--keep", action="store_true")
    a = p.parse_args()
    if not shutil.which(EXPORTER):
        print("snmpbench: %s not installed (apt-get install prometheus-snmp-exporter): skipped" % EXPORTER,
              file=sys.stderr)
        return 0
    d, procs = tempfile.mkdtemp(prefix="wgwatch-snmpbench."), Procs(grace=20)
    try:
        sim, targets = start_sim(a, d, procs)
        wg = bench_wgwatchd(a, d, procs, sim)
        ex = bench_exporter(a, d, procs, sim, targets)
        report(a, wg, ex)
    finally:
        procs.stop_all()
        if a.keep:
            print("snmpbench: kept %s" % d, file=sys.stderr)
        else:
            shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
