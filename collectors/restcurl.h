/* SPDX-License-Identifier: Apache-2.0 */
/* restcurl: the libcurl handles of collectors/rest.c: the multi handles its routers are spread
 * over, a pool of easy handles with the settings every one gets, a router's TLS settings and a
 * request's, and what a curl result means as a sample error. Knows nothing of polls. */
#ifndef WGWATCH_RESTCURL_H
#define WGWATCH_RESTCURL_H

#include <stdbool.h>

#include <curl/curl.h>

#include "collectors/restmulti.h"
#include "daemon/conf.h"
#include "daemon/sample.h"
#include "lib/loop.h"

typedef struct restcurl restcurl_t;

/* Multis on loop, done called for their transfers (restmulti.h; *dying as there); every easy
 * handle writes its body through write and its headers and trailers through header. Reads the
 * proxy variables of the environment once. */
restcurl_t *restcurl_create(loop_t *loop, const bool *dying, restmulti_done_fn done,
	curl_write_callback write, curl_write_callback header);
void restcurl_destroy(restcurl_t *rc); /* the idle easy handles, then the multis */
/* The multi with the fewest routers, or a new one when all are full; NULL when curl cannot
 * make one. */
restmulti_t *restcurl_multi(restcurl_t *rc);
/* Lends *easy to owner, a pooled handle or a new one with the settings of every handle: owner
 * is its CURLINFO_PRIVATE and the data of the write and header callbacks, *nofd set when a
 * connection of its found no descriptor (restcurl_open); *errbuf its error buffer (of
 * CURL_ERROR_SIZE), pooled with it: a router needs none between polls. -1 when curl refuses a
 * setting, or cannot make a handle (*easy and *errbuf NULL). */
int restcurl_take(restcurl_t *rc, void *owner, bool *nofd, CURL **easy, char **errbuf);
/* e and its errbuf back to the pool, or freed when e was given a router's own CA file (own_ca). */
void restcurl_give(restcurl_t *rc, CURL *e, char *errbuf, bool own_ca);
/* The per-router settings (TLS) of e for a poll of r; sets *own_ca when e gets r's CA file.
 * 0, or -1 when curl refuses one. */
int restcurl_configure(CURL *e, const conf_router_t *r, bool *own_ca);
/* A request's settings: base names the router for curl's messages, url is the request's URL,
 * left_ms its time, hdr its headers, post its body (NULL: a GET). 0, or -1 when curl refuses
 * one. */
int restcurl_request(
	CURL *e, const char *base, CURLU *url, long left_ms, struct curl_slist *hdr, const char *post);
enum sample_err restcurl_kind(CURLcode res); /* the sample error of a failed transfer */
/* CURLOPT_OPENSOCKETFUNCTION of every handle that connects to a router (CURLOPT_OPENSOCKETDATA:
 * a bool, or NULL): a socket that is refused because the process is out of descriptors, or
 * because it would take one of those kept in reserve (lib/fdreserve.h), sets the bool; curl then
 * fails the transfer as if it could not connect. */
curl_socket_t restcurl_open(void *nofd, curlsocktype purpose, struct curl_sockaddr *addr);
/* Why such a transfer failed, for the sample (malloc'd): "out of file descriptors (...)". */
char *restcurl_nofd_reason(void);

#endif
