#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 085-tls-secret: `tls_verify = no` is logged once as a warning per router (not per poll, not
# again on reload); a password_file readable by others is refused with its FILE:LINE, at start
# (exit 1) and on SIGHUP (the running config stays); at mode 0600 it is used.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
# arm64-a's password from a file; no TLS verification for arm64-b and tile-a.
printf '%s\n' "$(routers_conf_value arm64-a password)" >"$T/arm64-a.pw"
chmod 644 "$T/arm64-a.pw"
awk -v pw="$T/arm64-a.pw" '
	/^\[router / { r = $2; sub(/\]$/, "", r) }
	r == "arm64-a" && /^password *=/ { print "password_file = " pw; next }
	{ print }
	/^\[router (arm64-b|tile-a)\]$/ { print "tls_verify = no" }
' "$T/routers.conf" >"$T/routers.tmp" && mv "$T/routers.tmp" "$T/routers.conf"
pwline=$(grep -n '^password_file' "$T/routers.conf" | cut -d: -f1)

rc=0
"$DAEMON" -c "$T/wgwatch.conf" 2>"$T/refused.log" || rc=$?
[ "$rc" = 1 ] || fail "a world-readable password_file: exit status $rc, want 1"
grep -q "^$T/routers.conf:$pwline: .*mode 0644" "$T/refused.log" || fail "message: $(cat "$T/refused.log")"
ok "password_file of mode 0644 refused: $(head -1 "$T/refused.log" | cut -c1-100)"

chmod 600 "$T/arm64-a.pw"
start_daemon
scrape() { http_get /metrics >"$T/m.txt"; }
polls() { scrape && $EXPO "$T/m.txt" wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }
up() { scrape && [ "$($EXPO "$T/m.txt" wgwatch_router_up router="$1")" = 1 ]; }
for r in arm64-a arm64-b tile-a; do wait_until 20 ge $r 3 || fail "$r not polled 3 times"; done
up arm64-a || fail "arm64-a is not up with its password from the file"
warns() { grep -c "^<4>warning: .*router $1: tls_verify = no" "$T/daemon.log" || true; }
[ "$(warns arm64-b)" = 1 ] || fail "arm64-b: $(warns arm64-b) tls_verify warnings, want 1"
[ "$(warns tile-a)" = 1 ] || fail "tile-a: $(warns tile-a) tls_verify warnings, want 1"
[ "$(warns arm64-a)" = 0 ] || fail "arm64-a verifies TLS but was warned about"
ok "tls_verify = no: one warning each for arm64-b and tile-a after 3 polls"

# A reload keeps the warnings at one; a password_file made readable fails the reload.
kill -HUP "$DAEMON_PID"
wait_until 10 grep -q 'reload: 5 routers' "$T/daemon.log" || fail "reload not done"
wait_until 10 ge arm64-b $(( $(polls arm64-b) + 2 )) || fail "arm64-b not polled after the reload"
[ "$(warns arm64-b)" = 1 ] || fail "arm64-b warned again after the reload"
chmod 640 "$T/arm64-a.pw"
kill -HUP "$DAEMON_PID"
wait_until 10 grep -q 'reload refused' "$T/daemon.log" || fail "reload with a readable password_file not refused"
grep -q "^<3>error: reload: $T/routers.conf:$pwline: .*mode 0640" "$T/daemon.log" || fail "no FILE:LINE in the refusal"
wait_until 10 ge arm64-a $(( $(polls arm64-a) + 2 )) || fail "arm64-a not polled after the refused reload"
up arm64-a || fail "arm64-a lost its password with the refused reload"
ok "reload: no second warning; readable password_file refused with FILE:LINE, old config runs on"
stop_daemon -TERM
if grep -q 'sim-secret' "$T/daemon.log" "$T/refused.log" "$T/m.txt"; then fail "the password leaked"; fi
check_log_clean 'auth-fail|garbage|reload'
