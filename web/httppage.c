/* SPDX-License-Identifier: Apache-2.0 */
/* httppage: the pool that renders the routes that may read the database (httproute.c's POOL
 * ones) for suspended connections (see httppage.h). A job copies what it needs of its request
 * (the rest of the path, the query) before the suspension, so the pool never reads a
 * connection; its only call on one is the resume, made once, under the decision of whoever
 * (the renderer or the watchdog) took the job off the in-flight list. A connection must never
 * stay suspended past the deadline: libmicrohttpd neither times out nor watches a suspended
 * connection, so the watchdog answers 503 in the page's place; a renderer still at work then
 * frees the job, if the connection let go of it first. */
#include "config.h"
#include "web/httppage.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/complain.h"
#include "lib/log.h"
#include "lib/worker.h"
#include "lib/xmem.h"
#include "web/httproute.h"

#define HTTPPAGE_MAX_ARGS     16  /* query arguments kept; pages read at most five */
#define HTTPPAGE_WATCH_MS     250 /* how often the watchdog looks */
#define HTTPPAGE_LATE_EVERY   100 /* after the first late page, log one in this many */
#define HTTPPAGE_RESUME_BATCH 32  /* connections the watchdog resumes per pass of the lock */

enum httppage_state { HTTPPAGE_QUEUED, HTTPPAGE_RENDERING, HTTPPAGE_DONE };

struct httppage_job {
	httppage_t *pool; /* NULL when rendered inline */
	const struct httproute *route;
	char *rest; /* the route's rest (httproute.h), decoded */
	char *keys[HTTPPAGE_MAX_ARGS], *values[HTTPPAGE_MAX_ARGS];
	size_t nargs;
	struct MHD_Connection *conn;
	unsigned status;
	struct httproute_reply out;
	/* Under the pool's mutex: */
	enum httppage_state state;
	bool late;                   /* the watchdog resumed it: the reply is a 503, not body */
	bool released;               /* the connection let go of it while it was still rendering */
	int64_t deadline_ms;         /* monotonic: resumed by then, rendered or not */
	httppage_job_t *prev, *next; /* in flight (suspended, not yet resumed), oldest first */
};

struct httppage {
	struct http_deps deps;
	pthread_mutex_t mu;
	pthread_cond_t wake;
	httppage_job_t *head, *tail; /* in flight, queued or rendering, oldest first */
	bool stopping;
	pthread_t *threads;
	size_t nthreads;
	int64_t deadline_ms;   /* a suspended connection is resumed within this */
	worker_t *watchdog;    /* NULL when it could not start */
	complain_t late_c;     /* throttles the warning about late pages */
	uint64_t late_total;   /* under mu: jobs taken late (wgwatch_http_pages_late_total) */
	int64_t test_delay_ms; /* WGWATCH_TEST_PAGE_DELAY_MS: a slow page, for tests only */
};

/* ---- rendering ---- */

static void httppage_render(httppage_t *p, httppage_job_t *j)
{
	if (p->test_delay_ms > 0) {
		struct timespec ts = { p->test_delay_ms / 1000, (long)(p->test_delay_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
	}
	struct httproute_req r = { .deps = &p->deps,
		.rest = j->rest,
		.rest_len = strlen(j->rest),
		.keys = j->keys,
		.values = j->values,
		.nargs = j->nargs };
	j->status = j->route->fn(&r, &j->out);
}

/* ---- the in-flight list (under the mutex) ---- */

static void httppage_unlink(httppage_t *p, httppage_job_t *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		p->head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		p->tail = j->prev;
	j->prev = j->next = NULL;
}

static void httppage_append(httppage_t *p, httppage_job_t *j)
{
	j->prev = p->tail;
	j->next = NULL;
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
}

/* The oldest job no thread renders yet; NULL when none. Those rendering, at most one a thread,
 * are the oldest, so this looks at few. */
static httppage_job_t *httppage_next_queued(httppage_t *p)
{
	httppage_job_t *j = p->head;
	while (j != NULL && j->state != HTTPPAGE_QUEUED)
		j = j->next;
	return j;
}

/* ---- the pool ---- */

/* After rendering j: resume its connection, unless the watchdog did (then free j if the
 * connection let go of it already). Takes and leaves the mutex held. */
static void httppage_finish(httppage_t *p, httppage_job_t *j)
{
	j->state = HTTPPAGE_DONE;
	bool late = j->late, released = j->released;
	if (!late)
		httppage_unlink(p, j);
	struct MHD_Connection *conn = j->conn;
	pthread_mutex_unlock(&p->mu);
	if (!late)
		MHD_resume_connection(conn); /* j belongs to the connection's thread from here */
	else if (released)
		httppage_job_free(j);
	pthread_mutex_lock(&p->mu);
}

static void *httppage_main(void *arg)
{
	httppage_t *p = arg;
	pthread_setname_np(pthread_self(), "wg-page"); /* by itself: prctl, no /proc file opened */
	pthread_mutex_lock(&p->mu);
	for (;;) {
		httppage_job_t *j = httppage_next_queued(p);
		if (j == NULL && p->stopping)
			break;
		if (j == NULL) {
			pthread_cond_wait(&p->wake, &p->mu);
			continue;
		}
		j->state = HTTPPAGE_RENDERING;
		pthread_mutex_unlock(&p->mu);
		httppage_render(p, j);
		pthread_mutex_lock(&p->mu);
		httppage_finish(p, j);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Under the mutex: take up to n jobs past their deadline off the list, marked late, into conns;
 * how many. A queued one is never rendered; a rendering one is freed by its renderer or by the
 * connection, whichever lets go last. */
static size_t httppage_take_late(httppage_t *p, int64_t now_ms, struct MHD_Connection **conns, size_t n)
{
	size_t k = 0;
	while (k < n && p->head != NULL && p->head->deadline_ms <= now_ms) {
		httppage_job_t *j = p->head; /* the list is in order of deadline */
		httppage_unlink(p, j);
		j->late = true;
		conns[k++] = j->conn;
	}
	p->late_total += k;
	return k;
}

/* The watchdog's tick: resume every connection suspended past the deadline, to a 503. */
static void httppage_watch(void *arg)
{
	httppage_t *p = arg;
	struct MHD_Connection *conns[HTTPPAGE_RESUME_BATCH];
	uint64_t late = 0, held = 0;
	size_t k;
	do {
		pthread_mutex_lock(&p->mu);
		k = httppage_take_late(p, clock_mono_ms(), conns, HTTPPAGE_RESUME_BATCH);
		pthread_mutex_unlock(&p->mu);
		for (size_t i = 0; i < k; i++)
			MHD_resume_connection(conns[i]); /* suspended until now, so still there */
		late += k;
	} while (k == HTTPPAGE_RESUME_BATCH);
	if (late == 0)
		return;
	pthread_mutex_lock(&p->mu);
	bool report = complain_note(&p->late_c, &held);
	pthread_mutex_unlock(&p->mu);
	if (report)
		log_warn("http: %" PRIu64 " page%s not rendered within %lld ms, answered 503 "
			 "(%" PRIu64 " more since the last warning)",
			late, late == 1 ? "" : "s", (long long)p->deadline_ms, held);
}

httppage_t *httppage_create(const struct http_deps *deps, unsigned nthreads, int64_t deadline_ms)
{
	httppage_t *p = xcalloc(1, sizeof(*p));
	p->deps = *deps;
	const char *delay = getenv("WGWATCH_TEST_PAGE_DELAY_MS");
	p->test_delay_ms = delay ? atoll(delay) : 0;
	const char *deadline = getenv("WGWATCH_TEST_PAGE_DEADLINE_MS");
	p->deadline_ms = deadline && atoll(deadline) > 0 ? atoll(deadline) : deadline_ms;
	complain_init(&p->late_c, HTTPPAGE_LATE_EVERY);
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
	if (p->nthreads > 0 &&
		worker_start("wg-pagewatch", HTTPPAGE_WATCH_MS, httppage_watch, p, &p->watchdog) != 0)
		log_warn("http: cannot start the page watchdog: a page that never renders holds its "
			 "connection");
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
	worker_stop(p->watchdog); /* after: it may still answer for a renderer that stalls */
	p->watchdog = NULL;
}

uint64_t httppage_late_count(httppage_t *p)
{
	pthread_mutex_lock(&p->mu);
	uint64_t n = p->late_total;
	pthread_mutex_unlock(&p->mu);
	return n;
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
		j->pool = p;
		j->state = HTTPPAGE_QUEUED;
		j->deadline_ms = clock_mono_ms() + p->deadline_ms;
		httppage_append(p, j);
		pthread_cond_signal(&p->wake);
	}
	pthread_mutex_unlock(&p->mu);
	return queued;
}

httppage_job_t *httppage_begin(httppage_t *p, struct MHD_Connection *conn, const struct httproute *route,
	const char *rest, size_t rest_len, bool *suspended)
{
	httppage_job_t *j = xcalloc(1, sizeof(*j));
	j->route = route;
	j->rest = xstrndup(rest, rest_len);
	j->conn = conn;
	j->state = HTTPPAGE_DONE;
	buf_init(&j->out.body);
	j->out.ctype = "text/plain; charset=utf-8";
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, httppage_copy_arg, j);
	*suspended = httppage_queue(p, j); /* from here j is the pool's until the resume */
	if (!*suspended)
		httppage_render(p, j);
	return j;
}

unsigned httppage_reply(httppage_job_t *j, buf_t *body, const char **ctype)
{
	bool late = false;
	if (j->pool != NULL) {
		pthread_mutex_lock(&j->pool->mu);
		late = j->late;
		pthread_mutex_unlock(&j->pool->mu);
	}
	buf_init(body);
	if (late) { /* the renderer may still write j->out */
		buf_printf(body, "this page was not ready within %lld ms; try again later\n",
			(long long)j->pool->deadline_ms);
		*ctype = "text/plain; charset=utf-8";
		return 503;
	}
	*body = j->out.body;
	buf_init(&j->out.body);
	*ctype = j->out.ctype;
	return j->status;
}

static void httppage_job_destroy(httppage_job_t *j)
{
	for (size_t i = 0; i < j->nargs; i++) {
		free(j->keys[i]);
		free(j->values[i]);
	}
	free(j->rest);
	buf_free(&j->out.body);
	free(j);
}

void httppage_job_free(httppage_job_t *j)
{
	if (j == NULL)
		return;
	if (j->pool != NULL) {
		pthread_mutex_lock(&j->pool->mu);
		bool rendering = j->state == HTTPPAGE_RENDERING;
		if (rendering) /* late: its renderer frees it when done (httppage_finish) */
			j->released = true;
		pthread_mutex_unlock(&j->pool->mu);
		if (rendering)
			return;
	}
	httppage_job_destroy(j);
}
