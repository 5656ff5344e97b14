#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 002-format: every C and C++ file is as the checked-in .clang-format makes it (run `make format`).
set -u
cd "${top_srcdir:-.}" || exit 1
command -v clang-format >/dev/null 2>&1 || { echo "clang-format not installed: skipped"; exit 77; }
# store/schema_sql.c is generated (BUILT_SOURCES): in a build in the source tree it is there too.
files=$(find lib daemon collectors store detector web sim tests bench \( -name '*.[ch]' -o -name '*.cc' \) ! -path store/schema_sql.c | sort)
out=$(clang-format --dry-run $files 2>&1)
if [ -n "$out" ]; then
	printf '%s\n' "$out" | grep 'warning:' | sed 's/: warning:.*//' | sort -u | sed 's/^/not formatted: /'
	echo "run: make format"
	exit 1
fi
echo "format ok: $(echo "$files" | wc -l) files"
