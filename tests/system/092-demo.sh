#!/bin/sh
# 092-demo: headless Chromium loads every page of wgwatchd polling the demo fleet
# (sim/demo.scenario, 40 hubs) with the sim's time sped up (-t) so that the CCR1009 upgrade of
# simulated day 1 happens 20 s in, and the detector judges it with short windows. The fleet
# page has the 40 rows (the 3 down ones first), the regression flag on ljubljana-ccr1009 and on
# no other router, and that router's upgrade date; the router pages have chart points; the
# Upgrades page has the CCR1009 cohort regressed. No console errors; a PNG of each page goes to
# $T and $top_builddir/screenshots/ (demo-*.png).
. "$top_srcdir/tests/system/lib.sh"

need_chromium

# 4320 simulated s per real s: one simulated day in 20 s, one poll (1 s) every 72 simulated
# minutes. The demo's upgrades (6h, 12h, 1d) and reboot (18h) all fall in the first 20 s. Rates
# on the pages are per real second, so 4320 times the scenario's.
start_sim "$top_srcdir/sim/demo.scenario" -t 4320
write_conf 1s 900ms "[detector]" "before = 12s" "after = 12s" "min_samples = 8" "every = 2s"
start_daemon
BASE="http://127.0.0.1:$HTTP_PORT"
CCR=ljubljana-ccr1009

# The CCR1009 verdict for tx is final (its after window complete): no fixed sleep.
ccr_final() {
	http_get /api/v1/regressions >"$T/reg.json" && $PY - "$T/reg.json" "$CCR" <<-'PY'
	import json, sys
	v = [x for x in json.load(open(sys.argv[1])) if x["router"] == sys.argv[2] and x["direction"] == "tx"]
	sys.exit(0 if v and v[-1]["final"] else 1)
	PY
}
wait_until 70 ccr_final || fail "$CCR: no final tx verdict after 70 s"
ok "$CCR: tx verdict final"

# ---- fleet page ----
dump "$BASE/" "$T/fleet.html"
$PY - "$T/fleet.html" "$CCR" <<'PY' || fail "fleet page DOM"
import re, sys
d, ccr = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
rows = re.findall(r'<tr><td>(.*?)</tr>', d, re.S)
names = [re.match(r'[^<]*', r).group(0) for r in rows]
assert len(names) == 40, len(names)
lead = len([r for r in rows if 'flag regression' in r or 'flag bound' in r])  # attention first:
down = [i for i, r in enumerate(rows) if 'class="down"' in r]                  # regressed, bound, down
assert sorted(names[i] for i in down) == ["rijeka-offline", "split-hang", "zagreb-auth"], names
assert down == [lead, lead + 1, lead + 2] and all('class="up"' in r for r in rows[lead + 3:]), names
flagged = [n for n, r in zip(names, rows) if 'flag regression' in r]
assert flagged == [ccr], flagged
row = rows[names.index(ccr)]
assert re.search(r'<span class="flag regression"[^>]*>tx (?:\u2212|&minus;)\d+(?:\u00a0|&nbsp;)% after '
                 r'7\.22\.3</span>', row), row
assert re.search(r'7\.22\.3<br><small class="since" title="upgrade 7\.21\.5 (?:&rarr;|\u2192) 7\.22\.3 at '
                 r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ">upgraded \d{4}-\d\d-\d\d</small>', row), row
assert 'single-core bound' in rows[names.index("frankfurt-ccr2116")]
upgraded = {n for n, r in zip(names, rows) if 'class="since"' in r}
assert {ccr, "rb4011-01", "ccr2004-upgrade-01"} <= upgraded, sorted(upgraded)
assert "chr-01" not in upgraded and "rb5009-01" not in upgraded, sorted(upgraded)
PY
ok "fleet page: 40 rows, down first, regression flag on $CCR only, its upgrade date"

# ---- router pages: the regressed one, a healthy one with an upgrade, a down one ----
dump "$BASE/router/$CCR?range=all" "$T/ccr.html"
dump "$BASE/router/rb4011-01?range=all" "$T/rb4011.html"
dump "$BASE/router/zagreb-auth" "$T/zagreb.html"
$PY - "$T/ccr.html" "$T/rb4011.html" "$T/zagreb.html" <<'PY' || fail "router pages DOM"
import re, sys
ccr, rb, down = (open(p, encoding="utf-8").read() for p in sys.argv[1:4])
for d, ifaces, cores in ((ccr, ("wg0", "wg1"), 9), (rb, ("wg0",), 4)):
    for i in ifaces:
        assert '<h3 class="iface">%s</h3>' % i in d, i
    pts = sum(len(p.split()) for p in re.findall(r'<polyline class="(?:tx|rx)" points="([^"]*)"', d))
    assert pts >= 20, pts
    assert len(set(re.findall(r'<title>cpu(\d+) ', d))) == cores
    assert d.count('<circle class="pt"') >= 10
    assert re.search(r'<g class="mk upgrade"><title>upgrade 7\.22\.3</title>', d)
assert 'id="verdict-table"' in ccr and '<span class="flag">regression</span>' in ccr
assert '<span class="flag">regression</span>' not in rb
assert 'auth: ' in down and 'class="down"' in down
PY
ok "router pages: chart points, heatmap rows per core, upgrade markers, verdicts"

# ---- Upgrades page ----
dump "$BASE/upgrades" "$T/upgrades.html"
$PY - "$T/upgrades.html" <<'PY' || fail "upgrades page DOM"
import html, re, sys
d = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r'<tr class="cohort">(.*?)</tr>', d, re.S)
text = lambda h: html.unescape(re.sub(r'<[^>]*>', '', h)).strip()
bad = [text(r) for r in rows if 'class="flag"' in r]
assert len(bad) == 1 and "CCR1009-7G-1C-1S+" in bad[0] and "1 of 1" in bad[0], bad
PY
ok "/upgrades: one cohort regressed, the CCR1009 one"

shot "$BASE/" demo-fleet 1400,1700
shot "$BASE/router/$CCR?range=all" demo-router-ccr1009
shot "$BASE/router/rb4011-01?range=all" demo-router-rb4011
shot "$BASE/router/zagreb-auth" demo-router-down 1400,900
shot "$BASE/upgrades" demo-upgrades 1400,900
ok "screenshots in $T and $top_builddir/screenshots"
check_log_clean
