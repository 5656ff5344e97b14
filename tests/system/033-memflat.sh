#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 033-memflat: the daemon's memory stays flat over many faulty polls. 100 routers poll every
# 200 ms while each cycles through every fault (0.8 s of one fault, then 0.4 s healthy so the
# back-off does not thin the polls out). VmRSS is read after 1/10, 1/2 and all of the polls;
# the second half may add less than 2 MiB besides what SQLite's heap grew. The first half is
# warm-up, not asserted: measured with gdb (mallinfo2, sqlite3_memory_used), the daemon's own
# heap levels off by ~5,000 polls. SQLite's page caches grow with the database (up to 2 MB per
# connection) and not always by then: VmRSS from 1,000 to 10,000 polls grew 2.5 to 2.8 MB in
# three runs, split 340 + 2,432 kB in one of them; so its heap, as the daemon exports it
# (wgwatch_store_sqlite_memory_bytes), is taken out of the growth asserted.
# WGWATCH_MEM_POLLS (default 10000) scales the run; under the sanitizers RSS is only printed
# (ASan keeps freed memory in quarantine).
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
POLLS=${WGWATCH_MEM_POLLS:-10000}
MAX_GROWTH_KB=2048

FAULTS="401 malformed html hang refuse big truncate slow slowloris reset"
{
	printf '[global]\nuser = wgwatch\npassword = mem-secret\ntime_scale = 1\n'
	g=0
	for first in $FAULTS; do
		printf '\n[group f%d]\ncount = 10\nwg = wg0:4\ntx_mbps = 10\ndrip_every = 50ms\n' "$g"
		# Group g starts at the g-th fault; 1.2 s a step, 150 steps (3 minutes).
		i=0
		while [ "$i" -lt 150 ]; do
			set -- $FAULTS
			shift $(( (g + i) % 10 ))
			printf 'at %dms: fault %s\nat %dms: fault none\n' $((i * 1200)) "$1" $((i * 1200 + 800))
			i=$((i + 1))
		done
		g=$((g + 1))
	done
} >"$T/mem.scenario"
start_sim "$T/mem.scenario" -q
write_conf 200ms 150ms "max_body = 64K"
start_daemon

scrape() { http_get /metrics >"$T/metrics.txt"; }
total() { $EXPO "$T/metrics.txt" "$@" | awk '{ s += $1 } END { print s + 0 }'; }
polls() { scrape && total wgwatch_polls_total; }
at_least() { [ "$(polls)" -ge "$1" ]; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$DAEMON_PID/status"; }
sqlite_kb() { echo $(($(total wgwatch_store_sqlite_memory_bytes) / 1024)); } # of the last scrape

wait_until 60 at_least $((POLLS / 10)) || fail "only $(polls) polls in a minute"
rss0=$(rss) p0=$(polls) sq0=$(sqlite_kb)
wait_until 200 at_least $((POLLS / 2)) || fail "only $(polls) polls of $((POLLS / 2))"
rss1=$(rss) p1=$(polls) f1=$(total wgwatch_poll_errors_total) sq1=$(sqlite_kb)
wait_until 200 at_least "$POLLS" || fail "only $(polls) polls of $POLLS"
rss2=$(rss) p2=$(polls) f2=$(total wgwatch_poll_errors_total) sq2=$(sqlite_kb)
kill -0 "$DAEMON_PID" || fail "the daemon died"

kinds=$($EXPO "$T/metrics.txt" wgwatch_poll_errors_total --label kind | sort -u | tr '\n' ' ')
for k in auth parse timeout connect; do
	case " $kinds" in *" $k "*) ;; *) fail "no $k errors among: $kinds" ;; esac
done
[ $((f2 - f1)) -ge $(((p2 - p1) / 3)) ] || fail "only $((f2 - f1)) of $((p2 - p1)) polls failed"
echo "  polls $p1 -> $p2 ($f1 -> $f2 failed; kinds: $kinds)"
echo "  VmRSS after $p0 polls $rss0 kB, after $p1 $rss1 kB, after $p2 $rss2 kB"
echo "  SQLite's heap after $p0 polls $sq0 kB, after $p1 $sq1 kB, after $p2 $sq2 kB"
[ "$sq2" -gt 0 ] || fail "no wgwatch_store_sqlite_memory_bytes on /metrics"
grew=$(((rss2 - rss1) - (sq2 - sq1)))
if ldd "$DAEMON" 2>/dev/null | grep -q 'libasan'; then
	ok "sanitizer build: RSS not asserted ($((rss2 - rss1)) kB over $((p2 - p1)) polls)"
else
	[ "$grew" -lt "$MAX_GROWTH_KB" ] ||
		fail "VmRSS grew $((rss2 - rss1)) kB over $((p2 - p1)) polls, $grew kB besides SQLite's heap (limit $MAX_GROWTH_KB kB)"
	ok "VmRSS $rss1 -> $rss2 kB over $((p2 - p1)) polls, $grew kB besides SQLite's heap; $((f2 - f1)) of them failed"
fi
check_log_clean
