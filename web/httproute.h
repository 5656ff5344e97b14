/* SPDX-License-Identifier: Apache-2.0 */
/* httproute: the HTTP listener's one route table, every URL it answers (metrics, API, pages,
 * the stylesheet), and its one matcher. The listener (http.c) and the page pool (httppage.c)
 * call a route's handler with what it may read in struct httproute_req; a handler never reads
 * the listener's state nor, on the pool, a connection. */
#ifndef WGWATCH_HTTPROUTE_H
#define WGWATCH_HTTPROUTE_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "web/http.h"
#include "web/metrics.h"

/* The methods of a route, a set: GET takes HEAD too (libmicrohttpd drops the body). */
enum { HTTPROUTE_GET = 1, HTTPROUTE_POST = 2, HTTPROUTE_DELETE = 4 };

enum httproute_match {
	HTTPROUTE_EXACT,  /* the path and nothing else; rest is "" */
	HTTPROUTE_PREFIX, /* the path and anything after it (maybe nothing), which is rest */
	HTTPROUTE_NAMED,  /* path "A*B": A, a name of one character or more (rest), then B */
};

enum httproute_run {
	HTTPROUTE_INLINE, /* on libmicrohttpd's thread: must not read the database */
	HTTPROUTE_POOL,   /* on httppage.c's pool, the connection suspended meanwhile */
};

/* What the guard (httpguard.c) asks of a request before the route runs. */
enum httproute_access {
	HTTPROUTE_READ,   /* no body; basic auth when [web] user is set */
	HTTPROUTE_WRITE,  /* a JSON body up to HTTPGUARD_BODY_MAX; auth on, same origin */
	HTTPROUTE_ACTION, /* no body (real traffic); auth on, same origin */
};

/* A request as its handler sees it. */
struct httproute_req {
	const struct http_deps *deps;
	const char *method; /* as sent, HEAD stays HEAD; NULL on the pool (GET or HEAD) */
	const char *rest;   /* see enum httproute_match; decoded, any characters */
	size_t rest_len;    /* rest may go on past it (a named route's B) */
	/* The query: the connection's (inline), or a copy of it (on the pool, conn NULL). */
	struct MHD_Connection *conn;
	char *const *keys, *const *values;
	size_t nargs;
	/* Inline only, from the listener: */
	unsigned port;    /* the bound port */
	int64_t stale_ms; /* a heartbeat older than this fails /healthz */
	const char *user; /* the [web] user when basic auth is on, else NULL */
	const char *body; /* a write's body (NULL: none) and its length */
	size_t body_len;
	const struct metrics_http *counters; /* the listener's own, for /metrics */
};

/* A handler's reply: it fills body and ctype (text/plain unless set) and returns the status. */
struct httproute_reply {
	buf_t body;
	const char *ctype;
	bool gzipped; /* body is gzip already */
};

typedef unsigned (*httproute_fn)(const struct httproute_req *r, struct httproute_reply *out);

struct httproute {
	unsigned methods; /* HTTPROUTE_GET | ... */
	const char *path;
	enum httproute_match match;
	enum httproute_run run;
	enum httproute_access access;
	httproute_fn fn;
};

/* The route that answers method on url (libmicrohttpd's decoded path), with *rest and
 * *rest_len set; NULL when none does (then a GET or HEAD is a 404, another method a 405). */
const struct httproute *httproute_find(
	const char *method, const char *url, const char **rest, size_t *rest_len);
/* The Allow header of a 405 for url: "GET, HEAD" and the other methods of every route that
 * matches it (exact, prefix or named: POST for /api/v1/routers/NAME/probe). */
const char *httproute_allow(const char *url);
/* A query argument of r, percent-decoded; NULL when absent. */
const char *httproute_arg(const struct httproute_req *r, const char *key);

#endif
