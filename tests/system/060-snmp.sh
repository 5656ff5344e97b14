#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 060-snmp: wgwatchd polls a real Net-SNMP agent (Debian's snmpd, on a loopback port with a
# generated config) over SNMPv1, v2c and v3 authPriv: this machine's cores as in /proc/stat
# (hrProcessorLoad shows up ~60 s after snmpd starts, so this test takes that long), the `lo`
# counters between two readings of /proc/net/dev, MikroTik scalars served by `override`; a wrong
# v3 passphrase is an auth error, a wrong community a timeout; a router with both REST (the sim)
# and SNMP takes its cores from SNMP and its identity and peers from REST. A v1 router polled every 5
# minutes gets a warning that its 32-bit counters cannot measure rates above 114.5 Mbit/s.
. "$top_srcdir/tests/system/lib.sh"
EXPO="python3 $top_srcdir/tests/system/expo.py"
command -v snmpd >/dev/null || command -v /usr/sbin/snmpd >/dev/null ||
	{ echo "SKIP: snmpd not installed (apt-get install snmpd)"; exit 77; }
SNMPD=$(command -v snmpd || echo /usr/sbin/snmpd)

COMMUNITY=wgw-c0mm-$$
V3PASS=alice-auth-$$
V3PRIV=alice-priv-$$
start_snmpd <<EOF
rocommunity $COMMUNITY 127.0.0.0/8
override 1.3.6.1.4.1.14988.1.1.4.4.0 octet_str "7.19.2"
override 1.3.6.1.4.1.14988.1.1.7.4.0 octet_str "7.19.1"
override 1.3.6.1.4.1.14988.1.1.7.7.0 octet_str "7.19.4"
override 1.3.6.1.4.1.14988.1.1.7.9.0 octet_str "CCR2004-16G-2S+"
createUser alice SHA "$V3PASS" AES "$V3PRIV"
createUser bob SHA-256 "bob-auth-$$" AES "bob-priv-$$"
rouser alice priv
rouser bob priv
EOF

# One REST router of the sim, polled through REST and SNMP at once.
start_sim "$top_srcdir/tests/system/basic.scenario"
REST_URL=$(routers_conf_value arm64-a rest)
SIM_USER=$(routers_conf_value arm64-a user)
SIM_PASSWORD=$(routers_conf_value arm64-a password)
snmp_router() {   # snmp_router NAME [extra lines]
	name=$1; shift
	printf '[router %s]\nsnmp = %s:%s\n' "$name" "$SNMP_ADDR" "$SNMP_PORT"
	for line in "$@"; do echo "$line"; done
	echo
}
{
	snmp_router v2 "snmp_community = $COMMUNITY" "interfaces = lo"
	snmp_router v1 "snmp_version = 1" "snmp_community = $COMMUNITY" "interfaces = lo"
	snmp_router v1-slow "snmp_version = 1" "snmp_community = $COMMUNITY" "interfaces = lo" "interval = 5m"
	snmp_router v3 "snmp_version = 3" "snmp_user = alice" "snmp_auth_password = $V3PASS" \
		"snmp_priv_password = $V3PRIV" "interfaces = lo"
	snmp_router v3-badpass "snmp_version = 3" "snmp_user = bob" "snmp_auth_protocol = SHA-256" \
		"snmp_auth_password = not-bobs-passphrase" "snmp_priv_password = bob-priv-$$"
	snmp_router badcomm "snmp_community = not-$COMMUNITY"
	snmp_router both "snmp_community = $COMMUNITY" "rest = $REST_URL" "user = $SIM_USER" \
		"password = $SIM_PASSWORD"
} >"$T/routers.conf"
write_conf 1s 1500ms
start_daemon

scrape() { http_get /metrics >"$T/metrics.txt"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
polls() { scrape && val wgwatch_polls_total router="$1"; }
polled_at_least() { [ "$(polls "$1" | cut -d. -f1)" -ge "$2" ]; }
is_up() { scrape && [ "$(val wgwatch_router_up router="$1")" = 1 ]; }
for r in v2 v1 v3 both; do
	wait_until 30 is_up "$r" || fail "$r never up: $(grep "router $r" "$T/daemon.log" | tail -1)"
done
ok "SNMPv1, v2c and v3 authPriv routers are up"

# SNMPv1's 32-bit octet counters wrap every 34 s at 1 Gbit/s: a v1 router polled every 5 minutes
# cannot tell a rate above 114.5 Mbit/s from a lower one, and the log says so once; every second
# is fine.
grep -q '^<4>warning: snmp: router v1-slow: SNMPv1 counts octets in 32 bits, which wrap every 34 s at 1 Gbit/s: polled every 300 s, a rate above 114.5 Mbit/s reads as a lower one; poll it over snmp_version = 2c (64-bit counters) or every 30 s$' "$T/daemon.log" ||
	fail "no wrap warning for v1-slow: $(grep 'v1-slow' "$T/daemon.log" | head -3)"
[ "$(grep -c 'SNMPv1 counts octets' "$T/daemon.log")" = 1 ] || fail "the wrap warning for other routers too, or twice"
ok "a v1 router polled every 5 minutes: the log says its counters wrap above 114.5 Mbit/s; v1 every second: nothing"

# lo counters: snmpd caches IF-MIB for a few seconds, so read /proc, let 7 polls pass (more
# than the cache lifetime), scrape, and read /proc again.
lo_rx() { awk '$1 == "lo:" { print $2 }' /proc/net/dev; }
for r in v2 v1; do
	s1=$(lo_rx)
	n=$(polls $r | cut -d. -f1)
	wait_until 30 polled_at_least $r $((n + 7)) || fail "$r not polled again"
	scrape
	s2=$(lo_rx)
	m=$(val wgwatch_interface_receive_bytes_total router=$r interface=lo)
	# v1 has 32-bit counters only, made monotonic from the first reading: equal modulo 2^32.
	python3 -c "import sys; s1,m,s2=$s1,$m,$s2; sys.exit(0 if (s1 <= m <= s2 if '$r' == 'v2' else (m - s1) % 2**32 <= s2 - s1) else 1)" ||
		fail "$r lo rx $m not between /proc/net/dev readings $s1 and $s2"
	ok "$r: lo rx bytes $m agree with /proc/net/dev ($s1 .. $s2$([ $r = v1 ] && echo ", modulo 2^32"))"
done

[ "$(val wgwatch_router_info router=v2 board=CCR2004-16G-2S+ version=7.19.2 firmware=7.19.1)" = 1 ] ||
	fail "v2 info: $(grep 'wgwatch_router_info{router="v2"' "$T/metrics.txt")"
[ "$(val wgwatch_router_firmware_upgrade_available router=v2)" = 1 ] || fail "no firmware upgrade seen"
[ "$(val wgwatch_router_info router=both architecture=arm64)" = 1 ] || fail "both: no REST identity"
ok "version, firmware and board from MIKROTIK-MIB scalars; REST identity for the dual router"

[ "$(val wgwatch_router_up router=v3-badpass)" = 0 ] || fail "v3-badpass not down"
[ -n "$(val wgwatch_poll_errors_total router=v3-badpass kind=auth)" ] || fail "v3 wrong passphrase not an auth error"
[ "$(val wgwatch_router_up router=badcomm)" = 0 ] || fail "badcomm not down"
[ -n "$(val wgwatch_poll_errors_total router=badcomm kind=timeout)" ] || fail "wrong community not a timeout"
[ -z "$(val wgwatch_poll_errors_total router=v3)" ] || fail "v3 has poll errors"
ok "wrong v3 passphrase -> auth, wrong community -> timeout"

# hrProcessorLoad: one row per CPU of /proc/stat, about a minute after snmpd started.
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)
cores_of() { scrape && [ "$(val wgwatch_cpu_core_load_ratio router="$1" | wc -l)" -eq "$2" ]; }
wait_until 100 cores_of v2 "$ncpu" || fail "v2 has $(val wgwatch_cpu_core_load_ratio router=v2 | wc -l) cores, /proc/stat $ncpu"
wait_until 10 cores_of v3 "$ncpu" || fail "v3 cores differ from /proc/stat's $ncpu"
wait_until 10 cores_of both "$ncpu" || fail "both: cores not from SNMP"
[ "$(val wgwatch_cpu_core_load_ratio router=v2 core=0)" != "" ] || fail "no core 0"
npeers=$(val wgwatch_wireguard_peer_receive_bytes_total router=both | wc -l)
[ "$npeers" -gt 0 ] || fail "both: no peers from REST"
ok "$ncpu cores as in /proc/stat (v2c, v3, and the dual router, which keeps its $npeers REST peers)"

promtool check metrics <"$T/metrics.txt" >"$T/promtool.log" 2>&1 || { cat "$T/promtool.log"; fail "promtool"; }
ok "promtool check metrics passes"

http_get /api/v1/routers >"$T/api.json"
for secret in "$COMMUNITY" "$V3PASS" "$V3PRIV" not-bobs-passphrase "bob-priv-$$"; do
	if grep -q -- "$secret" "$T/metrics.txt" "$T/api.json" "$T/daemon.log"; then
		fail "a secret leaked"
	fi
done
ok "no community or passphrase in metrics, API or log"
check_log_clean
