#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 111-optional-menus: routers whose optional REST menus answer badly (tests/system/
# optional.scenario: /system/health with HTTP 500, with 200 {"error":400,...} or never;
# /system/package/update with [] or nulls; /system/routerboard with HTTP 500) stay up and are
# polled as often as a healthy router, no poll failing (no back-off); wgwatch_router_menu_up says
# which menu fails, the menu's data is absent, each failure is logged once and shown on the
# router page. The router whose /system/health heals at 30 s is asked again a minute after its
# failure: the recovery is logged once and its health comes back, while the one still failing
# has logged nothing more. No password in the log, /metrics or the page.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
ROUTERS="healthy health500 health200 healthhang updempty updnull board500"

start_sim "$top_srcdir/tests/system/optional.scenario"
SIM_PASSWORD=$(routers_conf_value healthy password)
# 800 ms: a hung /system/health ends its poll before the next is due
write_conf 1s 800ms "[defaults]" "check_updates = yes"
start_daemon

scrape() { http_get /metrics >"$T/metrics.txt"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
polls() { val wgwatch_polls_total router="$1" | cut -d. -f1; }
menu() { val wgwatch_router_menu_up router="$1" menu="$2"; }
polled() { scrape && [ "$(polls healthy)" -ge "$1" ]; }

# Every router up, none with a failed poll, each polled about as often as the healthy one.
keep_pace() {
	h=$(polls healthy)
	for r in $ROUTERS; do
		[ "$(val wgwatch_router_up router="$r")" = 1 ] ||
			fail "$r is down: $(grep "router $r: down" "$T/daemon.log" | head -1)"
		[ -z "$(val wgwatch_poll_errors_total router="$r")" ] || fail "$r has failed polls"
		n=$(polls "$r")
		[ "$n" -ge $((h - 2)) ] || fail "$r polled $n times to the healthy router's $h: it backs off"
	done
	ok "$1: every router up, none with a failed poll, each polled with the healthy one ($h polls)"
}

wait_until 30 polled 8 || fail "the healthy router was not polled 8 times"
keep_pace "after 8 polls"

for r in health500 health200 healthhang; do
	[ "$(menu "$r" /system/health)" = 0 ] || fail "$r: wgwatch_router_menu_up of /system/health not 0"
	[ "$(menu "$r" /system/package/update)" = 1 ] || fail "$r: /system/package/update not up"
	[ -z "$(val wgwatch_health_temperature_celsius router="$r")" ] || fail "$r: health shown though it fails"
done
for r in updempty updnull; do
	[ "$(menu "$r" /system/package/update)" = 0 ] || fail "$r: /system/package/update not 0"
	[ "$(menu "$r" /system/health)" = 1 ] || fail "$r: /system/health not up"
done
[ "$(menu board500 /system/routerboard)" = 0 ] || fail "board500: /system/routerboard not 0"
[ "$(val wgwatch_router_info router=board500 --label firmware)" = "" ] || fail "board500 has a firmware"
for m in /system/routerboard /system/health /system/package/update; do
	[ "$(menu healthy "$m")" = 1 ] || fail "healthy: $m not up"
done
for r in healthy updempty updnull board500; do
	[ -n "$(val wgwatch_health_temperature_celsius router="$r")" ] || fail "$r: no health"
done
[ -n "$(val wgwatch_router_info router=healthy --label firmware)" ] || fail "healthy: no firmware"
ok "wgwatch_router_menu_up is 0 for each failing menu, 1 for the others; their data absent, the rest there"

once() {
	n=$(grep -cF "$2" "$T/daemon.log" || true)
	[ "$n" = 1 ] || fail "$1: logged $n times, not once: $2"
}
log_once() {
	once health500 "rest: router health500: /system/health failed (HTTP 500 Internal Server Error: std failure: not allowed (9)): no health readings; the router stays up"
	once health200 "rest: router health200: /system/health failed (a RouterOS error in a 2xx reply: Bad Request: no such command or directory (health))"
	once healthhang "rest: router healthhang: /system/health failed (Operation timed out"
	once updempty "rest: router updempty: /system/package/update failed (expected one object)"
	once updnull 'rest: router updnull: /system/package/update failed (value of "channel" is not a string)'
	once board500 "rest: router board500: /system/routerboard failed (HTTP 500 Internal Server Error"
	! grep -q "rest: router healthy: .* failed" "$T/daemon.log" || fail "the healthy router has a complaint"
	! grep -q ": down" "$T/daemon.log" || fail "a router went down: $(grep ': down' "$T/daemon.log" | head -1)"
}
log_once
ok "each failure logged once, naming the menu and why; no router went down"

page_says() {
	http_get /router/health500 >"$T/page.html" &&
		grep -qF '<small class="why menu">/system/health: failing since ' "$T/page.html" &&
		grep -qF '(HTTP 500 Internal Server Error: std failure: not allowed (9))</small>' "$T/page.html"
}
wait_until 15 page_says || fail "the router page of health500 does not show its failing menu"
grep -qF '<span class="up">up</span>' "$T/page.html" || fail "the router page of health500 does not say up"
http_get /router/healthy >"$T/healthy.html" || fail "router page of healthy"
! grep -qF 'class="why menu"' "$T/healthy.html" || fail "the healthy router's page shows a failing menu"
ok "the router page says which menu fails, since when and why; nothing on the healthy router's"

# health200 heals at 30 s of the sim's time; its health is asked again a minute after it failed.
healed() { scrape && [ "$(menu health200 /system/health)" = 1 ]; }
wait_until 90 healed || fail "health200's /system/health was not asked again, or is still failing"
[ -n "$(val wgwatch_health_temperature_celsius router=health200)" ] || fail "health200: no health after healing"
once health200 "rest: router health200: /system/health answers again, after 1 failed request"
[ "$(menu health500 /system/health)" = 0 ] || fail "health500's /system/health stopped failing"
keep_pace "a minute later"
log_once
ok "a healed menu is asked again a minute later, its recovery logged once; failing ones not logged again"

check_log_clean
if grep -qF "$SIM_PASSWORD" "$T/daemon.log" "$T/metrics.txt" "$T/page.html"; then fail "password leaked"; fi
ok "no error line in the log; the password nowhere"
