/* SPDX-License-Identifier: Apache-2.0 */
/* restreq: the requests of a RouterOS REST poll (collectors/rest.c does the I/O): each step's
 * URL, POST body and the name it goes by in errors. */
#ifndef WGWATCH_RESTREQ_H
#define WGWATCH_RESTREQ_H

#include "collectors/restdecode.h"
#include "daemon/conf.h"
#include "daemon/sample.h"

#include <curl/curl.h>

/* "GET /rest/system/resource" and the like, for error lines; nfound: the WAN interfaces found
 * (restwan.h), asked for by name like those of `interfaces` and `wan`. */
const char *restreq_what(enum restdecode_step step, const conf_router_t *rc, size_t nfound);
/* What one request asks: path and query (without '?', NULL for none) are constants, post is
 * the POST body (malloc'd, the caller frees it) or NULL for a GET. */
struct restreq {
	const char *path;
	const char *query;
	char *post;
};

/* Step's request for router rc. found: the WAN interfaces found. s is the poll's sample so far
 * (its version decides the peers' .proplist). */
void restreq_get(enum restdecode_step step, const conf_router_t *rc, char *const *found, size_t nfound,
	const sample_t *s, struct restreq *q);
/* Turns q, the peers' request, into one for their counters alone (collectors/restpeers.h). */
void restreq_peer_counters(struct restreq *q);
/* The route check of dst (restwan.h). */
void restreq_route(const char *dst, struct restreq *q);

/* A router's URL kept parsed for curl (CURLOPT_CURLU): the base is parsed once, a request sets
 * only its path and query, so curl neither parses nor prints a whole URL per request. */
typedef struct restreq_url restreq_url_t;
restreq_url_t *restreq_url_create(void);
void restreq_url_destroy(restreq_url_t *u);
/* u's handle pointing at base (any path of its own kept in front) with q's path and query,
 * owned by u and valid until its next call; NULL when curl refuses base or has no memory. */
CURLU *restreq_url_point(restreq_url_t *u, const char *base, const struct restreq *q);

#endif
