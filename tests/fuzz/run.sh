#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh SECONDS: runs every built libFuzzer harness (./configure --enable-fuzzing) for SECONDS
# on a copy of its seed corpus; builds nothing. Exits non-zero on a crash, a leak or a hang,
# naming the reproducer (re-run it with: tests/fuzz/fuzz_NAME FILE).
# Env: top_builddir (where the fuzzers were built, default .), FUZZ_WORK (default a temp dir).
set -u
secs=${1:-60}
case $secs in ''|*[!0-9]*) echo "usage: $0 SECONDS" >&2; exit 2 ;; esac
srcdir=$(cd "$(dirname "$0")" && pwd)
bin=${top_builddir:-.}/tests/fuzz
work=${FUZZ_WORK:-$(mktemp -d /tmp/wgwatch-fuzz.XXXXXX)}
mkdir -p "$work"
# fuzz_conf rewrites a file per input: a tmpfs makes it several times faster.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm
	export TMPDIR
fi
fail=0 ran=0
for t in fuzz_ros fuzz_rest_json fuzz_jsonr fuzz_conf fuzz_http fuzz_snmp fuzz_evidence fuzz_targets fuzz_chunk fuzz_pollchunk fuzz_rollchunk; do
	if [ ! -x "$bin/$t" ]; then
		echo "$t: not built (configure with CC=clang CXX=clang++ --enable-fuzzing), skipped"
		continue
	fi
	ran=$((ran + 1))
	mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
	cp "$srcdir/corpus/$t/"* "$work/$t/corpus/"
	echo "$t: $secs s"
	"$bin/$t" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/$t/artifacts/" "$work/$t/corpus" >"$work/$t/log" 2>&1
	rc=$?
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$t/log" | sed "s/^/$t: /"
	if [ $rc -ne 0 ]; then
		fail=1
		echo "$t: FAILED (exit $rc); log $work/$t/log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY)|runtime error|Assertion|no reply' "$work/$t/log" | head -5
		for a in "$work/$t/artifacts/"*; do
			[ -e "$a" ] && echo "$t: reproducer $a  (run: $bin/$t $a)"
		done
	fi
done
if [ $ran -eq 0 ]; then
	echo "no fuzzer built in $bin" >&2
	exit 2
fi
if [ $fail -eq 0 ] && [ -z "${FUZZ_WORK:-}" ]; then
	rm -rf "$work"
fi
exit $fail
