/* SPDX-License-Identifier: Apache-2.0 */
/* httpgzip_test: web/httpgzip.c. Accept-Encoding values as browsers, Prometheus and curl send
 * them, and the edge cases of RFC 9110's grammar (q=0, "*", case, x-gzip); the compression
 * round-trips through zlib's own inflate and is much smaller on an exposition. */
#include "config.h"
#include "web/httpgzip.h"
#include "lib/buf.h"
#include "unit.h"

#include <stdlib.h>
#include <zlib.h>

static const struct {
	const char *value;
	bool want;
} httpgzip_cases[] = {
	{ NULL, false },
	{ "", false },
	{ "gzip", true },
	{ "gzip, deflate, br", true },                 /* browsers */
	{ "gzip;q=1.0, identity;q=0.5, *;q=0", true }, /* curl --compressed and friends */
	{ "identity", false },
	{ "deflate, br", false },
	{ "gzip;q=0", false },
	{ "gzip; q=0.000", false },
	{ "GZIP", true },
	{ "x-gzip", true },
	{ "*", true },
	{ "*;q=0", false },
	{ "br, *;q=0.1", true },
	{ "gzip;q=0, *", false }, /* named gzip wins over * */
	{ "gzipped", false },
	{ " gzip ", true },
	{ "deflate,gzip;q=0.5", true },
};

static void test_accepted(void)
{
	for (size_t i = 0; i < sizeof(httpgzip_cases) / sizeof(httpgzip_cases[0]); i++) {
		bool got = httpgzip_accepted(httpgzip_cases[i].value);
		if (got != httpgzip_cases[i].want)
			fprintf(stderr, "  Accept-Encoding \"%s\"\n",
				httpgzip_cases[i].value ? httpgzip_cases[i].value : "(none)");
		CHECK_INT(got, httpgzip_cases[i].want);
	}
}

static void test_round_trip(void)
{
	buf_t in, z;
	buf_init(&in);
	buf_init(&z);
	for (int r = 0; r < 2000; r++)
		buf_printf(&in,
			"wgwatch_cpu_core_load_ratio{router=\"hub-%04d\",core=\"%d\",site=\"bench\"} 0.%d\n",
			r, r % 9, r % 97);
	buf_puts(&z, "kept"); /* appended after what is there */
	CHECK_INT(httpgzip_compress(in.data, in.len, &z), 0);
	CHECK(z.len > 4 + 10 && memcmp(z.data, "kept", 4) == 0);
	CHECK((unsigned char)z.data[4] == 0x1f && (unsigned char)z.data[5] == 0x8b); /* gzip magic */
	CHECK(z.len - 4 < in.len / 5);
	printf("  %zu bytes -> %zu gzipped\n", in.len, z.len - 4);
	char *back = malloc(in.len + 1);
	z_stream s = { 0 };
	CHECK_INT(inflateInit2(&s, 15 + 16), Z_OK);
	s.next_in = (Bytef *)z.data + 4;
	s.avail_in = (uInt)(z.len - 4);
	s.next_out = (Bytef *)back;
	s.avail_out = (uInt)in.len + 1;
	CHECK_INT(inflate(&s, Z_FINISH), Z_STREAM_END);
	CHECK_INT(s.total_out, in.len);
	CHECK(memcmp(back, in.data, in.len) == 0);
	inflateEnd(&s);
	free(back);
	buf_free(&in);
	buf_free(&z);
}

int main(void)
{
	test_accepted();
	test_round_trip();
	return unit_done("httpgzip_test");
}
