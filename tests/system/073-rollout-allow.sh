#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 073-rollout-allow: the rollout guard's stored overrides and its alert, on the canary wave at
# half the time (tests/system/rollout-fast.scenario) with web authentication on. A real
# Prometheus evaluates the shipped WgwatchRolloutHold (its for: shortened) against the daemon's
# /metrics: it fires for the held tile cohort and not for x86_64, which goes. POST
# /api/v1/rollout/allow then stores an override with who and when: the API, --rollout-check and
# the upgrades page show it, tile goes and the alert ends; it survives a restart; DELETE
# revokes it and tile holds again. Refusals: no password 401, not JSON 415, a bad body 400.
# With check_updates the page lists the version routers are offered, with its decision, and
# /system/package/update is read once per router, not every poll.
. "$top_srcdir/tests/system/lib.sh"

command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"
start_sim "$top_srcdir/tests/system/rollout-fast.scenario" -v
PW="wg-$(od -An -tx1 -N9 /dev/urandom | tr -d ' \n')"
METRICS_AUTH="admin:$PW"
printf '%s\n' "$PW" >"$T/web.pass"
chmod 600 "$T/web.pass"
write_conf 150ms 140ms "[detector]" "before = 6s" "after = 6s" "min_samples = 30" "every = 1s" \
	"hold = 1s" "[rollout]" "go_min = 2" "[web]" "user = admin" "password_file = web.pass" \
	"[defaults]" "check_updates = yes"
start_daemon
A="-u admin:$PW"
B="http://127.0.0.1:$HTTP_PORT"
aget() { curl -fsS --max-time 10 $A "$B$1"; }
# post [curl options]: POST (or -X DELETE) to /api/v1/rollout/allow; the status echoed, the
# body in $T/post.json.
post() { curl -sS --max-time 10 -o "$T/post.json" -w '%{http_code}' "$@" "$B/api/v1/rollout/allow"; }
json() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }

cp "$top_srcdir/web/prometheus/wgwatch-rules.yml" "$T/"
sed -i '/alert: WgwatchRolloutHold/,/for:/ s/for: 1m/for: 2s/' "$T/wgwatch-rules.yml"
grep -q 'for: 2s' "$T/wgwatch-rules.yml" || fail "the rollout rule has no for: 1m to shorten"
printf '%s' "$PW" >"$T/prom.pass"
start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: ['$T/wgwatch-rules.yml']
scrape_configs:
  - job_name: wgwatch
    basic_auth: { username: admin, password_file: '$T/prom.pass' }
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
YML
# alerts: Prometheus's WgwatchRolloutHold alerts as "STATE ARCH BOARD" lines, sorted.
alerts() {
	curl -fsS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/alerts" >"$T/prom.json" &&
		json "$T/prom.json" 'print("\n".join(sorted("%s %s %s" % (a["state"], a["labels"]["architecture"],
			a["labels"]["board"]) for a in d["data"]["alerts"] if a["labels"]["alertname"] == "WgwatchRolloutHold")))'
}
prom_has() {   # prom_has QUERY: Prometheus's answer to QUERY has a series
	curl -fsS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		$PY -c 'import json,sys; sys.exit(not json.load(sys.stdin)["data"]["result"])'
}
firing_tile() { alerts >"$T/alerts" && grep -qx 'firing tile CCR1009-7G-1C-1S+' "$T/alerts"; }
wait_until 60 firing_tile || { cat "$T/prom.json"; fail "WgwatchRolloutHold never fired for tile"; }
wait_until 25 prom_has 'wgwatch_rollout_decision{architecture="x86_64",board="CHR",decision="go"}' ||
	fail "Prometheus never saw x86_64 go"
alerts >"$T/alerts"
[ "$(cat "$T/alerts")" = "firing tile CCR1009-7G-1C-1S+" ] || fail "alerts besides tile's: $(cat "$T/alerts")"
ok "Prometheus with the shipped rule: WgwatchRolloutHold firing for tile, none for x86_64 (go)"

# The upgrades page, per version the fleet moves to: who still waits (with the decision for
# its cohort) and who took it after its cohort held (tile-late, at 18 s).
page_ok() {
	aget /upgrades >"$T/upgrades.html" && $PY - "$T/upgrades.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
sec = h[h.index('<h3 class="moving">Moving to 7.22.3</h3>'):]
wait, desp = sec[:sec.index('class="despite"')], sec[sec.index('class="despite"'):]
row = r'<tr><td><a href="/router/%s">[^<]*</a></td>'
assert re.search(row % "tile-next" + r'<td>7.21.5</td><td>tile</td><td>CCR1009-7G-1C-1S\+</td><td><a class="rollout-hold"', wait), wait
assert re.search(row % "x86-next" + r'<td>7.21.5</td><td>x86_64</td><td>CHR</td><td><a class="rollout-go"', wait), wait
m = re.findall(row % "([^\"]+)" + r'<td>tile</td><td>CCR1009-7G-1C-1S\+</td><td>([^<]+)</td><td>([^<]+)</td>', desp)
assert [x[0] for x in m] == ["tile-late"] and m[0][1] < m[0][2], desp
assert "tile-late" not in wait and "tile-01" not in desp, sec
off = h[h.index('id="offered-table"'):h.index('</table>', h.index('id="offered-table"'))]
off_row = r'<tr><td>7.22.3</td><td><a href="/router/%s">[^<]*</a></td><td>7.21.5</td><td>New version is available</td><td><a class="rollout-%s"'
assert re.search(off_row % ("tile-next", "hold"), off) and re.search(off_row % ("x86-next", "go"), off), off
assert "/router/tile-01" not in off and off.count("<tr><td>") == 2, off
PY
}
wait_until 20 page_ok || { page_ok; fail "the upgrades page: waiting and despite-hold lists"; }
ok "/upgrades: tile-next (hold) and x86-next (go) still wait for 7.22.3 and are offered it; tile-late took it despite the hold"

# Refusals before anything is stored.
[ "$(post -d '{"version":"7.22.3","cohort":"tile"}' -H 'Content-Type: application/json')" = 401 ] ||
	fail "POST without the password: not 401"
[ "$(post $A -d '{"version":"7.22.3","cohort":"tile"}')" = 415 ] || fail "POST as a form: not 415"
[ "$(post -d '{"version":"7.22.3","cohort":"tile"}')" = 401 ] || fail "POST as a form without the password: not 401"
for bad in '{"version":"7.22.3"}' '{"version":"seven","cohort":"tile"}' '{"version":"7.22.3","cohort":"a/b"}' \
	'not json' '{"version":"7.22.3","cohort":"tile","version":"7.1"}' '{"version":"7.22.3","cohort":"ti\nle"}' \
	'{"version":"7.22.3","cohort":"tile","revoke":"yes"}'; do
	code=$(post $A -H 'Content-Type: application/json' -d "$bad")
	[ "$code" = 400 ] && grep -q '"error"' "$T/post.json" || fail "POST $bad: $code $(cat "$T/post.json")"
done
[ "$(post $A -X PUT)" = 405 ] || fail "PUT: not 405"
# A page of another site, with the browser's cached login: refused whatever it sends.
[ "$(post $A -H 'Content-Type: application/json' -H 'Origin: http://evil.example' \
	-d '{"version":"7.22.3","cohort":"tile"}')" = 403 ] && grep -q Origin "$T/post.json" ||
	fail "POST from another site's page: not 403"
[ "$(post $A -X DELETE -H 'Origin: null' -G -d version=7.22.3 -d cohort=tile)" = 403 ] ||
	fail "DELETE from an opaque origin: not 403"
[ "$(post $A -H 'Content-Type: application/json' -H 'Sec-Fetch-Site: cross-site' \
	-d '{"version":"7.22.3","cohort":"tile"}')" = 403 ] || fail "a cross-site fetch: not 403"
ok "POST refused: no password 401 (a form too), a form with it 415, six bad bodies 400, PUT 405; another site's page 403"

t0=$(date +%s)
code=$(post $A -H 'Content-Type: application/json' -H "Origin: $B" -d '{"version":"7.22.3","cohort":"tile"}')
[ "$code" = 201 ] || fail "POST allow: $code $(cat "$T/post.json")"
json "$T/post.json" "
import calendar, time
o = d['override']
assert d['changed'] and o['allow'] == '7.22.3/tile' and o['who'] == 'admin' and o['source'] == 'api', o
at = calendar.timegm(time.strptime(o['at'], '%Y-%m-%dT%H:%M:%SZ'))
assert $t0 - 1 <= at <= $t0 + 2, (o, $t0)" || fail "POST allow: $(cat "$T/post.json")"
at=$(json "$T/post.json" 'print(d["override"]["at"])')
[ "$(post $A -H 'Content-Type: application/json' -d '{"version":"7.22.3","cohort":"tile"}')" = 200 ] &&
	json "$T/post.json" 'assert not d["changed"] and d["override"]["at"] == "'"$at"'"' ||
	fail "a second POST: $(cat "$T/post.json")"
ok "POST /api/v1/rollout/allow: 201 stored by admin at $at; again: 200, unchanged"

# Shown wherever the decision is.
tile_go() {
	aget "/api/v1/rollout?version=7.22.3&architecture=tile&board=CCR1009-7G-1C-1S%2B" >"$T/r.json" &&
		json "$T/r.json" "
o = d['override']
assert d['decision'] == 'go' and o['who'] == 'admin' and o['at'] == '$at' and o['source'] == 'api', d
assert d['reasons'][0]['kind'] == 'override' and 'by admin at $at (the guard said hold)' in d['reasons'][0]['text'], d"
}
wait_until 2 tile_go || fail "the API after the POST: $(cat "$T/r.json")"
rc=0
"$DAEMON" -c "$T/wgwatch.conf" --rollout-check tile-next 7.22.3 >"$T/check.out" 2>"$T/check.err" || rc=$?
[ "$rc" = 0 ] && grep -qF "override: allow 7.22.3/tile by admin at $at (the guard said hold)" "$T/check.out" ||
	{ cat "$T/check.out" "$T/check.err"; fail "--rollout-check tile-next: exit $rc, want 0 with the override"; }
aget /upgrades >"$T/upgrades.html"
grep -q "<tr><td>7.22.3/tile</td><td>admin</td><td>$(echo "$at" | tr T ' ')</td></tr>" "$T/upgrades.html" ||
	fail "the upgrades page does not list the override with who and when"
aget /api/v1/rollout/allow >"$T/list.json"
json "$T/list.json" 'assert [o["allow"] for o in d["overrides"]] == ["7.22.3/tile"] and d["writable"], d' ||
	fail "GET /api/v1/rollout/allow: $(cat "$T/list.json")"
no_tile_alert() { alerts >"$T/alerts" && ! grep -q tile "$T/alerts"; }
wait_until 15 no_tile_alert || fail "WgwatchRolloutHold still active for tile: $(cat "$T/alerts")"
ok "the override: tile go in the API, --rollout-check (exit 0), the upgrades page; the alert ended"

stop_daemon
start_daemon
wait_until 10 tile_go || fail "after a restart: $(cat "$T/r.json")"
ok "the override survives a restart, with who and when"

[ "$(post $A -X DELETE -G -d version=7.22.3 -d cohort=tile)" = 200 ] &&
	json "$T/post.json" 'assert d["revoked"]["who"] == "admin" and d["changed"], d' ||
	fail "DELETE: $(cat "$T/post.json")"
tile_hold() {
	aget "/api/v1/rollout?version=7.22.3&architecture=tile&board=CCR1009-7G-1C-1S%2B" >"$T/r.json" &&
		json "$T/r.json" 'assert d["decision"] == "hold" and d["override"] is None, d'
}
wait_until 2 tile_hold || fail "the API after DELETE: $(cat "$T/r.json")"
[ "$(post $A -X DELETE -G -d version=7.22.3 -d cohort=tile)" = 404 ] || fail "a second DELETE: not 404"
[ "$(post $A -H 'Content-Type: application/json' -d '{"version":"7.22.3","cohort":"tile","revoke":true}')" = 404 ] ||
	fail "POST revoke of nothing: not 404"
ok "DELETE revokes it (tile holds again); revoking again: 404"

# [rollout] is read at start: a reload that changes it says so, and changes nothing yet.
printf '[rollout]\nallow = 7.22.3/tile\n' >>"$T/wgwatch.conf"
kill -HUP "$DAEMON_PID"
wait_until 10 grep -q 'reload: \[rollout\] changed: the rollout guard takes it at the next restart' "$T/daemon.log" ||
	fail "no warning that the [rollout] change waits for a restart"
tile_hold || fail "a reload changed the decision: $(cat "$T/r.json")"
asked() { grep -c "^.*router $1: GET /rest/system/package/update -> 200" "$T/sim.log" || true; }
asked3() { for r in tile-next x86-next tile-01 tile-late; do [ "$(asked $r)" -ge 3 ] || return 1; done; }
wait_until 10 asked3 || fail "after the reload the routers' handles did not read /system/package/update"
ok "a reload that adds [rollout] allow warns that it takes effect at the next restart"

stop_daemon
# check_updates: each router's /system/package/update asked once per start of its REST handle
# (two daemon starts and a reload, which attaches the handles afresh), however many polls.
for r in tile-next x86-next tile-01 tile-late; do
	n=$(asked $r)
	[ "$n" = 3 ] || fail "$r: /system/package/update asked $n times, want 3 (two starts, one reload)"
done
polls=$(grep -c "router tile-next: GET /rest/system/resource?" "$T/sim.log" || true)
ok "check_updates: /system/package/update read 3 times per router (two starts, a reload) in $polls polls"
if grep -qF "$PW" "$T/daemon.log" "$T/post.json" "$T/check.out"; then fail "the password leaked"; fi
grep -q 'rollout: admin allowed 7.22.3/tile' "$T/daemon.log" && grep -q 'rollout: admin revoked 7.22.3/tile' "$T/daemon.log" ||
	fail "the changes are not in the daemon log"
check_log_clean
ok "each change logged once, with who; no unexpected error"
