#!/bin/sh
# 075-alertmanager: [alert] alertmanager = URL against Debian's real prometheus-alertmanager on
# loopback. The CCR1009 regression (tests/system/alert.scenario) is listed by Alertmanager's
# /api/v2/alerts with its labels, and resolved when the router's next upgrade replaces that
# verdict; a real Prometheus loading web/prometheus/wgwatch-rules.yml fires the same alert to
# the same Alertmanager; and an Alertmanager that accepts but never answers delays no poll.
. "$top_srcdir/tests/system/lib.sh"

AM=$(command -v prometheus-alertmanager) ||
	fail "prometheus-alertmanager not installed (apt-get install prometheus-alertmanager)"
command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"

AM_PORT=$(free_port)
cat >"$T/alertmanager.yml" <<YML
route: { receiver: 'null', group_wait: 1s, group_interval: 1s }
receivers: [{ name: 'null' }]
YML
"$AM" --config.file="$T/alertmanager.yml" --storage.path="$T/am" \
	--web.listen-address="127.0.0.1:$AM_PORT" --cluster.listen-address= --log.level=warn \
	2>"$T/alertmanager.log" &
PIDS="$PIDS $!"
wait_until 30 curl -fsS "http://127.0.0.1:$AM_PORT/-/ready" || fail "Alertmanager never became ready"

start_sim "$top_srcdir/tests/system/alert.scenario"
write_conf 1s 900ms "[detector]" "before = 25s" "after = 25s" "min_samples = 10" "every = 1s" \
	"[alert]" "alertmanager = http://127.0.0.1:$AM_PORT/" "resend = 1m"
start_daemon

cp "$top_srcdir/web/prometheus/wgwatch-rules.yml" "$T/"
start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: ['$T/wgwatch-rules.yml']
alerting: { alertmanagers: [{ static_configs: [{ targets: ['127.0.0.1:$AM_PORT'] }] }] }
scrape_configs:
  - job_name: wgwatch
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
YML

# am_count SOURCE ALERTNAME [label=value...]: how many alerts Alertmanager lists with those
# labels; SOURCE is "direct" (pushed by wgwatchd: no job label) or "prometheus" (job=wgwatch).
am_count() {
	curl -fsS --max-time 5 "http://127.0.0.1:$AM_PORT/api/v2/alerts" >"$T/am.json" &&
	$PY - "$T/am.json" "$@" <<'PY'
import json, sys
alerts, src, name = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
want = dict(kv.split("=", 1) for kv in sys.argv[4:])
want["alertname"] = name
n = 0
for a in alerts:
    l = a["labels"]
    if (src == "direct") == ("job" in l) or a["status"]["state"] != "active":
        continue
    if all(l.get(k) == v for k, v in want.items()):
        n += 1
print(n)
PY
}
am_is() { n_want=$1; shift; [ "$(am_count "$@")" = "$n_want" ]; }
REG="router=ccr1009 interface=wg0 from_version=7.21.5 to_version=7.22.3"

# 1. Pushed by wgwatchd as soon as the detector judges it (upgrade at 30 s + 10 samples).
wait_until 75 am_is 1 direct WgwatchUpgradeRegression $REG direction=tx severity=warning ||
	{ cat "$T/am.json"; fail "Alertmanager does not list the pushed ccr1009 tx regression"; }
$PY - "$T/am.json" <<'PY' || { cat "$T/am.json"; fail "the pushed alert's content"; }
import json, sys
a = [a for a in json.load(open(sys.argv[1])) if a["labels"]["alertname"] == "WgwatchUpgradeRegression"
     and "job" not in a["labels"]]
assert len(a) == 1, a                     # tx only: rx held, the CHR held
a = a[0]
assert set(a["labels"]) == {"alertname", "router", "interface", "direction", "from_version",
                            "to_version", "severity"}, a["labels"]
d = a["annotations"]["description"]
assert "saturation-ceiling" in d and "ratio 0.3" in d and "Mbit/s" in d, d
assert a["annotations"]["summary"].startswith("ccr1009 wg0 tx: capacity down after 7.21.5 -> 7.22.3"), a
assert a["generatorURL"].endswith("/router/ccr1009"), a
PY
am_is 0 direct WgwatchUpgradeRegression router=chr || fail "an alert for the unharmed CHR"
wait_until 10 am_is 1 direct WgwatchSingleCoreBound router=ccr1009 severity=info ||
	{ cat "$T/am.json"; fail "ccr1009 not pushed as single-core bound"; }
am_is 0 direct WgwatchSingleCoreBound router=chr || fail "the CHR pushed as single-core bound"
ok "Alertmanager lists the pushed ccr1009 tx regression (labels, figures) and its single-core bound"

# 2. Prometheus with the shipped rules fires the same regression to the same Alertmanager.
wait_until 40 am_is 1 prometheus WgwatchUpgradeRegression $REG direction=tx severity=warning ||
	{ cat "$T/am.json"; fail "Prometheus did not fire WgwatchUpgradeRegression to Alertmanager"; }
ok "Prometheus loading wgwatch-rules.yml fires WgwatchUpgradeRegression to the same Alertmanager"

# 3. The router upgrades again at 85 s: the 7.21.5 -> 7.22.3 verdict is no longer the latest,
# so the pushed alert is sent with endsAt = now and leaves the list (its own endsAt, 4 x resend
# = 4 min ahead, cannot be what removed it).
wait_until 60 am_is 0 direct WgwatchUpgradeRegression $REG ||
	{ cat "$T/am.json"; fail "the pushed regression was not resolved after the next upgrade"; }
http_get /api/v1/regressions >"$T/reg.json"
$PY - "$T/reg.json" <<'PY' || { cat "$T/reg.json"; fail "verdicts after the second upgrade"; }
import json, sys
v = [x for x in json.load(open(sys.argv[1])) if x["router"] == "ccr1009" and x["direction"] == "tx"]
old = [x for x in v if x["to_version"] == "7.22.3"][0]
assert old["verdict"] == "regression" and not old["latest"], old
assert any(x["to_version"] == "7.22.4" and x["latest"] and x["verdict"] != "regression" for x in v), v
PY
grep -q 'alert: resolved {"alertname":"WgwatchUpgradeRegression"' "$T/daemon.log" ||
	fail "the resolution was not logged"
am_is 1 direct WgwatchSingleCoreBound router=ccr1009 || fail "the single-core bound alert went too"
ok "the regression alert is resolved once the next upgrade replaces the verdict; the bound one holds"
check_log_clean

# 4. An Alertmanager that accepts connections and never answers: pushes time out (2 s each,
# retried with back-off), are logged once, and polls keep their 1 s schedule.
stop_daemon
cat >"$T/hole.py" <<'PY'
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    open(sys.argv[2] + ".tmp", "w").write(str(len(held)))
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
PY
$PY "$T/hole.py" "$T/hole.port" "$T/hole.count" &
PIDS="$PIDS $!"
wait_until 10 test -s "$T/hole.port" || fail "the silent server did not start"
sed -i -e "s|^alertmanager = .*|alertmanager = http://127.0.0.1:$(cat "$T/hole.port")|" \
	-e 's|^resend = .*|resend = 4s\ntimeout = 2s|' "$T/wgwatch.conf"
since=$($PY -c 'import time; print(int(time.time() * 1000))')
start_daemon
hung() { [ "$(cat "$T/hole.count" 2>/dev/null || echo 0)" -ge 3 ]; }
wait_until 40 hung || fail "wgwatchd did not retry the push (connections: $(cat "$T/hole.count" 2>/dev/null))"
gaps=$(sqlite3 "$T/wgwatch.db" "SELECT max(g), count(*) FROM (SELECT p.time_ms - lag(p.time_ms) OVER
	(PARTITION BY p.router_id ORDER BY p.time_ms) AS g FROM polls p JOIN routers r ON r.id = p.router_id
	WHERE p.time_ms >= $since) WHERE g IS NOT NULL")
max=${gaps%%|*} n=${gaps#*|}
[ "$n" -ge 10 ] || fail "only $n poll gaps stored while the pushes hung"
[ "$max" -le 1600 ] || fail "a router waited $max ms between polls at 1 s while pushes hung"
warns=$(grep -c 'alert: cannot push' "$T/daemon.log" || true)
[ "$warns" = 1 ] || { grep 'alert:' "$T/daemon.log"; fail "the failed push was logged $warns times, want once"; }
ok "a silent Alertmanager: $(cat "$T/hole.count") pushes timed out, logged once; polls on time (longest gap ${max} ms over $n)"
# A push may be hanging right now: SIGTERM aborts it and wgwatchd exits 0.
kill -TERM "$DAEMON_PID"
rc=0
wait "$DAEMON_PID" || rc=$?
[ "$rc" = 0 ] || fail "wgwatchd exited $rc on SIGTERM while pushes hung"
check_log_clean
ok "wgwatchd stops cleanly while a push hangs"
