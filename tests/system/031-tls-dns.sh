#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 031-tls-dns: TLS and DNS failures mark a router down with kind tls / dns, never crash the
# daemon, and leave the healthy router up. Routers, all on wgwatch-sim:
#   https-to-http  rest = https:// at a router that speaks plain HTTP: the handshake fails
#   untrusted      the sim serves TLS with a self-signed certificate the daemon does not trust
#   insecure       the same router with tls_verify = no: up, warned about once
#   pinned         the same router with ca_file = that certificate: up, verified
#   nxdomain       a host name that does not resolve
# DNS: no packet may leave 127.0.0.0/8, and a reserved name alone (.invalid, RFC 6761) is not
# enough, since glibc would still send the query to the host's DNS server. So the daemon runs
# under `unshare --mount` with our own /etc/nsswitch.conf ("hosts: files": glibc asks no DNS
# server at all, the name is simply not in /etc/hosts) and /etc/resolv.conf (nameserver
# 127.0.0.1, for a resolver that would read it directly) bind-mounted over the real ones; the
# mounts are private to that namespace. Without root or unshare the DNS case is skipped.
. "$top_srcdir/tests/system/lib.sh"
EXPO="$PY $top_srcdir/tests/system/expo.py"
command -v openssl >/dev/null || { echo "SKIP: no openssl"; exit 77; }

# The TLS router is the scenario's first, so it gets the address we choose (-a below).
ADDR=$(sim_base)
# An EC key: handshakes cheap enough for the sim's one thread, even under ASan.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=wgwatch-sim \
	-addext "subjectAltName=IP:$ADDR" -keyout "$T/key.pem" -out "$T/cert.pem" 2>"$T/openssl.log" ||
	fail "openssl could not make a certificate"
cat >"$T/tls.scenario" <<EOF
[global]
user = wgwatch
password = tls-secret
tls_cert = $T/cert.pem
tls_key = $T/key.pem
[group tls]
tls = yes
[group plain]
EOF
start_sim "$T/tls.scenario" -a "$ADDR"
grep -q "^rest = https://$ADDR:" "$T/routers.conf" || fail "the sim's config does not say https for the TLS router"
plain=$(routers_conf_value plain rest)

sect() {   # sect NAME REST [more lines]: one more router section
	name=$1 rest=$2; shift 2
	printf '\n[router %s]\nrest = %s\nuser = wgwatch\npassword = tls-secret\n' "$name" "$rest"
	for l in "$@"; do echo "$l"; done
}
{
	sect https-to-http "$(echo "$plain" | sed 's|^http:|https:|')"
	sect untrusted "https://$ADDR:$SIM_PORT"
	sect insecure "https://$ADDR:$SIM_PORT" "tls_verify = no"
	sect pinned "https://$ADDR:$SIM_PORT" "ca_file = $T/cert.pem"
} >>"$T/routers.conf"

DNS=no
if [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
	DNS=yes
	sect nxdomain "http://wgwatch-no-such-router.invalid:$SIM_PORT" >>"$T/routers.conf"
	printf 'hosts: files\n' >"$T/nsswitch.conf"
	printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$T/resolv.conf"
else
	echo "note: not root or no unshare: the DNS case is skipped"
fi
write_conf 2s 1500ms

if [ "$DNS" = yes ]; then
	# unshare and sh exec into the daemon: $! is its pid.
	unshare --mount sh -c 'mount --bind "$1" /etc/nsswitch.conf && mount --bind "$2" /etc/resolv.conf &&
		shift 2 && exec "$@"' sh "$T/nsswitch.conf" "$T/resolv.conf" \
		"$DAEMON" -c "$T/wgwatch.conf" -v 2>>"$T/daemon.log" &
	DAEMON_PID=$!
	PIDS="$PIDS $DAEMON_PID"
	wait_until 20 http_get /healthz || fail "wgwatchd /healthz never answered"
else
	start_daemon
fi

scrape() { http_get /metrics >"$T/metrics.txt"; }
val() { $EXPO "$T/metrics.txt" "$@"; }
polls() { scrape && val wgwatch_polls_total router="$1"; }
ge() { [ "$(polls "$1")" -ge "$2" ]; }

names="tls plain https-to-http untrusted insecure pinned"
[ "$DNS" = no ] || names="$names nxdomain"
for r in $names; do
	wait_until 40 ge "$r" 3 || fail "$r not polled 3 times"
done
# Conditions are waited for, not sampled once: on a loaded machine (or under ASan) a poll may
# time out now and then before it gets as far as the failure it is meant to show.
has_kind() { scrape && [ -n "$(val wgwatch_poll_errors_total router="$1" kind="$2")" ]; }
for pair in https-to-http:tls untrusted:tls nxdomain:dns; do
	r=${pair%%:*} kind=${pair#*:}
	[ "$r" != nxdomain ] || [ "$DNS" = yes ] || continue
	wait_until 30 has_kind "$r" "$kind" ||
		fail "$r: no $kind error; errors: $(grep "errors_total{router=\"$r\"" "$T/metrics.txt")"
	[ "$(val wgwatch_router_up router="$r")" = 0 ] || fail "$r is up"
done
# Up at some scrape (on a loaded machine a healthy router may miss one poll's timeout).
is_up() { scrape && [ "$(val wgwatch_router_up router="$1")" = 1 ]; }
for r in plain insecure pinned; do
	wait_until 20 is_up "$r" || fail "$r is down: $(grep "router $r: down" "$T/daemon.log")"
done
ok "https to plain HTTP and an untrusted certificate: tls; tls_verify = no and ca_file: up"
[ "$DNS" = no ] || ok "an unresolvable name: dns (glibc asked no DNS server)"

kill -0 "$DAEMON_PID" || fail "the daemon died"
n=$(grep -c 'router insecure: tls_verify = no' "$T/daemon.log" || true)
[ "$n" -eq 1 ] || fail "tls_verify = no warned $n times, not once"
grep -q 'router untrusted: down: tls: .*certificate' "$T/daemon.log" ||
	fail "untrusted: reason does not name the certificate: $(grep 'router untrusted: down' "$T/daemon.log")"
[ "$DNS" = no ] || grep -q 'router nxdomain: down: dns: .*resolve' "$T/daemon.log" ||
	fail "nxdomain: reason does not say it did not resolve: $(grep 'router nxdomain: down' "$T/daemon.log")"
check_log_clean
if grep -q 'tls-secret' "$T/metrics.txt" "$T/daemon.log"; then fail "password leaked"; fi
ok "the daemon lives on, warned once about tls_verify = no, reasons say what failed"
