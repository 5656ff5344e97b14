/* SPDX-License-Identifier: Apache-2.0 */
/* httproute: the route table and its matcher (httproute.h), and the handlers, each a thin
 * adapter from a request to the module that answers it (api, page, scrape). A handler reads
 * only its struct httproute_req: never the listener's state, and on the pool no connection. */
#include "config.h"
#include "web/httproute.h"

#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/xmem.h"
#include "web/api.h"
#include "web/api_report.h"
#include "web/api_rollout.h"
#include "web/httpgzip.h"
#include "web/page.h"
#include "web/page_router.h"
#include "web/page_upgrades.h"
#include "web/scrape.h"

#define HTTPROUTE_JSON "application/json"
#define HTTPROUTE_HTML "text/html; charset=utf-8"
#define HTTPROUTE_TEXT "text/plain; charset=utf-8"

/* A header of an inline request; NULL on the pool or when absent. */
static const char *httproute_header(const struct httproute_req *r, const char *name)
{
	return r->conn ? MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name) : NULL;
}

const char *httproute_arg(const struct httproute_req *r, const char *key)
{
	if (r->conn != NULL)
		return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
	for (size_t i = 0; i < r->nargs; i++)
		if (strcmp(r->keys[i], key) == 0)
			return r->values[i];
	return NULL;
}

/* ---- the daemon's own: metrics, health, the stylesheet ---- */

/* /metrics[?router=NAME|?routers=no]: rendered straight into a gzip stream when the client takes it. */
static unsigned httproute_metrics(const struct httproute_req *r, struct httproute_reply *out)
{
	const char *routers = httproute_arg(r, "routers");
	struct scrape_req req = { .fleet = r->deps->fleet,
		.store = r->deps->store,
		.detector = r->deps->detector,
		.http = r->counters,
		.router = httproute_arg(r, "router"),
		.daemon_only = routers && strcmp(routers, "no") == 0,
		.gzip = httpgzip_accepted(httproute_header(r, MHD_HTTP_HEADER_ACCEPT_ENCODING)) };
	unsigned status = scrape_metrics(&req, &out->body, &out->gzipped);
	if (status == 200)
		out->ctype = "text/plain; version=0.0.4; charset=utf-8";
	return status;
}

/* 200 "ok" when both heartbeat ages (ms) are within bound, else 503 naming the stale ones. */
static unsigned httproute_health_text(buf_t *body, int64_t loop_age, int64_t store_age, int64_t bound)
{
	if (loop_age <= bound && store_age <= bound) {
		buf_puts(body, "ok\n");
		return 200;
	}
	if (loop_age > bound)
		buf_printf(body, "stale: event loop silent for %lld ms (limit %lld ms)\n",
			(long long)loop_age, (long long)bound);
	if (store_age > bound)
		buf_printf(body, "stale: store writer silent for %lld ms (limit %lld ms)\n",
			(long long)store_age, (long long)bound);
	return 503;
}

static unsigned httproute_healthz(const struct httproute_req *r, struct httproute_reply *out)
{
	const struct http_deps *d = r->deps;
	int64_t now = clock_mono_ms();
	int64_t loop_age = d->loop ? now - loop_heartbeat_ms(d->loop) : 0;
	int64_t store_age = d->store ? now - store_heartbeat_ms(d->store) : 0;
	struct store_stats st = { 0 };
	if (d->store != NULL)
		store_get_stats(d->store, &st);
	if (st.files_gone) { /* the writer stopped for good: someone must look */
		buf_printf(&out->body, "failed: store: %s\n", st.last_error);
		return 503;
	}
	return httproute_health_text(&out->body, loop_age, store_age, r->stale_ms);
}

static unsigned httproute_css(const struct httproute_req *r, struct httproute_reply *out)
{
	(void)r;
	page_css(&out->body);
	out->ctype = "text/css; charset=utf-8";
	return 200;
}

/* ---- the API that needs no database ---- */

static unsigned httproute_routers(const struct httproute_req *r, struct httproute_reply *out)
{
	api_routers(r->deps->fleet, &out->body);
	out->ctype = HTTPROUTE_JSON;
	return 200;
}

/* POST /api/v1/routers/NAME/probe (web/api.c says what it answers). */
static unsigned httproute_probe(const struct httproute_req *r, struct httproute_reply *out)
{
	char *name = xstrndup(r->rest, r->rest_len);
	unsigned code = api_probe_demand(r->deps->fleet, r->deps->diag, name, &out->body);
	free(name);
	out->ctype = HTTPROUTE_JSON;
	return code;
}

static unsigned httproute_regressions(const struct httproute_req *r, struct httproute_reply *out)
{
	api_regressions(r->deps->detector, &out->body);
	out->ctype = HTTPROUTE_JSON;
	return 200;
}

static unsigned httproute_cohorts(const struct httproute_req *r, struct httproute_reply *out)
{
	api_cohorts(r->deps->detector, &out->body);
	out->ctype = HTTPROUTE_JSON;
	return 200;
}

static unsigned httproute_capacity(const struct httproute_req *r, struct httproute_reply *out)
{
	api_capacity(r->deps->detector, &out->body);
	out->ctype = HTTPROUTE_JSON;
	return 200;
}

/* /api/v1/targets: one Prometheus http_sd target per router, each scraped on this listener. */
static unsigned httproute_targets(const struct httproute_req *r, struct httproute_reply *out)
{
	const conf_t *c = r->deps->conf;
	char *addr = scrape_address(
		c ? c->listen : "127.0.0.1:0", r->port, httproute_header(r, MHD_HTTP_HEADER_HOST));
	scrape_targets_fleet(r->deps->fleet, addr, c && c->web_cert && c->web_key, &out->body);
	free(addr);
	out->ctype = HTTPROUTE_JSON;
	return 200;
}

/* /api/v1/evidence: the fleet's evidence, anonymous (docs/evidence.md). */
static unsigned httproute_evidence(const struct httproute_req *r, struct httproute_reply *out)
{
	out->ctype = HTTPROUTE_JSON;
	return api_evidence(r->deps->detector, httproute_arg(r, "since"), httproute_arg(r, "rollout"),
		clock_wall_ms(), &out->body);
}

/* /api/v1/rollout/allow: the overrides; POST and DELETE come with a body. */
static unsigned httproute_overrides(const struct httproute_req *r, struct httproute_reply *out)
{
	struct api_allow_req req = { .detector = r->deps->detector,
		.database = r->deps->conf ? r->deps->conf->database : NULL,
		.user = r->user,
		.method = r->method,
		.body = r->body,
		.body_len = r->body_len,
		.version = httproute_arg(r, "version"),
		.cohort = httproute_arg(r, "cohort"),
		.now_ms = clock_wall_ms() };
	out->ctype = HTTPROUTE_JSON;
	return api_rollout_allow(&req, &out->body);
}

/* ---- the routes that may read the database (on the pool) ---- */

static unsigned httproute_fleet(const struct httproute_req *r, struct httproute_reply *out)
{
	struct page_filter f = { .q = httproute_arg(r, "q"),
		.label = httproute_arg(r, "label"),
		.board = httproute_arg(r, "board"),
		.version = httproute_arg(r, "version"),
		.show = httproute_arg(r, "show"),
		.sort = httproute_arg(r, "sort") };
	struct page_fleet_req req = { .fleet = r->deps->fleet,
		.filter = &f,
		.database = r->deps->conf ? r->deps->conf->database : NULL,
		.detector = r->deps->detector };
	page_fleet_render(&req, &out->body);
	out->ctype = HTTPROUTE_HTML;
	return 200;
}

/* /router/NAME: rest is the decoded name, whatever characters it holds. */
static unsigned httproute_router(const struct httproute_req *r, struct httproute_reply *out)
{
	struct page_router_req req = { .conf = r->deps->conf,
		.fleet = r->deps->fleet,
		.name = r->rest,
		.range = httproute_arg(r, "range"),
		.now_ms = clock_wall_ms(),
		.detector = r->deps->detector };
	out->ctype = HTTPROUTE_HTML;
	return page_router(&req, &out->body);
}

/* /upgrades: the cohorts table, or with from and to the routers of one cohort. */
static unsigned httproute_upgrades(const struct httproute_req *r, struct httproute_reply *out)
{
	struct page_upgrades_req req = { .from = httproute_arg(r, "from"),
		.to = httproute_arg(r, "to"),
		.arch = httproute_arg(r, "arch"),
		.board = httproute_arg(r, "board"),
		.verdict = httproute_arg(r, "verdict"),
		.detector = r->deps->detector,
		.fleet = r->deps->fleet };
	out->ctype = HTTPROUTE_HTML;
	return page_upgrades(&req, &out->body);
}

/* /api/v1/history/NAME: the router page's series as JSON. */
static unsigned httproute_history(const struct httproute_req *r, struct httproute_reply *out)
{
	struct api_history_req req = { .conf = r->deps->conf,
		.name = r->rest,
		.range = httproute_arg(r, "range"),
		.now_ms = clock_wall_ms() };
	out->ctype = HTTPROUTE_JSON;
	return api_history(&req, &out->body);
}

/* /api/v1/rollout?version=V&architecture=A[&board=B]: the rollout guard's decision. */
static unsigned httproute_rollout(const struct httproute_req *r, struct httproute_reply *out)
{
	struct api_rollout_req req = { .detector = r->deps->detector,
		.version = httproute_arg(r, "version"),
		.architecture = httproute_arg(r, "architecture"),
		.board = httproute_arg(r, "board"),
		.now_ms = clock_wall_ms() };
	out->ctype = HTTPROUTE_JSON;
	return api_rollout(&req, &out->body);
}

/* /api/v1/routers/NAME/profiles and /probes. */
static unsigned httproute_router_sub(const struct httproute_req *r, struct httproute_reply *out)
{
	out->ctype = HTTPROUTE_JSON;
	return api_router_sub(r->deps->conf, r->deps->fleet, r->rest, &out->body);
}

/* /api/v1/upgrades/ID/report and /report.md: what to send support about one upgrade. */
static unsigned httproute_report(const struct httproute_req *r, struct httproute_reply *out)
{
	struct api_report_req req = { .conf = r->deps->conf, .detector = r->deps->detector, .rest = r->rest };
	bool md = false;
	unsigned code = api_report(&req, &out->body, &md);
	out->ctype = md ? "text/markdown; charset=utf-8" : HTTPROUTE_JSON;
	return code;
}

/* ---- the table ---- */

#define GET    HTTPROUTE_GET
#define POST   HTTPROUTE_POST
#define DELETE HTTPROUTE_DELETE
#define EXACT  HTTPROUTE_EXACT
#define PREFIX HTTPROUTE_PREFIX
#define NAMED  HTTPROUTE_NAMED
#define INLINE HTTPROUTE_INLINE
#define POOL   HTTPROUTE_POOL
#define READ   HTTPROUTE_READ

/* Every URL the listener answers; the first route that matches the method and the path wins
 * (none overlap). Before any of them the guard (httpguard.c) refuses what it must: a method no
 * route takes (405, Allow from httproute_allow), a body where none is taken, a bad target, a
 * missing password (/healthz alone is open without one), a write without auth on or from
 * another site. Then the listener answers a write's body grown past HTTPGUARD_BODY_MAX with a
 * 413, and a GET or HEAD no route takes with a 404 "not found". */
static const struct httproute httproute_table[] = {
	/* the daemon's own */
	{ GET, "/metrics", EXACT, INLINE, READ, httproute_metrics },
	{ GET, "/healthz", EXACT, INLINE, READ, httproute_healthz },
	{ GET, "/static/wgwatch.css", EXACT, INLINE, READ, httproute_css },
	/* the API: the fleet, and one router (its probe on demand is real traffic) */
	{ GET, "/api/v1/routers", EXACT, INLINE, READ, httproute_routers },
	{ GET, "/api/v1/routers/", PREFIX, POOL, READ, httproute_router_sub },
	{ POST, "/api/v1/routers/*/probe", NAMED, INLINE, HTTPROUTE_ACTION, httproute_probe },
	/* the API: the detector's views, Prometheus's targets, the evidence */
	{ GET, "/api/v1/regressions", EXACT, INLINE, READ, httproute_regressions },
	{ GET, "/api/v1/cohorts", EXACT, INLINE, READ, httproute_cohorts },
	{ GET, "/api/v1/capacity", EXACT, INLINE, READ, httproute_capacity },
	{ GET, "/api/v1/targets", EXACT, INLINE, READ, httproute_targets },
	{ GET, "/api/v1/evidence", EXACT, INLINE, READ, httproute_evidence },
	/* the API: the rollout guard, and its overrides (the one write: a short transaction) */
	{ GET, "/api/v1/rollout", EXACT, POOL, READ, httproute_rollout },
	{ GET, "/api/v1/rollout/allow", EXACT, INLINE, READ, httproute_overrides },
	{ POST | DELETE, "/api/v1/rollout/allow", EXACT, INLINE, HTTPROUTE_WRITE, httproute_overrides },
	/* the API that reads the database */
	{ GET, "/api/v1/history/", PREFIX, POOL, READ, httproute_history },
	{ GET, "/api/v1/upgrades/", PREFIX, POOL, READ, httproute_report },
	/* the pages */
	{ GET, "/", EXACT, POOL, READ, httproute_fleet },
	{ GET, "/router/", PREFIX, POOL, READ, httproute_router },
	{ GET, "/upgrades", EXACT, POOL, READ, httproute_upgrades },
};

#define HTTPROUTE_N (sizeof(httproute_table) / sizeof(httproute_table[0]))

static unsigned httproute_method(const char *method)
{
	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
		return HTTPROUTE_GET;
	if (strcmp(method, "POST") == 0)
		return HTTPROUTE_POST;
	return strcmp(method, "DELETE") == 0 ? HTTPROUTE_DELETE : 0;
}

/* Whether url matches t's path; *rest and *rest_len as httproute.h says. */
static bool httproute_match(const struct httproute *t, const char *url, const char **rest, size_t *rest_len)
{
	size_t len = strlen(url), a = strcspn(t->path, "*"), b = strlen(t->path + a);
	if (t->match == HTTPROUTE_EXACT && strcmp(url, t->path) != 0)
		return false;
	if (t->match == HTTPROUTE_PREFIX && strncmp(url, t->path, a) != 0)
		return false;
	if (t->match == HTTPROUTE_NAMED) {
		b--; /* past the '*' */
		if (len <= a + b || strncmp(url, t->path, a) != 0 ||
			strcmp(url + len - b, t->path + a + 1) != 0)
			return false;
	}
	*rest = url + (t->match == HTTPROUTE_EXACT ? len : a);
	*rest_len = t->match == HTTPROUTE_NAMED ? len - a - b : strlen(*rest);
	return true;
}

const struct httproute *httproute_find(
	const char *method, const char *url, const char **rest, size_t *rest_len)
{
	unsigned m = httproute_method(method);
	for (size_t i = 0; i < HTTPROUTE_N; i++)
		if ((httproute_table[i].methods & m) &&
			httproute_match(&httproute_table[i], url, rest, rest_len))
			return &httproute_table[i];
	return NULL;
}

const char *httproute_allow(const char *url)
{
	unsigned m = HTTPROUTE_GET;
	const char *rest;
	size_t n;
	for (size_t i = 0; i < HTTPROUTE_N; i++)
		if (httproute_match(&httproute_table[i], url, &rest, &n))
			m |= httproute_table[i].methods;
	static const char *const allow[] = { "GET, HEAD", "GET, HEAD, POST", "GET, HEAD, DELETE",
		"GET, HEAD, POST, DELETE" };
	return allow[(m & (HTTPROUTE_POST | HTTPROUTE_DELETE)) >> 1];
}
