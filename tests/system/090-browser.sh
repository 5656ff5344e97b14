#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 090-browser: headless Chromium loads the fleet page and router pages served by wgwatchd
# polling the sim (browser.scenario: an upgrade that halves tx on a pinned core, a reboot,
# a router whose every text is hostile). The DOM has the rows, links, chart points, the upgrade
# marker and two separate scatter clouds; hostile text is inert text; no console errors; a PNG
# of each page goes to the test's temp dir and to $top_builddir/screenshots/.
. "$top_srcdir/tests/system/lib.sh"

need_chromium

start_sim "$top_srcdir/tests/system/browser.scenario"
write_conf 1s 900ms
start_daemon
BASE="http://127.0.0.1:$HTTP_PORT"

# Wait (no fixed sleep) until the upgrade of ccr1009 is recorded and both versions have
# at least 8 points in its scatter.
points_after_upgrade() {
	curl -fsS --max-time 5 "$BASE/router/ccr1009?range=all" >"$T/r.tmp" || return 1
	grep -q 'upgrade 7.22.3' "$T/r.tmp" || return 1
	[ "$(grep -o 'fill="#d62728"><title>7.22.3' "$T/r.tmp" | wc -l)" -ge 8 ] &&
		[ "$(grep -o 'fill="#1f77b4"><title>7.21.5' "$T/r.tmp" | wc -l)" -ge 8 ]
}
wait_until 90 points_after_upgrade || fail "ccr1009: no upgrade marker or too few points after 90 s"
wait_until 30 sh -c "curl -fsS '$BASE/router/arm64-ok?range=all' | grep -q 'mk reboot'" ||
	fail "arm64-ok: no reboot marker"
ok "the upgrade and the reboot are on the router pages"

# ---- fleet page ----
dump "$BASE/" "$T/fleet.html"
$PY - "$T/fleet.html" <<'PY' || fail "fleet page DOM"
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r'<tr><td>(.*?)</tr>', d, re.S)
names = [re.match(r'[^<]*', r).group(0) for r in rows]
assert sorted(names) == ["arm64-ok", "ccr1009", "hostile", "locked"], names
assert names[:2] == ["ccr1009", "locked"], names      # single-core bound first, then down
for n in names:
    assert 'href="/router/%s"' % n in d, n
assert '<form class="filter" method="get" action="/"' in d
assert '<script' not in d and '<img' not in d, "hostile text became markup"
assert 'site=&lt;script&gt;alert(4)&lt;/script&gt;' in d
assert '&lt;script&gt;alert(1)&lt;/script&gt;' in d    # the board
assert 'single-core bound' in d
PY
ok "fleet page: 4 rows, down first, links, filter form, hostile text escaped"

n_rows() { grep -c '^<tr><td>' "$1"; }
curl -fsS "$BASE/?board=CCR1009-7G-1C-1S%2B" >"$T/f1.html"
[ "$(n_rows "$T/f1.html")" -eq 1 ] && grep -q '^<tr><td>ccr1009<' "$T/f1.html" || fail "board filter"
curl -fsS "$BASE/?q=LJUBL" >"$T/f2.html"
[ "$(n_rows "$T/f2.html")" -eq 1 ] && grep -q '^<tr><td>ccr1009<' "$T/f2.html" || fail "search box"
curl -fsS "$BASE/?label=role%3Dspoke&version=7.22.3" >"$T/f3.html"
[ "$(n_rows "$T/f3.html")" -eq 1 ] && grep -q '^<tr><td>arm64-ok<' "$T/f3.html" || fail "label+version filter"
curl -fsS "$BASE/?label=site%3D%3Cscript%3Ealert(4)%3C%2Fscript%3E" >"$T/f4.html"
[ "$(n_rows "$T/f4.html")" -eq 1 ] && grep -q '^<tr><td>hostile<' "$T/f4.html" || fail "hostile label filter"
ok "filters by board, search, label and version"

# ---- router pages ----
dump "$BASE/router/ccr1009?range=all" "$T/ccr1009.html"
$PY - "$T/ccr1009.html" <<'PY' || fail "ccr1009 DOM"
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
assert '<h1 id="router-name">ccr1009</h1>' in d
for iface in ("wg0", "wg1"):
    assert '<h3 class="iface">%s</h3>' % iface in d, iface
lines = re.findall(r'<polyline class="(tx|rx)" points="([^"]*)"', d)
assert len([1 for c, p in lines if c == "tx"]) >= 2, lines[:2]
assert sum(len(p.split()) for c, p in lines) >= 40, "too few line points"
assert d.count('class="hm"') >= 9, "heatmap rows"
assert re.search(r'<g class="mk upgrade"><title>upgrade 7.22.3</title>', d), "upgrade marker"
assert 'class="win-before"' in d and 'class="win-after"' in d
# Core 4 is pinned: its cells are the darkest red, the others pale.
cells = re.findall(r'fill="(#[0-9a-f]{6})"><title>cpu(\d+) (\d+)%', d)
hot = {int(c) for f, c, p in cells if int(p) >= 90}
assert hot == {4}, hot
# Two clouds: 7.21.5 at tx+rx ~600 Mbit/s, 7.22.3 at ~350, far apart in y.
ys = {}
for cy, fill, v in re.findall(r'<circle class="pt" cx="[^"]*" cy="([^"]*)" r="3.5" fill="([^"]*)"><title>([^:]*):', d):
    ys.setdefault(v, []).append(float(cy))
assert set(ys) == {"7.21.5", "7.22.3"}, ys.keys()
old, new = ys["7.21.5"], ys["7.22.3"]
assert len(old) >= 8 and len(new) >= 8, (len(old), len(new))
# Buckets straddling the upgrade may mix; 80% of each cloud lies on its side of the midpoint
# between the medians, which are 30 px (of 248) or more apart.
old.sort(); new.sort()
mo, mn = old[len(old) // 2], new[len(new) // 2]
mid = (mo + mn) / 2
assert mn - mo >= 30, (old, new)
assert sum(y < mid for y in old) >= 0.8 * len(old) and sum(y > mid for y in new) >= 0.8 * len(new), (old, new)
assert 'id="peer-table"' in d and d.count('<td>wg0</td>') >= 6
assert '<td class="ev-up">upgrade</td><td>7.21.5 \u2192 7.22.3</td>' in d
PY
ok "ccr1009: line points per interface, pinned core 4 in the heatmap, upgrade marker, two clouds"

dump "$BASE/router/hostile?range=all" "$T/hostile.html"
$PY - "$T/hostile.html" <<'PY' || fail "hostile DOM"
import sys
d = open(sys.argv[1], encoding="utf-8").read()
assert '<script' not in d and '<img' not in d, "hostile text became markup"
assert '&lt;script&gt;alert(1)&lt;/script&gt;' in d          # board
assert '\'&gt;&lt;img src=x onerror=alert(3)&gt;' in d       # cpu
assert '&lt;img src=x onerror=alert(5)&gt;&amp;amp;\'1' in d   # a peer name
assert 'href="/?label=site%3D%3Cscript%3Ealert%284%29%3C%2Fscript%3E"' in d
assert 'href="javascript' not in d
assert '<polyline class="tx"' in d
PY
ok "hostile router: every text is inert, the charts still render"

code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/router/no-such-router")
[ "$code" = 404 ] || fail "unknown router gave $code"
code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/router/%3Cscript%3E")
[ "$code" = 404 ] || fail "hostile unknown router gave $code"
curl -s "$BASE/router/%3Cscript%3E" | grep -q '<h1 id="router-name">&lt;script&gt;</h1>' ||
	fail "unknown name not escaped on the 404 page"
curl -fsS "$BASE/router/locked" | grep -q 'auth: ' || fail "locked: reason not shown"
for r in 6h 24h 7d 30d; do
	curl -fsS "$BASE/router/ccr1009?range=$r" | grep -q "<b>$r</b>" || fail "range $r"
done
ok "404 for unknown names, escaped; down router page; every range renders"

shot "$BASE/" fleet
shot "$BASE/router/ccr1009?range=all" router-ccr1009
shot "$BASE/router/hostile?range=all" router-hostile
ok "screenshots in $top_builddir/screenshots"
check_log_clean
