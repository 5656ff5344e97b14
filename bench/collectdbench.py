#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""collectdbench.py: wgwatchd against collectd (Debian collectd-core, curl_json and snmp
plugins) on the same wgwatch-sim routers, at the same interval, side by side. REST: collectd's
curl_json reads the four URLs wgwatchd asks for in a steady poll (resource, resource/cpu,
interface?type=wg, wireguard/peers), with the same .proplist, on kept-alive connections. SNMP:
collectd's snmp plugin reads from the same agents the numeric objects wgwatchd's SNMP collector
reads. collectd runs its own config from a temp dir in the foreground and writes with its
network plugin to a UDP socket of this script, which only counts marker values in the packets.
It starts its own processes on loopback, stops them by pid, and never touches a system
collectd. Figures only, never pass/fail (see bench/README.md)."""

import argparse
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, Procs, metric_sum, cpu_window  # noqa: E402
from benchlib import wait_for as _wait_for  # noqa: E402


def wait_for(cond, limit, what):
    _wait_for(cond, limit, what, "collectdbench")


TICKS = os.sysconf("SC_CLK_TCK")
COMMUNITY = "bench-cd"
COLLECTD = "/usr/sbin/collectd"
TYPES_DB = "/usr/share/collectd/types.db"

# The URLs of wgwatchd's steady poll (collectors/rest.c rest_url; routerboard and health are
# asked rarely and left out of both), each with the numeric keys collectd can take (curl_json
# cannot read RouterOS durations such as uptime or last-handshake) and a marker key whose type
# instance the sink counts: one marker is one read of the URL.
REST_URLS = [
    ("res", "/rest/system/resource?.proplist=uptime,version,board-name,architecture-name,cpu,"
     "cpu-frequency,free-memory,total-memory,free-hdd-space,total-hdd-space",
     ["cpu-frequency", "free-memory", "free-hdd-space", "total-hdd-space"], "total-memory"),
    ("cpu", "/rest/system/resource/cpu?.proplist=.id,cpu,load,irq", ["*/load", "*/irq"], "0/load"),
    ("if", "/rest/interface?type=wg&.proplist=.id,name,type,running,disabled,rx-byte,tx-byte,"
     "rx-packet,tx-packet,rx-drop,tx-drop,tx-queue-drop,rx-error,tx-error,mtu,actual-mtu,"
     "link-downs",
     ["*/" + k for k in ("rx-byte", "tx-byte", "rx-packet", "tx-packet", "rx-drop", "tx-drop",
                         "tx-queue-drop", "rx-error", "tx-error", "mtu", "actual-mtu",
                         "link-downs")], "0/rx-byte"),
    # wgwatchd reads the peers' details every 10th poll (peer_details_every) and their counters
    # in between; collectd needs only the counters.
    ("peer", "/rest/interface/wireguard/peers?.proplist=.id,rx,tx,last-handshake",
     ["*/rx", "*/tx"], "0/rx"),
]

# collectd snmp Data blocks: the numeric objects of collectors/snmpdecode.c (its string scalars,
# sysDescr, mtxrLicVersion, firmware and board, have no numeric value collectd could store).
SNMP_DATA = [
    ("hruptime", False, "uptime", ["1.3.6.1.2.1.25.1.1.0"]),
    ("mhz", False, "gauge", ["1.3.6.1.4.1.14988.1.1.3.14.0"]),
    ("cpu", True, "gauge", ["1.3.6.1.2.1.25.3.3.1.2"]),                    # hrProcessorLoad
    ("octets", True, "if_octets", ["1.3.6.1.2.1.31.1.1.1.6", "1.3.6.1.2.1.31.1.1.1.10"]),
    ("packets", True, "if_packets", ["1.3.6.1.2.1.31.1.1.1.7", "1.3.6.1.2.1.31.1.1.1.11"]),
    ("dropped", True, "if_dropped", ["1.3.6.1.2.1.2.2.1.13", "1.3.6.1.2.1.2.2.1.19"]),
    ("oper", True, "gauge", ["1.3.6.1.2.1.2.2.1.8"]),
]


def marker(name, router):
    """The type instance of a marker value: m-NAME-ROUTER. The network plugin leaves a part out
    when it equals the previous value's, so a marker shared by all routers would be lost when two
    routers' markers follow each other; one per router never is."""
    return "m-%s-%s" % (name, router)


def marker_prefix(name, router):
    """The bytes that open every router's marker part of NAME (type 0x0005, then the length,
    the same for all routers: the sim's names are of one width): bytes.count finds them in C."""
    return struct.pack(">HH", 5, 4 + len(marker(name, router)) + 1) + ("m-%s-" % name).encode()


class Sink:
    """collectd's network plugin sends here; per datagram, the markers are counted (bytes.count,
    in C) and the rest dropped. Costs collectd one sendto per ~1,400 bytes of values."""
    def __init__(self, router):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.marks = {n: marker_prefix(n, router) for n in [u[0] for u in REST_URLS] + ["snmp"]}
        self.counts = dict.fromkeys(self.marks, 0)
        self.lock = threading.Lock()
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while True:
            pkt = self.sock.recv(65536)
            with self.lock:
                for n, m in self.marks.items():
                    self.counts[n] += pkt.count(m)

    def rest_polls(self):
        with self.lock:
            return sum(self.counts[u[0]] for u in REST_URLS) / len(REST_URLS)

    def snmp_polls(self):
        with self.lock:
            return self.counts["snmp"]


# One sim and one collectd for at most this many routers over REST: collectd keeps a connection
# per URL (4 a router) and the sim a descriptor per connection besides its 3 a router, so 2,500
# routers are 10,000 + 17,500 descriptors, under a container's hard RLIMIT_NOFILE of 20,000.
SHARD_MAX = 2500


def start_sims(a, n, d, procs, shards):
    """n routers over `shards` sims, sim k on 127.(52+k).0.1 with group hu<k> (names of one
    width, for the markers); returns the sims and every router, each with its shard."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fleet.scenario")).read()
    sims, routers = [], []
    for k in range(shards):
        count = n // shards + (1 if k < n % shards else 0)
        sc = os.path.join(d, "fleet-%d.scenario" % k)
        text = re.sub(r"(?m)^count = .*$", "count = %d" % count, src)
        open(sc, "w").write(re.sub(r"(?m)^\[group hub\]$", "[group hu%d]" % k, text))
        port, conf, ready = free_port(), os.path.join(d, "routers-%d.conf" % k), os.path.join(d, "sim-%d.ready" % k)
        sims.append(procs.start([os.path.join(a.build, "wgwatch-sim"), "-q", "-a", "127.%d.0.1" % (52 + k),
                                 "-p", str(port), "--snmp", "--snmp-community", COMMUNITY, "-c", conf,
                                 "-r", ready, sc], os.path.join(d, "sim-%d.log" % k)))
        wait_for(lambda: os.path.exists(ready), 180, "wgwatch-sim %d ready" % k)
        text = open(conf).read()
        routers += [dict(re.findall(r"(?m)^(\w+) = (.*)$", b), name=nm, shard=k)
                    for nm, b in re.findall(r"(?ms)^\[router (\S+)\]\n(.*?)(?=^\[|\Z)", text)]
    return sims, routers


def window(a, pollers, sims, count):
    return cpu_window(a.window, [p.pid for p in pollers], [p.pid for p in sims], count)

def wgwatchd_conf(routers, face, port, iv):
    out = ["[daemon]", "listen = 127.0.0.1:%d" % port, "database = wgwatch.db", "interval = %ds" % iv,
           "timeout = 5s", "max_in_flight = 256", ""]
    for r in routers:
        out.append("[router %s]" % r["name"])
        if face == "rest":
            out += ["rest = %s" % r["rest"], "user = %s" % r["user"], "password = %s" % r["password"]]
        else:
            out += ["snmp = %s" % r["snmp"], "snmp_community = %s" % COMMUNITY]
        out.append("")
    return "\n".join(out)


def bench_wgwatchd(a, d, procs, sim, routers, face, iv, build=None):
    port, n = free_port(), len(routers)
    conf = os.path.join(d, "wgwatch-%s.conf" % face)
    open(conf, "w").write(wgwatchd_conf(routers, face, port, iv))
    if os.path.exists(os.path.join(d, "wgwatch.db")):
        os.unlink(os.path.join(d, "wgwatch.db"))
    dmn = procs.start([os.path.join(build or a.build, "wgwatchd"), "-q", "-c", conf],
                      os.path.join(d, "wgwatch-%s.log" % face))
    # Over REST a router's first eight polls each end with a /ip/route/check of a peer's
    # endpoint (collectors/restwan.h; then once an hour): a fifth request the others never
    # send. The window starts once they are done, in the steady schedule.
    warm = 2 + (8 if face == "rest" else 0)
    wait_for(lambda: metric_sum(port, "wgwatch_polls_total") >= warm * n, 120 + (warm + 1) * iv,
             "%d polls of every router" % warm)
    w = window(a, [dmn], sim, lambda: metric_sum(port, "wgwatch_polls_total"))
    w["errors"] = metric_sum(port, "wgwatch_poll_errors_total")
    procs.stop(dmn)
    return w


def bench_floor(a, d, procs, sim, routers, iv):
    """bench/curl_floor: the same four URLs through libcurl's multi interface on one
    kept-alive connection a router, on wgwatchd's start grid, replies dropped: about what libcurl
    and the kernel take of a lean libcurl poller. None when it is not built (make
    bench/curl_floor)."""
    exe = os.path.join(a.build, "bench", "curl_floor")
    if not os.access(exe, os.X_OK):
        print("collectdbench: no %s (make bench/curl_floor): the floor row is left out" % exe, file=sys.stderr)
        return None
    conf = os.path.join(d, "floor.conf")
    open(conf, "w").write("".join("[router %s]\nrest = %s\nuser = %s\npassword = %s\n\n"
                                  % (r["name"], r["rest"], r["user"], r["password"]) for r in routers))
    fl = subprocess.Popen([exe, "-i", str(iv * 1000), "-W", "0", conf], stdout=subprocess.PIPE, text=True,
                          stderr=open(os.path.join(d, "floor.log"), "w"))
    procs.p.append(fl)
    if not fl.stdout.readline().startswith("polling"):
        raise SystemExit("collectdbench: curl_floor did not start: see %s" % os.path.join(d, "floor.log"))

    def count():
        fl.send_signal(signal.SIGUSR1)
        return int(fl.stdout.readline())
    wait_for(lambda: count() >= 2 * len(routers), 120 + 3 * iv, "two polls of every router by curl_floor")
    w = window(a, [fl], sim, count)
    w["errors"] = len(open(os.path.join(d, "floor.log")).read().splitlines())
    procs.stop(fl)
    return w


def collectd_rest(routers, iv):
    out = ["LoadPlugin curl_json", "<Plugin curl_json>"]
    for r in routers:
        for name, path, keys, mark in REST_URLS:
            out += ['  <URL "%s%s">' % (r["rest"], path), '    Plugin "rest"',
                    '    Instance "%s"' % r["name"], '    User "%s"' % r["user"],
                    '    Password "%s"' % r["password"], "    Interval %d" % iv, "    Timeout 5000"]
            out += ['    <Key "%s">\n      Type "gauge"\n    </Key>' % k for k in keys]
            out += ['    <Key "%s">\n      Type "gauge"\n      Instance "%s"\n    </Key>' % (mark, marker(name, r["name"]))]
            out.append("  </URL>")
    return out + ["</Plugin>"]


def collectd_snmp(routers, iv):
    out = ["LoadPlugin snmp", "<Plugin snmp>"]
    for name, table, typ, oids in SNMP_DATA:
        out += ['  <Data "%s">' % name, '    Type "%s"' % typ, "    Table %s" % ("true" if table else "false"),
                "    Values %s" % " ".join('"%s"' % o for o in oids)]
        out.append('    TypeInstancePrefix "cpu"' if name == "cpu" else
                   '    TypeInstanceOID "1.3.6.1.2.1.31.1.1.1.1"' if table else '    TypeInstance "%s"' % name)
        out.append("  </Data>")
    for r in routers:   # sysUpTime, under a marker of its own per router
        out += ['  <Data "%s">' % marker("snmp", r["name"]), '    Type "uptime"', "    Table false",
                '    Values "1.3.6.1.2.1.1.3.0"', '    TypeInstance "%s"' % marker("snmp", r["name"]), "  </Data>"]
    for r in routers:
        collect = [marker("snmp", r["name"])] + [x[0] for x in SNMP_DATA]
        out += ['  <Host "%s">' % r["name"], '    Address "udp:%s"' % r["snmp"], "    Version 2",
                '    Community "%s"' % COMMUNITY, "    Collect %s" % " ".join('"%s"' % x for x in collect),
                "    Interval %d" % iv, "    Timeout 5", "    Retries 1", "  </Host>"]
    return out + ["</Plugin>"]


def bench_collectd(a, d, procs, sim, routers, face, iv, sink, threads):
    """collectd over the routers, one process per sim (see SHARD_MAX), each with `threads`
    ReadThreads; their CPU and RSS are summed."""
    count = sink.rest_polls if face == "rest" else sink.snmp_polls
    n, cds = len(routers), []
    for k in range(len(sim)):
        tag = "%s-%d" % (face, k)
        conf = os.path.join(d, "collectd-%s.conf" % tag)
        head = ['Hostname "bench"', "FQDNLookup false", 'BaseDir "%s"' % d,
                'PIDFile "%s/collectd-%s.pid"' % (d, tag), 'PluginDir "/usr/lib/collectd"',
                'TypesDB "%s"' % TYPES_DB, "Interval %d" % iv, "ReadThreads %d" % threads, "WriteThreads 1",
                "AutoLoadPlugin false", "LoadPlugin logfile",
                '<Plugin logfile>\n  LogLevel "warning"\n  File "%s/collectd-%s.log"\n'
                '  Timestamp true\n</Plugin>' % (d, tag),
                "LoadPlugin network", '<Plugin network>\n  Server "127.0.0.1" "%d"\n</Plugin>' % sink.port]
        mine = [r for r in routers if r["shard"] == k]
        body = collectd_rest(mine, iv) if face == "rest" else collectd_snmp(mine, iv)
        open(conf, "w").write("\n".join(head + body) + "\n")
        cds.append(procs.start([COLLECTD, "-f", "-C", conf, "-P", os.path.join(d, "collectd-%s.pid" % tag)],
                               os.path.join(d, "collectd-%s.out" % tag)))
    c0 = count()
    wait_for(lambda: count() - c0 >= 2 * n, 120 + 3 * iv, "two reads of every router by collectd")
    w = window(a, cds, sim, count)
    w["errors"] = 0
    for k in range(len(sim)):
        log = os.path.join(d, "collectd-%s-%d.log" % (face, k))
        if os.path.exists(log):
            w["errors"] += len(re.findall(r"(?mi)^.*(fail|error|timed out|took)", open(log).read()))
    for cd in cds:
        procs.stop(cd)
    w["threads"] = threads
    w["procs"] = len(cds)
    return w


def report(n, iv, face, rows, a, which=""):
    print("%s: %d routers of wgwatch-sim at a %d s interval, %s%d s windows" % (face.upper(), n, iv, which, a.window))
    head = ["poller", "polls", "asked", "done %", "CPU us/poll", "KiB RSS/router", "poller%", "sim%", "other%",
            "log errors"]
    t = [head]
    for name, w in rows:
        asked = n * w["wall"] / iv
        t.append([name, "%d" % w["polls"], "%.0f" % asked, "%.0f" % (100 * w["polls"] / asked),
                  "%.0f" % (1e6 * w["cpu"] / max(w["polls"], 1)), "%.1f" % (w["rss"] / n),
                  "%.0f" % (100 * w["cpu"] / w["wall"]), "%.0f" % (100 * w["sim"] / w["wall"]),
                  "%.0f" % (100 * w["other"] / w["wall"]), "%d" % w["errors"]])
    widths = [max(len(r[i]) for r in t) for i in range(len(head))]
    for r in t:
        print("  " + "  ".join(c.rjust(w) for c, w in zip(r, widths)))
    wg = rows[0][1]["cpu"] / max(rows[0][1]["polls"], 1)
    for name, w in rows[1:]:
        print("   %s / wgwatchd CPU per poll: %.2fx" % (name, w["cpu"] / max(w["polls"], 1) / max(wg, 1e-9)))
    floor = [w for name, w in rows if name == "curl_floor"]
    for name, w in rows[1:]:
        if floor and name.startswith("collectd"):
            print("   %s / curl_floor CPU per poll: %.2fx (how far ahead a libcurl poller that keeps nothing is)"
                  % (name, w["cpu"] / max(w["polls"], 1) / max(floor[0]["cpu"] / max(floor[0]["polls"], 1), 1e-9)))
    print(flush=True)


def bench_round(a, d, procs, sim, routers, face, iv, sink, k):
    """One window of each poller, one after another on the same sims; every second round runs them
    in the reverse order, so a machine growing slower or faster over the run tilts no poller's
    median. Rows are always returned in the same order: wgwatchd, the baseline wgwatchd (with
    --baseline), collectd, curl_floor."""
    runs = [("wgwatchd", lambda: bench_wgwatchd(a, d, procs, sim, routers, face, iv))]
    if a.baseline:
        runs.append(("baseline", lambda: bench_wgwatchd(a, d, procs, sim, routers, face, iv, a.baseline)))
    if face == "rest":
        runs.append(("curl_floor", lambda: bench_floor(a, d, procs, sim, routers, iv)))
    for th in a.threads:
        runs.append(("collectd/%d thr" % th,
                     lambda th=th: bench_collectd(a, d, procs, sim, routers, face, iv, sink, th)))
    got = {name: run() for name, run in (runs if k % 2 == 0 else runs[::-1])}
    rows = [("wgwatchd", got["wgwatchd"])]
    if a.baseline:
        rows.append(("wgwatchd, baseline", got["baseline"]))
    for th in a.threads:
        w = got["collectd/%d thr" % th]
        rows.append(("collectd/%d thr%s" % (th, " x%d" % w["procs"] if w["procs"] > 1 else ""), w))
    if got.get("curl_floor") is not None:
        rows.append(("curl_floor", got["curl_floor"]))
    return rows


def us_per_poll(w):
    return 1e6 * w["cpu"] / max(w["polls"], 1)


def median(xs):
    xs = sorted(xs)
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def summary(n, iv, face, rounds):
    """Across rounds: each poller's median CPU per poll and its range, and the median of the
    per-round ratios to wgwatchd (a ratio of two windows minutes apart says less than the median
    of ratios of windows run back to back)."""
    print("%s: %d routers at a %d s interval, %d rounds: median (min to max)" % (face.upper(), n, iv, len(rounds)))
    for i, (name, _) in enumerate(rounds[0]):
        xs = [us_per_poll(rows[i][1]) for rows in rounds]
        line = "  %-22s CPU %4.0f us/poll (%.0f to %.0f)" % (name, median(xs), min(xs), max(xs))
        if i > 0:
            rs = [us_per_poll(rows[i][1]) / max(us_per_poll(rows[0][1]), 1e-9) for rows in rounds]
            line += "   / wgwatchd: %.2fx (%.2fx to %.2fx)" % (median(rs), min(rs), max(rs))
        print(line)
    print(flush=True)


def bench_size(a, n, procs):
    iv = 1 if n <= 1000 else (n + 999) // 1000
    d = tempfile.mkdtemp(prefix="wgwatch-cdbench.")
    try:
        shards = (n + SHARD_MAX - 1) // SHARD_MAX if "rest" in a.faces else 1
        sim, routers = start_sims(a, n, d, procs, shards)
        if len({len(r["name"]) for r in routers}) != 1:
            raise SystemExit("collectdbench: router names of several widths: the markers cannot be counted")
        sink = Sink(routers[0]["name"])
        for face in a.faces:
            rounds = [bench_round(a, d, procs, sim, routers, face, iv, sink, k) for k in range(a.rounds)]
            for k, rows in enumerate(rounds):
                report(n, iv, face, rows, a, "round %d of %d, " % (k + 1, a.rounds) if a.rounds > 1 else "")
            if a.rounds > 1:
                summary(n, iv, face, rounds)
        for p in sim:
            procs.stop(p)
    finally:
        if a.keep:
            print("collectdbench: kept %s" % d, file=sys.stderr)
        else:
            shutil.rmtree(d, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", required=True, help="dir with wgwatchd and wgwatch-sim")
    p.add_argument("--sizes", default="100 1000", help="routers (default: 100 1000)")
    p.add_argument("--window", type=int, default=20, help="seconds measured per poller")
    p.add_argument("--threads", default="16", help="collectd ReadThreads, one run each (default 16)")
    p.add_argument("--faces", default="rest snmp", help="rest, snmp or both (default)")
    p.add_argument("--rounds", type=int, default=1,
                   help="windows of each poller, interleaved, with medians across them (default 1)")
    p.add_argument("--baseline", help="dir with an earlier wgwatchd, run beside --build's in every round")
    p.add_argument("--keep", action="store_true")
    a = p.parse_args()
    a.threads = [int(x) for x in a.threads.split()]
    a.faces = a.faces.split()
    if a.threads and not os.access(COLLECTD, os.X_OK):  # --threads "": wgwatchd builds and the floor only
        print("collectdbench: no %s (apt-get install --no-install-recommends collectd-core libyajl2): skipped"
              % COLLECTD, file=sys.stderr)
        return 0
    ver = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "collectd-core"], capture_output=True,
                         text=True).stdout or "?"
    print("collectd %s vs wgwatchd; CPU us per router poll = utime+stime (/proc/PID/stat, all threads) / polls"
          % ver)
    procs = Procs()
    try:
        for n in [int(x) for x in a.sizes.split()]:
            bench_size(a, n, procs)
    finally:
        procs.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
