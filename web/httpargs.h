/* SPDX-License-Identifier: Apache-2.0 */
/* httpargs: a request target's query arguments, parsed here rather than by libmicrohttpd.
 * libmicrohttpd 0.9.75 stores them in the connection's fixed memory right after the request
 * line; when they do not fit it queues a 431 that it never sends, and the connection hangs
 * until a timeout. Here they are taken off the target before it parses them, and handed back
 * one by one, which simply fails when there is no room (the caller refuses the request). It
 * never writes to libmicrohttpd's copy of the target past the byte after the '?', nor reads
 * past the end of the C string it is given; it writes to a connection's socket only to refuse
 * a request libmicrohttpd would leave hanging (httpargs_unescape). */
#ifndef WGWATCH_HTTPARGS_H
#define WGWATCH_HTTPARGS_H

#include <stddef.h>

#include <microhttpd.h>

/* More arguments than this are not handed over at all: the request is refused, and its reply
 * must still find room in the connection's memory (the pages read at most five). */
#define HTTPARGS_MAX 32

typedef struct httpargs httpargs_t;

/* From libmicrohttpd's URI log callback, with the raw target: copies its query, then ends
 * libmicrohttpd's query right after the '?' so that it parses no arguments. NULL when the
 * target has no query. */
httpargs_t *httpargs_take(const char *uri);
/* How many arguments a holds (0 for NULL). */
size_t httpargs_count(const httpargs_t *a);
/* Argument i's key and value (NULL: no '='), percent- and '+'-decoded. */
const char *httpargs_key(const httpargs_t *a, size_t i, size_t *len);
const char *httpargs_value(const httpargs_t *a, size_t i, size_t *len);
/* From the access handler: adds the arguments to conn as MHD_GET_ARGUMENT_KIND values (they
 * point into a: keep it until the request completes). 0, or -1 when there are more than
 * HTTPARGS_MAX or the connection's memory has no room for them. NULL is fine. */
int httpargs_give(const httpargs_t *a, struct MHD_Connection *conn);
void httpargs_free(httpargs_t *a); /* NULL is fine */

/* libmicrohttpd's unescape callback (MHD_OPTION_UNESCAPE_CALLBACK): decodes s as its own does.
 * It is also the first code of ours to run after libmicrohttpd parsed a target's arguments.
 * When a raw NUL comes before the '?', httpargs_take's copy ends at the NUL and takes nothing
 * off; then libmicrohttpd parses the arguments itself, and when they do not fit it queues a
 * 431 it never sends (see above). A response queued by then can only be that: the request is
 * refused here with a 400 written to the socket (not over TLS, which libmicrohttpd frames),
 * and the connection is shut down, which libmicrohttpd sees at once and closes. */
size_t httpargs_unescape(void *cls, struct MHD_Connection *conn, char *s);

#endif
