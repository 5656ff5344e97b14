#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 110-health: wgwatchd polls the three shapes of /system/health in wgwatch-sim (RouterOS 7 rows,
# the flat record of older builds, CHR's empty list) over REST, and the same routers over SNMP
# (mtxrGaugeTable; the mtxrHl* scalars of the flat one; nothing), and /metrics, the API and the
# router page show what the sim serves: every sensor with its unit, memory and disk, and the
# peers' endpoint, allowed addresses, disabled flag and handshake time. promtool passes. After
# a restart of wgwatchd with the sim gone, the router page still shows the newest health.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

start_sim "$top_srcdir/tests/system/health.scenario" --snmp
SIM_USER=$(routers_conf_value hub7 user)
SIM_PASSWORD=$(routers_conf_value hub7 password)
{
	for r in hub7 old6 chr; do
		printf '[router %s]\nrest = %s\nuser = %s\npassword = %s\n\n' "$r" \
			"$(routers_conf_value $r rest)" "$SIM_USER" "$SIM_PASSWORD"
		printf '[router %s-snmp]\nsnmp = %s\nsnmp_community = %s\n\n' "$r" \
			"$(routers_conf_value $r snmp)" "$(routers_conf_value $r snmp_community)"
	done
} >"$T/routers.conf.new"
mv "$T/routers.conf.new" "$T/routers.conf"
write_conf 1s 1s
start_daemon

scrape() { http_get /metrics >"$T/metrics.txt"; }
polled() { scrape && [ "$($EXPO "$T/metrics.txt" wgwatch_polls_total router="$1" | cut -d. -f1)" -ge 1 ]; }
for r in hub7 old6 chr hub7-snmp old6-snmp chr-snmp; do
	wait_until 20 polled "$r" || fail "$r never polled"
done
scrape
for r in hub7 old6 chr; do
	sim_get "$(router_addr $r)" /rest/system/health >"$T/health-$r.json"
	sim_get "$(router_addr $r)" /rest/system/resource >"$T/resource-$r.json"
done
sim_get "$(router_addr hub7)" /rest/interface/wireguard/peers >"$T/peers-hub7.json"
date +%s >"$T/now"

# The sim's loads are constant, so its sensors are too: /metrics must show exactly them.
$PY - "$T" <<'PY' || fail "health on /metrics differs from what the sim serves (above)"
import json, re, sys
T = sys.argv[1]
sys.path.insert(0, __import__("os").environ["top_srcdir"] + "/tests/system")
import expo
series, types = expo.parse(T + "/metrics.txt")
def vals(name, **want):
    return {l.get("sensor", ""): float(v) for n, l, v in series
            if n == name and all(l.get(k) == w for k, w in want.items())}
FAM = {"C": "wgwatch_health_temperature_celsius", "V": "wgwatch_health_voltage_volts",
       "RPM": "wgwatch_health_fan_speed_rpm", "W": "wgwatch_health_power_watts",
       "": "wgwatch_health_state_ok"}
def want_of(router):
    h = json.load(open("%s/health-%s.json" % (T, router)))
    rows = h if isinstance(h, list) else [{"name": k, "value": v, "type": None} for k, v in h.items()]
    out = {}
    for r in rows:
        t = r["type"]
        if t is None:  # the flat record: units by name, settings passed over
            t = next((u for s, u in (("temperature", "C"), ("voltage", "V"), ("speed", "RPM"),
                     ("consumption", "W"), ("-state", "")) if r["name"].endswith(s)), "skip")
        if t == "skip":
            continue
        v = (1.0 if r["value"] == "ok" else 0.0) if t == "" else float(r["value"])
        out.setdefault(FAM[t], {})[r["name"]] = v
    return out
bad = []
def check(router, want):
    for fam in FAM.values():
        got = vals(fam, router=router)
        if got != want.get(fam, {}):
            bad.append("%s %s: got %s want %s" % (router, fam, got, want.get(fam, {})))
w7, w6 = want_of("hub7"), want_of("old6")
assert len(sum((list(v) for v in w7.values()), [])) == 8 and w7[FAM[""]]["psu2-state"] == 0, w7
assert want_of("chr") == {}, "chr serves sensors"
check("hub7", w7)
check("old6", w6)
check("chr", {})
check("hub7-snmp", w7)  # the gauge table: same names, units scaled back
# The legacy scalars: RouterOS names of their own (cpu-temperature of mtxrHlCpuTemperature...).
check("old6-snmp", w6)
check("chr-snmp", {})
for r in ("hub7", "old6", "chr"):
    res = json.load(open("%s/resource-%s.json" % (T, r)))
    for fam, key in (("wgwatch_memory_free_bytes", "free-memory"), ("wgwatch_memory_total_bytes", "total-memory"),
                     ("wgwatch_disk_free_bytes", "free-hdd-space"), ("wgwatch_disk_total_bytes", "total-hdd-space")):
        got = vals(fam, router=r).get("")
        if got != float(res[key]):
            bad.append("%s %s: got %s want %s" % (r, fam, got, res[key]))
    if vals("wgwatch_memory_free_bytes", router=r + "-snmp"):
        bad.append(r + "-snmp has memory over SNMP")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
ok "sensors of all three shapes over REST and SNMP, memory and disk: what the sim serves"

# Peers: endpoint and allowed addresses as labels of an info series, disabled, handshake time.
$PY - "$T" <<'PY' || fail "peer detail on /metrics (above)"
import json, sys, os
T = sys.argv[1]
sys.path.insert(0, os.environ["top_srcdir"] + "/tests/system")
import expo
series, _ = expo.parse(T + "/metrics.txt")
now = int(open(T + "/now").read())
def one(name, peer):
    got = [(l, float(v)) for n, l, v in series if n == name and l.get("router") == "hub7" and l.get("peer") == peer]
    return got[0] if len(got) == 1 else (None, None)
bad = []
for p in json.load(open(T + "/peers-hub7.json")):
    labels, v = one("wgwatch_wireguard_peer_info", p["name"])
    ep = "%s:%s" % (p["current-endpoint-address"], p["current-endpoint-port"]) if "current-endpoint-address" in p else ""
    if labels is None or v != 1 or labels["endpoint"] != ep or labels["allowed_address"] != p["allowed-address"]:
        bad.append("info of %s: %s, want endpoint %r allowed %r" % (p["name"], labels, ep, p["allowed-address"]))
    _, d = one("wgwatch_wireguard_peer_disabled", p["name"])
    if d != (1.0 if p["disabled"] == "true" else 0.0):
        bad.append("disabled of %s: %s, sim %s" % (p["name"], d, p["disabled"]))
    _, ts = one("wgwatch_wireguard_peer_last_handshake_timestamp_seconds", p["name"])
    _, age = one("wgwatch_wireguard_peer_last_handshake_seconds", p["name"])
    if ("last-handshake" in p) != (ts is not None) or (ts is not None and not (now - age - 30 <= ts <= now)):
        bad.append("handshake time of %s: %s (age %s, now %d)" % (p["name"], ts, age, now))
if not any(p["disabled"] == "true" for p in json.load(open(T + "/peers-hub7.json"))):
    bad.append("the scenario has no disabled peer")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
ok "peer endpoint, allowed addresses, disabled and handshake timestamp"

promtool check metrics <"$T/metrics.txt" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool"; }
ok "promtool check metrics passes"

http_get /api/v1/routers >"$T/api.json"
$PY - "$T/api.json" <<'PY' || fail "API health"
import json, sys
rs = {r["name"]: r for r in json.load(open(sys.argv[1]))}
h = rs["hub7"]["health"]
names = {s["name"]: s for s in h["sensors"]}
assert len(names) == 8 and names["psu2-state"]["unit"] == "state" and names["psu2-state"]["value"] == 0, h
assert names["voltage"]["unit"] == "volts" and 24 <= names["voltage"]["value"] < 25, h
assert h["memory_total_bytes"] == 4 << 30 and h["disk_total_bytes"] > 0, h
assert rs["chr"]["health"]["sensors"] == [] and rs["chr"]["health"]["memory_total_bytes"] == 1 << 30, rs["chr"]
assert rs["chr-snmp"]["health"]["memory_total_bytes"] is None, rs["chr-snmp"]
PY
ok "/api/v1/routers carries health"

page_has_health() {
	http_get /router/hub7 >"$T/page.html" &&
		grep -q '<td>psu2-state</td><td class="n"><span class="hot">not ok</span>' "$T/page.html"
}
wait_until 10 page_has_health || fail "router page: no failed psu2-state"
grep -q '<td>memory</td><td class="n">[0-9]*&nbsp;MiB free of 4096&nbsp;MiB' "$T/page.html" || fail "router page: no memory"
grep -q '<span class="why">disabled</span> </td><td>10\.64\.0\.5/32,172\.16\.3\.0/24</td>' "$T/page.html" ||
	fail "router page: the disabled peer"
grep -q '<td>198\.51\.100\.2:[0-9]*</td><td>10\.64\.0\.3/32,172\.16\.1\.0/24</td>' "$T/page.html" ||
	fail "router page: peer1's endpoint"
ok "router page: sensors, memory, peer endpoints and the disabled peer"
check_log_clean
if grep -q "$SIM_PASSWORD" "$T/metrics.txt" "$T/api.json" "$T/page.html" "$T/daemon.log"; then fail "password leaked"; fi

# The newest health survives a restart, with the routers gone: the page reads the database.
grep -o '<td>cpu-temperature</td><td class="n">[^<]*' "$T/page.html" >"$T/temp.before"
stop_daemon
kill "$SIM_PID"
wait "$SIM_PID" 2>/dev/null || true
start_daemon
http_get /router/hub7 >"$T/page2.html"
grep -q 'the router is down: these are its last values' "$T/page2.html" ||
	grep -q '<section id="health"><h2>Health</h2><p class="seen">As of' "$T/page2.html" || fail "no health after restart"
grep -o '<td>cpu-temperature</td><td class="n">[^<]*' "$T/page2.html" >"$T/temp.after"
[ -s "$T/temp.after" ] && cmp -s "$T/temp.before" "$T/temp.after" ||
	fail "cpu-temperature after restart: $(cat "$T/temp.after") want $(cat "$T/temp.before")"
ok "the newest health survives a restart of wgwatchd ($(sed 's/.*>//' "$T/temp.after"))"
