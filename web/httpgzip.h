/* SPDX-License-Identifier: Apache-2.0 */
/* httpgzip: gzip content coding for the listener's replies (RFC 9110 8.4.1, RFC 1952): whether a
 * request's Accept-Encoding takes gzip, and the compression itself, with zlib. It never
 * compresses a reply the client did not ask to have compressed. */
#ifndef WGWATCH_HTTPGZIP_H
#define WGWATCH_HTTPGZIP_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/buf.h"

#define HTTPGZIP_MIN 1024 /* smaller replies go as they are: the header would eat the gain */

/* Whether an Accept-Encoding value (NULL: no header) accepts gzip: a "gzip" or "*" member
 * whose q is not 0, "gzip" taking precedence over "*". */
bool httpgzip_accepted(const char *accept_encoding);
/* in (n bytes) as a gzip member in out (appended). Returns 0, or -1 when zlib fails (out is
 * then left as it was). */
int httpgzip_compress(const void *in, size_t n, buf_t *out);

/* The same as a stream, for a reply rendered piece by piece: begin, feed each piece, finish.
 * The member is appended to out as it is made. finish (which frees the stream) returns 0, or
 * -1 when zlib failed at any step (out then holds no usable member). */
typedef struct httpgzip httpgzip_t;
httpgzip_t *httpgzip_begin(buf_t *out);
void httpgzip_feed(httpgzip_t *z, const void *in, size_t n);
int httpgzip_finish(httpgzip_t *z);

#endif
