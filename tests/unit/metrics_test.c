/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_test: /metrics exposition (exact lines, escaping, invalid UTF-8, promtool), the JSON
 * API (parses back, no secrets) and the HTTP listener on 127.0.0.1:0 fetched with libcurl.
 * Includes metrics.c, http.c and httproute.c to reach their number format, parser and health check. */
#include "config.h"
#include "web/metrics.c"
#include "web/http.c"
#include "web/httproute.c"
#include "lib/listen.h"

#include <curl/curl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "web/api.h"
#include "daemon/fleet.h"
#include "web/metrics.h"
#include "web/page.h"
#include "daemon/sample.h"
#include "unit.h"
#include "unitconf.h"
#include "unitfs.h"
#include "lib/jsonr.h"
#include "lib/text.h"
#include "lib/xmem.h"

#define PROMTOOL  "/usr/bin/promtool"
#define EVIL_NAME "evil\"name\\x\ny"
#define BAD_NAME  "bad\xff\xfe<script>alert(1)</script>"
#define FFFD      "\xEF\xBF\xBD"

/* ---- fixtures ---- */

/* n routers r0, r1…, each with secrets that must never be shown; conf_free frees it. */
static conf_t *test_conf(size_t n)
{
	conf_t *c = xcalloc(1, sizeof(*c));
	c->interval_ms = 1000;
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "r%zu", i);
		conf_router_t *r = unitconf_router(c, name);
		r->password = xstrdup("hunter2-secret");
		r->snmp_community = xstrdup("c0mmunity-secret");
		r->interval_ms = 1000;
		r->peer_metrics = true;
	}
	return c;
}

static void add_iface(sample_t *s, const char *name, const char *type, uint64_t base)
{
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup(name);
	f->type = xstrdup(type);
	f->running = true;
	f->rx_bytes = base + 1, f->tx_bytes = base + 2;
	f->rx_packets = base + 3, f->tx_packets = base + 4;
	f->rx_drops = base + 5, f->tx_drops = base + 6;
	f->rx_errors = base + 7, f->tx_errors = base + 8;
	f->tx_queue_drops = base + 9, f->link_downs = base + 10;
}

static void add_peer(sample_t *s, const char *iface, const char *name, int64_t hs_ms)
{
	struct sample_peer *p = sample_add_peer(s);
	p->interface = xstrdup(iface);
	p->peer = xstrdup(name);
	p->public_key = xstrdup("c2VjcmV0LWJ1dC1wdWJsaWMta2V5LWZvci10ZXN0cw==");
	p->rx_bytes = 10, p->tx_bytes = 20;
	p->last_handshake_ms = hs_ms;
}

static sample_t *sample_r0(void)
{
	sample_t *s = sample_new("r0", 1700000000000, "rest");
	s->duration_ms = 120;
	s->version = xstrdup("7.22.3");
	s->firmware = xstrdup("7.20");
	s->upgrade_firmware = xstrdup("7.22.3");
	s->board = xstrdup("RB5009UG+S+");
	s->architecture = xstrdup("arm64");
	s->uptime_ms = 3600500;
	sample_set_cores(s, 2);
	s->cores[0].load = 0.25, s->cores[0].irq = 0.01;
	s->cores[1].load = 0.07;
	add_iface(s, "wg0", "wg", 1000);
	add_iface(s, "ether\"1", "ether", 18446744073709551000u);
	s->ifaces[0].mtu = 1420; /* ether"1's stays unknown: absent */
	s->ifaces[1].running = false;
	s->cpu_freq_mhz = 1400;
	s->have_peers = true;
	add_peer(s, "wg0", "alice", 42500);
	add_peer(s, "wg0", "bob\\", -1);
	s->peers[0].endpoint = xstrdup("198.51.100.7");
	s->peers[0].endpoint_port = 51209;
	s->peers[0].allowed = xstrdup("10.0.0.2/32,10.1.0.0/24");
	s->peers[1].endpoint = xstrdup("2001:db8::7");
	s->peers[1].endpoint_port = 13231;
	s->peers[1].disabled = true;
	sample_add_sensor(s, "cpu-temperature", SAMPLE_UNIT_CELSIUS, 58);
	sample_add_sensor(s, "voltage", SAMPLE_UNIT_VOLTS, 24.1);
	sample_add_sensor(s, "fan1-speed", SAMPLE_UNIT_RPM, 6090);
	sample_add_sensor(s, "psu1-current", SAMPLE_UNIT_AMPERES, 1.5);
	sample_add_sensor(s, "power-consumption", SAMPLE_UNIT_WATTS, 36.2);
	sample_add_sensor(s, "psu2-state", SAMPLE_UNIT_STATE, 0);
	sample_add_sensor(s, "sfp\"temp\ntemperature", SAMPLE_UNIT_CELSIUS, -5);
	s->mem_free = 3950641152, s->mem_total = 4227858432;
	s->disk_free = 0, s->disk_total = 135266304;
	sample_add_menu(s, "/system/routerboard", NULL, 0);
	sample_add_menu(s, "/system/health", "HTTP 500 Internal Server Error", 1699999000000);
	return s;
}

/* r0 full data; r1 hostile name, CHR, up; r2 invalid UTF-8 name, two failed polls; r3 never. */
static fleet_t *test_fleet(conf_t *c)
{
	free(c->routers[1].name);
	c->routers[1].name = xstrdup(EVIL_NAME);
	free(c->routers[2].name);
	c->routers[2].name = xstrdup(BAD_NAME);
	unitconf_label(&c->routers[0], "site", "hq \"main\"");
	unitconf_label(&c->routers[0], "router", "clash"); /* reserved: must be left out */
	unitconf_label(&c->routers[0], "job", "clash");    /* Prometheus's own: left out too */
	fleet_t *f = fleet_create(c);

	sample_t *s = sample_r0();
	fleet_update(f, s);
	sample_free(s);
	s = sample_new(EVIL_NAME, 1700000000000, "snmp"); /* no errors, MTU or clock told */
	s->board = xstrdup("CHR");
	s->version = xstrdup("7.22\n<b>");
	s->duration_ms = 3000;
	sample_set_cores(s, 1);
	s->cores[0].load = 0.5;
	add_iface(s, "wg\n1", "wg", 0);
	fleet_update(f, s);
	sample_free(s);
	for (int k = 0; k < 2; k++) {
		s = sample_new(BAD_NAME, 1700000001000, "rest");
		s->duration_ms = 10000;
		sample_fail(s, k ? SAMPLE_ERR_CONNECT : SAMPLE_ERR_TIMEOUT, "failed \xff%d", k);
		fleet_update(f, s);
		sample_free(s);
	}
	fleet_note_start(f, 2, false);
	fleet_note_start(f, 45000, true);
	return f;
}

/* ---- helpers ---- */

/* A series of the family prefix fam (a line beginning with it, not # HELP or # TYPE). */
static bool test_has_series(const char *text, const char *fam)
{
	for (const char *p = text; (p = strstr(p, fam)) != NULL; p++)
		if (p == text || p[-1] == '\n')
			return true;
	return false;
}

/* Occurrences of needle, advancing with memmem over the known length: strstr in a loop is
 * quadratic under ASan, whose interceptor measures the whole rest of a 10 MB text each time. */
static int count(const char *text, const char *needle)
{
	int n = 0;
	size_t len = strlen(text), nl = strlen(needle);
	for (const char *p = text, *end = text + len; (p = memmem(p, (size_t)(end - p), needle, nl)) != NULL;
		p++)
		n++;
	return n;
}

/* Exit status of promtool check metrics on text; -2 when promtool is missing. */
static int promtool_check(const char *text, size_t len, bool quiet)
{
	if (access(PROMTOOL, X_OK) != 0)
		return -2;
	FILE *p = popen(quiet ? PROMTOOL " check metrics >/dev/null 2>&1" : PROMTOOL " check metrics", "w");
	if (p == NULL)
		return -1;
	fwrite(text, 1, len, p);
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- escaping and numbers ---- */

static void test_escape(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain", "plain" },
		{ "a\"b", "a\\\"b" },
		{ "back\\slash", "back\\\\slash" },
		{ "new\nline", "new\\nline" },
		{ "caf\xC3\xA9 \xF0\x9F\x98\x80", "caf\xC3\xA9 \xF0\x9F\x98\x80" },
		{ "cut\xC3", "cut" FFFD },
		{ "\xC0\xAF", FFFD FFFD },                   /* overlong '/' */
		{ "\xE0\x80\x80", FFFD FFFD FFFD },          /* overlong NUL */
		{ "\xED\xA0\x80", FFFD FFFD FFFD },          /* surrogate */
		{ "\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD }, /* above U+10FFFF */
		{ "\xFF\"", FFFD "\\\"" },
		{ "", "" },
	};
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_reset(&b);
		text_put_label(&b, cases[i].in);
		CHECK_STR(b.data ? b.data : "", cases[i].want);
	}
	buf_reset(&b);
	text_put_utf8(&b, "q\"\\\n\xFF");
	CHECK_STR(b.data, "q\"\\\n" FFFD);
	buf_free(&b);
}

static void test_numbers(void)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 0, "0" },
		{ 1, "1" },
		{ 0.25, "0.25" },
		{ 0.07, "0.07" },
		{ 3600.5, "3600.5" },
		{ -2.5, "-2.5" },
		{ 0.000001, "0.000001" },
		{ 1e-7, "1e-07" },
		{ 1e20, "1e+20" },
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 1.0 / 3, "0.3333333333333333" }, /* 16 digits: 17 would print ...331 */
		{ 2.0 / 3, "0.6666666666666666" },
		{ 123456.789, "123456.789" },
		{ 1779999999.5, "1779999999.5" }, /* a handshake time: the fast path */
		{ 8999999999.000002, "8999999999.000002" },
		{ 9000000000.5, "9000000000.5" },
		{ 1700000000.1234567, "1700000000.1234567" },
		{ NAN, "NaN" },
		{ INFINITY, "+Inf" },
		{ -INFINITY, "-Inf" },
	};
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_reset(&b);
		metrics_put_double(&b, cases[i].v);
		CHECK_STR(b.data, cases[i].want);
		if (isfinite(cases[i].v))
			CHECK(strtod(b.data, NULL) == cases[i].v);
	}
	buf_reset(&b);
	metrics_put_u64(&b, UINT64_MAX);
	CHECK_STR(b.data, "18446744073709551615");
	buf_free(&b);
}

/* ---- /metrics ---- */

#define R0   "router=\"r0\""
#define SITE ",site=\"hq \\\"main\\\"\""

static void test_render_lines(const char *m)
{
	static const char *const want[] = {
		"wgwatch_router_up{" R0 SITE "} 1",
		"wgwatch_router_info{" R0 ",board=\"RB5009UG+S+\",architecture=\"arm64\","
		"version=\"7.22.3\",firmware=\"7.20\"" SITE "} 1",
		"wgwatch_router_uptime_seconds{" R0 SITE "} 3600.5",
		"wgwatch_router_menu_up{" R0 ",menu=\"/system/routerboard\"" SITE "} 1",
		"wgwatch_router_menu_up{" R0 ",menu=\"/system/health\"" SITE "} 0",
		"wgwatch_router_firmware_upgrade_available{" R0 SITE "} 1",
		"wgwatch_cpu_core_load_ratio{" R0 ",core=\"0\"" SITE "} 0.25",
		"wgwatch_cpu_core_load_ratio{" R0 ",core=\"1\"" SITE "} 0.07",
		"wgwatch_cpu_core_irq_ratio{" R0 ",core=\"0\"" SITE "} 0.01",
		"wgwatch_interface_receive_bytes_total{" R0 ",interface=\"wg0\",type=\"wg\"" SITE "} 1001",
		"wgwatch_interface_transmit_drops_total{" R0 ",interface=\"ether\\\"1\",type=\"ether\"" SITE
		"} 18446744073709551006",
		"wgwatch_interface_receive_errors_total{" R0 ",interface=\"wg0\",type=\"wg\"" SITE "} 1007",
		"wgwatch_interface_transmit_errors_total{" R0 ",interface=\"wg0\",type=\"wg\"" SITE "} 1008",
		"wgwatch_interface_transmit_queue_drops_total{" R0
		",interface=\"ether\\\"1\",type=\"ether\"" SITE "} 18446744073709551009",
		"wgwatch_interface_link_downs_total{" R0 ",interface=\"wg0\",type=\"wg\"" SITE "} 1010",
		"wgwatch_interface_running{" R0 ",interface=\"wg0\",type=\"wg\"" SITE "} 1",
		"wgwatch_interface_running{" R0 ",interface=\"ether\\\"1\",type=\"ether\"" SITE "} 0",
		"wgwatch_interface_mtu_bytes{" R0 ",interface=\"wg0\",type=\"wg\"" SITE "} 1420",
		"wgwatch_cpu_frequency_hertz{" R0 SITE "} 1400000000",
		"wgwatch_interface_running{router=\"evil\\\"name\\\\x\\ny\",interface=\"wg\\n1\",type=\"wg\"} 1",
		"wgwatch_wireguard_peer_receive_bytes_total{" R0 ",interface=\"wg0\",peer=\"alice\"" SITE
		"} 10",
		"wgwatch_wireguard_peer_transmit_bytes_total{" R0 ",interface=\"wg0\",peer=\"bob\\\\\"" SITE
		"} 20",
		"wgwatch_wireguard_peer_last_handshake_seconds{" R0 ",interface=\"wg0\",peer=\"alice\"" SITE
		"} 42.5",
		"wgwatch_polls_total{" R0 SITE "} 1",
		"wgwatch_wireguard_peer_last_handshake_timestamp_seconds{" R0
		",interface=\"wg0\",peer=\"alice\"" SITE "} 1699999957.5",
		"wgwatch_wireguard_peer_info{" R0
		",interface=\"wg0\",peer=\"alice\",endpoint=\"198.51.100.7:51209\","
		"allowed_address=\"10.0.0.2/32,10.1.0.0/24\"" SITE "} 1",
		"wgwatch_wireguard_peer_info{" R0 ",interface=\"wg0\",peer=\"bob\\\\\","
		"endpoint=\"[2001:db8::7]:13231\",allowed_address=\"\"" SITE "} 1",
		"wgwatch_wireguard_peer_disabled{" R0 ",interface=\"wg0\",peer=\"alice\"" SITE "} 0",
		"wgwatch_wireguard_peer_disabled{" R0 ",interface=\"wg0\",peer=\"bob\\\\\"" SITE "} 1",
		"wgwatch_health_temperature_celsius{" R0 ",sensor=\"cpu-temperature\"" SITE "} 58",
		"wgwatch_health_temperature_celsius{" R0 ",sensor=\"sfp\\\"temp\\ntemperature\"" SITE "} -5",
		"wgwatch_health_voltage_volts{" R0 ",sensor=\"voltage\"" SITE "} 24.1",
		"wgwatch_health_fan_speed_rpm{" R0 ",sensor=\"fan1-speed\"" SITE "} 6090",
		"wgwatch_health_current_amperes{" R0 ",sensor=\"psu1-current\"" SITE "} 1.5",
		"wgwatch_health_power_watts{" R0 ",sensor=\"power-consumption\"" SITE "} 36.2",
		"wgwatch_health_state_ok{" R0 ",sensor=\"psu2-state\"" SITE "} 0",
		"wgwatch_memory_free_bytes{" R0 SITE "} 3950641152",
		"wgwatch_memory_total_bytes{" R0 SITE "} 4227858432",
		"wgwatch_disk_free_bytes{" R0 SITE "} 0",
		"wgwatch_disk_total_bytes{" R0 SITE "} 135266304",
		"wgwatch_router_up{router=\"evil\\\"name\\\\x\\ny\"} 1",
		"wgwatch_router_info{router=\"evil\\\"name\\\\x\\ny\",board=\"CHR\",architecture=\"\","
		"version=\"7.22\\n<b>\",firmware=\"\"} 1",
		"wgwatch_router_firmware_upgrade_available{router=\"evil\\\"name\\\\x\\ny\"} 0",
		"wgwatch_interface_receive_bytes_total{router=\"evil\\\"name\\\\x\\ny\",interface=\"wg\\n1\",type=\"wg\"} 1",
		"wgwatch_router_up{router=\"bad" FFFD FFFD "<script>alert(1)</script>\"} 0",
		"wgwatch_poll_errors_total{router=\"bad" FFFD FFFD
		"<script>alert(1)</script>\",kind=\"timeout\"} 1",
		"wgwatch_poll_errors_total{router=\"bad" FFFD FFFD
		"<script>alert(1)</script>\",kind=\"connect\"} 1",
		"wgwatch_polls_total{router=\"bad" FFFD FFFD "<script>alert(1)</script>\"} 2",
		"wgwatch_polls_total{router=\"r3\"} 0", /* r3 pending: no wgwatch_router_up */
		"wgwatch_poll_duration_seconds_bucket{le=\"0.005\"} 0",
		"wgwatch_poll_duration_seconds_bucket{le=\"0.25\"} 1",
		"wgwatch_poll_duration_seconds_bucket{le=\"5\"} 2",
		"wgwatch_poll_duration_seconds_bucket{le=\"10\"} 4",
		"wgwatch_poll_duration_seconds_bucket{le=\"+Inf\"} 4",
		"wgwatch_poll_duration_seconds_sum 23.12",
		"wgwatch_poll_duration_seconds_count 4",
		"wgwatch_poll_start_delay_seconds_bucket{le=\"0.001\"} 0",
		"wgwatch_poll_start_delay_seconds_bucket{le=\"0.005\"} 1",
		"wgwatch_poll_start_delay_seconds_bucket{le=\"30\"} 1",
		"wgwatch_poll_start_delay_seconds_bucket{le=\"+Inf\"} 2",
		"wgwatch_poll_start_delay_seconds_sum 45.002",
		"wgwatch_poll_start_delay_seconds_count 2",
		"wgwatch_polls_late_total 1",
		"wgwatch_clock_steps_total 0",
		"wgwatch_store_queue_length 0",
		"# HELP wgwatch_router_up 1 when the newest poll of the router succeeded, else 0; absent until "
		"the first poll since the start has ended (pending).",
		"# TYPE wgwatch_poll_duration_seconds histogram",
		"# TYPE wgwatch_store_failing gauge",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!unit_has_line(m, want[i])) {
			CHECK(!"missing line");
			fprintf(stderr, "  missing: %s\n", want[i]);
		}
}

static void test_render_absent(const char *m)
{
	CHECK(strstr(m, "core=\"1\"" SITE "} NaN") == NULL);
	CHECK(count(m, "wgwatch_cpu_core_irq_ratio{") == 1);
	CHECK(strstr(m, "peer=\"bob\\\\\"" SITE "} 42") == NULL);
	CHECK(count(m, "wgwatch_wireguard_peer_last_handshake_seconds{") == 1);
	CHECK(strstr(m, "router=\"r3\"") != NULL && strstr(m, "wgwatch_router_info{router=\"r3\"") == NULL);
	CHECK(strstr(m, "wgwatch_router_uptime_seconds{router=\"evil") == NULL); /* unknown */
	CHECK(strstr(m, "router=\"clash\"") == NULL && strstr(m, "job=\"clash\"") == NULL);
	CHECK(count(m, "# TYPE wgwatch_router_up ") == 1);
	CHECK(strstr(m, "wgwatch_router_up{router=\"r3\"") == NULL); /* never measured: not a 0 */
	CHECK(count(m, "# HELP ") == 81 && count(m, "# TYPE ") == 81);
	/* SNMP alone (r1) tells no errors, queue drops, link downs, MTU or clock: absent, not 0; nor r0's
	 * unknown MTU. Running and the byte counters it tells. */
	CHECK(count(m, "wgwatch_interface_receive_errors_total{") == 2);
	CHECK(count(m, "wgwatch_interface_transmit_queue_drops_total{") == 2);
	CHECK(count(m, "wgwatch_interface_link_downs_total{") == 2);
	CHECK(count(m, "wgwatch_interface_mtu_bytes{") == 1);
	CHECK(count(m, "wgwatch_cpu_frequency_hertz{") == 1);
	CHECK(count(m, "wgwatch_interface_running{") == 3);
	CHECK(count(m, "wgwatch_router_menu_up{") == 2); /* r0's; none for the others */
	CHECK(count(m, "wgwatch_wireguard_peer_last_handshake_timestamp_seconds{") == 1); /* bob never */
	CHECK(count(m, "wgwatch_memory_free_bytes{") == 1); /* unknown on the CHR: absent */
	CHECK(count(m, "wgwatch_health_temperature_celsius{") == 2);
	CHECK(strstr(m, "\nwgwatch_http_refused_connections_total{reason=\"limit\"} 0\n") != NULL);
	CHECK(strstr(m, "\nwgwatch_http_slow_connections_closed_total{reason=\"reserve\"} 0\n") != NULL);
	CHECK(strstr(m, "\nwgwatch_http_pages_late_total 0\n") != NULL);
	CHECK(strstr(m, "hunter2") == NULL && strstr(m, "c0mmunity") == NULL);
	CHECK(strstr(m, "\xff") == NULL);
	CHECK(m[strlen(m) - 1] == '\n');
}

static void test_render(fleet_t *f)
{
	buf_t b;
	buf_init(&b);
	metrics_render(f, NULL, NULL, NULL, &b);
	test_render_lines(b.data);
	test_render_absent(b.data);
	int rc = promtool_check(b.data, b.len, false);
	if (rc == -2) {
		printf("metrics_test: %s missing, promtool check skipped\n", PROMTOOL);
	} else {
		CHECK_INT(rc, 0);
		static const char broken[] = "x{a=\"\n\"} 1\n"; /* proves the check can fail */
		CHECK(promtool_check(broken, sizeof(broken) - 1, true) != 0);
	}
	if (getenv("METRICS_TEST_DUMP"))
		fputs(b.data, stdout);
	buf_free(&b);
}

/* ---- /api/v1/routers ---- */

/* An integer's value, 0 for anything else (as jansson's json_integer_value). */
static int64_t mt_int(const jsonr_node_t *n)
{
	int64_t v = 0;
	jsonr_int(n, &v);
	return v;
}

/* A number's value, 0 for anything else. */
static double mt_real(const jsonr_node_t *n)
{
	double v = 0;
	jsonr_num(n, &v);
	return v;
}

/* Whether n is the boolean want. */
static bool mt_is(const jsonr_node_t *n, bool want)
{
	bool v;
	return jsonr_bool(n, &v) && v == want;
}

static void test_api_r0(const jsonr_node_t *o)
{
	CHECK_STR(jsonr_str(jsonr_get(o, "name")), "r0");
	CHECK(mt_is(jsonr_get(o, "up"), true));
	CHECK_STR(jsonr_str(jsonr_get(o, "state")), "up");
	CHECK_STR(jsonr_str(jsonr_get(o, "version")), "7.22.3");
	CHECK_STR(jsonr_str(jsonr_get(o, "firmware")), "7.20");
	CHECK_STR(jsonr_str(jsonr_get(o, "board")), "RB5009UG+S+");
	CHECK_STR(jsonr_str(jsonr_get(o, "architecture")), "arm64");
	CHECK_INT(mt_int(jsonr_get(o, "cores")), 2);
	CHECK_STR(jsonr_str(jsonr_get(o, "last_poll")), "2023-11-14T22:13:20Z");
	CHECK(jsonr_is_null(jsonr_get(o, "last_error")));
	const jsonr_node_t *labels = jsonr_get(o, "labels");
	CHECK_STR(jsonr_str(jsonr_get(labels, "site")), "hq \"main\"");
	const jsonr_node_t *h = jsonr_get(o, "health"), *sensors = jsonr_get(h, "sensors");
	CHECK_INT(jsonr_size(sensors), 7);
	const jsonr_node_t *v = jsonr_at(sensors, 1);
	CHECK_STR(jsonr_str(jsonr_get(v, "name")), "voltage");
	CHECK_STR(jsonr_str(jsonr_get(v, "unit")), "volts");
	CHECK(mt_real(jsonr_get(v, "value")) == 24.1);
	CHECK(mt_int(jsonr_get(h, "memory_free_bytes")) == 3950641152);
	CHECK(mt_int(jsonr_get(h, "disk_free_bytes")) == 0);
	CHECK(mt_int(jsonr_get(h, "disk_total_bytes")) == 135266304);
	const jsonr_node_t *menus = jsonr_get(o, "menus"), *m0 = jsonr_at(menus, 0), *m1 = jsonr_at(menus, 1);
	CHECK_INT(jsonr_size(menus), 2);
	CHECK_STR(jsonr_str(jsonr_get(m0, "menu")), "/system/routerboard");
	CHECK(mt_is(jsonr_get(m0, "up"), true) && jsonr_is_null(jsonr_get(m0, "error")) &&
		jsonr_is_null(jsonr_get(m0, "failing_since")));
	CHECK_STR(jsonr_str(jsonr_get(m1, "menu")), "/system/health");
	CHECK(mt_is(jsonr_get(m1, "up"), false));
	CHECK_STR(jsonr_str(jsonr_get(m1, "error")), "HTTP 500 Internal Server Error");
	CHECK_STR(jsonr_str(jsonr_get(m1, "failing_since")), "2023-11-14T21:56:40Z");
	CHECK_INT(jsonr_size(o), 13);
}

static void test_api_others(const jsonr_node_t *arr)
{
	const jsonr_node_t *evil = jsonr_at(arr, 1), *bad = jsonr_at(arr, 2), *never = jsonr_at(arr, 3);
	CHECK_STR(jsonr_str(jsonr_get(evil, "name")), EVIL_NAME);
	CHECK(jsonr_is_null(jsonr_get(evil, "firmware")));
	CHECK_STR(jsonr_str(jsonr_get(bad, "name")), "bad" FFFD FFFD "<script>alert(1)</script>");
	CHECK(mt_is(jsonr_get(bad, "up"), false));
	CHECK_STR(jsonr_str(jsonr_get(bad, "state")), "down");
	CHECK(jsonr_is_null(jsonr_get(bad, "version")));
	CHECK_INT(mt_int(jsonr_get(bad, "cores")), 0);
	CHECK_STR(jsonr_str(jsonr_get(bad, "last_poll")), "2023-11-14T22:13:21Z");
	CHECK_STR(jsonr_str(jsonr_get(bad, "last_error")), "failed " FFFD "1");
	CHECK(mt_is(jsonr_get(never, "up"), false));
	CHECK_STR(jsonr_str(jsonr_get(never, "state")), "pending");
	CHECK(jsonr_is_null(jsonr_get(never, "last_poll")));
	CHECK(jsonr_is_null(jsonr_get(never, "health")));
	CHECK(jsonr_is_null(jsonr_get(jsonr_get(evil, "health"), "memory_free_bytes")));
	CHECK(jsonr_is_object(jsonr_get(never, "labels")));
}

static void test_api(fleet_t *f)
{
	buf_t b;
	buf_init(&b);
	api_routers(f, &b);
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *arr = jsonr_parse(d, b.data, b.len);
	CHECK(jsonr_is_array(arr));
	CHECK_INT(jsonr_size(arr), 4);
	if (jsonr_size(arr) == 4) {
		test_api_r0(jsonr_at(arr, 0));
		test_api_others(arr);
	}
	CHECK(strstr(b.data, "hunter2") == NULL && strstr(b.data, "c0mmunity") == NULL);
	CHECK(strstr(b.data, "c2VjcmV0") == NULL);
	jsonr_destroy(d);
	buf_free(&b);
}

/* ---- http ---- */

static void test_listen_parse(void)
{
	static const char *const bad[] = {
		"127.0.0.1",
		"127.0.0.1:",
		"127.0.0.1:65536",
		"127.0.0.1:-1",
		"127.0.0.1: 80",
		"127.0.0.1:80x",
		"127.0.0.1:123456",
		"localhost:80",
		"::1:80",
		"[::1]80",
		"[::1]:",
		"[::1",
		"[]:80",
		":80",
		"1.2.3:80",
		"1.2.3.4.5:80",
		"[127.0.0.1]:80",
		"",
	};
	struct sockaddr_storage ss;
	socklen_t len;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = listen_parse(bad[i], &ss, &len);
		CHECK_INT(rc, -1);
		if (rc != -1)
			fprintf(stderr, "  accepted: \"%s\"\n", bad[i]);
	}
	CHECK_INT(listen_parse("[::1]:9477", &ss, &len), 0);
	CHECK_INT(ss.ss_family, AF_INET6);
	CHECK_INT(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 9477);
	CHECK_INT(listen_parse("0.0.0.0:0", &ss, &len), 0);
	CHECK_INT(ss.ss_family, AF_INET);
	char *cause = NULL;
	http_t *h = NULL;
	struct http_deps deps = { 0 };
	CHECK_INT(http_start("localhost:9477", &deps, &h, &cause), -1);
	CHECK(cause != NULL && strstr(cause, "localhost:9477") != NULL);
	free(cause);
}

static void test_health(void)
{
	buf_t b;
	buf_init(&b);
	CHECK_INT(httproute_health_text(&b, 900, 2999, 3000), 200);
	CHECK_STR(b.data, "ok\n");
	buf_reset(&b);
	CHECK_INT(httproute_health_text(&b, 3001, 0, 3000), 503);
	CHECK(strstr(b.data, "event loop") != NULL && strstr(b.data, "store") == NULL);
	buf_reset(&b);
	CHECK_INT(httproute_health_text(&b, 0, 60000, 3000), 503);
	CHECK(strstr(b.data, "store writer silent for 60000 ms") != NULL);
	buf_free(&b);
	conf_t *c = test_conf(2);
	CHECK_INT(http_stale_ms(c), 3000);
	c->routers[1].interval_ms = 30000;
	CHECK_INT(http_stale_ms(c), 90000);
	conf_free(c);
}

struct reply {
	long status;
	buf_t body, headers;
};

static size_t reply_body(char *p, size_t size, size_t n, void *arg)
{
	buf_append(&((struct reply *)arg)->body, p, size * n);
	return size * n;
}

static size_t reply_header(char *p, size_t size, size_t n, void *arg)
{
	buf_append(&((struct reply *)arg)->headers, p, size * n);
	return size * n;
}

static void fetch(unsigned port, const char *method, const char *path, struct reply *r)
{
	char url[128];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", port, path);
	buf_init(&r->body);
	buf_init(&r->headers);
	r->status = 0;
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, reply_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, reply_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (strcmp(method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(method, "GET") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	CHECK_INT(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_cleanup(c);
	buf_append(&r->body, "", 0);
	buf_append(&r->headers, "", 0);
}

static void reply_free(struct reply *r)
{
	buf_free(&r->body);
	buf_free(&r->headers);
}

static bool has_header(const struct reply *r, const char *line)
{
	char want[256];
	snprintf(want, sizeof(want), "\r\n%s\r\n", line);
	return strcasestr(r->headers.data, want) != NULL;
}

static void check_security(const struct reply *r)
{
	CHECK(has_header(r, "X-Content-Type-Options: nosniff"));
	CHECK(has_header(
		r, "Content-Security-Policy: default-src 'none'; style-src 'self'; frame-ancestors 'none'"));
	CHECK(has_header(r, "Cache-Control: no-store"));
}

static void test_http_routes(unsigned port)
{
	struct reply r;
	fetch(port, "GET", "/metrics", &r);
	CHECK_INT(r.status, 200);
	CHECK(has_header(&r, "Content-Type: text/plain; version=0.0.4; charset=utf-8"));
	CHECK(unit_has_line(r.body.data, "wgwatch_router_up{" R0 SITE "} 1"));
	check_security(&r);
	reply_free(&r);
	fetch(port, "GET", "/", &r);
	CHECK_INT(r.status, 200);
	CHECK(has_header(&r, "Content-Type: text/html; charset=utf-8"));
	CHECK(strstr(r.body.data, "<table id=\"fleet\">") != NULL);
	check_security(&r);
	reply_free(&r);
	fetch(port, "GET", "/static/wgwatch.css", &r);
	CHECK_INT(r.status, 200);
	CHECK(has_header(&r, "Content-Type: text/css; charset=utf-8"));
	reply_free(&r);
	fetch(port, "GET", "/api/v1/routers", &r);
	CHECK_INT(r.status, 200);
	CHECK(has_header(&r, "Content-Type: application/json"));
	CHECK(strncmp(r.body.data, "[{\"name\":", 9) == 0);
	check_security(&r);
	reply_free(&r);
	fetch(port, "GET", "/healthz", &r);
	CHECK_INT(r.status, 200);
	CHECK_STR(r.body.data, "ok\n");
	reply_free(&r);
	fetch(port, "HEAD", "/healthz", &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(r.body.len, 0);
	reply_free(&r);
}

static void test_http_errors(unsigned port)
{
	struct reply r;
	fetch(port, "GET", "/nope", &r);
	CHECK_INT(r.status, 404);
	check_security(&r);
	reply_free(&r);
	fetch(port, "GET", "/metrics/", &r);
	CHECK_INT(r.status, 404);
	reply_free(&r);
	fetch(port, "POST", "/metrics", &r);
	CHECK_INT(r.status, 405);
	CHECK(has_header(&r, "Allow: GET, HEAD"));
	check_security(&r);
	reply_free(&r);
	fetch(port, "DELETE", "/api/v1/routers", &r);
	CHECK_INT(r.status, 405);
	reply_free(&r);
}

static void test_http(conf_t *c, fleet_t *f, store_t *st)
{
	loop_t *loop = loop_create();
	struct http_deps deps = { .conf = c, .fleet = f, .store = st, .loop = loop };
	http_t *h = NULL, *h2 = NULL;
	char *cause = NULL;
	CHECK_INT(http_start("127.0.0.1:0", &deps, &h, &cause), 0);
	if (h == NULL) {
		fprintf(stderr, "http_start: %s\n", cause);
		free(cause);
		loop_destroy(loop);
		return;
	}
	unsigned port = http_port(h);
	CHECK(port != 0);
	char listen_again[32];
	snprintf(listen_again, sizeof(listen_again), "127.0.0.1:%u", port);
	CHECK_INT(http_start(listen_again, &deps, &h2, &cause), -1);
	CHECK(cause != NULL && strstr(cause, "in use") != NULL);
	free(cause);
	test_http_routes(port);
	test_http_errors(port);
	http_stop(h);
	if (http_start("[::1]:0", &deps, &h, &cause) == 0) { /* hosts without IPv6 skip this */
		CHECK(http_port(h) != 0);
		http_stop(h);
	} else {
		printf("metrics_test: no IPv6 listener (%s)\n", cause);
		free(cause);
	}
	loop_destroy(loop);
}

/* ---- with a real store on a temp file ---- */

/* A store on a new file of the run's temp directory (unitfs), or NULL. */
static store_t *test_store_open(conf_t *c)
{
	char *dir = unitfs_dir();
	char *path = xasprintf("%s/wgwatch.db", dir);
	store_t *st = NULL;
	char *cause = NULL;
	CHECK_INT(store_open(path, c, &st, &cause), 0);
	if (cause)
		fprintf(stderr, "store_open: %s\n", cause);
	free(cause);
	free(path);
	free(dir);
	return st;
}

static void test_store_metrics(fleet_t *f, store_t *st)
{
	store_submit(st, sample_r0());
	store_flush(st);
	buf_t b;
	buf_init(&b);
	metrics_render(f, st, NULL, NULL, &b);
	static const char key[] = "\nwgwatch_store_samples_total ";
	const char *p = strstr(b.data, key);
	CHECK(p != NULL && strtoull(p + sizeof(key) - 1, NULL, 10) > 0);
	CHECK(unit_has_line(b.data, "wgwatch_store_write_errors_total 0"));
	CHECK(unit_has_line(b.data, "wgwatch_store_queue_length 0"));
	CHECK(unit_has_line(b.data, "wgwatch_store_failing 0"));
	static const char mem[] = "\nwgwatch_store_sqlite_memory_bytes "; /* the open store's cache */
	p = strstr(b.data, mem);
	CHECK(p != NULL && strtoull(p + sizeof(mem) - 1, NULL, 10) > 0);
	buf_free(&b);
}

/* ---- speed: 1,000 routers × 9 cores, 4 interfaces, 20 peers ---- */

static sample_t *big_sample(const char *name)
{
	sample_t *s = sample_new(name, 1700000000000, "rest");
	s->board = xstrdup("CCR2116-12G-4S+");
	s->architecture = xstrdup("arm64");
	s->version = xstrdup("7.22.3");
	s->firmware = xstrdup("7.22.3");
	s->upgrade_firmware = xstrdup("7.22.3");
	s->uptime_ms = 86400123;
	sample_set_cores(s, 9);
	for (size_t k = 0; k < 9; k++)
		s->cores[k].load = (double)k / 100, s->cores[k].irq = (double)k / 200;
	char tmp[32];
	for (int k = 0; k < 4; k++) {
		snprintf(tmp, sizeof(tmp), "wg%d", k);
		add_iface(s, tmp, "wg", (uint64_t)k * 123456789);
	}
	s->have_peers = true;
	for (int k = 0; k < 20; k++) {
		snprintf(tmp, sizeof(tmp), "peer-%d", k);
		add_peer(s, "wg0", tmp, k * 1500);
	}
	return s;
}

static void test_speed(void)
{
	conf_t *c = test_conf(1000);
	for (size_t i = 0; i < c->nrouters; i++)
		unitconf_label(&c->routers[i], "site", i % 2 ? "east" : "west");
	fleet_t *f = fleet_create(c);
	for (size_t i = 0; i < c->nrouters; i++) {
		sample_t *s = big_sample(c->routers[i].name);
		fleet_update(f, s);
		sample_free(s);
	}
	buf_t b;
	buf_init(&b);
	double best = 1e9;
	for (int run = 0; run < 5; run++) {
		struct timespec t0, t1;
		buf_free(&b); /* a fresh buffer, as each HTTP request has */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		metrics_render(f, NULL, NULL, NULL, &b);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		best = ms < best ? ms : best;
	}
	int lines = count(b.data, "\n");
	printf("metrics_test: 1000 routers rendered in %.1f ms (best of 5), %d lines, %zu bytes\n", best,
		lines, b.len);
	CHECK(lines > 1000 * (2 + 9 * 2 + 4 * 6 + 20 * 3));
	buf_free(&b);
	fleet_destroy(f);
	conf_free(c);
}

/* While a router is down its sample families go (stale, not a flat line) and the pages grey its
 * last values with their age; up, info and the poll counters stay. */
static void test_down(void)
{
	conf_t *c = test_conf(1);
	fleet_t *f = fleet_create(c);
	sample_t *s = sample_r0();
	fleet_update(f, s);
	sample_free(s);
	buf_t b;
	buf_init(&b);
	metrics_render(f, NULL, NULL, NULL, &b);
	CHECK(unit_has_line(b.data, "wgwatch_cpu_core_load_ratio{router=\"r0\",core=\"0\"} 0.25"));
	CHECK(strstr(b.data, "wgwatch_interface_receive_bytes_total{router=\"r0\"") != NULL);
	s = sample_new("r0", 1700000300000, "rest");
	sample_fail(s, SAMPLE_ERR_CONNECT, "refused");
	fleet_update(f, s);
	sample_free(s);
	buf_reset(&b);
	metrics_render(f, NULL, NULL, NULL, &b);
	CHECK(unit_has_line(b.data, "wgwatch_router_up{router=\"r0\"} 0"));
	CHECK(strstr(b.data, "wgwatch_router_info{router=\"r0\",board=\"RB5009UG+S+\"") != NULL);
	CHECK(unit_has_line(b.data, "wgwatch_polls_total{router=\"r0\"} 2"));
	static const char *const gone[] = { "wgwatch_cpu_core_load_ratio{", "wgwatch_cpu_core_irq_ratio{",
		"wgwatch_interface_", "wgwatch_wireguard_peer_", "wgwatch_router_uptime_seconds{",
		"wgwatch_health_", "wgwatch_memory_", "wgwatch_disk_" };
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		CHECK(!test_has_series(b.data, gone[i]));
	buf_reset(&b);
	page_fleet_render(&(struct page_fleet_req){ .fleet = f, .now_ms = 1700000300000 }, &b);
	CHECK(strstr(b.data, "last seen 5&nbsp;min ago") != NULL);
	CHECK(strstr(b.data, "<td class=\"n cores stale\">") != NULL);
	CHECK(strstr(b.data, "<a href=\"/?show=down\">1 down</a>") != NULL);
	buf_free(&b);
	fleet_destroy(f);
	conf_free(c);
}

/* The fleet page: hostile router text arrives escaped, down routers first, CSS not inline. */
static void test_page(fleet_t *f)
{
	buf_t b;
	buf_init(&b);
	page_fleet(f, &b);
	const char *h = b.data;
	CHECK(strstr(h, "<script>") == NULL);
	CHECK(strstr(h, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
	CHECK(strstr(h, "evil&quot;name\\x\ny") != NULL);
	CHECK(strstr(h, "bad" FFFD FFFD "&lt;script&gt;") != NULL);
	CHECK(strstr(h, "7.22\n&lt;b&gt;") != NULL);
	CHECK(strstr(h, "site=hq &quot;main&quot;") != NULL);
	CHECK(strstr(h, "hunter2") == NULL && strstr(h, "c0mmunity") == NULL);
	CHECK(strstr(h, "style=") == NULL && strstr(h, "<style") == NULL); /* CSP: no inline style */
	/* down routers first: r2 (failed) before r0; r3 (never polled) is pending, not down */
	const char *down = strstr(h, "bad" FFFD), *never = strstr(h, "<td>r3</td>");
	const char *r0 = strstr(h, "<td>r0<br>");
	CHECK(down && never && r0 && down < r0 && down < never);
	CHECK(strstr(h,
		      "<span class=\"pending\">pending</span> <span class=\"note\">not polled yet</span>") !=
		NULL);
	CHECK(strstr(h, "connect: failed " FFFD "1") != NULL);
	CHECK(strstr(h, "25% core 0, others 7%") != NULL ||
		strstr(h, ">25%</span> core 0, others 7%") != NULL);
	buf_reset(&b);
	text_put_html(&b, "a&b<c>'\"");
	CHECK_STR(b.data, "a&amp;b&lt;c&gt;&#39;&quot;");
	buf_free(&b);
}

int main(void)
{
	if (unitfs_root("metrics_test") == NULL)
		return 1;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_escape();
	test_numbers();
	conf_t *c = test_conf(4);
	fleet_t *f = test_fleet(c);
	test_render(f);
	test_api(f);
	test_page(f);
	test_down();
	test_listen_parse();
	test_health();
	store_t *st = test_store_open(c);
	if (st) {
		test_store_metrics(f, st);
		test_http(c, f, st);
		store_close(st);
	}
	fleet_destroy(f);
	conf_free(c);
	test_speed();
	curl_global_cleanup();
	return unitfs_end(unit_done("metrics_test"));
}
