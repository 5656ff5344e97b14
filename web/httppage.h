/* SPDX-License-Identifier: Apache-2.0 */
/* httppage: the routes that may read the database (httproute.c's POOL routes: the HTML pages,
 * the history, rollout and report API), answered off libmicrohttpd's threads: the request's
 * connection is suspended, a thread of a small pool of its own renders the page, and the
 * connection is resumed to send it. So a slow page never holds a listener thread, and
 * /healthz and /metrics always find one. */
#ifndef WGWATCH_HTTPPAGE_H
#define WGWATCH_HTTPPAGE_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/buf.h"
#include "web/http.h"
#include "web/httproute.h"

typedef struct httppage httppage_t;
typedef struct httppage_job httppage_job_t; /* one page request, from its start to its reply */

/* nthreads threads rendering pages from deps (which must outlive them), and a watchdog that
 * resumes, to a 503, every connection still suspended deadline_ms after its page was queued
 * (WGWATCH_TEST_PAGE_DEADLINE_MS overrides it, for tests). Never NULL: without threads
 * (nthreads 0, or none could start) pages render inline, on the caller's thread. */
httppage_t *httppage_create(const struct http_deps *deps, unsigned nthreads, int64_t deadline_ms);
/* Render every page queued or under way, resuming its connection, and stop the threads;
 * later pages render inline. Before MHD_stop_daemon, which must find no suspended connection.
 * NULL is fine. */
void httppage_stop(httppage_t *p);
void httppage_destroy(httppage_t *p); /* after httppage_stop and MHD_stop_daemon; NULL is fine */
/* How many pages the watchdog answered 503 so far; counted before their connections resume, so
 * a client that saw its 503 finds it counted. Any thread. */
uint64_t httppage_late_count(httppage_t *p);

/* From the access handler, for a request that passed the guard to a POOL route (rest and
 * rest_len as httproute_find gave them; they are copied, with the query): the job (keep it in
 * *req_cls). With *suspended, its connection is suspended and the page queued: reply when the
 * handler is called again; else the page is rendered already. */
httppage_job_t *httppage_begin(httppage_t *p, struct MHD_Connection *conn, const struct httproute *route,
	const char *rest, size_t rest_len, bool *suspended);
/* The rendered page: its status, content type and body (moved into body); a 503 when the
 * watchdog resumed the connection before the page was rendered. */
unsigned httppage_reply(httppage_job_t *j, buf_t *body, const char **ctype);
/* From MHD's completion callback; NULL is fine. A late job still rendering is freed by its
 * renderer instead. */
void httppage_job_free(httppage_job_t *j);

#endif
