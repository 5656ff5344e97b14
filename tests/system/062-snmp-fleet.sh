#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 062-snmp-fleet: 2,000 routers of wgwatch-sim's SNMP face (one UDP socket each, v2c) polled by
# wgwatchd at a short interval, so the daemon holds more sockets than FD_SETSIZE (1024): every
# router comes up with the sim's 4 cores and loads and its wg0/wg1 counters; the counters grow
# at the scenario's rate (measured against sysUpTime); and polling goes on for two more rounds
# of every router. WGWATCH_SNMP_FLEET=N scales the fleet (the ASan pass uses fewer routers;
# keep N > 1024 to still cross FD_SETSIZE); under ASan (ASAN_OPTIONS set, as .ci/run does) the
# default is 1,100 routers every 10 s.
. "$top_srcdir/tests/system/lib.sh"
if [ -n "${ASAN_OPTIONS:-}" ]; then n=1100 i=10s t=9s; else n=2000 i=3s t=2800ms; fi
N=${WGWATCH_SNMP_FLEET:-$n}
INTERVAL=${WGWATCH_SNMP_INTERVAL:-$i}
TIMEOUT=${WGWATCH_SNMP_TIMEOUT:-$t}
COMMUNITY=fleet-c0mm-$$

cat >"$T/fleet.scenario" <<EOF
[global]
user = wgwatch
password = sim-secret
time_scale = 1
seed = 62

[group snmp]
count = $N
board = CCR2004-16G-2S+
architecture = arm64
cpu = ARM64
cores = 4
memory = 4G
version = 7.22.3
firmware = 7.21.1
wg = wg0:3, wg1:2
tx_mbps = 80
rx_mbps = 40
cpu_load = 10 20 30 40
uptime = 1d
EOF
start_sim "$T/fleet.scenario" --snmp-only --snmp-community "$COMMUNITY"
grep -q "^snmp = " "$T/routers.conf" && ! grep -q "^rest = " "$T/routers.conf" ||
	fail "--snmp-only config fragment has no snmp = or still has rest ="

# The agent itself, with net-snmp's tools: the REST face's values, the SNMP exceptions, v1.
A=$(routers_conf_value snmp-0001 snmp)
if command -v snmpget >/dev/null; then
	snmp() { tool=$1; shift; "$tool" -v2c -c "$COMMUNITY" -On -Oq -t 2 -r 1 "$A" "$@"; }
	out=$(snmp snmpget .1.3.6.1.2.1.1.1.0 .1.3.6.1.4.1.14988.1.1.4.4.0 .1.3.6.1.4.1.14988.1.1.7.4.0 \
		.1.3.6.1.2.1.1.4.0 .1.3.6.1.2.1.2.2.1.2.99)
	[ "$out" = "$(printf '%s\n' '.1.3.6.1.2.1.1.1.0 "RouterOS CCR2004-16G-2S+"' \
		'.1.3.6.1.4.1.14988.1.1.4.4.0 "7.22.3"' '.1.3.6.1.4.1.14988.1.1.7.4.0 "7.21.1"' \
		'.1.3.6.1.2.1.1.4.0 No Such Object available on this agent at this OID' \
		'.1.3.6.1.2.1.2.2.1.2.99 No Such Instance currently exists at this OID')" ] || fail "snmpget: $out"
	[ "$(snmp snmpbulkwalk .1.3.6.1.2.1.25.3.3.1.2 | tr '\n' ' ')" = \
		".1.3.6.1.2.1.25.3.3.1.2.1 10 .1.3.6.1.2.1.25.3.3.1.2.2 20 .1.3.6.1.2.1.25.3.3.1.2.3 30 .1.3.6.1.2.1.25.3.3.1.2.4 40 " ] ||
		fail "hrProcessorLoad walk: $(snmp snmpbulkwalk .1.3.6.1.2.1.25.3.3.1.2)"
	snmp snmpgetnext .1.3.6.1.4.1.14988.1.1.7.9.0 | grep -q "No more variables" || fail "no endOfMibView"
	[ "$(snmp snmpwalk .1.3.6.1.2.1.31.1.1.1.1 | cut -d' ' -f2 | tr '\n' ' ')" = '"ether1" "ether2" "bridge" "lo" "wg0" "wg1" ' ] ||
		fail "ifName walk: $(snmp snmpwalk .1.3.6.1.2.1.31.1.1.1.1)"
	# ifIndex is 1..N with gaps, as RouterOS numbers interfaces: wg0's is found by name.
	wg0=$(snmp snmpwalk .1.3.6.1.2.1.31.1.1.1.1 | sed -n 's/^.1.3.6.1.2.1.31.1.1.1.1.\([0-9]*\) "wg0"$/\1/p')
	[ -n "$wg0" ] || fail "no wg0 in the ifName walk"
	v1=$(snmpwalk -v1 -c "$COMMUNITY" -On -Oq "$A" .1.3.6.1.2.1.31.1.1.1)
	echo "$v1" | grep -q "^.1.3.6.1.2.1.31.1.1.1.1.$wg0 \"wg0\"" && ! echo "$v1" | grep -q '^.1.3.6.1.2.1.31.1.1.1.6' ||
		fail "v1 walk of ifXTable: $v1"
	# REST, then SNMP, of wg0's rx-byte: SNMP is read later, by less than a second of 40 Mbit/s.
	rest=$(curl -fsS -u wgwatch:sim-secret "http://${A%:*}:$SIM_PORT/rest/interface?name=wg0" |
		$PY -c 'import json, sys; print(json.load(sys.stdin)[0]["rx-byte"])')
	hc=$(snmp snmpget ".1.3.6.1.2.1.31.1.1.1.6.$wg0" | cut -d' ' -f2)
	[ "$hc" -ge "$rest" ] && [ "$hc" -le $((rest + 5000000)) ] || fail "wg0 rx-byte: REST $rest, SNMP $hc"
	ok "agent: REST and SNMP agree (wg0 rx $rest -> $hc), noSuchObject/Instance, endOfMibView, v1 skips Counter64"
fi

write_conf "$INTERVAL" "$TIMEOUT"
start_daemon

# fleet.py METRICS OUT: one pass over a scrape for all N routers into OUT (JSON): routers up,
# least polls, routers whose cores differ from the scenario's, and per router [uptime, rx and
# tx of wg0+wg1, wg interfaces seen, smallest wg rx].
cat >"$T/fleet.py" <<'EOF'
import json, re, sys
want = ("wgwatch_router_up{", "wgwatch_polls_total{", "wgwatch_cpu_core_load_ratio{",
        "wgwatch_router_uptime_seconds{", "wgwatch_interface_receive_bytes_total{",
        "wgwatch_interface_transmit_bytes_total{")
m = {}
for line in open(sys.argv[1]):
    if line.startswith(want):
        head, _, val = line.rpartition(" ")
        fam, _, labels = head.partition("{")
        lab = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        m.setdefault(fam, {}).setdefault(lab["router"], []).append((lab, float(val)))
one = lambda fam, r: m.get(fam, {}).get(r, [({}, -1)])[0][1]
def wg(fam, r):
    return [x for l, x in m.get(fam, {}).get(r, []) if l.get("interface") in ("wg0", "wg1")]
routers = sorted(m.get("wgwatch_router_up", {}))
want_cores = [("0", 0.1), ("1", 0.2), ("2", 0.3), ("3", 0.4)]
cores_bad = [r for r in routers if sorted((l["core"], round(x, 2)) for l, x in
                                          m.get("wgwatch_cpu_core_load_ratio", {}).get(r, [])) != want_cores]
rx, tx = "wgwatch_interface_receive_bytes_total", "wgwatch_interface_transmit_bytes_total"
snap = {r: [one("wgwatch_router_uptime_seconds", r), sum(wg(rx, r)), sum(wg(tx, r)), len(wg(rx, r)),
            min(wg(rx, r) or [0])] for r in routers}
json.dump({"routers": len(routers), "up": sum(1 for r in routers if one("wgwatch_router_up", r) == 1),
           "min_polls": int(min([one("wgwatch_polls_total", r) for r in routers] or [0])),
           "cores_bad": cores_bad[:5], "snap": snap}, open(sys.argv[2], "w"))
EOF
state() { http_get /metrics >"$T/metrics.txt" && $PY "$T/fleet.py" "$T/metrics.txt" "$T/state.json"; }
get() { $PY -c "import json, sys; print(json.load(open(sys.argv[1]))['$1'])" "$T/state.json"; }
all_up() { state && [ "$(get up)" -eq "$N" ]; }
polled() { state && [ "$(get min_polls)" -ge "$1" ]; }

wait_until 60 all_up || fail "$(get up) of $N routers up; $(grep -m3 'router' "$T/daemon.log")"
ok "all $N SNMP routers up"
nfd=$(ls /proc/"$DAEMON_PID"/fd | wc -l)
[ "$nfd" -gt 1024 ] || fail "wgwatchd holds $nfd descriptors, not more than FD_SETSIZE"
ok "wgwatchd holds $nfd descriptors (> FD_SETSIZE = 1024)"
if grep -q "open-files limit" "$T/daemon.log"; then fail "daemon: $(grep -m1 'open-files limit' "$T/daemon.log")"; fi
[ "$(get cores_bad)" = "[]" ] || fail "cores differ from the sim's: $(get cores_bad)"
ok "every router has the sim's 4 cores at 10/20/30/40 %"

cp "$T/state.json" "$T/state1.json"
p0=$(get min_polls)
wait_until 60 polled $((p0 + 2)) || fail "polling stalled: least-polled router at $(get min_polls), was $p0"
ok "two more rounds of every router (least-polled router: $p0 -> $(get min_polls) polls)"
# The sim's wg0 + wg1 together carry every peer at a constant 40 (rx) / 80 (tx) Mbit/s since
# boot, so the counters must equal rate x uptime (the uptime is a day: the few ms between the
# GET of sysUpTime and the GET of the counters do not show); the rate between the two snapshots
# may be off by that skew over ~2 intervals, which a loaded machine (or ASan) makes larger.
$PY - "$T/state1.json" "$T/state.json" "$N" "${ASAN_OPTIONS:+asan}" <<'EOF' || fail "counters or rates differ from the sim's"
import json, sys
a, b, n = json.load(open(sys.argv[1]))["snap"], json.load(open(sys.argv[2]))["snap"], int(sys.argv[3])
RX, TX = 40e6 / 8, 80e6 / 8
bad, model, errs = [], [], []
for r, (u1, rx1, tx1, k1, m1) in a.items():
    u2, rx2, tx2, k2, m2 = b[r]
    if k1 != 2 or k2 != 2 or m1 <= 0 or u2 - u1 < 1:
        bad.append((r, "interfaces or uptime", k1, k2, m1, u1, u2))
        continue
    for got, want in ((rx1 / u1, RX), (tx1 / u1, TX), (rx2 / u2, RX), (tx2 / u2, TX)):
        model.append(abs(got / want - 1))
        if abs(got / want - 1) > 0.005:
            bad.append((r, "counter / uptime", got, want))
    for got, want in (((rx2 - rx1) / (u2 - u1), RX), ((tx2 - tx1) / (u2 - u1), TX)):
        errs.append(got / want - 1)
        if abs(got / want - 1) > 0.25:
            bad.append((r, "rate", got, want))
mean = sum(errs) / max(len(errs), 1)
print("ok: %d routers: counters = rate x uptime within %.3f%%; rates between the snapshots: mean "
      "error %+.2f%%, worst %.2f%%" % (len(a), 100 * max(model or [0]), 100 * mean, 100 * max(map(abs, errs or [0]))))
if len(a) != n or bad or abs(mean) > (0.15 if sys.argv[4] else 0.03):
    print(len(a), bad[:5], file=sys.stderr)
    sys.exit(1)
EOF
check_log_clean
