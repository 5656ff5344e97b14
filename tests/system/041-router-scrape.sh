#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 041-router-scrape: a real Prometheus finds one target per router through http_sd_configs on
# /api/v1/targets and scrapes each as /metrics?router=NAME: every router gets its own `up`, its
# series carry its labels, and the daemon's own families stay on plain /metrics. Also:
# `wgwatchd --targets` prints the same targets, an unknown router is a 404, ?routers=no gives the
# daemon's own families alone (a job of their own) and with ?router=NAME a 400, and
# peer_metrics = no ([defaults] here, yes again for one router) drops the per-peer series, and
# a reload that removes a router removes its target.
. "$top_srcdir/tests/system/lib.sh"

command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"
start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
printf '[defaults]\npeer_metrics = no\n' >>"$T/wgwatch.conf"
sed -i 's/^\[router arm64-a\]$/&\npeer_metrics = yes/' "$T/routers.conf"
start_daemon
ROUTERS="arm64-a arm64-b auth-fail garbage tile-a"

# ---- the targets, over HTTP and from the command line ----
http_get /api/v1/targets >"$T/targets.json" || fail "GET /api/v1/targets failed"
"$DAEMON" -c "$T/wgwatch.conf" --targets >"$T/targets-cli.json" || fail "wgwatchd --targets failed"
$PY - "$T/targets.json" "$T/targets-cli.json" "127.0.0.1:$HTTP_PORT" "$ROUTERS" <<'PY' || fail "targets JSON is wrong: $(cat "$T/targets.json")"
import json, sys
http, cli = (json.load(open(f)) for f in sys.argv[1:3])
assert http == cli, (http, cli)
want = sorted(sys.argv[4].split())
assert sorted(t["labels"]["__param_router"] for t in http) == want
for t in http:
    l = t["labels"]
    assert t["targets"] == [sys.argv[3]], t
    assert l["__metrics_path__"] == "/metrics" and l["router"] == l["__param_router"], t
    assert l["site"] == "lab", t
    assert "__scheme__" not in l, t
a = [t for t in http if t["labels"]["router"] == "arm64-a"][0]["labels"]
assert a["role"] == "hub", a
PY
ok "/api/v1/targets and --targets: one http_sd target per router with its labels"

# ---- the per-router exposition ----
wait_until 20 sh -c "curl -fsS 'http://127.0.0.1:$HTTP_PORT/metrics?router=tile-a' | grep -q '^wgwatch_router_up{router=\"tile-a\",site=\"lab\",role=\"hub\"} 1'" ||
	fail "tile-a's scrape has no wgwatch_router_up 1: $(http_get '/metrics?router=tile-a' | head -20)"
http_get '/metrics?router=tile-a' >"$T/tile.txt"
grep -v '^#' "$T/tile.txt" | grep -v 'router="tile-a"' && fail "tile-a's scrape holds another router's series"
grep -Eq '^(wgwatch_build_info|process_|wgwatch_store_|wgwatch_poll_duration|wgwatch_shard_info)' "$T/tile.txt" &&
	fail "the daemon's own families leak into a router's scrape"
grep -q '^wgwatch_cpu_core_load_ratio{router="tile-a",core="3",site="lab",role="hub"} 1$' "$T/tile.txt" ||
	fail "tile-a's pinned core missing from its scrape"
http_get /metrics | grep -q '^wgwatch_build_info{' || fail "plain /metrics lost wgwatch_build_info"
http_get '/metrics?routers=no' >"$T/self.txt"
grep -q '^wgwatch_build_info{' "$T/self.txt" && ! grep -q 'router=' "$T/self.txt" ||
	fail "/metrics?routers=no is not the daemon's families alone: $(grep router= "$T/self.txt" | head -3)"
code=$(curl -sS -o "$T/404.txt" -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/metrics?router=nope")
[ "$code" = 404 ] && grep -q "no router of that name" "$T/404.txt" || fail "unknown router: $code $(cat "$T/404.txt")"
code=$(curl -sS -o "$T/400.txt" -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/metrics?routers=no&router=tile-a")
[ "$code" = 400 ] && grep -q "exclude each other" "$T/400.txt" || fail "?routers=no&router=: $code $(cat "$T/400.txt")"
ok "/metrics?router=NAME: that router's series only; unknown name 404; with ?routers=no 400"

# ---- peer_metrics ----
has_peers() { http_get "/metrics?router=$1" | grep -q "^wgwatch_wireguard_peer_receive_bytes_total{router=\"$1\""; }
wait_until 10 has_peers arm64-a || fail "arm64-a (peer_metrics = yes) has no peer series"
has_ifaces() { http_get "/metrics?router=$1" | grep -q "^wgwatch_interface_receive_bytes_total{router=\"$1\""; }
wait_until 10 has_ifaces arm64-b || fail "arm64-b (peer_metrics = no) lost its interface series"
http_get /metrics | grep -q '^wgwatch_wireguard_peer_[a-z_]*{router="arm64-b"' &&
	fail "arm64-b has peer series with peer_metrics = no in [defaults]"
ok "peer_metrics = no drops the peer series, yes keeps them"

# ---- a real Prometheus, targets from http_sd ----
start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: wgwatch
    params: { routers: ['no'] }
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
  - job_name: wgwatch-routers
    honor_labels: true
    http_sd_configs: [{ url: 'http://127.0.0.1:$HTTP_PORT/api/v1/targets', refresh_interval: 1s }]
YML
query() {
	curl -fsS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		$PY -c 'import json,sys; d=json.load(sys.stdin); assert d["status"]=="success"; print(json.dumps(d["data"]["result"]))'
}
routers_of() { query "$1" | $PY -c 'import json,sys; print(" ".join(sorted(r["metric"].get("router","-") for r in json.load(sys.stdin))))'; }
all_up() { [ "$(routers_of 'up{job="wgwatch-routers"} == 1')" = "$ROUTERS" ]; }
wait_until 25 all_up || fail "Prometheus does not scrape 5 router targets up: $(query 'up')"
ok "Prometheus discovered and scraped 5 targets, one up per router"

both_ways() { [ "$(routers_of 'wgwatch_router_up')" = "$ROUTERS" ]; }
wait_until 5 both_ways || fail "wgwatch_router_up per router: $(query 'wgwatch_router_up')"
[ "$(routers_of 'wgwatch_router_up == 0')" = "auth-fail garbage" ] || fail "down routers: $(query 'wgwatch_router_up')"
[ "$(query 'count({exported_router!=""} or {exported_site!=""})')" = "[]" ] ||
	fail "series with exported_* labels: $(query 'count by (__name__) ({exported_router!=""})')"
[ "$(query 'count(wgwatch_cpu_core_load_ratio{router="tile-a",site="lab",role="hub"})' |
	$PY -c 'import json,sys; print(json.load(sys.stdin)[0]["value"][1])')" = 9 ] ||
	fail "tile-a's core series in Prometheus: $(query 'wgwatch_cpu_core_load_ratio{router="tile-a"}')"
[ "$(query 'count(wgwatch_build_info{job="wgwatch-routers"})')" = "[]" ] ||
	fail "a router target exported wgwatch_build_info"
self_ok() { [ "$(routers_of 'wgwatch_build_info{job="wgwatch"}')" = "-" ]; }
wait_until 10 self_ok || fail "the daemon job has no wgwatch_build_info: $(query "{job=\"wgwatch\"}" | head -c 600)"
[ "$(query 'count(wgwatch_router_up{job="wgwatch"})')" = "[]" ] || fail "the daemon job carries router series"
ok "series carry their router's labels, no exported_*; the daemon's families on job wgwatch only"

# ---- the targets follow a reload ----
awk '/^\[router /{ skip = ($0 == "[router garbage]") } !skip' "$T/routers.conf" >"$T/r.tmp" &&
	mv "$T/r.tmp" "$T/routers.conf"
kill -HUP "$DAEMON_PID"
four() { [ "$(http_get /api/v1/targets | $PY -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 4 ]; }
wait_until 10 four || fail "after a reload without garbage: $(http_get /api/v1/targets)"
code=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/metrics?router=garbage")
[ "$code" = 404 ] || fail "a removed router's scrape answers $code"
ok "a reload removes the router's target and its scrape"
check_log_clean
