/* SPDX-License-Identifier: Apache-2.0 */
/* resthdr: the headers of a router's REST requests, built once per router and not once per
 * request: the User-Agent, "Authorization: Basic ..." from its user and password (libcurl 7.88
 * formats both anew for every request it is given them as options), and for POST queries the
 * JSON Content-Type. It holds the credentials in memory only: never logs them, and wipes every
 * copy it drops. */
#ifndef WGWATCH_RESTHDR_H
#define WGWATCH_RESTHDR_H

#include <curl/curl.h>
#include <stdbool.h>

typedef struct resthdr resthdr_t;

resthdr_t *resthdr_create(void);
void resthdr_destroy(resthdr_t *h);

/* The header list of a request as user (NULL: no Authorization) with password pass (NULL: ""),
 * the User-Agent first; post adds the JSON Content-Type and turns off "Expect: 100-continue".
 * Looked up again only when user or pass differ from the last call's (a reload), and shared
 * with every handle given the same ones: loop thread only. Valid until h's next call or
 * destroy; NULL when curl has no memory (*failed set). */
struct curl_slist *resthdr_get(resthdr_t *h, const char *user, const char *pass, bool post, bool *failed);

/* "Basic " and the base64 of "user:pass" (NULL as ""), the value of an Authorization header (RFC 7617);
 * malloc'd, the caller wipes and frees it. */
char *resthdr_basic(const char *user, const char *pass);

#endif
