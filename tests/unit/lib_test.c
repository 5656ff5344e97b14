/* SPDX-License-Identifier: Apache-2.0 */
/* lib_test: lib/jsonw against the bytes jansson's printer wrote, lib/hash against FNV's published vectors,
 * lib/text's repair and escaping, lib/clock's seam, lib/worker's tick, wake and stop
 * (synchronised on a condition, never on a sleep), and lib/fdreserve's refusal of descriptors
 * in the reserve. */
#include "config.h"
#include "lib/clock.h"
#include "lib/duration.h"
#include "lib/fdreserve.h"
#include "lib/hash.h"
#include "lib/jsonw.h"
#include "lib/text.h"
#include "lib/worker.h"
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static void test_hash(void)
{
	/* http://www.isthe.com/chongo/tech/comp/fnv/ test vectors */
	CHECK(hash_str32("") == 0x811c9dc5u);
	CHECK(hash_str32("a") == 0xe40c292cu);
	CHECK(hash_str32("foobar") == 0xbf9cf968u);
	CHECK(hash_bytes32("foobar", 6) == 0xbf9cf968u);
	CHECK(hash_str64("") == 0xcbf29ce484222325ull);
	CHECK(hash_str64("a") == 0xaf63dc4c8601ec8cull);
	CHECK(hash_str64("foobar") == 0x85944171f73967e8ull);
	CHECK(hash_mix64(0) == 0);                                         /* fmix64 keeps 0 ... */
	CHECK(hash_mix64(1) != hash_mix64(2) && hash_mix64(1) >> 32 != 0); /* ... and spreads 1 */
}

static void test_text(void)
{
	static const struct {
		const char *in, *utf8, *label, *html, *url;
	} cases[] = {
		{ "wg0", "wg0", "wg0", "wg0", "wg0" },
		{ "a\"b\\c\nd", "a\"b\\c\nd", "a\\\"b\\\\c\\nd", "a&quot;b\\c\nd", "a%22b%5Cc%0Ad" },
		{ "<x y='1'>&", "<x y='1'>&", "<x y='1'>&", "&lt;x y=&#39;1&#39;&gt;&amp;",
			"%3Cx%20y%3D%271%27%3E%26" },
		{ "caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9", "caf%C3%A9" },
		{ "bad\xff", "bad\xef\xbf\xbd", "bad\xef\xbf\xbd", "bad\xef\xbf\xbd", "bad%FF" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", NULL, NULL,
			"%ED%A0%80" },                                            /* surrogate */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", NULL, NULL, "%C0%AF" }, /* overlong */
		{ "wg: Transit (SoAda)", "wg: Transit (SoAda)", NULL, NULL, "wg%3A%20Transit%20%28SoAda%29" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_t b;
		buf_init(&b);
		text_put_utf8(&b, cases[i].in);
		CHECK_STR(b.data ? b.data : "", cases[i].utf8);
		if (cases[i].label != NULL) {
			buf_reset(&b);
			text_put_label(&b, cases[i].in);
			CHECK_STR(b.data, cases[i].label);
			buf_reset(&b);
			text_put_html(&b, cases[i].in);
			CHECK_STR(b.data, cases[i].html);
		}
		buf_reset(&b);
		text_put_url(&b, cases[i].in);
		CHECK_STR(b.data, cases[i].url);
		buf_free(&b);
	}
}

/* Control characters a router sent cannot start a line of their own (issue 21, item 8). */
static void test_oneline(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "CCR2004", "CCR2004" },
		{ "CCR\n<0>emerg: x", "CCR\\n<0>emerg: x" },
		{ "a\r\nb\tc", "a\\r\\nb\\tc" },
		{ "\x1b[2J\x7f\x01", "\\x1b[2J\\x7f\\x01" },
		{ "caf\xc3\xa9 \\n", "caf\xc3\xa9 \\n" },
		/* bidirectional controls, which make a log line read otherwise than it is (issue 39) */
		{ "CCR\xe2\x80\xae"
		  "exe.txt",
			"CCR\\u202e"
			"exe.txt" },
		{ "\xe2\x81\xa6x\xe2\x81\xa9\xd8\x9c\xe2\x80\x8f", "\\u2066x\\u2069\\u061c\\u200f" },
		{ "\xe2\x80\x94 \xe2", "\xe2\x80\x94 \xe2" }, /* an em dash; a cut sequence */
		{ NULL, "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_t b;
		buf_init(&b);
		text_put_oneline(&b, cases[i].in);
		buf_putc(&b, '\0');
		CHECK_STR(b.data, cases[i].out);
		buf_free(&b);
	}
}

/* Identity strings are cut at a character, never inside one. */
static void test_cap(void)
{
	char *a = text_cap("CCR2004-16G-2S+", TEXT_IDENTITY_MAX), *b = text_cap("caf\xc3\xa9", 4);
	char *c = text_cap("caf\xc3\xa9", 5);
	CHECK_STR(a, "CCR2004-16G-2S+");
	CHECK_STR(b, "caf");
	CHECK_STR(c, "caf\xc3\xa9");
	CHECK(text_cap(NULL, 4) == NULL);
	char big[10001];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	char *d = text_cap(big, TEXT_IDENTITY_MAX);
	CHECK_INT(strlen(d), TEXT_IDENTITY_MAX);
	free(a), free(b), free(c), free(d);
}

static void test_trim(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "" },
		{ "   ", "" },
		{ "wg0", "wg0" },
		{ " \t wg0 \r\n", "wg0" },
		{ "a b", "a b" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		CHECK_STR(text_trim(buf), cases[i].want);
	}
	/* text_cmp: NULL (not known) before every string, even "", and equal to NULL */
	CHECK_INT(text_cmp(NULL, NULL), 0);
	CHECK(text_cmp(NULL, "") < 0 && text_cmp("", NULL) > 0);
	CHECK(text_cmp("arm64", "tile") < 0 && text_cmp("tile", "arm64") > 0);
	CHECK_INT(text_cmp("tile", "tile"), 0);
}

/* lib/duration: the config's grammar (units, integers) and the scenarios' (bare seconds and
 * fractions too), one parser. */
static void test_duration(void)
{
	static const struct {
		const char *s;
		unsigned flags;
		int64_t ms; /* -1: refused */
	} cases[] = {
		{ "0", 0, 0 },
		{ "250ms", 0, 250 },
		{ "1h30m", 0, 5400000 },
		{ "1w", 0, 604800000 },
		{ "90", 0, -1 },
		{ "1.5h", 0, -1 },
		{ "90", DURATION_BARE_SECONDS, 90000 },
		{ "0.25", DURATION_BARE_SECONDS | DURATION_FRACTIONS, 250 },
		{ "1.5h", DURATION_FRACTIONS, 5400000 },
		{ "1h30", DURATION_BARE_SECONDS, -1 },
		{ "0x10", DURATION_BARE_SECONDS | DURATION_FRACTIONS, -1 },
		{ "1e3", DURATION_BARE_SECONDS | DURATION_FRACTIONS, -1 },
		{ "-1s", DURATION_FRACTIONS, -1 },
		{ "", DURATION_BARE_SECONDS, -1 },
		{ "1.s", DURATION_FRACTIONS, -1 },
		{ "99999999999999999999s", 0, -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ms = -1;
		const char *cause = NULL;
		int rc = duration_parse(cases[i].s, cases[i].flags, &ms, &cause);
		CHECK_INT(rc, cases[i].ms < 0 ? -1 : 0);
		CHECK_INT(ms, cases[i].ms);
		CHECK(rc == 0 || cause != NULL);
	}
	buf_t b;
	buf_init(&b);
	duration_fmt(&b, 694800250); /* 8d 1h 250ms */
	CHECK_STR(b.data, "8d1h250ms");
	buf_free(&b);
}

static int64_t test_fixed_wall(void)
{
	return 1234567;
}

static void test_clock(void)
{
	int64_t real = clock_wall_ms();
	CHECK(real > 1600000000000); /* after 2020 */
	clock_set_wall(test_fixed_wall);
	CHECK_INT(clock_wall_ms(), 1234567);
	clock_set_wall(NULL);
	CHECK(clock_wall_ms() >= real);
	int64_t m0 = clock_mono_ms();
	struct timespec dl = clock_mono_deadline(1500);
	int64_t dl_ms = (int64_t)dl.tv_sec * 1000 + dl.tv_nsec / 1000000;
	CHECK(dl_ms >= m0 + 1500 && dl_ms <= clock_mono_ms() + 1500);
	CHECK(dl.tv_nsec >= 0 && dl.tv_nsec < 1000000000);
}

struct test_counter {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int ticks;
	worker_t *w;
};

static void test_tick(void *arg)
{
	struct test_counter *c = arg;
	pthread_mutex_lock(&c->mu);
	c->ticks++;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->mu);
}

/* A tick that asks for the next one at once, three times over. */
static void test_tick_soon(void *arg)
{
	struct test_counter *c = arg;
	test_tick(c);
	if (c->ticks < 4)
		worker_next(c->w, c->ticks == 1 ? 5 : 0);
}

static void test_wait_ticks(struct test_counter *c, int n)
{
	pthread_mutex_lock(&c->mu);
	while (c->ticks < n)
		pthread_cond_wait(&c->cond, &c->mu);
	pthread_mutex_unlock(&c->mu);
}

static void test_worker(void)
{
	struct test_counter c = { .ticks = 0 };
	pthread_mutex_init(&c.mu, NULL);
	pthread_cond_init(&c.cond, NULL);
	worker_t *w = NULL;
	/* An hour between ticks: every tick after the first comes from a wake. */
	CHECK_INT(worker_start("wg-test", 3600 * 1000, test_tick, &c, &w), 0);
	CHECK(w != NULL);
	test_wait_ticks(&c, 1);
	for (int k = 2; k <= 4; k++) {
		worker_wake(w);
		test_wait_ticks(&c, k);
	}
	CHECK(!worker_stopping(w));
	worker_stop(w); /* must not wait the hour */
	CHECK_INT(c.ticks, 4);
	worker_stop(NULL);
	/* worker_next: four ticks within an hour's every, none woken from outside. */
	c.ticks = 0;
	CHECK_INT(worker_start("wg-test", 3600 * 1000, test_tick_soon, &c, &c.w), 0);
	test_wait_ticks(&c, 4);
	worker_stop(c.w);
	CHECK_INT(c.ticks, 4);
	pthread_cond_destroy(&c.cond);
	pthread_mutex_destroy(&c.mu);
}

/* A descriptor is refused when fewer than the reserve lie above it; none without a limit. */
static void test_fdreserve(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	fdreserve_set(0, FDRESERVE_DEFAULT); /* no limit known: nothing refused */
	CHECK_INT(fdreserve_check(fd), fd);
	fdreserve_set((uint64_t)fd + 4, 3); /* the reserve is fd + 1 .. fd + 3 */
	CHECK_INT(fdreserve_check(fd), fd);
	CHECK(fdreserve_allows(fd));
	fdreserve_set((uint64_t)fd + 3, 3); /* fd .. fd + 2: fd is in it */
	CHECK(!fdreserve_allows(fd) && !fdreserve_allows(-1));
	errno = 0;
	CHECK_INT(fdreserve_check(fd), -1);
	CHECK(errno == EMFILE && fdreserve_exhausted(errno) && fdreserve_exhausted(ENFILE));
	CHECK(fcntl(fd, F_GETFD) == -1); /* it was closed */
	CHECK(!fdreserve_exhausted(ECONNREFUSED));
	errno = EAGAIN;
	CHECK_INT(fdreserve_check(-1), -1); /* a failed open passes through */
	CHECK(errno == EAGAIN);
	CHECK(fdreserve_limit() == (uint64_t)fd + 3 && fdreserve_kept() == 3);
	fdreserve_set(0, 0);
}

/* jsonw writes the bytes jansson's compact printer wrote (jansson 2.14's, written out below), and
 * refuses what json_string refused. */
static void test_jsonw(void)
{
	static const char *const same[][2] = { { "", "\"\"" }, { "plain", "\"plain\"" },
		{ "q\"b\\s/", "\"q\\\"b\\\\s/\"" },
		{ "\b\f\n\r\t\x01\x1f\x7f", "\"\\b\\f\\n\\r\\t\\u0001\\u001F\x7f\"" },
		{ "caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"" },
		{ "\xe2\x80\xae", "\"\xe2\x80\xae\"" } };
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		buf_t b;
		buf_init(&b);
		CHECK_INT(jsonw_str(&b, same[i][0]), 0);
		CHECK_STR(b.data, same[i][1]);
		buf_free(&b);
	}
	static const char *const bad[] = { "\xff", "a\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80" };
	buf_t b;
	buf_init(&b);
	buf_puts(&b, "{");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(!text_is_utf8(bad[i]));
		CHECK_INT(jsonw_str(&b, bad[i]), -1);
		CHECK_INT(jsonw_add(&b, "k", bad[i]), -1);
		CHECK_INT(jsonw_add(&b, bad[i], "v"), -1);
	}
	CHECK_STR(b.data, "{"); /* a refusal leaves b as it was */
	CHECK_INT(jsonw_add(&b, "a", "1"), 0);
	CHECK_INT(jsonw_add(&b, "b", ""), 0);
	buf_puts(&b, ",\"l\":[");
	CHECK_INT(jsonw_add(&b, NULL, "x"), 0);
	CHECK_INT(jsonw_add(&b, NULL, "y"), 0);
	buf_puts(&b, "]}");
	CHECK_STR(b.data, "{\"a\":\"1\",\"b\":\"\",\"l\":[\"x\",\"y\"]}");
	CHECK(text_is_utf8(NULL) && text_is_utf8(""));
	buf_free(&b);
}

/* jsonw_indent lays compact text out as jansson's JSON_INDENT(1) dump of the same tree (the bytes
 * below are jansson 2.14's), strings untouched whatever brackets, commas or colons they hold. */
static void test_jsonw_indent(void)
{
	buf_t b;
	buf_init(&b);
	jsonw_indent(&b,
		"{\"schema\":\"x\",\"fleets\":[{\"a\":[],\"b\":{},\"c\":[1,2.5,null,true,\"q\\\"[,:]\\\\\"],"
		"\"d\":{\"e\":{\"f\":0.123457}}}],\"z\":[[]]}",
		1);
	CHECK_STR(b.data,
		"{\n \"schema\": \"x\",\n \"fleets\": [\n  {\n   \"a\": [],\n   \"b\": {},\n   \"c\": [\n    1,\n"
		"    2.5,\n    null,\n    true,\n    \"q\\\"[,:]\\\\\"\n   ],\n   \"d\": {\n    \"e\": {\n"
		"     \"f\": 0.123457\n    }\n   }\n  }\n ],\n \"z\": [\n  []\n ]\n}");
	buf_free(&b);
}

/* jsonw_copy writes back what jsonr read: every kind, nested, reals at the precision asked. */
static void test_jsonw_copy(void)
{
	static const char text[] =
		"{\"a\":[1,-3,2.5,\"x\\\"y\",true,false,null,{\"b\":{}}],\"c\":[],\"d\":0.1234567}";
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *root = jsonr_parse(d, text, sizeof(text) - 1);
	CHECK(root != NULL);
	buf_t b;
	buf_init(&b);
	jsonw_copy(&b, NULL, root, JSONW_PREC_MAX);
	CHECK_STR(b.data, text);
	buf_free(&b);
	buf_init(&b);
	jsonw_copy(&b, NULL, jsonr_get(root, "d"), 6);
	CHECK_STR(b.data, "0.123457");
	buf_free(&b);
	jsonr_destroy(d);
}

/* jsonw_real prints a real as jansson did (jansson 2.14's bytes, written out below), at every
 * precision the web uses; null for what jansson refused (json_real of NaN or an infinity). */
static void test_jsonw_real(void)
{
	static const double v[] = { 0, -0.0, 1, -1, 0.1, 1.0 / 3, 2.5e-7, 1e5, 1e17, 1e21, 123456789012.0,
		9.87654321e-300, 1.7976931348623157e308, 4.9e-324, 380e6, 0.95, -12.345678901234 };
	static const int prec[] = { 17, 10, 6, 1 };
	static const char *const want[][17] = {
		{ "0.0", "-0.0", "1.0", "-1.0", "0.10000000000000001", "0.33333333333333331",
			"2.4999999999999999e-7", "100000.0", "1e17", "1e21", "123456789012.0",
			"9.8765432099999996e-300", "1.7976931348623157e308", "4.9406564584124654e-324",
			"380000000.0", "0.94999999999999996", "-12.345678901234001" },
		{ "0.0", "-0.0", "1.0", "-1.0", "0.1", "0.3333333333", "2.5e-7", "100000.0", "1e17", "1e21",
			"1.23456789e11", "9.87654321e-300", "1.797693135e308", "4.940656458e-324",
			"380000000.0", "0.95", "-12.3456789" },
		{ "0.0", "-0.0", "1.0", "-1.0", "0.1", "0.333333", "2.5e-7", "100000.0", "1e17", "1e21",
			"1.23457e11", "9.87654e-300", "1.79769e308", "4.94066e-324", "3.8e8", "0.95",
			"-12.3457" },
		{ "0.0", "-0.0", "1.0", "-1.0", "0.1", "0.3", "2e-7", "1e5", "1e17", "1e21", "1e11", "1e-299",
			"2e308", "5e-324", "4e8", "0.9", "-1e1" },
	};
	for (size_t p = 0; p < sizeof(prec) / sizeof(prec[0]); p++)
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			buf_t b;
			buf_init(&b);
			jsonw_real(&b, NULL, v[i], prec[p]);
			CHECK_STR(b.data, want[p][i]);
			buf_free(&b);
		}
	buf_t b;
	buf_init(&b);
	jsonw_array(&b, NULL);
	jsonw_real(&b, NULL, NAN, 10);
	jsonw_real(&b, NULL, -INFINITY, 17);
	jsonw_real(&b, NULL, 2, 0); /* out of range: jansson's default */
	jsonw_end_array(&b);
	CHECK_STR(b.data, "[null,null,2.0]");
	buf_free(&b);
}

/* A document written by every jsonw function, the same bytes as jansson's compact dump of the
 * same tree, keys in insertion order. */
static void test_jsonw_doc(void)
{
	buf_t b;
	buf_init(&b);
	jsonw_object(&b, NULL);
	jsonw_int(&b, "i", INT64_MIN);
	jsonw_int(&b, "j", 42);
	jsonw_real(&b, "r", 0.25, 10);
	jsonw_bool(&b, "t", true);
	jsonw_bool(&b, "f", false);
	jsonw_null(&b, "n");
	jsonw_text(&b, "s", "a\xff\"");
	jsonw_text(&b, "z", NULL);
	jsonw_array(&b, "a");
	jsonw_object(&b, NULL);
	jsonw_end_object(&b);
	jsonw_array(&b, NULL);
	jsonw_end_array(&b);
	jsonw_int(&b, NULL, -7);
	CHECK_INT(jsonw_add(&b, NULL, "x\n"), 0);
	CHECK_INT(jsonw_add(&b, NULL, "\xc3"), -1); /* left out */
	jsonw_end_array(&b);
	jsonw_key(&b, "k\xff");
	CHECK_INT(jsonw_add(&b, NULL, "v"), 0);
	jsonw_end_object(&b);
	CHECK_STR(b.data, /* jansson's compact dump of the same tree, precision 10 */
		"{\"i\":-9223372036854775808,\"j\":42,\"r\":0.25,\"t\":true,\"f\":false,\"n\":null,"
		"\"s\":\"a\xef\xbf\xbd\\\"\",\"z\":null,\"a\":[{},[],-7,\"x\\n\"],\"k\xef\xbf\xbd\":\"v\"}");
	buf_reset(&b);
	jsonw_array(&b, NULL); /* a key that is not UTF-8 refused by jsonw_add alone */
	CHECK_INT(jsonw_add(&b, "\xff", "v"), -1);
	jsonw_end_array(&b);
	CHECK_STR(b.data, "[]");
	buf_free(&b);
}

int main(void)
{
	test_jsonw();
	test_jsonw_indent();
	test_jsonw_copy();
	test_jsonw_real();
	test_jsonw_doc();
	test_hash();
	test_text();
	test_duration();
	test_oneline();
	test_cap();
	test_trim();
	test_clock();
	test_worker();
	test_fdreserve();
	return unit_done("lib_test");
}
