#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 084-baddb: a database that is corrupt, truncated, not SQLite at all or in use by another
# daemon stops wgwatchd at start with a clear message and exit status 3 (a bad config is 1,
# bad usage 2), and the file is left exactly as it was: never a silent new database.
. "$top_srcdir/tests/system/lib.sh"
DB="$T/wgwatch.db"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
"$DAEMON" -c "$T/wgwatch.conf" --once >"$T/once.out" 2>"$T/once.log" || true
[ "$("$WSQL" "$DB" 'SELECT count(*) FROM store_polls')" -ge 5 ] || fail "--once stored nothing"
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "the fresh database is not ok"
cp "$DB" "$T/good.db"
pages=$(( $(stat -c %s "$DB") / 4096 ))
[ "$pages" -ge 8 ] || fail "database too small to corrupt ($pages pages)"

# expect_refused NAME STATUS PATTERN: the daemon must exit STATUS, say PATTERN, keep the file.
expect_refused() {
	sum=$(md5sum <"$DB")
	rc=0
	timeout 20 "$DAEMON" -c "$T/wgwatch.conf" 2>"$T/$1.log" >/dev/null || rc=$?
	[ "$rc" = "$2" ] || fail "$1: exit status $rc, want $2 ($(head -c 300 "$T/$1.log"))"
	grep -qE "$3" "$T/$1.log" || fail "$1: message: $(cat "$T/$1.log")"
	[ "$(md5sum <"$DB")" = "$sum" ] || fail "$1: the database file was changed"
	ok "$1: exit $rc: $(grep -E "$3" "$T/$1.log" | head -1 | cut -c1-110)"
}

# Pages 3 to the end overwritten with noise, the header page intact.
$PY -c '
import random, sys
random.seed(7)
with open(sys.argv[1], "r+b") as f:
    for page in range(2, int(sys.argv[2])):
        f.seek(page * 4096 + 100)
        f.write(bytes(random.getrandbits(8) for _ in range(3000)))
' "$DB" "$pages"
expect_refused corrupt 3 'error: database .* is (corrupt|unusable)'

cp "$T/good.db" "$DB"
truncate -s $(( 3 * 4096 )) "$DB"
expect_refused truncated 3 'error: database .* is (corrupt|unusable)'

printf 'name,polls\nrouter-1,3\n%.0s' $(seq 1 300) >"$DB"
expect_refused not-sqlite 3 'is not a SQLite database'

cp "$T/good.db" "$DB"
start_daemon
expect_refused in-use 3 'is in use by another process'
stop_daemon -TERM
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "good database damaged"

printf '[daemon]\ninterval = often\n' >"$T/bad.conf"
rc=0; "$DAEMON" -c "$T/bad.conf" 2>"$T/badconf.log" || rc=$?
[ "$rc" = 1 ] || fail "bad config: exit status $rc, want 1"
grep -q "^$T/bad.conf:2: " "$T/badconf.log" || fail "bad config: $(cat "$T/badconf.log")"
rc=0; "$DAEMON" --no-such-option 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "bad usage: exit status $rc, want 2"
ok "a bad config exits 1 with FILE:LINE, bad usage 2"
check_log_clean
