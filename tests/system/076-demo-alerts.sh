#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 076-demo-alerts: the shipped demo (sim/demo.scenario, its 14 days of past written by
# wgwatch-fill as sim/demo.sh does) with the push to a real Alertmanager and hold = 0, so that
# even a provisional verdict would alert; a webhook receiver records every notification
# Alertmanager sends. The only upgrade alerts ever raised are the TileGX boxes' encrypt (tx)
# regressions of 7.22.3 (the CCR1009's pinned wg0 among them): the demo's upgrades that change
# nothing, and every decrypt, never fire, not even for a moment, and the daemon never logged
# another regression.
. "$top_srcdir/tests/system/lib.sh"
WH_PORT=$(free_port)
$PY "$top_srcdir/tests/system/webhook.py" 127.0.0.1 "$WH_PORT" "$T/notes.jsonl" "$T/wh.ready" 2>"$T/webhook.log" &
PIDS="$PIDS $!"
wait_until 10 test -f "$T/wh.ready" || fail "the webhook receiver never started"

cat >"$T/alertmanager.yml" <<YML
route: { receiver: 'wh', group_by: ['alertname', 'router', 'interface', 'direction'],
         group_wait: 1s, group_interval: 1s, repeat_interval: 1h }
receivers: [{ name: 'wh', webhook_configs: [{ url: 'http://127.0.0.1:$WH_PORT/', send_resolved: true }] }]
YML
start_alertmanager "$T/alertmanager.yml"

EPOCH=$(($(date +%s) - 14 * 86400))
start_sim "$top_srcdir/sim/demo.scenario" -e "$EPOCH"
write_conf 10s 3s "[detector]" "hold = 0" "[alert]" "alertmanager = http://127.0.0.1:$AM_PORT/" "resend = 2s"
"$top_builddir/wgwatch-fill" -c "$T/wgwatch.conf" -e "$EPOCH" -i 10m "$top_srcdir/sim/demo.scenario" \
	2>"$T/fill.log" || fail "wgwatch-fill: $(tail -3 "$T/fill.log")"
start_daemon

# Every version change of the demo judged final (the last, the CCR1036s', at day 6.5).
all_final() {
	http_get /api/v1/regressions >"$T/reg.json" && $PY - "$T/reg.json" <<-'PY'
	import json, sys
	vs = json.load(open(sys.argv[1]))
	routers = {v["router"] for v in vs}
	sys.exit(0 if vs and all(v["final"] for v in vs) and "tile-ccr1036-03" in routers else 1)
	PY
}
wait_until 240 all_final || { cat "$T/reg.json"; fail "the demo's verdicts not final in time"; }
ok "every version change of the demo has its final verdict"

# Every regression reached the receiver through Alertmanager, and nothing else did.
alerts_match() {
	$PY - "$T/notes.jsonl" "$T/reg.json" <<'PY'
import json, sys
notes = [json.loads(l) for l in open(sys.argv[1])]
fired = {(a["labels"]["alertname"], a["labels"].get("router"), a["labels"].get("interface"),
          a["labels"].get("direction")) for n in notes for a in n["alerts"]}
upgrade = {f[1:] for f in fired if f[0] == "WgwatchUpgradeRegression"}
vs = json.load(open(sys.argv[2]))
regressed = {(v["router"], v["interface"], v["direction"]) for v in vs if v["verdict"] == "regression"}
tile = {"ljubljana-ccr1009", "tile-ccr1036-01", "tile-ccr1036-02", "tile-ccr1036-03"}
assert upgrade == regressed, (sorted(upgrade), sorted(regressed))
assert {(r, "wg0", "tx") for r in tile} <= upgrade, sorted(upgrade)
assert all(r in tile and d == "tx" for r, i, d in upgrade), sorted(upgrade)
others = {v["router"] for v in vs} - tile
assert others, "the demo judged no other upgrade"
print("upgrade alerts: %s; judged without an alert: %s"
      % (", ".join("%s %s %s" % u for u in sorted(upgrade)), ", ".join(sorted(others))))
PY
}
wait_until 60 alerts_match || { alerts_match || :; cat "$T/notes.jsonl" | head -c 3000; fail "alerts"; }
alerts_match
ok "the upgrade alerts are the TileGX boxes' tx regressions; the unchanged upgrades never fired"

! grep 'detector: router' "$T/daemon.log" | grep ': regression' | grep -Ev 'router (ljubljana-ccr1009|tile-ccr1036-0[123]) wg[01] tx ' ||
	fail "the daemon logged a regression other than a TileGX encrypt, even if only provisional"
ok "no provisional regression on any other router or direction in the daemon's log"
check_log_clean
