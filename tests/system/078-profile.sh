#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 078-profile: wgwatchd profiles a router whose core saturates (POST /rest/tool/profile to
# wgwatch-sim, which holds the reply for the profile's 5 s and runs one user's requests one at a
# time, as RouterOS does). The profile is stored and served by /api/v1/routers/NAME/profiles and
# wgwatch_profile_usage_ratio; the polls of every 1 s go on while it runs (diag_user: a
# connection and a user of its own), none late. A router that refuses the profiler (the user's
# policy; an old RouterOS without it) or the probe (device-mode) is logged once and keeps being
# polled; a router whose profile would hold up its polls (no diag_user,
# 1 s interval) is not profiled; a router that never saturates is not profiled. A router upgraded
# meanwhile is profiled again after 3 polls of the new version, and its page shows what moved on
# the pinned core (networking up, encrypting held). The detector reads the profiles: twin's
# tunnel core, pinned beside a pinned firewall core, comes from its profile (a saturation-ceiling
# regression), and fwgrow's firewall rule grown on the tunnel's core is a confounder.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
SC="$top_srcdir/tests/system/profile.scenario"

start_sim "$SC"
DIAG_USER=$(sed -n 's/^diag_user = //p' "$SC")
printf '%s\n' "$(sed -n 's/^diag_password = //p' "$SC")" >"$T/diag.pass"
chmod 600 "$T/diag.pass"
cat >>"$T/routers.conf" <<EOF2

[defaults]
profile_duration = 5s
profile_every = 2s
EOF2
# hot and refuser get the diagnostic user; cool has it too but never saturates. The router
# sections come first in routers.conf, so the keys go in through sed after each header.
for r in hot refuser cool upg twin fwgrow old devmode; do
	sed -i "/^\[router $r\]\$/a diag_user = $DIAG_USER\ndiag_password_file = $T/diag.pass" "$T/routers.conf"
done
sed -i "/^\[router upg\]\$/a profile_every = 1h" "$T/routers.conf" # one profile per side
sed -i "/^\[router devmode\]\$/a probe = 10.64.0.2\nprobe_rate = 300M\nprobe_duration = 3s\nprobe_every = 1h" "$T/routers.conf"
printf '\n[router hot-sameuser]\nrest = %s\nuser = %s\npassword = %s\n' "$(routers_conf_value hot rest)" \
	"$(routers_conf_value hot user)" "$(routers_conf_value hot password)" >>"$T/routers.conf"
write_conf 1s 900ms "[detector]" "before = 14s" "after = 10s" "min_samples = 3" "every = 1s"
start_daemon

profiles() { http_get "/api/v1/routers/$1/profiles" >"$T/prof-$1.json" && [ "$(cat "$T/prof-$1.json")" != "[]" ]; }
wait_until 25 profiles hot || fail "no profile of hot: $(cat "$T/prof-hot.json"); $(grep diag "$T/daemon.log")"
ok "hot saturated for 3 polls: a profile is stored and served"

# The profile: what the sim's model says of hot's cores (cpu0 97 %, split 60/10/30 over its work).
$PY - "$T/prof-hot.json" <<'PY' || fail "the profile is not the sim's (above)"
import json, sys
p = json.load(open(sys.argv[1]))
assert isinstance(p, list) and len(p) >= 1, p
rows = p[0]["rows"]
assert p[0]["time"].endswith("Z"), p[0]
by = {(r["cpu"], r["name"]): r["usage"] for r in rows}
assert all(isinstance(r["cpu"], int) for r in rows), rows
assert abs(by[(0, "total")] - 97) < 1.5, by
assert abs(by[(1, "total")] - 20) < 1.5, by
assert by[(0, "networking")] > by[(0, "firewall")] > by[(0, "encrypting")] > 0, by
PY
http_get /metrics >"$T/metrics.txt"
v=$($EXPO "$T/metrics.txt" wgwatch_profile_usage_ratio router=hot core=0 name=total)
$PY -c "import sys; sys.exit(not abs(float('$v') - 0.97) < 0.015)" ||
	fail "wgwatch_profile_usage_ratio{router=hot,core=0,name=total} is '$v', want 0.97"
ok "the API and wgwatch_profile_usage_ratio show it: cpu0 total $v"

# The polls of hot while the 5 s profile was outstanding: from the database, every poll's time.
# Through wgwatch-sql's store_polls (sqlite3 misses the hours the maintenance chunked): its
# -list rows, split on '|'.
sleep_until_stored() { $PY - "$T/wgwatch.db" "$T/prof-hot.json" "$WSQL" <<'PY'
import json, subprocess, sys, datetime
p = json.load(open(sys.argv[2]))[-1]  # the first profile taken
end = int(datetime.datetime.strptime(p["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
out = subprocess.run([sys.argv[3], sys.argv[1], "SELECT p.time_ms FROM store_polls p JOIN routers r ON r.id = p.router_id"
                      " WHERE r.name = 'hot' AND p.time_ms > %d ORDER BY p.time_ms" % (end - 5000)],
                     check=True, capture_output=True, text=True).stdout
t = [int(r) for r in out.splitlines()]
sys.exit(0 if t and t[-1] > end + 1000 else 1)
PY
}
wait_until 20 sleep_until_stored || fail "hot's polls after the profile never reached the database"
$PY - "$T/wgwatch.db" "$T/prof-hot.json" "$WSQL" <<'PY' || fail "hot's polls were held up by its profile (above)"
import json, subprocess, sys, datetime
p = json.load(open(sys.argv[2]))[-1]
end = int(datetime.datetime.strptime(p["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp() * 1000) + 999
start = end - 999 - 5000  # the profile ran for 5 s before the second it ended in
out = subprocess.run([sys.argv[3], sys.argv[1], "SELECT p.time_ms, p.duration_ms, p.err FROM store_polls p JOIN routers r"
                      " ON r.id = p.router_id WHERE r.name = 'hot' AND p.time_ms BETWEEN %d AND %d ORDER BY p.time_ms"
                      % (start, end)], check=True, capture_output=True, text=True).stdout
# NULL and '' alike come back empty; an err of 0 as "0".
rows = [(int(a), int(b) if b else None, c if c not in ("", "0") else None)
        for a, b, c in (line.split("|", 2) for line in out.splitlines())]
times = [r[0] for r in rows]
gaps = [b - a for a, b in zip(times, times[1:])]
print("polls of hot during the profile: %d, gaps %s ms, durations %s ms" % (len(rows), gaps, [r[1] for r in rows]))
assert len(rows) >= 5, rows
assert max(gaps) < 1500, gaps
assert max(r[1] for r in rows) < 500, rows
assert all(r[2] is None for r in rows), rows
PY
late=$($EXPO "$T/metrics.txt" wgwatch_polls_late_total)
[ "${late%.*}" = 0 ] || fail "wgwatch_polls_late_total is $late"
ok "hot's polls went on every 1 s during its 5 s profile, none late"

# refuser: the sim answers 500 not enough permissions (the policy refusal); one log line, however often it is asked.
wait_until 15 grep -q 'diag: router refuser: refused a profile' "$T/daemon.log" ||
	fail "refuser's refusal never logged: $(grep diag "$T/daemon.log")"
p0=$($EXPO "$T/metrics.txt" wgwatch_polls_total router=refuser)
polls_grew() { http_get /metrics >"$T/m2.txt" && [ "$($EXPO "$T/m2.txt" wgwatch_polls_total router=refuser | cut -d. -f1)" -ge $(( ${p0%.*} + 4 )) ]; }
wait_until 20 polls_grew || fail "refuser's polls stopped after the refusal"
[ "$($EXPO "$T/m2.txt" wgwatch_router_up router=refuser)" = 1 ] || fail "refuser is not up"
n=$(grep -c 'diag: router refuser:' "$T/daemon.log")
[ "$n" = 1 ] || fail "refuser's refusal logged $n times: $(grep 'router refuser' "$T/daemon.log")"
grep 'diag: router refuser' "$T/daemon.log" | grep -q 'HTTP 500 Internal Server Error: not enough permissions' || fail "the log line lacks the router's reason"
ok "refuser: refused, logged once ($(grep -o 'HTTP 500[^;]*' "$T/daemon.log" | head -1)), polled on"

# old (no /tool/profile) and devmode (bandwidth-test off in device-mode): the same, once each.
for x in "old:refused a profile: POST /rest/tool/profile: HTTP 400 Bad Request: no such command" \
	"devmode:refused a probe: POST /rest/tool/bandwidth-test: HTTP 400 Bad Request: not allowed by device-mode"; do
	r=${x%%:*} want=${x#*:}
	wait_until 15 grep -qF "diag: router $r: $want" "$T/daemon.log" ||
		fail "$r's refusal not logged as '$want': $(grep "router $r" "$T/daemon.log")"
done
http_get /metrics >"$T/m3.txt"
p1=$($EXPO "$T/m3.txt" wgwatch_polls_total router=old)
grown() { http_get /metrics >"$T/m4.txt" && [ "$($EXPO "$T/m4.txt" wgwatch_polls_total router=old | cut -d. -f1)" -ge $(( ${p1%.*} + 4 )) ]; }
wait_until 20 grown || fail "old's polls stopped after the refusal"
for r in old devmode; do
	[ "$(grep -c "diag: router $r:" "$T/daemon.log")" = 1 ] || fail "$r's refusal logged more than once: $(grep "router $r" "$T/daemon.log")"
	[ "$($EXPO "$T/m4.txt" wgwatch_router_up router=$r)" = 1 ] || fail "$r is not up"
done
ok "old: /tool/profile refused (no such command), devmode: bandwidth-test refused (device-mode); each logged once, polled on"

# hot-sameuser (no diag_user, 1 s polls) cannot be profiled without holding its polls up; cool
# never saturates.
grep -q 'diag: router hot-sameuser: .*set diag_user' "$T/daemon.log" || fail "hot-sameuser not told about"
[ "$(http_get /api/v1/routers/hot-sameuser/profiles)" = "[]" ] || fail "hot-sameuser was profiled"
[ "$(http_get /api/v1/routers/cool/profiles)" = "[]" ] || fail "cool was profiled"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/api/v1/routers/nosuch/profiles")
[ "$code" = 404 ] || fail "an unknown router's profiles: HTTP $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$HTTP_PORT/api/v1/routers/hot/probe")
[ "$code" = 403 ] || fail "a probe on demand without [web] authentication: HTTP $code, want 403"
grep -q 'diag-secret' "$T/daemon.log" "$T/metrics.txt" "$T/prof-hot.json" && fail "the diag password leaked"
ok "no profile under the poll's user at 1 s polls, none of a cool router; no secret leaked"

# upg: a profile while saturated on 7.21.5, and one after the upgrade at 12 s (3 polls of 7.22.3).
two() { http_get /api/v1/routers/upg/profiles >"$T/prof-upg.json" &&
	$PY -c 'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))) < 2)' "$T/prof-upg.json"; }
wait_until 25 two || fail "upg has no profile after its upgrade: $(cat "$T/prof-upg.json")"
http_get /router/upg >"$T/upg.html" || fail "no router page of upg"
want=$($PY - "$T/prof-upg.json" <<'PY'
import json, sys
after, before = json.load(open(sys.argv[1]))[:2]
u = lambda p, n: next((r["usage"] for r in p["rows"] if r["cpu"] == 0 and r["name"] == n), 0)
assert u(after, "networking") > 1.8 * u(before, "networking"), (before, after)
assert abs(u(after, "encrypting") - u(before, "encrypting")) < 2, (before, after)
print("networking %.0f %% \u2192 %.0f %% on cpu0" % (u(before, "networking"), u(after, "networking")))
PY
) || fail "upg's profiles do not show networking rising while encrypting holds"
grep -qF "7.21.5 &rarr; 7.22.3" "$T/upg.html" 2>/dev/null || grep -q "7.21.5.*7.22.3" "$T/upg.html" ||
	fail "upg's page has no upgrade"
grep -F "$want" "$T/upg.html" | grep -q encrypting ||
	fail "upg's page lacks '$want, encrypting ...': $(grep -o '<section id="profiles">.*</section>' "$T/upg.html")"
ok "upg's page: $(grep -o 'networking [0-9]* % → [^<]*' "$T/upg.html" | head -1)"
# twin and fwgrow, upgraded at 14 s: their final verdicts of wg0 tx (docs/detector.md, "CPU profiles").
judged() { http_get /api/v1/regressions >"$T/reg.json" && $PY - "$T/reg.json" <<'PY'
import json, sys
v = {x["router"]: x for x in json.load(open(sys.argv[1]))
     if x["router"] in ("twin", "fwgrow") and x["interface"] == "wg0" and x["direction"] == "tx"}
sys.exit(not (len(v) == 2 and all(x["final"] for x in v.values())))
PY
}
wait_until 40 judged || fail "twin and fwgrow not judged: $(cat "$T/reg.json")"
$PY - "$T/reg.json" <<'PY' || fail "twin's and fwgrow's verdicts (above)"
import json, re, sys
v = {x["router"]: x for x in json.load(open(sys.argv[1]))
     if x["router"] in ("twin", "fwgrow") and x["interface"] == "wg0" and x["direction"] == "tx"}
t, f = v["twin"], v["fwgrow"]
print("twin: %s %s ratio %.2f cores %s: %s; confounders %s" % (t["verdict"], t["method"], t["ratio"], t["cores"], t["why"], t["confounders"]))
print("fwgrow: %s %s ratio %.2f cores %s; confounders %s" % (f["verdict"], f["method"], f["ratio"], f["cores"], f["confounders"]))
assert t["verdict"] == "regression" and t["method"] == "saturation-ceiling" and t["cores"] == "3", t
assert abs(t["ratio"] - 98 / 0.78 / (98 / 0.26)) < 0.05, t
assert t["why"].startswith("core 3 from the CPU profile before the upgrade (tunnel path"), t
assert not any("from the profiles" in c for c in t["confounders"]), t
assert f["verdict"] == "regression" and f["cores"] == "3", f
assert any(re.fullmatch(r"cpu3 other work \d+ % → \d+ % \(firewall \d+ % → \d+ %\), from the profiles", c)
           for c in f["confounders"]), f
PY
ok "twin: core 3 from its profile, a saturation-ceiling regression; fwgrow: the profiles' confounder"
check_log_clean
ok "the daemon log has no error"

# A restart: the newest profile is on /metrics at once, from the database, not after profile_every.
stop_daemon
start_daemon
http_get /metrics >"$T/metrics-restart.txt"
v=$($EXPO "$T/metrics-restart.txt" wgwatch_profile_usage_ratio router=upg core=0 name=networking)
[ -n "$v" ] || fail "after a restart upg's newest profile is not on /metrics"
ok "after a restart /metrics has upg's newest profile at once (cpu0 networking $v)"
