#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 117-mktxp: a real Prometheus scraping wgwatchd (polling the simulated fleet) with
# web/prometheus/wgwatch-mktxp-rules.yml loaded records mktxp's names and labels
# (mktxp_interface_rx_byte_total{routerboard_name,name}, mktxp_system_cpu_load, ...) with the
# values of the wgwatch series they come from, at the same instant. promtool checks the rules
# and runs their unit tests first.
. "$top_srcdir/tests/system/lib.sh"

command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"
RULES=wgwatch-mktxp-rules
cp "$top_srcdir/web/prometheus/$RULES.yml" "$top_srcdir/web/prometheus/$RULES.test.yml" "$T/"
promtool check rules "$T/$RULES.yml" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool check rules"; }
(cd "$T" && promtool test rules "$RULES.test.yml") >"$T/promtool.log" 2>&1 ||
	{ cat "$T/promtool.log"; fail "promtool test rules"; }
ok "promtool check rules and test rules accept $RULES.yml"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
start_daemon
start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: ['$T/$RULES.yml']
scrape_configs:
  - job_name: wgwatch
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
YML

# query PROMQL [TIME]: the JSON result list (at TIME, unix seconds, else now).
query() {
	curl -fsS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"} |
		$PY -c 'import json,sys; d=json.load(sys.stdin); assert d["status"]=="success"; print(json.dumps(d["data"]["result"]))'
}

# same MKTXP WGWATCH LABELS: MKTXP (a recorded series) has exactly one series, whose labels
# are LABELS (a JSON object) plus job and instance, and whose value is one that WGWATCH (a PromQL
# expression over wgwatch_* series) took in the 20 s up to the instant the rule recorded it
# (evaluated every 250 ms there). A rule reads the newest scrape appended at its evaluation;
# a slow scrape (under the sanitizers) is appended after an evaluation its timestamp precedes,
# so the instant query alone can read a newer sample than the rule did. Retried (the caller
# waits) while none matches.
same() {
	query "$1" >"$T/mktxp.json" || return 1
	ts=$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r)==1; print(r[0]["value"][0])' \
		"$T/mktxp.json") || return 1
	query "($2)[20s:250ms]" "$ts" >"$T/wgwatch.json" || return 1
	$PY - "$T/mktxp.json" "$T/wgwatch.json" "$3" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))[0]
w = json.load(open(sys.argv[2]))
want = dict(json.loads(sys.argv[3]), job="wgwatch", instance=m["metric"].get("instance", "?"))
name = m["metric"].pop("__name__")
if m["metric"] != want:
    sys.exit("%s labels %s, want %s" % (name, m["metric"], want))
if len(w) != 1:
    sys.exit("wgwatch side has %d series" % len(w))
a, took = float(m["value"][1]), [float(v) for _, v in w[0]["values"]]
if not any(b > 0 and abs(a - b) <= 1e-9 * b for b in took):
    sys.exit("%s is %r, wgwatch took %r" % (name, a, took[-3:]))
PY
}

# expect MKTXP WGWATCH LABELS WHAT: wait until same, else fail showing both sides.
expect() {
	wait_until 60 same "$1" "$2" "$3" || {
		same "$1" "$2" "$3" || true
		echo "mktxp: $(cat "$T/mktxp.json" 2>/dev/null)" >&2
		echo "wgwatch: $(cat "$T/wgwatch.json" 2>/dev/null)" >&2
		fail "$4"
	}
	ok "$4"
}

HUB='"routerboard_name": "arm64-a", "site": "lab", "role": "hub"'
SYS="$HUB"', "version": "7.22.3", "board_name": "CCR2004-16G-2S+", "architecture_name": "arm64"'
expect 'mktxp_interface_rx_byte_total{routerboard_name="arm64-a",name="wg0"}' \
	'wgwatch_interface_receive_bytes_total{router="arm64-a",interface="wg0"}' "{$HUB, \"name\": \"wg0\"}" \
	"mktxp_interface_rx_byte_total{routerboard_name,name} is wg0's receive bytes"
expect 'mktxp_interface_tx_packet_total{routerboard_name="arm64-a",name="wg1"}' \
	'wgwatch_interface_transmit_packets_total{router="arm64-a",interface="wg1"}' "{$HUB, \"name\": \"wg1\"}" \
	"mktxp_interface_tx_packet_total is wg1's transmit packets"
expect 'mktxp_interface_running{routerboard_name="arm64-a",name="wg0"}' \
	'wgwatch_interface_running{router="arm64-a",interface="wg0"}' "{$HUB, \"name\": \"wg0\"}" \
	"mktxp_interface_running is wg0's running (1)"
expect 'mktxp_interface_actual_mtu{routerboard_name="arm64-a",name="wg0"}' \
	'wgwatch_interface_mtu_bytes{router="arm64-a",interface="wg0"}' "{$HUB, \"name\": \"wg0\"}" \
	"mktxp_interface_actual_mtu is wg0's MTU"
expect 'mktxp_system_cpu_load{routerboard_name="arm64-a"}' \
	'100 * avg(wgwatch_cpu_core_load_ratio{router="arm64-a"})' "{$SYS}" \
	"mktxp_system_cpu_load is the mean core load in percent, with version, board_name, architecture_name"
expect 'mktxp_system_cpu_frequency{routerboard_name="arm64-a"}' \
	'wgwatch_cpu_frequency_hertz{router="arm64-a"} / 1e6' "{$SYS}" \
	"mktxp_system_cpu_frequency is the CPU clock in MHz"
expect 'mktxp_system_total_memory{routerboard_name="arm64-a"}' \
	'wgwatch_memory_total_bytes{router="arm64-a"}' "{$SYS}" \
	"mktxp_system_total_memory is the router's memory"
expect 'mktxp_system_uptime{routerboard_name="arm64-a"}' \
	'wgwatch_router_uptime_seconds{router="arm64-a"}' "{$SYS}" \
	"mktxp_system_uptime is the router's uptime"

# The figures themselves, from basic.scenario: cores at 10 20 30 40 %, 1700 MHz.
load=$(query 'mktxp_system_cpu_load{routerboard_name="arm64-a"}' | $PY -c 'import json,sys; print(round(float(json.load(sys.stdin)[0]["value"][1]), 6))')
[ "$load" = 25.0 ] || fail "mktxp_system_cpu_load of arm64-a is $load, want 25 (the scenario's mean)"
mhz=$(query 'mktxp_system_cpu_frequency{routerboard_name="arm64-a"}' | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["value"][1])')
[ "$mhz" = 1700 ] || fail "mktxp_system_cpu_frequency of arm64-a is $mhz, want 1700"
ok "cpu load 25% and 1700 MHz, as the scenario says"

peers=$(query 'count(mktxp_peer_rx_total{routerboard_name="arm64-a"})' | $PY -c 'import json,sys; r=json.load(sys.stdin); print(r[0]["value"][1] if r else 0)')
want=$(query 'count(wgwatch_wireguard_peer_receive_bytes_total{router="arm64-a"})' | $PY -c 'import json,sys; r=json.load(sys.stdin); print(r[0]["value"][1] if r else 0)')
[ "$peers" = "$want" ] && [ "$peers" -gt 0 ] || fail "mktxp_peer_rx_total: $peers series of arm64-a, wgwatch has $want"
ok "one mktxp_peer_rx_total per peer of arm64-a ($peers)"

# The sim's links never went down: 0, but there, as wgwatch's.
zero() { [ "$(query "$1" | $PY -c 'import json,sys; r=json.load(sys.stdin); print(len(r), r[0]["value"][1] if r else "")')" = "1 0" ]; }
wait_until 30 zero 'mktxp_link_downs_total{routerboard_name="arm64-a",name="wg0",site="lab",role="hub"}' ||
	fail "mktxp_link_downs_total of arm64-a wg0: $(query 'mktxp_link_downs_total{routerboard_name="arm64-a"}')"
zero 'wgwatch_interface_link_downs_total{router="arm64-a",interface="wg0"}' || fail "wgwatch's link downs of wg0 are not 0"
ok "mktxp_link_downs_total of wg0 is there, 0 as wgwatch's"
check_log_clean
