#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 077-confounders: upgrades that coincide with a CPU clock drop, with rising WAN tx-queue drops,
# with an MTU change, and a clean one (tests/system/confounders.scenario): each verdict names
# what else moved across the upgrade in /api/v1/regressions, on the router page and in
# wgwatch_upgrade_confounders; a regression with a confounder is still a regression. (The
# alert's annotation is asserted in tests/unit/alert_test.)
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

start_sim "$top_srcdir/tests/system/confounders.scenario"
# the WAN is ether1 (the sim's ether1 carries the tunnels): named by `wan` but for chr-wan, whose
# WAN is found from its peers' endpoints, and chr-old, which cannot tell
sed '/^\[router chr-\(wan\|old\)\]$/!s/^\[router .*\]$/&\nwan = ether1/' "$T/routers.conf" >"$T/routers.tmp" &&
	mv "$T/routers.tmp" "$T/routers.conf"
write_conf 250ms 200ms "[detector]" "before = 60s" "after = 60s" "min_samples = 40" "every = 2s"
start_daemon

wait_final 300 8
ok "8 verdicts final (4 upgraded routers, tx/rx of wg0)"

$PY - "$T/reg.json" <<'PY' || { cat "$T/reg.json"; fail "confounders in the API"; }
import json, re, sys
v = {(x["router"], x["direction"]): x for x in json.load(open(sys.argv[1]))}
x = v[("rb5009", "tx")]
assert x["verdict"] == "regression" and abs(x["ratio"] - 800 / 1400) <= 0.08, x
assert x["confounders"] == ["cpu frequency 1400 → 800 MHz across the upgrade"], x
assert "cpu frequency 1400 → 800 MHz across the upgrade" in v[("rb5009", "rx")]["confounders"], v[("rb5009", "rx")]
x = v[("chr-wan", "tx")]
assert x["verdict"] == "regression" and abs(x["ratio"] - 1 / 3) <= 0.05, x
assert len(x["confounders"]) == 1 and re.fullmatch(r"ether1 tx-queue-drop rose from 0 to 1[12]/s", x["confounders"][0]), x
x = v[("ccr1009", "tx")]
assert x["verdict"] == "regression" and x["confounders"] == [], x
assert v[("ccr1009", "rx")]["confounders"] == [], v[("ccr1009", "rx")]
x = v[("chr-mtu", "tx")]
assert x["verdict"] != "regression" and x["confounders"] == ["wg0 MTU 1420 → 1280"], x
for r in ("rb5009", "chr-wan", "ccr1009", "chr-mtu"):
    x = v[(r, "tx")]
    print("%s tx: %s (%s, ratio %s), confounders %s" % (r, x["verdict"], x["method"], x["ratio"], x["confounders"]))
PY
ok "/api/v1/regressions: cpu frequency, ether1 tx-queue-drop and MTU confounders; none on the clean regression"

http_get /router/rb5009 >"$T/rb5009.html" || fail "router page rb5009"
grep -q 'Also moved: cpu frequency 1400 → 800 MHz across the upgrade' "$T/rb5009.html" ||
	fail "the rb5009 page does not show its confounder"
http_get /router/ccr1009 >"$T/ccr1009.html" || fail "router page ccr1009"
grep -q 'regression' "$T/ccr1009.html" || fail "the ccr1009 page lacks its regression"
! grep -q 'Also moved' "$T/ccr1009.html" || fail "the clean regression shows a confounder"
ok "the router page shows a verdict's confounders, and none for the clean regression"

http_get /metrics >"$T/metrics.txt"
val() { $EXPO "$T/metrics.txt" "$@"; }
L="interface=wg0 direction=tx from_version=7.21.5 to_version=7.22.3"
[ "$(val wgwatch_upgrade_confounders router=rb5009 $L)" = 1 ] || fail "rb5009: wgwatch_upgrade_confounders not 1"
[ "$(val wgwatch_upgrade_confounders router=ccr1009 $L)" = 0 ] || fail "ccr1009: wgwatch_upgrade_confounders not 0"
[ "$(val wgwatch_upgrade_regression router=rb5009 $L)" = 1 ] || fail "rb5009 tx not flagged a regression"
ok "/metrics: wgwatch_upgrade_confounders counts them; the regression is still flagged"

grep -q 'detector: router rb5009 wg0 tx 7.21.5 -> 7.22.3: regression (saturation-ceiling.*; confounders: cpu frequency 1400 → 800 MHz across the upgrade$' "$T/daemon.log" ||
	fail "the log line of the rb5009 regression does not name its confounder"
check_log_clean
ok "the log line of a regression names its confounders; no unexpected error"

# chr-wan's WAN from its peers' endpoints; chr-old's refusal said once, its polls unharmed
grep -q "rest: router chr-wan: WAN from the peers' endpoints (/ip/route/check): ether1 (to 198\.51\.100\." "$T/daemon.log" ||
	fail "chr-wan's WAN was not found from its peers' endpoints"
! grep -q "rest: router chr-wan: WAN .*ether2" "$T/daemon.log" || fail "chr-wan: ether2 carries no tunnel"
! grep "WAN from the peers' endpoints" "$T/daemon.log" | grep -qv "router chr-wan:" ||
	fail "a router with wan = was asked for its WAN"
n=$(grep -c "rest: router chr-old: /ip/route/check of a peer's endpoint failed (HTTP 400 Bad Request: no such command" "$T/daemon.log")
[ "$n" = 1 ] || fail "chr-old's refusal logged $n times, not once"
http_get /metrics >"$T/metrics2.txt"
[ "$($EXPO "$T/metrics2.txt" wgwatch_router_up router=chr-old)" = 1 ] || fail "chr-old is not up"
ok "chr-wan's WAN (ether1) found from its peers' endpoints; chr-old's refusal said once, polls go on"
