#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 046-clockstep: issue 39. wgwatchd runs under Debian's faketime with the wall clock stepped 6 h
# forward until a roll-up ran, then back to a second after its first poll, over the polls it
# stored first (monotonic time untouched, as NTP leaves it). Both steps are logged once and
# counted; /api/v1/history has a wg0 rate of about 100 Mbit/s (over the monotonic interval) in
# every bucket from the first poll on; the roll-up mark came back from 6 h ahead; after a
# restart the deltas go on from the last poll, not from the newest (future) time; no poll was
# lost.
#
# Needs a wgwatchd without jemalloc (--without-jemalloc, or a sanitizer build): under
# libfaketime a jemalloc one deadlocks at start. jemalloc calls clock_gettime() while holding
# one of its own locks; libfaketime's clock_gettime, not initialised yet, looks up the real
# functions with dlsym(); glibc, failing to find one of them (__ftime), mallocs its error
# message: back into jemalloc, which waits on the lock its outer frame holds.
# FAKETIME_DONT_FAKE_MONOTONIC=1, MALLOC_CONF without decay and other preload orders do not
# avoid it (all tried, libfaketime 0.9.10, jemalloc 5.3.0).
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
FT=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
[ -r "$FT" ] || { echo "SKIP: libfaketime not installed (apt-get install faketime)"; exit 77; }
if ldd "$DAEMON" | grep -q jemalloc; then
	echo "SKIP: wgwatchd links jemalloc, which deadlocks under libfaketime (configure --without-jemalloc)"
	exit 77
fi

start_sim "$top_srcdir/tests/system/clockstep.scenario"
write_conf 1s 800ms
echo "+0" >"$T/faketime"
# The clock is read from $T/faketime at most a second late. A sanitizer build wants its runtime
# first among the libraries; libfaketime comes before it, harmlessly.
cat >"$T/wgwatchd-faketime" <<EOF
#!/bin/sh
ASAN_OPTIONS="verify_asan_link_order=0\${ASAN_OPTIONS:+:\$ASAN_OPTIONS}" LD_PRELOAD=$FT \
	FAKETIME_TIMESTAMP_FILE=$T/faketime FAKETIME_CACHE_DURATION=1 FAKETIME_DONT_FAKE_MONOTONIC=1 \
	exec "$DAEMON" "\$@"
EOF
chmod +x "$T/wgwatchd-faketime"
DAEMON="$T/wgwatchd-faketime"
start_daemon

sql() { sqlite3 "$T/wgwatch.db" "$@"; }
now_ms() { $PY -c 'import time; print(int(time.time() * 1000))'; }
scrape() { http_get /metrics >"$T/metrics.txt"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
ok_polls() { [ "$(sql "SELECT count(*) FROM polls WHERE err IS NULL ${2:-}")" -ge "$1" ]; }

wait_until 20 ok_polls 4 || fail "no polls stored before the step"
echo "+6h" >"$T/faketime"
ahead=$(( $(now_ms) + 5 * 3600000 ))
wait_until 20 ok_polls 3 "AND time_ms > $ahead" || fail "no polls stored 6 h ahead"
mark_ahead() { [ "$(sql "SELECT value FROM store_state WHERE key = 'rollup_ms'")" -gt "$ahead" ]; }
wait_until 90 mark_ahead || fail "the roll-up mark never ran ahead (no maintenance during the step)"
future=$(sql "SELECT max(rowid) FROM polls")
ok "6 h ahead: polls stored there, roll-up mark $(sql "SELECT value FROM store_state WHERE key = 'rollup_ms'")"

# Back to a second after the first poll: the polls from then on are stamped over those stored
# before the step (and behind the roll-up mark). 6 h on, the maintenance may have chunked the
# first polls' hour: their rows are in chunks then (docs/storage.md).
first=$(sql "SELECT min(m) FROM (SELECT min(time_ms) AS m FROM polls UNION ALL SELECT min(time_ms) FROM chunks)")
echo "-$(( ($(now_ms) - first) / 1000 - 1 ))" >"$T/faketime"
wait_until 30 ok_polls 20 "AND rowid > $future" || fail "fewer than 20 polls stored after the step back"

# Logged once each, counted.
scrape
[ "$(val wgwatch_clock_steps_total)" = 2 ] || fail "wgwatch_clock_steps_total is $(val wgwatch_clock_steps_total), want 2"
[ "$(grep -c 'wall clock stepped forward' "$T/daemon.log")" = 1 ] || fail "the forward step was not logged once"
[ "$(grep -c 'wall clock stepped back' "$T/daemon.log")" = 1 ] || fail "the step back was not logged once"
ok "both steps logged once: $(grep 'wall clock stepped back' "$T/daemon.log")"

# Every poll since the first has its wg0 rate, over the monotonic interval (about 100 Mbit/s),
# as /api/v1/history shows them (the sqlite3 shell cannot read the packed samples): its buckets
# (2 intervals wide) from the router's first poll on, over the polls stored before the step and
# those stamped on top of them after it. history_rated MIN [LAST]: at least MIN buckets, and a
# rate in each from the first with one (a page shows a minute, from before the router's first
# poll) to the newest 8 s (the store gathers polls 5 s before it commits), or in the LAST
# buckets before those only.
history_rated() {
	http_get "/api/v1/history/steady?range=6h" >"$T/history.json" &&
		$PY - "$T/history.json" "$1" "${2:-0}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
tx = [f["tx_bps"] for f in d["interfaces"] if f["name"] == "wg0"][0]
last, end = int(sys.argv[3]), len(tx) - 4  # the newest 8 s may not be committed yet
first = end - last if last else next((i for i, v in enumerate(tx) if v is not None), 0)
bad = [i for i in range(first, end) if tx[i] is None or not 80e6 <= tx[i] <= 120e6]
print("  history: %d buckets, without a rate of 80..120 Mbit/s: %s" % (len(tx), bad))
sys.exit(len(tx) < int(sys.argv[2]) or len(bad) > 0)
EOF
}
history_rated 8 || fail "/api/v1/history lacks wg0 rates after the step back"
ok "history: a rate in every bucket since the first poll"

# The roll-up mark came back to the polls stored behind it.
mark=$(sql "SELECT value FROM store_state WHERE key = 'rollup_ms'")
[ "$mark" -le "$(now_ms)" ] || fail "the roll-up mark stayed ahead: $mark"
ok "roll-up mark back at $mark"

# A restart: deltas go on from the last poll, no poll lost.
scrape
polled=$(val wgwatch_polls_total router=steady)
stop_daemon -TERM
stored=$(sql "SELECT (SELECT count(*) FROM polls) + (SELECT coalesce(sum(nrows), 0) FROM chunks)")
[ "$stored" -ge "${polled%.*}" ] || fail "$polled polls taken, $stored stored"
last=$(sql "SELECT max(rowid) FROM polls")
start_daemon
wait_until 30 ok_polls 16 "AND rowid > $last" || fail "no polls stored after the restart"
history_rated 10 2 || fail "after the restart, /api/v1/history lacks wg0 rates"
ok "restart: $stored polls kept, deltas go on"
check_log_clean
