#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 086-web-auth: wgwatchd with [web] user, password_file, cert and key. Every route but /healthz
# wants the password (401 with realm "wgwatch"), only HTTPS is spoken, only GET and HEAD, no body,
# URLs are capped (414), traversal gets 404, failed logins are throttled per address (429), half a
# pair or a bad PEM file is refused at start, and a real Prometheus scrapes /metrics over HTTPS
# with basic_auth. The password never appears in a reply or in the log.
. "$top_srcdir/tests/system/lib.sh"

command -v openssl >/dev/null || fail "openssl not installed (apt-get install openssl)"
command -v prometheus >/dev/null || fail "prometheus not installed (apt-get install prometheus)"
start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 1s
mkdir "$T/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$T/tls/key.pem" -out "$T/tls/cert.pem" 2>"$T/openssl.log" ||
	fail "openssl req: $(cat "$T/openssl.log")"
chmod 600 "$T/tls/key.pem"
PW="wg-$(od -An -tx1 -N9 /dev/urandom | tr -d ' \n')"
METRICS_AUTH="admin:$PW"
printf '%s\n' "$PW" >"$T/web.pass"
chmod 600 "$T/web.pass"
cp "$T/wgwatch.conf" "$T/base.conf"
web_conf() {   # web_conf [web] LINES...: base.conf plus a [web] section
	{ cat "$T/base.conf"; echo "[web]"; for l in "$@"; do echo "$l"; done; } >"$T/wgwatch.conf"
}
refused() {   # refused PATTERN: the daemon exits 1 at start with PATTERN in its messages
	rc=0
	"$DAEMON" -c "$T/wgwatch.conf" 2>"$T/refused.log" || rc=$?
	[ "$rc" = 1 ] || fail "want exit 1, got $rc: $(cat "$T/refused.log")"
	grep -q -- "$1" "$T/refused.log" || fail "want '$1' in: $(cat "$T/refused.log")"
}

# Half a pair, a certificate that is no PEM, a key that does not match: refused, naming the file.
web_conf "user = admin"
refused "^$T/wgwatch.conf:[0-9]*: \[web\] user needs password_file: set both or neither"
web_conf "user = admin" "password_file = web.pass" "cert = tls/cert.pem"
refused "^$T/wgwatch.conf:[0-9]*: \[web\] cert needs key: set both or neither"
echo "not a certificate" >"$T/tls/junk.pem"
web_conf "cert = tls/junk.pem" "key = tls/key.pem"
refused "^$T/wgwatch.conf:[0-9]*: cert = tls/junk.pem: $T/tls/junk.pem holds no PEM certificate"
openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out "$T/tls/other.pem" 2>/dev/null
web_conf "cert = tls/cert.pem" "key = tls/other.pem"
refused "cannot start HTTPS on .* with \[web\] cert $T/tls/cert.pem and key $T/tls/other.pem: "
ok "refused at start: half a pair, a non-PEM certificate, a key that does not match"

web_conf "user = admin" "password_file = web.pass" "cert = tls/cert.pem" "key = tls/key.pem"
"$DAEMON" -c "$T/wgwatch.conf" -v 2>>"$T/daemon.log" &
DAEMON_PID=$!
PIDS="$PIDS $DAEMON_PID"
B="https://127.0.0.1:$HTTP_PORT"
CA="--cacert $T/tls/cert.pem"
wait_until 20 curl -fsS $CA "$B/healthz" || fail "wgwatchd /healthz never answered over HTTPS"
# code [curl options] URL: the status; every reply (headers and body) is kept for the leak check.
code() { curl -sS --max-time 10 $CA -D - -o "$T/body" -w '%{http_code}' "$@" >"$T/head" 2>>"$T/curl.log" || true
	cat "$T/head" "$T/body" >>"$T/replies.txt" 2>/dev/null; tail -c 3 "$T/head"; }
want() {   # want STATUS [curl options] URL
	w=$1; shift
	got=$(code "$@")
	[ "$got" = "$w" ] || fail "curl $*: status $got, want $w"
	grep -qi '^X-Content-Type-Options: nosniff' "$T/head" || fail "curl $*: no nosniff header"
	grep -qi '^Content-Security-Policy: default-src' "$T/head" || fail "curl $*: no CSP header"
}
for p in / /metrics /api/v1/routers /static/wgwatch.css /router/arm64-a /nope; do want 401 "$B$p"; done
grep -qi '^WWW-Authenticate: Basic realm="wgwatch"' "$T/head" || fail "401 without WWW-Authenticate realm"
want 401 -u admin:wrong "$B/metrics"
want 401 -u root:"$PW" "$B/metrics"
want 200 "$B/healthz"
ok "401 with realm wgwatch on every route without or with a wrong password; /healthz open"
for p in / /metrics /api/v1/routers /static/wgwatch.css /upgrades; do want 200 -u admin:"$PW" "$B$p"; done
want 200 -u admin:"$PW" -I "$B/"
ok "200 with the password, over HTTPS verified against the certificate"
rc=0; curl -sS --max-time 5 "$B/healthz" >/dev/null 2>&1 || rc=$?
[ "$rc" = 60 ] || fail "curl without the CA: exit $rc, want 60 (certificate not trusted)"
rc=0; curl -sS --max-time 5 "http://127.0.0.1:$HTTP_PORT/healthz" >"$T/plain.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "plain HTTP to the TLS port answered: $(cat "$T/plain.out")"
ok "no plain HTTP on the TLS port (curl exit $rc)"

A="-u admin:$PW"
for m in POST PUT DELETE OPTIONS; do want 405 $A -X $m "$B/metrics"; done
grep -qi '^Allow: GET, HEAD' "$T/head" || fail "405 without Allow: GET, HEAD"
want 405 $A -X PUT "$B/api/v1/routers/arm64-a/probe"
grep -qi '^Allow: GET, HEAD, POST' "$T/head" || fail "PUT to a probe: 405 without Allow: GET, HEAD, POST"
want 413 $A --data-binary hello -X GET "$B/"
long=$(head -c 5000 /dev/zero | tr '\0' a)
want 414 $A "$B/?q=$long"
huge=$(head -c 40000 /dev/zero | tr '\0' a)
# beyond the connection's memory libmicrohttpd answers 414 itself and closes, maybe mid-send
got=$(code $A "$B/?q=$huge")
case "$got" in 414|000) ;; *) fail "a 40 kB URL: status $got, want 414 or a closed connection";; esac
ok "405 with Allow for POST/PUT/DELETE/OPTIONS (POST where a route takes it), 413 for a body, 414 for 5 kB and 40 kB URLs"
for p in /static/../metrics /static/%2e%2e/%2e%2e/etc/passwd /static/..%2fwgwatch.css \
	/static%2fwgwatch.css /static/wgwatch.css%00 /static/wgwatch.css%00.txt /static/./wgwatch.css \
	/static/ /static/wgwatch.css/ /static/..%5cwgwatch.css /router/.. /router/%2e%2e /metrics%00 \
	/static/../../../../etc/passwd "/static/%252e%252e/etc/passwd"; do
	want 404 $A --path-as-is "$B$p"
done
if grep -q 'root:' "$T/replies.txt"; then fail "a traversal URL served /etc/passwd"; fi
ok "traversal, encoded dots and slashes, NUL: 404"

# Failed logins from one address: after about ten, 429 even with the right password, for that
# address only, until a second has passed. The right password is tried between wrong ones, each
# right after a failure was counted: one such try at least must meet 429.
SRC=127.0.0.86
urls=$(for i in $(seq 1 12); do echo "$B/metrics"; done)
set -- -s --max-time 20 $CA --interface $SRC -D $T/burst.head -w '%{stderr}%{http_code}\n'
next=""
for i in 1 2 3 4 5 6; do
	next="$next --next $* -u admin:$PW $B/metrics?right --next $* -u admin:wrong $B/metrics"
done
curl "$@" -u admin:wrong $urls $next >/dev/null 2>"$T/burst" || true
set --
n401=$(head -n 12 "$T/burst" | grep -c '^401$' || true)
right=$(sed -n '13~2p' "$T/burst" | tr '\n' ' ')
[ "$n401" -ge 10 ] || fail "only $n401 of 12 failed logins got 401 before 429: $(tr '\n' ' ' <"$T/burst")"
grep -q '^429$' "$T/burst" || fail "no 429 after failed logins: $(tr '\n' ' ' <"$T/burst")"
case "$right" in *429*) ;; *) fail "the right password was never refused while throttled: $right";; esac
grep -q '^Retry-After: 1' "$T/burst.head" || fail "429 without Retry-After"
cat "$T/burst.head" >>"$T/replies.txt"
want 200 $A "$B/metrics"
wait_until 5 sh -c "[ \"\$(curl -s $CA --interface $SRC -u 'admin:$PW' -o /dev/null -w '%{http_code}' '$B/metrics')\" = 200 ]" ||
	fail "the throttled address never got in again"
ok "$n401 failed logins, then 429 for that address (right password: $right), not for others"

printf '%s' "$PW" >"$T/prom.pass"
start_prometheus <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: wgwatch
    scheme: https
    tls_config: { ca_file: '$T/tls/cert.pem' }
    basic_auth: { username: admin, password_file: '$T/prom.pass' }
    static_configs: [{ targets: ['127.0.0.1:$HTTP_PORT'] }]
YML
query() {
	curl -fsS --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		$PY -c 'import json,sys; d=json.load(sys.stdin); print(len(d["data"]["result"]))'
}
has() { [ "$(query "$1")" -ge 1 ]; }
wait_until 40 has 'up{job="wgwatch"} == 1' || fail "Prometheus does not see wgwatchd up over HTTPS with basic_auth"
wait_until 10 has 'wgwatch_router_up' || fail "Prometheus has no wgwatch_router_up"
ok "Prometheus scrapes /metrics over HTTPS with basic_auth: up == 1"

stop_daemon -TERM
if grep -qF "$PW" "$T/replies.txt" "$T/daemon.log" "$T/refused.log"; then fail "the password leaked"; fi
if grep -q 'PRIVATE KEY' "$T/replies.txt" "$T/daemon.log"; then fail "key material in a reply or the log"; fi
[ -s "$T/replies.txt" ] || fail "no replies recorded"
check_log_clean
ok "the password is in no reply and not in the log"
