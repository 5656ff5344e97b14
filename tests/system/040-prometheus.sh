#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 040-prometheus: a real Prometheus server scrapes wgwatchd's /metrics, and PromQL returns the
# per-core series of the simulated routers: 9 cores for the tile router, its pinned core at 1.
. "$top_srcdir/tests/system/lib.sh"

command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"
start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
start_daemon

start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: wgwatch
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
YML

query() {   # query PROMQL: the JSON result list
	curl -fsS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		$PY -c 'import json,sys; d=json.load(sys.stdin); assert d["status"]=="success"; print(json.dumps(d["data"]["result"]))'
}
count_is() { [ "$(query "$1" | $PY -c 'import json,sys; print(len(json.load(sys.stdin)))')" = "$2" ]; }

wait_until 60 count_is 'wgwatch_cpu_core_load_ratio{router="tile-a"}' 9 ||
	fail "Prometheus does not have 9 core series for tile-a: $(query 'wgwatch_cpu_core_load_ratio{router="tile-a"}')"
ok "PromQL returns 9 per-core series for tile-a"

busiest=$(query 'max by (router) (wgwatch_cpu_core_load_ratio{router="tile-a"})' |
	$PY -c 'import json,sys; print(json.load(sys.stdin)[0]["value"][1])')
[ "$busiest" = 1 ] || fail "busiest core of tile-a is $busiest, want 1"
pinned=$(query 'wgwatch_cpu_core_load_ratio{router="tile-a"} == 1' |
	$PY -c 'import json,sys; print(",".join(r["metric"]["core"] for r in json.load(sys.stdin)))')
[ "$pinned" = 3 ] || fail "pinned core is [$pinned], want 3"
ok "the pinned core (3) stands out in PromQL"

count_is 'up{job="wgwatch"} == 1' 1 || fail "Prometheus does not see the target up"
count_is 'wgwatch_router_up == 0' 2 || fail "want 2 routers down in PromQL: $(query 'wgwatch_router_up')"
ok "target up; 2 simulated routers down"
