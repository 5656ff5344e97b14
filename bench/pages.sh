# SPDX-License-Identifier: Apache-2.0
# pages.sh: section 7 of bench/run (sourced by it; uses its helpers and variables): latency of
# the fleet page and of router pages for 6h, 24h, 7d and 30d on a generated 30-day database of
# 1,000 routers (bench/pages.py gen), while wgwatchd polls the same 1,000 routers from the sim
# every 60 s. Figures only; it stops only what it started, by pid.

PAGE_REQUESTS=${PAGE_REQUESTS:-200}
PAGES_PY="$HERE/pages.py"

pages_daemon() {   # pages_daemon DIR: sim (1,000 hubs) and wgwatchd on DIR/wgwatch.db
	local d=$1 port
	sed -e "s/^count = .*/count = 1000/" "$HERE/fleet.scenario" >"$d/fleet.scenario"
	port=$(free_port)
	"$B/wgwatch-sim" -q -a "$SIM_ADDR" -p "$port" -c "$d/routers.conf" -r "$d/sim.ready" \
		"$d/fleet.scenario" 2>"$d/sim.log" &
	SIM_PID=$!
	PIDS="$PIDS $SIM_PID"
	wait_for 120 test -e "$d/sim.ready" || die "pages: wgwatch-sim not ready"
	HTTP_PORT=$(free_port)
	cat >"$d/wgwatch.conf" <<-CONF
	[daemon]
	listen = 127.0.0.1:$HTTP_PORT
	database = wgwatch.db
	interval = 60s
	retention = 25h
	[detector]
	every = 1d
	include = routers.conf
	CONF
	"$B/wgwatchd" -q -c "$d/wgwatch.conf" 2>"$d/daemon.log" &
	DAEMON_PID=$!
	PIDS="$PIDS $DAEMON_PID"
	note "pages: waiting for wgwatchd (it migrates the database to the current schema first)"
	wait_for 1800 curl -fsS -o /dev/null "http://127.0.0.1:$HTTP_PORT/healthz" ||
		die "pages: wgwatchd never healthy: $(tail -3 "$d/daemon.log")"
	wait_for 900 sh -c "curl -fsS http://127.0.0.1:$HTTP_PORT/api/v1/cohorts | grep -q from" ||
		note "pages: the detector's first evaluation did not end in 15 min; measuring anyway"
}

bench_pages() {
	local d="$T/pages" db=${PAGES_DB:-$T/pages-gen.db}
	mkdir -p "$d"
	if [ ! -s "$db" ]; then
		note "pages: generating a 30-day database of 1,000 routers in $db (minutes)"
		python3 "$PAGES_PY" gen --db "$db" --src "$HERE/.." --routers 1000 >"$T/pages-gen.json"
	fi
	cp "$db" "$d/wgwatch.db"
	pages_daemon "$d"
	note "pages: $PAGE_REQUESTS GETs per page and range"
	python3 "$PAGES_PY" measure --port "$HTTP_PORT" --requests "$PAGE_REQUESTS" \
		--label "1,000 routers, 30 days, wgwatchd polling them every 60 s" \
		-o "$T/pages.json" >/dev/null
	if [ "$PERF" = 1 ] && perf stat -e cpu-clock true >/dev/null 2>&1; then
		profile "$d" 1000 "7. page requests (all ranges)" python3 "$PAGES_PY" measure \
			--port "$HTTP_PORT" --requests 30 -o "$d/perf-pages.json"
	fi
	stop_pid "$DAEMON_PID"
	stop_pid "$SIM_PID"
}
