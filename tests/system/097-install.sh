#!/bin/sh
# 097-install: `make install DESTDIR=...` gives a unit whose paths agree with the installed man
# pages and with the daemon's compiled-in default database (LOCALSTATEDIR/lib/wgwatch/wgwatch.db),
# for this build's prefix (CI's: the default, /usr/local) and for a Debian one (--prefix=/usr
# --sysconfdir=/etc --localstatedir=/var, configured aside in $T: its data installed and the one
# object holding the default compiled). `systemd-analyze verify` accepts each installed unit.
# Nothing is installed outside $T and no systemd manager is needed.
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

command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze missing (apt-get install systemd)"; exit 77; }

# --- this build's prefix ----------------------------------------------------------------------
set -- $(dirs "$top_builddir")
[ $# = 5 ] || fail "cannot read the directories from $top_builddir/Makefile: $*"
make -s -C "$top_builddir" install DESTDIR="$T/a" >"$T/install-a.log" 2>&1 || fail "make install: $(tail -5 "$T/install-a.log")"
check_tree "$T/a" "$@"
grep -qaF "$3/lib/wgwatch/wgwatch.db" "$T/a$1/wgwatchd" || fail "the installed wgwatchd's default database is not $3/lib/wgwatch/wgwatch.db"
ok "prefix of this build: unit, man pages and the daemon's default database agree ($2/wgwatch, $3/lib/wgwatch)"

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
