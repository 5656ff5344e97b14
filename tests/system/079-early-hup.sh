#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 079-early-hup: SIGHUPs from the start (ExecReload=kill -HUP can come at any time) never kill
# wgwatchd: from the moment it has its database open, through the migration and the rest of the
# start, a SIGHUP arrives every millisecond until /healthz answers. It lives, serves, and the
# SIGHUPs held back during the start still reload the configuration once the handler is in.
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 800ms

# The helper starts the daemon itself, so that it knows the pid at once, waits until the
# database is open (the loader is done, main is running) and then sends the SIGHUPs.
$PY - "$DAEMON" "$T/wgwatch.conf" "$T/daemon.log" "$HTTP_PORT" >"$T/hup.out" <<'PYEOF' ||
import os, signal, subprocess, sys, time, urllib.request
daemon, conf, log, port = sys.argv[1:5]
p = subprocess.Popen([daemon, "-c", conf, "-v"], stderr=open(log, "ab"))
def db_open():
    try:
        fds = os.listdir("/proc/%d/fd" % p.pid)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink("/proc/%d/fd/%s" % (p.pid, fd)).endswith("/wgwatch.db"):
                return True
        except OSError:
            pass
    return False
end = time.time() + 20
while not db_open() and p.poll() is None and time.time() < end:
    pass
sent = 0
def healthy():
    try:
        return urllib.request.urlopen("http://127.0.0.1:%s/healthz" % port, timeout=0.2).status == 200
    except Exception:
        return False
last_probe = 0
while p.poll() is None and time.time() < end:
    os.kill(p.pid, signal.SIGHUP)
    sent += 1
    time.sleep(0.001)
    if time.time() - last_probe > 0.05:
        last_probe = time.time()
        if healthy():
            break
rc = p.poll()
print("pid %d sent %d exit %s" % (p.pid, sent, rc))
if rc is not None:
    sys.exit(1)
PYEOF
	{ cat "$T/hup.out"; fail "wgwatchd died of an early SIGHUP"; }
cat "$T/hup.out"
DAEMON_PID=$(awk '{ print $2 }' "$T/hup.out")
PIDS="$PIDS $DAEMON_PID"
kill -0 "$DAEMON_PID" || fail "wgwatchd is gone"
http_get /healthz >/dev/null || fail "/healthz does not answer"
# The SIGHUPs held back during the start are not lost: one reload follows.
wait_until 10 grep -q 'reload: ' "$T/daemon.log" || fail "the SIGHUPs of the start never reloaded"
ok "alive and serving after $(awk '{ print $4 }' "$T/hup.out") early SIGHUPs, and reloaded"
grep -q '^<[0-3]>' "$T/daemon.log" && fail "error lines in the log: $(grep '^<[0-3]>' "$T/daemon.log")"
ok "no error lines"
