#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 094-ccr1009-report: the demo's CCR1009 (sim/demo.scenario itself, at 10x, simulated second 0 set
# so that its 7.21.5 -> 7.22.3 upgrade at day 6 comes 20 s after the start) is profiled and probed
# by wgwatchd on each side of the upgrade, and the upgrade's report reads like what its operator
# wrote by hand: the 300M probe through wg1 falling from ~300 to ~139 Mbit/s, and on the pinned
# core 3 networking rising 38 % -> ~90 % while encrypting holds at ~9 %. JSON and Markdown.
. "$top_srcdir/tests/system/lib.sh"
SC="$top_srcdir/sim/demo.scenario"
CCR=ljubljana-ccr1009
SCALE=10
LEAD=20 # real seconds before the upgrade

start_sim "$SC" -D -t $SCALE -e $(($(date +%s) - 6 * 86400 + LEAD * SCALE))
# Only the CCR1009: the rest of the demo fleet would only add polls.
awk -v r="[router $CCR]" '/^\[router /{keep = ($0 == r)} keep' "$T/routers.conf" >"$T/ccr.conf"
mv "$T/ccr.conf" "$T/routers.conf"
grep -q "^diag_user = " "$T/routers.conf" || fail "no diag_user from -D: $(cat "$T/routers.conf")"
printf '%s\n' "$(sed -n 's/^btest_password = //p' "$SC")" >"$T/btest.pass"
chmod 600 "$T/btest.pass"
cat >>"$T/routers.conf" <<EOF2
probe = 172.17.1.1
probe_rate = 300M
probe_user = $(sed -n 's/^btest_user = //p' "$SC")
probe_password_file = $T/btest.pass
probe_duration = 3s
probe_every = 1h
profile_duration = 3s
profile_every = 1h
EOF2
write_conf 1s 900ms
start_daemon

# The upgrade, once the router answers again after its reboot (boot_time 3m: 18 s here).
uid() { $PY - "$T/wgwatch.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(db.execute("SELECT id FROM version_history WHERE kind = 'upgrade'").fetchone()[0])
PY
}
wait_until $((LEAD + 40)) uid || fail "no upgrade of $CCR seen: $(grep -c poll "$T/daemon.log") poll lines"
id=$(uid)
# ... and the report once it has a probe and a profile after it.
complete() { http_get "/api/v1/upgrades/$id/report" >"$T/report.json" && $PY - "$T/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(not (r["profile"]["after"] and any(p["side"] == "after" for p in r["probes"])))
PY
}
wait_until 60 complete || fail "the report never got its probe and profile after: $(cat "$T/report.json"); $(grep diag "$T/daemon.log")"
$PY - "$T/report.json" <<'PY' || fail "the report is not the CCR1009's case (above)"
import json, re, sys
r = json.load(open(sys.argv[1]))
assert r["router"] == "ljubljana-ccr1009" and r["board"] == "CCR1009-7G-1C-1S+" and r["architecture"] == "tile", r
assert (r["from_version"], r["to_version"]) == ("7.21.5", "7.22.3") and r["upgraded_at"].endswith("Z"), r
sides = {p["side"]: p for p in r["probes"]}
assert len(r["probes"]) == 2 and set(sides) == {"before", "after"}, r["probes"]
for p in sides.values():
    assert set(p) == {"side", "time", "direction", "measured", "offered_bps", "delivered_bps",
                      "lost_packets", "busiest_core_load"}, p
    assert p["direction"] == "transmit" and p["measured"] == "transmit" and p["offered_bps"] == 300e6, p
    assert p["lost_packets"] is None and 0 <= p["busiest_core_load"] <= 1, p
b, a = sides["before"]["delivered_bps"] / 1e6, sides["after"]["delivered_bps"] / 1e6
print("probe through wg1: %.1f -> %.1f Mbit/s" % (b, a))
assert abs(b - 300) < 3 and abs(a - 138.9) < 4, (b, a)
def share(rows, name):
    return next((x["usage"] for x in rows if x["cpu"] == 3 and x["name"] == name), 0)
pb, pa = r["profile"]["before"], r["profile"]["after"]
assert pb and pa, r["profile"]
print("core 3: networking %.1f -> %.1f %%, encrypting %.1f -> %.1f %%" % (
    share(pb, "networking"), share(pa, "networking"), share(pb, "encrypting"), share(pa, "encrypting")))
assert abs(share(pb, "networking") - 38) < 4 and abs(share(pa, "networking") - 90.5) < 4, "networking"
assert abs(share(pb, "encrypting") - 9) < 2 and abs(share(pa, "encrypting") - 9.5) < 2, "encrypting"
d = r["profile_diff"]
assert re.match(r"networking 3\d % → 9\d % on cpu3, .*encrypting \d+ % → \d+ %", d), d
print("profile_diff:", d)
PY
ok "upgrade $id of $CCR: the report has the probe pair and the profiles around it"

code=$(curl -s -o "$T/report.md" -w '%{http_code}' "http://127.0.0.1:$HTTP_PORT/api/v1/upgrades/$id/report.md")
[ "$code" = 200 ] || fail "report.md: HTTP $code"
grep -q "^# WireGuard throughput after an upgrade: $CCR, RouterOS 7.21.5 → 7.22.3" "$T/report.md" ||
	fail "report.md head: $(head -3 "$T/report.md")"
grep -Eq '^\| before \| .* \| transmit \| transmit \| 300.0 Mbit/s \| (29[7-9]|30[0-2])\.[0-9] Mbit/s \| - \|' "$T/report.md" ||
	fail "report.md lacks the probe before: $(cat "$T/report.md")"
grep -q '^| after | .* | transmit | transmit | 300.0 Mbit/s | 1[34][0-9]\.[0-9] Mbit/s | - |' "$T/report.md" ||
	fail "report.md lacks the probe after: $(cat "$T/report.md")"
grep -q '^Share of the busiest core, before → after: networking 3[0-9] % → 9[0-9] % on cpu3, .*encrypting ' \
	"$T/report.md" || fail "report.md lacks the profile diff: $(cat "$T/report.md")"
grep -q '^| cpu3 | 100 % | 100 % |$' "$T/report.md" || fail "report.md lacks core 3's load: $(cat "$T/report.md")"
grep -q 'probe-demo\|diag-demo' "$T/report.json" "$T/report.md" "$T/daemon.log" && fail "a secret in the report or the log"
check_log_clean
ok "report.md: $(grep -o 'after | [^|]*| transmit | transmit | [^|]*| [^|]*' "$T/report.md"); $(grep -o 'networking [0-9]* % → [0-9]* % on cpu3' "$T/report.md")"
