#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 118-doc-configs: every wgwatch.conf example in README.md, docs/*.md and the man pages passes
# `wgwatchd --check --offline` as written (tests/system/docconf.py; issue 41: an example that
# fails when pasted, such as a "#" comment after a value, is a broken doc). The files an
# example names are made in a temp dir; nothing else is started.
. "$top_srcdir/tests/system/lib.sh"

$PY "$top_srcdir/tests/system/docconf.py" "$top_srcdir" "$DAEMON" "$T" >"$T/docconf.out" 2>&1 ||
	fail "$(cat "$T/docconf.out")"
ok "$(tail -1 "$T/docconf.out")"

# Every alert of the shipped rules has its section in docs/alerts.md, where its runbook_url points.
for a in $(sed -n 's/^ *- alert: //p' "$top_srcdir"/web/prometheus/*-rules.yml); do
	grep -qx "## $a" "$top_srcdir/docs/alerts.md" || fail "docs/alerts.md has no section for $a"
	url="https://github.com/wgwatch/wgwatch/blob/main/docs/alerts.md#$(echo "$a" | tr 'A-Z' 'a-z')"
	grep -q "runbook_url: \"$url\"" "$top_srcdir"/web/prometheus/*-rules.yml || fail "$a has no runbook_url $url"
done
ok "every alert has its runbook section in docs/alerts.md and links it"
