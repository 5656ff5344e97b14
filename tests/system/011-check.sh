#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 011-check: --check means the start will work (issue 17). For each config the start would
# refuse, --check refuses it too, exit 1, naming FILE:LINE and the key; and the start refuses
# it with the same line, before it listens or opens anything. A config --check accepts starts.
. "$top_srcdir/tests/system/lib.sh"

: >"$T/routers.conf"
write_conf 1s 1s
mkdir "$T/adir"

# case NAME LINE: the [daemon] line to put in place of listen/database, and the text --check must say
check_case() {
	name=$1 line=$2 want=$3
	sed -e "s|^listen = .*|listen = 127.0.0.1:$HTTP_PORT|" "$T/wgwatch.conf" >"$T/$name.conf"
	case $line in
	listen*) sed -i "s|^listen = .*|$line|" "$T/$name.conf" ;;
	database*) sed -i "s|^database = .*|$line|" "$T/$name.conf" ;;
	labels* | ca_file*) printf '[router r9]\nrest = http://127.0.0.1:1\n%s\n' "$line" >>"$T/$name.conf" ;;
	*) echo "$line" >>"$T/$name.conf" ;;
	esac
	n=$(grep -n -F -x "$line" "$T/$name.conf" | cut -d: -f1)
	rc=0; "$DAEMON" -c "$T/$name.conf" --check >"$T/$name.check" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "$name: --check exited $rc: $(cat "$T/$name.check")"
	grep -q "^$T/$name.conf:$n: .*$want" "$T/$name.check" || fail "$name: --check said: $(cat "$T/$name.check")"
	rc=0; timeout 20 "$DAEMON" -c "$T/$name.conf" >"$T/$name.start" 2>&1 || rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$name: the start exited $rc (124: it ran)"
	grep -q "$T/$name.conf:$n: .*$want" "$T/$name.start" || fail "$name: the start said: $(cat "$T/$name.start")"
	ok "$name: --check and the start both refuse $T/$name.conf:$n ($want)"
}

check_case localhost 'listen = localhost:9477' 'numeric address'
check_case port 'listen = 127.0.0.1:99999' 'port from 1 to 65535'
check_case foreign 'listen = 192.0.2.1:9477' 'not an address of this host'
check_case nodir "database = $T/missing/wgwatch.db" 'No such file or directory'
check_case isdir "database = $T/adir" 'is not a regular file'
check_case labels 'labels = site=hq,direction=tx' "label name 'direction' is wgwatch's own"
check_case section '[metrics]' 'unknown section .metrics. (known: .*alert'
printf 'not a certificate\n' >"$T/junk.pem"
check_case cafile "ca_file = $T/junk.pem" 'holds no PEM certificate'

# --check --offline: a config for another host (its listen address, its database's directory)
# is checked on this one, the file alone; what the file itself gets wrong is still refused.
sed -e 's|^listen = .*|listen = 192.0.2.1:9477|' -e 's|^database = .*|database = /nonexistent/wgwatch.db|' \
	"$T/wgwatch.conf" >"$T/other-host.conf"
"$DAEMON" -c "$T/other-host.conf" --check --offline >"$T/offline.check" 2>&1 ||
	fail "--check --offline refused another host's config: $(cat "$T/offline.check")"
rc=0
"$DAEMON" -c "$T/foreign.conf" --check --offline >"$T/offline-bad.check" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "--check --offline of foreign.conf: exit $rc"
rc=0
"$DAEMON" -c "$T/cafile.conf" --check --offline >"$T/offline-bad.check" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'holds no PEM certificate' "$T/offline-bad.check" ||
	fail "--check --offline passed a junk ca_file: exit $rc: $(cat "$T/offline-bad.check")"
ok "--check --offline: another host's listen and database pass, a junk ca_file is still refused"

# A timeout longer than the interval is allowed (a slow reply skips the polls due meanwhile)
# but said, by --check and at the start.
printf '[router slow]\nrest = http://127.0.0.1:1\ninterval = 30s\ntimeout = 1m\n' >"$T/slow.conf"
sed -e "s|^include = .*|include = slow.conf|" "$T/wgwatch.conf" >"$T/timeout.conf"
"$DAEMON" -c "$T/timeout.conf" --check --offline >"$T/timeout.check" 2>&1 || fail "timeout > interval: $(cat "$T/timeout.check")"
grep -q "note: router slow: timeout 60000 ms is longer than interval 30000 ms" "$T/timeout.check" ||
	fail "--check said nothing of the timeout: $(cat "$T/timeout.check")"
ok "--check notes a timeout longer than the interval"

"$DAEMON" -c "$T/wgwatch.conf" --check >"$T/good.check" 2>&1 || fail "the good config: $(cat "$T/good.check")"
start_daemon
ok "a config --check accepts starts and answers /healthz"
check_log_clean
