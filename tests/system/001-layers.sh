#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 001-layers: every #include of the project's own headers names its folder, and no file includes
# a layer above its own (docs/architecture.md). daemon/main.c, which wires the layers, is exempt;
# tools/ (wgwatch-fill: the demo's past through the sim, the REST or SNMP collector's decoding and
# the store) sits above every layer and may include any of them, while none includes tools/.
set -u
cd "${top_srcdir:-.}" || exit 1
allowed() {   # allowed FOLDER: the folders FOLDER's files may include
	case $1 in
	lib) echo "lib" ;;
	daemon) echo "lib daemon" ;;
	collectors) echo "lib daemon collectors" ;;
	store) echo "lib daemon store" ;;
	detector) echo "lib daemon store detector" ;;
	web) echo "lib daemon store detector web" ;;
	sim) echo "lib sim" ;;
	tools) echo "lib daemon collectors store detector web sim tools" ;;
	esac
}
bad=0
for dir in lib daemon collectors store detector web sim tools; do
	for f in "$dir"/*.c "$dir"/*.cc "$dir"/*.h; do
		[ -f "$f" ] || continue
		[ "$f" = daemon/main.c ] && continue
		ok=$(allowed "$dir")
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			[ "$inc" = config.h ] && continue
			case $inc in
			*/*) top=${inc%%/*} ;;
			*) echo "$f: #include \"$inc\" does not name its folder"; bad=$((bad + 1)); continue ;;
			esac
			case " $ok " in
			*" $top "*) ;;
			*) echo "$f: #include \"$inc\": $dir/ may include only $ok"; bad=$((bad + 1)) ;;
			esac
		done
	done
done
[ "$bad" -eq 0 ] && echo "layers ok"
exit $((bad > 0))
