#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 089-secrets: no secret leaves the daemon. wgwatchd runs with distinctive secrets -- REST
# password (inline and password_file), SNMP community (inline and snmp_community_file), SNMPv3
# auth and priv passphrases, the [web] password -- against routers that fail in every way
# (wrong password, 401, refused, timeout, wrong community, wrong v3 passphrase), at debug
# verbosity, and gets a SIGHUP with a broken config full of secrets. Then every secret, raw,
# URL-encoded and as base64 of user:password, is looked for in: the daemon's log, /metrics,
# every /api/v1/* body, every dashboard page, `--check` and `--once` output, the SQLite files.
# Secret files readable by others are refused without showing their content.
#
# The core dump (gcore of the running daemon): what is claimed and what is not. A running
# daemon must hold the secrets it uses (config values, libcurl's copy, net-snmp's keys), so a
# core does contain them; that is not claimed otherwise. What is claimed: no text in the core
# that holds a secret looks like a message (log line, error, cause, metric or page text) --
# i.e. no secret was ever formatted into a string, even one since freed. Skipped in a
# sanitizer build (an ASan core is terabytes of shadow memory) or without gdb.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
SNMPD=$(command -v snmpd || echo /usr/sbin/snmpd)
[ -x "$SNMPD" ] || { echo "SKIP: snmpd not installed (apt-get install snmpd)"; exit 77; }

# Distinctive secrets, with characters that URL-encoding and base64 change.
S=$$
REST_PW="RestPw+$S/ok@x"        # the sim's password: inline for one router, password_file another
WRONG_PW="WrongPw+$S/no@x"      # inline, refused by the sim (401)
FILE_PW="FilePw+$S/no@x"        # password_file, refused by the sim (401)
COMM="Comm+$S/ok"               # snmpd's community
BAD_COMM="BadComm+$S/no"        # wrong community, inline (timeout)
FILE_COMM="FileComm+$S/no"      # wrong community from snmp_community_file (timeout)
V3AUTH="V3Auth+$S/ok"           # v3 user alice
V3PRIV="V3Priv+$S/ok"
V3BAD="V3Bad+$S/no"             # wrong v3 auth passphrase for bob (auth error)
WEB_PW="WebPw+$S/ok@x"          # [web] password_file
METRICS_AUTH="admin:$WEB_PW"
WEB_BAD="WebBad+$S/no@x"        # a wrong web password a client tries
TYPO="Typo+$S/reload"           # reload: a misspelt key's value
PASTE="Paste+$S/reload"         # reload: a pasted line with no key
MODE_PW="ModePw+$S/reload"      # reload: a password_file of mode 0644
SECRETS="$REST_PW $WRONG_PW $FILE_PW $COMM $BAD_COMM $FILE_COMM $V3AUTH $V3PRIV $V3BAD $WEB_PW $WEB_BAD"
SECRETS="$SECRETS $TYPO $PASTE $MODE_PW"
secret_file() { printf '%s\n' "$2" >"$T/$1"; chmod 600 "$T/$1"; }

# --- snmpd and the sim -----------------------------------------------------------------------
start_snmpd <<EOF
rocommunity $COMM 127.0.0.0/8
createUser alice SHA "$V3AUTH" AES "$V3PRIV"
createUser bob SHA "Bob+$S/ok" AES "$V3PRIV"
rouser alice priv
rouser bob priv
EOF

{
	printf '[global]\nuser = wgwatch\npassword = %s\nseed = 5\n' "$REST_PW"
	for g in ok okfile wrongpw wrongfile unauth refuse hang; do
		printf '\n[group %s]\nboard = CHR\ncores = 2\nwg = wg0:2\ntx_mbps = 10\nrx_mbps = 5\n' $g
		case $g in unauth) echo "fault = 401" ;; refuse|hang) echo "fault = $g" ;; esac
	done
} >"$T/secrets.scenario"
start_sim "$T/secrets.scenario"
url() { routers_conf_value "$1" rest; }
secret_file rest.pw "$REST_PW"
secret_file wrong.pw "$FILE_PW"
secret_file comm.txt "$FILE_COMM"
secret_file web.pw "$WEB_PW"
rest_router() {   # rest_router NAME PASSWORD-LINE
	printf '[router %s]\nrest = %s\nuser = wgwatch\n%s\n\n' "$1" "$(url "$1")" "$2"
}
snmp_router() {   # snmp_router NAME LINES...
	n=$1; shift
	printf '[router %s]\nsnmp = %s:%s\n' "$n" "$SNMP_ADDR" "$SNMP_PORT"
	for l in "$@"; do echo "$l"; done
	echo
}
{
	rest_router ok "password = $REST_PW"
	rest_router okfile "password_file = rest.pw"
	rest_router wrongpw "password = $WRONG_PW"
	rest_router wrongfile "password_file = wrong.pw"
	rest_router unauth "password = $REST_PW"
	rest_router refuse "password = $REST_PW"
	rest_router hang "password = $REST_PW"
	snmp_router v2 "snmp_community = $COMM"
	snmp_router badcomm "snmp_community = $BAD_COMM"
	snmp_router filecomm "snmp_community_file = comm.txt"
	snmp_router v3 "snmp_version = 3" "snmp_user = alice" "snmp_auth_password = $V3AUTH" \
		"snmp_priv_password = $V3PRIV"
	# Another user than v3's: net-snmp keeps one set of keys per (engine ID, user) per process.
	snmp_router v3bad "snmp_version = 3" "snmp_user = bob" "snmp_auth_password = $V3BAD" \
		"snmp_priv_password = $V3PRIV"
} >"$T/routers.new"
mv "$T/routers.new" "$T/routers.conf"
write_conf 1s 800ms
printf '[web]\nuser = admin\npassword_file = web.pw\n' >>"$T/wgwatch.conf"
cp "$T/wgwatch.conf" "$T/good.conf"
cp "$T/routers.conf" "$T/good-routers.conf"

# --- the running daemon, at debug verbosity --------------------------------------------------
start_daemon -v
B="http://127.0.0.1:$HTTP_PORT"
get() { curl -sS --max-time 10 -u "admin:$WEB_PW" "$B$1"; }
scrape() { get /metrics >"$T/m.txt"; }
val() { $EXPO "$T/m.txt" "$@"; }
ge() { scrape && [ "$(val wgwatch_polls_total router="$1" | cut -d. -f1)" -ge "$2" ]; }
for r in ok okfile wrongpw wrongfile unauth refuse hang v2 badcomm filecomm v3 v3bad; do
	wait_until 40 ge $r 2 || fail "$r not polled twice"
done
kind() {   # kind ROUTER KIND: the router is down with errors of that kind
	scrape
	[ "$(val wgwatch_router_up router="$1")" = 0 ] || fail "$1 is up"
	[ -n "$(val wgwatch_poll_errors_total router="$1" kind="$2")" ] ||
		fail "$1: no $2 errors: $(grep "router=\"$1\"" "$T/m.txt" | grep errors)"
}
for r in ok okfile v2 v3; do
	wait_until 20 sh -c "curl -fsS -u 'admin:$WEB_PW' $B/metrics | grep -q '^wgwatch_router_up{router=\"$r\"} 1'" ||
		fail "$r not up"
done
kind wrongpw auth; kind wrongfile auth; kind unauth auth; kind refuse connect; kind hang timeout
kind badcomm timeout; kind filecomm timeout; kind v3bad auth
ok "up: ok, okfile, v2, v3; down as meant: 401 x3, refused, timeout, wrong community x2, wrong v3 passphrase"

# Web auth (another part of the project) may or may not be in this build: either way the
# password goes with every request, and a wrong one is tried.
nocred=$(curl -sS -o /dev/null -w '%{http_code}' "$B/metrics")
wrong=$(curl -sS -o "$T/wrong-web.body" -w '%{http_code}' -u "admin:$WEB_BAD" "$B/metrics")
cat "$T/wrong-web.body" >"$T/replies.txt"
if [ "$nocred" = 401 ]; then
	[ "$wrong" = 401 ] || fail "wrong web password: $wrong"
	ok "web auth active: 401 without or with a wrong password"
else
	echo "(web auth not in this build: /metrics answers $nocred without a password)"
fi

# Every page and API body, with headers.
pages="/ /upgrades /api/v1/routers /api/v1/regressions /api/v1/cohorts /metrics /healthz /nope"
for r in ok okfile wrongpw wrongfile unauth refuse hang v2 badcomm filecomm v3 v3bad; do
	pages="$pages /router/$r"
done
for p in $pages; do
	curl -sS --max-time 10 -D - -u "admin:$WEB_PW" "$B$p" >>"$T/replies.txt" || fail "GET $p"
done
grep -q '"last_error"' "$T/replies.txt" || fail "no last_error in the API"

# A reload with a broken config full of secrets: refused, the running config stays.
printf '%s\n' "$MODE_PW" >"$T/mode.pw"
chmod 644 "$T/mode.pw"
{
	cat "$T/good-routers.conf"
	printf '[router typo]\nrest = %s\nuser = wgwatch\npasword = %s\n%s\n\n' "$(url ok)" "$TYPO" "$PASTE"
	printf '[router mode]\nrest = %s\nuser = wgwatch\npassword_file = mode.pw\n' "$(url ok)"
} >"$T/bad-routers.conf"
cp "$T/bad-routers.conf" "$T/routers.conf"
kill -HUP "$DAEMON_PID"
wait_until 20 grep -q 'reload refused' "$T/daemon.log" || fail "the broken reload was not refused"
grep -q 'mode.pw.*0644' "$T/daemon.log" || fail "the mode 0644 password_file not named: $(grep reload "$T/daemon.log")"
n=$(val wgwatch_polls_total router=ok | cut -d. -f1)
wait_until 20 ge ok $((n + 2)) || fail "ok not polled after the refused reload"
ok "broken reload refused (misspelt key, pasted secret, mode 0644 password_file); polling goes on"

# The core dump, taken now: after failures, the refused reload and the page requests.
core=""
if grep -q '^WG_CFLAGS = .*-fsanitize' "$top_builddir/Makefile" 2>/dev/null; then
	echo "(sanitizer build: no core dump check)"
elif ! command -v gcore >/dev/null; then
	echo "(gdb not installed: no core dump check)"
else
	gcore -o "$T/core" "$DAEMON_PID" >"$T/gcore.out" 2>&1 || fail "gcore: $(tail -3 "$T/gcore.out")"
	core="$T/core.$DAEMON_PID"
	[ -s "$core" ] || fail "gcore wrote no core"
	kill -0 "$DAEMON_PID" || fail "the daemon died under gcore"
fi
get /metrics >>"$T/replies.txt"
stop_daemon -TERM

# --- the one-shot modes -----------------------------------------------------------------------
cp "$T/good-routers.conf" "$T/routers.conf"
rc=0; "$DAEMON" -c "$T/wgwatch.conf" --check -vv >"$T/check-good.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "--check of the good config: $rc: $(cat "$T/check-good.out")"
rc=0; "$DAEMON" -c "$T/wgwatch.conf" --once -vv >"$T/once.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "--once: exit 0 although routers failed"
grep -q wrongpw "$T/once.out" || fail "--once printed no line for wrongpw: $(head -5 "$T/once.out")"
cp "$T/bad-routers.conf" "$T/routers.conf"
rc=0; "$DAEMON" -c "$T/wgwatch.conf" --check -vv >"$T/check-bad.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--check of the broken config: exit $rc"
grep -q 'pasword' "$T/check-bad.out" || fail "--check does not name the misspelt key: $(cat "$T/check-bad.out")"
# Secret files of mode 0644: each refused by name, content never shown.
cp "$T/good-routers.conf" "$T/routers.conf"
chmod 644 "$T/comm.txt" "$T/web.pw" "$T/rest.pw"
rc=0; "$DAEMON" -c "$T/wgwatch.conf" --check >"$T/check-mode.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--check with secret files of mode 0644: exit $rc"
for f in comm.txt web.pw rest.pw; do
	grep -q "$T/$f has mode 0644" "$T/check-mode.out" || fail "$f of mode 0644 not refused: $(cat "$T/check-mode.out")"
done
ok "--check and --once run; password_file, snmp_community_file and [web] password_file of mode 0644 refused"

# --- the search -------------------------------------------------------------------------------
# forms SECRET: the secret raw, URL-encoded, and base64 of user:secret for each user it goes with.
forms() {
	$PY - "$1" <<'EOF'
import base64, sys, urllib.parse
s = sys.argv[1]
out = {s, urllib.parse.quote(s, safe=""), urllib.parse.quote_plus(s)}
for user in ("wgwatch", "admin", "alice"):
    out.add(base64.b64encode(("%s:%s" % (user, s)).encode()).decode())
print("\n".join(sorted(out)))
EOF
}
for s in $SECRETS; do forms "$s"; done >"$T/patterns"
[ "$(wc -l <"$T/patterns")" -ge $((4 * $(echo $SECRETS | wc -w))) ] || fail "too few patterns"
# The base64 forms must really be what a client sends: curl's header for the web password.
grep -qF "$(printf 'admin:%s' "$WEB_PW" | base64)" "$T/patterns" || fail "base64 form of admin:password missing"

for f in "$T"/wgwatch.db*; do strings -a "$f"; done >"$T/db.strings"
[ -s "$T/db.strings" ] || fail "no strings in the database"
grep -q 'wrongfile' "$T/db.strings" || fail "the database strings do not even hold the router names"
places="daemon.log replies.txt check-good.out check-bad.out check-mode.out once.out db.strings"
for p in $places; do
	[ -s "$T/$p" ] || fail "$p is empty: nothing to search"
	if grep -aF -f "$T/patterns" "$T/$p" >"$T/hits"; then
		head -3 "$T/hits" >&2
		fail "a secret in $p (lines above)"
	fi
done
# Also the raw bytes of the database files, not only what strings(1) shows.
for f in "$T"/wgwatch.db*; do
	! grep -aqF -f "$T/patterns" "$f" || fail "a secret in $(basename "$f")"
done
ok "no secret (raw, URL-encoded, base64 user:password) in the log ($(wc -l <"$T/daemon.log") lines at -vv)," \
	"$(grep -c '^HTTP/' "$T/replies.txt") replies, --check, --once, the database"

[ -n "$core" ] || exit 0
strings -a -n 6 "$core" >"$T/core.strings"
kb=$(du -k "$core" | cut -f1)
rm -f "$core"   # hundreds of MB, mostly empty heap arenas
grep -aF -f "$T/patterns" "$T/core.strings" | sort -u >"$T/core.hits" || true
# A string holding a secret and reading like a message: a leak into text, even a freed one.
msg='error|warn|fail|refus|denied|invalid|unknown|cannot|timeout|timed out|unauthori|router |reload|mode 0|<[0-7]>|: '
# libcurl's request head necessarily holds "Authorization: Basic base64(user:password)"; a
# freed copy may have lost its first bytes to malloc's bookkeeping, cut ("uthorization: Basic
# ...") or overwritten ("mhorization: Basic ..."): at most 8 bytes, then the rest of the name.
head_re='^.{0,8}(A?u?t?h?o?r?i?z?a?t?i?o?n?): Basic [A-Za-z0-9+/=]+$'
# Or a freed message was overwritten by the head from its middle on, leaving stale text glued
# to it ("r 800 milliseAuthorization: Basic ..."); text that formats the header has a separator.
glued_re='[^ :='"'"'"]Authorization: Basic [A-Za-z0-9+/=]+$'
# Or the secret's own buffer glued to the next one: net-snmp keeps a community by its length,
# without a NUL (snmp_sess_init's memdup), so one of 16 bytes ("BadComm+29805/no") fills a
# 16-byte slot and strings(1) reads on into the neighbour's text ("...UnauthorizedXYZ"). A
# message that holds a secret has text before it or a separator after it; this has neither.
own_buffer() {
	$PY -c '
import sys
secrets = sys.argv[1].split()
for line in sys.stdin.buffer.read().decode("latin-1").splitlines():
    own = any(line.startswith(x) and len(line) > len(x) and line[len(x)].isalnum() and
              x not in line[len(x):] for x in secrets)
    if not own:
        print(line)
' "$SECRETS"
}
if grep -avE "$head_re" "$T/core.hits" | grep -avE "$glued_re" | own_buffer | grep -aiE "$msg" >"$T/core.msgs"; then
	head -5 "$T/core.msgs" >&2
	fail "the core holds a secret inside message text (above)"
fi
ok "core ($kb KiB): $(wc -l <"$T/core.hits") strings hold a secret, none reads like a message"
sed 's/^/  in memory: /' "$T/core.hits" | cut -c1-90 | head -20
