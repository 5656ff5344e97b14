/* SPDX-License-Identifier: Apache-2.0 */
/* simdiag_test: wgwatch-sim's /tool/profile and /tool/bandwidth-test replies (frames, records,
 * shape variants, refusals), their scenario keys and the one-request-per-user rule (no sockets). */
#include "config.h"
#include "sim/scenario.h"
#include "sim/simq.h"
#include "sim/simrest.h"
#include "sim/simrouter.h"
#include "lib/jsonr.h"
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/simdiag_test.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

/* The demo's CCR1009 in small: wg0 pinned on core 3 (saturated), wg1 encrypting on core 6. */
static const char hub[] =
	"[global]\nuser = u\npassword = p\ndiag_user = d\ndiag_password = q\n"
	"[group hub]\ncores = 9\nversion = 7.21.5\nwg = wg0:4, wg1:2\nslot = 10s\n"
	"demand = wg0 tx 440 rx 190, wg1 tx 70 rx 60\n"
	"cost = wg0 tx 0.26 core 3 rx 0.1 core 5, wg1 tx 0.26 core 6 rx 0.1 core 7\n"
	"work = 12 core 0, 40 core 7\n"
	"profile_tx = networking 38 encrypting 9 wireguard 41 ethernet 12\n"
	"btest_user = bt\nbtest_password = secret\n"
	"at 1h: version 7.22.3, cost wg0 tx 0.78 core 3 rx 0.1 core 5, wg1 tx 0.72 core 6 rx "
	"0.1 core 7, profile_tx networking 90.5 encrypting 9.5\n"
	"at 2h: diag_refuse policy\nat 3h: diag_refuse old\nat 4h: diag_refuse device-mode\n"
	"[group variant]\ncores = 2\ntx_mbps = 10\ncpu_load = 30 10\n"
	"diag_shape = usage-percent, cpu-name, summary-cpu, total-row, no-idle, tx-loss\n";

#define AUTH_DIAG "Basic ZDpx" /* d:q */

/* Every answer's tree, each in a document of its own, freed at the end (test_docs_free). */
static jsonr_t *test_docs[128];
static size_t test_ndocs;

static void test_docs_free(void)
{
	while (test_ndocs > 0)
		jsonr_destroy(test_docs[--test_ndocs]);
}

static const jsonr_node_t *post(
	const simrouter_t *r, double t, const char *cmd, const char *body, struct simresp *rs)
{
	struct simreq q = { .method = "POST",
		.path = cmd,
		.query = "",
		.auth = AUTH_DIAG,
		.body = body,
		.body_len = strlen(body),
		.content_type = "application/json",
		.time_scale = 1 };
	buf_reset(&rs->body);
	simrest_handle(r, t, &q, rs);
	if (test_ndocs == sizeof(test_docs) / sizeof(test_docs[0]))
		abort();
	jsonr_t *d = test_docs[test_ndocs++] = jsonr_create();
	return jsonr_parse(d, rs->body.data, rs->body.len);
}

/* usage of the row named name (on core cpu, NULL: any) in section sec, or NULL. */
static const char *row(const jsonr_node_t *a, const char *sec, const char *cpu, const char *name)
{
	for (size_t i = 0; i < jsonr_size(a); i++) {
		const jsonr_node_t *e = jsonr_at(a, i), *c = jsonr_get(e, "cpu");
		if (strcmp(jsonr_str(jsonr_get(e, ".section")), sec) == 0 &&
			strcmp(jsonr_str(jsonr_get(e, "name")), name) == 0 &&
			(!cpu || (c && strcmp(jsonr_str(c), cpu) == 0)))
			return jsonr_str(jsonr_get(e, "usage"));
	}
	return NULL;
}

static void test_profile(const simrouter_t *r)
{
	struct simresp rs;
	buf_init(&rs.body);
	const jsonr_node_t *a = post(
		r, 0, "/rest/tool/profile", "{\"cpu\":\"all\",\"duration\":\"5s\"}", &rs);
	CHECK_INT(rs.status, 200);
	CHECK(rs.hold == 5);
	/* frames 0 and 1: the total row only; 2..4 every core */
	const char *first = "[{\".section\":\"0\",\"name\":\"total\",\"usage\":\"0\"},";
	CHECK(strncmp(rs.body.data, first, strlen(first)) == 0);
	const jsonr_node_t *end = jsonr_get(jsonr_at(a, jsonr_size(a) - 1), ".section");
	CHECK_STR(jsonr_str(end), "4");
	CHECK_STR(row(a, "1", NULL, "total"), "0");
	CHECK(row(a, "1", "3", "networking") == NULL);
	CHECK_STR(row(a, "2", "3", "networking"), "38");
	CHECK_STR(row(a, "4", "3", "encrypting"), "9");
	CHECK_STR(row(a, "4", "3", "wireguard"), "41");
	CHECK(row(a, "4", "3", "idle") == NULL); /* saturated */
	/* the cpuN rows are the loads /system/resource/cpu serves */
	char want[16];
	for (int c = 0; c < 9; c++) {
		char name[16];
		snprintf(name, sizeof(name), "cpu%d", c);
		snprintf(want, sizeof(want), "%d", simrouter_core_load(r, 2.5, c));
		CHECK_STR(row(a, "2", NULL, name), want);
	}
	CHECK_STR(row(a, "2", "0", "firewall"), "6"); /* work 12: half firewall */
	CHECK_STR(row(a, "2", "0", "idle"), "88");
	/* after the upgrade: the per-packet path around the crypto is 3x dearer */
	a = post(r, 3700, "/rest/tool/profile", "{\"cpu\":\"3\",\"duration\":\"3s\"}", &rs);
	CHECK_STR(row(a, "2", "3", "networking"), "90.5");
	CHECK_STR(row(a, "2", "3", "encrypting"), "9.5");
	CHECK_STR(row(a, "2", NULL, "cpu3"), "100");
	CHECK(row(a, "2", "0", "firewall") == NULL); /* one core asked */
	a = post(r, 0, "/rest/tool/profile", "{\"cpu\":\"total\",\"duration\":\"3s\"}", &rs);
	CHECK(row(a, "2", NULL, "total") != NULL && row(a, "2", NULL, "networking") != NULL);
	/* without a duration it runs until the REST server's 60 s cut */
	a = post(r, 0, "/rest/tool/profile", "{\"cpu\":\"all\"}", &rs);
	CHECK(rs.status == 400 && rs.hold == 60);
	CHECK_STR(rs.body.data, "{\"detail\":\"Session closed\",\"error\":400,\"message\":\"Bad Request\"}");
	a = post(r, 0, "/rest/tool/profile", "{\"cpu\":\"9\",\"duration\":\"3s\"}", &rs);
	CHECK_STR(rs.body.data,
		"{\"detail\":\"invalid value for argument cpu\",\"error\":400,\"message\":\"Bad Request\"}");
	CHECK(rs.hold == 0);
	buf_free(&rs.body);
}

static void test_variant(const simrouter_t *v)
{
	struct simresp rs;
	buf_init(&rs.body);
	const jsonr_node_t *a = post(
		v, 0, "/rest/tool/profile", "{\"cpu\":\"all\",\"duration\":\"3s\"}", &rs);
	CHECK_STR(row(a, "2", "cpu0", "firewall"), "15%");
	CHECK(row(a, "2", "cpu0", "idle") == NULL);
	CHECK_STR(row(a, "2", "", "cpu1"), "10%");
	CHECK_STR(row(a, "2", NULL, "total"), "20%");
	a = post(v, 0, "/rest/tool/bandwidth-test",
		"{\"address\":\"10.64.0.3\",\"direction\":\"transmit\",\"duration\":\"2s\"}", &rs);
	const jsonr_node_t *last = jsonr_at(a, jsonr_size(a) - 1);
	CHECK_STR(jsonr_str(jsonr_get(last, "lost-packets")), "0"); /* tx-loss */
	CHECK_STR(jsonr_str(jsonr_get(last, "local-cpu-load")), "20%");
	buf_free(&rs.body);
}

/* The last record's field k of a bandwidth test from r at t. */
static char *btest(const simrouter_t *r, double t, const char *body, const char *k, struct simresp *rs)
{
	const jsonr_node_t *a = post(r, t, "/rest/tool/bandwidth-test", body, rs);
	const jsonr_node_t *v = jsonr_get(jsonr_at(a, jsonr_size(a) - 1), k);
	char *s = v ? strdup(jsonr_str(v)) : NULL;
	return s;
}

static void check_btest(const simrouter_t *r, double t, const char *body, const char *k, const char *want)
{
	struct simresp rs;
	buf_init(&rs.body);
	char *got = btest(r, t, body, k, &rs);
	CHECK_STR(got, want);
	free(got);
	buf_free(&rs.body);
}

static void test_btest(const simrouter_t *r)
{
	const char *tx =
		"{\"address\":\"172.17.1.1\",\"protocol\":\"udp\",\"direction\":\"transmit\","
		"\"local-tx-speed\":\"300M\",\"duration\":\"10s\",\"user\":\"bt\",\"password\":\"secret\"}";
	struct simresp rs;
	buf_init(&rs.body);
	const jsonr_node_t *a = post(r, 0, "/rest/tool/bandwidth-test", tx, &rs);
	CHECK(rs.status == 200 && rs.hold == 10 && jsonr_size(a) == 11);
	CHECK_STR(jsonr_str(jsonr_get(jsonr_at(a, 0), "status")), "connecting");
	CHECK(jsonr_get(jsonr_at(a, 0), "duration") == NULL);
	CHECK(jsonr_get(jsonr_at(a, 10), "lost-packets") == NULL); /* transmit: none */
	check_btest(r, 0, tx, "status", "done testing");
	check_btest(r, 0, tx, "tx-total-average", "300000000");
	check_btest(r, 3700, tx, "tx-total-average", "138888889"); /* 100 / 0.72 Mbit/s */
	check_btest(r, 3700, tx, "duration", "10s");
	/* receive: the client counts what it lost in the last second (1500-byte packets) */
	check_btest(r, 3700,
		"{\"address\":\"10.65.0.3\",\"direction\":\"receive\",\"remote-tx-speed\":\"2G\","
		"\"duration\":\"2s\",\"user\":\"bt\",\"password\":\"secret\"}",
		"lost-packets", "116666");
	check_btest(r, 0,
		"{\"address\":\"172.17.1.1\",\"duration\":\"2s\",\"user\":\"bt\",\"password\":\"x\"}",
		"status", "authentication failed");
	check_btest(r, 0, "{\"address\":\"192.0.2.1\",\"duration\":\"2s\"}", "status", "can not connect");
	buf_free(&rs.body);
}

static void test_refusals(const simrouter_t *r)
{
	struct simresp rs;
	buf_init(&rs.body);
	const char *prof = "{\"cpu\":\"all\",\"duration\":\"3s\"}", *bt = "{\"address\":\"172.17.1.1\"}";
	(void)post(r, 7300, "/rest/tool/profile", prof, &rs);
	CHECK_STR(rs.body.data,
		"{\"detail\":\"not enough permissions (9)\",\"error\":500,\"message\":\"Internal Server Error\"}");
	(void)post(r, 10900, "/rest/tool/bandwidth-test", bt, &rs);
	CHECK_STR(rs.body.data,
		"{\"detail\":\"no such command or directory (bandwidth-test)\",\"error\":400,\"message\":\"Bad "
		"Request\"}");
	(void)post(r, 14500, "/rest/tool/bandwidth-test", bt, &rs);
	CHECK_STR(rs.body.data,
		"{\"detail\":\"not allowed by device-mode\",\"error\":400,\"message\":\"Bad Request\"}");
	(void)post(r, 14500, "/rest/tool/profile", prof, &rs);
	CHECK(rs.status == 200 && rs.hold == 3); /* device-mode has no profile feature */
	/* a body that repeats a key (lib/jsonr refuses it) or is no object: not parsed */
	(void)post(r, 14500, "/rest/tool/profile", "{\"cpu\":\"all\",\"cpu\":\"0\"}", &rs);
	CHECK_STR(rs.body.data,
		"{\"detail\":\"Failed to parse json\",\"error\":400,\"message\":\"Bad Request\"}");
	(void)post(r, 14500, "/rest/tool/profile", "[]", &rs);
	CHECK_INT(rs.status, 400);
	struct simreq q = { .method = "POST",
		.path = "/rest/tool/profile",
		.query = "",
		.auth = AUTH_DIAG,
		.body = prof,
		.body_len = strlen(prof) };
	simrest_handle(r, 0, &q, &rs);
	CHECK_INT(rs.status, 415);
	buf_free(&rs.body);
}

static void test_users(const scenario_t *sc)
{
	CHECK_INT(simrest_user(sc, "Basic dTpw"), 0);
	CHECK_INT(simrest_user(sc, AUTH_DIAG), 1);
	CHECK_INT(simrest_user(sc, "Basic ZDpw"), -1); /* d:p */
	/* one request of a user at a time, in arrival order; another user's at once */
	int a, b, c, d;
	simq_t *q = simq_create();
	CHECK(simq_enter(q, 1, &a));
	CHECK(!simq_enter(q, 1, &b));
	CHECK(simq_enter(q, 0, &c));
	CHECK(!simq_enter(q, 1, &d));
	CHECK_INT(simq_waiting(q, 1), 2);
	CHECK(simq_done(q, 0) == NULL);
	CHECK(simq_done(q, 1) == &b && simq_running(q, 1, &b));
	simq_drop(q, &d);
	CHECK(simq_done(q, 1) == NULL);
	CHECK(simq_enter(q, 1, &a));
	simq_destroy(q);
}

static void test_keys(void)
{
	char *path = write_tmp("[group a]\nprofile_tx = networking 60 wireguard 50\ndiag_refuse = maybe\n"
			       "diag_shape = round\nat 1h: profile_rx networking\n");
	scenario_t *sc = NULL;
	char *errs = NULL;
	CHECK(scenario_load(path, &sc, &errs) == -1);
	CHECK(errs && strstr(errs, ":2: bad value for profile_tx") != NULL);
	CHECK(errs && strstr(errs, ":3: bad value for diag_refuse") != NULL);
	CHECK(errs && strstr(errs, ":4: bad value for diag_shape") != NULL);
	CHECK(errs && strstr(errs, ":5: bad value for profile_rx") != NULL);
	free(errs);
	unlink(path);
	free(path);
}

int main(void)
{
	char *path = write_tmp(hub), *errs = NULL;
	scenario_t *sc = NULL;
	test_keys();
	CHECK(scenario_load(path, &sc, &errs) == 0);
	if (!sc) {
		fprintf(stderr, "%s", errs);
		return 1;
	}
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	simrouter_t *v = simrouter_create(sc, &sc->groups[1], 0, 1);
	test_profile(r);
	test_variant(v);
	test_btest(r);
	test_refusals(r);
	test_users(sc);
	test_docs_free();
	simrouter_destroy(v);
	simrouter_destroy(r);
	scenario_free(sc);
	unlink(path);
	free(path);
	return unit_done("simdiag");
}
