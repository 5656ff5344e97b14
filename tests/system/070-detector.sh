#!/bin/sh
# 070-detector: the upgrade detector on the six cases of issue 4 (tests/system/detector.scenario),
# all routers of one simulated fleet in one run of ~2 minutes: verdict, method and ratio from
# /api/v1/regressions and /metrics, cohorts, the single-core bound, --report, verdicts kept
# across a restart; and the shipped Prometheus rules pass promtool check and test.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

# The alerting rules first: quick, and independent of the daemon.
cp "$top_srcdir/web/prometheus/wgwatch-rules.yml" "$top_srcdir/web/prometheus/wgwatch-rules.test.yml" "$T/"
promtool check rules "$T/wgwatch-rules.yml" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool check rules"; }
(cd "$T" && promtool test rules wgwatch-rules.test.yml) >"$T/promtool.log" 2>&1 ||
	{ cat "$T/promtool.log"; fail "promtool test rules"; }
ok "promtool check rules and test rules accept web/prometheus/wgwatch-rules.yml"

start_sim "$top_srcdir/tests/system/detector.scenario"
write_conf 1s 900ms "[detector]" "before = 50s" "after = 50s" "min_samples = 20" "every = 2s"
start_daemon

# Every upgrade of the scenario judged with a complete after window (t = 60 s + 50 s + grace).
wait_final 200 12
ok "12 verdicts final (6 upgraded routers x wg0 x tx/rx)"

$PY - "$T/reg.json" <<'PY' || { cat "$T/reg.json"; fail "verdicts"; }
import json, sys
vs = json.load(open(sys.argv[1]))
v = {(x["router"], x["direction"]): x for x in vs}
def want(router, d, verdict=None, method=None, ratio=None, tol=0.03, not_verdict=None):
    x = v.get((router, d))
    assert x is not None, (router, d, "missing")
    assert x["interface"] == "wg0" and x["from_version"] == "7.21.5" and x["to_version"] == "7.22.3", x
    assert x["final"] and x["latest"] and x["upgraded_at"] and x["reached_at"], x
    if verdict: assert x["verdict"] == verdict, x
    if not_verdict: assert x["verdict"] != not_verdict, x
    if method: assert x["method"] == method, x
    if ratio is not None: assert abs(x["ratio"] - ratio) <= tol, x
    return x
# 1. tile CCR1009: tx capacity 380 -> 130 on a saturated core; rx unchanged
x = want("ccr1009", "tx", "regression", "saturation-ceiling", 130 / 380)
assert abs(x["before_bps"] - 380e6) < 15e6 and abs(x["after_bps"] - 130e6) < 6e6, x
want("ccr1009", "rx", "unchanged", "saturation-ceiling", 1.0)
# 2. CHR: throughput and cost unchanged
want("chr", "tx", "unchanged", "cpu-cost", 1.0)
want("chr", "rx", "unchanged", "cpu-cost", 1.0)
# 3. demand fell with the CPU: not a regression
want("ccr2004-demand", "tx", "unchanged", "peak", not_verdict="regression")
want("ccr2004-demand", "rx", "insufficient-data")
# 4. CCR2116: same throughput, 2.5 times the CPU: regression by cost
want("ccr2116", "tx", "regression", "cpu-cost", 0.30 / 0.75)
# 5. no upgrade: no verdict at all
assert not [x for x in vs if x["router"] == "rb5009-swing"], "verdicts for a router without upgrade"
assert not [x for x in vs if x["router"] == "ccr2116-bound"], "verdicts for a router without upgrade"
# 6. too little traffic, too few samples: insufficient-data, never a guess
for r in ("chr-quiet", "rb4011-early"):
    for d in ("tx", "rx"):
        x = want(r, d, "insufficient-data", "none")
        assert x["ratio"] is None, x
assert v[("rb4011-early", "tx")]["before_samples"] < 20, v[("rb4011-early", "tx")]
regs = sorted((x["router"], x["direction"]) for x in vs if x["verdict"] == "regression")
assert regs == [("ccr1009", "tx"), ("ccr2116", "tx")], regs
PY
ok "the six cases: verdicts, methods and ratios from /api/v1/regressions"

http_get /metrics >"$T/metrics.txt"
promtool check metrics <"$T/metrics.txt" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool check metrics"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
L="interface=wg0 from_version=7.21.5 to_version=7.22.3"
[ "$(val wgwatch_upgrade_regression router=ccr1009 direction=tx $L)" = 1 ] || fail "ccr1009 tx not flagged"
[ "$(val wgwatch_upgrade_regression router=ccr1009 direction=rx $L)" = 0 ] || fail "ccr1009 rx flagged"
[ "$(val wgwatch_upgrade_regression router=ccr2116 direction=tx $L)" = 1 ] || fail "ccr2116 tx not flagged"
[ "$(val wgwatch_upgrade_regression router=chr direction=tx $L)" = 0 ] || fail "chr tx flagged"
[ "$(val wgwatch_upgrade_regression | grep -c 1)" -eq 2 ] || fail "not exactly two regressions on /metrics"
$PY -c "import sys; r=float(sys.argv[1]); sys.exit(0 if abs(r - 130/380) < 0.03 else 1)" \
	"$(val wgwatch_upgrade_capacity_ratio router=ccr1009 direction=tx $L)" || fail "ccr1009 tx ratio"
[ -z "$(val wgwatch_upgrade_capacity_ratio router=chr-quiet)" ] || fail "a ratio for insufficient data"
[ -z "$(val wgwatch_upgrade_regression router=rb5009-swing)" ] || fail "rb5009-swing has upgrade series"
[ "$(val wgwatch_core_saturated router=ccr2116-bound)" = 1 ] || fail "ccr2116-bound not single-core bound"
[ "$(val wgwatch_core_saturated router=ccr1009)" = 1 ] || fail "ccr1009 not single-core bound"
[ "$(val wgwatch_core_saturated router=chr)" = 0 ] || fail "chr flagged single-core bound"
[ "$(val wgwatch_core_saturated router=ccr2116)" = 0 ] || fail "ccr2116 (75%) flagged single-core bound"
ok "/metrics: upgrade regression and ratio, single-core bound; promtool check metrics passes"

http_get /api/v1/cohorts >"$T/cohorts.json"
$PY - "$T/cohorts.json" <<'PY' || { cat "$T/cohorts.json"; fail "cohorts"; }
import json, sys
cs = {(c["architecture"], c["board"]): c for c in json.load(open(sys.argv[1]))}
assert all(c["from_version"] == "7.21.5" and c["to_version"] == "7.22.3" for c in cs.values()), cs
t = cs[("tile", "CCR1009-7G-1C-1S+")]
assert t["routers"] == 1 and t["regressed"] == 1 and t["improved"] == 0, t
assert abs(t["median_ratio"]["tx"] - 130 / 380) < 0.03 and abs(t["median_ratio"]["rx"] - 1) < 0.03, t
x = cs[("x86_64", "CHR")]
assert x["routers"] == 2 and x["regressed"] == 0, x      # chr and chr-quiet
assert abs(x["median_ratio"]["tx"] - 1) < 0.03, x
assert cs[("arm64", "CCR2116-12G-4S+")]["regressed"] == 1, cs
assert cs[("arm64", "CCR2004-16G-2S+")]["regressed"] == 0, cs
assert len(cs) == 5, sorted(cs)
PY
ok "/api/v1/cohorts: one row per upgrade x architecture x board"

"$DAEMON" -c "$T/wgwatch.conf" --report >"$T/report.txt" 2>"$T/report.err" || { cat "$T/report.err"; fail "--report"; }
grep -E '^ccr1009 +wg0 +tx +7\.21\.5 -> 7\.22\.3 .* saturation-ceiling +regression' "$T/report.txt" >/dev/null ||
	{ cat "$T/report.txt"; fail "--report lacks the ccr1009 regression"; }
sed -n '/^Single-core bound/,$p' "$T/report.txt" | grep -E '^ccr2116-bound +100% +1% +1\.[56][0-9]G +(69[0-9]|70[0-9])\.[0-9]M' >/dev/null ||
	{ cat "$T/report.txt"; fail "--report lacks ccr2116-bound with its throughput"; }
ok "wgwatchd --report prints verdicts, cohorts and the single-core bound with its throughput"

# A restart keeps the verdicts, and when each was reached.
reached() { $PY -c 'import json,sys; print([x["reached_at"] for x in json.load(open(sys.argv[1])) if x["router"] == "ccr1009" and x["direction"] == "tx"][0])' "$1"; }
r1=$(reached "$T/reg.json")
stop_daemon
start_daemon
wait_final 20 12
[ "$(reached "$T/reg.json")" = "$r1" ] || fail "reached_at changed over a restart"
ok "verdicts and the time they were reached survive a restart"

check_log_clean
grep -q 'detector: router ccr1009 wg0 tx 7.21.5 -> 7.22.3: regression (saturation-ceiling' "$T/daemon.log" ||
	fail "the regression was not logged"
ok "the daemon logged the regression and no unexpected error"
