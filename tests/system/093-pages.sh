#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 093-pages: the pages an operator reads at a glance (issue 15), in headless Chromium over
# tests/system/pages.scenario with short detector windows: the fleet page leads with the
# regressed, bound and down routers and filters them (show=); the regression badge says which
# direction and how much; /upgrades counts routers and draws one dot per router; the router
# page adds a before/after figure per upgrade; a down router's values are greyed with their
# age and its sample families leave /metrics; no page scrolls sideways at 400 px (measured
# through the DevTools protocol, tests/system/overflow.py); at 400 px Attention, Regressed and
# Rollout are on screen, at 1400 px every column (tests/system/columns.py); print rules exist. Screenshots of
# every page, wide and at 400 px, go to $top_builddir/screenshots/.
. "$top_srcdir/tests/system/lib.sh"

need_chromium

start_sim "$top_srcdir/tests/system/pages.scenario"
write_conf 250ms 200ms "[detector]" "before = 20s" "after = 20s" "min_samples = 40" "every = 2s"
start_daemon
BASE="http://127.0.0.1:$HTTP_PORT"

# tile-01..03 and chr-01..03, tx and rx each: 12 verdicts, final at 25 s + 20 s + grace.
wait_final 120 12
ok "12 verdicts final"
router_down() { http_get /api/v1/routers | $PY -c '
import json, sys
rs = {r["name"]: r for r in json.load(sys.stdin)}
sys.exit(0 if rs["gone"]["up"] is False and rs["offline"]["up"] is False else 1)'; }
wait_until 30 router_down || fail "gone and offline are not both down"

# ---- the fleet page: what needs attention first ----
dump "$BASE/" "$T/fleet.html"
$PY - "$T/fleet.html" "$T/nbound" <<'PY' || fail "fleet page DOM"
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
assert '<script' not in d and 'style=' not in d, "script or inline style"
rows = re.findall(r'<tr><td>(.*?)</tr>', d, re.S)
names = [re.match(r'[^<]*', r).group(0) for r in rows]
assert len(names) == 9, names
assert sorted(names[:3]) == ["tile-01", "tile-02", "tile-03"], names     # regressed
assert names[3] == "bound", names                                      # single-core bound
assert sorted(names[4:6]) == ["gone", "offline"], names               # down
assert sorted(names[6:]) == ["chr-01", "chr-02", "chr-03"], names        # the rest
heads = re.findall(r'<tr class="group"><th colspan="13">([^<]*)</th>', d)
assert heads == ["Regressed after an upgrade", "Single-core bound", "Down", "Every other router"], heads
for r in rows[:3]:
    m = re.search(r'<span class="flag regression"[^>]*>tx (?:\u2212|&minus;)(\d+)(?:\u00a0|&nbsp;)% '
                  r'after 7\.22\.3</span>', r)
    assert m and 55 <= int(m.group(1)) <= 75, r                       # about -66 %
assert not any('flag regression' in r for r in rows[3:]), "a regression badge on a calm router"
# the pinned tile boxes are bound too (both badges); the group is the first that fits
assert 'single-core bound' in rows[3] and not any('flag bound' in r for r in rows[4:])
nbound = sum('flag bound' in r for r in rows)
gone = rows[names.index("gone")]
assert re.search(r'last seen \d+(?:\u00a0|&nbsp;)(?:s|min) ago', gone), gone
assert gone.count('class="n stale"') == 2 and 'class="n cores stale"' in gone, gone
assert 'stale' not in rows[names.index("chr-01")]
nav = re.search(r'<nav class="show" id="attention">(.*?)</nav>', d, re.S).group(1)
for want in ('href="/?show=regressed">3 with a regression',
             'href="/?show=bound">%d single-core bound' % nbound, 'href="/?show=down">2 down'):
    assert want in nav, (want, nav)
assert '<select name="show"' in d
assert '<div class="wrap"><table id="fleet">' in d
open(sys.argv[2], "w").write(str(nbound))
PY
ok "fleet page: regressed (tx -~66 % after 7.22.3), bound, down, then the rest; badges; stale values greyed"

for show in regressed:3 "bound:$(cat "$T/nbound")" down:2; do
	dump "$BASE/?show=${show%%:*}" "$T/show.html"
	n=$(grep -c '^<tr><td>' "$T/show.html" || true)
	[ "$n" -eq "${show#*:}" ] || fail "show=${show%%:*}: $n rows"
	grep -q "<b>${show#*:} " "$T/show.html" || fail "show=${show%%:*}: the current filter is not marked"
done
grep -q '^<tr><td>gone<' "$T/show.html" && grep -q '^<tr><td>offline<' "$T/show.html" || fail "show=down rows"
ok "filters show=regressed, bound, down"

# ---- /metrics: a down router keeps up, info and polls, loses its sample families ----
http_get /metrics >"$T/metrics.txt"
grep -q '^wgwatch_router_up{router="gone"} 0$' "$T/metrics.txt" || fail "gone: up not 0"
grep -q '^wgwatch_router_info{router="gone",board="RB5009UG+S+"' "$T/metrics.txt" || fail "gone: no info"
grep -q '^wgwatch_polls_total{router="gone"}' "$T/metrics.txt" || fail "gone: no polls_total"
if grep -E '^wgwatch_(cpu_core_|interface_|wireguard_peer_|router_uptime)[a-z_]*\{router="gone"' \
	"$T/metrics.txt"; then fail "gone: stale sample series exported"; fi
grep -q '^wgwatch_cpu_core_load_ratio{router="chr-01",core="0"}' "$T/metrics.txt" || fail "chr-01: no core loads"
grep -q '^wgwatch_wireguard_peer_receive_bytes_total{router="chr-01"' "$T/metrics.txt" || fail "chr-01: no peers"
grep -q '^wgwatch_upgrade_regression{router="tile-01",interface="wg0",direction="tx"' "$T/metrics.txt" ||
	fail "tile-01: no verdict series"
ok "/metrics: gone has up 0, info, polls and no core, interface, peer or uptime series"

# ---- /upgrades: router counts, medians over routers, one dot per router ----
dump "$BASE/upgrades" "$T/upgrades.html"
$PY - "$T/upgrades.html" <<'PY' || fail "upgrades page DOM"
import html, re, sys
d = open(sys.argv[1], encoding="utf-8").read()
assert '<script' not in d and 'style=' not in d
text = lambda h: html.unescape(re.sub(r'<[^>]*>', '', h)).strip()
rows = re.findall(r'<tr class="cohort">(.*?)</tr>\n', d, re.S)
cs = {}
for r in rows:
    c = {m.group(1).split()[-1]: m.group(2) for m in
         re.finditer(r'<td class="([^"]*)">(.*?)</td>(?=<td|$)', r, re.S)}
    cs[text(c["c-arch"])] = c
assert sorted(cs) == ["tile", "x86_64"], sorted(cs)
t, x = cs["tile"], cs["x86_64"]
assert text(t["c-routers"]) == "3" and text(t["c-regressed"]) == "3 of 3", t
assert text(x["c-routers"]) == "3" and text(x["c-regressed"]) == "0 of 3", x
tx = text(t["c-tx"]).split()
assert abs(float(tx[0]) - 1 / 3) < 0.07 and tx[1:] == ["(3", "routers)"], tx
def dots(cell, cls):
    return re.findall(r'<circle class="m %s" cx="([\d.]+)"[^>]*><title>([^<]*)</title>' % cls, cell)
reg = dots(t["c-chart"], "m-regression")
assert sorted(n.split()[0] for _, n in reg if " tx: " in n) == ["tile-01", "tile-02", "tile-03"], reg
assert not dots(x["c-chart"], "m-regression"), x["c-chart"]
# one dot per router and direction judged, never more
assert len(re.findall(r'<circle ', x["c-chart"])) <= 6 and len(re.findall(r'<circle ', t["c-chart"])) <= 6
for _, title in reg:
    if " tx: " in title:
        assert abs(float(title.split()[-1]) - 1 / 3) < 0.07, title
assert '<svg class="strip"' in t["c-chart"] and 'class="one"' in t["c-chart"]
assert 'Routers, regressed and improved count routers' in d
PY
ok "/upgrades: tile 3 of 3 regressed with three red dots at ~0.33, x86_64 0 of 3, medians over 3 routers"

# ---- the router page: its charts, and a before/after figure per upgrade ----
dump "$BASE/router/tile-01?range=all" "$T/tile.html"
$PY - "$T/tile.html" <<'PY' || fail "router page DOM"
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
assert '<script' not in d and 'style=' not in d
assert re.search(r'<polyline class="(?:tx|rx)" points=', d), "the throughput chart is gone"
assert '<circle class="pt"' in d, "the scatter is gone"
figs = re.findall(r'<figure class="before-after">(.*?)</figure>', d, re.S)
assert len(figs) == 1, len(figs)
f = figs[0]
assert re.search(r'<figcaption>7\.21\.5 (?:&rarr;|\u2192) 7\.22\.3: WireGuard capacity', f), f[:200]
bars = re.findall(r'<g class="pair"><text class="yl"[^>]*>([^<]*)</text>'
                  r'<rect class="before"[^>]*width="([\d.]+)"[^>]*><title>before: ([^<]*)</title>.*?'
                  r'<rect class="(after[^"]*)"[^>]*width="([\d.]+)"[^>]*><title>after: ([^<]*)</title>', f, re.S)
got = {b[0]: b for b in bars}
assert sorted(got) == ["wg0 rx", "wg0 tx"], sorted(got)
lab, wb, _, cls, wa, _ = got["wg0 tx"]
assert cls == "after worse" and abs(float(wa) / float(wb) - 1 / 3) < 0.07, got["wg0 tx"]
assert got["wg0 rx"][3] != "after worse", got["wg0 rx"]
PY
ok "router page: charts kept, one before/after figure, tx after ~1/3 of before on one axis"

dump "$BASE/router/gone" "$T/gone.html"
$PY - "$T/gone.html" <<'PY' || fail "down router page DOM"
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
assert re.search(r'<span class="down">down</span>.*?last seen \d+(?:\u00a0|&nbsp;)(?:s|min) ago', d, re.S)
assert '<table id="peer-table" class="stale">' in d and 'values at the last poll' in d
PY
ok "a down router's page: last seen N ago, its peers greyed"

# ---- 400 px and print ----
css=$(http_get /static/wgwatch.css)
for rule in '.wrap{overflow-x:auto' '@media print{' '@media (max-width:640px)'; do
	case $css in *"$rule"*) ;; *) fail "the stylesheet has no $rule" ;; esac
done
PAGES="$BASE/ $BASE/upgrades $BASE/router/tile-01?range=all $BASE/router/gone"
rm -rf "$T/cdp"
rc=0
$PY "$top_srcdir/tests/system/overflow.py" "$CHROME" "$T/cdp" 400 $PAGES \
	'data:text/html,<div style="width:900px">wide</div>' >"$T/overflow.txt" 2>&1 || rc=$?
cat "$T/overflow.txt"
[ "$rc" -eq 1 ] || fail "overflow.py: exit $rc (the wide control page must fail it)"
grep -q '^data:text/html.* 9[0-9][0-9] 400$' "$T/overflow.txt" || fail "the wide control page was not measured"
awk '$1 ~ /^http/ && ($2 > 400 || $3 != 400) { bad = 1; print "too wide: " $0 } END { exit bad }' \
	"$T/overflow.txt" || fail "a page scrolls sideways at 400 px"
[ "$(grep -c '^http.* 400 400$' "$T/overflow.txt")" -eq 4 ] || fail "not every page measured at 400 px"
ok "no page scrolls sideways at 400 px (tables scroll in their box); print and narrow rules in the CSS"

# ---- the columns that say what to do are on screen: at 400 px and at 1400 px (issue 41) ----
# At 400 px the fleet and the cohorts are cards: Attention, Regressed and Rollout within the
# viewport as the page opens, not in a box scrolled out of sight. At 1400 px every column of
# both tables is on screen, their boxes do not scroll, no cell's text is cut (Last poll was).
columns() { rm -rf "$T/cdp"; $PY "$top_srcdir/tests/system/columns.py" "$CHROME" "$T/cdp" "$@" >>"$T/columns.txt" 2>&1; }
: >"$T/columns.txt"
rc=0
columns 400 "$BASE/" fleet Attention || rc=1
columns 400 "$BASE/upgrades" cohort-table Regressed Rollout || rc=1
columns 1400 "$BASE/" fleet || rc=1
columns 1400 "$BASE/upgrades" cohort-table || rc=1
cat "$T/columns.txt"
[ "$rc" -eq 0 ] || fail "columns off screen or cut (above): $(grep -v '^ok' "$T/columns.txt" | tr '\n' ';')"
grep -q '^ok 1400px Last poll (UTC): 10 cells on screen' "$T/columns.txt" || fail "Last poll not measured on 10 rows"
# The check sees a column off screen: a table wider than 400 px, its last column in a box.
rc=0
columns 400 'data:text/html,<div style="overflow-x:auto"><table id="t"><thead><tr><th style="white-space:nowrap;padding-right:500px">A</th><th>C</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table></div>' t C || rc=$?
[ "$rc" -eq 1 ] && grep -q '^bad 400px C: 2 of 2 cells off screen' "$T/columns.txt" || fail "columns.py missed the control's column C: $(tail -2 "$T/columns.txt")"
ok "on screen at 400 px: Attention, Regressed, Rollout; at 1400 px: every column, Last poll uncut"

shot "$BASE/" pages-fleet 1400,1000
shot "$BASE/?show=regressed" pages-fleet-regressed 1400,600
shot "$BASE/" pages-fleet-400 400,1400
shot "$BASE/upgrades" pages-upgrades 1400,700
shot "$BASE/upgrades" pages-upgrades-400 400,1000
shot "$BASE/router/tile-01?range=all" pages-router 1400,2600
shot "$BASE/router/tile-01?range=all" pages-router-400 400,2600
shot "$BASE/router/gone" pages-router-down 1400,1400
ok "screenshots in $top_builddir/screenshots"
check_log_clean
