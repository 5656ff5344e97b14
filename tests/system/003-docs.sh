#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 003-docs: every file, systemd unit, metric family, recorded series, alert and config key that
# README.md, docs/*.md, the man pages and bench/README.md name exists (tests/system/docscheck.py
# says what it recognises). Then the checker itself: a copy of a doc with one broken name of each
# kind, and a copy of wgwatch.conf.5 that lost a key's entry, must each fail, naming the culprit.
. "$top_srcdir/tests/system/lib.sh"
CHECK="$PY $top_srcdir/tests/system/docscheck.py $top_srcdir"

rc=0
$CHECK >"$T/docs.out" 2>&1 || rc=$?
cat "$T/docs.out"
[ "$rc" = 0 ] || fail "the docs name things that do not exist (above)"
ok "$(tail -1 "$T/docs.out")"

# --- the checker fails on each kind of broken reference ----------------------------------------
cp "$top_srcdir/docs/metrics.md" "$T/metrics.md"
cat >>"$T/metrics.md" <<'EOF'

Injected by 003-docs: `web/nosuch.c`, see [the gone page](nosuch-page.md) and `gone.scenario`;
run `wgwatchd-nosuch.service`; graph `wgwatch_nosuch_seconds` and `wgwatch_polls_total_bucket`;
record `wgwatch:nosuch:sum`, alert on `WgwatchNoSuchAlert`; set `[daemon] nosuch_key`.

```ini
[detector]
threshold = 0.2
nosuch_ini_key = 1
```
EOF
rc=0
$CHECK "$T/metrics.md" >"$T/bad.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "docscheck exit $rc on a broken doc, want 1: $(cat "$T/bad.out")"
for want in 'file web/nosuch.c' 'link target nosuch-page.md' 'file gone.scenario' \
	'unit wgwatchd-nosuch.service' 'family wgwatch_nosuch_seconds' 'family wgwatch_polls_total_bucket' \
	'series wgwatch:nosuch:sum' 'alert WgwatchNoSuchAlert' 'key [daemon] nosuch_key' \
	'key nosuch_ini_key is not a key of [detector]'; do
	grep -qF "$want" "$T/bad.out" || fail "docscheck missed '$want': $(cat "$T/bad.out")"
done
[ "$(grep -c ':[0-9]*: ' "$T/bad.out")" = 10 ] || fail "docscheck reports more than the 10 injected: $(cat "$T/bad.out")"
ok "docscheck fails on each of 10 injected broken references, and only on them"

# wgwatch.conf.5 must document every key of the table, and only those.
sed 's/^\.B snmp_retries$/.B snmp_retry/' "$top_srcdir/docs/wgwatch.conf.5" >"$T/wgwatch.conf.5"
cmp -s "$T/wgwatch.conf.5" "$top_srcdir/docs/wgwatch.conf.5" && fail "no .B snmp_retries line to rename"
rc=0
$CHECK "$T/wgwatch.conf.5" >"$T/man.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "docscheck exit $rc on a man page missing a key, want 1: $(cat "$T/man.out")"
grep -qF 'documents snmp_retry in [router]' "$T/man.out" || fail "unknown key not reported: $(cat "$T/man.out")"
grep -qF '[router] snmp_retries is in daemon/confkeys.c but has no .TP entry' "$T/man.out" ||
	fail "undocumented key not reported: $(cat "$T/man.out")"
ok "docscheck fails on a wgwatch.conf.5 that documents a key the table lacks and misses one it has"
