#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 122-capacity-snmp: capacity headroom judged alike over SNMP (issue 44). capacity.scenario's 14
# days are filled twice from one epoch by wgwatch-fill at 5-minute polls: over REST, and over
# SNMP only (wgwatch-sim --snmp-only's config: each poll the SNMP collector's own requests,
# answered by the simulated agent, decoded by its decoder: integer-percent hrProcessorLoad, the
# IF-MIB HC octets, no peers). Each history is judged by wgwatchd and must meet the same truths
# of the scenario's CPU model as 120-capacity.sh's REST part: the CCR2116's encrypt pinned at
# 1568 Mbit/s with no headroom, the CCR1009's after 7.22.3 at 128.2, the projections, the
# growing hub's date within 15 % of when its demand reaches 400 Mbit/s, the quiet hub unknown
# with its reason; and each stream alike on both sides. The figures are printed side by side.
. "$top_srcdir/tests/system/lib.sh"
SC="$top_srcdir/tests/system/capacity.scenario"
EPOCH=$(($(date +%s) - 14 * 86400))

# judge LABEL [sim options]: fills the past over the sim's config fragment, starts wgwatchd on it
# and leaves its /api/v1/capacity in $T/LABEL.json once it lists the four hubs.
judge() {
	label=$1; shift
	start_sim "$SC" -e "$EPOCH" "$@"
	write_conf 10s 3s
	"$top_builddir/wgwatch-fill" -c "$T/wgwatch.conf" -e "$EPOCH" -i 5m "$SC" 2>"$T/fill-$label.log" ||
		fail "wgwatch-fill ($label): $(tail -3 "$T/fill-$label.log")"
	# Before wgwatchd starts: its maintenance chunks the closed hours, which sqlite3 cannot read.
	$PY - "$T/wgwatch.db" "$label" <<-'PY' || fail "$label: the filled polls are not the $label collector's"
	import sqlite3, sys
	db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
	src = dict(db.execute("SELECT source, count(*) FROM polls GROUP BY source").fetchall())
	health = db.execute("SELECT count(*) FROM polls WHERE health IS NOT NULL").fetchone()[0]
	peers = db.execute("SELECT count(*) FROM peers").fetchone()[0]
	print("%s: polls %s, %d with health, %d peers" % (sys.argv[2], src, health, peers))
	assert list(src) == [sys.argv[2]] and src[sys.argv[2]] >= 4 * 14 * 288, src
	assert sys.argv[2] == "rest" or peers == 0, peers          # SNMP knows no peers
	assert sys.argv[2] == "rest" or health >= 0.9 * src["snmp"], health  # mtxrHealth each 5-minute poll
	PY
	start_daemon
	wait_until 120 have_all "$T/$label.json" || { cat "$T/$label.json"; fail "$label: /api/v1/capacity never listed the four hubs"; }
	http_get /metrics >"$T/$label.metrics"
	check_log_clean
	stop_daemon
	kill "$SIM_PID" 2>/dev/null || :
	wait "$SIM_PID" 2>/dev/null || :
	rm -f "$T/sim.ready" "$T/wgwatch.db" "$T/wgwatch.db-wal" "$T/wgwatch.db-shm"
	mv "$T/daemon.log" "$T/daemon-$label.log"
}
have_all() {
	http_get /api/v1/capacity >"$1" && $PY - "$1" <<-'PY'
	import json, sys
	cs = json.load(open(sys.argv[1]))
	sys.exit(0 if {c["router"] for c in cs} >= {"ljubljana-ccr1009", "frankfurt-ccr2116", "growing-hub", "quiet-hub"} else 1)
	PY
}

judge rest
judge snmp --snmp-only --snmp-community "cap-$$"
grep -q '^snmp = ' "$T/routers.conf" && ! grep -q '^rest = ' "$T/routers.conf" ||
	fail "the SNMP fleet's config is not SNMP only: $(head -5 "$T/routers.conf")"

$PY - "$T/rest.json" "$T/snmp.json" "$EPOCH" <<'PY' || fail "capacities over REST and SNMP"
import datetime, json, math, sys, time
epoch, now = int(sys.argv[3]), time.time()
P = sorted(1 + 0.2 * math.sin(2 * math.pi * (i + 0.5) / 288) for i in range(288))
p = 0.95 * 287; P = P[int(p)] + (p - int(p)) * (P[int(p) + 1] - P[int(p)])
truth_at = epoch + 7 * 86400 * math.log(400 / (297 * P)) / math.log(1.02)
def at(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
def mbps(x):
    return "-" if x is None else "%.1f" % (x / 1e6)
def days(c):
    return "-" if c["exhausted_at"] is None else "%.1f d" % ((at(c["exhausted_at"]) - now) / 86400)
sides = {}
for label, path in (("REST", sys.argv[1]), ("SNMP", sys.argv[2])):
    sides[label] = {(c["router"], c["interface"], c["direction"]): c for c in json.load(open(path))}
print("%-30s | %-44s | %-44s" % ("stream", "REST: method capacity headroom exhausted", "SNMP: alike"))
for k in sorted(sides["REST"]):
    row = []
    for label in ("REST", "SNMP"):
        c = sides[label].get(k)
        row.append("-" if c is None else "%-9s %8s Mbit/s %5s %s" % (c["method"], mbps(c["capacity_bps"]),
                   c["headroom"] if c["headroom"] is None else round(c["headroom"], 3), days(c) if c["method"] else c["why"]))
    print("%-30s | %-44s | %s" % (" ".join(k), row[0], row[1]))
print("growing-hub wg0 tx: truth runs out in %.1f days" % ((truth_at - now) / 86400))
assert sides["REST"].keys() == sides["SNMP"].keys(), (sorted(sides["REST"]), sorted(sides["SNMP"]))
for k, r in sides["REST"].items():   # alike, stream by stream: the same loads and octets went in
    s = sides["SNMP"][k]
    assert (r["method"], r["why"], r["exhausted_why"]) == (s["method"], s["why"], s["exhausted_why"]), (k, r, s)
    if r["method"]:
        assert abs(s["capacity_bps"] / r["capacity_bps"] - 1) <= 0.02 and abs(s["headroom"] - r["headroom"]) <= 0.02, (k, r, s)
    assert (r["exhausted_at"] is None) == (s["exhausted_at"] is None), (k, r, s)
    assert r["exhausted_at"] is None or abs(at(r["exhausted_at"]) - at(s["exhausted_at"])) <= 86400, (k, r, s)
for label, cs in sides.items():
    def check(k, cond, c=None):
        assert cond, (label, k, cs[k])
    k = ("frankfurt-ccr2116", "wg0", "tx"); c = cs[k]       # truth 1568, pinned
    check(k, c["method"] == "pinned" and 1.3e9 <= c["capacity_bps"] <= 1.8e9)
    check(k, abs(c["capacity_bps"] / 1568e6 - 1) <= 0.05 and c["headroom"] == 0)
    check(k, c["why"] == "at its limit" and c["exhausted_at"] is None)
    k = ("frankfurt-ccr2116", "wg0", "rx"); c = cs[k]       # truth 2450, 700 offered
    check(k, c["method"] == "projected" and abs(c["capacity_bps"] / 2450e6 - 1) <= 0.10)
    check(k, 0.4 <= c["headroom"] <= 0.8 and c["exhausted_at"] is None)
    k = ("ljubljana-ccr1009", "wg0", "tx"); c = cs[k]       # truth 100 / 0.78 = 128.2 after 7.22.3
    check(k, c["method"] == "pinned" and abs(c["capacity_bps"] / 128.2e6 - 1) <= 0.05)
    check(k, c["headroom"] == 0 and c["why"] == "at its limit")
    k = ("ljubljana-ccr1009", "wg1", "tx"); c = cs[k]       # truth 100 / 0.72 = 138.9, 70 offered
    check(k, c["method"] == "projected" and abs(c["capacity_bps"] / 138.9e6 - 1) <= 0.10)
    k = ("growing-hub", "wg0", "tx"); c = cs[k]             # truth 400; runs out at day 41.6
    check(k, c["method"] == "projected" and abs(c["capacity_bps"] / 400e6 - 1) <= 0.02)
    check(k, c["exhausted_at"] is not None and c["trend"] == "theil-sen")
    check(k, abs((at(c["exhausted_at"]) - now) / (truth_at - now) - 1) <= 0.15)
    want_h = 1 - 297 * P * 1.02 ** ((now - epoch) / 86400 / 7) / 400
    check(k, abs(c["headroom"] - want_h) <= 0.05)
    k = ("growing-hub", "wg0", "rx"); c = cs[k]
    check(k, c["method"] is None and c["headroom"] is None and c["why"] == "its traffic is too low to measure its capacity")
    for d in ("tx", "rx"):
        k = ("quiet-hub", "wg0", d); c = cs[k]
        check(k, c["method"] is None and c["capacity_bps"] is None and c["headroom"] is None)
        check(k, c["why"] == "its traffic is too low to measure its capacity" and c["exhausted_at"] is None)
PY
for label in rest snmp; do
	grep -q '^wgwatch_capacity_headroom_ratio{router="frankfurt-ccr2116",interface="wg0",direction="tx"} 0$' "$T/$label.metrics" ||
		fail "$label: no headroom 0 for the CCR2116's tx in /metrics"
	grep -q '^wgwatch_capacity_exhausted_timestamp_seconds{router="growing-hub",interface="wg0",direction="tx"} ' "$T/$label.metrics" ||
		fail "$label: no exhaustion date for the growing hub in /metrics"
	! grep -q '^wgwatch_capacity_[a-z_]*{router="quiet-hub"' "$T/$label.metrics" || fail "$label: the quiet hub has a capacity series"
done
ok "REST and SNMP histories judged alike: pinned ceilings at their limit, projections, the growing hub's date, the quiet hub unknown"
