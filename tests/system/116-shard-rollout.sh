#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 116-shard-rollout: the rollout guard of a fleet split over two shards (issue 43,
# tests/system/shard-rollout.scenario). The tile canaries, both on shard 1, regress on 7.22.3;
# the x86 canaries, both on shard 2, are unchanged. With [rollout] shards, shard 2 holds tile for
# tile-next (API, wgwatch_rollout_decision, --rollout-check exit 4) and shard 1 lets x86-later go
# (exit 0), each counting the other's canaries as its own, and --rollout-check answers the same
# on the other shard for either router; the export's rollout counts validate
# against docs/evidence.schema.json. Shard 1 stopped: shard 2 says wait with a reason naming
# shard 1, wgwatch_rollout_shard_up{shard="1"} 0, --rollout-check exit 5. ~40 s.
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/shard-rollout.scenario"
P1=$(free_port)
P2=$(free_port)
[ "$P1" != "$P2" ] || fail "free_port gave one port twice"
# The web password: the shards read each other with it, and it must show nowhere.
PW="wg-$(od -An -tx1 -N9 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$PW" >"$T/web.pass"
chmod 600 "$T/web.pass"
cat >"$T/fleet.conf" <<EOF
[daemon]
interval = 150ms
timeout = 140ms
[detector]
before = 6s
after = 6s
min_samples = 25
every = 1s
hold = 1s
[rollout]
go_min = 2
shards = http://127.0.0.1:$P1, http://127.0.0.1:$P2
[web]
user = admin
password_file = web.pass
include = routers.conf
EOF
# start_shard K PORT: wgwatchd shard K/2 on $T/sK.conf, its log $T/sK.log; sets PID_K.
start_shard() {
	printf '[daemon]\nlisten = 127.0.0.1:%s\ndatabase = s%s.db\nshard = %s/2\ninclude = fleet.conf\n' \
		"$2" "$1" "$1" >"$T/s$1.conf"
	"$DAEMON" -c "$T/s$1.conf" -v 2>>"$T/s$1.log" &
	PIDS="$PIDS $!"
	eval "PID_$1=$!"
}
get() { curl -fsS --max-time 10 -u "admin:$PW" "http://127.0.0.1:$1$2"; }
start_shard 1 "$P1"
start_shard 2 "$P2"
wait_until 20 get "$P1" /healthz >/dev/null || fail "shard 1 /healthz never answered"
wait_until 20 get "$P2" /healthz >/dev/null || fail "shard 2 /healthz never answered"
grep -q 'shard 1/2: 3 of 6 routers' "$T/s1.log" && grep -q 'shard 2/2: 3 of 6 routers' "$T/s2.log" ||
	fail "the shards do not split the routers as the scenario says (the hash changed?)"

# check K ROUTER: --rollout-check on shard K's config, output in $T/check.out, status echoed.
check() {
	rc=0
	"$DAEMON" -c "$T/s$1.conf" --rollout-check "$2" 7.22.3 >"$T/check.out" 2>"$T/check.err" || rc=$?
	echo "$rc"
}
rollout() { get "$1" "/api/v1/rollout?version=7.22.3&architecture=$2&board=$3" >"$T/rollout.json"; }
decision() { rollout "$1" "$2" "$3" && grep -q "\"decision\":\"$4\"" "$T/rollout.json"; }
# want PYTHON-ASSERTIONS on $T/rollout.json as d.
want() {
	$PY - "$T/rollout.json" "$1" <<'PY' || { cat "$T/rollout.json"; fail "rollout JSON: $1"; }
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
PY
}

# ---- both shards up: each counts the other's canaries ----
wait_until 60 decision "$P2" tile CCR1009-7G-1C-1S%2B hold ||
	{ cat "$T/rollout.json"; fail "shard 2 never held tile on shard 1's canaries"; }
want '
c = d["cohort"]
assert c["routers"] == 2 and c["canaries"] == 2 and c["regressed"] == 2 and c["board"] == "CCR1009-7G-1C-1S+", c
assert any(r["kind"] == "shard" and "2 regressed" in r["text"] for r in d["reasons"]), d["reasons"]
'
rc=$(check 2 tile-next)
[ "$rc" = 4 ] && grep -q '^rollout 7.22.3 for tile-next (tile, CCR1009-7G-1C-1S+): hold' "$T/check.out" ||
	{ cat "$T/check.out" "$T/check.err"; fail "--rollout-check tile-next on shard 2: exit $rc, want 4"; }
get "$P2" /metrics >"$T/m2.txt"
grep -qx 'wgwatch_rollout_decision{to_version="7.22.3",architecture="tile",board="CCR1009-7G-1C-1S+",decision="hold"} 1' "$T/m2.txt" &&
	grep -qx 'wgwatch_rollout_shard_up{shard="1"} 1' "$T/m2.txt" ||
	{ grep rollout "$T/m2.txt"; fail "shard 2's /metrics: tile decision or shard 1 up"; }
ok "shard 2 holds tile on shard 1's regressed canaries: API, --rollout-check exit 4, metrics"

wait_until 60 decision "$P1" x86_64 CHR go ||
	{ cat "$T/rollout.json"; fail "shard 1 never let x86_64 go on shard 2's canaries"; }
want '
c = d["cohort"]
assert c["judged"] == 2 and c["canaries"] == 2 and c["regressed"] == 0, c
'
rc=$(check 1 x86-later)
[ "$rc" = 0 ] || { cat "$T/check.out" "$T/check.err"; fail "--rollout-check x86-later on shard 1: exit $rc, want 0"; }
ok "shard 1 lets x86_64 go on shard 2's unchanged canaries: API, --rollout-check exit 0"

# Any router on any shard: the other shard's router's architecture and board come from it.
rc=$(check 1 tile-next)
[ "$rc" = 4 ] && grep -q '^rollout 7.22.3 for tile-next (tile, CCR1009-7G-1C-1S+): hold' "$T/check.out" ||
	{ cat "$T/check.out" "$T/check.err"; fail "--rollout-check tile-next (shard 2's) on shard 1: exit $rc, want 4"; }
rc=$(check 2 x86-later)
[ "$rc" = 0 ] || { cat "$T/check.out" "$T/check.err"; fail "--rollout-check x86-later (shard 1's) on shard 2: exit $rc, want 0"; }
ok "--rollout-check answers the same for a router of the other shard: tile-next 4 on shard 1, x86-later 0 on shard 2"

get "$P1" '/api/v1/evidence?rollout=yes' >"$T/ev1.json"
get "$P1" '/api/v1/evidence' >"$T/ev1-plain.json"
$PY - "$T/ev1.json" "$T/ev1-plain.json" "$top_srcdir/docs/evidence.schema.json" <<'PY' || fail "the export's rollout counts"
import json, sys, jsonschema
d, plain, schema = (json.load(open(p)) for p in sys.argv[1:4])
jsonschema.validate(d, schema)
jsonschema.validate(plain, schema)
assert "rollout" not in plain["fleets"][0], plain
rows = {(r["to_version"], r["architecture"], r["board"]): r for r in d["fleets"][0]["rollout"]}
t = rows[("7.22.3", "tile", "CCR1009-7G-1C-1S+")]
assert (t["routers"], t["canaries"], t["judged"], t["regressed"], t["pending"]) == (2, 2, 2, 2, 0), t
PY
ok "GET /api/v1/evidence?rollout=yes: the guard's counts per cohort, valid against the schema; not without"

# ---- shard 1 stopped: shard 2 says wait, with the reason ----
kill "$PID_1"
wait "$PID_1" 2>/dev/null || true
wait_until 20 decision "$P2" x86_64 CHR wait || { cat "$T/rollout.json"; fail "shard 2 still decides without shard 1"; }
want '
assert any(r["kind"] == "shard" and r["text"].startswith("shard 1 of the fleet cannot be read") for r in d["reasons"]), d["reasons"]
'
get "$P2" /metrics | grep -qx 'wgwatch_rollout_shard_up{shard="1"} 0' || fail "shard 2 does not say shard 1 is down"
rc=$(check 2 tile-next)
[ "$rc" = 5 ] && grep -q 'shard 1 of the fleet cannot be read' "$T/check.out" ||
	{ cat "$T/check.out" "$T/check.err"; fail "--rollout-check tile-next without shard 1: exit $rc, want 5"; }
grep -q 'rollout: shard 1 of 2 cannot be read' "$T/s2.log" || fail "shard 2 did not log that shard 1 cannot be read"
ok "shard 1 stopped: shard 2 waits with a reason naming it, shard_up 0, --rollout-check exit 5, logged"

if grep -qF "$PW" "$T/s1.log" "$T/s2.log" "$T/m2.txt" "$T/check.out" "$T/check.err" "$T/rollout.json"; then
	fail "the web password shows in a log, a metric or a reason"
fi
cp "$T/s2.log" "$T/daemon.log"
check_log_clean
ok "the web password shows nowhere; no unexpected error in shard 2's log"
