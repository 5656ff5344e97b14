/* SPDX-License-Identifier: Apache-2.0 */
/* httpargs_test: web/httpargs.c. A query is copied and decoded as libmicrohttpd would have
 * ('+', %XX, no '=', empty pieces), and libmicrohttpd's copy of the target is left ending
 * right after the '?', the rest of it untouched. */
#include "config.h"
#include "web/httpargs.h"
#include "unit.h"

#include <stdlib.h>

static void test_take(void)
{
	char line[] = "/p?a=1&b+c=d%20e&&flag&x=y=z&\0HTTP/1.1";
	httpargs_t *a = httpargs_take(line);
	CHECK_STR(line, "/p?");
	CHECK(memcmp(line + 4, "=1&b+c", 6) == 0);
	CHECK_STR(line + 30, "HTTP/1.1");
	CHECK_INT(httpargs_count(a), 4);
	static const char *const want[][2] = { { "a", "1" }, { "b c", "d e" }, { "flag", NULL },
		{ "x", "y=z" } };
	for (size_t i = 0; i < 4 && i < httpargs_count(a); i++) {
		size_t kl, vl;
		CHECK_STR(httpargs_key(a, i, &kl), want[i][0]);
		CHECK_INT(kl, strlen(want[i][0]));
		CHECK_STR(httpargs_value(a, i, &vl), want[i][1]);
		CHECK_INT(vl, want[i][1] ? strlen(want[i][1]) : 0);
	}
	httpargs_free(a);
}

static void test_none(void)
{
	char plain[] = "/metrics", empty[] = "/metrics?";
	CHECK(httpargs_take(plain) == NULL);
	CHECK(httpargs_take(NULL) == NULL);
	CHECK_STR(plain, "/metrics");
	httpargs_t *a = httpargs_take(empty);
	CHECK_INT(httpargs_count(a), 0);
	CHECK_INT(httpargs_give(a, NULL), 0); /* nothing to hand over: conn is not touched */
	CHECK_INT(httpargs_give(NULL, NULL), 0);
	httpargs_free(a);
	httpargs_free(NULL);
}

/* More than HTTPARGS_MAX are refused before any is handed over (conn is not touched). */
static void test_too_many(void)
{
	char line[4 + 2 * (HTTPARGS_MAX + 1) + 1] = "/p?";
	for (int i = 0; i <= HTTPARGS_MAX; i++)
		strcat(line, "a&");
	httpargs_t *a = httpargs_take(line);
	CHECK_INT(httpargs_count(a), HTTPARGS_MAX + 1);
	CHECK_INT(httpargs_give(a, NULL), -1);
	httpargs_free(a);
}

int main(void)
{
	test_take();
	test_none();
	test_too_many();
	return unit_done("httpargs_test");
}
