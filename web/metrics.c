/* SPDX-License-Identifier: Apache-2.0 */
/* metrics: the Prometheus text exposition (format 0.0.4) of the fleet and of the daemon itself,
 * whole, of one router, or of the daemon alone, into a buffer or streamed out in pieces.
 * Every family is declared once in metrics_families[], which drives # HELP, # TYPE and the order.
 * Reads only samples, counters and public config fields (name, labels): never a secret, never
 * I/O. Label values are escaped and made valid UTF-8, whatever bytes a router sent. */
#include "config.h"
#include "web/metrics.h"
#include "web/metrics_int.h"

#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector/detector.h"
#include "lib/text.h"
#include "lib/xmem.h"

/* ---- numbers ---- */

void metrics_put_u64(buf_t *out, uint64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp);
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	metrics_put(out, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Shortest exact text for v. Values with at most 6 decimals (ratios, seconds from
 * milliseconds) take a fast integer path; anything else goes through printf. */
void metrics_put_double(buf_t *out, double v)
{
	if (isnan(v)) {
		metrics_puts(out, "NaN");
		return;
	}
	if (isinf(v)) {
		metrics_puts(out, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* Below 9e9, v * 1e6 < 2^53: r and r / 1e6 are exact, so when r / 1e6 is v the decimal
	 * text of r reads back as v. Unix times in seconds (1.7e9) take this path too. */
	bool fast = fabs(v) < 9e9;
	long long r = fast ? llround(v * 1e6) : 0;
	if (fast && (double)r / 1e6 == v) {
		uint64_t a = (uint64_t)(r < 0 ? -r : r);
		if (r < 0)
			metrics_putc(out, '-');
		metrics_put_u64(out, a / 1000000);
		unsigned frac = (unsigned)(a % 1000000);
		if (frac == 0)
			return;
		char tmp[8] = ".000000";
		for (int k = 6; k >= 1; k--, frac /= 10)
			tmp[k] = (char)('0' + frac % 10);
		size_t len = 7;
		while (tmp[len - 1] == '0')
			len--;
		metrics_put(out, tmp, len);
		return;
	}
	char tmp[32];
	for (int prec = 15; prec <= 17; prec++) /* the shortest that reads back as v */
		if (snprintf(tmp, sizeof(tmp), "%.*g", prec, v) > 0 && strtod(tmp, NULL) == v)
			break;
	metrics_puts(out, tmp);
}

/* ---- series ---- */

/* name{router="R" — the caller adds its own labels, then ends the series. */
void metrics_begin(struct metrics_ctx *c, const struct metrics_family *fam, size_t i)
{
	metrics_put(c->out, c->name, c->name_len);
	metrics_put(c->out, c->labels.data + c->rl[i].router.off, c->rl[i].router.len);
}

/* name{router="R",interface="I",peer="P" (or type="T"): one prepared segment. */
void metrics_begin_seg(struct metrics_ctx *c, size_t i, bool peer, size_t k)
{
	const struct metrics_seg *g = &c->segs[(peer ? c->rl[i].peer0 : c->rl[i].seg0) + k];
	metrics_put(c->out, c->name, c->name_len);
	metrics_put(c->out, c->labels.data + g->off, g->len);
}

void metrics_label(buf_t *out, const char *key, const char *value)
{
	metrics_putc(out, ',');
	metrics_puts(out, key);
	metrics_put(out, "=\"", 2);
	text_put_label(out, value);
	metrics_putc(out, '"');
}

/* Config labels, closing brace, space (one prepared segment): the value follows. */
static inline void metrics_close(struct metrics_ctx *c, size_t i)
{
	metrics_put(c->out, c->labels.data + c->rl[i].extra.off, c->rl[i].extra.len);
}

void metrics_end_u64(struct metrics_ctx *c, size_t i, uint64_t v)
{
	metrics_close(c, i);
	metrics_put_u64(c->out, v);
	metrics_putc(c->out, '\n');
}

void metrics_end_double(struct metrics_ctx *c, size_t i, double v)
{
	metrics_close(c, i);
	metrics_put_double(c->out, v);
	metrics_putc(c->out, '\n');
}

static uint64_t metrics_field(const void *base, size_t off)
{
	uint64_t v;
	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

/* ---- per-router families ---- */

static void metrics_up(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	if (!r->polled) /* pending: a 0 never measured would fire RouterDown at every start */
		return;
	metrics_begin(c, fam, i);
	metrics_end_u64(c, i, r->up ? 1 : 0);
}

static void metrics_info(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = r->last;
	if (s == NULL)
		return;
	metrics_begin(c, fam, i);
	metrics_label(c->out, "board", s->board);
	metrics_label(c->out, "architecture", s->architecture);
	metrics_label(c->out, "version", s->version);
	metrics_label(c->out, "firmware", s->firmware);
	metrics_end_u64(c, i, 1);
}

/* The newest sample's readings, or NULL while the router is down: a down router's last values
 * are not current, and exporting them would draw a flat line through the outage (as other
 * Prometheus exporters do, the series go stale; up, info and the verdicts stay). */
const sample_t *metrics_current(const fleet_router_t *r)
{
	return r->up ? r->last : NULL;
}

static void metrics_uptime(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	if (metrics_current(r) == NULL || r->last->uptime_ms < 0)
		return;
	metrics_begin(c, fam, i);
	metrics_end_double(c, i, (double)r->last->uptime_ms / 1000.0);
}

static void metrics_fw_upgrade(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = r->last;
	if (s == NULL)
		return;
	bool avail = s->firmware && s->upgrade_firmware && s->upgrade_firmware[0] &&
		strcmp(s->firmware, s->upgrade_firmware) != 0;
	metrics_begin(c, fam, i);
	metrics_end_u64(c, i, avail ? 1 : 0);
}

static void metrics_core(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	bool irq = fam->off == offsetof(struct sample_core, irq);
	for (size_t k = 0; s != NULL && k < s->ncores; k++) {
		double v = irq ? s->cores[k].irq : s->cores[k].load;
		if (isnan(v))
			continue;
		metrics_begin(c, fam, i);
		metrics_put(c->out, ",core=\"", 7);
		metrics_put_u64(c->out, k);
		metrics_putc(c->out, '"');
		metrics_end_double(c, i, v);
	}
}

static void metrics_iface(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	for (size_t k = 0; s != NULL && k < s->nifaces; k++) {
		metrics_begin_seg(c, i, false, k);
		metrics_end_u64(c, i, metrics_field(&s->ifaces[k], fam->off));
	}
}

/* Error, queue-drop and link-down counters: REST tells them, SNMP alone does not (IF-MIB's are not read),
 * and a 0 that means "not told" must not pass for "no errors". */
static void metrics_iface_rest(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	if (s != NULL && s->source != NULL && strcmp(s->source, "snmp") == 0)
		return;
	metrics_iface(c, fam, i, r);
}

static void metrics_iface_running(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	(void)fam;
	const sample_t *s = metrics_current(r);
	for (size_t k = 0; s != NULL && k < s->nifaces; k++) {
		metrics_begin_seg(c, i, false, k);
		metrics_end_u64(c, i, s->ifaces[k].running ? 1 : 0);
	}
}

/* The MTU in use; absent when unknown (0: SNMP, or "auto"). */
static void metrics_iface_mtu(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	(void)fam;
	const sample_t *s = metrics_current(r);
	for (size_t k = 0; s != NULL && k < s->nifaces; k++) {
		if (s->ifaces[k].mtu == 0)
			continue;
		metrics_begin_seg(c, i, false, k);
		metrics_end_u64(c, i, s->ifaces[k].mtu);
	}
}

/* cpu-frequency in hertz (Prometheus's base unit; RouterOS says MHz); absent when unknown. */
static void metrics_cpu_frequency(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	if (s == NULL || s->cpu_freq_mhz == 0)
		return;
	metrics_begin(c, fam, i);
	metrics_end_u64(c, i, (uint64_t)s->cpu_freq_mhz * 1000000u);
}

static void metrics_peer(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	bool handshake = fam->off == offsetof(struct sample_peer, last_handshake_ms);
	for (size_t k = 0; s != NULL && s->have_peers && k < s->npeers; k++) {
		const struct sample_peer *p = &s->peers[k];
		if (handshake && p->last_handshake_ms < 0)
			continue;
		metrics_begin_seg(c, i, true, k);
		if (handshake)
			metrics_end_double(c, i, (double)p->last_handshake_ms / 1000.0);
		else
			metrics_end_u64(c, i, metrics_field(p, fam->off));
	}
}

static void metrics_poll_errors(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	for (int k = SAMPLE_OK + 1; k < SAMPLE_ERR_COUNT; k++) {
		if (r->errors[k] == 0)
			continue;
		metrics_begin(c, fam, i);
		metrics_label(c->out, "kind", sample_err_name((enum sample_err)k));
		metrics_end_u64(c, i, r->errors[k]);
	}
}

static void metrics_polls(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	metrics_begin(c, fam, i);
	metrics_end_u64(c, i, r->polls);
}

/* ---- the table: every family once; docs/metrics.md describes the same list ---- */

#define IFACE(field)      .per_router = metrics_iface, .off = offsetof(struct sample_iface, field)
#define IFACE_REST(field) .per_router = metrics_iface_rest, .off = offsetof(struct sample_iface, field)
#define PEER(field)       .per_router = metrics_peer, .off = offsetof(struct sample_peer, field), .peer = true
#define HEALTH(unit)      .per_router = metrics_health_sensor, .off = (size_t)(unit)
#define BYTES(field)      .per_router = metrics_health_bytes, .off = offsetof(sample_t, field)

static const struct metrics_family metrics_families[] = {
	{ "wgwatch_router_up", "gauge",
		"1 when the newest poll of the router succeeded, else 0; absent until the first poll "
		"since the start has ended (pending).",
		.per_router = metrics_up },
	{ "wgwatch_router_info", "gauge",
		"Board, architecture, RouterOS version and firmware of the router; always 1.",
		.per_router = metrics_info },
	{ "wgwatch_router_uptime_seconds", "gauge", "Router uptime at the newest poll.",
		.per_router = metrics_uptime },
	{ "wgwatch_router_menu_up", "gauge",
		"1 when the router's newest answer from an optional REST menu (label menu: "
		"/system/routerboard, /system/health, /system/package/update, /ip/route/check) was "
		"good, 0 while it fails: its data is left out and the router stays up.",
		.per_router = metrics_health_menu },
	{ "wgwatch_router_firmware_upgrade_available", "gauge",
		"1 when the RouterBOOT upgrade firmware differs from the current one, else 0.",
		.per_router = metrics_fw_upgrade },
	{ "wgwatch_cpu_core_load_ratio", "gauge", "Load of one CPU core, 0 to 1.", .per_router = metrics_core,
		.off = offsetof(struct sample_core, load) },
	{ "wgwatch_cpu_core_irq_ratio", "gauge", "Interrupt share of one CPU core, 0 to 1.",
		.per_router = metrics_core, .off = offsetof(struct sample_core, irq) },
	{ "wgwatch_cpu_frequency_hertz", "gauge",
		"CPU clock of the router (cpu-frequency); absent when the board does not tell.",
		.per_router = metrics_cpu_frequency },
	{ "wgwatch_interface_receive_bytes_total", "counter", "Bytes received on the interface.",
		IFACE(rx_bytes) },
	{ "wgwatch_interface_transmit_bytes_total", "counter", "Bytes transmitted on the interface.",
		IFACE(tx_bytes) },
	{ "wgwatch_interface_receive_packets_total", "counter", "Packets received on the interface.",
		IFACE(rx_packets) },
	{ "wgwatch_interface_transmit_packets_total", "counter", "Packets transmitted on the interface.",
		IFACE(tx_packets) },
	{ "wgwatch_interface_receive_drops_total", "counter", "Received packets dropped on the interface.",
		IFACE(rx_drops) },
	{ "wgwatch_interface_transmit_drops_total", "counter",
		"Transmitted packets dropped on the interface.", IFACE(tx_drops) },
	{ "wgwatch_interface_receive_errors_total", "counter",
		"Packets received with an error on the interface; absent when the source does not tell "
		"(SNMP alone).",
		IFACE_REST(rx_errors) },
	{ "wgwatch_interface_transmit_errors_total", "counter",
		"Packets the interface failed to transmit; absent when the source does not tell (SNMP alone).",
		IFACE_REST(tx_errors) },
	{ "wgwatch_interface_transmit_queue_drops_total", "counter",
		"Packets dropped by the interface's transmit queue (tx-queue-drop); absent when the source "
		"does not tell (SNMP alone).",
		IFACE_REST(tx_queue_drops) },
	{ "wgwatch_interface_link_downs_total", "counter",
		"Times the interface's link went down (link-downs); absent when the source does not tell "
		"(SNMP alone).",
		IFACE_REST(link_downs) },
	{ "wgwatch_interface_running", "gauge", "1 while the interface is running (link up), else 0.",
		.per_router = metrics_iface_running },
	{ "wgwatch_interface_mtu_bytes", "gauge",
		"MTU the interface uses (actual-mtu, else mtu); absent when unknown.",
		.per_router = metrics_iface_mtu },
	{ "wgwatch_wireguard_peer_receive_bytes_total", "counter", "Bytes received from the WireGuard peer.",
		PEER(rx_bytes) },
	{ "wgwatch_wireguard_peer_transmit_bytes_total", "counter",
		"Bytes transmitted to the WireGuard peer.", PEER(tx_bytes) },
	{ "wgwatch_wireguard_peer_last_handshake_seconds", "gauge",
		"Age of the peer's last handshake at the newest poll; absent if it never handshook.",
		PEER(last_handshake_ms) },
	{ "wgwatch_wireguard_peer_last_handshake_timestamp_seconds", "gauge",
		"Unix time of the peer's last handshake (poll time minus its age); absent if it never "
		"handshook.",
		.per_router = metrics_health_handshake_time, .peer = true },
	{ "wgwatch_profile_usage_ratio", "gauge",
		"Share of one CPU core (label core) a classifier (label name: networking, wireguard, "
		"encrypting, idle, total, ...) took in the router's newest CPU profile, 0 to 1.",
		.per_router = metrics_profile_usage },
	{ "wgwatch_probe_delivered_bytes_per_second", "gauge",
		"What the tunnel delivered in the router's newest fixed-rate probe (bandwidth-test) of "
		"each direction, bytes/s (Prometheus's base unit: bits/s over 8).",
		.per_router = metrics_probe_delivered },
	{ "wgwatch_wireguard_peer_info", "gauge",
		"The peer's current endpoint (address:port, \"\" before a handshake) and allowed "
		"addresses as RouterOS lists them; always 1.",
		.per_router = metrics_health_peer_info, .peer = true },
	{ "wgwatch_wireguard_peer_disabled", "gauge", "1 when the peer is disabled on the router, else 0.",
		.per_router = metrics_health_peer_disabled, .peer = true },
	{ "wgwatch_health_temperature_celsius", "gauge", "Temperature sensor of the router.",
		HEALTH(SAMPLE_UNIT_CELSIUS) },
	{ "wgwatch_health_voltage_volts", "gauge", "Voltage sensor of the router.",
		HEALTH(SAMPLE_UNIT_VOLTS) },
	{ "wgwatch_health_current_amperes", "gauge", "Current sensor of the router.",
		HEALTH(SAMPLE_UNIT_AMPERES) },
	{ "wgwatch_health_power_watts", "gauge", "Power sensor of the router.", HEALTH(SAMPLE_UNIT_WATTS) },
	{ "wgwatch_health_fan_speed_rpm", "gauge", "Fan speed of the router, revolutions per minute.",
		HEALTH(SAMPLE_UNIT_RPM) },
	{ "wgwatch_health_state_ok", "gauge",
		"1 when a state sensor of the router (psu1-state, fan-state) reads ok, else 0.",
		HEALTH(SAMPLE_UNIT_STATE) },
	{ "wgwatch_memory_free_bytes", "gauge", "Free memory of the router.", BYTES(mem_free) },
	{ "wgwatch_memory_total_bytes", "gauge", "Memory of the router.", BYTES(mem_total) },
	{ "wgwatch_disk_free_bytes", "gauge", "Free space on the router's disk (flash).", BYTES(disk_free) },
	{ "wgwatch_disk_total_bytes", "gauge", "Size of the router's disk (flash).", BYTES(disk_total) },
	{ "wgwatch_upgrade_regression", "gauge",
		"1 while the detector judges that the router's newest RouterOS version change cut the "
		"capacity of the interface in that direction (tx encrypt, rx decrypt), else 0.",
		.per_router = metrics_detector_upgrade, .off = METRICS_UP_REGRESSION },
	{ "wgwatch_upgrade_capacity_ratio", "gauge",
		"Capacity after the newest version change divided by capacity before (below 1: worse); "
		"absent while the detector has no figure.",
		.per_router = metrics_detector_upgrade, .off = METRICS_UP_RATIO },
	{ "wgwatch_upgrade_verdict_reached_timestamp_seconds", "gauge",
		"Unix time at which the current verdict (and method) on the newest version change was "
		"first reached; time() minus it is how long the verdict has held ([detector] hold).",
		.per_router = metrics_detector_upgrade, .off = METRICS_UP_REACHED },
	{ "wgwatch_upgrade_confounders", "gauge",
		"How many other things that change WireGuard throughput (CPU clock, WAN tx-queue drops, "
		"errors, MTU, a link down) moved across the newest version change; 0: none seen.",
		.per_router = metrics_detector_upgrade, .off = METRICS_UP_CONFOUNDERS },
	{ "wgwatch_upgrade_cohort_regressed", "gauge",
		"1 when a verdict on the router's version change from_version -> to_version is a "
		"regression, else 0; one series per cohort (upgrade, architecture, board) of the router.",
		.per_router = metrics_detector_cohort, .off = 0 },
	{ "wgwatch_upgrade_cohort_improved", "gauge",
		"1 when a verdict on the router's version change from_version -> to_version is an "
		"improvement and none a regression, else 0.",
		.per_router = metrics_detector_cohort, .off = 1 },
	{ "wgwatch_upgrade_cohort_ratio", "gauge",
		"Capacity ratio (after / before) of each high-confidence verdict (probe, saturation-ceiling, "
		"cpu-cost, matched-rate) of every version change; the input of the cohort medians.",
		.per_router = metrics_detector_cohort_ratio },
	{ "wgwatch_core_saturated", "gauge",
		"1 while the router is bound by one core: busiest core at 95% or more, the others mostly "
		"idle, over the last 10 minutes; else 0.",
		.per_router = metrics_detector_core_saturated },
	{ "wgwatch_capacity_bytes_per_second", "gauge",
		"WireGuard capacity of the interface in that direction now, bytes/s (bits/s over 8): the "
		"rate at its core's ceiling (pinned) or where its busiest core fills (projected); absent "
		"while unknown.",
		.per_router = metrics_detector_capacity, .off = METRICS_CAP_BPS },
	{ "wgwatch_capacity_headroom_ratio", "gauge",
		"1 - p95 of the last 7 days' 5-minute rates / capacity; 0 at its limit (pinned); absent "
		"while the capacity is unknown.",
		.per_router = metrics_detector_capacity, .off = METRICS_CAP_HEADROOM },
	{ "wgwatch_capacity_exhausted_timestamp_seconds", "gauge",
		"Unix time at which the Theil-Sen trend of the daily peaks reaches the capacity; absent "
		"when none within a year, the trend is flat or falling, or the capacity is unknown.",
		.per_router = metrics_detector_capacity, .off = METRICS_CAP_EXHAUSTED },
	{ "wgwatch_rollout_decision", "gauge",
		"The rollout guard's decision on the cohort (to_version, architecture, board): go, hold or "
		"wait in label decision; always 1, one series per cohort.",
		.daemon = metrics_detector_rollout },
	{ "wgwatch_rollout_shard_up", "gauge",
		"Whether the rollout guard read the rollout counts of the other shard (label shard) of "
		"[rollout] shards at its last ask: 1 yes, 0 no (then it says wait, never go).",
		.daemon = metrics_detector_shard_up },
	{ "wgwatch_evidence_fleets", "gauge",
		"Other fleets whose imported evidence ([evidence] files) reports the cohort (from_version, "
		"to_version, architecture, board); each fleet once, the fleet's own never.",
		.daemon = metrics_evidence_cohort, .off = 0 },
	{ "wgwatch_evidence_judged_routers", "gauge",
		"Routers of other fleets judged (regressed, improved or unchanged) on the cohort, per direction.",
		.daemon = metrics_evidence_cohort, .off = 1 },
	{ "wgwatch_evidence_regressed_routers", "gauge",
		"Routers of other fleets that regressed on the cohort, per direction.",
		.daemon = metrics_evidence_cohort, .off = 2 },
	{ "wgwatch_evidence_capacity_ratio_median", "gauge",
		"The median of other fleets' median capacity ratios (after / before) on the cohort, per "
		"direction; absent when none judged one.",
		.daemon = metrics_evidence_cohort, .off = 3 },
	{ "wgwatch_poll_duration_seconds", "histogram", "Duration of router polls.",
		.daemon = metrics_daemon_poll_duration },
	{ "wgwatch_poll_start_delay_seconds", "histogram",
		"Time from when a poll was due to when it started; grows when max_in_flight or the "
		"loop cannot keep up.",
		.daemon = metrics_daemon_poll_start_delay },
	{ "wgwatch_poll_errors_total", "counter", "Failed polls of the router by kind of failure.",
		.per_router = metrics_poll_errors },
	{ "wgwatch_polls_total", "counter", "Finished polls of the router.", .per_router = metrics_polls },
	{ "wgwatch_polls_late_total", "counter", "Polls started more than one interval after they were due.",
		.daemon = metrics_daemon_polls_late },
	{ "wgwatch_clock_steps_total", "counter",
		"Steps of the wall clock (5 s or more against the monotonic clock) seen between polls.",
		.daemon = metrics_daemon_clock_steps },
	{ "wgwatch_store_samples_total", "counter", "Sample rows committed to the database.",
		.daemon = metrics_daemon_store_samples },
	{ "wgwatch_store_write_errors_total", "counter", "Failed database commits.",
		.daemon = metrics_daemon_store_write_errors },
	{ "wgwatch_store_queue_length", "gauge", "Polls waiting to be written to the database.",
		.daemon = metrics_daemon_store_queue },
	{ "wgwatch_store_sqlite_memory_bytes", "gauge",
		"Heap memory SQLite holds in the daemon (page caches of every connection included).",
		.daemon = metrics_daemon_store_sqlite_bytes },
	{ "wgwatch_store_failing", "gauge", "1 when the newest database commit failed, else 0.",
		.daemon = metrics_daemon_store_failing },
	{ "wgwatch_http_refused_connections_total", "counter",
		"HTTP connections closed unserved: reason limit (too many from one address, or in all), "
		"accept (accept() failed, e.g. out of file descriptors).",
		.daemon = metrics_daemon_http_refused },
	{ "wgwatch_http_slow_connections_closed_total", "counter",
		"HTTP connections closed before they sent a complete request: reason deadline (none "
		"within 10 s of connecting, or 30 s after the previous reply), reserve (the longest "
		"waiting, closed so that quick requests always find a free slot).",
		.daemon = metrics_daemon_http_slow },
	{ "wgwatch_http_pages_late_total", "counter",
		"Requests for a page or the API that reads the database (history, rollout, reports) not "
		"rendered within 20 s of being queued, answered 503 in their place.",
		.daemon = metrics_daemon_http_pages_late },
	{ "wgwatch_router_last_success_timestamp_seconds", "gauge",
		"Unix time of the router's newest successful poll (kept while it is down).",
		.per_router = metrics_self_router_success, .off = 0 },
	{ "wgwatch_router_last_poll_duration_seconds", "gauge",
		"How long the router's newest successful poll took.",
		.per_router = metrics_self_router_success, .off = 1 },
	{ "wgwatch_build_info", "gauge", "wgwatchd's version and source revision; always 1.",
		.daemon = metrics_self_build_info },
	{ "wgwatch_config_last_reload_successful", "gauge",
		"1 when the newest configuration load (the start, or a SIGHUP) succeeded, else 0.",
		.daemon = metrics_self_reload_ok },
	{ "wgwatch_config_last_reload_success_timestamp_seconds", "gauge",
		"Unix time of the newest successful configuration load.",
		.daemon = metrics_self_reload_time },
	{ "process_cpu_seconds_total", "counter", "User and system CPU time of wgwatchd, in seconds.",
		.daemon = metrics_self_process, .off = 0 },
	{ "process_start_time_seconds", "gauge", "Unix time wgwatchd started.",
		.daemon = metrics_self_process, .off = 1 },
	{ "process_virtual_memory_bytes", "gauge", "Virtual memory size of wgwatchd.",
		.daemon = metrics_self_process, .off = 2 },
	{ "process_resident_memory_bytes", "gauge", "Resident memory of wgwatchd.",
		.daemon = metrics_self_process, .off = 3 },
	{ "process_open_fds", "gauge", "Open file descriptors of wgwatchd.",
		.daemon = metrics_self_open_fds },
	{ "process_max_fds", "gauge", "wgwatchd's limit of open file descriptors.",
		.daemon = metrics_self_max_fds },
	{ "wgwatch_shard_info", "gauge",
		"This daemon polls shard K (label shard) of N (label shards) of the fleet; always 1.",
		.daemon = metrics_daemon_shard_info },
};

#define METRICS_NFAMILIES (sizeof(metrics_families) / sizeof(metrics_families[0]))

/* ---- render ---- */

/* Router i's label and two more, escaped, as the next segment of the label buffer. */
static void metrics_prepare_seg(
	struct metrics_ctx *c, size_t i, const char *k1, const char *v1, const char *k2, const char *v2)
{
	if (c->nsegs == c->capsegs) {
		c->capsegs = c->capsegs ? 2 * c->capsegs : 1024;
		c->segs = xreallocarray(c->segs, c->capsegs, sizeof(*c->segs));
	}
	struct metrics_seg *g = &c->segs[c->nsegs++];
	const struct metrics_seg *router = &c->rl[i].router;
	g->off = c->labels.len;
	buf_reserve(&c->labels, c->labels.len + router->len + 1); /* data may move: copy after */
	metrics_put(&c->labels, c->labels.data + router->off, router->len);
	metrics_label(&c->labels, k1, v1);
	metrics_label(&c->labels, k2, v2);
	g->len = c->labels.len - g->off;
}

/* A config label named like one of our own labels or a target label of Prometheus is left out
 * (conf_label_reserved): a series with a duplicate label, or one Prometheus renames, would
 * break the alerts' equality with the push (web/alert.c). Peers only where peer_metrics. */
static void metrics_prepare_router(struct metrics_ctx *c, size_t i)
{
	const fleet_router_t *r = fleet_view_at(c->view, i);
	struct metrics_rl *rl = &c->rl[i];
	rl->router.off = c->labels.len;
	metrics_put(&c->labels, "router=\"", 8);
	text_put_label(&c->labels, r->conf->name);
	metrics_putc(&c->labels, '"');
	rl->router.len = c->labels.len - rl->router.off;
	rl->extra.off = c->labels.len;
	for (size_t k = 0; k < r->conf->nlabels; k++)
		if (!conf_label_reserved(r->conf->labels[k].key))
			metrics_label(&c->labels, r->conf->labels[k].key, r->conf->labels[k].value);
	metrics_put(&c->labels, "} ", 2);
	rl->extra.len = c->labels.len - rl->extra.off;
	rl->seg0 = c->nsegs;
	const sample_t *s = r->last;
	for (size_t k = 0; s != NULL && k < s->nifaces; k++)
		metrics_prepare_seg(c, i, "interface", s->ifaces[k].name, "type", s->ifaces[k].type);
	rl->peer0 = c->nsegs;
	for (size_t k = 0; s != NULL && s->have_peers && r->conf->peer_metrics && k < s->npeers; k++)
		metrics_prepare_seg(c, i, "interface", s->peers[k].interface, "peer", s->peers[k].peer);
}

static void metrics_prepare(struct metrics_ctx *c, size_t n)
{
	buf_init(&c->labels);
	c->rl = xcalloc(n, sizeof(*c->rl));
	for (size_t i = 0; i < n; i++)
		metrics_prepare_router(c, i);
}

static void metrics_family_head(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_puts(c->out, "# HELP ");
	metrics_puts(c->out, fam->name);
	metrics_putc(c->out, ' ');
	metrics_puts(c->out, fam->help);
	metrics_puts(c->out, "\n# TYPE ");
	metrics_puts(c->out, fam->name);
	metrics_putc(c->out, ' ');
	metrics_puts(c->out, fam->type);
	metrics_putc(c->out, '\n');
}

static void metrics_family_render(struct metrics_ctx *c, const struct metrics_family *fam, size_t n)
{
	size_t mark = c->out->len;
	metrics_family_head(c, fam);
	size_t head_end = c->out->len;
	if (fam->daemon) {
		fam->daemon(c, fam);
		return;
	}
	c->name_len = strlen(fam->name) + 1;
	assert(c->name_len < sizeof(c->name));
	memcpy(c->name, fam->name, c->name_len - 1);
	c->name[c->name_len - 1] = '{';
	for (size_t i = 0; i < n; i++) {
		const fleet_router_t *r = fleet_view_at(c->view, i);
		if (!fam->peer || r->conf->peer_metrics)
			fam->per_router(c, fam, i, r);
		if (c->flush != NULL && c->out->len >= METRICS_CHUNK) {
			c->flush(c->flush_arg, c->out);
			head_end = SIZE_MAX; /* the head went out with it */
		}
	}
	if (c->drop_empty && c->out->len == head_end) { /* no series: no # HELP either */
		c->out->len = mark;
		c->out->data[mark] = '\0';
	}
}

/* A router's scrape gets the per-router families, ?routers=no the daemon's, else all. */
static bool metrics_wanted(const struct metrics_req *req, const struct metrics_family *fam)
{
	bool of_routers = fam->per_router != NULL;
	if (req->router != NULL)
		return of_routers;
	return !req->daemon_only || !of_routers;
}

/* Bytes of the newest whole render: the next one reserves a little more at once, rather than
 * grow (and copy, and fault in) its buffer step by step. */
static atomic_size_t metrics_last_len;

int metrics_write(const struct metrics_req *req, buf_t *out)
{
	fleet_view_t *view = req->router ? fleet_view_router(req->fleet, req->router)
					 : fleet_view(req->fleet);
	if (view == NULL)
		return -1;
	size_t start = out->len;
	bool whole = req->router == NULL && !req->daemon_only;
	if (whole && req->flush == NULL)
		buf_reserve(out, start + atomic_load(&metrics_last_len) / 16 * 17);
	struct store_stats st = { 0 };
	if (req->store && req->router == NULL)
		store_get_stats(req->store, &st);
	struct metrics_ctx c = { .out = out,
		.flush = req->flush,
		.flush_arg = req->flush_arg,
		.view = view,
		.store = &st,
		.http = req->http,
		.drop_empty = req->router != NULL,
		.det = detector_view(req->detector) };
	size_t n = req->daemon_only ? 0 : fleet_view_size(view);
	metrics_prepare(&c, n);
	for (size_t f = 0; f < METRICS_NFAMILIES; f++)
		if (metrics_wanted(req, &metrics_families[f]))
			metrics_family_render(&c, &metrics_families[f], n);
	fleet_view_free(view);
	detector_view_free(c.det);
	buf_free(&c.labels);
	free(c.rl);
	free(c.segs);
	if (whole && req->flush == NULL)
		atomic_store(&metrics_last_len, out->len - start);
	return 0;
}

void metrics_render(
	fleet_t *fleet, store_t *store, detector_t *detector, const struct metrics_http *http, buf_t *out)
{
	struct metrics_req req = { .fleet = fleet, .store = store, .detector = detector, .http = http };
	metrics_write(&req, out);
}
