/* SPDX-License-Identifier: Apache-2.0 */
/* sim_test: wgwatch-sim's scenario parser, counter model and REST answers (no sockets). */
#include "config.h"
#include "sim/scenario.h"
#include "sim/simrest.h"
#include "sim/simroute.h"
#include "sim/simrouter.h"
#include "sim/simsnmp_int.h"
#include "lib/jsonr.h"
#include "lib/xmem.h"
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
		.body_len = strlen(body),
		.content_type = "application/json" };
	buf_reset(&rs->body);
	simrest_handle(r, t, &q, rs);
}

/* A peers reply to .proplist=.id,rx,tx,last-handshake (collectors/restpeers.h) holds n rows of
 * those keys alone, .id, rx and tx always, every value a string, as RouterOS answers. */
static void check_counters_only(const char *body, size_t n)
{
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *j = jsonr_parse(d, body, strlen(body));
	CHECK(jsonr_is_array(j) && jsonr_size(j) == n);
	for (size_t i = 0; i < jsonr_size(j); i++) {
		const jsonr_node_t *row = jsonr_at(j, i);
		CHECK(jsonr_get(row, ".id") && jsonr_get(row, "rx") && jsonr_get(row, "tx"));
		for (size_t k = 0; k < jsonr_size(row); k++) {
			const char *key = jsonr_key(row, k);
			CHECK(jsonr_is_string(jsonr_at(row, k)));
			CHECK(strcmp(key, ".id") == 0 || strcmp(key, "rx") == 0 || strcmp(key, "tx") == 0 ||
				strcmp(key, "last-handshake") == 0);
		}
	}
	jsonr_destroy(d);
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
	/* a print body that repeats a key is refused (lib/jsonr), as one of another shape */
	get(r, 0, "POST", "/rest/interface/print", "", "{\".proplist\":\"name\",\".proplist\":\"type\"}",
		auth, &rs);
	CHECK(rs.status == 400 && strstr(rs.body.data, "invalid JSON body") != NULL);
	get(r, 0, "POST", "/rest/interface/print", "", "{\".proplist\":7}", auth, &rs);
	CHECK(rs.status == 400 && strstr(rs.body.data, "unknown parameter .proplist") != NULL);
	/* before 7.15 peers have no name; with a .proplist no private-key is served */
	get(r, 0, "GET", "/rest/interface/wireguard/peers", ".proplist=name,interface", "", auth, &rs);
	CHECK_STR(rs.body.data,
		"[{\"interface\":\"wg0\"},{\"interface\":\"wg0\"},{\"interface\":\"wg0\"},{\"interface\":\"wg1\"}]");
	CHECK_INT(rs.served_private_key, 0);
	get(r, 7300, "GET", "/rest/interface/wireguard/peers", ".proplist=name", "", auth, &rs);
	CHECK_STR(rs.body.data,
		"[{\"name\":\"peer1\"},{\"name\":\"peer2\"},{\"name\":\"peer3\"},{\"name\":\"peer4\"}]");
	get(r, 0, "GET", "/rest/interface/wireguard/peers", ".proplist=.id,rx,tx,last-handshake", "", auth,
		&rs);
	check_counters_only(rs.body.data, 4);
	get(r, 0, "GET", "/rest/interface/wireguard", "", "", auth, &rs);
	CHECK(rs.served_private_key == 2 && strstr(rs.body.data, "\"private-key\":\"c2ltLWZha2Ut") != NULL);
	buf_free(&rs.body);
	simrouter_destroy(r);
	scenario_free(sc);
	unlink(path);
	free(path);
}

static const char shapes[] = "[global]\nuser = u\npassword = p\n"
			     "[group real]\nboard = CCR1009-7G-1C-1S+\nversion = 7.21.5\n"
			     "wg = wg: Transit (SoAda):3, wg0:1\nbridge_name = trunk: Switch (br1)\n"
			     "shape = resource-array, more-interfaces\nvlans = 9\nuptime = 1d\n"
			     "snmp_restart_every = 10s\ntx_mbps = 80\nrx_mbps = 8\n"
			     "[group old]\nboard = RB952Ui-5ac2nD\nversion = 6.40.5\nshape = snmp-ros6\n";

/* A GET of the objects o (the first entry of each is its length) answered by simmib. */
static netsnmp_pdu *snmp_get(struct simmib *m, const simrouter_t *r, const oid (*o)[15], size_t n)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);
	pdu->version = SNMP_VERSION_2c;
	for (size_t i = 0; i < n; i++)
		snmp_add_null_var(pdu, o[i] + 1, o[i][0]);
	CHECK_INT(simmib_respond(m, r, pdu, 0), 0);
	return pdu;
}

/* The shapes real routers have (docs/sim.md `shape`): REST and SNMP. */
static void test_shapes(void)
{
	char *path = write_tmp(shapes), *errs = NULL;
	scenario_t *sc = NULL;
	CHECK(scenario_load(path, &sc, &errs) == 0);
	if (!sc) {
		fprintf(stderr, "%s", errs);
		return;
	}
	CHECK_STR(sc->groups[0].wg[0].name, "wg: Transit (SoAda)");
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	simrouter_t *old = simrouter_create(sc, &sc->groups[1], 0, 1);
	struct simresp rs;
	buf_init(&rs.body);
	const char *auth = "Basic dTpw";
	get(r, 0, "GET", "/rest/system/resource", ".proplist=version", "", auth, &rs);
	CHECK_STR(rs.body.data, "[{\"version\":\"7.21.5 (stable)\"}]");
	get(r, 0, "POST", "/rest/interface/print", "",
		"{\".proplist\":[\".id\",\"name\"],\".query\":[\"type=wg\",\"name=trunk: Switch (br1)\",\"#|\"]}",
		auth, &rs);
	CHECK_STR(rs.body.data,
		"[{\".id\":\"*3\",\"name\":\"trunk: Switch (br1)\"},{\".id\":\"*10\",\"name\":"
		"\"wg: Transit (SoAda)\"},{\".id\":\"*11\",\"name\":\"wg0\"}]");
	get(r, 0, "GET", "/rest/interface", "name=wg: Transit (SoAda)&.proplist=tx-drop,tx-error", "", auth,
		&rs);
	long long drop = -1, err = -1;
	CHECK(sscanf(rs.body.data, "[{\"tx-drop\":\"%lld\",\"tx-error\":\"%lld\"}]", &drop, &err) == 2);
	CHECK(drop > 1000 && err > 100); /* 1 d at 80 Mbit/s: thousands, as real wg interfaces */
	/* every record of every list has its .id */
	static const char *const lists[] = { "/rest/interface", "/rest/interface/wireguard",
		"/rest/interface/wireguard/peers", "/rest/system/resource/cpu" };
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		get(r, 0, "GET", lists[i], "", "", auth, &rs);
		int recs = 0, ids = 0;
		for (const char *p = rs.body.data; (p = strchr(p, '{')) != NULL; p++)
			recs++;
		for (const char *p = rs.body.data; (p = strstr(p, "\".id\"")) != NULL; p++)
			ids++;
		CHECK(recs > 0 && recs == ids);
	}

	struct simmib m;
	simmib_init(&m);
	static const oid sys[][15] = { { 9, 1, 3, 6, 1, 2, 1, 1, 1, 0 }, { 9, 1, 3, 6, 1, 2, 1, 1, 3, 0 },
		{ 10, 1, 3, 6, 1, 2, 1, 25, 1, 1, 0 }, { 12, 1, 3, 6, 1, 4, 1, 14988, 1, 1, 7, 9, 0 },
		{ 13, 1, 3, 6, 1, 2, 1, 47, 1, 1, 1, 1, 2, 65536 } };
	netsnmp_pdu *pdu = snmp_get(&m, r, sys, 5);
	netsnmp_variable_list *v = pdu->variables;
	CHECK(v->val_len == 26 && memcmp(v->val.string, "RouterOS CCR1009-7G-1C-1S+", 26) == 0);
	u_long agent = *v->next_variable->val.integer, host = *v->next_variable->next_variable->val.integer;
	CHECK(host == 8640000 && agent < 1000); /* sysUpTime: the agent's, restarted every 10 s */
	CHECK(v->next_variable->next_variable->next_variable->type == ASN_OCTET_STR);
	CHECK(v->next_variable->next_variable->next_variable->next_variable->type == SNMP_NOSUCHINSTANCE);
	snmp_free_pdu(pdu);
	pdu = snmp_get(&m, old, sys, 5);
	v = pdu->variables;
	CHECK(v->val_len == 6 && memcmp(v->val.string, "router", 6) == 0);
	v = v->next_variable->next_variable->next_variable;
	CHECK(v->type == SNMP_NOSUCHOBJECT); /* no mtxrBoardName */
	const char *ent = "RouterOS 6.40.5 (stable) on RB952Ui-5ac2nD";
	CHECK(v->next_variable->val_len == strlen(ent) &&
		memcmp(v->next_variable->val.string, ent, strlen(ent)) == 0);
	snmp_free_pdu(pdu);
	/* ifIndex 1..N with gaps, ifTypes of real routers */
	netsnmp_pdu *walk = snmp_pdu_create(SNMP_MSG_GETBULK);
	static const oid type_col[] = { 1, 3, 6, 1, 2, 1, 2, 2, 1, 3 };
	walk->version = SNMP_VERSION_2c;
	walk->max_repetitions = 40;
	snmp_add_null_var(walk, type_col, 10);
	CHECK_INT(simmib_respond(&m, r, walk, 0), 0);
	oid prev = 0;
	int rows = 0, gaps = 0;
	bool seen[256] = { false };
	for (v = walk->variables; v && v->name_length == 11 && v->name[9] == 3; v = v->next_variable) {
		oid idx = v->name[10];
		CHECK(idx > prev);
		gaps += idx > prev + 1;
		prev = idx;
		rows++;
		if (*v->val.integer >= 0 && *v->val.integer < 256)
			seen[*v->val.integer] = true;
	}
	CHECK_INT(rows, 4 + 2 + 9 + 3);
	CHECK(gaps > 0 && prev < 2 * (oid)rows);
	CHECK(seen[6] && seen[1] && seen[209] && seen[135] && seen[71] && seen[23] && seen[131]);
	snmp_free_pdu(walk);
	simmib_fini(&m);
	buf_free(&rs.body);
	simrouter_destroy(old);
	simrouter_destroy(r);
	scenario_free(sc);
	unlink(path);
	free(path);
	free(errs);
}

static const char menus[] = "[global]\nuser = u\npassword = p\n"
			    "[group r]\nboard = RB5009UG+S+\narchitecture = arm64\nlatest_version = 7.22.3\n"
			    "menu_fault = /system/health 500, /system/package/update null\n"
			    "at 1h: menu_fault /system/health error200 /system/package/update empty\n"
			    "at 2h: menu_fault /system/health hang\n"
			    "at 3h: menu_fault none\n";

/* menu_fault (docs/sim.md): one menu answers badly, RouterOS's bodies exactly, the others and
 * the rest of the router as usual; bad values refused. */
static void test_menu_faults(void)
{
	char *path = write_tmp(menus), *errs = NULL;
	scenario_t *sc = NULL;
	CHECK(scenario_load(path, &sc, &errs) == 0);
	if (!sc) {
		fprintf(stderr, "%s", errs);
		return;
	}
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	struct simresp rs;
	buf_init(&rs.body);
	const char *auth = "Basic dTpw";
	get(r, 0, "GET", "/rest/system/health", "", "", auth, &rs);
	CHECK_INT(rs.status, 500);
	CHECK_STR(rs.body.data,
		"{\"detail\":\"std failure: not allowed (9)\",\"error\":500,\"message\":\"Internal Server Error\"}");
	get(r, 0, "GET", "/rest/system/package/update", "", "", auth, &rs);
	CHECK_INT(rs.status, 200);
	CHECK_STR(rs.body.data,
		"{\"channel\":null,\"installed-version\":null,\"latest-version\":null,\"status\":null}");
	get(r, 0, "GET", "/rest/system/resource", ".proplist=board-name", "", auth, &rs);
	CHECK_STR(rs.body.data, "{\"board-name\":\"RB5009UG+S+\"}");
	CHECK(!simrest_hangs(r, 0, "/rest/system/health?.proplist=name"));
	get(r, 3600, "GET", "/rest/system/health", "", "", auth, &rs);
	CHECK_INT(rs.status, 200);
	CHECK_STR(rs.body.data,
		"{\"detail\":\"no such command or directory (health)\",\"error\":400,\"message\":\"Bad "
		"Request\"}");
	get(r, 3600, "GET", "/rest/system/package/update", "", "", auth, &rs);
	CHECK(rs.status == 200 && strcmp(rs.body.data, "[]") == 0);
	CHECK(simrest_hangs(r, 7200, "/rest/system/health?.proplist=name"));
	CHECK(!simrest_hangs(r, 7200, "/rest/system/healthx") &&
		!simrest_hangs(r, 7200, "/rest/system/resource"));
	get(r, 7200, "GET", "/rest/system/package/update", "", "", auth, &rs);
	CHECK(rs.status == 200 && strstr(rs.body.data, "\"latest-version\":\"7.22.3\"") != NULL);
	get(r, 10800, "GET", "/rest/system/health", "", "", auth, &rs);
	CHECK(rs.status == 200 && rs.body.data[0] == '[' && strstr(rs.body.data, "temperature") != NULL);
	CHECK(!simrest_hangs(r, 10800, "/rest/system/health"));
	buf_free(&rs.body);
	simrouter_destroy(r);
	scenario_free(sc);
	unlink(path);
	free(path);
	free(errs);
	static const char *const bad[] = { "/system/health", "system/health 500", "/system/health nope",
		"/a 500 /b 500 /c 500 /d 500 /e 500", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = xasprintf("[group a]\nmenu_fault = %s\n", bad[i]);
		path = write_tmp(text);
		sc = NULL, errs = NULL;
		CHECK(scenario_load(path, &sc, &errs) == -1);
		CHECK(errs != NULL && strstr(errs, ":2: ") != NULL && strstr(errs, "menu_fault") != NULL);
		free(errs);
		unlink(path);
		free(path);
		free(text);
	}
}

/* routes: longest prefix wins, the implicit default is ether1, bad tables are refused. */
static void test_routes(void)
{
	static const char *const bad[] = { "198.51.100.0/24", "198.51.100.0 ether1", "300.1.1.0/24 e",
		"10.0.0.0/33 e", "10.0.0.0/8 e, ", "10.0.0.0/x e" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(simroute_valid(bad[i]), -1);
	const char *t = "198.51.100.0/24 ether2, 198.51.100.128/25 trunk: Switch (br1), 0.0.0.0/0 sfp1";
	CHECK_INT(simroute_valid(t), 0);
	char ifc[64], hop[32];
	CHECK_INT(simroute_check(t, "198.51.100.7", ifc, sizeof(ifc), hop, sizeof(hop)), 0);
	CHECK_STR(ifc, "ether2");
	CHECK_STR(hop, "192.0.2.2");
	CHECK_INT(simroute_check(t, "198.51.100.200", ifc, sizeof(ifc), hop, sizeof(hop)), 0);
	CHECK_STR(ifc, "trunk: Switch (br1)");
	CHECK_INT(simroute_check(t, "203.0.113.1", ifc, sizeof(ifc), hop, sizeof(hop)), 0);
	CHECK_STR(ifc, "sfp1");
	CHECK_INT(simroute_check(NULL, "203.0.113.1", ifc, sizeof(ifc), hop, sizeof(hop)), 0);
	CHECK_STR(ifc, "ether1");
	CHECK_STR(hop, "192.0.2.1");
	CHECK_INT(simroute_check(NULL, "2001:db8::1", ifc, sizeof(ifc), hop, sizeof(hop)), -1);
}

int main(void)
{
	test_routes();
	test_errors();
	test_model_and_rest();
	test_shapes();
	test_menu_faults();
	return unit_done("sim");
}
