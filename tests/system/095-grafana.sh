#!/bin/sh
# 095-grafana: web/grafana/wgwatch.json is well-formed, every metric name in its PromQL is in a
# real /metrics of wgwatchd polling the sim (tests/system/grafana.py, which must also catch a
# name that is not), and every expression evaluates in a real Prometheus scraping that daemon,
# the fleet-table, throughput and per-core queries with data.
. "$top_srcdir/tests/system/lib.sh"
DASH="$top_srcdir/web/grafana/wgwatch.json"
CHECK="$PY $top_srcdir/tests/system/grafana.py"

command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"
start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
start_daemon

polled() { http_get /metrics >"$T/metrics.txt" && grep -q '^wgwatch_cpu_core_load_ratio{router="tile-a"' "$T/metrics.txt"; }
wait_until 20 polled || fail "no per-core series on /metrics"
$CHECK check "$DASH" "$T/metrics.txt" >"$T/check.out" 2>&1 || { cat "$T/check.out"; fail "dashboard check"; }
cat "$T/check.out"
ok "the dashboard is well-formed; every metric name in its PromQL is on /metrics"

# The check must fail on a name the daemon does not emit, in a panel and in an annotation.
sed 's/wgwatch_router_uptime_seconds{/wgwatch_router_uptime_secs{/' "$DASH" >"$T/bad.json"
! $CHECK check "$T/bad.json" "$T/metrics.txt" >"$T/bad.out" 2>&1 || fail "the check accepted a wrong name"
grep -q "panel 'Fleet' target H: wgwatch_router_uptime_secs" "$T/bad.out" || { cat "$T/bad.out"; fail "wrong name not named"; }
grep -q "annotation 'Reboots': wgwatch_router_uptime_secs" "$T/bad.out" || { cat "$T/bad.out"; fail "annotation not checked"; }
ok "the check names a metric the daemon does not emit"

start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: wgwatch
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
YML

# nresults PROMQL: how many series Prometheus returns; fails on any error (syntax included).
nresults() {
	curl -sS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		$PY -c 'import json,sys; d=json.load(sys.stdin); assert d["status"]=="success", d; print(len(d["data"]["result"]))'
}
tx_ready() { [ "$(nresults 'sum by (router) (rate(wgwatch_interface_transmit_bytes_total{type="wg"}[1m]))')" -ge 3 ]; }
wait_until 60 tx_ready || fail "Prometheus has no WireGuard rates after 60 s"

$CHECK exprs "$DASH" >"$T/exprs.txt" || fail "exprs"
n=0
while IFS= read -r e; do
	r=$(nresults "$e") || fail "Prometheus rejects: $e"
	echo "$r $e" >>"$T/results.txt"
	n=$((n + 1))
done <"$T/exprs.txt"
[ "$n" -ge 20 ] || fail "only $n expressions"
need() {   # need MIN PREFIX: the expressions starting with PREFIX return at least MIN series
	found=0
	while read -r r e; do
		case "$e" in "$2"*) ;; *) continue ;; esac
		[ "$r" -ge "$1" ] || fail "$r series (want $1 or more): $e"
		found=1
	done <"$T/results.txt"
	[ "$found" = 1 ] || fail "no expression starts with $2"
}
ALL='job=~".*",instance=~".*",router=~".*"'
need 3 "wgwatch_router_info{$ALL}"
need 3 'topk(10, max by (router) (wgwatch_cpu_core_load_ratio'
need 17 "wgwatch_cpu_core_load_ratio{$ALL}"
need 3 'topk(10, sum by (router, interface) (rate(wgwatch_interface_transmit_bytes_total'
need 3 'topk(10, sum by (router, interface) (rate(wgwatch_interface_receive_bytes_total'
need 1 'histogram_quantile(0.95'
need 1 'wgwatch_router_info{job=~".*",instance=~".*",site=~".*"}'
ok "Prometheus evaluates all $n expressions; fleet, per-core and throughput queries have data"

# The variables narrow by job and site: the scrape job's name, and a site label of the config.
[ "$(nresults 'wgwatch_router_info{job=~"wgwatch",site=~"lab"}')" -ge 1 ] || fail "no router of job wgwatch at site lab"
[ "$(nresults 'wgwatch_router_info{job=~"nojob"}')" = 0 ] || fail "the job variable does not narrow"
ok "the job, instance and site variables narrow the routers"
check_log_clean
