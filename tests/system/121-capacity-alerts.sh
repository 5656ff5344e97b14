#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 121-capacity-alerts: wgwatchd's own push of WgwatchCapacityLow and WgwatchCapacityExhaustedSoon
# ([alert] alertmanager) to Debian's real prometheus-alertmanager on loopback, on
# capacity-alert.scenario (20 days filled in, then live polls judged in a 60 s window). The pinned
# CCR2116's encrypt is not listed while its headroom has been low for less than [alert]
# capacity_for, then is, with the router's labels and a startsAt capacity_for before its first
# push; the growing hub's date within 30 days is pushed, and nothing for the streams with room or
# of unknown capacity; a real Prometheus loading wgwatch-rules.yml fires the same alerts with the
# same labels and annotations; once the CCR2116's encryption gets cheaper, the push resolves its
# alert while the growing hub's stays.
. "$top_srcdir/tests/system/lib.sh"

command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"
SC="$top_srcdir/tests/system/capacity-alert.scenario"
HOLD=8
EPOCH=$(($(date +%s) - 20 * 86400))

cat >"$T/alertmanager.yml" <<YML
route: { receiver: 'null', group_wait: 1s, group_interval: 1s }
receivers: [{ name: 'null' }]
YML
start_alertmanager "$T/alertmanager.yml"

start_sim "$SC" -e "$EPOCH"
# before = 60s: the capacity is of the live polls (240 of them), a pass every 6 s (a tenth of
# before).
write_conf 250ms 200ms "[detector]" "before = 60s" "after = 60s" "every = 1s" "[alert]" \
	"alertmanager = http://127.0.0.1:$AM_PORT/" "resend = 1m" "capacity_for = ${HOLD}s"
"$top_builddir/wgwatch-fill" -c "$T/wgwatch.conf" -e "$EPOCH" -i 5m "$SC" 2>"$T/fill.log" ||
	fail "wgwatch-fill: $(tail -3 "$T/fill.log")"
start_daemon
LOW="router=frankfurt-ccr2116 interface=wg0 direction=tx"
SOON="router=growing-hub interface=wg0 direction=tx"

# 1. The push's condition, as /api/v1/capacity shows it: the CCR2116's encrypt below 0.10.
low() {
	http_get /api/v1/capacity >"$T/cap.json" && $PY - "$T/cap.json" <<-'PY'
	import json, sys
	c = [c for c in json.load(open(sys.argv[1]))
	     if (c["router"], c["interface"], c["direction"]) == ("frankfurt-ccr2116", "wg0", "tx")]
	sys.exit(0 if c and c[0]["headroom"] is not None and c[0]["headroom"] < 0.10 else 1)
	PY
}
wait_until 120 low || { cat "$T/cap.json"; fail "the CCR2116's encrypt never came near its limit"; }
seen=$(now_s)
# Alertmanager must not list it until 3 s before capacity_for has passed ($T/early says it did).
held_quiet() {
	n=$(am_count WgwatchCapacityLow $LOW) || return 1
	[ "$n" = 0 ] || { touch "$T/early"; return 0; }
	$PY -c "import sys, time; sys.exit(time.time() < $seen + $HOLD - 3)"
}
wait_until 20 held_quiet || fail "Alertmanager did not answer while the alert was pending"
[ ! -e "$T/early" ] || { cat "$T/am.json"; fail "WgwatchCapacityLow listed before it held for capacity_for"; }
ok "a headroom low for less than capacity_for = ${HOLD}s is not in Alertmanager"

# 2. Then it is, with the rule's labels and the router's; its first push (Alertmanager's
# updatedAt, resend is 1m) came capacity_for after its startsAt, which is when it began to hold.
wait_until 40 am_is 1 WgwatchCapacityLow $LOW severity=warning site=fra role=hub ||
	{ cat "$T/am.json"; fail "Alertmanager does not list the CCR2116's WgwatchCapacityLow"; }
$PY - "$T/am.json" "$seen" "$HOLD" <<'PY' || { cat "$T/am.json"; fail "the pushed WgwatchCapacityLow"; }
import calendar, json, re, sys, time
seen, hold = float(sys.argv[2]), float(sys.argv[3])
def at(s):   # Alertmanager's RFC 3339 in UTC, up to nanoseconds
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z$", s)
    return calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")) + float(m.group(2) or 0)
a = [a for a in json.load(open(sys.argv[1])) if a["labels"]["alertname"] == "WgwatchCapacityLow"]
assert len(a) == 1, a
a = a[0]
assert a["labels"] == {"alertname": "WgwatchCapacityLow", "router": "frankfurt-ccr2116", "interface": "wg0",
                       "direction": "tx", "severity": "warning", "site": "fra", "role": "hub"}, a["labels"]
starts, pushed = at(a["startsAt"]), at(a["updatedAt"])
print("held from %.1f s after the API showed it, first pushed %.1f s later" % (starts - seen, pushed - starts))
assert -2 < starts - seen < 2, (starts, seen)
assert hold <= pushed - starts < hold + 4, (pushed - starts, hold)
assert a["annotations"]["runbook_url"].endswith("/docs/alerts.md#wgwatchcapacitylow"), a
PY
grep -q 'alert: firing {"alertname":"WgwatchCapacityLow".*"router":"frankfurt-ccr2116"' "$T/daemon.log" ||
	fail "the firing was not logged"
ok "then it is, labelled as the rule labels it, pushed ${HOLD} s after it began to hold"

# 3. The growing hub's date within 30 days; and the pushed set is exactly what the rules' two
# expressions give on /api/v1/capacity: nothing for the CCR2116's decrypt, the quiet hub, or
# the growing hub's headroom.
wait_until 90 am_is 1 WgwatchCapacityExhaustedSoon $SOON severity=warning ||
	{ cat "$T/am.json"; http_get /api/v1/capacity; fail "no WgwatchCapacityExhaustedSoon for the growing hub"; }
http_get /api/v1/capacity >"$T/cap.json"
am_count WgwatchCapacityLow >/dev/null
$PY - "$T/cap.json" "$T/am.json" <<'PY' || { cat "$T/cap.json" "$T/am.json"; fail "pushed set against the API"; }
import datetime, json, sys, time
now = time.time()
def at(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
low, soon = set(), set()
for c in json.load(open(sys.argv[1])):
    k = (c["router"], c["interface"], c["direction"])
    print("%s %s %s: %s, headroom %s, exhausted %s" % (k + (c["method"], c["headroom"], c["exhausted_at"])))
    if c["headroom"] is not None and c["headroom"] < 0.10:
        low.add(k)
    if c["exhausted_at"] is not None and at(c["exhausted_at"]) - now < 30 * 86400:
        soon.add(k)
pushed = {}
for a in json.load(open(sys.argv[2])):
    l = a["labels"]
    if l["alertname"].startswith("WgwatchCapacity") and a["status"]["state"] == "active":
        pushed.setdefault(l["alertname"], set()).add((l["router"], l["interface"], l["direction"]))
assert low == {("frankfurt-ccr2116", "wg0", "tx")}, low
assert soon == {("growing-hub", "wg0", "tx")}, soon
assert pushed == {"WgwatchCapacityLow": low, "WgwatchCapacityExhaustedSoon": soon}, pushed
PY
ok "the growing hub's date within 30 days is pushed; the pushed set is the rules' expressions on /api/v1/capacity"

# 4. Prometheus with the shipped rules (their for: 1h shortened to 1s) fires the same two alerts
# to the same Alertmanager: the same labels, summaries, runbooks and descriptions (the date's
# "in ..." moves with the clock and each pass's capacity: within 3 days), and Alertmanager lists
# each once.
cp "$T/am.json" "$T/pushed.json"
cp "$top_srcdir/web/prometheus/wgwatch-rules.yml" "$T/"
sed -i "/alert: WgwatchCapacity/,/for:/ s/for: 1h/for: 1s/" "$T/wgwatch-rules.yml"
[ "$(grep -c 'for: 1s' "$T/wgwatch-rules.yml")" = 2 ] || fail "the capacity rules have no for: 1h to shorten"
start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: ['$T/wgwatch-rules.yml']
alerting: { alertmanagers: [{ static_configs: [{ targets: ['127.0.0.1:$AM_PORT'] }] }] }
scrape_configs:
  - job_name: wgwatch
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
YML
PROM_PID=$!
prom_same() {
	curl -fsS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/alerts" >"$T/prom.json" &&
	$PY - "$T/prom.json" "$T/pushed.json" <<'PY'
import json, re, sys
def dur(s):
    return sum(int(n) * {"d": 86400, "h": 3600, "m": 60, "s": 1}[u] for n, u in re.findall(r"(\d+)([dhms])", s))
def key(l):
    return json.dumps(l, sort_keys=True)
fired = {key(a["labels"]): a["annotations"] for a in json.load(open(sys.argv[1]))["data"]["alerts"]
         if a["labels"]["alertname"].startswith("WgwatchCapacity") and a["state"] == "firing"}
pushed = {key(a["labels"]): a["annotations"] for a in json.load(open(sys.argv[2]))
          if a["labels"]["alertname"].startswith("WgwatchCapacity")}
assert len(pushed) == 2 and fired.keys() == pushed.keys(), (fired.keys(), pushed.keys())
for k, p in pushed.items():
    f = fired[k]
    assert {n: f[n] for n in ("summary", "runbook_url")} == {n: p[n] for n in ("summary", "runbook_url")}, (f, p)
    if "WgwatchCapacityLow" in k:
        assert f["description"] == p["description"], (f, p)
    else:
        fd, pd = (re.sub(r"capacity in [^.]*\.", "capacity in DATE.", x["description"]) for x in (f, p))
        assert fd == pd, (f, p)
        gap = dur(re.search(r"capacity in ([^.]*)\.", f["description"]).group(1)) - \
            dur(re.search(r"capacity in ([^.]*)\.", p["description"]).group(1))
        assert abs(gap) < 3 * 86400, (f, p)
PY
}
wait_until 60 prom_same || { cat "$T/prom.json" "$T/pushed.json"; fail "Prometheus does not fire what wgwatchd pushed"; }
am_is 1 WgwatchCapacityLow $LOW && am_is 1 WgwatchCapacityExhaustedSoon $SOON ||
	{ cat "$T/am.json"; fail "Alertmanager lists the pushed and the fired alert as two"; }
ok "Prometheus loading wgwatch-rules.yml fires the same labels and annotations; Alertmanager lists one of each"

# 5. The CCR2116's encryption gets cheaper (1568 -> 4900 Mbit/s): the sim starts again on the
# same addresses with that change 3 s ahead on the same clock, so its past and its counters stay
# as they were. Prometheus is stopped first, so that only the push can resolve the alert.
kill "$PROM_PID" 2>/dev/null || :
wait "$PROM_PID" 2>/dev/null || :
change=$(($(date +%s) - EPOCH + 3))
sed "/^cost = wg0 tx 0.0625 core 0 rx 0.04 core 1$/a at ${change}s: cost wg0 tx 0.02 core 0 rx 0.04 core 1" \
	"$SC" >"$T/cheaper.scenario"
grep -q "^at ${change}s: cost" "$T/cheaper.scenario" || fail "no cost line to follow in $SC"
kill "$SIM_PID" 2>/dev/null || :
wait "$SIM_PID" 2>/dev/null || :
rm -f "$T/sim.ready"
"$SIM" -a "$SIM_BASE" -p "$SIM_PORT" -c "$T/routers.conf" -r "$T/sim.ready" -e "$EPOCH" \
	"$T/cheaper.scenario" 2>>"$T/sim.log" &
SIM_PID=$!
PIDS="$PIDS $SIM_PID"
wait_until 30 test -e "$T/sim.ready" || fail "wgwatch-sim did not start again"
wait_until 180 am_is 0 WgwatchCapacityLow $LOW ||
	{ cat "$T/am.json"; http_get /api/v1/capacity; fail "WgwatchCapacityLow not resolved once the capacity rose"; }
wait_until 10 grep -q 'alert: resolved {"alertname":"WgwatchCapacityLow".*"router":"frankfurt-ccr2116"' "$T/daemon.log" ||
	fail "the resolution was not logged"
# Resolved as soon as the headroom is no longer below 0.10: unknown while the window holds polls
# of both costs (the series is absent then), then projected with room once it holds the new
# cost's alone; the alert stays resolved.
roomy() {
	http_get /api/v1/capacity >"$T/cap.json" && $PY - "$T/cap.json" <<-'PY'
	import json, sys
	c = [c for c in json.load(open(sys.argv[1]))
	     if (c["router"], c["interface"], c["direction"]) == ("frankfurt-ccr2116", "wg0", "tx")][0]
	print("after: %s %s Mbit/s, headroom %s, %s" % (c["method"], c["capacity_bps"] and round(c["capacity_bps"] / 1e6),
	                                               c["headroom"], c["why"]), file=sys.stderr)
	assert c["headroom"] is None or c["headroom"] >= 0.10, c
	sys.exit(0 if c["method"] == "projected" else 1)
	PY
}
wait_until 120 roomy || { cat "$T/cap.json"; fail "the CCR2116's encrypt never projected with room"; }
roomy 2>&1 || :
am_is 0 WgwatchCapacityLow $LOW || { cat "$T/am.json"; fail "WgwatchCapacityLow back while the encrypt has room"; }
am_is 1 WgwatchCapacityExhaustedSoon $SOON || { cat "$T/am.json"; fail "the growing hub's alert went too"; }
ok "once the CCR2116's encrypt has room, the push resolves its WgwatchCapacityLow; the growing hub's stays"
stop_daemon
check_log_clean
