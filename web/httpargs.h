/* httpargs: a request target's query arguments, parsed here rather than by libmicrohttpd.
 * libmicrohttpd 0.9.75 stores them in the connection's fixed memory right after the request
 * line; when they do not fit it queues a 431 that it never sends, and the connection hangs
 * until a timeout. Here they are taken off the target before it parses them, and handed back
 * one by one, which simply fails when there is no room (the caller refuses the request). It
 * never writes to libmicrohttpd's copy of the target past the byte after the '?'. */
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

#endif
