#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 120-capacity: capacity headroom (docs/detector.md) on capacity.scenario, 14 days of past
# written by wgwatch-fill at 5-minute polls as sim/demo.sh does, against the truth of the sim's
# CPU model worked out in the scenario's header: the CCR2116's encrypt and the CCR1009's after
# 7.22.3 pinned at their ceilings with no headroom, the CCR2116's decrypt projected, the growing
# hub's date within 15 % of when its demand reaches its capacity, the quiet hub unknown with its
# reason; the same in /metrics, and the shipped alerts' promtool tests. Then over SNMP only,
# live polls in a short window: the pinned ceilings alike.
. "$top_srcdir/tests/system/lib.sh"
SC="$top_srcdir/tests/system/capacity.scenario"

cp "$top_srcdir/web/prometheus/wgwatch-rules.yml" "$top_srcdir/web/prometheus/wgwatch-rules.test.yml" "$T/"
(cd "$T" && promtool test rules wgwatch-rules.test.yml) >"$T/promtool.log" 2>&1 ||
	{ cat "$T/promtool.log"; fail "promtool test rules"; }
ok "promtool test rules: WgwatchCapacityLow and WgwatchCapacityExhaustedSoon fire on their cases only"

EPOCH=$(($(date +%s) - 14 * 86400))
start_sim "$SC" -e "$EPOCH"
write_conf 10s 3s
"$top_builddir/wgwatch-fill" -c "$T/wgwatch.conf" -e "$EPOCH" -i 5m "$SC" 2>"$T/fill.log" ||
	fail "wgwatch-fill: $(tail -3 "$T/fill.log")"
start_daemon

have_all() {
	http_get /api/v1/capacity >"$T/cap.json" && $PY - "$T/cap.json" <<-'PY'
	import json, sys
	cs = json.load(open(sys.argv[1]))
	sys.exit(0 if {c["router"] for c in cs} >= {"ljubljana-ccr1009", "frankfurt-ccr2116", "growing-hub", "quiet-hub"} else 1)
	PY
}
wait_until 120 have_all || { cat "$T/cap.json"; fail "/api/v1/capacity never listed the four hubs"; }
$PY - "$T/cap.json" "$EPOCH" <<'PY' || { cat "$T/cap.json"; fail "capacities"; }
import datetime, json, math, sys, time
cs = {(c["router"], c["interface"], c["direction"]): c for c in json.load(open(sys.argv[1]))}
epoch, now = int(sys.argv[2]), time.time()
def show(k):
    c = cs[k]
    print("%s %s %s: %s %s Mbit/s (rse %s), p95 day %s week %s, headroom %s, exhausted %s; %s %s" % (
        k + (c["method"], c["capacity_bps"] and round(c["capacity_bps"] / 1e6, 1), c["capacity_rse"],
             c["demand_p95_day_bps"] and round(c["demand_p95_day_bps"] / 1e6, 1),
             c["demand_p95_week_bps"] and round(c["demand_p95_week_bps"] / 1e6, 1), c["headroom"],
             c["exhausted_at"], c["why"], c["exhausted_why"])))
    return c
def at(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
c = show(("frankfurt-ccr2116", "wg0", "tx"))    # truth 1568, pinned
assert c["method"] == "pinned" and 1.3e9 <= c["capacity_bps"] <= 1.8e9, c
assert abs(c["capacity_bps"] / 1568e6 - 1) <= 0.05 and c["headroom"] == 0, c
assert c["why"] == "at its limit" and c["exhausted_at"] is None, c
c = show(("frankfurt-ccr2116", "wg0", "rx"))    # truth 2450, 700 offered
assert c["method"] == "projected" and abs(c["capacity_bps"] / 2450e6 - 1) <= 0.10, c
assert 0.4 <= c["headroom"] <= 0.8 and c["exhausted_at"] is None, c
c = show(("ljubljana-ccr1009", "wg0", "tx"))    # truth 100 / 0.78 = 128.2 after 7.22.3
assert c["method"] == "pinned" and abs(c["capacity_bps"] / 128.2e6 - 1) <= 0.05, c
assert c["headroom"] == 0 and c["why"] == "at its limit", c
c = show(("ljubljana-ccr1009", "wg1", "tx"))    # truth 100 / 0.72 = 138.9, 70 offered
assert c["method"] == "projected" and abs(c["capacity_bps"] / 138.9e6 - 1) <= 0.10, c
c = show(("growing-hub", "wg0", "tx"))          # truth 400; runs out at day 41.6
P = sorted(1 + 0.2 * math.sin(2 * math.pi * (i + 0.5) / 288) for i in range(288))
p = 0.95 * 287; P = P[int(p)] + (p - int(p)) * (P[int(p) + 1] - P[int(p)])
truth = epoch + 7 * 86400 * math.log(400 / (297 * P)) / math.log(1.02)
assert c["method"] == "projected" and abs(c["capacity_bps"] / 400e6 - 1) <= 0.02, c
assert c["exhausted_at"] is not None and c["trend"] == "theil-sen", c
got = at(c["exhausted_at"])
print("growing-hub: runs out in %.1f days, truth %.1f" % ((got - now) / 86400, (truth - now) / 86400))
assert abs((got - now) / (truth - now) - 1) <= 0.15, (got, truth)
want_h = 1 - 297 * P * 1.02 ** ((now - epoch) / 86400 / 7) / 400   # the last week's p95, about
assert abs(c["headroom"] - want_h) <= 0.05, (c["headroom"], want_h)
c = show(("growing-hub", "wg0", "rx"))
assert c["method"] is None and c["headroom"] is None and c["why"] == "its traffic is too low to measure its capacity", c
for d in ("tx", "rx"):
    c = show(("quiet-hub", "wg0", d))
    assert c["method"] is None and c["capacity_bps"] is None and c["headroom"] is None, c
    assert c["why"] == "its traffic is too low to measure its capacity" and c["exhausted_at"] is None, c
PY
ok "REST: pinned ceilings at their limit, projected capacities, the growing hub's date, the quiet hub unknown"

# wgwatchd --report prints the same streams, read afresh and read-only: capacity, method,
# demand, headroom, and the date or "unknown, because" its reason.
"$DAEMON" -c "$T/wgwatch.conf" --report >"$T/report.txt" 2>"$T/report.err" || { cat "$T/report.err"; fail "--report"; }
http_get /api/v1/capacity >"$T/cap.json"
$PY - "$T/report.txt" "$T/cap.json" <<'PY' || { cat "$T/report.txt"; fail "--report's capacity section"; }
import datetime, json, re, sys
text = open(sys.argv[1]).read()
sec = text.split("\nCapacity headroom (")[1].splitlines()
assert sec[1].split() == ["ROUTER", "INTERFACE", "DIR", "CAPACITY", "METHOD", "DEMAND", "HEADROOM", "EXHAUSTED", "(UTC)"], sec[1]
rows = {}
for line in sec[2:]:
    if not line.strip():
        break
    f = line.split(None, 7)
    rows[tuple(f[:3])] = f[3:]
def bps(s):
    return None if s == "-" else float(s[:-1]) * {"G": 1e9, "M": 1e6, "k": 1e3}[s[-1]]
api = {(c["router"], c["interface"], c["direction"]): c for c in json.load(open(sys.argv[2]))}
assert rows.keys() == api.keys(), (sorted(rows), sorted(api))
for k, (cap, method, demand, head, when) in rows.items():
    c = api[k]
    print("%-18s %-3s %-2s | %s" % (k + ("  ".join((cap, method, demand, head, when)),)))
    assert method == (c["method"] or "-"), (k, method, c)
    assert (cap == "-") == (c["capacity_bps"] is None), (k, cap, c)
    if c["capacity_bps"]:
        assert abs(bps(cap) / c["capacity_bps"] - 1) < 0.03, (k, cap, c)
        assert abs(float(head) - c["headroom"]) < 0.03, (k, head, c)
    if c["exhausted_at"]:
        days = datetime.date.fromisoformat(when) - datetime.date.fromisoformat(c["exhausted_at"][:10])
        assert abs(days.days) <= 1, (k, when, c)   # read at another moment
    else:
        assert when == "unknown, because " + (c["exhausted_why"] if c["method"] else c["why"]), (k, when, c)
assert rows[("frankfurt-ccr2116", "wg0", "tx")][4] == "unknown, because already at its limit"
assert rows[("quiet-hub", "wg0", "tx")][4] == "unknown, because its traffic is too low to measure its capacity"
assert re.match(r"\d{4}-\d\d-\d\d$", rows[("growing-hub", "wg0", "tx")][4])
PY
ok "--report: a capacity section with every stream as /api/v1/capacity has it, dates or unknown with the reason"

http_get /metrics >"$T/metrics.txt"
grep -q '^wgwatch_capacity_headroom_ratio{router="frankfurt-ccr2116",interface="wg0",direction="tx"} 0$' "$T/metrics.txt" ||
	fail "no headroom 0 for the CCR2116's tx: $(grep capacity "$T/metrics.txt" | head -20)"
grep -q '^wgwatch_capacity_exhausted_timestamp_seconds{router="growing-hub",interface="wg0",direction="tx"} ' "$T/metrics.txt" ||
	fail "no exhaustion date for the growing hub"
! grep -q '^wgwatch_capacity_[a-z_]*{router="quiet-hub"' "$T/metrics.txt" || fail "the quiet hub has a capacity series"
! grep -q '^wgwatch_capacity_exhausted_timestamp_seconds{router="frankfurt-ccr2116"' "$T/metrics.txt" ||
	fail "a pinned hub has an exhaustion date"
http_get /api/v1/capacity >"$T/cap2.json"
$PY - "$T/cap2.json" "$T/metrics.txt" <<'PY' || fail "wgwatch_capacity_bytes_per_second is not the API's capacity over 8"
import json, re, sys
api = {(c["router"], c["interface"], c["direction"]): c["capacity_bps"] for c in json.load(open(sys.argv[1]))}
got = {(r, i, d): float(v) for r, i, d, v in re.findall(
    r'^wgwatch_capacity_bytes_per_second\{router="([^"]*)",interface="([^"]*)",direction="([^"]*)"\} (\S+)$',
    open(sys.argv[2]).read(), re.M)}
assert got and all(api[k] is not None and abs(v * 8 / api[k] - 1) < 1e-9 for k, v in got.items()), (got, api)
assert 1.3e9 / 8 <= got[("frankfurt-ccr2116", "wg0", "tx")] <= 1.8e9 / 8, got
PY
ok "/metrics: the capacity families (bytes/s, the base unit), absent where unknown"

# The pages: the growing hub's capacity as a dashed line over its throughput, none for the quiet
# hub; the fleet page sorted by headroom, the pinned hubs first ("at its limit"), and the table
# of the streams closest to their limit.
http_get /router/growing-hub >"$T/growing.html"
grep -q '<polyline class="tx cap"' "$T/growing.html" || fail "no capacity line on the growing hub's page"
http_get /router/quiet-hub >"$T/quiet.html"
! grep -q 'class="[tr]x cap"' "$T/quiet.html" || fail "a capacity line on the quiet hub's page"
http_get '/?sort=headroom' >"$T/fleet.html"
$PY - "$T/fleet.html" <<'PY' || fail "fleet page headroom"
import re, sys
h = open(sys.argv[1]).read()
rows = re.findall(r'<tr><td>([a-z0-9-]+)(?:<br>.*?)?</td>', h.split('id="fleet"')[1].split('</table>')[0])
print("by headroom:", rows)
assert rows[:2] == sorted(["frankfurt-ccr2116", "ljubljana-ccr1009"]) and rows[2] == "growing-hub" and rows[-1] == "quiet-hub", rows
top = h.split('id="capacity"')[1]
assert "at its limit" in top and "growing-hub" in top and "quiet-hub" not in top, top[:500]
PY
ok "pages: the capacity line on the router page, the fleet page by headroom, the closest to their limit"
check_log_clean

# Over SNMP only, live: the same hubs with no daily swing and their noise drawn each second (a
# 60 s window cannot wait for the day's mix), at day 7, after the CCR1009's upgrade. Offered
# 2100 and 440 Mbit/s x (1 +- 25 %) stay above 1568 and 128.2: both pinned. A projected capacity
# must meet the model's truth; the steady growing hub and the quiet hub are unknown.
stop_daemon
kill "$SIM_PID" 2>/dev/null || :
wait "$SIM_PID" 2>/dev/null || :
rm -f "$T/sim.ready" "$T/wgwatch.db" "$T/wgwatch.db-wal" "$T/wgwatch.db-shm"
mv "$T/daemon.log" "$T/daemon-rest.log"
sed -e 's/^swing = .*/swing = 0/' -e 's/^noise_every = .*/noise_every = 1s/' "$SC" >"$T/snmp.scenario"
start_sim "$T/snmp.scenario" -e $(($(date +%s) - 7 * 86400)) --snmp-only --snmp-community "cap-$$"
write_conf 250ms 200ms "[detector]" "before = 60s" "after = 60s" "every = 1s"
start_daemon
snmp_pinned() {
	http_get /api/v1/capacity >"$T/snmp.json" && $PY - "$T/snmp.json" <<-'PY'
	import json, sys
	cs = {(c["router"], c["interface"], c["direction"]): c for c in json.load(open(sys.argv[1]))}
	want = [("frankfurt-ccr2116", "wg0", "tx"), ("ljubljana-ccr1009", "wg0", "tx")]
	sys.exit(0 if all(k in cs and cs[k]["method"] == "pinned" for k in want) else 1)
	PY
}
wait_until 150 snmp_pinned || { cat "$T/snmp.json"; fail "over SNMP the pinned ceilings never came"; }
$PY - "$T/snmp.json" <<'PY' || { cat "$T/snmp.json"; fail "SNMP capacities"; }
import json, sys
cs = {(c["router"], c["interface"], c["direction"]): c for c in json.load(open(sys.argv[1]))}
for k, truth in ((("frankfurt-ccr2116", "wg0", "tx"), 1568e6), (("ljubljana-ccr1009", "wg0", "tx"), 128.2e6)):
    c = cs[k]
    print("%s %s %s: %s %.1f Mbit/s, headroom %s, %s" % (k + (c["method"], c["capacity_bps"] / 1e6, c["headroom"], c["why"])))
    assert abs(c["capacity_bps"] / truth - 1) <= 0.05 and c["headroom"] == 0 and c["why"] == "at its limit", c
truth = {("frankfurt-ccr2116", "wg0", "rx"): 2450e6, ("ljubljana-ccr1009", "wg0", "rx"): 1000e6,
         ("ljubljana-ccr1009", "wg1", "tx"): 138.9e6, ("ljubljana-ccr1009", "wg1", "rx"): 600e6}
for k, c in cs.items():
    if c["method"] is None:
        assert c["headroom"] is None and c["capacity_bps"] is None and c["why"], c
    elif c["method"] == "projected":
        print("%s %s %s: projected %.1f Mbit/s (rse %.3f), truth %.1f" % (k + (c["capacity_bps"] / 1e6, c["capacity_rse"], truth[k] / 1e6)))
        assert abs(c["capacity_bps"] / truth[k] - 1) <= max(0.1, 4 * c["capacity_rse"]), c
    else:
        assert k in (("frankfurt-ccr2116", "wg0", "tx"), ("ljubljana-ccr1009", "wg0", "tx")), c
assert cs[("growing-hub", "wg0", "tx")]["why"] == "its rates held too steady to project its capacity"
q = cs[("quiet-hub", "wg0", "tx")]
assert q["why"] == "its traffic is too low to measure its capacity", q
print("unknown: " + "; ".join("%s %s %s: %s" % (k + (c["why"],)) for k, c in sorted(cs.items()) if c["method"] is None))
PY
ok "SNMP only: the CCR2116 and the CCR1009 pinned at their ceilings, at their limit; projections true; the rest unknown with why"
check_log_clean
