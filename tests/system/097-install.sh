#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 097-install: `make install DESTDIR=...` gives a unit whose paths agree with the installed man
# pages and with the daemon's compiled-in default database (LOCALSTATEDIR/lib/wgwatch/wgwatch.db),
# for this build's prefix (CI's: the default, /usr/local) and for a Debian one (--prefix=/usr
# --sysconfdir=/etc --localstatedir=/var, configured aside in $T: its data installed and the one
# object holding the default compiled). `systemd-analyze verify` accepts each installed unit.
# Nothing is installed outside $T. Where systemd is not the host's init (CI), a /usr/local build's
# unit also runs under a real systemd in namespaces of its own (run_unit): its sandbox, dynamic
# user, and the BindPaths= that puts the default database in its StateDirectory.
. "$top_srcdir/tests/system/lib.sh"
# The makes below are our own, not make check's: no jobserver, no "Entering directory".
unset MAKEFLAGS MFLAGS

# dirs BUILDDIR: "sbindir sysconfdir localstatedir unitdir mandir" as that build's Makefile has them.
dirs() {
	printf 'wg-dirs:\n\t@echo "$(sbindir) $(sysconfdir) $(localstatedir) $(systemdunitdir) $(mandir)"\n' >"$T/dirs.mk"
	make -s --no-print-directory -C "$1" -f Makefile -f "$T/dirs.mk" wg-dirs
}

# bare PATH FILE: FILE names PATH not as the tail of a longer path (/etc/wgwatch, not
# /usr/local/etc/wgwatch).
bare() { grep -E "(^|[^A-Za-z0-9_./-])$1" "$2"; }

# check_tree ROOT SBINDIR SYSCONFDIR LOCALSTATEDIR UNITDIR MANDIR: the installed unit and man pages.
check_tree() {
	root=$1 sbin=$2 etc=$3 var=$4 unitdir=$5 man=$6
	unit="$root$unitdir/wgwatchd.service"
	conf="$etc/wgwatch/wgwatch.conf"
	db="$var/lib/wgwatch/wgwatch.db"
	[ -f "$unit" ] || fail "no unit at $unitdir/wgwatchd.service in $root"
	[ -f "$root$unitdir/wgwatchd@.service" ] || fail "no template unit in $root$unitdir"
	grep -qx "ExecStart=$sbin/wgwatchd -c $conf" "$unit" || fail "ExecStart: $(grep ^ExecStart= "$unit")"
	grep -qx "ExecStartPre=$sbin/wgwatchd --check -c $conf" "$unit" ||
		fail "ExecStartPre: $(grep ^ExecStartPre= "$unit")"
	grep -qx 'StateDirectory=wgwatch' "$unit" || fail "StateDirectory: $(grep ^StateDirectory= "$unit")"
	# ConfigurationDirectory= makes /etc/wgwatch, whatever the prefix: only where the config is.
	if [ "$etc" = /etc ]; then
		grep -qx 'ConfigurationDirectory=wgwatch' "$unit" || fail "sysconfdir /etc, no ConfigurationDirectory=wgwatch"
	else
		! grep -q '^ConfigurationDirectory=' "$unit" ||
			fail "config in $etc/wgwatch, yet $(grep ^ConfigurationDirectory= "$unit") (that is /etc/wgwatch)"
	fi
	if [ "$var" = /var ]; then
		! grep -q '^BindPaths=' "$unit" || fail "localstatedir /var, yet $(grep ^BindPaths= "$unit")"
		[ ! -e "$root/var/lib/wgwatch" ] || fail "/var/lib/wgwatch installed: StateDirectory= makes it"
	else
		grep -qx "BindPaths=%S/wgwatch:$var/lib/wgwatch" "$unit" ||
			fail "no BindPaths= of the StateDirectory over $var/lib/wgwatch: $(grep ^BindPaths= "$unit")"
		[ -d "$root$var/lib/wgwatch" ] || fail "$var/lib/wgwatch not created"
	fi
	m8="$root$man/man8/wgwatchd.8" m5="$root$man/man5/wgwatch.conf.5"
	[ -f "$m8" ] && [ -f "$m5" ] || fail "man pages missing under $root$man"
	grep -qxF ".I $conf" "$m8" || fail "wgwatchd(8) FILES does not name $conf"
	grep -qxF ".I $db" "$m8" || fail "wgwatchd(8) FILES does not name $db"
	grep -qxF ".I $conf" "$m5" || fail "wgwatch.conf(5) does not name $conf"
	grep -qxF ".BR $db ," "$m5" || fail "wgwatch.conf(5) does not give $db as the database default"
	if [ "$etc" != /etc ]; then
		! bare /etc/wgwatch "$m5" "$m8" || fail "a man page names /etc/wgwatch, not $etc/wgwatch"
	fi
	if [ "$var" != /var ]; then
		! bare /var/lib/wgwatch "$m5" "$m8" || fail "a man page names /var/lib/wgwatch, not $var/lib/wgwatch"
	fi
	# Where the StateDirectory really is, and that another localstatedir is a mount of it.
	grep -qxF '.I /var/lib/private/wgwatch' "$m8" && grep -qxF '.RB ( BindPaths= ),' "$m8" ||
		fail "wgwatchd(8) does not say the StateDirectory is /var/lib/private/wgwatch, bound over $var/lib/wgwatch"
	# The unit as installed, ExecStart pointed at ROOT's binary, its man pages found in ROOT.
	sed "s|=$sbin/wgwatchd |=$root$sbin/wgwatchd |" "$unit" >"$T/wgwatchd.service"
	rc=0
	(cd "$T" && MANPATH="$root$man" SYSTEMD_LOG_LEVEL=notice systemd-analyze verify ./wgwatchd.service) \
		>"$T/verify.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] && [ ! -s "$T/verify.log" ] ||
		fail "systemd-analyze verify $unitdir/wgwatchd.service: exit $rc: $(cat "$T/verify.log")"
}

# run_unit SBINDIR SYSCONFDIR LOCALSTATEDIR UNITDIR: start $T/a's wgwatchd.service under systemd
# on the sim's routers, check it runs sandboxed and writes its default database into the state
# directory through BindPaths=, then stop it through systemctl.
run_unit() {
	etc=$2 var=$3
	start_sim "$top_srcdir/tests/system/basic.scenario"
	HTTP_PORT=$(free_port)
	mkdir -p "$T/a$etc/wgwatch"
	cp "$T/routers.conf" "$T/a$etc/wgwatch/routers.conf"
	printf '[daemon]\nlisten = 127.0.0.1:%s\ninterval = 1s\ntimeout = 800ms\ninclude = routers.conf\n' \
		"$HTTP_PORT" >"$T/a$etc/wgwatch/wgwatch.conf"
	mkdir -p "$T/units/wgwatchd.service.d" "$T/varlib"
	for t in sysinit basic network-online shutdown; do
		printf '[Unit]\nDefaultDependencies=no\n' >"$T/units/$t.target"
	done
	printf '[Unit]\nDefaultDependencies=no\nWants=wgwatchd.service\n' >"$T/units/wgtest.target"
	printf '[Service]\nStandardOutput=append:%s\nStandardError=append:%s\n' "$T/unit.log" "$T/unit.log" \
		>"$T/units/wgwatchd.service.d/log.conf"
	cat >"$T/ns.sh" <<-NS
	set -e
	mount --make-rprivate /
	mount -t tmpfs tmpfs /run
	mount --bind "$T/a/usr/local" /usr/local
	mount --bind "$T/varlib" /var/lib
	export SYSTEMD_UNIT_PATH="$T/units:$4"
	exec /lib/systemd/systemd --system --unit=wgtest.target --log-target=console </dev/null >"$T/systemd.log" 2>&1
	NS
	flock -w 60 /tmp/wgwatch-097-systemd.lock unshare --mount --pid --uts --ipc --fork --mount-proc sh "$T/ns.sh" \
		>"$T/unshare.log" 2>&1 &
	FLOCK_PID=$!
	sd_pid() { u=$(pgrep -P "$FLOCK_PID") && SD_PID=$(pgrep -P "$u") && [ -n "$SD_PID" ]; }
	wait_until 70 sd_pid || fail "systemd did not start: $(cat "$T/unshare.log")"
	wait_until 30 curl -fsS "http://127.0.0.1:$HTTP_PORT/healthz" ||
		fail "the unit's wgwatchd never answered: $(tail -5 "$T/unit.log") $(tail -5 "$T/systemd.log")"
	ctl() { nsenter -t "$SD_PID" -m -p systemctl "$@"; }
	ctl show wgwatchd.service -p FragmentPath -p ActiveState -p SubState -p NRestarts >"$T/show.txt" 2>&1
	for want in "FragmentPath=$4/wgwatchd.service" ActiveState=active SubState=running NRestarts=0; do
		grep -qx "$want" "$T/show.txt" || fail "systemctl show: no $want: $(cat "$T/show.txt")"
	done
	daemon=$(pgrep -P "$SD_PID" -x wgwatchd) || fail "no wgwatchd under systemd"
	uid=$(stat -c %u "/proc/$daemon")
	[ "$uid" != 0 ] || fail "the unit's wgwatchd runs as root"
	polled() { http_get /metrics | grep -q '^wgwatch_polls_total{router="tile-a"[^}]*} [2-9]'; }
	wait_until 20 polled || fail "the unit's wgwatchd does not poll"
	ctl stop wgwatchd.service || fail "systemctl stop"
	ctl show wgwatchd.service -p Result -p ExecMainStatus >"$T/show.txt" 2>&1
	grep -qx Result=success "$T/show.txt" && grep -qx ExecMainStatus=0 "$T/show.txt" ||
		fail "stop: $(cat "$T/show.txt")"
	stop_systemd
	db="$T/varlib/private/wgwatch/wgwatch.db"
	[ -f "$db" ] || fail "no database in the state directory: $(find "$T/varlib" | head)"
	[ "$(stat -c %u "$db")" = "$uid" ] || fail "the database is not the dynamic user's ($uid)"
	[ -z "$(ls -A "$T/a$var/lib/wgwatch")" ] || fail "$var/lib/wgwatch on the host is not empty: it was not a mount"
	n=$("$WSQL" "$db" "SELECT count(*) FROM store_polls") || fail "cannot read $db"
	[ "$n" -gt 0 ] || fail "no polls in $db"
	grep -qx "$etc/wgwatch/wgwatch.conf: ok, 5 routers" "$T/unit.log" || fail "ExecStartPre's --check: $(head -3 "$T/unit.log")"
	grep -q "store: $var/lib/wgwatch/wgwatch.db: applied schema migration" "$T/unit.log" ||
		fail "the daemon did not open $var/lib/wgwatch/wgwatch.db: $(head -3 "$T/unit.log")"
	ok "under systemd: ExecStartPre --check, uid $uid, $var/lib/wgwatch/wgwatch.db written through BindPaths= into the StateDirectory ($n polls), stopped cleanly"
}

command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze missing (apt-get install systemd)"; exit 77; }

# --- this build's prefix ----------------------------------------------------------------------
set -- $(dirs "$top_builddir")
[ $# = 5 ] || fail "cannot read the directories from $top_builddir/Makefile: $*"
make -s -C "$top_builddir" install DESTDIR="$T/a" >"$T/install-a.log" 2>&1 || fail "make install: $(tail -5 "$T/install-a.log")"
check_tree "$T/a" "$@"
grep -qaF "$3/lib/wgwatch/wgwatch.db" "$T/a$1/wgwatchd" || fail "the installed wgwatchd's default database is not $3/lib/wgwatch/wgwatch.db"
ok "prefix of this build: unit, man pages and the daemon's default database agree ($2/wgwatch, $3/lib/wgwatch)"

# --- this build's unit under a real systemd -------------------------------------------------------
# systemd itself, as PID 1 of its own PID and mount namespaces (unshare), runs the unit installed in
# $T/a, unchanged: there /usr/local is $T/a/usr/local, /var/lib an empty $T/varlib, /run a tmpfs,
# and systemd reads units only from $T/units (stand-ins for the targets the unit is ordered after,
# and a drop-in that sends its output to a file: no journald) and the installed unit directory. So
# the sandbox, DynamicUser=, StateDirectory= and the BindPaths= of a /usr/local build are run, not
# just read. It shares the host's network (the daemon polls the sim on loopback) and cgroup tree:
# so only where systemd is not the host's init (no /run/systemd/system), one run at a time (flock).
SD_PID=""
stop_systemd() {   # SIGKILL ends the namespace's PID 1, all in it and its mounts; then its cgroups
	[ -n "$SD_PID" ] || return 0
	kill -KILL "$SD_PID" 2>/dev/null || true
	wait_until 10 sh -c "! kill -0 $SD_PID" || true
	for h in /sys/fs/cgroup/*; do
		for d in "$h/system.slice" "$h/init.scope"; do
			[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
		done
	done
	SD_PID=""
}
trap 'rc=$?; set +e; stop_systemd; (exit $rc); cleanup' EXIT
why=""
case "$1 $2 $3 $4" in /usr/local/*" /usr/local/"*" /usr/local/"*" /usr/local/"*) ;; *) why="not all under /usr/local" ;; esac
[ "$(id -u)" = 0 ] || why="not root"
[ ! -d /run/systemd/system ] || why="systemd is this host's init"
! grep -q '^WG_CFLAGS = .*-fsanitize' "$top_builddir/Makefile" 2>/dev/null || why="a sanitizer build (as 088)"
[ -x /lib/systemd/systemd ] && command -v unshare >/dev/null && command -v nsenter >/dev/null &&
	command -v flock >/dev/null || why="no /lib/systemd/systemd, unshare, nsenter or flock"
if [ -n "$why" ]; then
	echo "(the unit is not run under systemd here: $why)"
else
	run_unit "$@"
fi

# --- Debian's directories -----------------------------------------------------------------------
if [ -f "$top_srcdir/config.status" ]; then
	echo "(the source tree is configured in place: no second build beside it; the .deb test covers /usr)"
	exit 0
fi
mkdir "$T/b"
(cd "$T/b" && "$top_srcdir/configure" -q --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
	--with-systemdsystemunitdir=/lib/systemd/system) >"$T/configure-b.log" 2>&1 ||
	fail "configure for /usr: $(tail -5 "$T/configure-b.log")"
set -- $(dirs "$T/b")
[ "$*" = "/usr/sbin /etc /var /lib/systemd/system /usr/share/man" ] || fail "Debian directories: $*"
make -s -C "$T/b" install-data DESTDIR="$T/broot" >"$T/install-b.log" 2>&1 ||
	fail "make install-data: $(tail -5 "$T/install-b.log")"
# verify needs the binary ExecStart names: a stand-in, since only the data was installed.
mkdir -p "$T/broot/usr/sbin" && cp "$DAEMON" "$T/broot/usr/sbin/wgwatchd"
check_tree "$T/broot" "$@"
make -s -C "$T/b" daemon/confkeys.o >"$T/make-b.log" 2>&1 || fail "make daemon/confkeys.o: $(tail -5 "$T/make-b.log")"
grep -qaF "/var/lib/wgwatch/wgwatch.db" "$T/b/daemon/confkeys.o" || fail "--localstatedir=/var: default database not /var/lib/wgwatch/wgwatch.db"
ok "--prefix=/usr --sysconfdir=/etc --localstatedir=/var: /etc/wgwatch, /var/lib/wgwatch (StateDirectory=, no BindPaths=), unit in /lib/systemd/system"
