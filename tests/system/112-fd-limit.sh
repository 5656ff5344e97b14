#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 112-fd-limit: 200 simulated routers and wgwatchd under an open-files limit of 64, soft equal
# to hard (prlimit), so that it cannot be raised. The start says the limit is too low, with the
# numbers; the routers that find no descriptor are down with "out of file descriptors" (in the
# API and once each in the log, however often they are polled), never "Couldn't connect to
# server"; those that found one are up; /healthz and /metrics answer, several at once, because
# the last descriptors are kept from the routers (lib/fdreserve.h).
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
command -v prlimit >/dev/null || { echo "SKIP: prlimit (util-linux) is not installed"; exit 77; }

cat >"$T/fleet.scenario" <<'SCEN'
[global]
user = wgwatch
password = fd-secret
seed = 3

[group hub]
count = 200
board = CCR2004-16G-2S+
architecture = arm64
cores = 4
wg = wg0:2
SCEN
start_sim "$T/fleet.scenario"
write_conf 1s 800ms
prlimit --nofile=64:64 "$DAEMON" -c "$T/wgwatch.conf" -v 2>>"$T/daemon.log" &
DAEMON_PID=$!
PIDS="$PIDS $DAEMON_PID"
wait_until 20 curl -fsS "http://127.0.0.1:$HTTP_PORT/healthz" || fail "wgwatchd /healthz never answered"

grep -qF 'open-files limit 64 (hard limit 64) is too low for 200 routers, which need about 264 descriptors' \
	"$T/daemon.log" || fail "no warning at start that the open-files limit is too low"
ok "the start warns that the limit (soft = hard = 64) is too low for 200 routers"

scrape() { http_get /metrics >"$T/metrics.txt"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
# Every router polled, and those down failed at least 3 times: "once" means more than one poll.
failed_thrice() {
	scrape && [ "$(val wgwatch_poll_errors_total router=hub-200 kind=internal | cut -d. -f1)" -ge 3 ]
}
wait_until 60 failed_thrice || fail "hub-200 did not fail 3 polls as out of descriptors"

http_get /api/v1/routers >"$T/routers.json" || fail "/api/v1/routers"
$PY - "$T/routers.json" <<'PYEOF' || fail "the API does not say why the routers are down"
import json, sys
routers = json.load(open(sys.argv[1]))
down = [r for r in routers if not r["up"]]
up = [r for r in routers if r["up"]]
assert len(routers) == 200, len(routers)
assert up, "no router found a descriptor"
assert len(down) >= 100, "only %d down" % len(down)
bad = [r["name"] for r in down if "out of file descriptors" not in (r["last_error"] or "")]
assert not bad, "down for another reason: %s" % bad[:5]
print("ok: %d routers up, %d down with 'out of file descriptors'" % (len(up), len(down)))
PYEOF

! grep -q "Couldn't connect to server" "$T/daemon.log" || fail "a router is said not to connect"
grep ': down: internal: .*out of file descriptors' "$T/daemon.log" | sed 's/.*router \([^:]*\):.*/\1/' |
	sort | uniq -d >"$T/twice"
[ ! -s "$T/twice" ] || fail "logged down more than once: $(head -3 "$T/twice")"
[ "$(grep -c 'router hub-200: down: internal: .*out of file descriptors' "$T/daemon.log")" = 1 ] ||
	fail "hub-200's reason not logged once"
ok "each router down logs 'out of file descriptors' once, after 3 failed polls; none 'Couldn't connect'"

for i in 1 2 3 4 5 6 7 8; do
	curl -fsS --max-time 5 -o "$T/healthz.$i" "http://127.0.0.1:$HTTP_PORT/healthz" &
	HZ="${HZ:-} $!"
done
for pid in $HZ; do wait "$pid" || fail "a /healthz of eight at once did not answer"; done
http_get /metrics >/dev/null || fail "/metrics does not answer"
http_get /router/hub-200 | grep -qF 'out of file descriptors' || fail "the router page does not say why"
ok "/healthz (eight at once), /metrics and a router page answer at the limit"
check_log_clean
