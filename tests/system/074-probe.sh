#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 074-probe: wgwatchd probes a router's tunnel at a fixed rate (POST /rest/tool/bandwidth-test to
# wgwatch-sim, whose tunnel delivers what its CPU model allows), once its polls answer and again
# after its upgrade at 10 s makes encryption on the pinned core 3x dearer: 300 Mbit/s offered,
# about 300 delivered before and far less after. Both probes are stored, served by
# /api/v1/routers/NAME/probes and wgwatch_probe_delivered_bytes_per_second; the 1 s polls go on
# during the probes; a probe with the wrong server password is logged once, and polls go on.
# A third router is probed only on demand (POST /api/v1/routers/NAME/probe, [web] auth on),
# with probe_direction = both: two rows, each "direction" "both" and "measured" its own.
# The upgrade's report (/api/v1/upgrades/ID/report and .md, ID the upgrade_id of its verdicts)
# shows the probe pair and the profile after; the pair decides wg0 tx's verdict (method probe).
. "$top_srcdir/tests/system/lib.sh"
# [web] authentication is on (probes on demand need it): every request of the test carries it.
WEBPW=web-secret-074
METRICS_AUTH="admin:$WEBPW"
http_get() { curl -fsS --max-time 10 -u "admin:$WEBPW" "http://127.0.0.1:$HTTP_PORT$1"; }
EXPO="$PY $top_srcdir/tests/system/expo.py"
SC="$top_srcdir/tests/system/probe.scenario"

start_sim "$SC"
printf '%s\n' "$(sed -n 's/^diag_password = //p' "$SC")" >"$T/diag.pass"
printf '%s\n' "$(sed -n 's/^btest_password = //p' "$SC")" >"$T/btest.pass"
printf 'wrong\n' >"$T/wrong.pass"
printf '%s\n' "$WEBPW" >"$T/web.pass"
chmod 600 "$T/diag.pass" "$T/btest.pass" "$T/wrong.pass" "$T/web.pass"
REST=$(routers_conf_value ccr rest)
sed -i "/^\[router ccr\]\$/a probe_password_file = $T/btest.pass\nprobe_every = 1h" "$T/routers.conf"
sed -i "/^\[router lab\]\$/a probe_direction = both" "$T/routers.conf"
cat >>"$T/routers.conf" <<EOF2

[defaults]
user = $(routers_conf_value ccr user)
password = $(routers_conf_value ccr password)
diag_user = $(sed -n 's/^diag_user = //p' "$SC")
diag_password_file = $T/diag.pass
probe = 10.64.0.3
probe_rate = 300M
probe_duration = 3s
profile_duration = 3s
probe_user = btest

[router ccr-wrong]
rest = $REST
probe_password_file = $T/wrong.pass
probe_every = 1h
EOF2
write_conf 1s 900ms "[detector]" "before = 10s" "after = 8s" "min_samples = 3" "every = 1s" \
	"[web]" "user = admin" "password_file = $T/web.pass"
start_daemon

# lab has a probe server but no probe_every and no upgrade: it is probed only when asked.
post() { curl -s -o "$T/post.json" -w '%{http_code}' "$@" -X POST "http://127.0.0.1:$HTTP_PORT/api/v1/routers/$R/probe"; }
J="Content-Type: application/json"
R=lab; [ "$(post)" = 401 ] || fail "a probe on demand without credentials: HTTP $(post)"
# A page of another site cannot start real traffic with the browser's cached login: a form
# (not JSON) is 415, anything with a foreign Origin or Sec-Fetch-Site cross-site is 403.
[ "$(post -u "admin:$WEBPW")" = 415 ] || fail "a POST to probe with no content type: $(cat "$T/post.json")"
[ "$(post -u "admin:$WEBPW" -H 'Content-Type: application/x-www-form-urlencoded')" = 415 ] ||
	fail "a form POST to probe: $(cat "$T/post.json")"
[ "$(post -u "admin:$WEBPW" -H "$J" -H 'Origin: http://evil.example')" = 403 ] && grep -q Origin "$T/post.json" ||
	fail "a probe from another site's page: $(cat "$T/post.json")"
[ "$(post -u "admin:$WEBPW" -H "$J" -H 'Sec-Fetch-Site: cross-site')" = 403 ] || fail "a cross-site probe: $(cat "$T/post.json")"
R=nosuch; [ "$(post -u "admin:$WEBPW" -H "$J" -H "Origin: http://127.0.0.1:$HTTP_PORT")" = 404 ] ||
	fail "the same origin is not refused: $(cat "$T/post.json")"
R=nosuch; [ "$(post -u "admin:$WEBPW" -H "$J")" = 404 ] || fail "a probe of an unknown router: $(cat "$T/post.json")"
R=lab; [ "$(post -u "admin:$WEBPW" -H "$J")" = 202 ] || fail "a probe on demand: $(cat "$T/post.json")"
lab_probed() { http_get /api/v1/routers/lab/probes >"$T/lab.json" && [ "$(cat "$T/lab.json")" != "[]" ]; }
wait_until 30 lab_probed || fail "lab not probed on demand: $(cat "$T/lab.json")"
$PY - "$T/lab.json" <<'PY' || fail "lab's probe on demand (both): $(cat "$T/lab.json")"
import json, sys
p = json.load(open(sys.argv[1]))
assert len(p) == 2 and p[0]["time"] == p[1]["time"], p
assert [x["direction"] for x in p] == ["both", "both"], p
m = {x["measured"]: x for x in p}
assert set(m) == {"transmit", "receive"}, p
assert all(x["delivered_bps"] > 0 and x["offered_bps"] == 300e6 for x in p), p
assert m["transmit"]["lost_packets"] is None and isinstance(m["receive"]["lost_packets"], int), p
PY
http_get /metrics >"$T/metrics.txt"
for d in transmit receive; do
	[ -n "$($EXPO "$T/metrics.txt" wgwatch_probe_delivered_bytes_per_second router=lab direction=$d)" ] ||
		fail "no wgwatch_probe_delivered_bytes_per_second{router=lab,direction=$d}"
done
ok "POST /api/v1/routers/lab/probe (with credentials): 202, probed at the next poll (both: two rows, measured transmit and receive); 401 without, 404 unknown; a form 415, another site's page 403"

two() { http_get /api/v1/routers/ccr/probes >"$T/probes.json" &&
	$PY -c 'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))) < 2)' "$T/probes.json"; }
wait_until 40 two || fail "not two probes of ccr: $(cat "$T/probes.json"); $(grep diag "$T/daemon.log")"
$PY - "$T/probes.json" <<'PY' || fail "the probes are not the sim's (above)"
import json, sys
after, before = json.load(open(sys.argv[1]))[:2]
print("before %.0f, after %.0f of %.0f bit/s" % (before["delivered_bps"], after["delivered_bps"], after["offered_bps"]))
for p in (before, after):
    assert p["direction"] == "transmit" and p["offered_bps"] == 300e6, p
    assert p["lost_packets"] is None, p  # a transmit test has no loss figure at the client
    assert 0 < p["local_cpu_load"] <= 1 and 0 < p["remote_cpu_load"] <= 1, p
    assert p["busiest_core_load"] is not None and 0 <= p["busiest_core_load"] <= 1, p
assert abs(before["delivered_bps"] - 300e6) < 3e6, before
assert after["delivered_bps"] < 0.6 * before["delivered_bps"], (before, after)
PY
http_get /metrics >"$T/metrics.txt"
v=$($EXPO "$T/metrics.txt" wgwatch_probe_delivered_bytes_per_second router=ccr direction=transmit)
want=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["delivered_bps"])' "$T/probes.json")
$PY -c "import sys; sys.exit(not abs(float('$v') * 8 - $want) < 1)" ||
	fail "wgwatch_probe_delivered_bytes_per_second{router=ccr} is '$v', want $want / 8"
ok "ccr probed before and after its upgrade: $(grep -o 'probe transmit: [0-9]* of' "$T/daemon.log" | tr '\n' ' ')"

# No poll of ccr late or failed while its probes ran.
late=$($EXPO "$T/metrics.txt" wgwatch_polls_late_total)
[ "${late%.*}" = 0 ] || fail "wgwatch_polls_late_total is $late"
errs=$($EXPO "$T/metrics.txt" wgwatch_poll_errors_total router=ccr | awk '{s += $1} END {print s + 0}')
[ "$errs" = 0 ] || fail "ccr had $errs failed polls during its probes"
ok "ccr's polls went on during its probes: none late, none failed"

grep -q 'diag: router ccr-wrong: probe failed: POST /rest/tool/bandwidth-test: bandwidth-test: authentication failed' \
	"$T/daemon.log" || fail "ccr-wrong's failure not logged: $(grep ccr-wrong "$T/daemon.log")"
[ "$(grep -c 'diag: router ccr-wrong: probe' "$T/daemon.log")" = 1 ] || fail "ccr-wrong logged more than once"
[ "$($EXPO "$T/metrics.txt" wgwatch_router_up router=ccr-wrong)" = 1 ] || fail "ccr-wrong is not up"
[ "$(http_get /api/v1/routers/ccr-wrong/probes)" = "[]" ] || fail "ccr-wrong has a probe"
grep -q 'probe-secret' "$T/daemon.log" "$T/metrics.txt" "$T/probes.json" && fail "the btest password leaked"
ok "ccr-wrong: authentication failed, logged once, polled on; no secret leaked"

# The report of ccr's upgrade, found through the upgrade_id of its verdicts.
uid() { http_get /api/v1/regressions >"$T/reg.json" && $PY -c '
import json, sys
rows = json.load(open(sys.argv[1]))
assert all(isinstance(v["upgrade_id"], int) and v["upgrade_id"] > 0 for v in rows), rows
ids = {v["upgrade_id"] for v in rows if v["router"] == "ccr"}
assert len(ids) == 1
print(ids.pop())' "$T/reg.json"; }
wait_until 30 uid || fail "no verdict of ccr with an upgrade_id: $(cat "$T/reg.json")"
id=$(uid)

# The probe pair decides ccr's wg0 tx (the peer of 10.64.0.3 is on wg0): method probe.
by_probe() { http_get /api/v1/regressions >"$T/reg.json" && $PY - "$T/reg.json" <<'PY'
import json, sys
v = [v for v in json.load(open(sys.argv[1])) if v["router"] == "ccr" and v["interface"] == "wg0" and v["direction"] == "tx"]
assert len(v) == 1 and v[0]["method"] == "probe", v
assert v[0]["verdict"] == "regression" and abs(v[0]["ratio"] - 128.2 / 300) < 0.02, v
PY
}
wait_until 30 by_probe || fail "ccr wg0 tx not judged by its probe pair: $(cat "$T/reg.json")"
ok "ccr wg0 tx: regression by method probe, ratio $($PY -c 'import json,sys; print([round(v["ratio"], 3) for v in json.load(open(sys.argv[1])) if v["router"] == "ccr" and v["direction"] == "tx"][0])' "$T/reg.json")"
http_get "/api/v1/upgrades/$id/report" >"$T/report.json" || fail "no report of upgrade $id"
have_profile() { http_get "/api/v1/upgrades/$id/report" >"$T/report.json" &&
	$PY -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))["profile"]["after"])' "$T/report.json"; }
wait_until 30 have_profile || fail "the report has no profile after the upgrade: $(cat "$T/report.json")"
http_get /api/v1/regressions >"$T/reg.json"
$PY - "$T/report.json" "$T/probes.json" "$T/reg.json" <<'PY' || fail "the report is not what was measured (above)"
import json, sys
r, probes, reg = (json.load(open(a)) for a in sys.argv[1:4])
# the verdicts as /api/v1/regressions gives them: the same rows, the same names
key = lambda v: (v["interface"], v["direction"])
mine = sorted((v for v in reg if v["upgrade_id"] == r["upgrade_id"]), key=key)
assert [key(v) for v in sorted(r["verdicts"], key=key)] == [key(v) for v in mine], (r["verdicts"], mine)
assert all(set(a) == set(b) for a, b in zip(sorted(r["verdicts"], key=key), mine)), (r["verdicts"], mine)
assert r["router"] == "ccr" and r["from_version"] == "7.21.5" and r["to_version"] == "7.22.3", r
assert r["board"] == "CCR1009-7G-1C-1S+" and r["architecture"] == "tile", r
assert r["upgraded_at"].endswith("Z") and r["verdicts"] and all(v["router"] == "ccr" for v in r["verdicts"]), r
sides = {p["side"]: p for p in r["probes"]}
assert set(sides) == {"before", "after"}, r["probes"]
assert sides["before"]["delivered_bps"] == probes[1]["delivered_bps"], (sides, probes)
assert sides["after"]["delivered_bps"] == probes[0]["delivered_bps"], (sides, probes)
assert sides["after"]["lost_packets"] is None and sides["after"]["direction"] == "transmit", sides
assert sides["after"]["measured"] == "transmit" and sides["before"]["measured"] == "transmit", sides
assert r["profile"]["before"] == [] and all(isinstance(x["usage"], (int, float)) for x in r["profile"]["after"]), r
PY
code=$(curl -s -u "admin:$WEBPW" -o "$T/report.md" -w '%{http_code} %{content_type}' "http://127.0.0.1:$HTTP_PORT/api/v1/upgrades/$id/report.md")
[ "$code" = "200 text/markdown; charset=utf-8" ] || fail "report.md: $code"
grep -q '^# WireGuard throughput after an upgrade: ccr, RouterOS 7.21.5 → 7.22.3' "$T/report.md" || fail "report.md head: $(head -3 "$T/report.md")"
grep -q '^| before | .* | transmit | transmit | 300.0 Mbit/s | 300.0 Mbit/s | - |' "$T/report.md" || fail "report.md lacks the probe before: $(cat "$T/report.md")"
grep -q '^| after | .* | transmit | transmit | 300.0 Mbit/s | 128.2 Mbit/s | - |' "$T/report.md" || fail "report.md lacks the probe after: $(cat "$T/report.md")"
http_get /router/ccr | grep -q "href=\"/api/v1/upgrades/$id/report.md\"" || fail "ccr's page has no report link"
code=$(curl -s -u "admin:$WEBPW" -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/api/v1/upgrades/99999/report")
[ "$code" = 404 ] || fail "an unknown upgrade's report: HTTP $code"
grep -q "probe-secret\|diag-secret\|sim-secret\|$WEBPW" "$T/report.json" "$T/report.md" && fail "a secret in the report"
check_log_clean
ok "upgrade $id's report (JSON and Markdown): probes 300 -> 128 Mbit/s, the profile after, no secret"
