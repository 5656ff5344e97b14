#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 115-evidence-import: other fleets' evidence imported ([evidence] files, docs/evidence.md,
# issue 40). A first fleet (tests/system/rollout-fast.scenario: two tile canaries regress on
# 7.22.3) exports its evidence; a second daemon on its own fleet (tests/system/evidence-b.scenario:
# its tile canaries take 7.22.3 only at 18 s, unchanged) imports it with [rollout] evidence = hold.
# The export twice and a copy under the second fleet's own id count as one fleet, so tile is not
# held on one fleet's two routers (evidence_fleets = 2, evidence_routers = 3); a second fleet's
# export added and SIGHUP, tile holds on evidence alone (API, wgwatch_rollout_decision, --rollout-check exit 4) naming it;
# once its own canaries are judged unchanged it goes: its own verdicts outweigh the evidence.
# /api/v1/cohorts shows the evidence as "elsewhere", /metrics as wgwatch_evidence_*, the upgrades
# page beside the cohort. Hostile files are refused with their reasons, once each.
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/rollout-fast.scenario"
write_conf 150ms 140ms "[detector]" "before = 6s" "after = 6s" "min_samples = 30" "every = 1s" "hold = 1s"
start_daemon
wait_final 60 8
stop_daemon
"$DAEMON" -c "$T/wgwatch.conf" --export-evidence >"$T/a.json" 2>"$T/export.err" || fail "--export-evidence: $(cat "$T/export.err")"
kill "$SIM_PID"
ok "the first fleet's evidence exported"

# The second fleet: its own sim (its clock starts now: the canaries upgrade at 18 s), database.
mkdir "$T/b" "$T/ev"
"$SIM" -a "$(sim_base)" -p "$(free_port)" -c "$T/b/routers.conf" -r "$T/b/sim.ready" \
	"$top_srcdir/tests/system/evidence-b.scenario" 2>"$T/sim-b.log" &
PIDS="$PIDS $!"
wait_until 30 test -e "$T/b/sim.ready" || fail "the second wgwatch-sim did not become ready"
B_PORT=$(free_port)
cat >"$T/b/wgwatch.conf" <<CONF
[daemon]
listen = 127.0.0.1:$B_PORT
database = b.db
interval = 150ms
timeout = 140ms
[detector]
before = 6s
after = 6s
min_samples = 30
every = 1s
hold = 1s
[rollout]
evidence = hold
evidence_fleets = 2
evidence_routers = 3
[evidence]
files = ../ev/*.json
include = routers.conf
CONF
"$DAEMON" -c "$T/b/wgwatch.conf" --check >"$T/b/check.out" 2>&1 || fail "--check: $(cat "$T/b/check.out")"
"$DAEMON" -c "$T/b/wgwatch.conf" --once >"$T/b/once.out" 2>&1 || fail "--once: $(cat "$T/b/once.out")"
OWN=$("$DAEMON" -c "$T/b/wgwatch.conf" --export-evidence | $PY -c 'import json,sys; print(json.load(sys.stdin)["fleets"][0]["fleet"])') ||
	fail "the second fleet's own id"

$PY - "$T/a.json" "$T/ev" "$OWN" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); ev = sys.argv[2]; own = sys.argv[3]
assert d["fleets"][0]["fleet"] != own
json.dump(d, open(ev + "/a.json", "w"))
old = json.loads(json.dumps(d)); old["fleets"][0]["generated"] = "2000-01-01"
json.dump(old, open(ev + "/a-old.json", "w"))             # the same fleet again: counted once
mine = json.loads(json.dumps(d)); mine["fleets"][0]["fleet"] = own
json.dump(mine, open(ev + "/own.json", "w"))              # our own id: ignored
other = json.loads(json.dumps(d)); other["fleets"][0]["fleet"] = "f" * 32
json.dump(other, open(ev + "/../other.json", "w"))        # added later
json.dump(dict(d, schema="wgwatch-evidence/2"), open(ev + "/bad-future.json", "w"))
json.dump(json.loads(json.dumps(d).replace('"regressed": 2', '"regressed": "2"', 1)), open(ev + "/bad-types.json", "w"))
open(ev + "/bad-json.json", "w").write('{"schema": ')
open(ev + "/bad-huge.json", "w").write('{"schema": "wgwatch-evidence/1", "fleets": [' + " " * (9 << 20) + "]}")
PY

"$DAEMON" -c "$T/b/wgwatch.conf" -v 2>>"$T/daemon-b.log" &
B_PID=$!
PIDS="$PIDS $B_PID"
B="http://127.0.0.1:$B_PORT"
wait_until 20 curl -fsS "$B/healthz" || fail "the second wgwatchd never answered"
bget() { curl -fsS --max-time 10 "$B$1"; }
known() { bget "/api/v1/routers" | grep -q '"architecture":"tile"'; }
wait_until 20 known || fail "the second fleet's tile-next not polled"

for w in "bad-future.json: refused: schema \"wgwatch-evidence/2\" is newer" \
	"bad-types.json: refused: fleets\[0\].cohorts\[0\].tx: regressed: not a count" \
	"bad-json.json: refused: not JSON" "bad-huge.json: refused: .* more than the"; do
	grep -q "evidence: .*/$w" "$T/daemon-b.log" || fail "no \"$w\" in the log: $(grep evidence "$T/daemon-b.log")"
done
ok "four hostile files refused with file and reason"

rollout() { bget "/api/v1/rollout?version=7.22.3&architecture=tile&board=CCR1009-7G-1C-1S%2B" >"$T/rollout.json"; }
rollout
$PY - "$T/rollout.json" <<'PY' || fail "one fleet's evidence (three files) held tile: $(cat "$T/rollout.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["decision"] == "wait", d
assert not [r for r in d["reasons"] if r["kind"] == "evidence"], d
PY
bget /metrics >"$T/m1.txt"
grep -q '^wgwatch_evidence_fleets{from_version="7.21.5",to_version="7.22.3",architecture="tile",board="CCR1009-7G-1C-1S+"} 1$' "$T/m1.txt" ||
	fail "wgwatch_evidence_fleets not 1 for tile: $(grep evidence "$T/m1.txt")"
ok "the export twice and one under our own id: one fleet, tile not held (wait)"

mv "$T/other.json" "$T/ev/other.json"
kill -HUP "$B_PID"
held() { rollout && grep -q '"decision":"hold"' "$T/rollout.json"; }
wait_until 20 held || fail "tile not held after the second fleet's evidence: $(cat "$T/rollout.json")"
bget /metrics >"$T/m-hold.txt"
grep -q '^wgwatch_rollout_decision{to_version="7.22.3",architecture="tile",board="CCR1009-7G-1C-1S+",decision="hold"} 1$' "$T/m-hold.txt" ||
	fail "wgwatch_rollout_decision for tile not hold: $(grep rollout_decision "$T/m-hold.txt")"
$PY - "$T/rollout.json" <<'PY' || fail "the hold's reasons: $(cat "$T/rollout.json")"
import json, sys
d = json.load(open(sys.argv[1]))
ev = [r for r in d["reasons"] if r["kind"] == "evidence"]
assert ev and ev[0]["direction"] == "tx" and "4 of 4 routers of other fleets regressed on tx" in ev[0]["text"], d
assert "2 fleet(s)" in ev[0]["text"] and d["cohort"]["judged"] == 0, d
PY
rc=0
"$DAEMON" -c "$T/b/wgwatch.conf" --rollout-check tile-next 7.22.3 >"$T/check.out" 2>"$T/check.err" || rc=$?
[ "$rc" = 4 ] && grep -q 'evidence: 4 of 4 routers of other fleets regressed' "$T/check.out" ||
	fail "--rollout-check tile-next: exit $rc: $(cat "$T/check.out" "$T/check.err")"
rc=0
"$DAEMON" -c "$T/b/wgwatch.conf" --rollout-check x86-next 7.22.3 >"$T/check.out" 2>"$T/check.err" || rc=$?
[ "$rc" = 5 ] || fail "--rollout-check x86-next (unchanged elsewhere): exit $rc, want 5: $(cat "$T/check.out")"
ok "a second fleet's evidence, read on SIGHUP: tile holds on it alone (API, --rollout-check exit 4), x86_64 waits"

cohorts() {
	bget /api/v1/cohorts >"$T/cohorts.json"
	$PY - "$T/cohorts.json" "$1" <<'PY' || fail "/api/v1/cohorts: $(cat "$T/cohorts.json")"
import json, sys
cs = json.load(open(sys.argv[1]))
t = [c for c in cs if c["architecture"] == "tile" and c["to_version"] == "7.22.3"]
assert len(t) == 1 and (sys.argv[2] == "any" or t[0]["routers"] == int(sys.argv[2])), t
e = t[0]["elsewhere"]
assert e["fleets"] == 2 and e["tx"]["regressed"] == 4 and e["tx"]["judged"] == 4, e
assert 0.25 < e["tx"]["median_ratio"] < 0.42, e
PY
}
cohorts any
bget /metrics >"$T/m2.txt"
grep -q '^wgwatch_evidence_regressed_routers{from_version="7.21.5",to_version="7.22.3",architecture="tile",board="CCR1009-7G-1C-1S+",direction="tx"} 4$' "$T/m2.txt" ||
	fail "wgwatch_evidence_regressed_routers: $(grep evidence "$T/m2.txt")"
! grep -q "ffffffff\|$OWN" "$T/m2.txt" || fail "a fleet id in /metrics"
ok "/api/v1/cohorts: tile with elsewhere 2 fleets, 4 of 4 regressed; wgwatch_evidence_* without fleet ids"

# Its own canaries take 7.22.3 at 18 s, unchanged: once judged (final), they decide: go.
goes() { rollout && grep -q '"decision":"go"' "$T/rollout.json"; }
wait_until 60 goes || fail "tile did not go once its own canaries were judged: $(cat "$T/rollout.json")"
! grep -q '"kind":"evidence"' "$T/rollout.json" || fail "an evidence reason in a go: $(cat "$T/rollout.json")"
rc=0
"$DAEMON" -c "$T/b/wgwatch.conf" --rollout-check tile-next 7.22.3 >"$T/check.out" 2>"$T/check.err" || rc=$?
[ "$rc" = 0 ] || fail "--rollout-check tile-next after its own canaries: exit $rc, want 0: $(cat "$T/check.out")"
cohorts 2
bget /upgrades >"$T/upgrades.html"
grep -q 'elsewhere: 2 fleets, 4 routers, tx median .*0\.3[0-9]*.*, 4 of 4 regressed' "$T/upgrades.html" ||
	fail "the upgrades page: no elsewhere line: $(grep -o 'elsewhere[^<]*' "$T/upgrades.html")"
bget /router/tile-01 >"$T/router.html"
grep -q 'elsewhere: 2 fleets, 4 routers, tx median .*0\.3[0-9]*.*, 4 of 4 regressed' "$T/router.html" ||
	fail "the router page: no elsewhere line: $(grep -o 'elsewhere[^<]*' "$T/router.html")"
ok "own canaries judged unchanged outweigh the evidence: go (API, --rollout-check exit 0); the upgrades and router pages show it beside the cohort"

for f in bad-future bad-types bad-json bad-huge; do
	n=$(grep -c "evidence: .*/$f.json: refused" "$T/daemon-b.log")
	[ "$n" = 1 ] || fail "$f.json refused $n times in the log, not once (unchanged across SIGHUP)"
done
ok "each hostile file logged once, not again on SIGHUP while unchanged"
check_log_clean
! grep -E '^<3>' "$T/daemon-b.log" | grep -q . || fail "error lines in the second daemon's log: $(grep -E '^<3>' "$T/daemon-b.log" | head -3)"
