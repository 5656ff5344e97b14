#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 095-grafana: web/grafana/wgwatch.json against Grafana's own dashboard schema, and every query
# of it against a real Prometheus scraping wgwatchd on a demo-like fleet (grafana.scenario).
# No Grafana server can be had from Debian or npm; the schema comes from the npm package
# @grafana/schema (the TypeScript that Grafana generates from its CUE kinds), fetched once into
# a cache outside the tree, and Debian's tsc checks the dashboard, each panel's options and
# field config against its panel plugin's schema (tests/system/grafana.py ts), and must refuse a
# broken copy. Every metric name in the PromQL must be on /metrics, and every expression of
# every panel, annotation and variable (variables at All, top 10) must return data; the site
# variable and the panels must narrow by a site label of the operator's own name (site_label).
. "$top_srcdir/tests/system/lib.sh"
DASH="$top_srcdir/web/grafana/wgwatch.json"
CHECK="$PY $top_srcdir/tests/system/grafana.py"
SCHEMA_VERSION=13.2.3

command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"
command -v tsc >/dev/null || fail "tsc not installed (apt-get install node-typescript)"
command -v npm >/dev/null || fail "npm not installed (apt-get install npm)"

# The fleet runs while the schema is checked: the upgrades are at 12 s.
start_sim "$top_srcdir/tests/system/grafana.scenario"
write_conf 250ms 200ms "[detector]" "before = 10s" "after = 8s" "min_samples = 20" "every = 1s"
start_daemon
start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: wgwatch
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
YML

# --- Grafana's dashboard schema ---------------------------------------------------------------
CACHE="${XDG_CACHE_HOME:-${HOME:-$T}/.cache}/wgwatch-tests/grafana-schema-$SCHEMA_VERSION"
if [ ! -f "$CACHE/package/dist/types/index.d.ts" ]; then
	mkdir -p "$(dirname "$CACHE")"
	tmp=$(mktemp -d "$CACHE.XXXXXX")
	(cd "$tmp" && npm pack --silent "@grafana/schema@$SCHEMA_VERSION" && tar xzf "grafana-schema-$SCHEMA_VERSION.tgz") \
		>"$T/npm.log" 2>&1 || { rm -rf "$tmp"; fail "npm pack @grafana/schema@$SCHEMA_VERSION: $(tail -3 "$T/npm.log")"; }
	mv -T "$tmp" "$CACHE" 2>/dev/null || rm -rf "$tmp"   # another run may have won the race
fi
types="$CACHE/package/dist/types"
# One tsc run types the dashboard and broken copies of it, each its own module: the dashboard must
# pass, and each copy must fail, on a key Grafana does not know, an enum value it lacks, a wrong
# type. $T/tsc.out has tsc's errors, each line led by its file.
mkdir -p "$T/ts"
$CHECK ts "$DASH" >"$T/ts/dashboard.ts" || fail "grafana.py ts $DASH"
files='"dashboard.ts"' i=0
for bad in 's/"gridPos"/"gridpos"/' 's/"graphTooltip": 1/"graphTooltip": 3/' \
	's/"showValue": "never"/"showValue": "sometimes"/' 's/"cellGap": 1/"cellGap": "1"/'; do
	i=$((i + 1))
	sed "$bad" "$DASH" >"$T/bad$i.json"
	! cmp -s "$DASH" "$T/bad$i.json" || fail "$bad changes nothing"
	$CHECK ts "$T/bad$i.json" >"$T/ts/bad$i.ts" || fail "grafana.py ts $T/bad$i.json"
	echo "$bad" >"$T/bad$i.sed"
	files="$files, \"bad$i.ts\""
done
cat >"$T/ts/tsconfig.json" <<JSON
{ "compilerOptions": { "strict": true, "noEmit": true, "skipLibCheck": true, "target": "es2020",
    "moduleResolution": "node", "baseUrl": ".",
    "paths": { "@grafana/schema": ["$types/index.d.ts"], "@grafana/schema/*": ["$types/*"] } },
  "files": [$files] }
JSON
(cd "$T/ts" && tsc -p .) >"$T/tsc.out" 2>&1 || true
! grep -q '^dashboard.ts(' "$T/tsc.out" || { grep -A1 '^dashboard.ts(' "$T/tsc.out" | head -20; fail "the dashboard does not fit Grafana's schema"; }
npanels=$(grep -c '^export const options_' "$T/ts/dashboard.ts")
[ "$npanels" -ge 40 ] || fail "only $npanels panels typed"
ok "the dashboard fits @grafana/schema $SCHEMA_VERSION: dashboard, variables, annotations, $npanels panels' options"
for f in "$T"/bad*.sed; do
	n=$(basename "$f" .sed)
	grep -q "^$n.ts(.*error TS" "$T/tsc.out" || fail "the schema check accepts $(cat "$f"): $(head -3 "$T/tsc.out")"
done
ok "the schema check refuses an unknown key, an enum value Grafana lacks and a wrong type"

# --- metric names -----------------------------------------------------------------------------
polled() {
	http_get /metrics >"$T/metrics.txt" && grep -q '^wgwatch_cpu_core_load_ratio{router="frankfurt-ccr2116"' "$T/metrics.txt"
}
wait_until 20 polled || fail "no per-core series on /metrics"
$CHECK check "$DASH" "$T/metrics.txt" >"$T/check.out" 2>&1 || { cat "$T/check.out"; fail "dashboard check"; }
cat "$T/check.out"
ok "every metric name in the dashboard's PromQL is on /metrics"

# The check must fail on a name the daemon does not emit, in a panel and in an annotation.
sed 's/wgwatch_router_uptime_seconds{/wgwatch_router_uptime_secs{/' "$DASH" >"$T/bad.json"
! $CHECK check "$T/bad.json" "$T/metrics.txt" >"$T/bad.out" 2>&1 || fail "the check accepted a wrong name"
grep -q "panel 'Fleet' target H: wgwatch_router_uptime_secs" "$T/bad.out" || { cat "$T/bad.out"; fail "wrong name not named"; }
grep -q "annotation 'Reboots': wgwatch_router_uptime_secs" "$T/bad.out" || { cat "$T/bad.out"; fail "annotation not checked"; }
ok "the check names a metric the daemon does not emit"

# --- every query has data ---------------------------------------------------------------------
# query PROMQL: Prometheus's result as JSON lines of labels; fails on any error (syntax included).
query() {
	curl -sS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		$PY -c 'import json,sys
d=json.load(sys.stdin); assert d["status"]=="success", d
for r in d["data"]["result"]: print(json.dumps(r["metric"], sort_keys=True))'
}
nresults() { query "$1" | wc -l; }
$CHECK exprs "$DASH" >"$T/exprs.txt" || fail "exprs"
n=$(wc -l <"$T/exprs.txt")
[ "$n" -ge 65 ] || fail "only $n expressions"
# all_data: every expression returns a series; the empty ones in $T/empty.txt.
all_data() {
	: >"$T/empty.txt"
	while IFS= read -r e; do
		r=$(nresults "$e") || fail "Prometheus rejects: $e"
		[ "$r" -gt 0 ] || echo "$e" >>"$T/empty.txt"
	done <"$T/exprs.txt"
	[ ! -s "$T/empty.txt" ]
}
t0=$(date +%s)
wait_until 45 all_data ||
	{ cat "$T/empty.txt"; fail "$(wc -l <"$T/empty.txt") of $n expressions return nothing after 45 s"; }
ok "all $n expressions (panels, annotations, variables) return data ($(($(date +%s) - t0)) s of waiting)"

# What they return is the fleet's: the regression, the upgrades, the reboots, the cores, the sites.
# panel_query FIXED-STRING NAME [EXPRS]: the routers that the dashboard's expression containing
# FIXED-STRING (in EXPRS, $T/exprs.txt unless given) returns, one a line, in $T/NAME.txt.
panel_query() {
	e=$(grep -F "$1" "${3:-$T/exprs.txt}")
	[ "$(echo "$e" | wc -l)" = 1 ] || fail "not one expression with $1: $e"
	query "$e" | $PY -c 'import json,sys
for l in sys.stdin: print(json.loads(l).get("router", "-"))' | sort -u >"$T/$2.txt"
}
routers() { tr '\n' ' ' <"$T/$1.txt" | sed 's/ $//'; }
panel_query 'and on (router, interface, direction) (wgwatch_upgrade_regression' regressions
[ "$(routers regressions)" = ljubljana-ccr1009 ] || fail "Regressions over time: $(routers regressions)"
panel_query 'resets(wgwatch_router_uptime_seconds' reboots
[ "$(routers reboots)" = "chr-01 chr-02 ljubljana-ccr1009" ] || fail "Reboots: $(routers reboots)"
panel_query 'last_over_time(wgwatch_router_info' versions
[ "$(routers versions)" = "chr-01 chr-02 ljubljana-ccr1009" ] || fail "version changes: $(routers versions)"
ALL='job=~".*",instance=~".*",router=~".*"'
[ "$(nresults "wgwatch_cpu_core_load_ratio{$ALL}")" = 33 ] || fail "per-core: not 9 + 4 + 4 + 16 cores"
panel_query 'rate(wgwatch_poll_errors_total' errors
grep -qx broken "$T/errors.txt" || fail "Failed polls: no broken: $(routers errors)"
ok "on the panels: the regression (ljubljana-ccr1009 alone), 3 upgrades (reboots, versions), 33 cores, broken's failed polls"

# The new rows show the fleet's: fans and PSUs of the one router that has them, both cohorts.
panel_query 'wgwatch_health_fan_speed_rpm' fans
[ "$(routers fans)" = frankfurt-ccr2116 ] || fail "Fan speed: $(routers fans)"
panel_query 'min by (router, sensor) (wgwatch_health_state_ok' psus
[ "$(routers psus)" = frankfurt-ccr2116 ] || fail "PSU and fan states: $(routers psus)"
cohorts=$(query "$(grep -F 'count by (from_version, to_version, architecture, board) (max by (router' "$T/exprs.txt")" |
	$PY -c 'import json,sys
print(" ".join(sorted("%s>%s/%s" % (m["from_version"], m["to_version"], m["architecture"]) for m in map(json.loads, sys.stdin))))')
[ "$cohorts" = "7.21.5>7.22.3/tile 7.21.5>7.22.3/x86_64" ] || fail "Cohorts table: $cohorts"
cap=$(curl -sS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" \
	--data-urlencode "query=$(grep -F 'wgwatch_capacity_bytes_per_second' "$T/exprs.txt")" | $PY -c 'import json,sys
print(" ".join("%s %s %.0f" % (r["metric"]["router"], r["metric"]["direction"], float(r["value"][1]) / 1e6)
               for r in json.load(sys.stdin)["data"]["result"]))')
case "$cap" in "frankfurt-ccr2116 tx 15"[4-9]?) ;; *) fail "Capacity now: not frankfurt's tx at ~1568 Mbit/s: $cap" ;; esac
ok "on the new rows: frankfurt-ccr2116's fans and PSUs and its capacity ($cap Mbit/s), the two cohorts of the upgrade"

# The variables narrow by job and by the site: a config label whose name the variable site_label
# holds, site by default, or the operator's own (grafana.scenario's routers have role too).
# var_values NAME [VAR=VALUE...]: the values Prometheus's label API offers for the dashboard's
# variable NAME (label_values(SELECTOR, LABEL), the other variables at VAR=VALUE), space-separated.
var_values() {
	vname=$1; shift
	line=$($CHECK vars "$DASH" "$@" | grep "^$vname ") || fail "no variable $vname"
	vlabel=$(echo "$line" | cut -d' ' -f2) vsel=$(echo "$line" | cut -d' ' -f3-)
	curl -sS --max-time 5 -G "http://127.0.0.1:$PROM_PORT/api/v1/label/$vlabel/values" \
		--data-urlencode "match[]=$vsel" | $PY -c 'import json,sys
d=json.load(sys.stdin); assert d["status"]=="success", d; print(" ".join(sorted(d["data"])))'
}
[ "$(var_values site)" = "frankfurt ljubljana" ] || fail "site offers $(var_values site)"
[ "$(var_values router site=ljubljana)" = "chr-01 chr-02 ljubljana-ccr1009" ] ||
	fail "router at site ljubljana offers $(var_values router site=ljubljana)"
[ "$(var_values router site=frankfurt)" = frankfurt-ccr2116 ] ||
	fail "router at site frankfurt (broken never answered) offers $(var_values router site=frankfurt)"
[ -z "$(var_values router job=nojob)" ] || fail "the job variable does not narrow"
[ "$(var_values site site_label=role)" = "edge hub" ] ||
	fail "with site_label=role, site offers $(var_values site site_label=role)"
[ "$(var_values router site_label=role site=hub)" = "frankfurt-ccr2116 ljubljana-ccr1009" ] ||
	fail "with site_label=role, router at hub offers $(var_values router site_label=role site=hub)"
ok "the job, instance and site variables narrow the routers, the site by site or by role (site_label)"

# With Router at All, a panel still narrows to the site chosen, under either label name.
$CHECK exprs "$DASH" site=ljubljana >"$T/exprs-lj.txt"
$CHECK exprs "$DASH" site_label=role site=edge >"$T/exprs-edge.txt"
panel_query 'topk(10, max by (router) (wgwatch_cpu_core_load_ratio' busiest-lj "$T/exprs-lj.txt"
[ "$(routers busiest-lj)" = "chr-01 chr-02 ljubljana-ccr1009" ] || fail "Busiest core at ljubljana: $(routers busiest-lj)"
panel_query 'topk(10, max by (router) (wgwatch_cpu_core_load_ratio' busiest-edge "$T/exprs-edge.txt"
[ "$(routers busiest-edge)" = "chr-01 chr-02" ] || fail "Busiest core at role edge: $(routers busiest-edge)"
panel_query 'wgwatch_health_temperature_celsius' temp-edge "$T/exprs-edge.txt"
[ ! -s "$T/temp-edge.txt" ] || fail "Temperature at role edge (CHRs have no sensors): $(routers temp-edge)"
ok "with Router at All the panels keep to the site: busiest cores at ljubljana and at role edge, no sensors at edge"
check_log_clean
