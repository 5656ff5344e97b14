#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 091-upgrades: headless Chromium loads the Upgrades page served by wgwatchd running the
# upgrade detector on tests/system/detector.scenario (the config of 070-detector.sh). The tile
# CCR1009 cohort shows 2 of 2 regressed with a tx ratio of about 0.33, the x86_64 CHR cohort 0
# of 4; every cell links to the routers behind it, and the cohort page lists them with
# links to their router pages. No console errors; a PNG goes to $top_builddir/screenshots/.
. "$top_srcdir/tests/system/lib.sh"

need_chromium

start_sim "$top_srcdir/tests/system/detector.scenario"
write_conf 250ms 200ms "[detector]" "before = 60s" "after = 60s" "min_samples = 40" "every = 2s"
start_daemon
BASE="http://127.0.0.1:$HTTP_PORT"

# Before the detector's first evaluation the page says so; it never fails.
code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/upgrades")
[ "$code" = 200 ] || fail "/upgrades gave $code"

# Every upgrade of the scenario judged with a complete after window (as in 070-detector.sh).
wait_final 300 34
ok "34 verdicts final"

dump "$BASE/" "$T/fleet.html"
grep -q '<a href="/upgrades">Upgrades</a>' "$T/fleet.html" || fail "the fleet page does not link /upgrades"

dump "$BASE/upgrades" "$T/upgrades.html"
$PY - "$T/upgrades.html" <<'PY' || fail "upgrades page DOM"
import html, re, sys
d = open(sys.argv[1], encoding="utf-8").read()
assert '<script' not in d, "script on the page"
rows = re.findall(r'<tr class="cohort">(.*?)</tr>', d, re.S)
def cells(row):
    return {m.group(1).split()[-1]: m.group(2) for m in
            re.finditer(r'<td class="([^"]*)">(.*?)</td>', row, re.S)}
def text(h):
    return html.unescape(re.sub(r'<[^>]*>', '', h)).strip()
cs = {}
for r in rows:
    c = cells(r)
    cs[(text(c["c-upgrade"]), text(c["c-arch"]), text(c["c-board"]))] = c
assert len(cs) == 8, sorted(cs)
U = "7.21.5 \u2192 7.22.3"
t = cs[(U, "tile", "CCR1009-7G-1C-1S+")]
assert text(t["c-routers"]) == "2" and text(t["c-regressed"]) == "2 of 2", t
assert 'class="flag"' in t["c-regressed"], t
tx = float(text(t["c-tx"]).split()[0])
assert abs(tx - 1 / 3) < 0.05, t["c-tx"]
def ratio(cell):  # None where no verdict was precise enough ("-" on the page)
    t = text(cell).split()
    return float(t[0]) if t and t[0][0].isdigit() else None
r = ratio(t["c-rx"])
assert r is None or abs(r - 1) < 0.15, t["c-rx"]
x = cs[(U, "x86_64", "CHR")]
assert text(x["c-routers"]) == "4" and text(x["c-regressed"]) == "0 of 4", x
r = ratio(x["c-tx"])
assert r is None or abs(r - 1) < 0.15, x
assert text(cs[(U, "arm64", "CCR2116-12G-4S+")]["c-regressed"]) == "2 of 2"
assert text(cs[("7.21.5 \u2192 7.22.2", "arm64", "RB5009UG+S+")]["c-regressed"]) == "1 of 1"
# Every cell links to the routers behind it.
link = ('/upgrades?from=7.21.5&amp;to=7.22.3&amp;arch=tile&amp;board=CCR1009-7G-1C-1S%2B')
for k in ("c-upgrade", "c-arch", "c-routers", "c-tx", "c-rx"):
    assert 'href="%s"' % link in t[k], (k, t[k])
assert 'href="%s&amp;verdict=regression"' % link in t["c-regressed"], t["c-regressed"]
assert 'href="/?board=CCR1009-7G-1C-1S%2B"' in t["c-board"], t["c-board"]
PY
ok "/upgrades: tile CCR1009 2 of 2 regressed, tx ratio ~0.33; x86_64 CHR 0 of 4; cells link"

dump "$BASE/upgrades?from=7.21.5&to=7.22.3&arch=tile&board=CCR1009-7G-1C-1S%2B&verdict=regression" \
	"$T/cohort.html"
$PY - "$T/cohort.html" <<'PY' || fail "cohort page DOM"
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
assert d.count('<tr class="cohort">') == 1
rows = re.findall(r'<tr class="verdict">(.*?)</tr>', d, re.S)
assert len(rows) == 4, rows                          # ccr1009 and gave-up, wg0 tx and rx
assert all('<a href="/router/ccr1009?range=all">ccr1009</a>' in r or
           '<a href="/router/gave-up?range=all">gave-up</a>' in r for r in rows), rows
assert 'regression' in rows[0] and '>tx<' in rows[0], rows[0]
PY
dump "$BASE/upgrades?from=7.21.5&to=7.22.3&arch=x86_64&board=CHR&verdict=regression" "$T/chr.html"
! grep -q '<tr class="verdict">' "$T/chr.html" || fail "a CHR router listed as regressed"
dump "$BASE/upgrades?from=7.21.5&to=7.22.3&arch=x86_64&board=CHR" "$T/chr.html"
[ "$(grep -o '<tr class="verdict">' "$T/chr.html" | wc -l)" -eq 8 ] || fail "CHR cohort: not 4 routers x 2 directions"
code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/upgrades?from=%3Cx%3E&to=y")
[ "$code" = 404 ] || fail "an unknown cohort gave $code"
curl -s "$BASE/upgrades?from=%3Cx%3E&to=y" | grep -q '<h1 id="cohort">&lt;x&gt; &rarr; y</h1>' ||
	fail "unknown cohort not escaped"
ok "cohort pages list the routers behind a cell, with links to their router pages"

# The upgrade report's cohorts (docs/diagnostics.md): the CCR1009's board, the CHRs that held,
# and for the CCR2116 every arm64 board on the same upgrade.
http_get /api/v1/regressions >"$T/regressions.json"
http_get /api/v1/cohorts >"$T/cohorts.json"
for r in ccr1009 ccr2116; do
	id=$($PY -c 'import json,sys; print(next(x["upgrade_id"] for x in json.load(open(sys.argv[1])) if x["router"] == sys.argv[2]))' \
		"$T/regressions.json" $r) || fail "no verdict of $r in /api/v1/regressions"
	http_get "/api/v1/upgrades/$id/report" >"$T/report-$r.json" || fail "report of $r's upgrade $id"
	http_get "/api/v1/upgrades/$id/report.md" >"$T/report-$r.md" || fail "report.md of $r's upgrade $id"
done
$PY - "$T/report-ccr1009.json" "$T/report-ccr2116.json" "$T/cohorts.json" <<'PY' || fail "the reports' cohorts (above)"
import json, sys
tile, arm, cohorts = (json.load(open(f)) for f in sys.argv[1:])
c, chr_, a = tile["cohort"], tile["chr_cohort"], tile["architecture_cohort"]
assert (c["board"], c["routers"], c["regressed"]) == ("CCR1009-7G-1C-1S+", 2, 2), c
assert (chr_["architecture"], chr_["routers"], chr_["regressed"]) == ("x86_64", 4, 0), chr_
assert (a["architecture"], a["boards"], a["routers"]) == ("tile", 1, 2), a
a = arm["architecture_cohort"]
same = [x for x in cohorts if x["architecture"] == "arm64" and x["from_version"] == "7.21.5"
        and x["to_version"] == "7.22.3"]
assert {x["board"] for x in same} == {"CCR2004-16G-2S+", "CCR2116-12G-4S+", "RB5009UG+S+"}, same
assert (a["architecture"], a["boards"]) == ("arm64", 3), a
assert a["routers"] == sum(x["routers"] for x in same) > arm["cohort"]["routers"], (a, same)
assert a["regressed"] == sum(x["regressed"] for x in same), (a, same)
PY
grep -q "^All arm64 routers on the same upgrade, 3 boards: " "$T/report-ccr2116.md" || fail "report.md: no arm64 line"
! grep -q "^All tile routers" "$T/report-ccr1009.md" || fail "report.md: an architecture line for one board"
grep -q "^x86_64 CHRs on the same upgrade: 4, 0 regressed (they held)." "$T/report-ccr1009.md" ||
	fail "report.md: the CHRs did not hold: $(cat "$T/report-ccr1009.md")"
ok "reports: CCR1009 2 of 2 regressed, the 4 CHRs held; the CCR2116's names the 3 arm64 boards"

shot "$BASE/upgrades" upgrades 1400,900
shot "$BASE/upgrades?from=7.21.5&to=7.22.3&arch=tile&board=CCR1009-7G-1C-1S%2B" upgrades-ccr1009 1400,900
ok "screenshots in $top_builddir/screenshots"
check_log_clean
