/* httppage: the page routes and the pool that renders them for suspended connections (see
 * httppage.h). A job copies what it needs of its request (the rest of the path, the query)
 * before the suspension, so the pool never reads a connection; its only call on one is the
 * resume, after which it never touches the job again: the connection's thread frees it. */
#include "config.h"
#include "web/httppage.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/xmem.h"
#include "web/api.h"
#include "web/api_report.h"
#include "web/api_rollout.h"
#include "web/page.h"
#include "web/page_router.h"
#include "web/page_upgrades.h"

#define HTTPPAGE_MAX_ARGS 16 /* query arguments kept; pages read at most five */

struct httppage_job {
	const struct httppage_route *route;
	char *rest; /* the path past the route's prefix, decoded */
	char *keys[HTTPPAGE_MAX_ARGS], *values[HTTPPAGE_MAX_ARGS];
	size_t nargs;
	struct MHD_Connection *conn;
	unsigned status;
	const char *ctype;
	buf_t body;
	httppage_job_t *next; /* in the queue */
};

struct httppage {
	struct http_deps deps;
	pthread_mutex_t mu;
	pthread_cond_t wake;
	httppage_job_t *head, *tail; /* queued, oldest first */
	bool stopping;
	pthread_t *threads;
	size_t nthreads;
	int64_t test_delay_ms; /* WGWATCH_TEST_PAGE_DELAY_MS: a slow page, for tests only */
};

/* ---- the pages ---- */

typedef unsigned (*httppage_fn)(
	const struct http_deps *d, httppage_job_t *j, buf_t *body, const char **ctype);

/* A query argument, percent-decoded; NULL when absent. */
static const char *httppage_arg(const httppage_job_t *j, const char *key)
{
	for (size_t i = 0; i < j->nargs; i++)
		if (strcmp(j->keys[i], key) == 0)
			return j->values[i];
	return NULL;
}

static unsigned httppage_fleet(const struct http_deps *d, httppage_job_t *j, buf_t *body, const char **ctype)
{
	struct page_filter f = { .q = httppage_arg(j, "q"),
		.label = httppage_arg(j, "label"),
		.board = httppage_arg(j, "board"),
		.version = httppage_arg(j, "version"),
		.show = httppage_arg(j, "show") };
	struct page_fleet_req req = { .fleet = d->fleet,
		.filter = &f,
		.database = d->conf ? d->conf->database : NULL,
		.detector = d->detector };
	page_fleet_render(&req, body);
	*ctype = "text/html; charset=utf-8";
	return 200;
}

/* /router/NAME: rest is the decoded name, whatever characters it holds. */
static unsigned httppage_router(const struct http_deps *d, httppage_job_t *j, buf_t *body, const char **ctype)
{
	struct page_router_req req = { .conf = d->conf,
		.fleet = d->fleet,
		.name = j->rest,
		.range = httppage_arg(j, "range"),
		.now_ms = clock_wall_ms(),
		.detector = d->detector };
	*ctype = "text/html; charset=utf-8";
	return page_router(&req, body);
}

/* /api/v1/history/NAME: the router page's series as JSON. */
static unsigned httppage_history(
	const struct http_deps *d, httppage_job_t *j, buf_t *body, const char **ctype)
{
	struct api_history_req req = {
		.conf = d->conf, .name = j->rest, .range = httppage_arg(j, "range"), .now_ms = clock_wall_ms()
	};
	*ctype = "application/json";
	return api_history(&req, body);
}

/* /upgrades: the cohorts table, or with from and to the routers of one cohort. */
static unsigned httppage_upgrades(
	const struct http_deps *d, httppage_job_t *j, buf_t *body, const char **ctype)
{
	struct page_upgrades_req req = { .from = httppage_arg(j, "from"),
		.to = httppage_arg(j, "to"),
		.arch = httppage_arg(j, "arch"),
		.board = httppage_arg(j, "board"),
		.verdict = httppage_arg(j, "verdict"),
		.detector = d->detector,
		.fleet = d->fleet };
	*ctype = "text/html; charset=utf-8";
	return page_upgrades(&req, body);
}

/* /api/v1/rollout?version=V&architecture=A[&board=B]: the rollout guard's decision. */
static unsigned httppage_rollout(
	const struct http_deps *d, httppage_job_t *j, buf_t *body, const char **ctype)
{
	struct api_rollout_req req = { .detector = d->detector,
		.version = httppage_arg(j, "version"),
		.architecture = httppage_arg(j, "architecture"),
		.board = httppage_arg(j, "board"),
		.now_ms = clock_wall_ms() };
	*ctype = "application/json";
	return api_rollout(&req, body);
}

/* /api/v1/routers/NAME/profiles and /probes. */
static unsigned httppage_router_sub(
	const struct http_deps *d, httppage_job_t *j, buf_t *body, const char **ctype)
{
	*ctype = "application/json";
	return api_router_sub(d->conf, j->rest, body);
}

/* /api/v1/upgrades/ID/report and /report.md: what to send support about one upgrade. */
static unsigned httppage_report(const struct http_deps *d, httppage_job_t *j, buf_t *body, const char **ctype)
{
	struct api_report_req req = { .conf = d->conf, .detector = d->detector, .rest = j->rest };
	bool md = false;
	unsigned code = api_report(&req, body, &md);
	*ctype = md ? "text/markdown; charset=utf-8" : "application/json";
	return code;
}

/* A path ending in '/' matches as a prefix; any other path exactly. */
static const struct httppage_route {
	const char *path;
	httppage_fn fn;
} httppage_routes[] = {
	{ "/", httppage_fleet },
	{ "/router/", httppage_router },
	{ "/upgrades", httppage_upgrades },
	{ "/api/v1/history/", httppage_history },
	{ "/api/v1/rollout", httppage_rollout },
	{ "/api/v1/routers/", httppage_router_sub },
	{ "/api/v1/upgrades/", httppage_report },
};

/* The page for url and where its rest begins; NULL when none. */
static const struct httppage_route *httppage_find(const char *url, const char **rest)
{
	for (size_t i = 0; i < sizeof(httppage_routes) / sizeof(httppage_routes[0]); i++) {
		const char *p = httppage_routes[i].path;
		size_t n = strlen(p);
		bool prefix = n > 1 && p[n - 1] == '/';
		if (prefix ? strncmp(url, p, n) == 0 : strcmp(url, p) == 0) {
			*rest = url + (prefix ? n : strlen(url));
			return &httppage_routes[i];
		}
	}
	return NULL;
}

static void httppage_render(httppage_t *p, httppage_job_t *j)
{
	if (p->test_delay_ms > 0) {
		struct timespec ts = { p->test_delay_ms / 1000, (long)(p->test_delay_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
	}
	j->ctype = "text/plain; charset=utf-8";
	j->status = j->route->fn(&p->deps, j, &j->body, &j->ctype);
}

/* ---- the pool ---- */

static void *httppage_main(void *arg)
{
	httppage_t *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		httppage_job_t *j = p->head;
		if (j == NULL && p->stopping)
			break;
		if (j == NULL) {
			pthread_cond_wait(&p->wake, &p->mu);
			continue;
		}
		p->head = j->next;
		if (p->head == NULL)
			p->tail = NULL;
		pthread_mutex_unlock(&p->mu);
		struct MHD_Connection *conn = j->conn;
		httppage_render(p, j);
		MHD_resume_connection(conn); /* j belongs to the connection's thread from here */
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

httppage_t *httppage_create(const struct http_deps *deps, unsigned nthreads)
{
	httppage_t *p = xcalloc(1, sizeof(*p));
	p->deps = *deps;
	const char *delay = getenv("WGWATCH_TEST_PAGE_DELAY_MS");
	p->test_delay_ms = delay ? atoll(delay) : 0;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->wake, NULL);
	p->threads = xcalloc(nthreads ? nthreads : 1, sizeof(*p->threads));
	for (; p->nthreads < nthreads; p->nthreads++) {
		if (pthread_create(&p->threads[p->nthreads], NULL, httppage_main, p) != 0) {
			log_warn("http: cannot start page thread %zu: slow pages may delay /metrics",
				p->nthreads + 1);
			break;
		}
	}
	if (p->nthreads == 0)
		p->stopping = true; /* every page inline */
	return p;
}

void httppage_stop(httppage_t *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
	for (size_t i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	p->nthreads = 0;
}

void httppage_destroy(httppage_t *p)
{
	if (p == NULL)
		return;
	httppage_stop(p);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->wake);
	free(p->threads);
	free(p);
}

/* ---- jobs ---- */

static enum MHD_Result httppage_copy_arg(
	void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	httppage_job_t *j = cls;
	(void)kind;
	if (j->nargs == HTTPPAGE_MAX_ARGS || key == NULL)
		return MHD_NO;
	j->keys[j->nargs] = xstrdup(key);
	j->values[j->nargs++] = value ? xstrdup(value) : NULL;
	return MHD_YES;
}

/* Queue j and suspend its connection; false when the pool has stopped (render inline). */
static bool httppage_queue(httppage_t *p, httppage_job_t *j)
{
	pthread_mutex_lock(&p->mu);
	bool queued = !p->stopping;
	if (queued) {
		MHD_suspend_connection(j->conn); /* before a thread can resume it */
		if (p->tail != NULL)
			p->tail->next = j;
		else
			p->head = j;
		p->tail = j;
		pthread_cond_signal(&p->wake);
	}
	pthread_mutex_unlock(&p->mu);
	return queued;
}

httppage_job_t *httppage_begin(httppage_t *p, struct MHD_Connection *conn, const char *url, bool *suspended)
{
	const char *rest;
	const struct httppage_route *route = httppage_find(url, &rest);
	if (route == NULL)
		return NULL;
	httppage_job_t *j = xcalloc(1, sizeof(*j));
	j->route = route;
	j->rest = xstrdup(rest);
	j->conn = conn;
	buf_init(&j->body);
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, httppage_copy_arg, j);
	*suspended = httppage_queue(p, j); /* from here j is the pool's until the resume */
	if (!*suspended)
		httppage_render(p, j);
	return j;
}

unsigned httppage_reply(httppage_job_t *j, buf_t *body, const char **ctype)
{
	*body = j->body;
	buf_init(&j->body);
	*ctype = j->ctype;
	return j->status;
}

void httppage_job_free(httppage_job_t *j)
{
	if (j == NULL)
		return;
	for (size_t i = 0; i < j->nargs; i++) {
		free(j->keys[i]);
		free(j->values[i]);
	}
	free(j->rest);
	buf_free(&j->body);
	free(j);
}
