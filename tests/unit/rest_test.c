/* SPDX-License-Identifier: Apache-2.0 */
/* rest_test: the REST collector. Decoders against canned RouterOS replies (good and every bad
 * form), then the transport against a libmicrohttpd stand-in router on 127.0.0.1: a full poll,
 * keep-alive reuse, POST print, auth/HTTP/parse/size/timeout/connect/TLS failures, cancel. */
#include "collectors/rest.c"
#include "collectors/restjson.h"
#include "lib/text.h"
#include "unit.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- fixtures (routeros.md §2) ---- */

static const char RESOURCE[] =
	"{\"architecture-name\":\"arm64\",\"board-name\":\"CCR2004-16G-2S+\",\"cpu\":\"ARM64\","
	"\"cpu-count\":\"4\",\"cpu-frequency\":\"1700\",\"uptime\":\"1w4d23h26m9s\",\"version\":\"7.19.2 (stable)\"}";
static const char CPU[] = "[{\".id\":\"*2\",\"cpu\":\"cpu2\",\"load\":\"0\",\"irq\":\"0\"},"
			  "{\".id\":\"*A\",\"cpu\":\"cpu10\",\"load\":\"100\",\"irq\":\"2\"},"
			  "{\".id\":\"*0\",\"cpu\":\"cpu0\",\"load\":\"3\",\"irq\":\"1\"},"
			  "{\".id\":\"*1\",\"cpu\":\"cpu1\",\"load\":\"12.5\"}]";
static const char BOARD[] =
	"{\"current-firmware\":\"7.19.2\",\"factory-firmware\":\"7.0.4\",\"model\":\"CCR2004-16G-2S+\","
	"\"routerboard\":\"true\",\"upgrade-firmware\":\"7.19.4\"}";
static const char IFACES[] =
	"[{\".id\":\"*23\",\"name\":\"wg0\",\"type\":\"wg\",\"rx-byte\":\"47538416\","
	"\"tx-byte\":\"70563654783\",\"rx-packet\":\"404315\",\"tx-packet\":\"5243956\","
	"\"rx-drop\":\"1\",\"tx-drop\":\"2\",\"running\":\"true\",\"disabled\":\"false\"}]";
static const char IFACES2[] =
	"[{\"name\":\"wg0\",\"type\":\"wg\",\"rx-byte\":\"1\",\"tx-byte\":\"2\",\"running\":\"false\"},"
	"{\"name\":\"sfp1\",\"type\":\"ether\",\"rx-byte\":\"3\",\"tx-byte\":\"4\",\"running\":\"true\"}]";
static const char PEERS[] =
	"[{\".id\":\"*3\",\"interface\":\"wg0\",\"name\":\"branch-lj\",\"comment\":\"site B\","
	"\"public-key\":\"klTy6VO+Bh9OY0tsI7uAxZdSywAWcIGZb3m21vFvZ5M=\",\"last-handshake\":\"1m23s\","
	"\"rx\":\"8395000\",\"tx\":\"58834536\"},"
	"{\".id\":\"*4\",\"interface\":\"wg0\",\"comment\":\"laptop\",\"public-key\":\"8OLF=\","
	"\"rx\":\"0\",\"tx\":\"0\"},"
	"{\".id\":\"*5\",\"interface\":\"wg1\",\"name\":\"\",\"public-key\":\"Zm9v=\","
	"\"last-handshake\":\"2d00:00:01\",\"rx\":\"18446744073709551615\",\"tx\":\"5\"}]";
/* RouterOS 7: rows of name, value, type (routeros.md §2.7); a type the decoder does not know
 * falls back to the name, a row of no known kind is passed over. */
static const char HEALTH7[] =
	"[{\".id\":\"*E\",\"name\":\"temperature\",\"value\":\"46\",\"type\":\"C\"},"
	"{\".id\":\"*11\",\"name\":\"cpu-temperature\",\"value\":\"58\",\"type\":\"C\"},"
	"{\".id\":\"*D\",\"name\":\"voltage\",\"value\":\"24.1\",\"type\":\"V\"},"
	"{\".id\":\"*1B59\",\"name\":\"fan1-speed\",\"value\":\"6090\",\"type\":\"RPM\"},"
	"{\".id\":\"*1CE9\",\"name\":\"psu1-state\",\"value\":\"ok\",\"type\":\"\"},"
	"{\".id\":\"*1CEA\",\"name\":\"psu2-state\",\"value\":\"fail\",\"type\":\"\"},"
	"{\".id\":\"*20\",\"name\":\"psu1-current\",\"value\":\"1.5\",\"type\":\"A\"},"
	"{\".id\":\"*21\",\"name\":\"power-consumption\",\"value\":\"36.2\",\"type\":\"W\"},"
	"{\".id\":\"*22\",\"name\":\"board-temperature1\",\"value\":\"40\",\"type\":\"deg\"},"
	"{\".id\":\"*23\",\"name\":\"fan-mode\",\"value\":\"auto\",\"type\":\"\"}]";
/* Older builds: one flat record, no types. */
static const char HEALTH6[] = "{\"voltage\":\"24.3\",\"temperature\":\"33\",\"fan-mode\":\"auto\","
			      "\"use-fan\":\"main\",\"active-fan\":\"main\",\"fan1-speed\":\"4500\","
			      "\"psu1-state\":\"ok\",\"state\":\"enabled\"}";

/* ---- decoders ---- */

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

static const restjson_node_t *rj(restjson_t *d, const char *text)
{
	return restjson_parse(d, text, strlen(text));
}

/* A 20-key object whose last key is kLAST: a repeat of k3, or a new one as k19. */
static const restjson_node_t *rj_wide(restjson_t *d, buf_t *b, int last)
{
	buf_reset(b);
	buf_puts(b, "{");
	for (int i = 0; i < 20; i++)
		buf_printf(b, "%s\"k%d\":\"v\"", i ? "," : "", i < 19 ? i : last);
	buf_puts(b, "}");
	return restjson_parse(d, b->data, b->len);
}

/* restjson: what restdecode relies on, and the refusals jansson made before it. */
static void test_restjson(void)
{
	restjson_t *d = restjson_create();
	const restjson_node_t *j = rj(d, "[{\"a\":\"x\\u00e9\\\"\",\"b\":[1,{}]},\"s\",null]");
	CHECK(restjson_is_array(j) && restjson_size(j) == 3);
	const restjson_node_t *o = restjson_at(j, 0);
	CHECK(restjson_is_object(o) && restjson_size(o) == 2);
	CHECK_STR(restjson_str(restjson_get(o, "a")), "x\xc3\xa9\"");
	CHECK_STR(restjson_key(o, 1), "b");
	CHECK(restjson_is_array(restjson_get(o, "b")) && restjson_size(restjson_get(o, "b")) == 2);
	CHECK(restjson_is_object(restjson_at(restjson_get(o, "b"), 1)));
	CHECK(restjson_get(o, "c") == NULL && restjson_at(j, 3) == NULL);
	CHECK_STR(restjson_str(restjson_at(j, 1)), "s");
	CHECK(!restjson_is_string(restjson_at(j, 2)) && restjson_str(restjson_at(j, 2)) == NULL);
	buf_t b;
	buf_init(&b);
	CHECK(rj_wide(d, &b, 19) != NULL);
	CHECK(rj_wide(d, &b, 3) == NULL); /* found by the sorted check */
	buf_reset(&b);
	for (int i = 0; i < 130; i++)
		buf_putc(&b, i < 65 ? '[' : ']');
	CHECK(restjson_parse(d, b.data, b.len) == NULL);         /* 65 deep */
	CHECK(restjson_parse(d, b.data + 1, b.len - 2) != NULL); /* 64 deep */
	CHECK(rj(d, "\"\xff\"") == NULL);                        /* not UTF-8 */
	CHECK(rj(d, "{\"a\\u0000\":\"1\"}") == NULL);            /* NUL in a key */
	CHECK(rj(d, "1 2") == NULL && rj(d, "") == NULL && rj(d, "[1,]") == NULL);
	CHECK(rj(d, "[\"a\\u0000b\"]") == NULL); /* NUL in a string */
	/* numbers are "something else"; one no double or 64-bit integer holds is refused */
	j = rj(d, "[-0.5,1e3,18446744073709551615,true,false,null]");
	CHECK(restjson_is_array(j) && restjson_size(j) == 6 && !restjson_is_string(restjson_at(j, 2)));
	CHECK(rj(d, "[1e400]") == NULL && rj(d, "[123456789012345678901234567890]") == NULL);
	/* a reply beyond the room kept (256 KiB): parsed, then the next small one from fresh room,
	 * with the depth limit kept after the parser grew */
	buf_reset(&b);
	buf_puts(&b, "[");
	for (int i = 0; i < 20000; i++)
		buf_printf(&b, "%s{\"k\":\"%d\"}", i ? "," : "", i);
	buf_puts(&b, "]");
	j = restjson_parse(d, b.data, b.len);
	CHECK(b.len > 256 * 1024 && restjson_size(j) == 20000);
	CHECK_STR(restjson_str(restjson_get(restjson_at(j, 19999), "k")), "19999");
	CHECK_STR(restjson_str(restjson_at(rj(d, "[\"small\"]"), 0)), "small");
	buf_reset(&b);
	for (int i = 0; i < 300000; i++)
		buf_putc(&b, i < 65 ? '[' : i < 130 ? ']' : ' ');
	CHECK(restjson_parse(d, b.data, b.len) == NULL); /* 65 deep, in 300,000 bytes */
	memset(b.data, ' ', b.len);
	memset(b.data, '[', 64);
	memset(b.data + 64, ']', 64);
	CHECK(restjson_parse(d, b.data, b.len) != NULL); /* 64 deep */
	/* restjson_get's cursor: any order, a miss, wrapping, two objects in turn */
	j = rj(d, "[{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"},{\"c\":\"6\",\"a\":\"4\"}]");
	const restjson_node_t *x = restjson_at(j, 0), *y = restjson_at(j, 1);
	const char *const ask[] = { "c", "a", "z", "b", "b", "a", "c", "c" };
	const char *const want[] = { "3", "1", NULL, "2", "2", "1", "3", "3" };
	for (size_t i = 0; i < sizeof(ask) / sizeof(ask[0]); i++) {
		const char *got = restjson_str(restjson_get(x, ask[i]));
		CHECK(want[i] == NULL ? got == NULL : got != NULL && strcmp(got, want[i]) == 0);
		got = restjson_str(restjson_get(y, ask[i]));
		const char *wy = ask[i][0] == 'a' ? "4" : ask[i][0] == 'c' ? "6" : NULL;
		CHECK(wy == NULL ? got == NULL : got != NULL && strcmp(got, wy) == 0);
	}
	buf_free(&b);
	restjson_destroy(d);
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

/* Lines of f (stderr caught by opt_catch) holding needle. */
static int opt_lines(FILE *f, const char *needle)
{
	char line[1024];
	int n = 0;
	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, needle) != NULL;
	return n;
}

/* stderr into a temporary file until opt_release: the log lines of a run. */
static FILE *opt_catch(int *saved)
{
	FILE *f = tmpfile();
	fflush(stderr);
	*saved = dup(2);
	if (f != NULL)
		dup2(fileno(f), 2);
	return f;
}

static void opt_release(int saved)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
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
	FILE *f = opt_catch(&saved);
	for (int i = 0; i < 61; i++)
		restopt_failed(o, RESTOPT_HEALTH, "r1", i < 60 ? "HTTP 500" : "timed out", s, 1000 + i);
	restopt_good(o, RESTOPT_BOARD, "r1"); /* good from the start: no line */
	restopt_good(o, RESTOPT_HEALTH, "r1");
	restopt_good(o, RESTOPT_HEALTH, "r1");
	opt_release(saved);
	CHECK(s->nsensors == 0 && !s->health_fresh);
	CHECK_STR(s->firmware, "7.19.2"); /* only the failing menu's data goes */
	if (f != NULL) {
		CHECK_INT(opt_lines(f, "rest: router r1: /system/health failed ("), 2);
		CHECK_INT(opt_lines(f,
				  "failed (timed out): no health readings; the router stays up, the menu is "
				  "asked again in a minute (59 more failures not logged)"),
			1);
		CHECK_INT(opt_lines(f,
				  "rest: router r1: /system/health answers again, after 61 failed requests"),
			1);
		CHECK_INT(opt_lines(f, "routerboard"), 0);
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

enum srv_mode { SRV_OK, SRV_OLD, SRV_401, SRV_PEERS_500, SRV_HTML, SRV_REBOOT, SRV_OPT };

/* SRV_OPT: one optional menu answers badly (issue 39), the others as SRV_OK. */
struct opt_case {
	const char *path; /* "/rest/system/health" */
	unsigned status;
	const char *body;
	int delay_ms;    /* the answer comes this late: past the poll's timeout */
	const char *why; /* the start of the reason kept */
};
static const struct opt_case *srv_opt;
static const char UPDATE[] = "{\"channel\":\"stable\",\"installed-version\":\"7.19.2\","
			     "\"latest-version\":\"7.19.4\",\"status\":\"New version is available\"}";

static _Atomic int srv_mode;
static _Atomic int srv_conns;
static pthread_mutex_t srv_lock = PTHREAD_MUTEX_INITIALIZER;
static buf_t srv_log; /* one line per request: "METHOD URL ?args body" */
static _Atomic int srv_badauth;
static _Atomic int srv_agent;     /* requests with wgwatch's User-Agent, once each */
static _Atomic int srv_resources; /* resource requests since srv_reset */

static enum MHD_Result srv_arg(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
	buf_printf(cls, " %s=%s", k, v ? v : "");
	return MHD_YES;
}

static void srv_record(struct MHD_Connection *conn, const char *method, const char *url, const buf_t *body)
{
	pthread_mutex_lock(&srv_lock);
	buf_printf(&srv_log, "%s %s", method, url);
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, srv_arg, &srv_log);
	buf_printf(&srv_log, " %s\n", body->data ? body->data : "");
	pthread_mutex_unlock(&srv_lock);
}

static const char *srv_body(const char *url, int mode, unsigned *status)
{
	*status = 200;
	if (mode == SRV_401) {
		*status = 401;
		return "{\"error\":401,\"message\":\"Unauthorized\"}";
	}
	if (mode == SRV_OPT && strcmp(url, srv_opt->path) == 0) {
		*status = srv_opt->status;
		if (srv_opt->delay_ms > 0)
			usleep((useconds_t)srv_opt->delay_ms * 1000); /* the router is slow, not a wait */
		return srv_opt->body;
	}
	if (strcmp(url, "/rest/system/package/update") == 0 && mode == SRV_OPT)
		return UPDATE;
	if (strcmp(url, "/rest/system/resource") == 0) {
		if (mode == SRV_REBOOT && ++srv_resources >= 3) /* restarted before the 3rd poll */
			return "{\"board-name\":\"CCR2004-16G-2S+\",\"uptime\":\"5s\","
			       "\"version\":\"7.19.2 (stable)\"}";
		if (mode == SRV_HTML)
			return "<html><title>RouterOS</title></html>";
		return mode == SRV_OLD ? "{\"board-name\":\"RB750Gr3\",\"uptime\":\"5s\","
					 "\"version\":\"7.12.1 (stable)\"}"
				       : RESOURCE;
	}
	if (strcmp(url, "/rest/system/resource/cpu") == 0)
		return CPU;
	if (strcmp(url, "/rest/system/routerboard") == 0)
		return BOARD;
	if (strcmp(url, "/rest/interface") == 0)
		return IFACES;
	if (strcmp(url, "/rest/interface/print") == 0)
		return IFACES2;
	if (strcmp(url, "/rest/interface/wireguard/peers") == 0 && mode != SRV_PEERS_500)
		return PEERS;
	if (strcmp(url, "/rest/system/health") == 0 && mode != SRV_OLD)
		return HEALTH7; /* SRV_OLD: "no such command", as a build without health */
	if (mode == SRV_PEERS_500) {
		*status = 500;
		return "{\"detail\":\"std failure: not allowed (9)\",\"error\":500,"
		       "\"message\":\"Internal Server Error\"}";
	}
	*status = 400; /* what RouterOS answers for a menu it does not have */
	return "{\"detail\":\"no such command or directory (x)\",\"error\":400,\"message\":\"Bad Request\"}";
}

static void srv_check_auth(struct MHD_Connection *conn)
{
	char *pass = NULL;
	char *user = MHD_basic_auth_get_username_password(conn, &pass);
	if (user == NULL || pass == NULL || strcmp(user, "mon") != 0 || strcmp(pass, "s3cret") != 0)
		srv_badauth++;
	MHD_free(user);
	MHD_free(pass);
	const char *agent = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "User-Agent");
	srv_agent += agent != NULL && strcmp(agent, PACKAGE_NAME "/" PACKAGE_VERSION) == 0;
}

static enum MHD_Result srv_handler(void *cls, struct MHD_Connection *conn, const char *url,
	const char *method, const char *version, const char *upload, size_t *upload_size, void **req)
{
	buf_t *body = *req;
	if (body == NULL) {
		*req = body = xcalloc(1, sizeof(*body));
		return MHD_YES;
	}
	if (*upload_size > 0) {
		buf_append(body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	srv_record(conn, method, url, body);
	srv_check_auth(conn);
	unsigned status;
	const char *text = srv_body(url, srv_mode, &status);
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

static void srv_done(void *cls, struct MHD_Connection *c, void **req, enum MHD_RequestTerminationCode t)
{
	buf_t *body = *req;
	if (body != NULL) {
		buf_free(body);
		free(body);
	}
	*req = NULL;
}

static void srv_notify(
	void *cls, struct MHD_Connection *c, void **sock, enum MHD_ConnectionNotificationCode t)
{
	if (t == MHD_CONNECTION_NOTIFY_STARTED)
		srv_conns++;
}

static struct MHD_Daemon *srv_start(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	/* a thread per connection: a slow answer (opt_cases) holds up only its own */
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL, srv_handler,
		NULL, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_NOTIFY_COMPLETED, srv_done, NULL,
		MHD_OPTION_NOTIFY_CONNECTION, srv_notify, NULL, MHD_OPTION_END);
	if (d == NULL)
		return NULL;
	*port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
	return d;
}

/* A loopback port that accepts connections (the backlog) but never answers: a hung router. */
static int hung_listener(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, 8) < 0 ||
		getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		return -1;
	*port = ntohs(sa.sin_port);
	return fd;
}

/* Config strings are char *, not const (conf.h): keep them writable. */
static char s_mon[] = "mon", s_pass[] = "s3cret", s_wrong[] = "wrong-s3cret";
static char s_r1[] = "r1", s_r2[] = "r2", s_r3[] = "r3", s_r4[] = "r4", s_a[] = "a", s_b[] = "b";
static char s_sfp1[] = "sfp1", s_ether7[] = "ether \"7\"";

struct run {
	loop_t *loop;
	collector_t col;
	void *h; /* the router's handle, as the poller keeps it */
	const conf_router_t *rc;
	sample_t *s[2];
	int calls, polls;
};

static bool in_poll;

static void run_done(sample_t *s, void *arg)
{
	struct run *run = arg;
	CHECK(!in_poll);
	if (run->calls < 2)
		run->s[run->calls] = s;
	else
		sample_free(s);
	run->calls++;
	if (run->calls < run->polls) {
		CHECK_INT(run->col.poll(run->col.ctx, run->h, run->rc, run_done, run), 0);
		return;
	}
	loop_stop(run->loop);
}

static void run_guard(void *arg)
{
	loop_stop(arg);
}

/* Polls rc `polls` times back to back (the next from the previous done); keeps two samples. */
static void run_polls(const conf_router_t *rc, size_t max_body, int polls, struct run *run)
{
	*run = (struct run){ .loop = loop_create(), .rc = rc, .polls = polls };
	rest_t *r = rest_create(run->loop, max_body);
	run->col = rest_collector(r);
	CHECK(run->col.handles(r, rc));
	run->h = run->col.attach(r, rc);
	in_poll = true;
	CHECK_INT(run->col.poll(r, run->h, rc, run_done, run), 0);
	CHECK_INT(run->col.poll(r, run->h, rc, run_done, run), -1); /* already in flight */
	in_poll = false;
	loop_after(run->loop, 10000, run_guard, run->loop);
	loop_run(run->loop);
	CHECK_INT(run->calls, polls);
	run->col.detach(r, run->h);
	rest_destroy(r);
	loop_destroy(run->loop);
}

static sample_t *run_one(const conf_router_t *rc, size_t max_body)
{
	struct run run;
	run_polls(rc, max_body, 1, &run);
	if (run.s[0] == NULL)
		return sample_new("none", 0, "rest");
	CHECK_STR(run.s[0]->source, "rest");
	CHECK_STR(run.s[0]->router, rc->name);
	CHECK(run.s[0]->time_ms > 0 && run.s[0]->duration_ms >= 0);
	return run.s[0];
}

static void srv_reset(int mode)
{
	srv_mode = mode;
	srv_conns = 0;
	srv_badauth = 0;
	srv_agent = 0;
	srv_resources = 0;
	pthread_mutex_lock(&srv_lock);
	buf_reset(&srv_log);
	pthread_mutex_unlock(&srv_lock);
}

static int count_str(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

static void check_full_sample(const sample_t *s)
{
	CHECK_INT(s->err, SAMPLE_OK);
	CHECK(s->error == NULL);
	CHECK_STR(s->version, "7.19.2");
	CHECK_STR(s->board, "CCR2004-16G-2S+");
	CHECK_STR(s->upgrade_firmware, "7.19.4");
	CHECK_INT(s->ncores, 4);
	CHECK_INT(s->nifaces, 1);
	CHECK_INT(s->npeers, 3);
	CHECK(s->have_peers);
}

static void test_transport_ok(int port)
{
	char *url = xasprintf("http://127.0.0.1:%d", port);
	conf_router_t rc = { .name = s_r1,
		.rest = url,
		.user = s_mon,
		.password = s_pass,
		.tls_verify = true,
		.timeout_ms = 5000 };
	srv_reset(SRV_OK);
	struct run run;
	run_polls(&rc, 1 << 20, 2, &run);
	CHECK(run.s[0] == NULL || (run.s[0]->health_fresh && run.s[0]->nsensors == 9));
	CHECK(run.s[1] == NULL || (!run.s[1]->health_fresh && run.s[1]->nsensors == 9));
	for (int i = 0; i < 2 && run.s[i]; i++) {
		check_full_sample(run.s[i]);
		sample_free(run.s[i]);
	}
	CHECK_INT(srv_conns, 1); /* nine requests, one keep-alive connection */
	CHECK_INT(srv_badauth, 0);
	const char *log = srv_log.data ? srv_log.data : "";
	CHECK_INT(srv_agent, count_str(log, "GET ") + count_str(log, "POST ")); /* every request */
	CHECK_INT(count_str(log, "GET /rest/system/routerboard"), 1);           /* kept for poll 2 */
	CHECK_INT(count_str(log, "GET /rest/system/resource "), 2);
	CHECK_INT(count_str(log, "GET /rest/system/health"), 1); /* kept for poll 2 too */
	CHECK(strstr(log, "current-endpoint-address") != NULL && strstr(log, "allowed-address") != NULL);
	CHECK(strstr(log, "GET /rest/interface type=wg .proplist=.id,name,type,") != NULL);
	CHECK(strstr(log, "GET /rest/interface/wireguard/peers .proplist=.id,interface,name,") != NULL);
	CHECK(strstr(log, "public-key") != NULL);
	CHECK(strstr(log, "private-key") == NULL && strstr(log, "preshared-key") == NULL);
	CHECK(strstr(log, "s3cret") == NULL);
	free(url);
}

/* The routerboard answer is asked again once the router has restarted (uptime back to 5 s). */
static void test_transport_board_reboot(int port)
{
	char *url = xasprintf("http://127.0.0.1:%d", port);
	conf_router_t rc = { .name = s_r1,
		.rest = url,
		.user = s_mon,
		.password = s_pass,
		.tls_verify = true,
		.timeout_ms = 5000 };
	srv_reset(SRV_REBOOT);
	struct run run;
	run_polls(&rc, 1 << 20, 3, &run);
	for (int i = 0; i < 2 && run.s[i]; i++) {
		check_full_sample(run.s[i]);
		sample_free(run.s[i]);
	}
	const char *log = srv_log.data ? srv_log.data : "";
	CHECK_INT(count_str(log, "GET /rest/system/resource "), 3);
	CHECK_INT(count_str(log, "GET /rest/system/routerboard"), 2); /* polls 1 and 3 */
	free(url);
}

static void test_transport_post(int port)
{
	char *url = xasprintf("http://127.0.0.1:%d", port);
	char *names[] = { s_sfp1, s_ether7 };
	conf_router_t rc = { .name = s_r2,
		.rest = url,
		.user = s_mon,
		.password = s_pass,
		.timeout_ms = 5000,
		.interfaces = names,
		.ninterfaces = 2 };
	srv_reset(SRV_OLD);
	sample_t *s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_OK); /* its /system/health is a 400: no sensors, not a failure */
	CHECK(!s->health_fresh && s->nsensors == 0);
	CHECK(s->nmenus == 2 && strcmp(s->menus[1].path, "/system/health") == 0 && s->menus[1].why != NULL &&
		strcmp(s->menus[1].why, "HTTP 400 Bad Request: no such command or directory (x)") == 0);
	CHECK(strstr(srv_log.data ? srv_log.data : "", "GET /rest/system/health") != NULL);
	CHECK_INT(s->nifaces, 2);
	if (s->nifaces == 2)
		CHECK_STR(s->ifaces[1].name, "sfp1");
	const char *log = srv_log.data ? srv_log.data : "";
	CHECK(strstr(log, "POST /rest/interface/print {\".proplist\":[\".id\",\"name\",") != NULL);
	CHECK(strstr(log, "\".query\":[\"type=wg\",\"name=sfp1\",\"name=ether \\\"7\\\"\",\"#|\",\"#|\"]}") !=
		NULL);
	/* 7.12 has no peer names: not asked for. */
	CHECK(strstr(log, "peers .proplist=.id,interface,comment,") != NULL);
	sample_free(s);
	/* wan = alone is polled the same way, with the confounders' fields */
	rc.interfaces = NULL, rc.ninterfaces = 0;
	rc.wan = names, rc.nwan = 1;
	srv_reset(SRV_OLD);
	s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_OK);
	log = srv_log.data ? srv_log.data : "";
	CHECK(strstr(log, "\".query\":[\"type=wg\",\"name=sfp1\",\"#|\"]}") != NULL);
	CHECK(strstr(log, "\"tx-queue-drop\",\"rx-error\",\"tx-error\",\"mtu\",\"actual-mtu\"") != NULL);
	CHECK(strstr(log,
		      "/rest/system/resource .proplist=uptime,version,board-name,architecture-name,cpu,"
		      "cpu-frequency,") != NULL);
	sample_free(s);
	free(url);
}

static void test_transport_errors(int port)
{
	char *url = xasprintf("http://127.0.0.1:%d", port);
	conf_router_t rc = {
		.name = s_r3, .rest = url, .user = s_mon, .password = s_wrong, .timeout_ms = 5000
	};
	srv_reset(SRV_401);
	sample_t *s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_ERR_AUTH);
	CHECK_STR(s->error, "GET /rest/system/resource: HTTP 401 Unauthorized");
	sample_free(s);

	srv_reset(SRV_PEERS_500);
	s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_ERR_HTTP);
	CHECK_STR(s->error,
		"GET /rest/interface/wireguard/peers: HTTP 500 Internal Server Error: "
		"std failure: not allowed (9)");
	CHECK_STR(s->board, "CCR2004-16G-2S+"); /* data before the failure stays */
	CHECK(s->nifaces == 1 && !s->have_peers);
	sample_free(s);

	srv_reset(SRV_HTML);
	s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_ERR_PARSE);
	CHECK_STR(s->error, "GET /rest/system/resource: reply is HTML, not JSON");
	sample_free(s);

	srv_reset(SRV_OK);
	s = run_one(&rc, 100);
	CHECK_INT(s->err, SAMPLE_ERR_SIZE);
	CHECK_STR(s->error, "GET /rest/system/resource: reply larger than 100 bytes");
	sample_free(s);

	free(rc.rest);
	rc.rest = xasprintf("https://127.0.0.1:%d", port); /* TLS to a plain HTTP server */
	s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_ERR_TLS);
	CHECK(s->error != NULL && strncmp(s->error, "GET /rest/system/resource: ", 27) == 0);
	sample_free(s);
	free(rc.rest);
}

/* The RouterOS error bodies (routeros.md §1) an optional menu may answer with. */
#define ERR500                                                        \
	"{\"detail\":\"std failure: not allowed (9)\",\"error\":500," \
	"\"message\":\"Internal Server Error\"}"
#define ERR400_HEALTH                                                          \
	"{\"detail\":\"no such command or directory (health)\",\"error\":400," \
	"\"message\":\"Bad Request\"}"

static const struct opt_case opt_cases[] = {
	{ "/rest/system/health", 500, ERR500, 0,
		"HTTP 500 Internal Server Error: std failure: not allowed (9)" },
	{ "/rest/system/health", 200, ERR400_HEALTH, 0,
		"a RouterOS error in a 2xx reply: Bad Request: no such command or directory (health)" },
	{ "/rest/system/health", 200, "[{\"name\":\"temperature\",\"value\":", 0, "reply is not JSON" },
	{ "/rest/system/health", 200, "[{\".id\":\"*1\",\"name\":\"temperature\",\"value\":null}]", 0,
		"value of \"value\" is not a string" },
	{ "/rest/system/health", 200, HEALTH7, 900, "Operation timed out" },
	{ "/rest/system/package/update", 200, "[]", 0, "expected one object" },
	{ "/rest/system/package/update", 200, "{\"channel\":\"stable\",\"status\":null}", 0,
		"value of \"status\" is not a string" },
	{ "/rest/system/package/update", 500, ERR500, 0, "HTTP 500 " },
	{ "/rest/system/routerboard", 500, ERR500, 0, "HTTP 500 " },
	{ "/rest/system/routerboard", 200, ERR400_HEALTH, 0, "a RouterOS error in a 2xx reply: " },
};

/* The state s reports of the menu path ("/system/health"), or NULL. */
static const struct sample_menu *opt_menu(const sample_t *s, const char *path)
{
	for (size_t i = 0; i < s->nmenus; i++)
		if (strcmp(s->menus[i].path, path) == 0)
			return &s->menus[i];
	return NULL;
}

/* Whether the sample carries what the menu of path gives. */
static bool opt_has(const sample_t *s, const char *path)
{
	if (strstr(path, "health") != NULL)
		return s->health_fresh && s->nsensors == 9;
	if (strstr(path, "update") != NULL)
		return s->offered_version != NULL && strcmp(s->offered_version, "7.19.4") == 0;
	return s->firmware != NULL && strcmp(s->firmware, "7.19.2") == 0;
}

/* Issue 39: an optional menu that fails in any way (an HTTP error, a RouterOS error object in a
 * 200, malformed JSON, [] for an object, a null, a timeout of its request) keeps the poll whole:
 * its own data is absent, everything else is there, the failure is logged once, and the menu is
 * not asked again at the next poll. */
static void test_transport_optional(int port)
{
	char *url = xasprintf("http://127.0.0.1:%d", port);
	for (size_t k = 0; k < sizeof(opt_cases) / sizeof(opt_cases[0]); k++) {
		const struct opt_case *oc = &opt_cases[k];
		conf_router_t rc = { .name = s_r1,
			.rest = url,
			.user = s_mon,
			.password = s_pass,
			.check_updates = true,
			.timeout_ms = oc->delay_ms > 0 ? 400 : 5000 };
		srv_opt = oc;
		srv_reset(SRV_OPT);
		struct run run;
		int saved;
		FILE *f = opt_catch(&saved);
		run_polls(&rc, 1 << 20, 2, &run);
		opt_release(saved);
		const char *menu = oc->path + 5; /* "/system/health" */
		char *want = xasprintf("rest: router r1: %s failed (", menu);
		int logged = f != NULL ? opt_lines(f, want) : -1;
		if (f != NULL)
			fclose(f);
		if (logged != 1)
			fprintf(stderr, "case %zu (%s %u): %d log lines \"%s\"\n", k, menu, oc->status,
				logged, want);
		CHECK_INT(logged, 1);
		free(want);
		for (int i = 0; i < 2 && run.s[i] != NULL; i++) {
			const sample_t *s = run.s[i];
			if (s->err != SAMPLE_OK)
				fprintf(stderr, "case %zu poll %d: %s\n", k, i, s->error);
			CHECK_INT(s->err, SAMPLE_OK);
			CHECK(s->ncores == 4 && s->nifaces == 1 && s->npeers == 3);
			CHECK(!opt_has(s, oc->path)); /* absent, not zero */
			const struct sample_menu *sm = opt_menu(s, menu);
			CHECK(sm != NULL && sm->why != NULL &&
				strncmp(sm->why, oc->why, strlen(oc->why)) == 0);
			CHECK(sm != NULL && sm->since_ms > 0 && sm->since_ms <= run.s[0]->time_ms + 1000);
			if (sm != NULL && sm->why != NULL && strncmp(sm->why, oc->why, strlen(oc->why)) != 0)
				fprintf(stderr, "case %zu: why \"%s\", want \"%s...\"\n", k, sm->why,
					oc->why);
			for (size_t m = 0; m < 3; m++) {
				const char *other = (const char *[]){ "/rest/system/health",
					"/rest/system/package/update", "/rest/system/routerboard" }[m];
				bool late = oc->delay_ms > 0 && m == 1; /* the poll's time is up */
				const struct sample_menu *om = opt_menu(s, other + 5);
				if (strcmp(other, oc->path) != 0 && !late && i == 0)
					CHECK(opt_has(s, other) && om != NULL && om->why == NULL);
			}
		}
		const char *log = srv_log.data ? srv_log.data : "";
		char *get = xasprintf("GET %s", oc->path);
		CHECK_INT(count_str(log, get), 1); /* not asked again at the next poll */
		free(get);
		for (int i = 0; i < 2; i++)
			sample_free(run.s[i]);
	}
	free(url);
}

/* A proxy in the environment is still used (rest_create reads it once; without one curl is
 * told not to look): the stand-in router plays the proxy and sees the absolute URL. */
static void test_transport_proxy(int port)
{
	char *proxy = xasprintf("http://127.0.0.1:%d", port);
	const char *keep[] = { "no_proxy", "NO_PROXY" };
	char *saved[2];
	for (int i = 0; i < 2; i++) {
		saved[i] = xstrdup(getenv(keep[i]));
		unsetenv(keep[i]);
	}
	setenv("http_proxy", proxy, 1);
	char url[] = "http://127.0.0.9:9";
	conf_router_t rc = {
		.name = s_r4, .rest = url, .user = s_mon, .password = s_pass, .timeout_ms = 5000
	};
	srv_reset(SRV_OK);
	sample_t *s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_ERR_HTTP); /* the proxy knows no such path: it did answer */
	const char *log = srv_log.data ? srv_log.data : "";
	CHECK(strstr(log, "GET http://127.0.0.9:9/rest/system/resource") != NULL);
	CHECK_INT(srv_badauth, 0);
	sample_free(s);
	unsetenv("http_proxy");
	srv_reset(SRV_OK);
	s = run_one(&rc, 1 << 20); /* no proxy: straight to the dead port */
	CHECK_INT(s->err, SAMPLE_ERR_CONNECT);
	CHECK(srv_log.len == 0);
	sample_free(s);
	for (int i = 0; i < 2; i++) {
		if (saved[i] != NULL)
			setenv(keep[i], saved[i], 1);
		free(saved[i]);
	}
	free(proxy);
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
}

static void test_transport_down(void)
{
	int port, fd = hung_listener(&port);
	CHECK(fd >= 0);
	conf_router_t rc = {
		.name = s_r4, .rest = xasprintf("http://127.0.0.1:%d", port), .timeout_ms = 300
	};
	sample_t *s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_ERR_TIMEOUT);
	CHECK(s->duration_ms >= 250 && s->duration_ms < 3000);
	sample_free(s);
	close(fd); /* now nothing listens there */
	s = run_one(&rc, 1 << 20);
	CHECK_INT(s->err, SAMPLE_ERR_CONNECT);
	CHECK(s->error != NULL && strstr(s->error, "GET /rest/system/resource: ") == s->error);
	sample_free(s);
	free(rc.rest);
}

static void never_done(sample_t *s, void *arg)
{
	CHECK(!"done called after cancel");
	sample_free(s);
}

/* Cancel and destroy with polls in flight: no done, nothing leaked (ASan). */
static void test_cancel(void)
{
	int port, fd = hung_listener(&port);
	CHECK(fd >= 0);
	conf_router_t a = { .name = s_a, .rest = xasprintf("http://127.0.0.1:%d", port), .timeout_ms = 5000 };
	conf_router_t b = a;
	b.name = s_b;
	loop_t *l = loop_create();
	rest_t *r = rest_create(l, 1 << 20);
	collector_t col = rest_collector(r);
	void *ha = col.attach(r, &a), *hb = col.attach(r, &b), *hc = col.attach(r, &b);
	CHECK_INT(col.poll(r, ha, &a, never_done, NULL), 0);
	CHECK_INT(col.poll(r, hb, &b, never_done, NULL), 0);
	CHECK_INT(col.poll(r, hc, &b, never_done, NULL), 0);
	loop_after(l, 100, run_guard, l);
	loop_run(l);
	col.cancel(r, ha);
	CHECK_INT(col.poll(r, ha, &a, never_done, NULL), 0); /* a can be polled again */
	col.cancel(r, ha);
	col.detach(r, ha);
	col.detach(r, hc); /* detach abandons a poll in flight too */
	rest_destroy(r);   /* b still in flight */
	loop_destroy(l);
	close(fd);
	free(a.rest);
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
	json_error_t err;
	json_t *j = q.post != NULL ? json_loads(q.post, 0, &err) : NULL;
	CHECK(j != NULL && json_array_size(json_object_get(j, ".query")) == 11);
	json_decref(j);
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
	test_restjson();
	test_iface_query();
	test_url_point();
	test_resthdr();
	buf_init(&srv_log);
	int port = 0;
	struct MHD_Daemon *d = srv_start(&port);
	CHECK(d != NULL);
	if (d != NULL) {
		test_transport_ok(port);
		test_transport_board_reboot(port);
		test_transport_post(port);
		test_transport_errors(port);
		test_transport_optional(port);
		test_transport_proxy(port);
		MHD_stop_daemon(d);
	}
	test_transport_down();
	test_cancel();
	buf_free(&srv_log);
	return unit_done("rest_test");
}
