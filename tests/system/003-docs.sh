#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 003-docs: every file, systemd unit, metric family, recorded series, alert and config key that
# README.md, docs/*.md, the man pages and bench/README.md name exists (tests/system/docscheck.py
# says what it recognises). Then the checker itself: a copy of a doc with one broken name of each
# kind, and a copy of wgwatch.conf.5 that lost a key's entry, must each fail, naming the culprit.
# And docs/architecture.md's module list names every source file of the layer folders and sim/,
# and no file that is gone.
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

# --- docs/architecture.md's module list names every source file, and nothing that is gone ---------
# A file is named by its own name or, for X.c beside X.h, by its module's header. Then a copy that
# lost a file's name and gained a gone one must fail, naming both.
archcheck() {   # archcheck ARCHITECTURE.md
	$PY - "$top_srcdir" "$1" <<'PY'
import os, re, sys
top, doc = sys.argv[1], open(sys.argv[2]).read()
mods = doc[doc.index("## Modules"):doc.index("## House rules")]
named = set(re.findall(r"[`/]([A-Za-z0-9_]+\.(?:c|h|cc))\b", mods))
tree = []   # (folder, file): daemon/probe.h and detector/probe.h are two
for d in ("lib", "daemon", "collectors", "store", "detector", "web", "sim"):
    for f in sorted(os.listdir(os.path.join(top, d))):
        if re.fullmatch(r"[A-Za-z0-9_]+\.(c|h|cc)", f) and not f.endswith("schema_sql.c"):
            tree.append((d, f))
bad = ["%s/%s: not named in docs/architecture.md's module list" % (d, f) for d, f in tree
       if f not in named and os.path.splitext(f)[0] + ".h" not in named]
bad += ["docs/architecture.md names %s, which no layer folder has" % f for f in sorted(named)
        if f not in {f for _, f in tree}]
print("\n".join(bad) if bad else "architecture: %d source files, every one named" % len(tree))
sys.exit(1 if bad else 0)
PY
}
rc=0
archcheck "$top_srcdir/docs/architecture.md" >"$T/arch.out" 2>&1 || rc=$?
cat "$T/arch.out"
[ "$rc" = 0 ] || fail "docs/architecture.md's module list and the tree disagree (above)"
ok "$(tail -1 "$T/arch.out")"
sed -e 's/`rollup.c` the 5-minute roll-ups,//' -e 's/`conflabel.c` (label/`confgone.c` (label/' \
	"$top_srcdir/docs/architecture.md" >"$T/arch.md"
rc=0
archcheck "$T/arch.md" >"$T/arch-bad.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q '^store/rollup.c: not named' "$T/arch-bad.out" &&
	grep -q 'names confgone.c, which no layer folder has' "$T/arch-bad.out" ||
	fail "archcheck exit $rc on a module list that lost rollup.c and names confgone.c: $(cat "$T/arch-bad.out")"
ok "archcheck fails on a module list that lost a file and names a gone one, naming both"
