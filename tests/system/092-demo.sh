#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 092-demo: the README's demo as a user runs it: sim/demo.sh from the build directory, with its
# state in $T and the dashboard on a free port. wgwatch-fill writes 14 days of the demo fleet's
# past before the daemon starts, so the upgrades are judged within a minute: every verdict the
# demo claims (sim/demo.scenario's header) is asserted on the demo's own database, and no upgrade
# that changes nothing ever showed a regression, not even for a moment (verdict_history). Then
# headless Chromium loads the pages (fleet, router, upgrades) at true rates, with screenshots in
# $T and $top_builddir/screenshots/ (demo-*.png). Stopping demo.sh stops everything it started,
# and a second run starts from an empty state.
. "$top_srcdir/tests/system/lib.sh"

need_chromium
HTTP_PORT=$(free_port)
BASE="http://127.0.0.1:$HTTP_PORT"
DEMO="$T/demo"
CCR=ljubljana-ccr1009

run_demo() {
	(cd "$top_builddir" && WGWATCH_DEMO_DIR="$DEMO" WGWATCH_DEMO_LISTEN="127.0.0.1:$HTTP_PORT" \
		exec sh "$top_srcdir/sim/demo.sh") >"$T/demo$1.log" 2>&1 &
	DEMO_PID=$!
	PIDS="$PIDS $DEMO_PID"
}
# The pids of processes whose command line names the demo's directory (sim, fill, daemon).
demo_procs() { pgrep -f -- "$DEMO/" || true; }
no_demo_procs() { ! pgrep -f -- "$DEMO/" >/dev/null; }

# Every upgrade of the demo has its final verdicts (after windows complete, days ago).
all_final() {
	http_get /api/v1/regressions >"$T/reg.json" && $PY - "$T/reg.json" <<-'PY'
	import json, sys
	vs = json.load(open(sys.argv[1]))
	routers = {v["router"] for v in vs}
	want = {"ljubljana-ccr1009", "tile-ccr1036-03", "rb4011-05", "chr-04", "ccr2004-upgrade-02"}
	sys.exit(0 if want <= routers and all(v["final"] for v in vs) else 1)
	PY
}

# ... and the live polls have begun: 37 routers up, the 3 faulty ones down.
all_polled() {
	http_get /api/v1/routers >"$T/routers.json" && $PY - "$T/routers.json" <<-'PY'
	import json, sys
	rs = json.load(open(sys.argv[1]))
	sys.exit(0 if len(rs) == 40 and sum(r["up"] for r in rs) == 37 else 1)
	PY
}
# ... and polled twice, so the fleet table has every up router's two rates (the third time, to
# be sure). Counted in the fleet table alone: the capacity table under it has rates too. A poll
# that times out on a loaded machine starts a router's rates again, so it is asked again
# right before the page's DOM is read.
rates_shown() {
	[ "$(http_get / | sed -n '/id="fleet"/,/<\/table>/p' | grep -o '[0-9] [MG]bit/s' | wc -l)" -ge 74 ]
}

run_demo 1
wait_until 240 all_polled || fail "the demo's routers not up within 240 s"
wait_until 60 rates_shown || fail "the fleet page shows no rates within 60 s"
wait_until 240 all_final || { tail -5 "$T/demo1.log"; fail "the demo's verdicts not final within 240 s"; }
ok "demo: every upgrade judged, final, $(grep -o '[0-9]* polls of [0-9]* routers over [0-9.]* days in [0-9.]* s' "$DEMO/fill.log")"
grep -q 'Look first at ljubljana-ccr1009' "$T/demo1.log" || fail "the demo does not say what to look at first"
# The daemon logs to its file, so the URLs stay the last lines on the terminal (issue 41).
tail -3 "$T/demo1.log" | grep -q "^  dashboard:  $BASE/\$" && tail -1 "$T/demo1.log" | grep -q "API:" ||
	fail "the demo's URLs are not its last lines: $(tail -5 "$T/demo1.log")"

# ---- the demo's claims, on its own database ----
$PY - "$DEMO/demo.db" <<'PY' || fail "demo verdicts"
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
rows = db.execute("""SELECT r.name, h.old_version, h.new_version, v.interface, v.direction,
                            v.verdict, v.ratio, v.method, v.final, h.id
                     FROM verdicts v JOIN version_history h ON h.id = v.event_id
                     JOIN routers r ON r.id = h.router_id""").fetchall()
got = {(r[0], r[3], r[4]): r for r in rows}
def want(router, iface, d, verdict, lo=None, hi=None):
    r = got.get((router, iface, d))
    assert r, ("no verdict", router, iface, d)
    assert r[8] == 1, ("not final", r)
    ok = r[5] in verdict if isinstance(verdict, tuple) else r[5] == verdict
    assert ok, ("want %s" % (verdict,), r)
    if lo is not None:
        assert lo <= r[6] <= hi, ("ratio", r)
tile = ["ljubljana-ccr1009"] + ["tile-ccr1036-%02d" % i for i in (1, 2, 3)]
for t in tile:
    assert got[(t, "wg0", "tx")][1:3] == ("7.21.5", "7.22.3"), got[(t, "wg0", "tx")]
    want(t, "wg0", "tx", "regression", 0.28, 0.40)   # encrypt 3x dearer
    want(t, "wg0", "rx", "unchanged", 0.90, 1.10)    # decrypt as before
    want(t, "wg1", "tx", ("regression", "insufficient-data"))
    want(t, "wg1", "rx", ("unchanged", "insufficient-data"))
assert got[("ljubljana-ccr1009", "wg0", "tx")][7] == "saturation-ceiling"
same = ["rb4011-%02d" % i for i in range(1, 6)] + ["chr-%02d" % i for i in range(1, 5)] + \
       ["ccr2004-upgrade-01", "ccr2004-upgrade-02"]
for r in same:
    for d in ("tx", "rx"):
        want(r, "wg0", d, "unchanged", 0.85, 1.15)
judged = {k[0] for k in got}
assert judged == set(tile) | set(same), sorted(judged ^ (set(tile) | set(same)))  # none else
# Never a regression, even provisional, on an upgrade that changes nothing or on a decrypt.
bad = db.execute("""SELECT r.name, vh.interface, vh.direction, vh.verdict, vh.ratio
                    FROM verdict_history vh JOIN version_history h ON h.id = vh.event_id
                    JOIN routers r ON r.id = h.router_id
                    WHERE vh.verdict = 'regression' AND (vh.direction = 'rx'
                          OR r.name NOT IN (%s))""" % ",".join("'%s'" % t for t in tile)).fetchall()
assert not bad, bad
# True rates: the CCR1009 encrypted ~385 Mbit/s before and ~128 after, as the real one did.
b, a = db.execute("""SELECT before_bps, after_bps FROM verdicts v JOIN version_history h
                     ON h.id = v.event_id JOIN routers r ON r.id = h.router_id
                     WHERE r.name = 'ljubljana-ccr1009' AND interface = 'wg0' AND direction = 'tx'""").fetchone()
assert 3.2e8 < b < 4.2e8 and 1.0e8 < a < 1.5e8, (b, a)
PY
ok "demo.db: TileGX tx regressions (~0.33), rx unchanged; RB4011, CHR, CCR2004 unchanged, never a regression"

# The CCR1009's upgrade report: wgwatch-fill took its profiles and probes (through wg1, every
# probe_every) in the past as the daemon would have, so each side has both.
uid=$($PY - "$DEMO/demo.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(db.execute("SELECT h.id FROM version_history h JOIN routers r ON r.id = h.router_id"
                 " WHERE r.name = 'ljubljana-ccr1009' AND h.kind = 'upgrade'").fetchone()[0])
PY
) || fail "no upgrade of $CCR in demo.db"
http_get "/api/v1/upgrades/$uid/report" >"$T/report.json" || fail "no report of $CCR's upgrade $uid"
$PY - "$T/report.json" <<'PY' || fail "the demo's CCR1009 report lacks its evidence (above)"
import json, sys
r = json.load(open(sys.argv[1]))
sides = {p["side"]: p["delivered_bps"] / 1e6 for p in r["probes"] if p["measured"] == "transmit"}
assert abs(sides.get("before", 0) - 300) < 3 and abs(sides.get("after", 0) - 138.9) < 4, r["probes"]
assert r["profile"]["before"] and r["profile"]["after"], r["profile"]
assert (r["profile_diff"] or "").startswith("networking 3"), r["profile_diff"]
assert any(v["interface"] == "wg1" and v["direction"] == "tx" and v["method"] == "probe" for v in r["verdicts"]), r["verdicts"]
print("probe %.1f -> %.1f Mbit/s; %s" % (sides["before"], sides["after"], r["profile_diff"]))
PY
ok "$CCR's report: a probe and a profile on each side of its upgrade, from the demo's past"

# ---- the pages, at true rates ----
wait_until 60 rates_shown || fail "the fleet table lacks a router's rates for 60 s"
dump "$BASE/" "$T/fleet.html"
$PY - "$T/fleet.html" <<'PY' || fail "fleet page DOM"
import html, re, sys
d = open(sys.argv[1], encoding="utf-8").read()
text = html.unescape(re.sub(r'<[^>]*>', ' ', d))
fleet = d.split('id="fleet"')[1].split('</table>')[0]   # not the capacity table under it
rows = re.findall(r'<tr[^>]*>\s*<td[^>]*>(.*?)</tr>', fleet, re.S)
names = [re.sub(r'<[^>]*>', ' ', r).split()[0] for r in rows]
assert len(names) == 40, len(names)
# Closest to their limit: the CCR2116's and the CCR1009's pinned encrypt at their limit.
cap = d.split('id="capacity"')[1].split('</table>')[0]
assert "frankfurt-ccr2116" in cap and "ljubljana-ccr1009" in cap and "at its limit" in cap, cap[:600]
flagged = {n for n, r in zip(names, rows) if 'regression' in r}
assert flagged == {"ljubljana-ccr1009", "tile-ccr1036-01", "tile-ccr1036-02", "tile-ccr1036-03"}, flagged
row = html.unescape(re.sub(r'<[^>]*>', ' ', rows[names.index("frankfurt-ccr2116")]))
assert 'single-core bound' in row, row
m = re.search(r'([\d.]+) Gbit/s', row)
assert m and 1.3 <= float(m.group(1)) <= 1.7, row            # 1.6 Gbit/s, not 96
row = html.unescape(re.sub(r'<[^>]*>', ' ', rows[names.index("ljubljana-ccr1009")]))
m = re.search(r'([\d.]+) Mbit/s', row)
assert m and 150 <= float(m.group(1)) <= 280, row            # wg0 ~128 + wg1 ~70 Mbit/s of encrypt
# The badge says which direction and how much: encrypt down about two thirds.
raw = rows[names.index("ljubljana-ccr1009")]
assert re.search(r'<span class="flag regression"[^>]*>tx (?:\u2212|&minus;)6\d(?:\u00a0|&nbsp;)% after '
                 r'7\.22\.3</span>', raw), raw
# Attention first: the regressed, then the bound, then the down; the rest after.
down = [i for i, r in enumerate(rows) if 'class="down"' in r]
assert sorted(names[i] for i in down) == ["rijeka-offline", "split-hang", "zagreb-auth"], names
lead = len([r for r in rows if 'flag regression' in r or 'flag bound' in r])
assert down == [lead, lead + 1, lead + 2], (names, down, lead)
assert set(names[:4]) == flagged, names[:4]
PY
ok "fleet page: 40 rows, TileGX regressions flagged, CCR2116 bound at ~1.6 Gbit/s, CCR1009 at ~200 Mbit/s"
# The growing old CHRs (sim/demo.scenario): encrypt capacity (100 - 16) / 0.3 = 280 Mbit/s,
# projected; demand growing 4 % a week runs out some weeks ahead: at least one of the pair has
# that date, and none is dated sooner than a week or later than a year.
http_get /api/v1/capacity >"$T/capacity.json"
$PY - "$T/capacity.json" <<'PY' || fail "the demo's growing hub: $(grep -o '"router":"chr-old[^}]*' "$T/capacity.json")"
import json, sys, time
cs = [c for c in json.load(open(sys.argv[1])) if c["router"].startswith("chr-old") and c["direction"] == "tx"]
assert len(cs) == 2 and all(c["method"] == "projected" and abs(c["capacity_bps"] / 280e6 - 1) <= 0.05 for c in cs), cs
days = [(time.mktime(time.strptime(c["exhausted_at"], "%Y-%m-%dT%H:%M:%SZ")) - time.time() + time.timezone) / 86400
        for c in cs if c["exhausted_at"]]
assert days and all(7 <= d <= 365 for d in days), (days, cs)
print("chr-old tx: %s Mbit/s, runs out in %s days" % ([round(c["capacity_bps"] / 1e6, 1) for c in cs], [round(d) for d in days]))
PY
ok "the demo's growing hub: capacity 280 Mbit/s projected, running out some weeks ahead"

dump "$BASE/router/$CCR?range=all" "$T/ccr.html"
$PY - "$T/ccr.html" <<'PY' || fail "router page DOM"
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
for i in ("wg0", "wg1"):
    assert '<h3 class="iface">%s</h3>' % i in d, i
pts = sum(len(p.split()) for p in re.findall(r'<polyline class="(?:tx|rx)" points="([^"]*)"', d))
assert pts >= 200, pts                                      # two weeks of history
assert len(set(re.findall(r'<title>cpu(\d+) ', d))) == 9
assert re.search(r'<g class="mk upgrade"><title>upgrade 7\.22\.3</title>', d)
assert 'id="verdict-table"' in d and 'regression' in d
PY
ok "router page: two weeks of chart points, nine cores, the upgrade marker, the verdicts"

# Opened without a range, the page holds the upgrade's windows (the demo's [detector] before is
# the default 7 days): the narrowest of 24h, 7d, 30d from now back to before the upgrade's before
# window. The 24h range draws the fill's 10-minute polls in buckets of at least two polls: one
# unbroken line per series, not a barcode of gaps.
dump "$BASE/router/$CCR" "$T/ccr-default.html"
dump "$BASE/router/$CCR?range=24h" "$T/ccr-24h.html"
$PY - "$DEMO/demo.db" "$T/ccr-default.html" "$T/ccr-24h.html" <<'PY' || fail "router page's default range"
import re, sqlite3, sys, time
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
up = db.execute("SELECT max(h.time_ms) FROM version_history h JOIN routers r ON r.id = h.router_id"
                " WHERE r.name = 'ljubljana-ccr1009' AND h.kind IN ('upgrade', 'downgrade')").fetchone()[0]
need = time.time() * 1000 - (up - 7 * 86400000)
want = next((n for n, d in (("24h", 1), ("7d", 7), ("30d", 30)) if d * 86400000 >= need + 600000), "all")
d = open(sys.argv[2], encoding="utf-8").read()
nav = re.search(r'<nav class="range">(.*?)</nav>', d, re.S).group(1)
assert "<b>%s</b>" % want in nav, (want, nav)
assert re.search(r'<g class="mk upgrade"><title>upgrade 7\.22\.3</title>', d), "no upgrade marker"
h = open(sys.argv[3], encoding="utf-8").read()
lines = re.findall(r'<polyline class="tx"[^>]*points="([^"]*)"', h)
assert 1 <= len(lines) <= 2 and max(len(p.split()) for p in lines) >= 40, [len(p.split()) for p in lines]
print("opens on %s (upgrade %.1f days ago); 24h: %d tx lines" % (want, (time.time() * 1000 - up) / 86400000, len(lines)))
PY
ok "router page: opens on the range that holds the upgrade; 24h drawn at the stored resolution"

dump "$BASE/upgrades" "$T/upgrades.html"
$PY - "$T/upgrades.html" <<'PY' || fail "upgrades page DOM"
import html, re, sys
d = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r'<tr class="cohort">(.*?)</tr>', d, re.S)
text = lambda h: html.unescape(re.sub(r'<[^>]*>', ' ', h)).strip()
bad = sorted(text(r) for r in rows if 'class="flag"' in r)
assert len(bad) == 2 and any("CCR1009-7G-1C-1S+" in b for b in bad) and any("CCR1036" in b for b in bad), bad
PY
ok "/upgrades: the two TileGX cohorts regressed, no other"

shot "$BASE/" demo-fleet 1400,1800
shot "$BASE/router/$CCR?range=all" demo-router-ccr1009
shot "$BASE/router/rb4011-01?range=all" demo-router-rb4011
shot "$BASE/router/zagreb-auth" demo-router-down 1400,900
shot "$BASE/upgrades" demo-upgrades 1400,1200
ok "screenshots in $T and $top_builddir/screenshots"

# ---- stop, and a second run from scratch ----
[ -n "$(demo_procs)" ] || fail "no demo process found by its directory"
kill -TERM "$DEMO_PID"
wait "$DEMO_PID" 2>/dev/null || true
wait_until 10 no_demo_procs || fail "left running after the demo stopped: $(demo_procs)"
cp "$DEMO/wgwatchd.log" "$T/demo1-daemon.log"
ok "stopping demo.sh stopped the sim and the daemon"
run_demo 2
wait_until 60 grep -q 'applied schema migration 001-initial' "$DEMO/fill.log" ||
	fail "the second run did not start with a new database"
kill -TERM "$DEMO_PID"
wait "$DEMO_PID" 2>/dev/null || true
wait_until 10 no_demo_procs || fail "left running after the second demo stopped: $(demo_procs)"
ok "a second run starts from an empty database, and stops clean mid-fill"
! grep -E '^<3>' "$T/demo1-daemon.log" | grep -q . || fail "error lines in the demo's daemon log"
ok "no error in the demo's log"
