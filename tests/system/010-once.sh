#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 010-once: --check accepts the generated config and names FILE:LINE of a bad one; --once polls
# every simulated router once, prints one line each, exits 1 while some fail and 0 when all
# answer, and what it polled is in the database.
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 30s 2s

out=$("$DAEMON" -c "$T/wgwatch.conf" --check) || fail "--check refused the generated config"
echo "$out" | grep -q "ok, 5 routers" || fail "--check said: $out"
ok "--check accepts 5 routers"

cp "$T/wgwatch.conf" "$T/bad.conf"
printf '[router extra]\nrest = http://127.0.0.1:1\nbogus = 1\n' >>"$T/bad.conf"
line=$(grep -n '^bogus' "$T/bad.conf" | cut -d: -f1)
if "$DAEMON" -c "$T/bad.conf" --check 2>"$T/check.err"; then fail "--check accepted an unknown key"; fi
grep -q "bad.conf:$line:.*bogus" "$T/check.err" || fail "--check did not name bad.conf:$line: $(cat "$T/check.err")"
ok "--check names the file and line of an unknown key"

set +e
"$DAEMON" -c "$T/wgwatch.conf" --once >"$T/once.out" 2>"$T/daemon.log"
rc=$?
set -e
cat "$T/once.out"
[ "$rc" -eq 1 ] || fail "--once exited $rc with failing routers, want 1"
[ "$(wc -l <"$T/once.out")" -eq 5 ] || fail "--once printed $(wc -l <"$T/once.out") lines, want 5"
grep -q '^arm64-a up 7.22.3 CCR2004-16G-2S+ arm64 cores=4 wg=2 peers=5 ' "$T/once.out" || fail "arm64-a line"
grep -q '^arm64-b up 7.14.3 CCR2004-1G-12S+2XS arm64 cores=4 wg=1 peers=4 ' "$T/once.out" || fail "arm64-b line"
grep -q '^tile-a up 7.21.5 CCR1009-7G-1C-1S+ tile cores=9 wg=1 peers=6 ' "$T/once.out" || fail "tile-a line"
grep -q '^auth-fail down auth: .*401' "$T/once.out" || fail "auth-fail not down with auth"
grep -q '^garbage down parse: ' "$T/once.out" || fail "garbage not down with parse"
ok "--once: one line per router, faults with their kind"

[ "$(sqlite3 "$T/wgwatch.db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
n=$(sqlite3 "$T/wgwatch.db" 'SELECT count(*) FROM routers')
[ "$n" -ge 3 ] || fail "routers table has $n rows"
ok "the database holds the polled routers"

# Only the healthy routers: exit 0.
awk '/^\[router /{keep = ($2 !~ /^(auth-fail|garbage)\]/)} keep' "$T/routers.conf" >"$T/healthy.conf"
sed "s|include = routers.conf|include = healthy.conf|; s|wgwatch.db|healthy.db|" "$T/wgwatch.conf" >"$T/h.conf"
"$DAEMON" -c "$T/h.conf" --once >"$T/once2.out" 2>>"$T/daemon.log" || fail "--once with healthy routers exited $?"
[ "$(grep -c ' up ' "$T/once2.out")" -eq 3 ] || fail "healthy --once output: $(cat "$T/once2.out")"
ok "--once exits 0 when every router answers"

# --once beside a running daemon on the same database: refused in one line that says what to
# do instead; the running daemon goes on.
start_daemon
rc=0; "$DAEMON" -c "$T/wgwatch.conf" --once >"$T/once3.out" 2>"$T/once3.err" || rc=$?
[ "$rc" = 3 ] || fail "--once beside the daemon exited $rc, want 3"
[ "$(wc -l <"$T/once3.err")" = 1 ] || fail "--once beside the daemon said: $(cat "$T/once3.err")"
grep -q "in use by another process (pid $DAEMON_PID).*curl http://127.0.0.1:$HTTP_PORT/api/v1/routers" "$T/once3.err" ||
	fail "--once beside the daemon said: $(cat "$T/once3.err")"
http_get /healthz >/dev/null || fail "the running daemon was disturbed"
ok "--once beside the running daemon: $(cat "$T/once3.err")"
stop_daemon

if grep -q 'sim-secret' "$T/once.out" "$T/once2.out" "$T/daemon.log" "$T/check.err"; then
	fail "the router password appears in output or logs"
fi
ok "no secret in output or logs"
