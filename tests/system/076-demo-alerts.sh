#!/bin/sh
# 076-demo-alerts: the shipped demo's upgrades (sim/demo.scenario at 4320x, as in 092) replayed
# with the push to a real Alertmanager and hold = 0, so that even a provisional verdict would
# alert; a webhook receiver records every notification Alertmanager sends. The only upgrade
# alerts ever raised are the CCR1009's tx regressions (its wg0 and wg1 share the pinned core
# whose encrypt got dearer): the demo's upgrades that change nothing
# never fire, not even for a moment, and the daemon never logged another regression.
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

start_sim "$top_srcdir/sim/demo.scenario" -t 4320
write_conf 1s 900ms "[detector]" "before = 12s" "after = 12s" "min_samples = 8" "every = 2s" "hold = 0" \
	"[alert]" "alertmanager = http://127.0.0.1:$AM_PORT/" "resend = 2s"
start_daemon

# Every version change of the demo judged final (the last, the CCR1009's, at simulated day 1).
all_final() {
	http_get /api/v1/regressions >"$T/reg.json" && $PY - "$T/reg.json" <<-'PY'
	import json, sys
	vs = json.load(open(sys.argv[1]))
	routers = {v["router"] for v in vs}
	sys.exit(0 if vs and all(v["final"] for v in vs) and "ljubljana-ccr1009" in routers else 1)
	PY
}
wait_until 90 all_final || { cat "$T/reg.json"; fail "the demo's verdicts not final in time"; }
ok "every version change of the demo has its final verdict"

# The CCR1009 regression reached the receiver through Alertmanager.
ccr_noted() { grep -q '"alertname": "WgwatchUpgradeRegression"' "$T/notes.jsonl" 2>/dev/null; }
wait_until 30 ccr_noted || fail "no regression notification reached the webhook"

$PY - "$T/notes.jsonl" "$T/reg.json" <<'PY' || { cat "$T/notes.jsonl"; fail "alerts"; }
import json, sys
notes = [json.loads(l) for l in open(sys.argv[1])]
fired = {(a["labels"]["alertname"], a["labels"].get("router"), a["labels"].get("interface"),
          a["labels"].get("direction")) for n in notes for a in n["alerts"]}
upgrade = sorted(f for f in fired if f[0] == "WgwatchUpgradeRegression")
assert upgrade == [("WgwatchUpgradeRegression", "ljubljana-ccr1009", i, "tx") for i in ("wg0", "wg1")], upgrade
vs = json.load(open(sys.argv[2]))
others = {v["router"] for v in vs} - {"ljubljana-ccr1009"}
assert others, "the demo judged no other upgrade"
print("upgrade alerts: ljubljana-ccr1009 wg0 tx and wg1 tx; judged without an alert: %s"
      % ", ".join(sorted(others)))
PY
ok "the upgrade alerts of the whole replay are the CCR1009's tx; the unchanged upgrades never fired"

! grep 'detector: router' "$T/daemon.log" | grep ': regression' | grep -Ev 'router ljubljana-ccr1009 wg[01] tx ' ||
	fail "the daemon logged a regression other than the CCR1009's, even if only provisional"
ok "no provisional regression on any other router or direction in the daemon's log"
check_log_clean
