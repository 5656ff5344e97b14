#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 035-log-forge: a router whose board and architecture names hold newlines, carriage returns
# and syslog priorities ("CCR\n<0>emerg: ...") forges no line of the journal and no line of
# --once: every control character reaches them escaped, one line a message (issue 21, item 8).
. "$top_srcdir/tests/system/lib.sh"

HOST=$(sim_base)
port=$(free_port)
$PY "$top_srcdir/tests/system/hostile.py" "$HOST" "$port" "$T/hostile.ready" forge 2>"$T/hostile.log" &
PIDS="$PIDS $!"
wait_until 10 test -e "$T/hostile.ready" || fail "the forging router did not start"
printf '[router forge]\nrest = http://%s:%d\nuser = wgwatch\npassword = x\n' "$HOST" "$port" \
	>"$T/routers.conf"
write_conf 1s 1s

"$DAEMON" -c "$T/wgwatch.conf" --once >"$T/once.out" 2>"$T/once.log" || fail "--once failed: $(cat "$T/once.log")"
cat "$T/once.out"
[ "$(wc -l <"$T/once.out")" -eq 1 ] || fail "--once printed $(wc -l <"$T/once.out") lines, want 1"
grep -qF 'forge up 7.22.3 CCR\n<0>emerg: forged by the router arm64\r\n<1>alert: forged\x1b[2J ' \
	"$T/once.out" || fail "--once line not escaped as expected"
ok "--once: one line, the router's control characters escaped"

start_daemon
wait_until 10 grep -q 'router forge: up' "$T/daemon.log" || fail "the forging router never came up"
cat "$T/daemon.log" "$T/once.log" >"$T/all.log"
grep -n 'router forge: up' "$T/all.log"
bad=$(grep -v '^<[0-7]>[a-z]*: ' "$T/all.log" || true)
[ -z "$bad" ] || fail "lines the daemon did not write: $bad"
grep '^<[0-2]>' "$T/all.log" && fail "emergency, alert or critical lines in the log"
grep -qF 'router forge: up (RouterOS 7.22.3, CCR\n<0>emerg: forged by the router, arm64\r\n<1>alert: forged\x1b[2J)' \
	"$T/daemon.log" || fail "log line not escaped as expected"
ok "log: one line a message, every line with the daemon's prefix, no forged priority"
