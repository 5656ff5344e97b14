/* SPDX-License-Identifier: Apache-2.0 */
/* confkeys: every configuration key, declared once in confkeys_table[] (section, name, type,
 * field, default, range, help), and the look-ups on it. The parser, the defaults, freeing and
 * conf_help() all walk this table; it holds no state and never parses a value. */
#include "config.h"
#include "daemon/conf_int.h"

#include <stddef.h>
#include <string.h>

#define CONF_SEC  1000.0
#define CONF_MIN  (60 * CONF_SEC)
#define CONF_HOUR (60 * CONF_MIN)
#define CONF_DAY  (24 * CONF_HOUR)
#define CONF_YEAR (366 * CONF_DAY)

#define DKEY(n, t, f) .sect = SECT_DAEMON, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define XKEY(n, t, f) .sect = SECT_DETECTOR, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define WKEY(n, t, f) .sect = SECT_WEB, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define AKEY(n, t, f) .sect = SECT_ALERT, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define OKEY(n, t, f) .sect = SECT_ROLLOUT, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define EKEY(n, t, f) .sect = SECT_EVIDENCE, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define RKEY(n, t, f) .sect = SECT_ROUTER, .name = (n), .type = (t), .off = offsetof(conf_router_t, f)

const struct conf_key confkeys_table[] = {
	{ DKEY("listen", T_LISTEN, listen), .def = "127.0.0.1:9477",
		.help = "address and port of the HTTP server (/metrics, API)" },
	{ DKEY("database", T_PATH, database), .def = WG_LOCALSTATEDIR "/lib/wgwatch/wgwatch.db",
		.help = "SQLite database file" },
	{ DKEY("targets", T_PATH, targets),
		.help = "Prometheus file_sd JSON or YAML files (a glob): each target a router (docs/inventory.md)" },
	{ DKEY("interval", T_DURATION, interval_ms), .def = "30s", .min = 100, .max = CONF_DAY,
		.help = "how often each router is polled" },
	{ DKEY("timeout", T_DURATION, timeout_ms), .def = "10s", .min = 100, .max = 10 * CONF_MIN,
		.help = "how long one poll of one router may take" },
	{ DKEY("max_in_flight", T_INT, max_in_flight), .def = "256", .min = 1, .max = 100000,
		.help = "routers polled at the same time" },
	{ DKEY("max_probes", T_INT, max_probes), .def = "2", .min = 1, .max = 1000,
		.help = "fixed-rate probes (bandwidth-test, real traffic) running at once across the fleet" },
	{ DKEY("retention", T_DURATION, retention_ms), .def = "35d", .min = CONF_MIN, .max = 10 * CONF_YEAR,
		.help = "how long raw samples are kept" },
	{ DKEY("rollup_retention", T_DURATION, rollup_retention_ms), .def = "60d", .min = CONF_MIN,
		.max = 10 * CONF_YEAR, .help = "how long 5-minute roll-ups are kept" },
	{ DKEY("rollup_hourly_retention", T_DURATION, rollup_hourly_retention_ms), .def = "400d",
		.min = CONF_MIN, .max = 10 * CONF_YEAR, .help = "how long hourly roll-ups are kept" },
	{ DKEY("shard", T_SHARD, shard), .def = "1/1",
		.help = "poll only routers whose name hashes to shard K of N (see README, Sharding)" },
	{ DKEY("reload_max_removed", T_INT, reload_max_removed), .def = "50", .min = 0, .max = 100,
		.help = "percent of the routers a reload (SIGHUP) may remove; more is refused; 100: any" },
	{ DKEY("max_body", T_SIZE, max_body_bytes), .def = "4M", .min = 1024, .max = 1024.0 * 1024 * 1024,
		.help = "largest REST reply accepted (headers, body and trailers), in bytes" },
	{ XKEY("before", T_DURATION, before_ms), .def = "7d", .min = CONF_SEC, .max = CONF_YEAR,
		.help = "window before a version change that the detector compares" },
	{ XKEY("after", T_DURATION, after_ms), .def = "7d", .min = CONF_SEC, .max = CONF_YEAR,
		.help = "window after a version change that the detector compares" },
	{ XKEY("min_samples", T_INT, min_samples), .def = "30", .min = 1, .max = 1000000,
		.help = "samples needed in each window before the detector judges" },
	{ XKEY("threshold", T_DOUBLE, threshold), .def = "0.20", .min = 0, .max = 1,
		.help = "relative CPU change (0.20 = 20%) that counts as a regression" },
	{ XKEY("saturated", T_DOUBLE, saturated), .def = "0.90", .min = 0, .max = 1,
		.help = "CPU load (0.90 = 90%) from which a core counts as saturated" },
	{ XKEY("every", T_DURATION, every_ms), .min = CONF_SEC, .max = CONF_DAY,
		.help = "how often the detector re-evaluates its verdicts; default after / 10, 1s to 1m" },
	{ XKEY("min_mbps", T_DOUBLE, min_mbps), .def = "1", .min = 0, .max = 1000000,
		.help = "WireGuard traffic (Mbit/s) below which a window is too quiet to judge" },
	{ XKEY("hold", T_DURATION, hold_ms), .def = "5m", .min = 0, .max = CONF_DAY,
		.help = "how long a regression not yet final must hold before it alerts; 0: at once" },
	{ WKEY("user", T_STR, web_user), .help = "user name for the web interface" },
	{ WKEY("password_file", T_SECRET_FILE, web_password), .help = "file holding the web password" },
	{ WKEY("cert", T_PEM_CERT, web_cert), .help = "TLS certificate (PEM) for the web interface" },
	{ WKEY("key", T_FILE, web_key), .help = "TLS private key (PEM) for the web interface" },
	{ AKEY("alertmanager", T_URL, alert_url),
		.help = "Alertmanager to push verdicts to (v2 API), e.g. http://127.0.0.1:9093; unset: off" },
	{ AKEY("resend", T_DURATION, alert_resend_ms), .def = "1m", .min = CONF_SEC, .max = CONF_HOUR,
		.help = "how often firing alerts are sent again to Alertmanager" },
	{ AKEY("timeout", T_DURATION, alert_timeout_ms), .def = "5s", .min = 100, .max = CONF_MIN,
		.help = "how long one push to Alertmanager may take" },
	{ AKEY("capacity_for", T_DURATION, alert_capacity_for_ms), .def = "1h", .min = 0, .max = CONF_DAY,
		.help = "how long a capacity alert's condition must hold before it is pushed (the rules' for); 0: at once" },
	{ OKEY("canary", T_STR, rollout_canary), .def = "role=canary", .check = conflabel_check_canary,
		.help = "the label (labels =) that marks a canary router, name=value" },
	{ OKEY("hold_regressed", T_INT, rollout_hold_regressed), .def = "1", .min = 1, .max = 1000000,
		.help = "routers with a regression (held past [detector] hold, or final) that hold a cohort" },
	{ OKEY("hold_ratio", T_DOUBLE, rollout_hold_ratio), .def = "0.8", .min = 0, .max = 1,
		.help = "a cohort's median capacity ratio (tx or rx) below this holds it" },
	{ OKEY("go_min", T_INT, rollout_go_min), .def = "2", .min = 1, .max = 1000000,
		.help = "routers (canaries, when any is labelled) judged with final verdicts before go" },
	{ OKEY("allow", T_LIST, rollout_allow), .noff = offsetof(conf_t, nrollout_allow),
		.check = conflabel_check_allow,
		.help = "overrides to go, VERSION/ARCHITECTURE or VERSION/BOARD; may be repeated" },
	{ OKEY("evidence", T_ENUM, rollout_evidence), .choices = "hold|show", .def = "show",
		.help = "hold: other fleets' evidence of a regression holds a cohort until its own canaries are judged" },
	{ OKEY("evidence_fleets", T_INT, rollout_evidence_fleets), .def = "2", .min = 1, .max = 1000000,
		.help = "other fleets with a regression in a cohort that hold it (evidence = hold)" },
	{ OKEY("evidence_routers", T_INT, rollout_evidence_routers), .def = "3", .min = 1, .max = 1000000,
		.help = "or other fleets' routers with a regression in a cohort that hold it (evidence = hold)" },
	{ OKEY("shards", T_LIST, rollout_shards), .noff = offsetof(conf_t, nrollout_shards),
		.check = conflabel_check_shards,
		.help = "every shard's base URL in shard order (http://wg-1:9477, http://wg-2:9477): the guard counts the other shards' canaries" },
	{ EKEY("files", T_PATH, evidence_files),
		.help = "other fleets' evidence documents, a glob (e.g. /etc/wgwatch/evidence.d/*.json); read at start and on SIGHUP" },
	{ RKEY("rest", T_URL, rest), .help = "REST base URL, e.g. https://192.0.2.1" },
	{ RKEY("user", T_STR, user), .help = "RouterOS user for REST" },
	{ RKEY("password", T_SECRET, password), .help = "RouterOS password for REST" },
	{ RKEY("password_file", T_SECRET_FILE, password), .help = "file holding the REST password" },
	{ RKEY("tls_verify", T_BOOL, tls_verify), .def = "yes", .help = "verify the router's certificate" },
	{ RKEY("ca_file", T_PEM_CERT, ca_file), .help = "CA bundle (PEM) to verify the router with" },
	{ RKEY("check_updates", T_BOOL, check_updates), .def = "no",
		.help = "read the version the router is offered (/system/package/update), at most hourly" },
	{ RKEY("peer_details_every", T_INT, peer_details_every), .def = "10", .min = 1, .max = 100000,
		.help = "over REST, ask the peers' details (endpoint, names...) every this many polls" },
	{ RKEY("snmp", T_HOSTPORT, snmp), .help = "SNMP agent, host[:port]" },
	{ RKEY("snmp_version", T_SNMPVER, snmp_version), .def = "2c", .help = "SNMP version: 1, 2c or 3" },
	{ RKEY("snmp_community", T_SECRET, snmp_community), .def = "public",
		.help = "SNMP v1/v2c community" },
	{ RKEY("snmp_community_file", T_SECRET_FILE, snmp_community),
		.help = "file holding the SNMP community" },
	{ RKEY("snmp_user", T_STR, snmp_user), .help = "SNMPv3 USM user" },
	{ RKEY("snmp_security_level", T_ENUM, snmp_security_level),
		.choices = "noAuthNoPriv|authNoPriv|authPriv",
		.help = "SNMPv3 level; default from the passwords given" },
	{ RKEY("snmp_auth_protocol", T_ENUM, snmp_auth_protocol),
		.choices = "MD5|SHA|SHA-224|SHA-256|SHA-384|SHA-512", .def = "SHA",
		.help = "SNMPv3 authentication protocol" },
	{ RKEY("snmp_auth_password", T_SECRET, snmp_auth_password),
		.help = "SNMPv3 authentication password" },
	{ RKEY("snmp_auth_password_file", T_SECRET_FILE, snmp_auth_password),
		.help = "file holding the SNMPv3 authentication password" },
	{ RKEY("snmp_priv_protocol", T_ENUM, snmp_priv_protocol), .choices = "DES|AES|AES-192|AES-256",
		.def = "AES", .help = "SNMPv3 privacy protocol" },
	{ RKEY("snmp_priv_password", T_SECRET, snmp_priv_password), .help = "SNMPv3 privacy password" },
	{ RKEY("snmp_priv_password_file", T_SECRET_FILE, snmp_priv_password),
		.help = "file holding the SNMPv3 privacy password" },
	{ RKEY("snmp_retries", T_INT, snmp_retries), .def = "1", .min = 0, .max = 10,
		.help = "SNMP requests resent after a timeout before the poll fails" },
	{ RKEY("labels", T_LABELS, labels), .noff = offsetof(conf_router_t, nlabels),
		.help = "extra Prometheus labels, name=value,name=value" },
	{ RKEY("interfaces", T_LIST, interfaces), .noff = offsetof(conf_router_t, ninterfaces),
		.help = "interfaces to watch besides those of type wg, a,b,c" },
	{ RKEY("wg_names", T_LIST, wg_names), .noff = offsetof(conf_router_t, nwg_names),
		.def = "wg*,wireguard*",
		.help = "over SNMP, the names (shell patterns) of WireGuard interfaces, a,b*,c" },
	{ RKEY("wan", T_LIST, wan), .noff = offsetof(conf_router_t, nwan),
		.help = "interfaces that carry the tunnels' outer packets, a,b (polled for confounders)" },
	{ RKEY("wan_from_peers", T_BOOL, wan_from_peers), .def = "yes",
		.help = "without wan, find it from the peers' endpoints (REST /ip/route/check)" },
	{ RKEY("peer_metrics", T_BOOL, peer_metrics), .def = "yes",
		.help = "export the per-peer series (wgwatch_wireguard_peer_*) of the router on /metrics" },
	{ RKEY("interval", T_DURATION, interval_ms), .min = 100, .max = CONF_DAY,
		.help = "poll interval; default [daemon] interval" },
	{ RKEY("timeout", T_DURATION, timeout_ms), .min = 100, .max = 10 * CONF_MIN,
		.help = "poll timeout; default [daemon] timeout" },
	{ RKEY("diag", T_BOOL, diag), .def = "yes",
		.help = "take CPU profiles (/tool/profile) over REST when a core saturates and after upgrades" },
	{ RKEY("diag_user", T_STR, diag_user),
		.help = "RouterOS user for profiles and probes (RouterOS runs one request per user at a time)" },
	{ RKEY("diag_password", T_SECRET, diag_password), .help = "password of diag_user" },
	{ RKEY("diag_password_file", T_SECRET_FILE, diag_password),
		.help = "file holding the password of diag_user" },
	{ RKEY("profile_every", T_DURATION, profile_every_ms), .def = "1h", .min = CONF_SEC,
		.max = 30 * CONF_DAY, .help = "no profile is taken when one is younger than this" },
	{ RKEY("profile_duration", T_DURATION, profile_duration_ms), .def = "5s", .min = 3 * CONF_SEC,
		.max = 30 * CONF_SEC, .help = "how long one profile samples (REST cuts a request at 60s)" },
	{ RKEY("probe", T_STR, probe),
		.help = "address of a bandwidth-test server reachable through the tunnel; unset: no probes" },
	{ RKEY("probe_rate", T_RATE, probe_rate_bps), .min = 1000, .max = 1e12,
		.help = "rate a probe offers, bits/s with a decimal k, M or G (300M = 300,000,000); needed with probe" },
	{ RKEY("probe_direction", T_ENUM, probe_direction), .choices = "transmit|receive|both",
		.def = "transmit", .help = "direction of a probe, as bandwidth-test names it" },
	{ RKEY("probe_protocol", T_ENUM, probe_protocol), .choices = "udp|tcp", .def = "udp",
		.help = "protocol of a probe" },
	{ RKEY("probe_duration", T_DURATION, probe_duration_ms), .def = "10s", .min = CONF_SEC,
		.max = 30 * CONF_SEC, .help = "how long one probe runs (REST cuts a request at 60s)" },
	{ RKEY("probe_every", T_DURATION, probe_every_ms), .min = CONF_MIN, .max = 30 * CONF_DAY,
		.help = "probe on this schedule too; unset: after upgrades and on demand only" },
	{ RKEY("probe_user", T_STR, probe_user), .help = "user on the bandwidth-test server" },
	{ RKEY("probe_password_file", T_SECRET_FILE, probe_password),
		.help = "file holding the bandwidth-test server's password" },
};

/* The size comes from the entries: a key added without raising CONF_NKEYS fails here. */
_Static_assert(sizeof(confkeys_table) / sizeof(confkeys_table[0]) == CONF_NKEYS, "CONF_NKEYS");

const char *confkeys_sect_name(enum conf_sect s)
{
	return s == SECT_DAEMON      ? "daemon"
		: s == SECT_DETECTOR ? "detector"
		: s == SECT_WEB      ? "web"
		: s == SECT_ALERT    ? "alert"
		: s == SECT_ROLLOUT  ? "rollout"
		: s == SECT_EVIDENCE ? "evidence"
				     : "router NAME";
}

const struct conf_key *confkeys_find(enum conf_sect sect, const char *name)
{
	if (sect == SECT_DEFAULTS)
		sect = SECT_ROUTER;
	for (size_t i = 0; i < CONF_NKEYS; i++)
		if (confkeys_table[i].sect == sect && strcmp(confkeys_table[i].name, name) == 0)
			return &confkeys_table[i];
	return NULL;
}

const struct conf_key *confkeys_clash(const struct conf_key *k, const struct conf_src *at)
{
	for (size_t j = 0; j < CONF_NKEYS; j++)
		if (confkeys_table[j].sect == k->sect && confkeys_table[j].off == k->off && at[j].line != 0)
			return &confkeys_table[j];
	return NULL;
}

const char *confkeys_type_name(const struct conf_key *k)
{
	static const char *const names[] = {
		[T_STR] = "text",
		[T_SECRET] = "secret text",
		[T_SECRET_FILE] = "path of a mode 0600 file",
		[T_PATH] = "path",
		[T_FILE] = "path of a readable file",
		[T_PEM_CERT] = "path of a PEM certificate file",
		[T_URL] = "http:// or https:// URL",
		[T_LISTEN] = "host:port",
		[T_HOSTPORT] = "host[:port]",
		[T_BOOL] = "yes|no",
		[T_DURATION] = "duration",
		[T_INT] = "integer",
		[T_SNMPVER] = "1|2c|3",
		[T_DOUBLE] = "number",
		[T_SIZE] = "size",
		[T_LABELS] = "name=value,...",
		[T_LIST] = "name,...",
		[T_SHARD] = "K/N",
		[T_RATE] = "bits/s with k/M/G",
	};
	return k->type == T_ENUM ? k->choices : names[k->type];
}
