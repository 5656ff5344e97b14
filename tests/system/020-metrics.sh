#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 020-metrics: wgwatchd polling the simulated fleet serves on /metrics what the routers served:
# per-core loads exactly, identity, counters between two readings of the sim taken around a
# poll, peers by name; fault routers are down with their kind; the exposition passes promtool;
# /api/v1/routers agrees; no secret appears anywhere.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
start_daemon
SIM_USER=$(routers_conf_value tile-a user)
SIM_PASSWORD=$(routers_conf_value tile-a password)

polls() {   # polls ROUTER: wgwatch_polls_total of that router now
	http_get /metrics >"$T/m.tmp" && $EXPO "$T/m.tmp" wgwatch_polls_total router="$1"
}
polled_at_least() { [ "$(polls "$1" | cut -d. -f1)" -ge "$2" ]; }
for r in arm64-a arm64-b tile-a auth-fail garbage; do
	wait_until 20 polled_at_least "$r" 1 || fail "$r never polled"
done

# Counters: read the sim, wait for two more polls of tile-a, scrape, read the sim again.
tx_sim() { sim_get "$(router_addr tile-a)" '/rest/interface?type=wg&.proplist=name,tx-byte' |
	$PY -c 'import json,sys; print(int(json.load(sys.stdin)[0]["tx-byte"]))'; }
s1=$(tx_sim)
n=$(polls tile-a | cut -d. -f1)
wait_until 20 polled_at_least tile-a $((n + 2)) || fail "tile-a not polled again"
http_get /metrics >"$T/metrics.txt"
s2=$(tx_sim)
m=$($EXPO "$T/metrics.txt" wgwatch_interface_transmit_bytes_total router=tile-a interface=wg0 type=wg)
$PY -c "import sys; s1,m,s2=$s1,$m,$s2; sys.exit(0 if s1 <= m <= s2 and m > 0 else 1)" ||
	fail "tile-a wg0 tx $m not between sim readings $s1 and $s2"
ok "interface counter $m lies between the sim's $s1 and $s2"

promtool check metrics <"$T/metrics.txt" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool"; }
ok "promtool check metrics passes"

# What a Prometheus user expects of any daemon: build info, process_*, the reload's outcome,
# and per router its newest successful poll.
now=$(date +%s)
$PY - "$T/metrics.txt" "$now" "$DAEMON_PID" <<'PYEOF' || fail "the daemon's own families"
import re, sys
text, now, pid = open(sys.argv[1]).read(), float(sys.argv[2]), sys.argv[3]
def val(name, router=None):
    labels = r'\{router="%s"[,}][^ ]* ' % router if router else " "
    m = re.search(r"^%s%s(\S+)$" % (re.escape(name), labels), text, re.M)
    assert m, "no %s for %s" % (name, router)
    return float(m.group(1))
assert re.search(r'^wgwatch_build_info\{version="[0-9.]+",revision="[0-9a-f]+|unknown"\} 1$', text, re.M), "build_info"
rss = int(open("/proc/%s/statm" % pid).read().split()[1]) * 4096
assert 0.5 * rss < val("process_resident_memory_bytes") < 2 * rss, "rss"
assert now - 600 < val("process_start_time_seconds") <= now + 1, "start time"
assert val("process_cpu_seconds_total") > 0
assert 3 < val("process_open_fds") < val("process_max_fds")
assert val("wgwatch_config_last_reload_successful") == 1
assert now - 600 < val("wgwatch_config_last_reload_success_timestamp_seconds") <= now + 1
t = val("wgwatch_router_last_success_timestamp_seconds", "tile-a")
assert now - 10 < t <= now + 1, "tile-a last success %s" % t
assert 0 <= val("wgwatch_router_last_poll_duration_seconds", "tile-a") < 2, "duration"  # whole ms: a loopback poll may take 0
assert 'wgwatch_router_last_success_timestamp_seconds{router="auth-fail"' not in text, "auth-fail never succeeded"
PYEOF
ok "build_info, process_*, the reload's outcome and each router's newest success are exported"

# gzip when asked for (Prometheus asks), plain otherwise; the same exposition either way.
url="http://127.0.0.1:$HTTP_PORT/metrics"
curl -fsS --max-time 10 -H 'Accept-Encoding: gzip' -D "$T/gz.headers" -o "$T/metrics.gz" "$url" ||
	fail "/metrics with Accept-Encoding: gzip"
grep -qi '^content-encoding: gzip' "$T/gz.headers" || fail "no Content-Encoding: gzip: $(cat "$T/gz.headers")"
gzip -dc "$T/metrics.gz" >"$T/metrics.gunzipped" || fail "the gzip body does not decompress"
promtool check metrics <"$T/metrics.gunzipped" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool (gzip)"; }
[ "$(grep -c '^wgwatch_router_up' "$T/metrics.gunzipped")" = "$(grep -c '^wgwatch_router_up' "$T/metrics.txt")" ] ||
	fail "the gzipped exposition has other series"
curl -fsS --max-time 10 -H 'Accept-Encoding: gzip;q=0, identity' -D "$T/plain.headers" -o /dev/null "$url"
grep -qi '^content-encoding' "$T/plain.headers" && fail "compressed though gzip;q=0"
ok "/metrics: gzip ($(wc -c <"$T/metrics.gz") of $(wc -c <"$T/metrics.gunzipped") bytes) when asked, plain when not"

val() { $EXPO "$T/metrics.txt" "$@"; }
[ "$(val wgwatch_router_up router=arm64-a site=lab role=hub)" = 1 ] || fail "arm64-a not up (with its labels)"
[ "$(val wgwatch_router_up router=tile-a)" = 1 ] || fail "tile-a not up"
[ "$(val wgwatch_router_up router=auth-fail)" = 0 ] || fail "auth-fail not down"
[ "$(val wgwatch_router_up router=garbage)" = 0 ] || fail "garbage not down"
[ -n "$(val wgwatch_poll_errors_total router=auth-fail kind=auth)" ] || fail "no auth error counted"
[ -n "$(val wgwatch_poll_errors_total router=garbage kind=parse)" ] || fail "no parse error counted"
[ -z "$(val wgwatch_poll_errors_total router=tile-a)" ] || fail "tile-a has poll errors"
ok "up/down and error kinds"

[ "$(val wgwatch_router_info router=tile-a board=CCR1009-7G-1C-1S+ architecture=tile version=7.21.5 firmware=7.21.5)" = 1 ] ||
	fail "tile-a info: $(grep 'wgwatch_router_info{router="tile-a"' "$T/metrics.txt")"
[ "$(val wgwatch_cpu_core_load_ratio router=tile-a | wc -l)" -eq 9 ] || fail "tile-a has not 9 cores"
[ "$(val wgwatch_cpu_core_load_ratio router=tile-a core=3)" = 1 ] || fail "tile-a core 3 not at 100%"
[ "$(val wgwatch_cpu_core_load_ratio router=tile-a core=0)" = 0.12 ] || fail "tile-a core 0 not at 12%"
[ "$(val wgwatch_cpu_core_load_ratio router=arm64-a | tr '\n' ' ')" = "0.1 0.2 0.3 0.4 " ] ||
	fail "arm64-a loads: $(val wgwatch_cpu_core_load_ratio router=arm64-a | tr '\n' ' ')"
ok "per-core loads equal what the sim serves"

sim_peers=$(sim_get "$(router_addr arm64-a)" '/rest/interface/wireguard/peers?.proplist=name' |
	$PY -c 'import json,sys; print("\n".join(sorted(p["name"] for p in json.load(sys.stdin))))')
our_peers=$(val wgwatch_wireguard_peer_receive_bytes_total router=arm64-a --label peer | sort)
[ "$sim_peers" = "$our_peers" ] || fail "peers differ: sim [$sim_peers] wgwatchd [$our_peers]"
nhs=$(val wgwatch_wireguard_peer_last_handshake_seconds router=arm64-a | wc -l)
[ "$nhs" -eq 3 ] || fail "arm64-a: $nhs peers with a handshake age, want 3 (2 never handshook)"
ok "peers by name; peers that never handshook have no age"

http_get /api/v1/routers >"$T/api.json"
$PY - "$T/api.json" <<'PY' || fail "API check"
import json, sys
rs = {r["name"]: r for r in json.load(open(sys.argv[1]))}
assert set(rs) == {"arm64-a", "arm64-b", "tile-a", "auth-fail", "garbage"}, rs.keys()
t = rs["tile-a"]
assert t["up"] is True and t["cores"] == 9 and t["architecture"] == "tile" and t["version"] == "7.21.5", t
assert t["last_poll"] and t["last_error"] is None, t
a = rs["auth-fail"]
assert a["up"] is False and "401" in a["last_error"], a
PY
ok "/api/v1/routers"

http_get / >"$T/fleet.html"
[ "$(grep -c '^<tr><td>' "$T/fleet.html")" -eq 5 ] || fail "the fleet page has not 5 router rows"
grep '^<tr><td>tile-a<' "$T/fleet.html" | grep -q 'single-core bound' || fail "tile-a not flagged single-core bound"
if grep '^<tr><td>arm64-' "$T/fleet.html" | grep -q 'single-core bound'; then fail "an arm64 router flagged"; fi
grep '^<tr><td>auth-fail<' "$T/fleet.html" | grep -q 'down.*auth: .*401' || fail "auth-fail's reason not on the page"
# What needs attention first: the single-core bound tile-a, then the two down routers.
grep '^<tr><td>' "$T/fleet.html" | head -1 | grep -q '^<tr><td>tile-a<' || fail "the bound router not listed first"
[ "$(grep '^<tr><td>' "$T/fleet.html" | sed -n 2,3p | grep -c 'class="down"')" -eq 2 ] ||
	fail "down routers not listed right after the bound one"
ok "fleet page: 5 rows, bound then down first with reasons, tile-a flagged single-core bound"

[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/healthz")" = 200 ] || fail "healthz"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$HTTP_PORT/metrics")" = 405 ] || fail "POST allowed"
if grep -q "$SIM_PASSWORD" "$T/metrics.txt" "$T/api.json" "$T/fleet.html" "$T/daemon.log"; then fail "password leaked"; fi
ok "healthz, method limit, no secret in metrics, API or log"
# The daemon never asks for WireGuard keys: the sim logs every reply that carried them.
if grep -q 'served private-key' "$T/sim.log"; then fail "wgwatchd made the sim serve private keys"; fi
sim_get "$(router_addr arm64-a)" /rest/interface/wireguard/peers >/dev/null
wait_until 10 grep -q 'served private-key' "$T/sim.log" || fail "the sim does not log key replies (control)"
ok "no request of wgwatchd returned a private or preshared key (a request without .proplist would)"
check_log_clean
