/* SPDX-License-Identifier: Apache-2.0 */
/* httpgzip: parse Accept-Encoding, deflate into a gzip member (zlib's windowBits 15 + 16).
 * Level 1, zlib's fastest: /metrics of 1,000 routers shrinks to 4 % of its size for about 3
 * times the CPU of its render (level 6: 3 % for 7 times; docs/benchmarks.md). Whole replies at
 * once, or streamed piece by piece (/metrics). It must never read past the header value, nor
 * hand out a partial member. */
#include "config.h"
#include "web/httpgzip.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "lib/xmem.h"

#define HTTPGZIP_LEVEL 1

/* The q of one member's parameters ("; q=0.5"), 1 when not given; p points after the coding. */
static double httpgzip_q(const char *p, const char *end)
{
	while (p < end) {
		while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
			p++;
		if (end - p >= 2 && tolower((unsigned char)p[0]) == 'q' && p[1] == '=')
			return strtod(p + 2, NULL);
		while (p < end && *p != ';')
			p++;
	}
	return 1;
}

bool httpgzip_accepted(const char *v)
{
	double gzip = -1, star = -1; /* -1: not named */
	while (v != NULL && *v != '\0') {
		const char *end = strchr(v, ',');
		if (end == NULL)
			end = v + strlen(v);
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		size_t n = strcspn(v, " \t;,");
		if (v + n > end)
			n = (size_t)(end - v);
		if ((n == 4 && strncasecmp(v, "gzip", 4) == 0) ||
			(n == 6 && strncasecmp(v, "x-gzip", 6) == 0))
			gzip = httpgzip_q(v + n, end);
		else if (n == 1 && *v == '*')
			star = httpgzip_q(v + n, end);
		v = *end ? end + 1 : end;
	}
	return gzip >= 0 ? gzip > 0 : star > 0;
}

struct httpgzip {
	z_stream z;
	buf_t *out;
	bool failed;
};

httpgzip_t *httpgzip_begin(buf_t *out)
{
	httpgzip_t *g = xcalloc(1, sizeof(*g));
	g->out = out;
	g->failed = deflateInit2(&g->z, HTTPGZIP_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK;
	return g;
}

/* Deflate what is in z->next_in into out, growing it; flush Z_NO_FLUSH or Z_FINISH. */
static void httpgzip_run(httpgzip_t *g, int flush)
{
	int rc = Z_OK;
	while (!g->failed && (g->z.avail_in > 0 || (flush == Z_FINISH && rc != Z_STREAM_END))) {
		size_t room = g->z.avail_in / 8 + 64 * 1024; /* text of /metrics shrinks 10 to 30 times */
		buf_reserve(g->out, g->out->len + room + 1);
		g->z.next_out = (Bytef *)g->out->data + g->out->len;
		g->z.avail_out = (uInt)room;
		rc = deflate(&g->z, flush);
		g->out->len += room - g->z.avail_out;
		g->out->data[g->out->len] = '\0';
		g->failed = rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR;
	}
}

void httpgzip_feed(httpgzip_t *g, const void *in, size_t n)
{
	g->z.next_in = (Bytef *)(uintptr_t)in;
	g->z.avail_in = (uInt)n;
	httpgzip_run(g, Z_NO_FLUSH);
}

int httpgzip_finish(httpgzip_t *g)
{
	g->z.next_in = NULL;
	g->z.avail_in = 0;
	httpgzip_run(g, Z_FINISH);
	bool failed = g->failed;
	deflateEnd(&g->z); /* also after a failed deflateInit2: it then only says so */
	free(g);
	return failed ? -1 : 0;
}

int httpgzip_compress(const void *in, size_t n, buf_t *out)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, HTTPGZIP_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	size_t start = out->len, room = deflateBound(&z, (uLong)n) + 32;
	buf_reserve(out, start + room + 1);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)out->data + start;
	z.avail_out = (uInt)room;
	int rc = deflate(&z, Z_FINISH);
	size_t made = room - z.avail_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END)
		return -1;
	out->len = start + made;
	out->data[out->len] = '\0';
	return 0;
}
