#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 113-reload-shrink: a reload (SIGHUP) that would remove more than [daemon] reload_max_removed
# (50 %) of the routers is refused and the fleet kept: an included file truncated in place, as
# a reload storm reads one being rewritten, no longer drops its routers. The refusal is logged
# as errors naming the main file, the counts and the file that lost routers; a reload removing
# fewer is applied; setting reload_max_removed = 100 in the new configuration removes them on
# purpose.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

cat >"$T/fleet.scenario" <<'SCEN'
[global]
user = wgwatch
password = shrink-secret
seed = 5

[group site]
count = 6
wg = wg0:1
SCEN
start_sim "$T/fleet.scenario"
section() { awk -v r="[router $1]" '$0 == r { p = 1; print; next } /^\[/ { p = 0 } p' "$T/routers.conf"; }
mkdir "$T/sites.d"
# put FILE ROUTER...: FILE in sites.d holds these routers, written by rename.
put() {
	f=$1; shift
	: >"$T/sites.d/.$f.tmp"
	for r in "$@"; do section "$r" >>"$T/sites.d/.$f.tmp"; done
	mv "$T/sites.d/.$f.tmp" "$T/sites.d/$f"
}
put a.conf site-01 site-02 site-03 site-04
put b.conf site-05 site-06
write_conf 1s 800ms
sed -i 's|^include = routers.conf$|include = sites.d/*.conf|' "$T/wgwatch.conf"
start_daemon

scrape() { http_get /metrics >"$T/m.txt"; }
known() { [ -n "$($EXPO "$T/m.txt" wgwatch_router_up router="$1")" ]; }
nknown() { n=0; for i in 1 2 3 4 5 6; do known "site-0$i" && n=$((n + 1)); done; echo "$n"; }
polls() { $EXPO "$T/m.txt" wgwatch_polls_total router="$1" | cut -d. -f1; }
all_up() { scrape && for i in 1 2 3 4 5 6; do [ "$($EXPO "$T/m.txt" wgwatch_router_up router="site-0$i")" = 1 ] || return 1; done; }
wait_until 20 all_up || fail "the six routers are not all up"

reloads() { grep -c 'reload: [0-9]* routers (\|reload refused' "$T/daemon.log" || true; }
reloaded_since() { [ "$(reloads)" -gt "$1" ]; }
hup() {
	n=$(reloads)
	kill -HUP "$DAEMON_PID"
	wait_until 10 reloaded_since "$n" || fail "no reload logged"
}

# a.conf rewritten in place and read while empty, three times over.
for i in 1 2 3; do
	: >"$T/sites.d/a.conf"
	hup
done
[ "$(grep -c "^<3>error: reload refused: $T/wgwatch.conf would remove 4 of the 6 routers, more than \[daemon\] reload_max_removed = 50%; still polling the 6 of the running configuration" "$T/daemon.log")" = 3 ] ||
	fail "the refusal is not logged three times: $(grep 'reload' "$T/daemon.log" | tail -3)"
grep -q "^<3>error: reload: $T/sites.d/a.conf: 0 routers, 4 before$" "$T/daemon.log" ||
	fail "the refusal does not name the file cut short"
! grep -q "reload: $T/sites.d/b.conf" "$T/daemon.log" || fail "b.conf, which lost nothing, is named"
grep -q '^<3>error: reload: .*write configuration files by rename' "$T/daemon.log" ||
	fail "the refusal does not say to write by rename"
! grep -q 'reload: [0-9]* routers (' "$T/daemon.log" || fail "a shrinking reload was applied"
p5=$(scrape && polls site-01)
polled_on() { scrape && [ "$(polls site-01)" -ge $((p5 + 2)) ]; }
wait_until 10 polled_on || fail "site-01 no longer polled after the refusals"
scrape
[ "$(nknown)" = 6 ] || fail "only $(nknown) routers known after the refusals"
[ "$($EXPO "$T/m.txt" wgwatch_config_last_reload_successful)" = 0 ] || fail "a refused reload counts as successful"
ok "three reloads of a truncated a.conf refused, naming it (0 routers, 4 before); the six kept"

# Half is not more than half: a.conf by rename with site-01 alone: 3 of 6 removed, applied.
put a.conf site-01
hup
grep -q 'reload: 3 routers (0 added, 3 removed)' "$T/daemon.log" || fail "removing half was refused"
gone() { scrape && ! known site-02; }
wait_until 10 gone || fail "site-02 still exported"
ok "a reload removing half the routers (3 of 6) is applied"

# On purpose: reload_max_removed = 100 in the new configuration; 2 of the 3 go.
sed "s|^\[daemon\]$|[daemon]\nreload_max_removed = 100|" "$T/wgwatch.conf" >"$T/.wgwatch.conf.tmp"
mv "$T/.wgwatch.conf.tmp" "$T/wgwatch.conf"
put b.conf
hup
grep -q 'reload: 1 routers (0 added, 2 removed)' "$T/daemon.log" ||
	fail "reload_max_removed = 100 did not let 2 of 3 go: $(grep reload "$T/daemon.log" | tail -2)"
scrape
[ "$(nknown)" = 1 ] || fail "$(nknown) routers known, not 1"
[ "$($EXPO "$T/m.txt" wgwatch_config_last_reload_successful)" = 1 ] || fail "the deliberate reload not successful"
ok "with reload_max_removed = 100 in the new configuration, 2 of 3 routers removed on purpose"
check_log_clean 'reload'
