#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 123-sql: wgwatch-sql reads what sqlite3 cannot. wgwatch-fill writes 3 hours of basic.scenario
# and its maintenance (-m) chunks the closed hours, the open one stays in polls: the tool's
# count over store_polls must be the polls rows plus the chunks' nrows, the database must come
# out unchanged (read-only), and a bad query, a missing file and a non-wgwatch file fail clearly.
. "$top_srcdir/tests/system/lib.sh"
SC="$top_srcdir/tests/system/basic.scenario"
EPOCH=$(($(date +%s) - 3 * 3600))
SQL="$top_builddir/wgwatch-sql"

start_sim "$SC" -e "$EPOCH"
write_conf 10s 3s
"$top_builddir/wgwatch-fill" -c "$T/wgwatch.conf" -e "$EPOCH" -i 1m -m "$SC" 2>"$T/fill.log" ||
	fail "wgwatch-fill: $(tail -3 "$T/fill.log")"
# One live poll of each router, stamped now: the open hour then holds rows however soon after
# its start the test runs (in an hour's first minute every filled poll may lie in closed hours,
# all chunked). Some of basic.scenario's routers fail on purpose: its exit status is not ours.
"$DAEMON" -c "$T/wgwatch.conf" --once >"$T/once.out" 2>"$T/once.log" || :
DB="$T/wgwatch.db"
rows=$(sqlite3 "$DB" "SELECT count(*) FROM polls")
chunked=$(sqlite3 "$DB" "SELECT count(*) || '|' || total(nrows) FROM chunks")
echo "polls rows $rows, chunks|nrows $chunked"
[ "${chunked%%|*}" -gt 0 ] && [ "$rows" -gt 0 ] || fail "no chunked and unchunked hours: $rows, $chunked"
nrows=$(printf '%.0f' "${chunked#*|}")
before=$(md5sum "$DB" | cut -d' ' -f1)
got=$("$SQL" "$DB" "SELECT count(*) FROM store_polls") || fail "wgwatch-sql count failed"
[ "$got" = $((rows + nrows)) ] || fail "store_polls counts $got, not $rows rows + $nrows chunked"
# The -list format: '|' between columns, NULL as empty, one row per line.
out=$("$SQL" "$DB" "SELECT 1, NULL, 'a' UNION ALL SELECT 2, 'b', NULL ORDER BY 1")
[ "$out" = "1||a
2|b|" ] || fail "not sqlite3's list format: $out"
[ "$(md5sum "$DB" | cut -d' ' -f1)" = "$before" ] || fail "wgwatch-sql changed the database"

if "$SQL" "$DB" "SELECT nosuchcolumn FROM store_polls" >"$T/bad.out" 2>"$T/bad.err"; then
	fail "a bad query succeeded"
fi
grep -q 'no such column: nosuchcolumn' "$T/bad.err" || fail "bad query: $(cat "$T/bad.err")"
! "$SQL" "$T/missing.db" "SELECT 1" 2>"$T/miss.err" || fail "a missing database opened"
[ ! -e "$T/missing.db" ] || fail "wgwatch-sql created a missing database"
grep -q 'missing.db' "$T/miss.err" || fail "missing: $(cat "$T/miss.err")"
sqlite3 "$T/other.db" "CREATE TABLE t(x)"
! "$SQL" "$T/other.db" "SELECT 1" 2>"$T/other.err" || fail "a non-wgwatch database opened"
grep -q 'schema version 0' "$T/other.err" || fail "wrong schema: $(cat "$T/other.err")"
"$SQL" --help | grep -q '^usage: wgwatch-sql DATABASE QUERY' || fail "--help"
ok "store_polls counts the chunked hours and the rows, read-only, bad queries and files fail clearly"
