#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docconf: every wgwatch.conf example in the documentation passes `wgwatchd --check --offline`
(run by tests/system/118-doc-configs.sh; issue 41: docs that break when pasted).

usage: docconf.py SRCDIR DAEMON TMPDIR

An example is a fenced or indented Markdown block, or a man page's .nf block, whose lines are
all section headers, key = value lines, comments or blanks, with at least one header of a
wgwatch.conf section. Each is written to a file of its own; the files it names (secrets, CA
and certificates, the database's directory) are made under TMPDIR, absolute paths moved there,
since they are the user's: the check is of the example's text, not of this host. Prints one
"DOC:LINE: ..." per failing example, exits 1 if there is any."""
import glob, os, re, subprocess, sys

SECTIONS = r"(daemon|detector|web|alert|defaults|rollout|evidence|router [^\]\s][^\]]*)"
HEADER = re.compile(r"^\[" + SECTIONS + r"\]\s*(;.*)?$")
LINE = re.compile(r"^([a-z_]+)\s*=\s*(.*)$")
PATH_KEYS = {"ca_file", "cert", "key", "database", "files", "include"}
PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def blocks_md(path):
    """(first line number, lines) of each fenced or 4-space indented block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((i + 2, lines[i + 1:j]))
            i = j + 1
        elif lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            out.append((i + 1, [l[4:] for l in lines[i:j]]))
            i = j
        else:
            i += 1
    return out


def blocks_man(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == ".nf":
            j = i + 1
            while j < len(lines) and lines[j].strip() != ".fi":
                j += 1
            body = [l.replace("\\-", "-").replace("\\(em", "-") for l in lines[i + 1:j] if not l.startswith(".")]
            out.append((i + 2, body))
            i = j + 1
        else:
            i += 1
    return out


def is_example(body):
    text = [l.strip() for l in body if l.strip() and not l.strip().startswith((";", "#"))]
    return any(HEADER.match(l) for l in text) and all(HEADER.match(l) or LINE.match(l) for l in text)


def make_file(where, key):
    os.makedirs(os.path.dirname(where), exist_ok=True)
    if key == "database":
        return
    if key in ("files", "include"):  # a glob may match nothing; a named file is another example's
        if "*" not in where and not os.path.exists(where):
            open(where, "w").close()
        return
    if os.path.exists(where):
        return
    with open(where, "w") as f:
        f.write(PEM if key in ("ca_file", "cert") else "-----BEGIN PRIVATE KEY-----\n" if key == "key" else "s3cret\n")
    os.chmod(where, 0o600)


def write_example(n, body, tmp):
    d = os.path.join(tmp, "ex%d" % n)
    root = os.path.join(d, "root")
    os.makedirs(root, exist_ok=True)
    out = []
    for l in body:
        m = LINE.match(l.strip())
        if m and (m.group(1) in PATH_KEYS or m.group(1).endswith("_file")):
            # The file the example means: its path up to a comment of either kind. The line
            # keeps its text, the path only moved, so a comment the daemon would read as part
            # of the value still makes it refuse the example.
            meant = re.split(r"\s[;#]", m.group(2))[0].strip()
            routers = [h[8:-1] for h in (x.strip() for x in body) if h.startswith("[router ")]
            for one in ([meant.replace("%{router}", r) for r in routers] if "%{router}" in meant else [meant]):
                make_file(root + one if one.startswith("/") else os.path.join(d, one), m.group(1))
            if m.group(2).startswith("/"):
                l = "%s = %s%s" % (m.group(1), root, m.group(2))
        out.append(l)
    conf = os.path.join(d, "wgwatch.conf")
    open(conf, "w").write("\n".join(out) + "\n")
    return conf


def main():
    src, daemon, tmp = sys.argv[1:4]
    docs = sorted(glob.glob(os.path.join(src, "docs", "*.md"))) + [os.path.join(src, "README.md")]
    mans = sorted(glob.glob(os.path.join(src, "docs", "*.[58]")))
    bad = n = 0
    for doc in docs + mans:
        for line, body in (blocks_man(doc) if doc in mans else blocks_md(doc)):
            if not is_example(body):
                continue
            n += 1
            conf = write_example(n, body, tmp)
            r = subprocess.run([daemon, "-c", conf, "--check", "--offline"], capture_output=True, text=True)
            if r.returncode != 0:
                bad += 1
                why = (r.stderr or r.stdout).strip().replace(conf, "example").splitlines()
                print("%s:%d: --check refuses the example: %s" % (os.path.relpath(doc, src), line, " | ".join(why[:3])))
    print("%d examples checked, %d refused" % (n, bad))
    sys.exit(1 if bad or n == 0 else 0)


main()
