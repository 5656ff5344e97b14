/* SPDX-License-Identifier: Apache-2.0 */
/* simrest: the RouterOS REST surface of one simulated router: auth, the content faults (401,
 * malformed, html, big) and those of one menu (menu_fault), routing, records, .proplist, GET
 * filters and POST print .query. It sees a parsed request and fills a reply; it never touches
 * sockets. */
#ifndef WGWATCH_SIMREST_H
#define WGWATCH_SIMREST_H

#include "lib/buf.h"
#include "sim/simrouter.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct simreq {
	const char *method;
	const char *path;  /* without the query string */
	const char *query; /* after '?', "" if none */
	const char *auth;  /* the Authorization header value, NULL if none */
	const char *body;
	size_t body_len;
	const char *content_type; /* the Content-Type header, NULL if none */
	double time_scale;        /* simulated seconds a real one (held commands); 0: 1 */
};

struct simresp {
	int status;
	const char *content_type;
	const char *extra_headers; /* complete "Name: value\r\n" lines, or "" */
	buf_t body;                /* owned; used unless shared is set */
	const char *shared;        /* a static body (the big fault), not freed */
	size_t shared_len;
	int served_private_key; /* records that carried private-key or preshared-key */
	double hold;            /* real seconds to hold the reply (a command with a duration) */
};

/* Wall-clock time of simulated second 0 (for dates such as last-link-up-time). */
void simrest_set_epoch(time_t epoch);
/* Which user the Authorization header hdr names, with the right password: 0 the scenario's
 * user, 1 its diag_user; -1 none. */
int simrest_user(const scenario_t *sc, const char *hdr);
/* Answer q for router r at simulated time t. out->body must be initialised by the caller. */
void simrest_handle(const simrouter_t *r, double t, const struct simreq *q, struct simresp *out);
/* Whether the request for target ("/rest/system/health?...") goes unanswered at simulated time
 * t: its menu has the hang menu_fault (simhttp parks it like the hang fault). */
bool simrest_hangs(const simrouter_t *r, double t, const char *target);
/* Format seconds as a RouterOS duration ("40w6d5h1m24s", "0s"). */
void simrest_duration(double sec, char *out, size_t size);

#endif
