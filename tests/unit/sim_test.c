/* sim_test: wgwatch-sim's scenario parser, counter model and REST answers (no sockets). */
#include "config.h"
#include "sim/scenario.h"
#include "sim/simrest.h"
#include "sim/simrouter.h"
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/sim_test.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

static const char good[] = "[global]\nuser = u\npassword = p\n"
			   "[group hub]\ncores = 4\nversion = 7.14.3\nwg = wg0:3, wg1:1\nidle_peers = 0\n"
			   "tx_mbps = 80\nrx_mbps = 8\ncpu_load = busiest 100 others 7 core 2\nuptime = 1h\n"
			   "labels = site=x, role=hub\n"
			   "at 2h: version 7.22.3, tx_mbps 8, cpu_load 1,2,3,4\n";

static void test_errors(void)
{
	char *path = write_tmp("[group a]\ncores = 0\nbogus = 1\nat 1h: fault nope\n[group a]\n");
	scenario_t *sc = NULL;
	char *errs = NULL;
	CHECK(scenario_load(path, &sc, &errs) == -1);
	char *want = NULL;
	if (asprintf(&want, "%s:2: bad value for cores: 0\n", path) > 0)
		CHECK(errs && strstr(errs, want) != NULL);
	CHECK(errs && strstr(errs, ":3: unknown key bogus") != NULL);
	CHECK(errs && strstr(errs, ":4: bad value for fault: nope") != NULL);
	CHECK(errs && strstr(errs, ":5: group a is defined twice") != NULL);
	free(want);
	free(errs);
	unlink(path);
	free(path);
}

static void get(const simrouter_t *r, double t, const char *method, const char *path, const char *query,
	const char *body, const char *auth, struct simresp *rs)
{
	struct simreq q = { .method = method,
		.path = path,
		.query = query,
		.auth = auth,
		.body = body,
		.body_len = strlen(body) };
	buf_reset(&rs->body);
	simrest_handle(r, t, &q, rs);
}

static void test_model_and_rest(void)
{
	char *path = write_tmp(good), *errs = NULL;
	scenario_t *sc = NULL;
	CHECK(scenario_load(path, &sc, &errs) == 0);
	if (!sc) {
		fprintf(stderr, "%s", errs);
		return;
	}
	CHECK_STR(sc->groups[0].labels, "site=x,role=hub");
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	/* tx 80 Mbit/s = 1e7 B/s for 1 h of uptime at t = 0, then 1 h more. */
	CHECK_NEAR(simrouter_total_bytes(r, 0, 1), 3.6e10, 1);
	CHECK_NEAR(simrouter_total_bytes(r, 3600, 1), 7.2e10, 1);
	CHECK_NEAR(simrouter_uptime(r, 3600), 7200, 1e-9);
	/* the upgrade at 2 h reboots: counters and uptime restart, at 1 MB/s */
	CHECK_NEAR(simrouter_uptime(r, 7300), 100, 1e-9);
	CHECK_NEAR(simrouter_total_bytes(r, 7300, 1), 1e8, 1);
	CHECK_INT(simrouter_core_load(r, 0, 2), 100);
	CHECK_INT(simrouter_core_load(r, 0, 3), 7);
	CHECK_INT(simrouter_core_load(r, 7300, 3), 4);

	struct simresp rs;
	buf_init(&rs.body);
	const char *auth = "Basic dTpw"; /* u:p */
	get(r, 0, "GET", "/rest/system/resource", ".proplist=version,uptime", "", auth, &rs);
	CHECK_STR(rs.body.data, "{\"uptime\":\"1h\",\"version\":\"7.14.3 (stable)\"}");
	get(r, 0, "GET", "/rest/system/resource", "", "", "Basic dTpx", &rs);
	CHECK_INT(rs.status, 401);
	CHECK_STR(rs.body.data, "{\"error\":401,\"message\":\"Unauthorized\"}");
	get(r, 0, "GET", "/rest/nope", "", "", auth, &rs);
	CHECK_INT(rs.status, 400);
	CHECK_STR(rs.body.data,
		"{\"detail\":\"no such command or directory (nope)\",\"error\":400,\"message\":\"Bad Request\"}");
	get(r, 0, "GET", "/rest/interface", "type=wg&.proplist=name", "", auth, &rs);
	CHECK_STR(rs.body.data, "[{\"name\":\"wg0\"},{\"name\":\"wg1\"}]");
	get(r, 0, "POST", "/rest/interface/print", "",
		"{\".proplist\":[\"name\"],\".query\":[\"name=ether2\",\"name=wg1\",\"#|\"]}", auth, &rs);
	CHECK_STR(rs.body.data, "[{\"name\":\"ether2\"},{\"name\":\"wg1\"}]");
	/* before 7.15 peers have no name; with a .proplist no private-key is served */
	get(r, 0, "GET", "/rest/interface/wireguard/peers", ".proplist=name,interface", "", auth, &rs);
	CHECK_STR(rs.body.data,
		"[{\"interface\":\"wg0\"},{\"interface\":\"wg0\"},{\"interface\":\"wg0\"},{\"interface\":\"wg1\"}]");
	CHECK_INT(rs.served_private_key, 0);
	get(r, 7300, "GET", "/rest/interface/wireguard/peers", ".proplist=name", "", auth, &rs);
	CHECK_STR(rs.body.data,
		"[{\"name\":\"peer1\"},{\"name\":\"peer2\"},{\"name\":\"peer3\"},{\"name\":\"peer4\"}]");
	get(r, 0, "GET", "/rest/interface/wireguard", "", "", auth, &rs);
	CHECK(rs.served_private_key == 2 && strstr(rs.body.data, "\"private-key\":\"c2ltLWZha2Ut") != NULL);
	buf_free(&rs.body);
	simrouter_destroy(r);
	scenario_free(sc);
	unlink(path);
	free(path);
}

int main(void)
{
	test_errors();
	test_model_and_rest();
	return unit_done("sim");
}
