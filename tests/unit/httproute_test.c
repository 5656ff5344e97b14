/* SPDX-License-Identifier: Apache-2.0 */
/* httproute_test: web/httproute.c's table and matcher. Which route answers a method and a
 * path, with what rest; which are no route (a 404 for GET, a 405 for another method, the
 * guard's); and the Allow header of a 405, as the listener answered before the one table. */
#include "config.h"
#include "web/httproute.h"
#include "unit.h"

#include <string.h>

static const struct {
	const char *method, *url;
	const char *path; /* the route's; NULL: none */
	const char *rest;
	enum httproute_run run;
} httproute_cases[] = {
	{ "GET", "/metrics", "/metrics", "", HTTPROUTE_INLINE },
	{ "HEAD", "/healthz", "/healthz", "", HTTPROUTE_INLINE },
	{ "GET", "/static/wgwatch.css", "/static/wgwatch.css", "", HTTPROUTE_INLINE },
	{ "GET", "/", "/", "", HTTPROUTE_POOL },
	{ "GET", "/api/v1/routers", "/api/v1/routers", "", HTTPROUTE_INLINE },
	{ "GET", "/api/v1/routers/", "/api/v1/routers/", "", HTTPROUTE_POOL },
	{ "GET", "/api/v1/routers/r 1/profiles", "/api/v1/routers/", "r 1/profiles", HTTPROUTE_POOL },
	{ "GET", "/api/v1/routers/r1/probe", "/api/v1/routers/", "r1/probe", HTTPROUTE_POOL },
	{ "POST", "/api/v1/routers/r1/probe", "/api/v1/routers/*/probe", "r1", HTTPROUTE_INLINE },
	{ "POST", "/api/v1/routers/a/b/probe", "/api/v1/routers/*/probe", "a/b", HTTPROUTE_INLINE },
	{ "POST", "/api/v1/routers//probe", NULL, NULL, 0 }, /* an empty name */
	{ "POST", "/api/v1/routers/probe", NULL, NULL, 0 },  /* no name */
	{ "POST", "/api/v1/routers/r1", NULL, NULL, 0 },
	{ "DELETE", "/api/v1/routers/r1/probe", NULL, NULL, 0 },
	{ "GET", "/api/v1/rollout", "/api/v1/rollout", "", HTTPROUTE_POOL },
	{ "GET", "/api/v1/rollout/allow", "/api/v1/rollout/allow", "", HTTPROUTE_INLINE },
	{ "POST", "/api/v1/rollout/allow", "/api/v1/rollout/allow", "", HTTPROUTE_INLINE },
	{ "DELETE", "/api/v1/rollout/allow", "/api/v1/rollout/allow", "", HTTPROUTE_INLINE },
	{ "PUT", "/api/v1/rollout/allow", NULL, NULL, 0 },
	{ "GET", "/router/r1", "/router/", "r1", HTTPROUTE_POOL },
	{ "GET", "/router/", "/router/", "", HTTPROUTE_POOL },
	{ "GET", "/router", NULL, NULL, 0 },
	{ "GET", "/api/v1/history/r1", "/api/v1/history/", "r1", HTTPROUTE_POOL },
	{ "GET", "/api/v1/upgrades/7/report.md", "/api/v1/upgrades/", "7/report.md", HTTPROUTE_POOL },
	{ "GET", "/upgrades", "/upgrades", "", HTTPROUTE_POOL },
	{ "GET", "/upgrades/", NULL, NULL, 0 },
	{ "GET", "/metrics/", NULL, NULL, 0 },
	{ "GET", "/nope", NULL, NULL, 0 },
	{ "POST", "/metrics", NULL, NULL, 0 },
	{ "OPTIONS", "/", NULL, NULL, 0 },
};

static void test_find(void)
{
	for (size_t i = 0; i < sizeof(httproute_cases) / sizeof(httproute_cases[0]); i++) {
		const char *rest = NULL;
		size_t rest_len = 0;
		const struct httproute *r = httproute_find(
			httproute_cases[i].method, httproute_cases[i].url, &rest, &rest_len);
		const char *want = httproute_cases[i].path;
		bool ok = want == NULL ? r == NULL
				       : r != NULL && strcmp(r->path, want) == 0 &&
				rest_len == strlen(httproute_cases[i].rest) &&
				strncmp(rest, httproute_cases[i].rest, rest_len) == 0 &&
				r->run == httproute_cases[i].run;
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  %s %s: got %s\n", httproute_cases[i].method,
				httproute_cases[i].url, r ? r->path : "no route");
	}
}

static void test_access(void)
{
	const char *rest;
	size_t n;
	CHECK_INT(httproute_find("POST", "/api/v1/rollout/allow", &rest, &n)->access, HTTPROUTE_WRITE);
	CHECK_INT(httproute_find("HEAD", "/api/v1/rollout/allow", &rest, &n)->access, HTTPROUTE_READ);
	CHECK_INT(httproute_find("POST", "/api/v1/routers/r/probe", &rest, &n)->access, HTTPROUTE_ACTION);
	CHECK_INT(httproute_find("GET", "/metrics", &rest, &n)->access, HTTPROUTE_READ);
}

static void test_allow(void)
{
	CHECK_STR(httproute_allow("/metrics"), "GET, HEAD");
	CHECK_STR(httproute_allow("/nope"), "GET, HEAD");
	/* a named route's methods too: a PUT to a router's probe is told POST is the way */
	CHECK_STR(httproute_allow("/api/v1/routers/hub-1/probe"), "GET, HEAD, POST");
	CHECK_STR(httproute_allow("/api/v1/routers/hub-1/probes"), "GET, HEAD");
	CHECK_STR(httproute_allow("/api/v1/rollout/allow"), "GET, HEAD, POST, DELETE");
}

int main(void)
{
	test_find();
	test_access();
	test_allow();
	return unit_done("httproute_test");
}
