/* SPDX-License-Identifier: Apache-2.0 */
/* rest_test: the REST collector's transport against a libmicrohttpd stand-in router on
 * 127.0.0.1: a full poll, keep-alive reuse, POST print, auth/HTTP/parse/size/timeout/connect/TLS
 * failures, optional menus, a proxy, a router that is down, cancel. The decoders are
 * restdecode_test's, the JSON reader jsonr_test's. */
#include "collectors/rest.c"
#include "lib/text.h"
#include "unit.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "restfix.h"
#include "unitfs.h"

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

static _Atomic int srv_agent; /* requests with wgwatch's User-Agent, once each */

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
		FILE *f = unitfs_catch_stderr(&saved);
		run_polls(&rc, 1 << 20, 2, &run);
		unitfs_release_stderr(saved);
		const char *menu = oc->path + 5; /* "/system/health" */
		char *want = xasprintf("rest: router r1: %s failed (", menu);
		int logged = f != NULL ? unitfs_lines(f, want) : -1;
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

int main(void)
{
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
