#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 119-inventory: routers from Prometheus file_sd target files ([daemon] targets, issue 41: one
# inventory feeds both). The sim's routers are written as a NetBox-style export: each target a
# router named by its host, the group's labels its labels, __scheme__ its scheme, and each
# router's password in a file of its own through one [defaults] password_file with %{router}.
# One router comes from a JSON file, one from a YAML file (Ansible-style) beside it; a target
# added to the YAML file is polled without a signal; files that stop parsing are refused with
# their FILE:LINE and the routers keep polling.
. "$top_srcdir/tests/system/lib.sh"

start_sim "$top_srcdir/tests/system/basic.scenario"
write_conf 1s 800ms "targets = targets/*" "[defaults]" "user = $(routers_conf_value arm64-a user)" \
	"password_file = creds/router_%{router}"
mkdir "$T/targets" "$T/creds"
PW=$(routers_conf_value arm64-a password)
target() { routers_conf_value "$1" rest | sed -e 's|^https\?://||' -e 's|/.*||'; }
A=$(target arm64-a) B=$(target arm64-b) C=$(target tile-a)
: >"$T/routers.conf" # the sim's own fragment: not read, the export stands in for it
for t in "$A" "$B" "$C"; do
	printf '%s\n' "$PW" >"$T/creds/router_${t%:*}"
	chmod 600 "$T/creds/router_${t%:*}"
done
# export FILE LINES...: a target file, written whole and renamed in, as an exporter would.
export_targets() {
	f=$1
	shift
	printf '%s\n' "$@" >"$T/targets/.$f.tmp"
	mv "$T/targets/.$f.tmp" "$T/targets/$f"
}
export_targets netbox.json '[{"targets": ["'"$A"'"],' ' "labels": {"__scheme__": "http", "site": "ams", "__meta_netbox_id": "7"}}]'
export_targets ansible.yml '# from Ansible' '- targets:' "    - '$B'" '  labels:' '    __scheme__: http' '    site: lj'
"$DAEMON" -c "$T/wgwatch.conf" --check >"$T/check.out" 2>&1 || fail "--check: $(cat "$T/check.out")"
grep -q "ok, 2 routers" "$T/check.out" || fail "--check: $(cat "$T/check.out")"
start_daemon

EXPO="$PY $top_srcdir/tests/system/expo.py"
up() { http_get /metrics >"$T/m.txt" && [ "$($EXPO "$T/m.txt" wgwatch_router_up router="$1")" = 1 ]; }
wait_until 20 up "${A%:*}" && wait_until 20 up "${B%:*}" || fail "the exported routers not up: $(grep router_up "$T/m.txt")"
grep -q "^wgwatch_router_info{router=\"${A%:*}\",.*site=\"ams\"" "$T/m.txt" || fail "no site label: $(grep router_info "$T/m.txt")"
grep -q "^wgwatch_router_info{router=\"${B%:*}\",.*site=\"lj\"" "$T/m.txt" || fail "no YAML site label: $(grep router_info "$T/m.txt")"
grep -q "netbox_id\|__meta" "$T/m.txt" && fail "a meta label reached /metrics"
ok "a JSON and a YAML file_sd file polled as routers ${A%:*} and ${B%:*}, with their groups' labels, each with its own password file"

export_targets ansible.yml '- targets:' "    - '$B'" '  labels: {__scheme__: http, site: lj}' \
	"- targets: ['$C']" '  labels: {__scheme__: http, site: ber}'
wait_until 30 up "${C%:*}" || fail "the new target not polled: $(grep -i target "$T/daemon.log" | tail -3)"
grep -q "^wgwatch_router_info{router=\"${C%:*}\",.*site=\"ber\"" "$T/m.txt" || fail "no label for the new target: $(grep router_info "$T/m.txt")"
grep -q "targets: .* changed: reloading" "$T/daemon.log" || fail "no reload said for the changed file"
ok "a target added to the YAML file is polled, without a signal"

export_targets netbox.json '[{"targets": ["'"$A"'"],' ' "labels": {"site": "ams"}'
export_targets ansible.yml '- targets:' "    - '$B'" '  labels: &l {site: lj}' "- targets: ['$C']" '  labels: *l'
# each change may be its own reload: wait for each file's refusal
said() { grep -q "error: reload: $T/targets/$1" "$T/daemon.log"; }
wait_until 30 said "netbox.json:[0-9]*: not file_sd JSON" ||
	fail "no FILE:LINE for the broken JSON file: $(grep 'reload:' "$T/daemon.log" | tail -3)"
wait_until 30 said "ansible.yml:5: not file_sd YAML: an alias (\\*name) is not read" ||
	fail "no FILE:LINE for the YAML file's alias: $(grep 'reload:' "$T/daemon.log" | tail -3)"
grep -q 'reload refused' "$T/daemon.log" || fail "the broken files were not refused"
p=$($EXPO "$T/m.txt" wgwatch_polls_total router="${C%:*}")
more() { http_get /metrics >"$T/m.txt" && [ "$($EXPO "$T/m.txt" wgwatch_polls_total router="${C%:*}")" -gt "$p" ]; }
wait_until 10 more || fail "${C%:*} stopped polling after the refused file"
ok "files that stop parsing are refused at their lines; the routers poll on"
check_log_clean 'reload'
