# SPDX-License-Identifier: Apache-2.0
# lib.sh: shared helpers for the system tests. Each test sources this, gets a private temp dir,
# starts its own wgwatch-sim / wgwatchd / prometheus on free loopback ports, and everything it
# started is stopped by pid on exit. Nothing here talks to anything but 127.0.0.0/8.
set -eu

: "${top_builddir:?run through make check (top_builddir unset)}"
: "${top_srcdir:?run through make check (top_srcdir unset)}"
SIM="$top_builddir/wgwatch-sim"
# Debian's python3 (a pyenv shim earlier in PATH costs seconds a call).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
DAEMON="$top_builddir/wgwatchd"
# Read polls through wgwatch-sql's store_polls: sqlite3 misses the hours the maintenance chunked.
WSQL="$top_builddir/wgwatch-sql"
TEST_NAME=$(basename "$0" .sh)
T=$(mktemp -d "${TMPDIR:-/tmp}/wgwatch-$TEST_NAME.XXXXXX")
PIDS=""

cleanup() {
	rc=$?
	if [ "$rc" -eq 0 ] && [ -n "${DAEMON_PID:-}" ]; then (lint_metrics) || rc=1; fi
	for pid in $PIDS; do kill "$pid" 2>/dev/null || true; done
	for pid in $PIDS; do wait "$pid" 2>/dev/null || true; done
	if [ "$rc" -ne 0 ] && [ -z "${KEEP_TMP:-}" ]; then
		for f in "$T"/*.log; do
			[ -f "$f" ] || continue
			echo "---- $f (last 30 lines)"; tail -n 30 "$f"
		done
	fi
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$T"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

fail() { echo "FAIL: $TEST_NAME: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

# A TCP port nobody listens on now, chosen by the kernel.
free_port() {
	$PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# A /24 of loopback addresses for this test's simulated routers, unlikely to collide with a
# test running in parallel: 127.<100..249>.<0..255>.1
sim_base() {
	$PY -c 'import random; print("127.%d.%d.1" % (random.randint(100,249), random.randint(0,255)))'
}

# start_snmpd < CONFIG: Debian's snmpd with only the snmpd.conf lines read from stdin (-C), no
# MIB files and its state in the temp dir, on a free UDP port of a fresh loopback address; sets
# SNMP_ADDR and SNMP_PORT. SNMPD is the binary (set by the caller when it checked for it).
start_snmpd() {
	SNMP_ADDR=$(sim_base)
	SNMP_PORT=$($PY -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	mkdir -p "$T/snmp"
	cat >"$T/snmpd.conf"
	SNMP_PERSISTENT_DIR="$T/snmp" MIBS= MIBDIRS="$T/snmp" "${SNMPD:-/usr/sbin/snmpd}" -f \
		-Lf "$T/snmpd.log" -C -c "$T/snmpd.conf" -p "$T/snmpd.pid" "udp:$SNMP_ADDR:$SNMP_PORT" &
	PIDS="$PIDS $!"
}

# start_snmpsim SNMPREC COMMUNITY: snmpsim's snmpsimd serving the recording SNMPREC under
# COMMUNITY on a free UDP port of a fresh loopback address, its data and cache in the temp dir
# (as root it drops to nobody, who must reach its data and write its cache); sets SNMP_ADDR
# and SNMP_PORT.
start_snmpsim() {
	chmod 711 "$T"
	mkdir -p "$T/snmpsim/data" "$T/snmpsim/cache"
	cp "$1" "$T/snmpsim/data/$2.snmprec"
	chmod 755 "$T/snmpsim" "$T/snmpsim/data"
	chmod 644 "$T/snmpsim/data/$2.snmprec"
	chmod 777 "$T/snmpsim/cache"
	SNMP_ADDR=$(sim_base)
	SNMP_PORT=$($PY -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	as_root=""
	[ "$(id -u)" -eq 0 ] && as_root="--process-user=nobody --process-group=nogroup"
	# shellcheck disable=SC2086
	snmpsimd --data-dir="$T/snmpsim/data" --cache-dir="$T/snmpsim/cache" $as_root \
		--agent-udpv4-endpoint="$SNMP_ADDR:$SNMP_PORT" --logging-method=file:"$T/snmpsim.log" \
		>/dev/null 2>&1 &
	PIDS="$PIDS $!"
	wait_until 30 grep -q "Listening at UDP/IPv4 endpoint" "$T/snmpsim.log" || fail "snmpsimd did not start"
}

# start_prometheus < CONFIG: a real Prometheus with the prometheus.yml read from stdin, its TSDB
# in the temp dir, on a free loopback port; sets PROM_PORT.
start_prometheus() {
	PROM_PORT=$(free_port)
	cat >"$T/prometheus.yml"
	prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn 2>"$T/prometheus.log" &
	PIDS="$PIDS $!"
}

# wait_gaps SECONDS MIN WHERE: waits until the database holds at least MIN gaps between a
# router's consecutive polls among the polls p (of routers r) that WHERE selects: the store
# commits what gathered every few seconds (STORE_GATHER_MS), after /metrics counts a poll. Sets
# GAPS_N and GAPS_MAX (ms); 1 if MIN never came.
wait_gaps() {
	gaps_limit=$1 gaps_min=$2 gaps_where=$3
	gaps_end=$(( $(date +%s) + gaps_limit ))
	while :; do
		gaps=$("$WSQL" "$T/wgwatch.db" "SELECT count(*), coalesce(max(g), 0) FROM (SELECT
			p.time_ms - lag(p.time_ms) OVER (PARTITION BY p.router_id ORDER BY p.time_ms) AS g
			FROM store_polls p JOIN routers r ON r.id = p.router_id WHERE $gaps_where) WHERE g IS NOT NULL")
		GAPS_N=${gaps%%|*} GAPS_MAX=${gaps#*|}
		[ "$GAPS_N" -ge "$gaps_min" ] && return 0
		[ "$(date +%s)" -lt "$gaps_end" ] || return 1
		sleep 0.2
	done
}

# wait_until SECONDS COMMAND...: poll a condition (not a fixed sleep) until true or timeout.
wait_until() {
	limit=$1; shift
	end=$(( $(date +%s) + limit ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# start_sim SCENARIO [extra sim options]: serves the scenario; sets SIM_PORT, SIM_BASE and
# writes the routers' config fragment to $T/routers.conf.
start_sim() {
	scenario=$1; shift
	SIM_PORT=$(free_port)
	SIM_BASE=$(sim_base)
	"$SIM" -a "$SIM_BASE" -p "$SIM_PORT" -c "$T/routers.conf" -r "$T/sim.ready" "$@" "$scenario" \
		2>"$T/sim.log" &
	SIM_PID=$!
	PIDS="$PIDS $SIM_PID"
	wait_until 30 test -e "$T/sim.ready" || fail "wgwatch-sim did not become ready"
}

# write_conf [interval] [timeout] [extra daemon lines...]: $T/wgwatch.conf including routers.conf.
write_conf() {
	HTTP_PORT=$(free_port)
	{
		echo "[daemon]"
		echo "listen = 127.0.0.1:$HTTP_PORT"
		echo "database = wgwatch.db"
		echo "interval = ${1:-2s}"
		echo "timeout = ${2:-1500ms}"
		shift 2 2>/dev/null || shift $#
		for line in "$@"; do echo "$line"; done
		echo "include = routers.conf"
	} >"$T/wgwatch.conf"
}

# start_daemon [options]: runs wgwatchd on $T/wgwatch.conf, waits until /healthz answers 200.
start_daemon() {
	"$DAEMON" -c "$T/wgwatch.conf" -v "$@" 2>>"$T/daemon.log" &
	DAEMON_PID=$!
	PIDS="$PIDS $DAEMON_PID"
	wait_until 20 curl -fsS "http://127.0.0.1:$HTTP_PORT/healthz" || fail "wgwatchd /healthz never answered"
}

# lint_metrics: the daemon's /metrics must pass `promtool check metrics` (issue 41: every
# scenario's page, whatever it holds by then); once per test, from stop_daemon while the daemon
# runs. A test with web authentication sets METRICS_AUTH to curl's -u argument.
lint_metrics() {
	[ -z "${METRICS_LINTED:-}" ] && kill -0 "$DAEMON_PID" 2>/dev/null || return 0
	METRICS_LINTED=1
	code=$(curl -s --max-time 10 ${METRICS_AUTH:+-u "$METRICS_AUTH"} -o "$T/lint-metrics.txt" -w '%{http_code}' \
		"http://127.0.0.1:$HTTP_PORT/metrics") || return 0   # no answer: the test's own business
	[ "$code" = 200 ] || fail "GET /metrics for promtool: HTTP $code (METRICS_AUTH for a test with a password)"
	promtool check metrics <"$T/lint-metrics.txt" >"$T/lint-metrics.log" 2>&1 ||
		fail "promtool check metrics: $(head -5 "$T/lint-metrics.log")"
}

stop_daemon() {
	lint_metrics
	kill "${1:--TERM}" "$DAEMON_PID" 2>/dev/null || true
	wait "$DAEMON_PID" 2>/dev/null || true
}

http_get() { curl -fsS --max-time 10 "http://127.0.0.1:$HTTP_PORT$1"; }

# sim_get ROUTER_ADDR PATH: what the simulated router serves, read with the scenario's credentials.
sim_get() {
	curl -fsS --max-time 5 -u "$SIM_USER:$SIM_PASSWORD" "http://$1:$SIM_PORT$2"
}

# Router names, addresses and credentials from the config fragment the sim wrote.
routers_conf_value() {   # routers_conf_value ROUTER KEY
	awk -v r="[router $1]" -v k="$2" '
		$0 == r { inr = 1; next } /^\[/ { inr = 0 }
		inr { split($0, kv, "="); key = kv[1]; gsub(/[ \t]/, "", key)
		      if (key == k) { v = substr($0, index($0, "=") + 1); sub(/^[ \t]+/, "", v); print v; exit } }
	' "$T/routers.conf"
}
router_addr() { routers_conf_value "$1" rest | sed -e 's|^https\?://||' -e 's|:.*||'; }

# final_count: how many verdicts /api/v1/regressions says are final (the reply is left in
# $T/reg.json); wait_final SECONDS N: wait until at least N are, or fail showing the reply.
final_count() {
	http_get /api/v1/regressions >"$T/reg.json" &&
		$PY -c 'import json,sys; print(sum(v["final"] for v in json.load(open(sys.argv[1]))))' "$T/reg.json"
}
wait_final() {
	FINAL_WANT=$2
	final_enough() { [ "$(final_count)" -ge "$FINAL_WANT" ]; }
	wait_until "$1" final_enough || { cat "$T/reg.json"; fail "verdicts not final in time ($(final_count) of $2)"; }
}

# start_alertmanager YML: Debian's prometheus-alertmanager with config file YML on a free loopback
# port ($AM_PORT), its data in $T/am, stopped with the test; waits until it is ready.
start_alertmanager() {
	AM=$(command -v prometheus-alertmanager) ||
		fail "prometheus-alertmanager not installed (apt-get install prometheus-alertmanager)"
	AM_PORT=$(free_port)
	"$AM" --config.file="$1" --storage.path="$T/am" --web.listen-address="127.0.0.1:$AM_PORT" \
		--cluster.listen-address= --log.level=warn 2>"$T/alertmanager.log" &
	PIDS="$PIDS $!"
	wait_until 30 curl -fsS "http://127.0.0.1:$AM_PORT/-/ready" || fail "Alertmanager never became ready"
}

# am_count ALERTNAME [label=value...]: how many active alerts Alertmanager lists with those
# labels (its reply is left in $T/am.json); am_is N ALERTNAME [label=value...]: exactly N.
# wgwatchd's push and Prometheus's rule carry the same labels: Alertmanager merges them.
am_count() {
	curl -fsS --max-time 5 "http://127.0.0.1:$AM_PORT/api/v2/alerts" >"$T/am.json" &&
	$PY - "$T/am.json" "$@" <<'PY'
import json, sys
alerts, name = json.load(open(sys.argv[1])), sys.argv[2]
want = dict(kv.split("=", 1) for kv in sys.argv[3:])
want["alertname"] = name
print(sum(1 for a in alerts if a["status"]["state"] == "active"
          and all(a["labels"].get(k) == v for k, v in want.items())))
PY
}
am_is() { n_want=$1; shift; [ "$(am_count "$@")" = "$n_want" ]; }
now_s() { $PY -c 'import time; print(time.time())'; }

# No line in the daemon log may be an unexpected error (pass a regex of allowed ones).
check_log_clean() {
	allowed=${1:-'^$'}
	if grep -E '^<3>' "$T/daemon.log" | grep -vE "$allowed" | grep -q .; then
		grep -E '^<3>' "$T/daemon.log" | grep -vE "$allowed" | head -5 >&2
		fail "unexpected error lines in the daemon log"
	fi
}

# ---- headless Chromium, for the browser tests (090, 091, 092) ----

# need_chromium: sets CHROME, or skips the test (exit 77) when Debian's chromium is missing.
need_chromium() {
	CHROME=$(command -v chromium || command -v chromium-browser || true)
	if [ -z "$CHROME" ]; then
		echo "SKIP: chromium is not installed (Debian package chromium)"
		exit 77
	fi
}

# chrome ARGS...: one headless run with a fresh profile under $T; console messages on stderr.
chrome() {
	rm -rf "$T/profile"
	timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/profile" --enable-logging=stderr --v=0 "$@"
}

# dump URL OUT: the DOM after scripts ran; fails on any console error or CSP refusal.
dump() {
	chrome --virtual-time-budget=3000 --dump-dom "$1" >"$2" 2>"$2.err" || fail "chromium --dump-dom $1"
	if grep -E 'CONSOLE|Refused to|Uncaught' "$2.err" | grep -q .; then
		grep -E 'CONSOLE|Refused to|Uncaught' "$2.err" | head -5 >&2
		fail "console errors on $1"
	fi
}

# shot URL NAME [WIDTH,HEIGHT]: a PNG of the page into $T and $top_builddir/screenshots.
shot() {
	chrome --window-size="${3:-1400,2400}" --hide-scrollbars --screenshot="$T/$2.png" "$1" \
		>/dev/null 2>"$T/$2.shot.err" || fail "chromium --screenshot $1"
	[ -s "$T/$2.png" ] || fail "no screenshot of $1"
	mkdir -p "$top_builddir/screenshots"
	cp "$T/$2.png" "$top_builddir/screenshots/$2.png"
}
