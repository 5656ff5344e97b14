#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 063-cpu-model: the real wgwatch-sim serves tests/system/cpu-model.scenario (docs/sim.md "CPU
# model") at 10x: wg0's core reads near 100 % and carries ~380 Mbit/s tx, other cores their
# work, idle ones 0..2 %; after the 7.22.3 upgrade at 60 s (6 s real) the tripled tx cost
# throttles wg0 to ~152 Mbit/s with core 3 at 100 %, and the counters restarted from 0.
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/cpu-model.scenario" -t 10
SIM_USER=wgwatch SIM_PASSWORD=demo
HUB=$(router_addr ljubljana-ccr1009)
STATIC=$(router_addr static-ccr2004)

loads() { sim_get "$HUB" '/rest/system/resource/cpu?.proplist=load' | tr -dc '0-9,'; }
load_of() { echo "$1" | cut -d, -f$(($2 + 1)); }
# wg0_rate: wg0's tx rate in Mbit/s over ~1 s real (10 s simulated), from the tx-byte counter.
wg0_rate() {
	$PY - "$HUB" "$SIM_PORT" <<'PYEOF'
import base64, json, sys, time, urllib.request
url = "http://%s:%s/rest/interface?name=wg0&.proplist=tx-byte" % (sys.argv[1], sys.argv[2])
auth = "Basic " + base64.b64encode(b"wgwatch:demo").decode()
def read():
    req = urllib.request.Request(url, headers={"Authorization": auth})
    t0 = time.time()
    v = int(json.load(urllib.request.urlopen(req, timeout=5))[0]["tx-byte"])
    return (t0 + time.time()) / 2, v
t1, b1 = read(); time.sleep(1); t2, b2 = read()
print(int((b2 - b1) * 8 / 1e6 / ((t2 - t1) * 10)))
PYEOF
}

l=$(loads)
[ "$(echo "$l" | tr ',' '\n' | wc -l)" -eq 9 ] || fail "want 9 loads: $l"
[ "$(load_of "$l" 3)" -ge 85 ] || fail "core 3 (wg0) reads $(load_of "$l" 3), want >= 85: $l"
c0=$(load_of "$l" 0)
[ "$c0" -ge 20 ] && [ "$c0" -le 45 ] || fail "core 0 (work 30 +-20%) reads $c0: $l"
for c in 4 5 6 7 8; do [ "$(load_of "$l" $c)" -le 2 ] || fail "idle core $c reads $(load_of "$l" $c): $l"; done
ok "before the upgrade: loads $l"
r=$(wg0_rate)
[ "$r" -ge 330 ] && [ "$r" -le 420 ] || fail "wg0 tx at $r Mbit/s before the upgrade, want ~380"
ok "wg0 carries $r Mbit/s tx under its ceiling"
[ "$(sim_get "$STATIC" '/rest/system/resource/cpu?.proplist=load' | tr -dc '0-9,')" = "12,9,7,5" ] ||
	fail "the static router's loads changed"
ok "the static-model router keeps its cpu_load"

wait_until 15 sh -c "curl -fsS -u wgwatch:demo 'http://$HUB:$SIM_PORT/rest/system/resource' | grep -q '7.22.3'" ||
	fail "the upgrade at 60 s never showed"
tx=$(sim_get "$HUB" '/rest/interface?name=wg0&.proplist=tx-byte' | tr -dc '0-9')
[ "$tx" -lt 1000000000 ] || fail "wg0 tx-byte $tx right after the upgrade's reboot"
sleep 0.5
r=$(wg0_rate)
l=$(loads)
[ "$(load_of "$l" 3)" -eq 100 ] || fail "core 3 reads $(load_of "$l" 3) after the upgrade, want 100: $l"
[ "$r" -ge 135 ] && [ "$r" -le 170 ] || fail "wg0 tx at $r Mbit/s after the upgrade, want ~152"
ok "after the upgrade: wg0 throttled to $r Mbit/s, core 3 at 100 %"
