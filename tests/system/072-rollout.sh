#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 072-rollout: the rollout guard on a canary wave (tests/system/rollout.scenario, issue 19): two
# tile canaries regress on 7.22.3, so tile holds (the API, wgwatch_rollout_decision and
# --rollout-check exit 4); the x86 canaries are unchanged, so x86_64 waits (exit 5) until go_min
# of them are judged final, then goes (exit 0); [rollout] allow turns the tile hold into go with
# the override shown as "config FILE:LINE"; without web authentication nothing is stored (403). Windows of 12 s keep the run near 35 s.
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/rollout.scenario"
write_conf 150ms 100ms "[detector]" "before = 12s" "after = 12s" "min_samples = 40" "every = 1s" \
	"hold = 2s" "[rollout]" "go_min = 2"
start_daemon

# check ROUTER VERSION [CONF]: --rollout-check's output into $T/check.out, its exit status echoed.
check() {
	rc=0
	"$DAEMON" -c "${3:-$T/wgwatch.conf}" --rollout-check "$1" "$2" >"$T/check.out" 2>"$T/check.err" || rc=$?
	echo "$rc"
}
rollout() { http_get "/api/v1/rollout?version=7.22.3&architecture=$1${2:+&board=$2}" >"$T/rollout.json"; }
# want FILE DECISION PYTHON-ASSERTIONS: the JSON decision, then assertions on it as d.
want() {
	$PY - "$1" "$2" "$3" <<'PY' || { cat "$1"; fail "rollout JSON: $3"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["decision"] == sys.argv[2], d["decision"]
exec(sys.argv[3])
PY
}

# Before any verdict is final: x86_64 waits, and the command line says so once the database
# knows x86-next's architecture (its first poll stored).
x86_known() { [ "$(check x86-next 7.22.3)" = 5 ] && grep -q '(x86_64, CHR): wait' "$T/check.out"; }
wait_until 10 x86_known || { cat "$T/check.out" "$T/check.err"; fail "--rollout-check x86-next before the verdicts: not wait (5)"; }
rollout x86_64
want "$T/rollout.json" wait 'assert d["cohort"]["judged"] == 0 and d["override"] is None, d'
ok "before final verdicts: x86_64 waits (API, --rollout-check exit 5)"

code=$(curl -s -o "$T/bad.json" -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/api/v1/rollout?version=7.22.3")
[ "$code" = 400 ] && grep -q '"error"' "$T/bad.json" || fail "no architecture: HTTP $code, $(cat "$T/bad.json")"
ok "/api/v1/rollout without an architecture: 400 with a JSON error"

# Without web authentication nothing can be stored: 403, saying what to set.
code=$(curl -s -o "$T/post.txt" -w '%{http_code}' -H 'Content-Type: application/json' \
	-d '{"version":"7.22.3","cohort":"tile"}' "http://127.0.0.1:$HTTP_PORT/api/v1/rollout/allow")
[ "$code" = 403 ] && grep -q 'needs web authentication: set \[web\] user and password_file' "$T/post.txt" ||
	fail "POST /api/v1/rollout/allow without web auth: HTTP $code, $(cat "$T/post.txt")"
http_get /api/v1/rollout/allow >"$T/list.json"
want_list() { $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d == {"overrides": [], "writable": False}, d' "$T/list.json"; }
want_list || fail "GET /api/v1/rollout/allow: $(cat "$T/list.json")"
ok "POST /api/v1/rollout/allow without web authentication: 403 naming [web] user; GET lists none"

# 4 routers upgraded, tx and rx of wg0 each.
wait_final 60 8
ok "8 verdicts final"

rollout tile CCR1009-7G-1C-1S%2B
want "$T/rollout.json" hold '
c = d["cohort"]
assert c["scope"] == "board" and c["board"] == "CCR1009-7G-1C-1S+" and c["routers"] == 2, c
assert c["regressed"] == 2 and c["canaries"] == 2, c
regs = sorted(r["router"] for r in d["reasons"] if r["kind"] == "regression")
assert regs == ["tile-01", "tile-02"], d["reasons"]
for r in d["reasons"]:
    if r["kind"] == "regression":
        assert r["interface"] == "wg0" and r["direction"] == "tx" and r["method"] == "saturation-ceiling", r
        assert abs(r["ratio"] - 1 / 3) < 0.06 and r["final"] and r["canary"], r
'
rollout x86_64 CHR
want "$T/rollout.json" go '
c = d["cohort"]
assert c["judged"] == 2 and c["regressed"] == 0 and c["canaries"] == 2, c
judged = sorted({r["router"] for r in d["reasons"] if r["kind"] == "judged"})
assert judged == ["x86-01", "x86-02"], d["reasons"]
assert all(r["method"] == "saturation-ceiling" for r in d["reasons"] if r["kind"] == "judged"), d["reasons"]
'
ok "/api/v1/rollout: tile holds on two canaries' regressions, x86_64 goes on two judged canaries"

rc=$(check tile-next 7.22.3)
[ "$rc" = 4 ] || { cat "$T/check.out" "$T/check.err"; fail "--rollout-check tile-next: exit $rc, want 4 (hold)"; }
grep -q '^rollout 7.22.3 for tile-next (tile, CCR1009-7G-1C-1S+): hold' "$T/check.out" &&
	grep -q 'regression .*tile-01 wg0 tx: regression (saturation-ceiling' "$T/check.out" ||
	{ cat "$T/check.out"; fail "--rollout-check tile-next: decision or reasons"; }
rc=$(check x86-next 7.22.3)
[ "$rc" = 0 ] || { cat "$T/check.out" "$T/check.err"; fail "--rollout-check x86-next: exit $rc, want 0 (go)"; }
rc=$(check nosuch 7.22.3)
[ "$rc" = 2 ] || fail "--rollout-check of a router not in the config: exit $rc, want 2"
ok "--rollout-check beside the running daemon: tile-next exit 4 with the reasons, x86-next 0"

http_get /metrics >"$T/metrics.txt"
grep -qx 'wgwatch_rollout_decision{to_version="7.22.3",architecture="tile",board="CCR1009-7G-1C-1S+",decision="hold"} 1' "$T/metrics.txt" &&
	grep -qx 'wgwatch_rollout_decision{to_version="7.22.3",architecture="x86_64",board="CHR",decision="go"} 1' "$T/metrics.txt" ||
	{ grep rollout "$T/metrics.txt"; fail "wgwatch_rollout_decision"; }
http_get /upgrades >"$T/upgrades.html"
grep -q 'rollout-hold' "$T/upgrades.html" && grep -q 'rollout-go' "$T/upgrades.html" ||
	fail "the upgrades page lacks the rollout column"
ok "/metrics has one decision per cohort; the upgrades page shows them"

# The override: the command line with it at once, then the daemon restarted with it.
sed 's|^\[rollout\]$|[rollout]\nallow = 7.22.3/tile|' "$T/wgwatch.conf" >"$T/allow.conf"
rc=$(check tile-next 7.22.3 "$T/allow.conf")
line=$(grep -n '^allow = 7.22.3/tile$' "$T/allow.conf" | cut -d: -f1)
[ "$rc" = 0 ] && grep -qF "override     override: allow 7.22.3/tile by config $T/allow.conf:$line (the guard said hold)" "$T/check.out" &&
	grep -q 'tile-01 wg0 tx: regression' "$T/check.out" ||
	{ cat "$T/check.out" "$T/check.err"; fail "--rollout-check with allow: exit $rc, want 0 with the override"; }
stop_daemon
cp "$T/allow.conf" "$T/wgwatch.conf"
start_daemon
overridden() { rollout tile CCR1009-7G-1C-1S%2B && grep -q '"decision":"go"' "$T/rollout.json"; }
wait_until 15 overridden || { cat "$T/rollout.json"; fail "the override did not turn tile into go"; }
want "$T/rollout.json" go '
o = d["override"]
assert o["allow"] == "7.22.3/tile" and o["source"] == "config" and o["at"] is None, o
assert o["who"] == "config '"$T/wgwatch.conf:$line"'", o
assert d["reasons"][0]["kind"] == "override" and "said hold" in d["reasons"][0]["text"], d["reasons"]
assert sorted(r["router"] for r in d["reasons"] if r["kind"] == "regression") == ["tile-01", "tile-02"], d
'
ok "[rollout] allow = 7.22.3/tile: go, the override (config FILE:LINE) first and the regressions still shown"

check_log_clean
ok "no unexpected error in the daemon log"
