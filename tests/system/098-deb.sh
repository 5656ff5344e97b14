#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 098-deb: `dpkg-buildpackage -us -uc -b` builds wgwatch_*.deb from a copy of the source tree;
# lintian finds no error and no warning but those docs/packaging.md accepts; the package holds
# exactly the FHS paths docs/packaging.md lists, /etc/wgwatch/wgwatch.conf as a conffile. Unpacked
# into $T (dpkg -x: nothing is installed on this system and no maintainer script runs), the
# installed wgwatchd accepts the shipped config (--check), runs on it with an empty fleet and
# answers /healthz; its unit, man pages and compiled-in default database agree, and
# `systemd-analyze verify` accepts the installed units. Skipped in the sanitizer build: the
# package is built the same way there, and once is enough.
. "$top_srcdir/tests/system/lib.sh"
command -v dpkg-buildpackage >/dev/null ||
	{ echo "SKIP: dpkg-buildpackage missing (sh .ci/install-test-deps)"; exit 77; }
if grep -q '^WG_CFLAGS = .*-fsanitize' "$top_builddir/Makefile" 2>/dev/null; then
	echo "SKIP: sanitizer build (the package does not depend on it; the plain build builds it)"; exit 77
fi
for t in lintian systemd-analyze; do
	command -v $t >/dev/null || fail "$t missing (sh .ci/install-test-deps)"
done
unset MAKEFLAGS MFLAGS MAKELEVEL

# --- build from a copy of the sources ------------------------------------------------------------
mkdir "$T/src"
# A git checkout (its top, not a distribution tree unpacked inside one): the files git knows.
if [ "$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$top_srcdir" && pwd -P)" ]; then
	(cd "$top_srcdir" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) | tar -C "$T/src" -xf -
else   # a distribution tree (make distcheck): its build and install dirs stay out
	tar -C "$top_srcdir" --exclude=./_build --exclude=./_inst --exclude='./build*' --exclude=./autom4te.cache \
		-cf - . | tar -C "$T/src" -xf -
fi
chmod -R u+w "$T/src"   # make distcheck's tree is read-only
[ -x "$T/src/debian/rules" ] || fail "no debian/rules in the copy of $top_srcdir"
start=$(date +%s)
(cd "$T/src" && DEB_BUILD_OPTIONS='nocheck parallel=2' dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1 ||
	fail "dpkg-buildpackage failed: $(tail -20 "$T/build.log")"
DEB=$(ls "$T"/wgwatch_*_*.deb)
[ -f "$DEB" ] || fail "no wgwatch_*.deb: $(ls "$T")"
ok "dpkg-buildpackage built $(basename "$DEB") in $(($(date +%s) - start)) s"

# --- lintian ---------------------------------------------------------------------------------------
# Tags docs/packaging.md accepts (none is an error or a warning today).
accepted="package-supports-alternative-init-but-no-init.d-script"
lintian -I -E --pedantic "$T"/wgwatch_*.changes >"$T/lintian.out" 2>"$T/lintian.err" ||
	fail "lintian exit $?: $(cat "$T/lintian.out" "$T/lintian.err")"
sed 's/^/  lintian: /' "$T/lintian.out"
unexpected=$(grep -E '^[EWIPX]: ' "$T/lintian.out" | while read -r _ _ tag _; do
	case " $accepted " in *" $tag "*) ;; *) echo "$tag" ;; esac
done)
[ -z "$unexpected" ] || fail "lintian tags not accepted in docs/packaging.md: $unexpected"
ok "lintian: no error, no warning; accepted: $(grep -cE '^[EWIPX]: ' "$T/lintian.out") tag(s) of docs/packaging.md"

# --- the file list ---------------------------------------------------------------------------------
dpkg-deb -c "$DEB" >"$T/contents"
awk '$1 !~ /^d/ { print $6 }' "$T/contents" | sed 's|^\./|/|' | sort >"$T/files"
schema=$(cd "$top_srcdir/schema" && ls ./*.sql | sed 's|^\./|/usr/share/wgwatch/schema/|')
for f in /usr/sbin/wgwatchd /usr/sbin/wgwatch-sql /etc/wgwatch/wgwatch.conf /lib/systemd/system/wgwatchd.service \
	/lib/systemd/system/wgwatchd@.service /usr/share/man/man8/wgwatchd.8.gz /usr/share/man/man8/wgwatch-sql.8.gz \
	/usr/share/man/man5/wgwatch.conf.5.gz /usr/share/wgwatch/wgwatch-rules.yml \
	/usr/share/wgwatch/wgwatch-shard-rules.yml /usr/share/wgwatch/wgwatch-mktxp-rules.yml \
	/usr/share/wgwatch/grafana/wgwatch.json $schema \
	/usr/share/doc/wgwatch/copyright /usr/share/doc/wgwatch/changelog.gz \
	/usr/share/doc/wgwatch/wgwatch.conf.example /usr/share/doc/wgwatch/README.md.gz; do
	grep -qx "$f" "$T/files" || fail "$f is not in the package: $(cat "$T/files")"
done
stray=$(grep -vE '^(/usr/sbin/wgwatch(d|-sql)|/etc/wgwatch/[^/]*|/lib/systemd/system/wgwatchd@?\.service|/usr/share/man/man[58]/[^/]*\.gz|/usr/share/wgwatch/.*|/usr/share/doc/wgwatch/.*)$' "$T/files" || true)
[ -z "$stray" ] || fail "files outside the packaged paths: $stray"
! grep -q '^/usr/share/wgwatch/demo.scenario$' "$T/files" || fail "the demo's scenario is packaged"
grep -q ' \./etc/wgwatch/sites\.d/$' "$T/contents" || fail "no /etc/wgwatch/sites.d/ for the shipped include"
dpkg-deb -e "$DEB" "$T/control"
[ "$(cat "$T/control/conffiles")" = /etc/wgwatch/wgwatch.conf ] || fail "conffiles: $(cat "$T/control/conffiles")"
ok "$(wc -l <"$T/files") files, all under the packaged paths; /etc/wgwatch/wgwatch.conf the only conffile; no /var/lib/wgwatch (StateDirectory=)"

# --- unpacked into a root of its own -----------------------------------------------------------------
R="$T/root"
dpkg -x "$DEB" "$R"
"$R/usr/sbin/wgwatchd" --check -c "$R/etc/wgwatch/wgwatch.conf" >"$T/check.out" 2>&1 ||
	fail "wgwatchd --check on the shipped config: $(cat "$T/check.out")"
grep -qx "$R/etc/wgwatch/wgwatch.conf: ok, 0 routers" "$T/check.out" || fail "--check said: $(cat "$T/check.out")"
printf '[router hub-1]\nrest = https://192.0.2.1\n' >"$R/etc/wgwatch/sites.d/hub.conf"
"$R/usr/sbin/wgwatchd" --check -c "$R/etc/wgwatch/wgwatch.conf" >"$T/check.out" 2>&1 &&
	grep -qx "$R/etc/wgwatch/wgwatch.conf: ok, 1 routers" "$T/check.out" ||
	fail "a router in sites.d/: $(cat "$T/check.out")"
rm "$R/etc/wgwatch/sites.d/hub.conf"
grep -qaF /var/lib/wgwatch/wgwatch.db "$R/usr/sbin/wgwatchd" || fail "default database is not /var/lib/wgwatch/wgwatch.db"
U="$R/lib/systemd/system/wgwatchd.service"
grep -qx 'ExecStart=/usr/sbin/wgwatchd -c /etc/wgwatch/wgwatch.conf' "$U" || fail "ExecStart: $(grep ^ExecStart= "$U")"
grep -qx 'StateDirectory=wgwatch' "$U" && ! grep -q '^BindPaths=' "$U" || fail "state: $(grep -E '^(State|Bind)' "$U")"
zcat "$R/usr/share/man/man8/wgwatchd.8.gz" >"$T/wgwatchd.8"
grep -qx '.I /etc/wgwatch/wgwatch.conf' "$T/wgwatchd.8" && grep -qx '.I /var/lib/wgwatch/wgwatch.db' "$T/wgwatchd.8" ||
	fail "wgwatchd(8) FILES: $(sed -n '/^.SH FILES/,/^.SH/p' "$T/wgwatchd.8")"
ok "installed wgwatchd --check accepts the shipped config (0 routers, 1 with a file in sites.d/); unit, man page and default database agree"

# The shipped config as it is but for the port and the database, which must stay in $T: the empty
# fleet runs and answers /healthz, so a fresh install's start does not fail.
HTTP_PORT=$(free_port)
sed -e "s|^listen = .*|listen = 127.0.0.1:$HTTP_PORT|" -e "s|^# database = .*|database = $T/wgwatch.db|" \
	"$R/etc/wgwatch/wgwatch.conf" >"$R/etc/wgwatch/test.conf"
grep -q "^database = $T/" "$R/etc/wgwatch/test.conf" || fail "the shipped config has no '# database =' line to set"
"$R/usr/sbin/wgwatchd" -c "$R/etc/wgwatch/test.conf" 2>"$T/daemon.log" &
DAEMON_PID=$!
PIDS="$PIDS $DAEMON_PID"
wait_until 20 curl -fsS "http://127.0.0.1:$HTTP_PORT/healthz" || fail "the empty fleet never answered /healthz"
http_get /metrics >"$T/metrics.txt" || fail "GET /metrics of the empty fleet"
grep -q '^wgwatch_' "$T/metrics.txt" || fail "/metrics of the empty fleet has no wgwatch_ series"
kill -TERM "$DAEMON_PID"
rc=0
wait "$DAEMON_PID" || rc=$?
[ "$rc" = 0 ] || fail "wgwatchd on the empty fleet exited $rc on SIGTERM"
grep -q ': 0 routers' "$T/daemon.log" || fail "no '0 routers' line: $(cat "$T/daemon.log")"
ok "the shipped config's empty fleet runs, answers /healthz and /metrics, stops with 0"

# The installed units (ExecStart pointed into $R, man pages from $R) pass systemd-analyze verify.
for u in wgwatchd.service wgwatchd@2.service; do
	sed "s|=/usr/sbin/wgwatchd |=$R/usr/sbin/wgwatchd |" "$R/lib/systemd/system/$(echo "$u" | sed 's/@2/@/')" >"$T/$u"
	rc=0
	(cd "$T" && MANPATH="$R/usr/share/man" SYSTEMD_LOG_LEVEL=notice systemd-analyze verify "./$u") \
		>"$T/verify.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] && [ ! -s "$T/verify.log" ] || fail "systemd-analyze verify $u: exit $rc: $(cat "$T/verify.log")"
done
ok "systemd-analyze verify accepts the installed wgwatchd.service and wgwatchd@2.service"
