/* httpgzip: parse Accept-Encoding, deflate into a gzip member (zlib's windowBits 15 + 16).
 * Level 1, zlib's fastest: /metrics of 1,000 routers shrinks to 4 % of its size for about 3
 * times the CPU of its render (level 6: 3 % for 7 times; docs/benchmarks.md). It must never
 * read past the header value, nor hand out a partial member. */
#include "config.h"
#include "web/httpgzip.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

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
