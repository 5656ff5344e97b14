#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""expo.py: read a Prometheus text exposition and print what a test asks for.

  expo.py FILE NAME [label=value ...]      values of the series of NAME whose labels include these
  expo.py FILE NAME --label L [k=v ...]    the value of label L of each such series
  expo.py FILE --names                     every family name with a # TYPE line
A strict little parser: a line it cannot read is an error (exit 2), so a malformed exposition
fails the test instead of being skipped."""
import re
import sys

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( \d+)?$')
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: {'n': '\n', '\\': '\\', '"': '"'}[m.group(1)], v)


def canon(text):
    """One spelling per number: integers exactly (counters exceed 2^53), others shortest."""
    try:
        return str(int(text))
    except ValueError:
        v = float(text)
        return str(int(v)) if v.is_integer() else repr(v)


def parse_labels(s):
    labels, pos = {}, 0
    while pos < len(s):
        m = LABEL.match(s, pos)
        if not m:
            raise ValueError('bad labels: %r' % s)
        labels[m.group(1)] = unescape(m.group(2))
        pos = m.end()
    return labels


def parse(path):
    series, types = [], set()
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line:
                continue
            if line.startswith('#'):
                parts = line.split(None, 3)
                if len(parts) >= 3 and parts[1] == 'TYPE':
                    types.add(parts[2])
                continue
            m = LINE.match(line)
            if not m:
                sys.exit('%s:%d: unreadable line: %r' % (path, n, line))
            try:
                labels = parse_labels(m.group(3) or '')
            except ValueError as e:
                sys.exit('%s:%d: %s' % (path, n, e))
            series.append((m.group(1), labels, canon(m.group(4))))
    return series, types


def main(argv):
    series, types = parse(argv[1])
    if argv[2] == '--names':
        print('\n'.join(sorted(types)))
        return 0
    name, rest, want_label = argv[2], argv[3:], None
    if '--label' in rest:
        i = rest.index('--label')
        want_label, rest = rest[i + 1], rest[:i] + rest[i + 2:]
    want = dict(a.split('=', 1) for a in rest)
    for sname, labels, value in series:
        if sname == name and all(labels.get(k) == v for k, v in want.items()):
            print(labels.get(want_label, '') if want_label else value)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
