/* SPDX-License-Identifier: Apache-2.0 */
/* httpguard: what the HTTP listener refuses before any route (web/http.c): methods, bodies,
 * long or encoded request targets, traversal, basic auth and its throttle, the JSON and
 * same-origin rules of the writes. It never logs, and never keeps a password past the check. */
#ifndef WGWATCH_HTTPGUARD_H
#define WGWATCH_HTTPGUARD_H

#include <microhttpd.h>
#include <stdbool.h>

#include "web/auth.h"
#include "web/httproute.h"

#define HTTPGUARD_BODY_MAX 4096 /* the largest body of a HTTPROUTE_WRITE route */

/* For libmicrohttpd's URI log callback: a mark for httpguard_check when the raw target is too
 * long or holds an encoded NUL or slash, else NULL. */
const void *httpguard_uri_check(const char *uri);
/* The mark of a target too long (414), also for one whose arguments do not fit in memory. */
const void *httpguard_too_long(void);
/* 0 when the request may go to its route, else the status to refuse it with and in *why its
 * body; auth NULL: no [web] user (everyone may read, nobody may write). route: what
 * httproute_find gave for method and url (NULL: a 405 unless GET or HEAD). Every write (a
 * HTTPROUTE_WRITE or HTTPROUTE_ACTION route) must come with Content-Type application/json when
 * it is a POST and from no page of another site (Origin, Sec-Fetch-Site). mark: what
 * httpguard_uri_check gave. */
unsigned httpguard_check(auth_t *auth, struct MHD_Connection *conn, const char *url, const char *method,
	const struct httproute *route, const void *mark, const char **why);
/* The body of a refusal of status. */
const char *httpguard_refusal(unsigned status);

#endif
