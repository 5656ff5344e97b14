#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 088-systemd: the unit made from systemd/wgwatchd.service.in passes `systemd-analyze verify`
# (ExecStart pointing at the built daemon, the man pages of Documentation= on a MANPATH), and
# `systemd-analyze security --offline=yes` rates it OK or better (exposure < 5.0); so does an
# instance of the template wgwatchd@.service made from it for sharding. Then the
# daemon runs under strace (REST routers, an SNMP router, pages, API, /metrics, a reload,
# SIGTERM) and every system call it makes must be allowed by the unit's SystemCallFilter=
# lines, every socket it opens of a family in RestrictAddressFamilies=: so the sandbox cannot
# break it. Nothing is installed and no systemd manager is needed.
. "$top_srcdir/tests/system/lib.sh"
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze missing (apt-get install systemd)"; exit 77; }

# The unit as `make` builds it, with the paths pointing into the build tree and $T.
UNIT="$T/wgwatchd.service"
sed -e "s|@sbindir[@]|$top_builddir|g" -e "s|@sysconfdir[@]|$T|g" \
	"$top_srcdir/systemd/wgwatchd.service.in" >"$UNIT"
grep -q "^ExecStart=$top_builddir/wgwatchd " "$UNIT" || fail "ExecStart not substituted: $(grep ^ExecStart= "$UNIT")"
mkdir -p "$T/man/man5" "$T/man/man8"
cp "$top_srcdir/docs/wgwatch.conf.5" "$T/man/man5/"
cp "$top_srcdir/docs/wgwatchd.8" "$T/man/man8/"

rc=0
(cd "$T" && MANPATH="$T/man" SYSTEMD_LOG_LEVEL=notice systemd-analyze verify ./wgwatchd.service) \
	>"$T/verify.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "systemd-analyze verify: exit $rc: $(cat "$T/verify.log")"
[ ! -s "$T/verify.log" ] || fail "systemd-analyze verify warns: $(cat "$T/verify.log")"
ok "systemd-analyze verify accepts the unit, with no warning"

(cd "$T" && systemd-analyze security --offline=yes ./wgwatchd.service) >"$T/security.log" 2>&1 ||
	fail "systemd-analyze security failed: $(tail -3 "$T/security.log")"
line=$(grep 'Overall exposure level for wgwatchd.service:' "$T/security.log") ||
	fail "no overall exposure line: $(tail -3 "$T/security.log")"
score=$(echo "$line" | sed -n 's/.*wgwatchd.service: *\([0-9.]*\) \([A-Z]*\).*/\1/p')
level=$(echo "$line" | sed -n 's/.*wgwatchd.service: *\([0-9.]*\) \([A-Z]*\).*/\2/p')
[ -n "$score" ] || fail "cannot parse the score from: $line"
# systemd 252 (src/analyze/analyze-security.c): OK below 5.0, then MEDIUM, EXPOSED, UNSAFE.
awk -v s="$score" 'BEGIN { exit !(s < 5.0) }' || fail "exposure $score $level, want below 5.0 (OK)"
case $level in OK|SAFE|PERFECT) ;; *) fail "exposure level $level ($score)" ;; esac
ok "systemd-analyze security: exposure $score $level (OK is below 5.0)"
grep '✗' "$T/security.log" | sed 's/  */ /g; s/^/  still exposed: /' | cut -c1-110

# The template for shards on one host (docs/scaling.md) is this unit through systemd/wgwatchd@.sed:
# instance 2 must pass the same checks, with its own config file and state directory.
INST="$T/wgwatchd@2.service"
sed -e "s|@sbindir[@]|$top_builddir|g" -e "s|@sysconfdir[@]|$T|g" -f "$top_srcdir/systemd/wgwatchd@.sed" \
	"$top_srcdir/systemd/wgwatchd.service.in" >"$INST"
grep -q "^ExecStart=$top_builddir/wgwatchd -c $T/wgwatch/shard-%i.conf$" "$INST" ||
	fail "template ExecStart: $(grep ^ExecStart= "$INST")"
grep -qx 'StateDirectory=wgwatch/%i' "$INST" || fail "template StateDirectory: $(grep ^StateDirectory= "$INST")"
grep -q "^ExecReload=$top_builddir/wgwatchd -c $T/wgwatch/shard-%i.conf --reload "'\$MAINPID$' "$INST" ||
	fail "template ExecReload: $(grep ^ExecReload= "$INST")"
[ "$(diff "$UNIT" "$INST" | grep -c '^>')" = 6 ] || fail "the template differs in more than 6 lines: $(diff "$UNIT" "$INST")"
rc=0
(cd "$T" && MANPATH="$T/man" SYSTEMD_LOG_LEVEL=notice systemd-analyze verify ./wgwatchd@2.service) \
	>"$T/verify-inst.log" 2>&1 || rc=$?
[ "$rc" = 0 ] && [ ! -s "$T/verify-inst.log" ] || fail "systemd-analyze verify wgwatchd@2: exit $rc: $(cat "$T/verify-inst.log")"
(cd "$T" && systemd-analyze security --offline=yes ./wgwatchd@2.service) >"$T/security-inst.log" 2>&1 ||
	fail "systemd-analyze security wgwatchd@2 failed: $(tail -3 "$T/security-inst.log")"
iscore=$(sed -n 's/.*Overall exposure level for wgwatchd@2.service: *\([0-9.]*\) .*/\1/p' "$T/security-inst.log")
[ "$iscore" = "$score" ] || fail "wgwatchd@2 exposure '$iscore', wgwatchd $score"
ok "wgwatchd@.service (instance 2): shard-%i.conf, StateDirectory=wgwatch/%i, verified, exposure $iscore"

# --- the sandbox against a real run -----------------------------------------------------------
if grep -q '^WG_CFLAGS = .*-fsanitize' "$top_builddir/Makefile" 2>/dev/null; then
	echo "(sanitizer build: the system call check is for the plain build only)"
	exit 0
fi
command -v strace >/dev/null || { echo "SKIP: strace missing for the system call check"; exit 77; }

# unit_filter KEY: the values of every KEY= line of the unit, space-separated.
unit_filter() { sed -n "s/^$1=//p" "$UNIT" | tr '\n' ' '; }
# Every group as systemd-analyze lists it ("@group" lines, then its members indented).
systemd-analyze syscall-filter >"$T/groups.txt" 2>&1 || fail "systemd-analyze syscall-filter failed"
# expand GROUP-OR-NAME...: the system calls they stand for, one a line (groups nest).
expand() {
	$PY - "$T/groups.txt" "$@" <<'PYEOF'
import sys
groups, cur = {}, None
for line in open(sys.argv[1]):
    if line.startswith("@"):
        cur = groups.setdefault(line.strip(), [])
    elif cur is not None and line.strip() and not line.strip().startswith("#"):
        cur.append(line.strip())
out, todo, seen = set(), list(sys.argv[2:]), set()
while todo:
    n = todo.pop()
    if n in seen:
        continue
    seen.add(n)
    if n.startswith("@"):
        if n not in groups:
            sys.exit("unknown group " + n)
        todo += groups[n]
    else:
        out.add(n)
print("\n".join(sorted(out)))
PYEOF
}
# Allow lists add up; a `SystemCallFilter=~@a @b` line (the ~ applies to the whole line) takes away.
deny=$(sed -n 's/^SystemCallFilter=~//p' "$UNIT" | tr '\n' ' ')
allow=$(sed -n '/^SystemCallFilter=[^~]/s/^SystemCallFilter=//p' "$UNIT" | tr '\n' ' ')
[ -n "$allow" ] || fail "the unit has no SystemCallFilter allow list"
# shellcheck disable=SC2086
expand $allow | sort -u >"$T/allowed" || fail "cannot expand $allow"
# shellcheck disable=SC2086
expand $deny | sort -u >"$T/denied" || fail "cannot expand $deny"
[ "$(wc -l <"$T/allowed")" -gt 100 ] || fail "only $(wc -l <"$T/allowed") calls in $allow"
comm -23 "$T/allowed" "$T/denied" >"$T/permitted"

start_sim "$top_srcdir/tests/system/basic.scenario"
SNMP_PORT=$(free_port)
printf '[router snmp-none]\nsnmp = 127.0.0.1:%s\nsnmp_community = nobody-listens\n' "$SNMP_PORT" >>"$T/routers.conf"
write_conf 1s 900ms
EXPO="$PY $top_srcdir/tests/system/expo.py"
strace -f -qq -o "$T/strace.out" "$DAEMON" -c "$T/wgwatch.conf" -v 2>>"$T/daemon.log" &
STRACE_PID=$!
PIDS="$PIDS $STRACE_PID"
# Signals go to the daemon itself: strace would only detach on SIGTERM.
wait_until 10 pgrep -P "$STRACE_PID" >/dev/null || fail "strace started no daemon"
DAEMON_PID=$(pgrep -P "$STRACE_PID")
wait_until 30 curl -fsS "http://127.0.0.1:$HTTP_PORT/healthz" || fail "wgwatchd under strace never answered"
polls() { http_get /metrics >"$T/m.txt" && $EXPO "$T/m.txt" wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1" | cut -d. -f1)" -ge "$2" ]; }
wait_until 30 ge arm64-a 3 || fail "arm64-a not polled 3 times under strace"
wait_until 30 ge snmp-none 2 || fail "snmp-none not polled twice under strace"
for p in / /router/arm64-a /upgrades /api/v1/routers /api/v1/regressions /api/v1/cohorts \
	/static/wgwatch.css /metrics; do
	http_get "$p" >/dev/null || fail "GET $p under strace"
done
kill -HUP "$DAEMON_PID"
wait_until 20 grep -q 'reload: ' "$T/daemon.log" || fail "no reload under strace"
n=$(polls arm64-a | cut -d. -f1)
wait_until 20 ge arm64-a $((n + 1)) || fail "no poll after the reload"
kill -TERM "$DAEMON_PID"
rc=0
wait "$STRACE_PID" || rc=$?
[ "$rc" = 0 ] || fail "wgwatchd under strace exited $rc"

# Every call made: "PID name(" and "PID <... name resumed>"; strace's own lines (+++, ---) are not calls.
sed -n -e 's/^[0-9]* *\([a-z0-9_]*\)(.*/\1/p' -e 's/^[0-9]* *<\.\.\. \([a-z0-9_]*\) resumed>.*/\1/p' \
	"$T/strace.out" | sort -u >"$T/used"
[ "$(wc -l <"$T/used")" -gt 20 ] || fail "strace saw only $(wc -l <"$T/used") system calls"
# Refused calls the daemon is known to survive (they fail with SystemCallErrorNumber=EPERM):
#   prlimit64: glibc's getrlimit; the daemon then keeps the unit's LimitNOFILE.
#   fchown: SQLite gives a new journal/WAL file the database's owner, only when running as root
#           (as this test may; never under DynamicUser=), and ignores a failure.
tolerated="prlimit64"
[ "$(id -u)" != 0 ] || tolerated="$tolerated fchown"
bad=""
for s in $(comm -23 "$T/used" "$T/permitted"); do
	case " $tolerated " in *" $s "*) continue ;; esac
	bad="$bad $s"
done
[ -z "$bad" ] || fail "system calls the unit refuses:$bad"
ok "$(wc -l <"$T/used") distinct system calls made, all allowed by SystemCallFilter= (EPERM tolerated: $tolerated)"

families=$(sed -n 's/^[0-9]* *socket(\(AF_[A-Z0-9]*\),.*/\1/p' "$T/strace.out" | sort -u | tr '\n' ' ')
allowedfam=" $(unit_filter RestrictAddressFamilies) "
for f in $families; do
	case $allowedfam in *" $f "*) ;; *) fail "socket($f) is refused by RestrictAddressFamilies=$allowedfam" ;; esac
done
ok "socket families used: $families(all in RestrictAddressFamilies=)"
# ProcSubset=pid hides /proc but for processes; glibc's malloc reads overcommit_memory and
# does without it. ProtectSystem=strict leaves only the StateDirectory (here $T) writable.
opened() {   # PATH FLAGS, a line per open (an <unfinished ...> call has both on its first line)
	sed -n 's/^[0-9]* *open[a-z]*([^"]*"\([^"]*\)", \([A-Z_|]*\).*/\1 \2/p' "$T/strace.out"
}
hidden=$(opened | awk '{ print $1 }' | grep '^/proc/' | grep -vE '^/proc/(self|thread-self|[0-9]+)/' |
	grep -vx /proc/sys/vm/overcommit_memory | sort -u | tr '\n' ' ')
[ -z "$hidden" ] || fail "opens what ProcSubset=pid hides: $hidden"
written=$(opened | grep -E ' .*(O_WRONLY|O_RDWR|O_CREAT)' | awk '{ print $1 }' |
	grep -v "^$T/" | grep -vx /dev/null | sort -u | tr '\n' ' ')
[ -z "$written" ] || fail "opens for writing outside its state directory: $written"
ok "no file opened that ProcSubset=pid hides, none written outside the state directory"
check_log_clean
