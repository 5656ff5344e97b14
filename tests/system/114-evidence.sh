#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 114-evidence: the fleet's upgrade evidence (docs/evidence.md, issue 40), exported from a canary
# wave (tests/system/rollout-fast.scenario: two tile canaries regress on 7.22.3, two x86 ones do
# not) by GET /api/v1/evidence (behind web auth) and --export-evidence: valid against
# docs/evidence.schema.json, the counts and ratios of each cohort what the verdicts say, one
# fleet id kept in the database, and nothing that names the fleet (router names, addresses,
# labels, interface names, serials, passwords). --merge-evidence keeps each fleet once (the
# newest export wins) and refuses hostile files with file and reason while merging the rest.
. "$top_srcdir/tests/system/lib.sh"

$PY -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema not installed (apt-get install python3-jsonschema)"
start_sim "$top_srcdir/tests/system/rollout-fast.scenario"
SIM_USER=$(routers_conf_value tile-01 user)
SIM_PASSWORD=$(routers_conf_value tile-01 password)
PW="wg-$(od -An -tx1 -N9 /dev/urandom | tr -d ' \n')"
METRICS_AUTH="admin:$PW"
printf '%s\n' "$PW" >"$T/web.pass"
chmod 600 "$T/web.pass"
write_conf 150ms 140ms "[detector]" "before = 6s" "after = 6s" "min_samples = 30" "every = 1s" \
	"hold = 1s" "[web]" "user = admin" "password_file = web.pass"
start_daemon
B="http://127.0.0.1:$HTTP_PORT"
aget() { curl -fsS --max-time 10 -u "admin:$PW" "$B$1"; }

code=$(curl -s -o /dev/null -w '%{http_code}' "$B/api/v1/evidence")
[ "$code" = 401 ] || fail "GET /api/v1/evidence without the password: HTTP $code, not 401"
code=$(curl -s -o "$T/bad.json" -w '%{http_code}' -u "admin:$PW" "$B/api/v1/evidence?since=yesterday")
[ "$code" = 400 ] && grep -q 'YYYY-MM-DD' "$T/bad.json" || fail "since=yesterday: HTTP $code, $(cat "$T/bad.json")"
ok "/api/v1/evidence: 401 without the password, 400 for a since that is not a day"

# The four canaries' tx and rx final (tile-late upgrades later and is not waited for).
final_n() { aget /api/v1/regressions >"$T/reg.json" && $PY -c 'import json,sys; print(sum(v["final"] for v in json.load(open(sys.argv[1]))))' "$T/reg.json"; }
enough() { [ "$(final_n)" -ge 8 ]; }
wait_until 60 enough || fail "verdicts not final in time: $(cat "$T/reg.json")"
aget /api/v1/evidence >"$T/api.json"
aget /api/v1/routers >"$T/routers.json"
stop_daemon
"$DAEMON" -c "$T/wgwatch.conf" --export-evidence >"$T/cli.json" 2>"$T/cli.err" || fail "--export-evidence: $(cat "$T/cli.err")"
"$DAEMON" -c "$T/wgwatch.conf" --export-evidence --since 2000-01-01 >"$T/since.json" 2>>"$T/cli.err" ||
	fail "--export-evidence --since: $(cat "$T/cli.err")"
"$DAEMON" -c "$T/wgwatch.conf" --export-evidence --since 2999-01-01 >"$T/future.json" 2>>"$T/cli.err" ||
	fail "--export-evidence --since 2999: $(cat "$T/cli.err")"

$PY - "$top_srcdir/docs/evidence.schema.json" "$T/api.json" "$T/cli.json" "$T/since.json" "$T/future.json" "$T/reg.json" <<'PY' || fail "the evidence documents"
import json, statistics, sys, jsonschema
schema = json.load(open(sys.argv[1]))
docs = [json.load(open(p)) for p in sys.argv[2:6]]
for d in docs:
    jsonschema.validate(d, schema)
api, cli, since, future = docs
ids = {d["fleets"][0]["fleet"] for d in docs}
assert len(ids) == 1, ids  # one fleet id, kept in the database
assert future["fleets"][0]["cohorts"] == [], future
assert since["fleets"][0]["since"] == "2000-01-01" and since["fleets"][0]["cohorts"] == cli["fleets"][0]["cohorts"]
verdicts = [v for v in json.load(open(sys.argv[6])) if v["final"]]
for d in (api, cli):
    cs = {(c["architecture"], c["board"]): c for c in d["fleets"][0]["cohorts"]}
    tile = cs[("tile", "CCR1009-7G-1C-1S+")]
    assert tile["from_version"] == "7.21.5" and tile["to_version"] == "7.22.3", tile
    t = tile["tx"]
    assert t["routers"] == 2 and t["judged"] == 2 and t["regressed"] == 2, t
    want = statistics.median(v["ratio"] for v in verdicts if v["board"] == "CCR1009-7G-1C-1S+" and v["direction"] == "tx")
    assert abs(t["ratio"]["median"] - want) < 1e-6 and abs(want - 1 / 3) < 0.08, (t, want)
    assert t["methods"] == {"saturation-ceiling": 2}, t
    x = cs[("x86_64", "CHR")]["tx"]
    assert x["regressed"] == 0 and x["judged"] >= 1 and x["routers"] == 2, x
    assert tile["first_day"] == tile["last_day"] and len(tile["first_day"]) == 10, tile
    # RouterBOOT: the scenario upgrades RouterOS only, so the canaries keep 7.21.5; a CHR has none.
    assert tile["firmware"] == [{"before": "7.21.5", "after": "7.21.5", "routers": 2}], tile
    assert cs[("x86_64", "CHR")]["firmware"] == [{"before": None, "after": None, "routers": 2}], cs
print("tile tx median %.3f, x86 tx %s" % (api["fleets"][0]["cohorts"][0]["tx"]["ratio"]["median"], x))
PY
ok "evidence from the API and --export-evidence: schema-valid, one fleet id, tile tx 2 of 2 regressed at the verdicts' median"

# Nothing that names the fleet: every router's name, address, serial and label, the interface
# names, the user names and passwords of this test.
$PY -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["name"])
    for k, v in (r.get("labels") or {}).items(): print(k); print(v)' "$T/routers.json" >"$T/names.raw" ||
	fail "the routers' names and labels from /api/v1/routers"
for r in $(awk -F'[][ ]+' '/^\[router /{print $3}' "$T/routers.conf"); do
	a=$(router_addr "$r")
	echo "$a"
	sim_get "$a" /rest/system/routerboard >"$T/rb.json" # a CHR has no serial
	$PY -c 'import json,sys; s = json.load(open(sys.argv[1])).get("serial-number"); s and print(s)' "$T/rb.json"
	sim_get "$a" /rest/system/identity | $PY -c 'import json,sys; print(json.load(sys.stdin)["name"])'
done >>"$T/names.raw"
grep -q '^HE' "$T/names.raw" || fail "no tile's serial read from the sim: $(cat "$T/names.raw")"
{ cat "$T/names.raw"; echo wg0; echo "$PW"; echo "$SIM_PASSWORD"; echo admin; } | sort -u >"$T/names"
# 5 names and identities, 5 addresses, 3 serials, a label key and value, wg0, passwords, admin
[ "$(wc -l <"$T/names")" -ge 18 ] || fail "too few identifying strings gathered: $(cat "$T/names")"
while IFS= read -r s; do
	[ -n "$s" ] || continue
	for f in api cli; do
		! grep -qF -- "$s" "$T/$f.json" || fail "the $f export holds \"$s\""
	done
done <"$T/names"
ok "no router name, address, identity, label, interface name, serial or password in the exports ($(wc -l <"$T/names") strings)"

# Merge: the export twice, and another fleet's newer export, are two fleets; hostile files are
# refused with their reason, the rest merged all the same (exit 1).
$PY - "$T/cli.json" "$T" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = sys.argv[2]
o = json.loads(json.dumps(d)); o["fleets"][0]["fleet"] = "f" * 32; o["fleets"][0]["generated"] = "2999-12-31"
json.dump(o, open(t + "/other.json", "w"))
n = json.loads(json.dumps(o)); n["fleets"][0]["cohorts"] = []; n["fleets"][0]["generated"] = "2000-01-01"
json.dump(n, open(t + "/other-old.json", "w"))
bad = {
  "future": dict(d, schema="wgwatch-evidence/2"),
  "types": json.loads(json.dumps(d).replace('"regressed": 2', '"regressed": "2"', 1)),
  "twice": dict(d, fleets=d["fleets"] * 2),
  "addup": json.loads(json.dumps(d).replace('"judged": 2', '"judged": 3', 1)),
}
for k, v in bad.items(): json.dump(v, open("%s/bad-%s.json" % (t, k), "w"))
s = json.dumps(d)
open(t + "/bad-nan.json", "w").write(s.replace('"median": ', '"median": NaN, "x": ', 1))
open(t + "/bad-deep.json", "w").write("[" * 100000 + "]" * 100000)
open(t + "/bad-dupkey.json", "w").write(s.replace('{', '{"schema": "wgwatch-evidence/1", ', 1))
open(t + "/bad-huge.json", "w").write('{"schema": "wgwatch-evidence/1", "fleets": [' + " " * (9 << 20) + "]}")
PY
rc=0
"$DAEMON" --merge-evidence "$T/cli.json" "$T/other-old.json" "$T/bad-future.json" "$T/bad-types.json" "$T/bad-twice.json" \
	"$T/bad-addup.json" "$T/bad-nan.json" "$T/bad-deep.json" "$T/bad-huge.json" "$T/bad-dupkey.json" "$T/api.json" "$T/other.json" \
	>"$T/all.json" 2>"$T/merge.err" || rc=$?
[ "$rc" = 1 ] || fail "--merge-evidence with bad files: exit $rc, not 1"
for w in "bad-future.json: refused: schema \"wgwatch-evidence/2\" is newer" \
	"bad-types.json: refused: fleets\[0\].cohorts\[0\].tx: regressed: not a count" \
	"bad-twice.json: refused: fleets: fleet [0-9a-f]* is in the document twice" \
	"bad-addup.json: refused: .*the counts do not add up" "bad-nan.json: refused: not JSON" \
	"bad-deep.json: refused: not JSON: nested deeper than 64" "bad-huge.json: refused: more than the" \
	"bad-dupkey.json: refused: not JSON: an object with the key \"schema\" twice"; do
	grep -q "$w" "$T/merge.err" || fail "merge: no \"$w\" in: $(cat "$T/merge.err")"
done
$PY - "$top_srcdir/docs/evidence.schema.json" "$T/all.json" <<'PY' || fail "the merged document: $(cat "$T/all.json")"
import json, sys, jsonschema
d = json.load(open(sys.argv[2])); jsonschema.validate(d, json.load(open(sys.argv[1])))
fs = {f["fleet"]: f for f in d["fleets"]}
assert len(fs) == 2 == len(d["fleets"]), list(fs)
assert fs["f" * 32]["generated"] == "2999-12-31" and fs["f" * 32]["cohorts"], fs["f" * 32]
PY
ok "--merge-evidence: two fleets, each once, the newest export wins; 8 hostile files refused with their reasons"
