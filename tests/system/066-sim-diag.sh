#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 066-sim-diag: the real wgwatch-sim's diagnostic commands (docs/sim.md "Diagnostics") over HTTP
# on tests/system/diag.scenario: a 3 s /tool/profile answers after 3 s with every frame and
# the pinned core's shares, while the same user's GET waits for it and the other user's is
# answered at once; a 300 Mbit/s bandwidth-test delivers 300 on 7.21.5 and ~139 on 7.22.3; a
# wrong test-server password, an unreachable server and the three refusals fail as RouterOS does.
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/diag.scenario" -v
HUB=$(router_addr hub)
POLL=wgwatch:poll DIAG=wgdiag:diag

# post USER:PASS ROUTER COMMAND BODY > FILE: the reply, then a line "STATUS SECONDS".
post() {
	curl -sS --max-time 70 -u "$1" -H 'Content-Type: application/json' -d "$4" \
		-w '\n%{http_code} %{time_total}\n' "http://$(router_addr "$2"):$SIM_PORT/rest/tool/$3"
}
get_time() { curl -fsS -o /dev/null --max-time 70 -u "$1" -w '%{time_total}' "http://$HUB:$SIM_PORT/rest/system/resource"; }
# check FILE PYTHON: runs PYTHON with r = the JSON reply, code and secs from FILE.
check() {
	$PY - "$1" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().rstrip("\n").split("\n")
code, secs = lines[-1].split()
code, secs = int(code), float(secs)
r = json.loads("\n".join(lines[:-1]))
exec(sys.argv[2])
PY
}
# usage R SECTION CPU NAME: the usage of that profile row ("" for a cpuN row's absent cpu).
ROWS='def usage(r, sec, cpu, name):
    m = [x["usage"] for x in r if x[".section"] == sec and x.get("cpu", "") == cpu and x["name"] == name]
    return m[0] if m else None
'

# ---- 7.21.5: a profile held 3 s; the same user waits, the other does not ----
post "$DIAG" hub profile '{"cpu":"all","duration":"3s"}' >"$T/prof1" &
PROF=$!
wait_until 5 grep -q 'POST /rest/tool/profile -> 200 (held)' "$T/sim.log" || fail "the profile was not held"
other=$(get_time "$POLL")
same=$(get_time "$DIAG")
wait $PROF
$PY -c "import sys; o, s = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (o < 0.5 and s > 1.5))" "$other" "$same" ||
	fail "during the profile the other user's GET took ${other}s (want < 0.5), the same user's ${same}s (want > 1.5)"
ok "during a 3 s profile: the other user's GET ${other}s, the same user's ${same}s (it waited)"
check "$T/prof1" "$ROWS"'
assert code == 200 and 2.9 <= secs < 4.5, (code, secs)
assert {x[".section"] for x in r} == {"0", "1", "2"}, r
assert [x["name"] for x in r if x[".section"] in ("0", "1")] == ["total", "total"], r
assert usage(r, "2", "3", "networking") == "38" and usage(r, "2", "3", "encrypting") == "9", r
assert usage(r, "2", "", "cpu3") == "100", r
assert all(x.get("cpu", "") in [str(c) for c in range(9)] or x["name"].startswith("cpu") for x in r if x[".section"] == "2"), r
' || fail "7.21.5 profile: $(cat "$T/prof1")"
ok "7.21.5 profile: 3 frames after ~3 s, the first two total only; core 3 at 100: networking 38, encrypting 9"

# ---- 7.21.5: the probe (the other user), while the test's own failures run ----
post "$DIAG" hub bandwidth-test '{"address":"172.17.1.1","duration":"2s","user":"bt","password":"wrong"}' >"$T/auth" &
AUTH=$!
post "$POLL" hub bandwidth-test '{"address":"172.17.1.1","protocol":"udp","direction":"transmit","local-tx-speed":"300M","duration":"2s","user":"bt","password":"bt-secret"}' >"$T/bt1"
wait $AUTH
check "$T/bt1" '
assert code == 200 and 1.9 <= secs < 3.5, (code, secs)
assert [x["status"] for x in r] == ["connecting", "running", "done testing"], r
assert r[-1]["tx-total-average"] == "300000000" and r[-1]["duration"] == "2s", r[-1]
' || fail "7.21.5 bandwidth-test: $(cat "$T/bt1")"
ok "7.21.5 bandwidth-test 300M transmit: done testing, 300 Mbit/s delivered"

# ---- failures of the test itself, and the refusals ----
post "$POLL" hub bandwidth-test '{"address":"192.0.2.1","duration":"2s"}' >"$T/unreach"
check "$T/auth" 'assert code == 200 and r[-1]["status"] == "authentication failed", r' || fail "wrong password: $(cat "$T/auth")"
check "$T/unreach" 'assert code == 200 and r[-1]["status"] == "can not connect", r' || fail "unreachable: $(cat "$T/unreach")"
ok "a wrong test-server password: authentication failed; no route to the server: can not connect"
PROF3='{"cpu":"all","duration":"1s"}'
post "$DIAG" no-policy profile "$PROF3" >"$T/r1"
check "$T/r1" 'assert code == 500 and r["detail"] == "not enough permissions (9)", r' || fail "no policy: $(cat "$T/r1")"
post "$DIAG" old bandwidth-test '{"address":"172.17.1.1"}' >"$T/r2"
check "$T/r2" 'assert code == 400 and r["detail"] == "no such command or directory (bandwidth-test)", r' || fail "old: $(cat "$T/r2")"
post "$DIAG" restricted bandwidth-test '{"address":"172.17.1.1"}' >"$T/r3"
check "$T/r3" 'assert code == 400 and r["detail"] == "not allowed by device-mode", r' || fail "device-mode: $(cat "$T/r3")"
post "$DIAG" restricted profile "$PROF3" >"$T/r4"
check "$T/r4" 'assert code == 200 and any(x["name"] == "cpu0" for x in r), r' || fail "device-mode profile: $(cat "$T/r4")"
code=$(curl -sS -o /dev/null -w '%{http_code}' -u "$DIAG" -d "$PROF3" "http://$HUB:$SIM_PORT/rest/tool/profile")
[ "$code" = 415 ] || fail "a body without Content-Type: application/json got $code, want 415"
ok "refusals: no policy 500, old 400 no such command, device-mode 400 (bandwidth-test only); no JSON type 415"

# ---- 7.22.3 (at 12 s): networking takes the core, the probe falls to ~139 ----
on_7223() { curl -fsS -u "$POLL" "http://$HUB:$SIM_PORT/rest/system/resource?.proplist=version" | grep -q 7.22.3; }
wait_until 20 on_7223 || fail "the hub never ran 7.22.3"
post "$DIAG" hub profile '{"cpu":"3","duration":"3s"}' >"$T/prof2" &
PROF=$!
post "$POLL" hub bandwidth-test '{"address":"172.17.1.1","protocol":"udp","direction":"transmit","local-tx-speed":"300M","duration":"3s","user":"bt","password":"bt-secret"}' >"$T/bt2"
wait $PROF
check "$T/prof2" "$ROWS"'
assert code == 200, code
assert usage(r, "2", "3", "networking") == "90.5" and usage(r, "2", "3", "encrypting") == "9.5", r
' || fail "7.22.3 profile: $(cat "$T/prof2")"
check "$T/bt2" '
last = r[-1]
assert code == 200 and last["status"] == "done testing" and last["duration"] == "3s", last
assert 130e6 <= int(last["tx-total-average"]) <= 145e6, last
' || fail "7.22.3 bandwidth-test: $(cat "$T/bt2")"
ok "7.22.3: core 3 networking 90.5, encrypting 9.5; the 300M probe delivers $(sed -n 's/.*"tx-total-average":"\([0-9]*\)"}]$/\1/p' "$T/bt2") bit/s"
