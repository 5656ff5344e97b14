/* SPDX-License-Identifier: Apache-2.0 */
/* restdecode_test: the REST collector's decoders against canned RouterOS replies, good and
 * every bad form, and what they hand curl: the kept health, the WAN and route decoders, the
 * optional menus, request bodies, URLs and headers. No network: the transport is rest_test's. */
#include "config.h"
#include "collectors/healthkeep.h"
#include "collectors/restdecode.h"
#include "collectors/resthdr.h"
#include "collectors/restopt.h"
#include "collectors/restreq.h"
#include "collectors/restupdate.h"
#include "collectors/restwan.h"
#include "daemon/sample.h"
#include "lib/buf.h"
#include "lib/jsonr.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "restfix.h"
#include "unit.h"
#include "unitfs.h"

/* Decodes body as step into a fresh sample; checks rc and, on failure, a piece of the cause. */
static sample_t *dec(enum restdecode_step step, const char *body, int want, const char *cause_part)
{
	sample_t *s = sample_new("r1", 0, "rest");
	char *cause = NULL;
	int rc = restdecode_reply(step, body, strlen(body), s, &cause);
	if (rc != want)
		fprintf(stderr, "decode step %d of %s: rc %d (%s)\n", step, body, rc, cause ? cause : "");
	CHECK_INT(rc, want);
	if (want < 0 && cause_part != NULL) {
		CHECK(cause != NULL && strstr(cause, cause_part) != NULL);
		if (cause == NULL || strstr(cause, cause_part) == NULL)
			fprintf(stderr, "  cause \"%s\", want \"%s\"\n", cause ? cause : "", cause_part);
	}
	free(cause);
	return s;
}

static void dec_bad(enum restdecode_step step, const char *body, const char *cause_part)
{
	sample_free(dec(step, body, -1, cause_part));
}

static void test_resource(void)
{
	sample_t *s = dec(RESTDECODE_RESOURCE, RESOURCE, 0, NULL);
	CHECK_STR(s->version, "7.19.2");
	CHECK_STR(s->channel, "stable");
	CHECK_STR(s->board, "CCR2004-16G-2S+");
	CHECK_STR(s->architecture, "arm64");
	CHECK_STR(s->cpu_model, "ARM64");
	CHECK_INT(s->cpu_freq_mhz, 1700);
	CHECK_INT(s->uptime_ms, ((7 + 4) * 86400 + 23 * 3600 + 26 * 60 + 9) * INT64_C(1000));
	sample_free(s);
	/* The 7.1beta-era one-element array; no channel; optional keys absent. */
	s = dec(RESTDECODE_RESOURCE, "[{\"board-name\":\"CHR\",\"uptime\":\"12s\",\"version\":\"7.8\"}]", 0,
		NULL);
	CHECK_STR(s->version, "7.8");
	CHECK(s->channel == NULL && s->architecture == NULL && s->cpu_model == NULL);
	CHECK_INT(s->cpu_freq_mhz, 0); /* absent on some boards: unknown */
	CHECK_INT(s->uptime_ms, 12000);
	sample_free(s);
	/* A board name of 10 KB: cut to what a label and a log line take (issue 39, item 8). */
	buf_t big;
	buf_init(&big);
	buf_puts(&big, "{\"board-name\":\"");
	for (int i = 0; i < 10000; i++)
		buf_putc(&big, 'B');
	buf_puts(&big, "\",\"uptime\":\"1s\",\"version\":\"7.8\",\"architecture-name\":\"\xc3\xa9");
	for (int i = 0; i < 200; i++)
		buf_puts(&big, "\xc3\xa9");
	buf_puts(&big, "\"}");
	buf_putc(&big, '\0');
	s = dec(RESTDECODE_RESOURCE, big.data, 0, NULL);
	CHECK_INT(strlen(s->board), TEXT_IDENTITY_MAX);
	CHECK_INT(strlen(s->architecture), TEXT_IDENTITY_MAX); /* 64 whole characters of two bytes */
	sample_free(s);
	buf_free(&big);

	dec_bad(RESTDECODE_RESOURCE,
		"{\"board-name\":\"a\",\"uptime\":\"1s\",\"version\":\"7.8\",\"cpu-frequency\":\"1.2GHz\"}",
		"\"cpu-frequency\": \"1.2GHz\"");
	dec_bad(RESTDECODE_RESOURCE,
		"{\"board-name\":\"a\",\"uptime\":\"1s\",\"version\":\"7.8\",\"cpu-frequency\":\"9999999999\"}",
		"not a CPU frequency");
	dec_bad(RESTDECODE_RESOURCE, "[]", "expected one object");
	dec_bad(RESTDECODE_RESOURCE, "[{\"board-name\":\"a\",\"uptime\":\"1s\",\"version\":\"7.8\"},{}]",
		"expected one object");
	dec_bad(RESTDECODE_RESOURCE, "\"x\"", "expected one object");
	dec_bad(RESTDECODE_RESOURCE, "{\"uptime\":\"1s\",\"version\":\"7.8\"}", "missing \"board-name\"");
	dec_bad(RESTDECODE_RESOURCE, "{\"board-name\":\"a\",\"version\":\"7.8\"}", "missing \"uptime\"");
	dec_bad(RESTDECODE_RESOURCE, "{\"board-name\":\"a\",\"uptime\":\"1s\"}", "missing \"version\"");
	dec_bad(RESTDECODE_RESOURCE, "{\"board-name\":\"a\",\"uptime\":\"1x\",\"version\":\"7.8\"}",
		"\"uptime\": \"1x\"");
	dec_bad(RESTDECODE_RESOURCE, "{\"board-name\":\"a\",\"uptime\":\"1s\",\"version\":\"seven\"}",
		"\"version\"");
	dec_bad(RESTDECODE_RESOURCE,
		"{\"board-name\":\"a\",\"uptime\":\"1s\",\"version\":\"7.8\","
		"\"cpu-count\":4}",
		"value of \"cpu-count\" is not a string");
	dec_bad(RESTDECODE_RESOURCE, "{\"board-name\":null,\"uptime\":\"1s\",\"version\":\"7.8\"}",
		"not a string");
	dec_bad(RESTDECODE_RESOURCE, "{\"board-name\":\"a\\u0000b\",\"uptime\":\"1s\",\"version\":\"7.8\"}",
		"not JSON");
	dec_bad(RESTDECODE_RESOURCE,
		"{\"board-name\":\"a\",\"board-name\":\"b\",\"uptime\":\"1s\","
		"\"version\":\"7.8\"}",
		"not JSON");
	dec_bad(RESTDECODE_RESOURCE, "<html><body>Login</body></html>", "HTML");
	dec_bad(RESTDECODE_RESOURCE, "  \n<!DOCTYPE html>", "HTML");
	dec_bad(RESTDECODE_RESOURCE, "", "empty reply");
	dec_bad(RESTDECODE_RESOURCE, "{\"board-name\":\"a\"", "not JSON");
	dec_bad(RESTDECODE_RESOURCE, "{} trailing", "not JSON");
}

static void test_cpu(void)
{
	sample_t *s = dec(RESTDECODE_CPU, CPU, 0, NULL);
	CHECK_INT(s->ncores, 4);
	if (s->ncores == 4) {
		CHECK_NEAR(s->cores[0].load, 0.03, 1e-9);
		CHECK_NEAR(s->cores[0].irq, 0.01, 1e-9);
		CHECK_NEAR(s->cores[1].load, 0.125, 1e-9);
		CHECK(isnan(s->cores[1].irq));
		CHECK_NEAR(s->cores[2].load, 0.0, 1e-9);
		CHECK_NEAR(s->cores[3].load, 1.0, 1e-9); /* cpu10 after cpu2: numeric order */
		CHECK_NEAR(s->cores[3].irq, 0.02, 1e-9);
	}
	sample_free(s);
	/* No cpuN names: ordered by .id (hex). */
	s = dec(RESTDECODE_CPU,
		"[{\".id\":\"*B\",\"cpu\":\"x\",\"load\":\"11\"},"
		"{\".id\":\"*2\",\"cpu\":\"y\",\"load\":\"2\"}]",
		0, NULL);
	CHECK_INT(s->ncores, 2);
	if (s->ncores == 2) {
		CHECK_NEAR(s->cores[0].load, 0.02, 1e-9);
		CHECK_NEAR(s->cores[1].load, 0.11, 1e-9);
	}
	sample_free(s);

	dec_bad(RESTDECODE_CPU, "[]", "no CPU rows");
	dec_bad(RESTDECODE_CPU, "{\"cpu\":\"cpu0\",\"load\":\"1\"}", "expected a list");
	dec_bad(RESTDECODE_CPU, "[{\"cpu\":\"cpu0\"}]", "missing \"load\"");
	dec_bad(RESTDECODE_CPU, "[{\"load\":\"1\"}]", "missing \"cpu\"");
	dec_bad(RESTDECODE_CPU, "[{\"cpu\":\"cpu0\",\"load\":\"abc\"}]", "\"load\": \"abc\"");
	dec_bad(RESTDECODE_CPU, "[{\"cpu\":\"cpu0\",\"load\":\"101\"}]", "\"load\"");
	dec_bad(RESTDECODE_CPU, "[{\"cpu\":\"cpu0\",\"load\":\"1\",\"irq\":\"-1\"}]", "\"irq\"");
	dec_bad(RESTDECODE_CPU, "[{\"cpu\":\"cpu0\",\"load\":3}]", "not a string");
	dec_bad(RESTDECODE_CPU, "[\"cpu0\"]", "not a JSON object");
}

static void test_board(void)
{
	sample_t *s = dec(RESTDECODE_BOARD, BOARD, 0, NULL);
	CHECK_STR(s->firmware, "7.19.2");
	CHECK_STR(s->upgrade_firmware, "7.19.4");
	sample_free(s);
	s = dec(RESTDECODE_BOARD, "{\"routerboard\":\"false\"}", 0, NULL); /* CHR */
	CHECK(s->firmware == NULL && s->upgrade_firmware == NULL);
	sample_free(s);
	s = dec(RESTDECODE_BOARD, "[{\"routerboard\":\"false\"}]", 0, NULL);
	sample_free(s);
	dec_bad(RESTDECODE_BOARD, "{\"routerboard\":\"maybe\"}", "\"routerboard\"");
	dec_bad(RESTDECODE_BOARD, "{\"routerboard\":false}", "not a string");
	dec_bad(RESTDECODE_BOARD, "[]", "expected one object");
}

static void test_ifaces(void)
{
	sample_t *s = dec(RESTDECODE_IFACES, IFACES, 0, NULL);
	CHECK_INT(s->nifaces, 1);
	if (s->nifaces == 1) {
		struct sample_iface *f = &s->ifaces[0];
		CHECK_STR(f->name, "wg0");
		CHECK_STR(f->type, "wg");
		CHECK(f->running);
		CHECK(f->rx_bytes == 47538416 && f->tx_bytes == UINT64_C(70563654783));
		CHECK(f->rx_packets == 404315 && f->tx_packets == 5243956);
		CHECK(f->rx_drops == 1 && f->tx_drops == 2);
	}
	sample_free(s);
	s = dec(RESTDECODE_IFACES, "[{\"name\":\"wg9\",\"rx-byte\":\"0\",\"tx-byte\":\"0\"}]", 0, NULL);
	CHECK(s->nifaces == 1 && strcmp(s->ifaces[0].type, "") == 0 && !s->ifaces[0].running);
	sample_free(s);
	s = dec(RESTDECODE_IFACES, "[]", 0, NULL);
	CHECK_INT(s->nifaces, 0);
	sample_free(s);
	/* The confounders' fields (routeros.md §2): actual-mtu wins over mtu; absent ones stay 0. */
	s = dec(RESTDECODE_IFACES,
		"[{\"name\":\"ether1\",\"rx-byte\":\"0\",\"tx-byte\":\"0\",\"mtu\":\"1500\","
		"\"actual-mtu\":\"1480\",\"tx-queue-drop\":\"12345678901\",\"rx-error\":\"3\","
		"\"tx-error\":\"12\",\"link-downs\":\"4\"},{\"name\":\"wg0\",\"rx-byte\":\"0\",\"tx-byte\":\"0\",\"mtu\":\"1420\"},"
		"{\"name\":\"lo\",\"rx-byte\":\"0\",\"tx-byte\":\"0\",\"mtu\":\"auto\"}]",
		0, NULL);
	CHECK_INT(s->nifaces, 3);
	if (s->nifaces == 3) {
		CHECK_INT(s->ifaces[0].mtu, 1480);
		CHECK(s->ifaces[0].tx_queue_drops == UINT64_C(12345678901));
		CHECK(s->ifaces[0].rx_errors == 3 && s->ifaces[0].tx_errors == 12);
		CHECK(s->ifaces[0].link_downs == 4 && s->ifaces[1].link_downs == 0);
		CHECK_INT(s->ifaces[1].mtu, 1420);
		CHECK(s->ifaces[1].tx_queue_drops == 0 && s->ifaces[1].tx_errors == 0);
		CHECK_INT(s->ifaces[2].mtu, 0);
	}
	sample_free(s);
	dec_bad(RESTDECODE_IFACES, "[{\"name\":\"a\",\"rx-byte\":\"0\",\"tx-byte\":\"0\",\"mtu\":\"70000\"}]",
		"\"mtu\": \"70000\": not an MTU");
	dec_bad(RESTDECODE_IFACES,
		"[{\"name\":\"a\",\"rx-byte\":\"0\",\"tx-byte\":\"0\",\"tx-queue-drop\":\"-1\"}]",
		"\"tx-queue-drop\"");

	dec_bad(RESTDECODE_IFACES, "{}", "expected a list");
	dec_bad(RESTDECODE_IFACES, "[{\"rx-byte\":\"0\",\"tx-byte\":\"0\"}]", "missing \"name\"");
	dec_bad(RESTDECODE_IFACES, "[{\"name\":\"a\",\"tx-byte\":\"0\"}]", "missing \"rx-byte\"");
	dec_bad(RESTDECODE_IFACES, "[{\"name\":\"a\",\"rx-byte\":\"0\"}]", "missing \"tx-byte\"");
	dec_bad(RESTDECODE_IFACES, "[{\"name\":\"a\",\"rx-byte\":\"-1\",\"tx-byte\":\"0\"}]", "\"rx-byte\"");
	dec_bad(RESTDECODE_IFACES,
		"[{\"name\":\"a\",\"rx-byte\":\"0\",\"tx-byte\":\"99999999999999999999\"}]", "too large");
	dec_bad(RESTDECODE_IFACES, "[{\"name\":\"a\",\"rx-byte\":\"0\",\"tx-byte\":\"0\",\"rx-drop\":\"x\"}]",
		"\"rx-drop\"");
	dec_bad(RESTDECODE_IFACES,
		"[{\"name\":\"a\",\"rx-byte\":\"0\",\"tx-byte\":\"0\",\"running\":\"on\"}]", "\"running\"");
	dec_bad(RESTDECODE_IFACES, "[{\"name\":\"a\",\"rx-byte\":0,\"tx-byte\":\"0\"}]", "not a string");
	/* Control bytes in an untrusted key are not echoed into the error. */
	s = dec(RESTDECODE_IFACES, "[{\"name\":\"a\",\"rx-byte\":\"0\",\"tx-byte\":\"0\",\"k\\u001b[2J\":1}]",
		-1, "\"k?[2J\"");
	sample_free(s);
}

/* Decoded strings live in the sample's blocks: moved interfaces are copied out of them, plain
 * malloc'd strings beside them are freed, a string over a block gets its own (ASan checks). */
static void test_sample_pool(void)
{
	sample_t *s = dec(RESTDECODE_IFACES, IFACES, 0, NULL), *into = sample_new("r1", 0, "snmp");
	sample_take_ifaces(into, s);
	sample_free(s);
	CHECK_INT(into->nifaces, 1);
	if (into->nifaces == 1)
		CHECK(strcmp(into->ifaces[0].name, "wg0") == 0 && strcmp(into->ifaces[0].type, "wg") == 0);
	char big[5000];
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (int i = 0; i < 200; i++) {
		struct sample_peer *p = sample_add_peer(into);
		p->interface = sample_strdup(into, "wg0");
		p->public_key = i % 50 == 0 ? sample_strdup(into, big) : xstrdup("key");
		p->peer = sample_strdup(into, NULL);
	}
	CHECK(into->npeers == 200 && strlen(into->peers[150].public_key) == sizeof(big) - 1);
	CHECK(strcmp(into->peers[199].interface, "wg0") == 0 && into->peers[3].peer == NULL);
	sample_free(into);
}

/* A block of strings samples share (sample_hold): its strings are not copied, by sample_strdup
 * or sample_dup; it lives while a sample holds it; handed to a sample not holding it, copied. */
static void test_sample_shared(void)
{
	static const char data[] = "wg0\0kEy=\0";
	sample_strs_t *b = sample_strs_new(data, sizeof(data));
	const char *wg0 = sample_strs_data(b), *key = wg0 + 4;
	sample_t *s = sample_new("r1", 0, "rest"), *other = sample_new("r1", 0, "snmp");
	CHECK(sample_strdup(s, wg0) != wg0); /* not held yet: copied */
	CHECK(sample_hold(s, b) && sample_hold(s, b));
	struct sample_peer *p = sample_add_peer(s);
	p->interface = sample_strdup(s, wg0);
	p->public_key = sample_strdup(s, key);
	p->peer = sample_strdup(s, "lab"); /* not the block's */
	CHECK(p->interface == wg0 && p->public_key == key && p->peer != NULL);
	struct sample_iface *f = sample_add_iface(s);
	f->name = sample_strdup(s, wg0);
	sample_t *d = sample_dup(s);
	CHECK(d->peers[0].public_key == key && strcmp(d->peers[0].peer, "lab") == 0);
	sample_take_ifaces(other, s); /* other holds no block: its name is a copy */
	CHECK(other->nifaces == 1 && other->ifaces[0].name != wg0);
	sample_strs_unref(b);
	sample_free(s);
	CHECK(strcmp(d->peers[0].interface, "wg0") == 0 && strcmp(d->peers[0].public_key, "kEy=") == 0);
	CHECK(strcmp(other->ifaces[0].name, "wg0") == 0);
	sample_free(d); /* the last reference: the block goes (ASan tells) */
	sample_free(other);
}

/* A sealed sample's peers (sample_seal) are one table its copies share: the strings of a held
 * block stay where they are, the others are the table's, and it outlives the sample (ASan tells). */
static void test_sample_seal(void)
{
	static const char data[] = "wg0\0kEy=\0";
	sample_strs_t *b = sample_strs_new(data, sizeof(data));
	const char *wg0 = sample_strs_data(b), *key = wg0 + 4;
	sample_t *s = sample_new("r1", 0, "rest");
	sample_seal(s); /* no peers: nothing to seal */
	CHECK(!s->peers_sealed);
	CHECK(sample_hold(s, b));
	for (int i = 0; i < 3; i++) {
		struct sample_peer *p = sample_add_peer(s);
		p->interface = sample_strdup(s, wg0);
		p->public_key = sample_strdup(s, key);
		p->peer = i == 0 ? xstrdup("own") : sample_strdup(s, "lab");
		p->endpoint = sample_strdup(s, i == 2 ? "192.0.2.1" : NULL);
		p->rx_bytes = 100 + (uint64_t)i, p->endpoint_port = 51820 + i, p->disabled = i == 1;
	}
	sample_strs_unref(b);
	sample_seal(s);
	CHECK(s->peers_sealed && s->npeers == 3);
	sample_t *d = sample_dup(s);
	CHECK(d->peers == s->peers && d->peers[0].interface == wg0 && d->peers[1].public_key == key);
	sample_free(s);
	CHECK(strcmp(d->peers[0].peer, "own") == 0 && strcmp(d->peers[2].peer, "lab") == 0);
	CHECK(strcmp(d->peers[2].endpoint, "192.0.2.1") == 0 && d->peers[1].endpoint == NULL);
	CHECK(strcmp(d->peers[2].interface, "wg0") == 0 && strcmp(d->peers[2].public_key, "kEy=") == 0);
	CHECK(d->peers[1].rx_bytes == 101 && d->peers[2].endpoint_port == 51822 && d->peers[1].disabled);
	sample_t *e = sample_dup(d); /* a copy of a copy shares it too */
	sample_free(d);
	CHECK(e->npeers == 3 && strcmp(e->peers[0].interface, "wg0") == 0);
	sample_free(e); /* the last reference: the table and the block go */
}

static void test_peers(void)
{
	sample_t *s = dec(RESTDECODE_PEERS, PEERS, 0, NULL);
	CHECK(s->have_peers);
	CHECK_INT(s->npeers, 3);
	if (s->npeers == 3) {
		CHECK_STR(s->peers[0].interface, "wg0");
		CHECK_STR(s->peers[0].peer, "branch-lj");
		CHECK_STR(s->peers[0].public_key, "klTy6VO+Bh9OY0tsI7uAxZdSywAWcIGZb3m21vFvZ5M=");
		CHECK_INT(s->peers[0].last_handshake_ms, 83000);
		CHECK(s->peers[0].rx_bytes == 8395000 && s->peers[0].tx_bytes == 58834536);
		CHECK_STR(s->peers[1].peer, "laptop");
		CHECK_INT(s->peers[1].last_handshake_ms, -1);
		CHECK_STR(s->peers[2].peer, "Zm9v=");
		CHECK_STR(s->peers[2].interface, "wg1");
		CHECK_INT(s->peers[2].last_handshake_ms, 2 * 86400000 + 1000);
		CHECK(s->peers[2].rx_bytes == UINT64_MAX);
	}
	sample_free(s);
	s = dec(RESTDECODE_PEERS, "[]", 0, NULL);
	CHECK(s->have_peers && s->npeers == 0);
	sample_free(s);

	s = dec(RESTDECODE_PEERS, "{}", -1, "expected a list");
	CHECK(!s->have_peers);
	sample_free(s);
	dec_bad(RESTDECODE_PEERS, "[{\"public-key\":\"k\",\"rx\":\"0\",\"tx\":\"0\"}]",
		"missing \"interface\"");
	dec_bad(RESTDECODE_PEERS, "[{\"interface\":\"w\",\"rx\":\"0\",\"tx\":\"0\"}]",
		"missing \"public-key\"");
	dec_bad(RESTDECODE_PEERS, "[{\"interface\":\"w\",\"public-key\":\"k\",\"tx\":\"0\"}]",
		"missing \"rx\"");
	dec_bad(RESTDECODE_PEERS, "[{\"interface\":\"w\",\"public-key\":\"k\",\"rx\":\"0\"}]",
		"missing \"tx\"");
	dec_bad(RESTDECODE_PEERS,
		"[{\"interface\":\"w\",\"public-key\":\"k\",\"rx\":\"0\",\"tx\":\"0\","
		"\"last-handshake\":\"never\"}]",
		"\"last-handshake\"");
	dec_bad(RESTDECODE_PEERS, "[{\"interface\":\"w\",\"public-key\":\"k\",\"rx\":\"1.5\",\"tx\":\"0\"}]",
		"\"rx\"");
}

static const struct sample_sensor *find_sensor(const sample_t *s, const char *name)
{
	for (size_t i = 0; i < s->nsensors; i++)
		if (strcmp(s->sensors[i].name, name) == 0)
			return &s->sensors[i];
	return NULL;
}

/* name has unit and value in s; "" when the check passed, for CHECK_STR's message. */
static void check_sensor(const sample_t *s, const char *name, enum sample_unit unit, double value)
{
	const struct sample_sensor *x = find_sensor(s, name);
	CHECK(x != NULL);
	if (x == NULL)
		return;
	CHECK_STR(sample_unit_name(x->unit), sample_unit_name(unit));
	CHECK(x->value == value);
	if (x->value != value)
		fprintf(stderr, "  %s = %g, want %g\n", name, x->value, value);
}

static void test_health(void)
{
	sample_t *s = dec(RESTDECODE_HEALTH, HEALTH7, 0, NULL);
	CHECK(s->health_fresh);
	CHECK_INT(s->nsensors, 9);
	check_sensor(s, "temperature", SAMPLE_UNIT_CELSIUS, 46);
	check_sensor(s, "cpu-temperature", SAMPLE_UNIT_CELSIUS, 58);
	check_sensor(s, "voltage", SAMPLE_UNIT_VOLTS, 24.1);
	check_sensor(s, "fan1-speed", SAMPLE_UNIT_RPM, 6090);
	check_sensor(s, "psu1-state", SAMPLE_UNIT_STATE, 1);
	check_sensor(s, "psu2-state", SAMPLE_UNIT_STATE, 0);
	check_sensor(s, "psu1-current", SAMPLE_UNIT_AMPERES, 1.5);
	check_sensor(s, "power-consumption", SAMPLE_UNIT_WATTS, 36.2);
	check_sensor(s, "board-temperature1", SAMPLE_UNIT_CELSIUS, 40);
	CHECK(find_sensor(s, "fan-mode") == NULL);
	sample_t *d = sample_dup(s); /* the packed copy carries the sensors */
	CHECK_INT(d->nsensors, 9);
	check_sensor(d, "power-consumption", SAMPLE_UNIT_WATTS, 36.2);
	sample_free(d);
	sample_free(s);

	s = dec(RESTDECODE_HEALTH, HEALTH6, 0, NULL);
	CHECK_INT(s->nsensors, 4);
	check_sensor(s, "voltage", SAMPLE_UNIT_VOLTS, 24.3);
	check_sensor(s, "temperature", SAMPLE_UNIT_CELSIUS, 33);
	check_sensor(s, "fan1-speed", SAMPLE_UNIT_RPM, 4500);
	check_sensor(s, "psu1-state", SAMPLE_UNIT_STATE, 1);
	CHECK(find_sensor(s, "state") == NULL && find_sensor(s, "use-fan") == NULL);
	sample_free(s);
	s = dec(RESTDECODE_HEALTH, "[{\"temperature\":\"35\"}]", 0, NULL); /* flat, in a list */
	check_sensor(s, "temperature", SAMPLE_UNIT_CELSIUS, 35);
	sample_free(s);

	s = dec(RESTDECODE_HEALTH, "[]", 0, NULL); /* CHR: no sensors, and that is an answer */
	CHECK(s->health_fresh && s->nsensors == 0);
	sample_free(s);
	s = dec(RESTDECODE_HEALTH, "[{\"name\":\"voltage\",\"value\":\"x1\",\"type\":\"V\"}]", 0, NULL);
	CHECK_INT(s->nsensors, 0); /* not a number: passed over */
	sample_free(s);
	dec_bad(RESTDECODE_HEALTH, "[{\"name\":\"voltage\",\"type\":\"V\"},{\"name\":\"a\"}]",
		"missing \"value\"");
	dec_bad(RESTDECODE_HEALTH, "[{\"name\":\"voltage\",\"value\":24}]", "not a string");
	dec_bad(RESTDECODE_HEALTH, "\"ok\"", "expected a list");
	/* a name twice is one series: the first row stands; and a flood is capped */
	s = dec(RESTDECODE_HEALTH,
		"[{\"name\":\"voltage\",\"value\":\"24\",\"type\":\"V\"},"
		"{\"name\":\"voltage\",\"value\":\"12\",\"type\":\"V\"}]",
		0, NULL);
	CHECK_INT(s->nsensors, 1);
	check_sensor(s, "voltage", SAMPLE_UNIT_VOLTS, 24);
	sample_free(s);
	buf_t many;
	buf_init(&many);
	buf_puts(&many, "[");
	for (int i = 0; i < 100; i++)
		buf_printf(&many, "%s{\"name\":\"t%d-temperature\",\"value\":\"%d\",\"type\":\"C\"}",
			i ? "," : "", i, i);
	buf_puts(&many, "]");
	s = dec(RESTDECODE_HEALTH, many.data, 0, NULL);
	CHECK_INT(s->nsensors, SAMPLE_MAX_SENSORS);
	sample_free(s);
	buf_free(&many);
}

/* The kept answer (healthkeep.h): only a read is kept, only for its source, copied whole. */
static void test_healthkeep(void)
{
	healthkeep_t *k = healthkeep_create();
	sample_t *s = sample_new("r1", 0, "rest"), *t = sample_new("r1", 0, "rest");
	sample_add_sensor(s, "voltage", SAMPLE_UNIT_VOLTS, 24.1);
	CHECK(!healthkeep_use(k, t, "http://a")); /* nothing kept yet */
	healthkeep_save(k, s, "http://a");        /* not read by this poll: not kept */
	CHECK(!healthkeep_use(k, t, "http://a"));
	s->health_fresh = true;
	healthkeep_save(k, s, "http://a");
	CHECK(!healthkeep_use(k, t, "http://b")); /* another URL after a reload */
	CHECK(healthkeep_use(k, t, "http://a"));
	CHECK(!t->health_fresh && t->nsensors == 1);
	check_sensor(t, "voltage", SAMPLE_UNIT_VOLTS, 24.1);
	t->mono_ms = s->mono_ms + HEALTHKEEP_EVERY_MS; /* the samples' clock, not the process's */
	CHECK(!healthkeep_use(k, t, "http://a"));
	t->mono_ms = s->mono_ms + HEALTHKEEP_EVERY_MS - 1;
	CHECK(healthkeep_use(k, t, "http://a"));
	sample_t *u = sample_new("r1", 0, "rest"); /* the kept names are shared, not copied */
	CHECK(healthkeep_use(k, u, "http://a") && u->nsensors == 1 && t->nsensors == 1);
	CHECK(u->sensors[0].name == t->sensors[0].name);
	sample_free(s);
	sample_free(t);
	healthkeep_destroy(k); /* u still holds the names */
	check_sensor(u, "voltage", SAMPLE_UNIT_VOLTS, 24.1);
	sample_free(u);
}

static void test_resource_sizes(void)
{
	sample_t *s = dec(RESTDECODE_RESOURCE,
		"{\"board-name\":\"CHR\",\"uptime\":\"12s\",\"version\":\"7.8\","
		"\"free-memory\":\"3950641152\",\"total-memory\":\"4227858432\","
		"\"free-hdd-space\":\"0\",\"total-hdd-space\":\"135266304\"}",
		0, NULL);
	CHECK(s->mem_free == 3950641152LL && s->mem_total == 4227858432LL);
	CHECK(s->disk_free == 0 && s->disk_total == 135266304);
	sample_free(s);
	s = dec(RESTDECODE_RESOURCE, RESOURCE, 0, NULL); /* none sent: unknown */
	CHECK(s->mem_free == -1 && s->mem_total == -1 && s->disk_free == -1 && s->disk_total == -1);
	sample_free(s);
	dec_bad(RESTDECODE_RESOURCE,
		"{\"board-name\":\"CHR\",\"uptime\":\"12s\",\"version\":\"7.8\",\"free-memory\":\"1MiB\"}",
		"\"free-memory\"");
}

static void test_peer_detail(void)
{
	sample_t *s = dec(RESTDECODE_PEERS,
		"[{\"interface\":\"wg0\",\"public-key\":\"k1\",\"rx\":\"0\",\"tx\":\"0\","
		"\"allowed-address\":\"10.0.0.2/32,10.1.0.0/24\",\"current-endpoint-address\":\"198.51.100.7\","
		"\"current-endpoint-port\":\"51209\",\"disabled\":\"false\"},"
		"{\"interface\":\"wg0\",\"public-key\":\"k2\",\"rx\":\"0\",\"tx\":\"0\","
		"\"allowed-address\":\"10.0.0.3/32\",\"current-endpoint-address\":\"\","
		"\"current-endpoint-port\":\"0\",\"disabled\":\"true\"}]",
		0, NULL);
	CHECK_INT(s->npeers, 2);
	if (s->npeers == 2) {
		CHECK_STR(s->peers[0].endpoint, "198.51.100.7");
		CHECK_INT(s->peers[0].endpoint_port, 51209);
		CHECK_STR(s->peers[0].allowed, "10.0.0.2/32,10.1.0.0/24");
		CHECK(!s->peers[0].disabled);
		CHECK(s->peers[1].endpoint == NULL && s->peers[1].endpoint_port == 0);
		CHECK(s->peers[1].disabled);
	}
	sample_free(s);
	s = dec(RESTDECODE_PEERS, PEERS, 0, NULL); /* none of them sent */
	CHECK(s->npeers == 3 && s->peers[0].endpoint == NULL && s->peers[0].allowed == NULL);
	sample_free(s);
	dec_bad(RESTDECODE_PEERS,
		"[{\"interface\":\"w\",\"public-key\":\"k\",\"rx\":\"0\",\"tx\":\"0\","
		"\"current-endpoint-port\":\"70000\"}]",
		"not a port");
}

/* Shapes of real routers' replies (docs/routeros.md): a 7.1 beta's array-shaped resource, names
 * with spaces, colons and parentheses, drop counters in the thousands, .id in every record. */
static void test_real_shapes(void)
{
	sample_t *s = dec(RESTDECODE_RESOURCE,
		"[{\"architecture-name\":\"arm64\",\"board-name\":\"RB5009UG+S+\",\"cpu\":\"ARM64\","
		"\"uptime\":\"1d1s\",\"version\":\"7.1beta6 (development)\"}]",
		0, NULL);
	CHECK_STR(s->version, "7.1beta6");
	CHECK_STR(s->channel, "development");
	CHECK_STR(s->board, "RB5009UG+S+");
	CHECK_INT(s->uptime_ms, 86401000);
	sample_free(s);
	s = dec(RESTDECODE_IFACES,
		"[{\".id\":\"*3\",\"name\":\"trunk: Switch (br1)\",\"type\":\"bridge\",\"rx-byte\":\"5\","
		"\"tx-byte\":\"6\",\"rx-drop\":\"0\",\"tx-drop\":\"0\",\"running\":\"true\"},"
		"{\".id\":\"*10\",\"name\":\"wg: Transit (SoAda)\",\"type\":\"wg\",\"rx-byte\":\"8640000000\","
		"\"tx-byte\":\"86400000000\",\"rx-packet\":\"8640000\",\"tx-packet\":\"86400000\","
		"\"rx-drop\":\"1080\",\"tx-drop\":\"43200\",\"tx-queue-drop\":\"0\",\"rx-error\":\"216\","
		"\"tx-error\":\"14400\",\"running\":\"true\",\"disabled\":\"false\"}]",
		0, NULL);
	CHECK_INT(s->nifaces, 2);
	if (s->nifaces == 2) {
		CHECK_STR(s->ifaces[0].name, "trunk: Switch (br1)");
		CHECK_STR(s->ifaces[1].name, "wg: Transit (SoAda)");
		CHECK_STR(s->ifaces[1].type, "wg");
		CHECK(s->ifaces[1].tx_drops == 43200 && s->ifaces[1].rx_drops == 1080);
	}
	sample_free(s);
	s = dec(RESTDECODE_PEERS,
		"[{\".id\":\"*100\",\"interface\":\"wg: Transit (SoAda)\",\"name\":\"site: A (1)\","
		"\"public-key\":\"a2V5\",\"rx\":\"1\",\"tx\":\"2\",\"last-handshake\":\"1m5s\"}]",
		0, NULL);
	CHECK(s->npeers == 1 && strcmp(s->peers[0].interface, "wg: Transit (SoAda)") == 0);
	CHECK(s->npeers == 1 && strcmp(s->peers[0].peer, "site: A (1)") == 0);
	sample_free(s);
}

/* /ip/route/check: a one-element array (bounded by once) or its object; whatever its status,
 * an interface is the answer; none, or not one record, is an error. */
static void test_route_decode(void)
{
	static const struct {
		const char *body, *iface, *cause;
	} cases[] = {
		{ "[{\"status\":\"ok\",\"interface\":\"ether1\",\"nexthop\":\"192.0.2.1\"}]", "ether1",
			NULL },
		{ "{\"interface\":\"sfp-sfpplus1\",\"nexthop\":\"192.0.2.1\"}", "sfp-sfpplus1", NULL },
		{ "[{\"interface\":\"trunk: Switch (br1)\"}]", "trunk: Switch (br1)", NULL },
		{ "[{\"status\":\"unreachable\"}]", NULL, "status \"unreachable\"" },
		{ "[{\"status\":\"ok\"}]", NULL, "status \"ok\"" },
		{ "[{\"status\":\"reachable\",\"interface\":\"ether1\"}]", "ether1", NULL },
		{ "[{\"nexthop\":\"192.0.2.1\"}]", NULL, "missing \"interface\"" },
		{ "[{\"status\":\"ok\",\"interface\":\"\"}]", NULL, "no \"interface\" (status \"ok\")" },
		{ "[]", NULL, "expected one object" },
		{ "[{\"interface\":\"a\"},{\"interface\":\"b\"}]", NULL, "expected one object" },
		{ "[{\"interface\":3}]", NULL, "" },
		{ "<html>", NULL, "not JSON" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *iface = NULL, *cause = NULL;
		int rc = restdecode_route(cases[i].body, strlen(cases[i].body), &iface, &cause);
		CHECK_INT(rc, cases[i].iface ? 0 : -1);
		if (cases[i].iface)
			CHECK_STR(iface, cases[i].iface);
		else
			CHECK(cause != NULL && strstr(cause, cases[i].cause) != NULL);
		free(iface);
		free(cause);
	}
}

static void wan_peer(sample_t *s, const char *endpoint, uint64_t bytes, bool disabled)
{
	struct sample_peer *p = sample_add_peer(s);
	p->endpoint = endpoint ? xstrdup(endpoint) : NULL;
	p->rx_bytes = bytes;
	p->disabled = disabled;
	s->have_peers = true;
}

/* restwan: which endpoints a round asks, what it keeps, when it asks again, when never. */
static void test_restwan(void)
{
	conf_router_t rc = { .name = (char *)"r1", .wan_from_peers = true };
	sample_t *s = sample_new("r1", 0, "rest");
	for (int i = 0; i < 12; i++) { /* 12 peers on 10 addresses, the busiest are .0 to .7 */
		char a[32];
		snprintf(a, sizeof(a), "198.51.100.%d", i % 10);
		wan_peer(s, a, (uint64_t)(1000 - i), false);
	}
	wan_peer(s, "2001:db8::1", 5000, false); /* IPv6: not asked */
	wan_peer(s, "203.0.113.9", 9000, true);  /* disabled: not asked */
	wan_peer(s, NULL, 9000, false);          /* never handshook */
	restwan_t *w = restwan_create();
	size_t n;
	CHECK(restwan_names(w, &rc, &n) == NULL && n == 0);
	sample_t *none = sample_new("r1", 0, "rest"); /* no endpoint yet: looked for again in 5 min */
	wan_peer(none, NULL, 1, false);
	CHECK(restwan_due(w, &rc, none, 100) == NULL);
	CHECK(restwan_due(w, &rc, s, 101) == NULL);
	CHECK(restwan_due(w, &rc, s, 100 + RESTWAN_RETRY_MS - 1) == NULL);
	CHECK(restwan_due(w, &rc, s, 100 + RESTWAN_RETRY_MS) != NULL);
	sample_free(none);
	restwan_destroy(w);
	w = restwan_create();
	const char *d = restwan_due(w, &rc, s, 1000);
	CHECK_STR(d, "198.51.100.0");
	restwan_done(w, "r1", "ether1", 1000);
	char *const *names = restwan_names(w, &rc, &n); /* the first round counts at once */
	CHECK(n == 1 && strcmp(names[0], "ether1") == 0);
	for (int i = 1; i < RESTWAN_ENDPOINTS; i++) {
		d = restwan_due(w, &rc, s, 1000 + i);
		char want[32];
		snprintf(want, sizeof(want), "198.51.100.%d", i);
		CHECK_STR(d, want);
		restwan_done(w, "r1", i == 5 ? "ether2" : "ether1", 1000 + i);
	}
	names = restwan_names(w, &rc, &n);
	CHECK(n == 2 && strcmp(names[1], "ether2") == 0);
	CHECK(restwan_due(w, &rc, s, 2000) == NULL); /* the round is over; the next in an hour */
	d = restwan_due(w, &rc, s, 1000 + RESTWAN_EVERY_MS);
	CHECK_STR(d, "198.51.100.0");
	restwan_done(w, "r1", "sfp1", 1000 + RESTWAN_EVERY_MS);
	names = restwan_names(w, &rc, &n); /* later rounds replace the set at their end */
	CHECK(n == 2);
	restwan_due(w, &rc, s, 1001 + RESTWAN_EVERY_MS);
	restwan_done(w, "r1", NULL, 1001 + RESTWAN_EVERY_MS);
	names = restwan_names(w, &rc, &n); /* a refusal ends the round and keeps the set */
	CHECK(n == 2 && strcmp(names[0], "ether1") == 0);
	CHECK(restwan_due(w, &rc, s, 2000 + RESTWAN_EVERY_MS) == NULL);
	for (int i = 0; i < RESTWAN_ENDPOINTS; i++) {
		CHECK(restwan_due(w, &rc, s, 1001 + 2 * RESTWAN_EVERY_MS + i) != NULL);
		restwan_done(w, "r1", "sfp1", 1001 + 2 * RESTWAN_EVERY_MS + i);
	}
	names = restwan_names(w, &rc, &n);
	CHECK(n == 1 && strcmp(names[0], "sfp1") == 0);
	char *wan[] = { (char *)"ether9" }; /* named by the operator: never asked, nothing found counts */
	conf_router_t named = { .name = (char *)"r1", .wan_from_peers = true, .wan = wan, .nwan = 1 };
	CHECK(restwan_due(w, &named, s, 10 * RESTWAN_EVERY_MS) == NULL);
	CHECK(restwan_names(w, &named, &n) == NULL && n == 0);
	conf_router_t off = { .name = (char *)"r1", .wan_from_peers = false };
	CHECK(restwan_due(w, &off, s, 10 * RESTWAN_EVERY_MS) == NULL);
	restwan_destroy(w);
	sample_free(s);
	char *body = restwan_body("198.51.100.7");
	CHECK_STR(body, "{\"dst-ip\":\"198.51.100.7\",\"once\":\"\"}");
	free(body);
}

static void test_http_reason(void)
{
	const char *b1 = "{\"detail\":\"std failure: not allowed (9)\",\"error\":500,"
			 "\"message\":\"Internal Server Error\"}";
	char *r = restdecode_http_reason(500, b1, strlen(b1));
	CHECK_STR(r, "HTTP 500 Internal Server Error: std failure: not allowed (9)");
	free(r);
	r = restdecode_http_reason(401, "", 0);
	CHECK_STR(r, "HTTP 401 Unauthorized");
	free(r);
	r = restdecode_http_reason(418, "<html>", 6);
	CHECK_STR(r, "HTTP 418");
	free(r);
	char big[600];
	memset(big, 'x', sizeof(big));
	memcpy(big, "{\"detail\":\"\\u0007", 17);
	memcpy(big + sizeof(big) - 3, "\"}", 3);
	r = restdecode_http_reason(400, big, strlen(big));
	CHECK(strlen(r) < 200 && strstr(r, "HTTP 400 Bad Request: ?xxx") == r && strstr(r, "...") != NULL);
	free(r);
}

/* A RouterOS error object in a 2xx reply is named as such, whatever the step. */
static void test_error_object(void)
{
	static const char body[] =
		"{\"detail\":\"Session closed\",\"error\":400,\"message\":\"Bad Request\"}";
	static const char want[] = "a RouterOS error in a 2xx reply: Bad Request: Session closed";
	for (int step = 0; step < RESTDECODE_NSTEPS; step++)
		dec_bad((enum restdecode_step)step, body, want);
	sample_t *s = sample_new("r1", 0, "rest");
	char *cause = NULL;
	CHECK_INT(restdecode_peers_keyed(body, strlen(body), false, s, NULL, NULL, &cause), -1);
	CHECK_STR(cause, want);
	free(cause);
	sample_free(s);
	char *iface = NULL;
	cause = NULL;
	CHECK_INT(restdecode_route(body, strlen(body), &iface, &cause), -1);
	CHECK(iface == NULL);
	CHECK_STR(cause, want);
	free(cause);
	/* a record that merely has a field named error, a string, is data */
	s = dec(RESTDECODE_UPDATE, "{\"error\":\"x\",\"message\":\"y\"}", 0, NULL);
	sample_free(s);
}

/* restopt: a failing menu waits its time, drops its data from the sample, is logged once (then
 * every 60th failure, with the count), its recovery once; only menus asked are reported. */
static void test_restopt(void)
{
	restopt_t *o = restopt_create();
	sample_t *s = sample_new("r1", 0, "rest");
	CHECK_INT(restopt_of(RESTDECODE_HEALTH), RESTOPT_HEALTH);
	CHECK_INT(restopt_of(RESTDECODE_BOARD), RESTOPT_BOARD);
	CHECK_INT(restopt_of(RESTDECODE_UPDATE), RESTOPT_UPDATE);
	CHECK(restopt_of(RESTDECODE_RESOURCE) < 0 && restopt_of(RESTDECODE_CPU) < 0 &&
		restopt_of(RESTDECODE_IFACES) < 0 && restopt_of(RESTDECODE_PEERS) < 0);
	restopt_report(o, s);
	CHECK_INT(s->nmenus, 0); /* nothing asked yet */
	sample_add_sensor(s, "voltage", SAMPLE_UNIT_VOLTS, 24.1);
	s->health_fresh = true;
	s->firmware = xstrdup("7.19.2");
	int saved;
	FILE *f = unitfs_catch_stderr(&saved);
	for (int i = 0; i < 61; i++)
		restopt_failed(o, RESTOPT_HEALTH, "r1", i < 60 ? "HTTP 500" : "timed out", s, 1000 + i);
	restopt_good(o, RESTOPT_BOARD, "r1"); /* good from the start: no line */
	restopt_good(o, RESTOPT_HEALTH, "r1");
	restopt_good(o, RESTOPT_HEALTH, "r1");
	unitfs_release_stderr(saved);
	CHECK(s->nsensors == 0 && !s->health_fresh);
	CHECK_STR(s->firmware, "7.19.2"); /* only the failing menu's data goes */
	if (f != NULL) {
		CHECK_INT(unitfs_lines(f, "rest: router r1: /system/health failed ("), 2);
		CHECK_INT(unitfs_lines(f,
				  "failed (timed out): no health readings; the router stays up, the menu is "
				  "asked again in a minute (59 more failures not logged)"),
			1);
		CHECK_INT(unitfs_lines(f,
				  "rest: router r1: /system/health answers again, after 61 failed requests"),
			1);
		CHECK_INT(unitfs_lines(f, "routerboard"), 0);
		fclose(f);
	}
	sample_free(s);
	s = sample_new("r1", 0, "rest");
	restopt_failed(o, RESTOPT_HEALTH, "r1", "HTTP 500", s, 5000);
	CHECK(restopt_waiting(o, RESTOPT_HEALTH, 5000 + HEALTHKEEP_EVERY_MS - 1));
	CHECK(!restopt_waiting(o, RESTOPT_HEALTH, 5000 + HEALTHKEEP_EVERY_MS));
	CHECK(!restopt_waiting(o, RESTOPT_BOARD, 5000));
	restopt_failed(o, RESTOPT_UPDATE, "r1", "expected one object", NULL, 5000);
	CHECK(restopt_waiting(o, RESTOPT_UPDATE, 5000 + RESTUPDATE_EVERY_MS - 1));
	restopt_report(o, s);
	CHECK_INT(s->nmenus, 3);
	if (s->nmenus == 3) {
		CHECK(strcmp(s->menus[0].path, "/system/routerboard") == 0 && s->menus[0].why == NULL &&
			s->menus[0].since_ms == 0);
		CHECK(strcmp(s->menus[1].path, "/system/health") == 0 && s->menus[1].since_ms > 0);
		CHECK_STR(s->menus[1].why, "HTTP 500");
		CHECK_STR(s->menus[2].path, "/system/package/update");
	}
	sample_t *d = sample_dup(s); /* the fleet's packed copy keeps them */
	CHECK(d->nmenus == 3 && strcmp(d->menus[1].why, "HTTP 500") == 0 && d->menus[0].why == NULL);
	sample_free(d);
	sample_free(s);
	restopt_destroy(o);
}

/* ---- transport against a stand-in router ---- */

/* Routers with the same credentials share one list (resthdr.h); it outlives the first one's
 * handle, and other credentials get lists of their own. */
static void test_resthdr_shared(void)
{
	resthdr_t *a = resthdr_create(), *b = resthdr_create(), *c = resthdr_create();
	bool failed = true;
	struct curl_slist *la = resthdr_get(a, "mon", "pw", false, &failed);
	CHECK(!failed && la != NULL);
	CHECK(resthdr_get(b, "mon", "pw", false, &failed) == la);
	CHECK(resthdr_get(c, "mon", "pw2", false, &failed) != la);
	CHECK(resthdr_get(c, "mon2", "pw", false, &failed) != la);
	resthdr_destroy(a);
	struct curl_slist *lb = resthdr_get(b, "mon", "pw", false, &failed);
	CHECK(lb == la && lb->next != NULL && strcmp(lb->next->data, "Authorization: Basic bW9uOnB3") == 0);
	CHECK(resthdr_get(c, "mon", "pw", true, &failed) == resthdr_get(b, "mon", "pw", true, &failed));
	resthdr_destroy(b);
	resthdr_destroy(c);
}

/* The Authorization header built once per router (resthdr.h), rebuilt when a reload changes
 * the user or password. */
static void test_resthdr(void)
{
	char *b = resthdr_basic("Aladdin", "open sesame"); /* RFC 7617's example */
	CHECK_STR(b, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
	free(b);
	b = resthdr_basic("a", NULL);
	CHECK_STR(b, "Basic YTo=");
	free(b);
	b = resthdr_basic("ab", "c");
	CHECK_STR(b, "Basic YWI6Yw==");
	free(b);
	resthdr_t *h = resthdr_create();
	bool failed = true;
	static const char ua[] = "User-Agent: " PACKAGE_NAME "/" PACKAGE_VERSION;
	struct curl_slist *l = resthdr_get(h, "u", "p", false, &failed);
	CHECK(!failed && l != NULL && strcmp(l->data, ua) == 0);
	CHECK(l != NULL && l->next != NULL && l->next->next == NULL);
	CHECK(l != NULL && l->next != NULL && strcmp(l->next->data, "Authorization: Basic dTpw") == 0);
	CHECK(resthdr_get(h, "u", "p", false, &failed) == l); /* not rebuilt */
	l = resthdr_get(h, "u", "q", false, &failed);
	CHECK(l != NULL && l->next != NULL && strcmp(l->next->data, "Authorization: Basic dTpx") == 0);
	l = resthdr_get(h, "u", "q", true, &failed);
	int n = 0, auth = 0, json = 0, agent = 0;
	for (struct curl_slist *p = l; p != NULL; p = p->next, n++) {
		auth += strcmp(p->data, "Authorization: Basic dTpx") == 0;
		json += strcmp(p->data, "Content-Type: application/json") == 0;
		agent += strcmp(p->data, ua) == 0;
	}
	CHECK(n == 4 && auth == 1 && json == 1 && agent == 1);
	l = resthdr_get(h, NULL, "q", false, &failed); /* no user: the User-Agent alone */
	CHECK(!failed && l != NULL && strcmp(l->data, ua) == 0 && l->next == NULL);
	l = resthdr_get(h, NULL, NULL, true, &failed);
	CHECK(l != NULL && l->next != NULL && l->next->next != NULL && l->next->next->next == NULL);
	for (struct curl_slist *p = l; p != NULL; p = p->next)
		CHECK(strstr(p->data, "Authorization") == NULL);
	resthdr_destroy(h);
	test_resthdr_shared();
}

/* /system/package/update (routeros.md §2.2): latest-version and status when the router has
 * checked; a latest-version that is no version ignored; a status made printable and short. */
static void test_update(void)
{
	sample_t *s = dec(RESTDECODE_UPDATE,
		"{\"channel\":\"stable\",\"installed-version\":\"7.21.5\",\"latest-version\":\"7.22.3\","
		"\"status\":\"New version is available\"}",
		0, NULL);
	CHECK_STR(s->offered_version, "7.22.3");
	CHECK_STR(s->update_status, "New version is available");
	sample_free(s);
	s = dec(RESTDECODE_UPDATE, "[{\"channel\":\"stable\",\"installed-version\":\"7.21.5\"}]", 0, NULL);
	CHECK(s->offered_version == NULL && s->update_status == NULL);
	sample_free(s);
	s = dec(RESTDECODE_UPDATE, "{\"latest-version\":\"<b>x</b>\",\"status\":\"bad\\u0007\"}", 0, NULL);
	CHECK(s->offered_version == NULL);
	CHECK_STR(s->update_status, "bad?");
	sample_free(s);
	dec_bad(RESTDECODE_UPDATE, "[]", "expected one object");
	dec_bad(RESTDECODE_UPDATE, "{\"latest-version\":7}", "not a string");
}

/* The POST print body is written without jansson: the same JSON as jansson's, odd names
 * escaped and a name that is not UTF-8 left out. */
static void test_iface_query(void)
{
	char *ifs[] = { (char *)"ether1", (char *)"we\"ird\\", (char *)"caf\xc3\xa9", (char *)"bad\xff" };
	char *wan[] = { (char *)"sfp1" }, *found[] = { (char *)"lte1" };
	conf_router_t rc = {
		.name = (char *)"r1", .interfaces = ifs, .ninterfaces = 4, .wan = wan, .nwan = 1
	};
	struct restreq q;
	restreq_get(RESTDECODE_IFACES, &rc, found, 1, NULL, &q);
	CHECK(strcmp(q.path, "/rest/interface/print") == 0 && q.query == NULL);
	CHECK(q.post != NULL &&
		strcmp(q.post,
			"{\".proplist\":[\".id\",\"name\",\"type\",\"running\",\"disabled\","
			"\"rx-byte\",\"tx-byte\",\"rx-packet\",\"tx-packet\",\"rx-drop\",\"tx-drop\","
			"\"tx-queue-drop\",\"rx-error\",\"tx-error\",\"mtu\",\"actual-mtu\",\"link-downs\"],"
			"\".query\":[\"type=wg\",\"name=ether1\",\"name=we\\\"ird\\\\\","
			"\"name=caf\xc3\xa9\",\"name=sfp1\",\"name=lte1\",\"#|\",\"#|\",\"#|\",\"#|\","
			"\"#|\"]}") == 0);
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *j = q.post != NULL ? jsonr_parse(d, q.post, strlen(q.post)) : NULL;
	CHECK(j != NULL && jsonr_is_array(jsonr_get(j, ".query")) &&
		jsonr_size(jsonr_get(j, ".query")) == 11);
	jsonr_destroy(d);
	free(q.post);
}

/* The URL curl is handed: the base parsed once, a path of its own kept in front. */
static void test_url_point(void)
{
	struct restreq q = { .path = "/rest/system/resource", .query = ".proplist=uptime,version" };
	restreq_url_t *u = restreq_url_create();
	char *text = NULL;
	CURLU *h = restreq_url_point(u, "http://192.0.2.1:8080", &q);
	CHECK(h != NULL && curl_url_get(h, CURLUPART_URL, &text, 0) == CURLUE_OK);
	CHECK(text != NULL &&
		strcmp(text, "http://192.0.2.1:8080/rest/system/resource?.proplist=uptime,version") == 0);
	curl_free(text);
	text = NULL;
	q.path = "/rest/system/health";
	q.query = NULL;
	h = restreq_url_point(u, "https://gw.example/proxy/r1", &q); /* a reload changed the base */
	CHECK(h != NULL && curl_url_get(h, CURLUPART_URL, &text, 0) == CURLUE_OK);
	CHECK(text != NULL && strcmp(text, "https://gw.example/proxy/r1/rest/system/health") == 0);
	curl_free(text);
	CHECK(restreq_url_point(u, "http://[bad", &q) == NULL);
	restreq_url_destroy(u);
}

int main(void)
{
	test_resource();
	test_update();
	test_real_shapes();
	test_cpu();
	test_board();
	test_ifaces();
	test_sample_pool();
	test_sample_shared();
	test_sample_seal();
	test_peers();
	test_health();
	test_healthkeep();
	test_resource_sizes();
	test_peer_detail();
	test_http_reason();
	test_route_decode();
	test_restwan();
	test_error_object();
	test_restopt();
	test_iface_query();
	test_url_point();
	test_resthdr();
	return unit_done("restdecode_test");
}
