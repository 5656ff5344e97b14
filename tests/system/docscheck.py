#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docscheck: every name the documentation gives must exist (run by tests/system/003-docs.sh).

usage: docscheck.py SRCDIR [DOC...]   (DOC defaults to README.md, docs/*.md, docs/*.5, docs/*.8,
bench/README.md; prints one "DOC:LINE: ..." line per broken reference, exits 1 if there is any)

What it recognises, in Markdown (backtick spans, prose and fenced blocks alike) and in the man
pages (after the troff escapes and macro names are stripped):
- file paths: a word starting with a top-level folder of the tree and a slash (`web/page.c`,
  `tests/system/090-browser.sh`, `schema/`), and in Markdown a backticked bare file name with a
  source extension (`history.c`, `routeros.md`) or a relative link target `[x](y.md)`. A path
  must be a file or folder of the source tree (git's tracked and untracked-but-not-ignored
  files; a walk of SRCDIR without git), or a product Makefile.am builds (programs, libraries,
  BUILT_SOURCES, CLEANFILES, a test's .log), or NOT_IN_TREE below. A bare name may live in any
  folder; a path may name a file by its stem (`lib/worker`, `schema/001`). `*` is a glob that
  must match something; an all-capitals word (NNN, NAME, DATE-HOST) or a <placeholder> makes
  its whole path component a glob (`schema/NNN-name.sql` is `schema/*.sql`). Absolute
  paths are not checked (they are the user's: /etc/wgwatch, /var/lib/wgwatch, /proc, URLs),
  except /usr/share/wgwatch/X: X must be a file Makefile.am installs to pkgdatadir.
- systemd units: NAME.service, NAME.socket, NAME.timer (NAME@INSTANCE.service counts as the
  template NAME@.service): systemd/NAME or systemd/NAME.in must exist, or Makefile.am must build
  systemd/NAME.
- metric families: wgwatch_... (with {a,b} alternatives expanded and * as a glob) must be a
  family of metrics_families[] in web/metrics.c, as written: _total and the like are part of
  the name; only a histogram's _bucket, _sum and _count may be added. Recorded series
  (wgwatch:...) and alert names (Wgwatch...) must be a record: or alert: of web/prometheus/.
- config keys: "[section] key" with one space between (section daemon, detector, web, alert, defaults or router NAME),
  and every "key = value" line under such a [section] line in a ```ini block or a man page's
  .nf block, must be a key of that section in daemon/confkeys.c's confkeys_table[] (include is
  accepted anywhere; [defaults] takes the router keys). In wgwatch.conf.5 each ".TP" + ".B key"
  entry of a SECTION must be such a key, and every key of the table must have its entry.
Links and bare names inside fenced blocks are not checked (they are code). Anything else, HTTP
routes, command-line options and keys given without their section among them, is not checked.
"""
import fnmatch
import os
import re
import subprocess
import sys

TOP_DIRS = "lib daemon collectors store detector web sim schema systemd tests bench docs m4 .ci".split()
SOURCE_EXT = "c h sh py sql md scenario yml yaml json snmprec am ac in 5 8".split()
# Paths a doc names that are not in the tree on purpose, each with why.
NOT_IN_TREE = {
    "bench/results/": "bench/run writes its tables there; the folder is gitignored",
    "daemon/store/": "docs/architecture.md: the nested layout the project chose not to have",
}
SECTIONS = {"daemon": "daemon", "detector": "detector", "web": "web", "alert": "alert",
            "defaults": "router", "router": "router"}
KEY_LETTER = {"D": "daemon", "X": "detector", "W": "web", "A": "alert", "R": "router"}


class Tree:
    def __init__(self, src):
        self.src = src
        self.files = self._files()
        self.dirs = {os.path.dirname(f) for f in self.files}
        for d in list(self.dirs):
            while d:
                d = os.path.dirname(d)
                self.dirs.add(d)
        self.basenames = {os.path.basename(f) for f in self.files}
        self.products, self.pkgdata = self._makefile()
        self.families = self._families()
        self.keys = self._keys()
        self.records, self.alerts = self._rules()

    def _files(self):
        try:  # git's view, if SRCDIR is a checkout's top (not a tarball's tree inside one)
            git = ["git", "-C", self.src]
            top = subprocess.run(git + ["rev-parse", "--show-toplevel"], capture_output=True, check=True)
            if os.path.realpath(top.stdout.decode().strip()) != os.path.realpath(self.src):
                raise OSError("not the top of a git checkout")
            out = subprocess.run(git + ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                 capture_output=True, check=True).stdout
            return {f for f in out.decode().split("\0") if f and os.path.exists(os.path.join(self.src, f))}
        except (OSError, subprocess.CalledProcessError):
            found = set()
            for root, dirs, names in os.walk(self.src):
                dirs[:] = [d for d in dirs if d not in (".git", "autom4te.cache", ".deps")]
                for n in names:
                    found.add(os.path.relpath(os.path.join(root, n), self.src))
            return found

    def read(self, rel):
        with open(os.path.join(self.src, rel), encoding="utf-8") as f:
            return f.read()

    def _makefile(self):
        text = self.read("Makefile.am").replace("\\\n", " ")
        assigns = re.findall(r"^\s*(\w+)\s*\+?=[ \t]*(.*)$", text, re.M)
        values = {}
        for var, val in assigns:
            values[var] = values.get(var, "") + " " + val

        def expand(val, depth=0):  # $(VAR) of Makefile.am itself; others (configure's) dropped
            return re.sub(r"\$\((\w+)\)", lambda m: expand(values.get(m.group(1), ""), depth + 1)
                          if depth < 5 else "", val)

        products, pkgdata, tests = set(), set(), set()
        for var, val in assigns:
            words = expand(val).split()
            if var.endswith(("_PROGRAMS", "_LIBRARIES")) or var in ("BUILT_SOURCES", "CLEANFILES") \
                    or var.endswith("unit_DATA"):
                products.update(words)
            if var in ("dist_pkgdata_DATA", "pkgdata_DATA"):
                pkgdata.update(os.path.basename(w) for w in words)
            if var == "dist_grafana_DATA":
                pkgdata.update("grafana/" + os.path.basename(w) for w in words)
            if var in ("SCHEMA_FILES",):
                pkgdata.update("schema/" + os.path.basename(w) for w in words)
            if var.endswith("_PROGRAMS") or var == "SYSTEM_TESTS":
                tests.update(words)
        for t in tests:  # the test driver leaves NAME.log and NAME.trs next to each test
            products.update((t + ".log", t + ".trs"))
        return products, pkgdata

    def _families(self):
        text = self.read("web/metrics.c")
        return dict(re.findall(r'\{\s*"(wgwatch_\w+)",\s*"(gauge|counter|histogram|summary)"', text))

    def _keys(self):
        text = self.read("daemon/confkeys.c")
        keys = {s: set() for s in KEY_LETTER.values()}
        for letter, name in re.findall(r'\b([DXWAR])KEY\("(\w+)"', text):
            keys[KEY_LETTER[letter]].add(name)
        return keys

    def _rules(self):
        records, alerts = set(), set()
        for f in self.files:
            if f.startswith("web/prometheus/") and f.endswith(".yml"):
                text = self.read(f)
                records.update(re.findall(r"^\s*-?\s*record:\s*(\S+)", text, re.M))
                alerts.update(re.findall(r"^\s*-?\s*alert:\s*(\S+)", text, re.M))
        return records, alerts

    def path_ok(self, p, bare=False):
        p = p.rstrip("/") if p not in ("/",) else p
        if any((p + "/").startswith(w) for w in NOT_IN_TREE):
            return True
        pattern = "/".join(self._glob_component(c) for c in p.split("/"))
        if bare:
            names = self.basenames | {os.path.basename(x) for x in self.products}
            return any(fnmatch.fnmatchcase(n, pattern) for n in names)
        every = self.files | self.dirs | self.products
        if "*" not in pattern and pattern in every:
            return True
        # A file named by its stem: lib/worker for lib/worker.c, schema/001 for schema/001-initial.sql
        return any(fnmatch.fnmatchcase(f, pattern) or fnmatch.fnmatchcase(f, pattern + "[-._]*")
                   for f in every)

    @staticmethod
    def _glob_component(c):
        if "<" in c or re.search(r"(?<![a-z])[A-Z]{2,}(?![a-z])|(?<![\w])[A-Z](?![\w])", c):
            ext = re.search(r"\.[a-z0-9]+$", c)
            return "*" + (ext.group(0) if ext else "")
        return c

    def family_ok(self, name):
        if "*" in name:
            return any(fnmatch.fnmatchcase(f, name) for f in self.families)
        if name in self.families:
            return True
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        return self.families.get(base) in ("histogram", "summary")

    def key_ok(self, section, key):
        return key == "include" or key in self.keys[section]


def expand_braces(s):
    """wgwatch_{a,b}_x (shell) and wgwatch_(a|b)_x (a regular expression): every name meant."""
    m = re.search(r"\{([^{}]*)\}|\(([^()]*)\)", s)
    if not m:
        return [s]
    alts = m.group(1).split(",") if m.group(1) is not None else m.group(2).split("|")
    return [x for alt in alts for x in expand_braces(s[:m.start()] + alt + s[m.end():])]


def troff_plain(line):
    """A man page line as text: no macro name, font escape or quote."""
    line = re.sub(r"^\.\w+\s?", "", line) if line.startswith(".") else line
    line = re.sub(r"\\f[BIRP]|\\f\(\w\w|\\&|\\c", "", line)
    line = line.replace("\\-", "-").replace("\\e", "\\")
    line = re.sub(r"\\\(\w\w", " ", line)
    return line.replace('"', " ")


class Checker:
    PATH_RE = re.compile(r"(?<![\w./@$~-])((?:%s)/[\w./*<>+-]*)" % "|".join(re.escape(d) for d in TOP_DIRS))
    BARE_RE = re.compile(r"^(?=[^.]*[A-Za-z<*])[\w.<>*+-]+\.(?:%s)$" % "|".join(SOURCE_EXT))  # not 7.8
    UNIT_RE = re.compile(r"(?<![\w.-])([\w-]+(?:@[\w-]*)?\.(?:service|socket|timer))\b")
    METRIC_RE = re.compile(r"(?<![\w:])wgwatch_(?:[a-z0-9_*]|\{[a-z0-9_,]+\}|\([a-z0-9_|]+\))+")
    RECORD_RE = re.compile(r"(?<![\w])wgwatch:[a-z0-9_:*]+")
    ALERT_RE = re.compile(r"\bWgwatch[A-Z]\w+")
    SECTKEY_RE = re.compile(r"\[(daemon|detector|web|alert|defaults|router)(?: [^\]\s]+)?\] ([a-z_]+)\b")
    INI_SECT_RE = re.compile(r"^\[(\w+)(?: [^\]]+)?\]")
    INI_KEY_RE = re.compile(r"^([a-z_]+)\s*=")

    def __init__(self, tree):
        self.tree = tree
        self.errors = []
        self.seen = dict.fromkeys(("paths", "units", "metrics", "rules", "keys"), 0)

    def err(self, where, msg):
        self.errors.append("%s: %s" % (where, msg))

    def check_file(self, path, shown):
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        man = re.search(r"\.[1-8]$", path) is not None
        rel = os.path.relpath(os.path.abspath(path), self.tree.src)
        docdir = os.path.dirname(rel) if not rel.startswith("..") else "docs"  # a copy: as if in docs/
        fence, sect = None, None
        for n, raw in enumerate(lines, 1):
            where = "%s:%d" % (shown, n)
            line = troff_plain(raw) if man else raw
            # ini blocks: ```ini ... ``` in Markdown, .nf ... .fi in a man page
            if man and raw.startswith(".nf"):
                fence, sect = "ini", None
            elif man and raw.startswith(".fi"):
                fence = None
            elif not man and raw.lstrip().startswith("```"):
                fence = None if fence is not None else (raw.strip()[3:] or "text")
                sect = None
                continue
            if fence == "ini" and not raw.startswith("."):
                sect = self.check_ini(where, line, sect)
            self.check_line(where, line, man, docdir, fence is not None)

    def check_ini(self, where, line, sect):
        m = self.INI_SECT_RE.match(line)
        if m:
            return SECTIONS.get(m.group(1), "")  # "": not wgwatch.conf (a scenario): skip its keys
        m = self.INI_KEY_RE.match(line)
        if m and sect:
            self.seen["keys"] += 1
        if m and sect and not self.tree.key_ok(sect, m.group(1)):
            self.err(where, "config key %s is not a key of [%s] in daemon/confkeys.c" % (m.group(1), sect))
        return sect

    def check_line(self, where, line, man, docdir, in_block):
        t = self.tree
        for m in self.PATH_RE.finditer(line):
            p = m.group(1).rstrip(".,:;)")
            self.seen["paths"] += 1
            if not t.path_ok(p):
                self.err(where, "file %s is not in the tree nor built by Makefile.am" % p)
        if not man and not in_block:
            for span in re.findall(r"`([^`]+)`", line):
                if not self.BARE_RE.match(span) or "/" in span:
                    continue
                self.seen["paths"] += 1
                if not t.path_ok(span, bare=True):
                    self.err(where, "file %s is nowhere in the tree" % span)
            for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", line):
                if re.match(r"\w+:", target) or not re.search(r"[./]", target):
                    continue
                rel = os.path.normpath(os.path.join(docdir, target))
                self.seen["paths"] += 1
                if not t.path_ok(rel):
                    self.err(where, "link target %s is not in the tree" % target)
        for m in re.finditer(r"(?<![\w/])/usr/share/wgwatch/([\w./-]+)", line):
            if m.group(1).rstrip("./") not in t.pkgdata:
                self.err(where, "/usr/share/wgwatch/%s is not installed by Makefile.am" % m.group(1))
        for u in self.UNIT_RE.findall(line):
            self.seen["units"] += 1
            tmpl = re.sub(r"@[\w-]+\.", "@.", u)
            if not any(("systemd/" + tmpl + sfx) in t.files for sfx in ("", ".in")) \
                    and "systemd/" + tmpl not in t.products:
                self.err(where, "systemd unit %s is not shipped in systemd/" % u)
        for m in self.METRIC_RE.finditer(line):
            for name in expand_braces(m.group(0).rstrip("_")):
                self.seen["metrics"] += 1
                if not t.family_ok(name):
                    self.err(where, "metric family %s is not in web/metrics.c's metrics_families[]" % name)
        for name in self.RECORD_RE.findall(line):
            name = name.rstrip(":")
            self.seen["rules"] += 1
            if not any(fnmatch.fnmatchcase(r, name) for r in t.records):
                self.err(where, "recorded series %s is not a record: of web/prometheus/" % name)
        for name in self.ALERT_RE.findall(line):
            self.seen["rules"] += 1
            if name not in t.alerts:
                self.err(where, "alert %s is not an alert: of web/prometheus/" % name)
        for sect, key in self.SECTKEY_RE.findall(line):
            self.seen["keys"] += 1
            if not t.key_ok(SECTIONS[sect], key):
                self.err(where, "config key [%s] %s is not in daemon/confkeys.c" % (sect, key))

    def check_conf5(self, path, shown):
        """wgwatch.conf.5: its .TP/.B key entries and the key table, both ways."""
        documented = {s: set() for s in KEY_LETTER.values()}
        sect, prev = None, ""
        with open(path, encoding="utf-8") as f:
            for n, raw in enumerate(f, 1):
                raw = raw.rstrip("\n")
                if raw.startswith(".SH"):
                    m = re.search(r"SECTIONS? \[(\w+)", raw)
                    sect = SECTIONS.get(m.group(1)) if m else None
                elif prev.startswith(".TP") and sect and raw.startswith(".B "):
                    key = raw[3:].strip().strip('"')
                    documented[sect].add(key)
                    self.seen["keys"] += 1
                    if not self.tree.key_ok(sect, key):
                        self.err("%s:%d" % (shown, n), "documents %s in [%s], which daemon/confkeys.c "
                                 "does not have" % (key, sect))
                prev = raw
        for s, names in sorted(self.tree.keys.items()):
            for k in sorted(names - documented[s]):
                self.err(shown, "[%s] %s is in daemon/confkeys.c but has no .TP entry here" % (s, k))


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    src = os.path.abspath(argv[1])
    tree = Tree(src)
    if argv[2:]:
        docs = [(d, d) for d in argv[2:]]
    else:
        rels = [f for f in ("README.md", "bench/README.md") if f in tree.files] + sorted(
            f for f in tree.files if re.match(r"docs/[^/]+\.(md|5|8)$", f))
        docs = [(os.path.join(src, r), r) for r in rels]
    c = Checker(tree)
    for path, shown in docs:
        c.check_file(path, shown)
        if os.path.basename(path) == "wgwatch.conf.5":
            c.check_conf5(path, shown)
    for e in c.errors:
        print(e)
    print("docscheck: %d documents, %d broken references among %s" % (len(docs), len(c.errors),
          ", ".join("%d %s" % (v, k) for k, v in c.seen.items())))
    return 1 if c.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
