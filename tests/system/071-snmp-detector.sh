#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 071-snmp-detector: hubs polled over SNMP only are judged like REST ones. Their WireGuard
# interfaces (ifType 1, told by name: wg_names, default wg* and wireguard*) are stored with
# type wg, so the CCR1009's tx regression gets its verdict, the CHR's unchanged upgrade its
# own, and an interface whose name wg_names does not cover gets none until wg_names names it.
. "$top_srcdir/tests/system/lib.sh"
COMMUNITY=det-c0mm-$$

start_sim "$top_srcdir/tests/system/snmp-detector.scenario" --snmp-only --snmp-community "$COMMUNITY"
! grep -q "^rest = " "$T/routers.conf" || fail "--snmp-only config fragment has rest ="
# every = 1h: the verdicts must come from the store's news of the upgrade and from the windows
# filling, never from the detector's own rounds.
write_conf 250ms 200ms "[detector]" "before = 50s" "after = 50s" "min_samples = 40" "every = 1h"

out=$("$DAEMON" -c "$T/wgwatch.conf" --once 2>"$T/once.log") || { cat "$T/once.log"; fail "--once"; }
echo "$out"
echo "$out" | grep -q '^ccr1009 up 7.21.5 CCR1009-7G-1C-1S+ [^ ]* cores=9 wg=1 ' || fail "ccr1009: wireguard1 not WireGuard"
echo "$out" | grep -q '^chr up 7.21.5 CHR [^ ]* cores=4 wg=1 ' || fail "chr: wg0 not WireGuard"
echo "$out" | grep -q '^ccr2004 up .* wg=0 ' || fail "ccr2004: tun-hq taken for WireGuard"
ok "--once over SNMP only: wireguard1 and wg0 are WireGuard, tun-hq is not"

start_daemon
wait_final 200 4
t_final=$(date +%s%3N)
$PY - "$T/reg.json" "$t_final" <<'PY' || { cat "$T/reg.json"; fail "verdicts"; }
import datetime, json, sys
vs = json.load(open(sys.argv[1]))
# final within ~one poll interval of the moment the data allowed it: window end + 2 intervals
# + the 5 s a poll may gather in the store before its commit (STORE_GATHER_MS)
up = min(datetime.datetime.fromisoformat(x["upgraded_at"].replace("Z", "+00:00")).timestamp() for x in vs)
late = int(sys.argv[2]) / 1000 - (up + 50 + 0.5 + 5)
print("verdicts final %.1f s after the data allowed it" % late)
assert late < 3, late
v = {(x["router"], x["interface"], x["direction"]): x for x in vs}
assert sorted(v) == [("ccr1009", "wireguard1", "rx"), ("ccr1009", "wireguard1", "tx"),
                     ("chr", "wg0", "rx"), ("chr", "wg0", "tx")], sorted(v)
x = v[("ccr1009", "wireguard1", "tx")]
assert x["final"] and x["verdict"] == "regression" and x["method"] == "saturation-ceiling", x
assert abs(x["ratio"] - 1 / 3) <= 0.03 and x["cores"] == "3", x
assert abs(x["before_bps"] - 377e6) < 15e6 and abs(x["after_bps"] - 126e6) < 6e6, x
# nothing changed for these: never a regression or improvement, and unchanged where ~200 polls
# are precise enough to claim it (at least one of the three). An unchanged ratio within 0.15 of
# 1, as 073 allows: under ASan's slower polls the CHR's tx has come out at 1.13, which the
# threshold (0.2) rightly calls unchanged
calm = [v[("ccr1009", "wireguard1", "rx")], v[("chr", "wg0", "tx")], v[("chr", "wg0", "rx")]]
for x in calm:
    assert x["verdict"] in ("unchanged", "insufficient-data") and x["cores"], x
    assert x["verdict"] != "unchanged" or abs(x["ratio"] - 1) <= 0.15, x
assert v[("ccr1009", "wireguard1", "rx")]["cores"] == "5"
assert any(x["verdict"] == "unchanged" for x in calm), calm
PY
ok "SNMP only: ccr1009 wireguard1 tx regression (0.33) on core 3, rx (core 5) and the CHR not, tun-hq not judged"
ok "with every = 1h, each verdict came as soon as its window allowed it"

http_get /metrics | grep -q '^wgwatch_interface_transmit_bytes_total{router="ccr1009",interface="wireguard1",type="wg"}' ||
	fail "/metrics: wireguard1 not type wg"
ok "/metrics: the SNMP interface carries type=\"wg\""

# wg_names says which names are WireGuard's: naming tun-* makes ccr2004's tunnel one.
stop_daemon
awk '/^\[router ccr2004\]/ { print; print "wg_names = wg*,wireguard*,tun-*"; next } { print }' \
	"$T/routers.conf" >"$T/r.tmp" && mv "$T/r.tmp" "$T/routers.conf"
out=$("$DAEMON" -c "$T/wgwatch.conf" --once 2>>"$T/once.log") || { cat "$T/once.log"; fail "--once"; }
echo "$out" | grep -q '^ccr2004 up .* wg=1 ' || fail "ccr2004: wg_names = tun-* did not make tun-hq WireGuard: $out"
echo "$out" | grep -q '^chr up .* wg=1 ' || fail "chr lost wg0 to ccr2004's wg_names"
ok "wg_names = ...,tun-* on one router makes its tun-hq a WireGuard interface"
