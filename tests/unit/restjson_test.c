/* SPDX-License-Identifier: Apache-2.0 */
/* restjson_test: the REST replies' JSON reader (collectors/restjson.h): what restdecode relies
 * on, the refusals, replies beyond the room it keeps. No I/O. */
#include "config.h"
#include "collectors/restjson.h"
#include "lib/buf.h"

#include <stdlib.h>
#include <string.h>

#include "unit.h"

static const restjson_node_t *rj(restjson_t *d, const char *text)
{
	return restjson_parse(d, text, strlen(text));
}

/* A 20-key object whose last key is kLAST: a repeat of k3, or a new one as k19. */
static const restjson_node_t *rj_wide(restjson_t *d, buf_t *b, int last)
{
	buf_reset(b);
	buf_puts(b, "{");
	for (int i = 0; i < 20; i++)
		buf_printf(b, "%s\"k%d\":\"v\"", i ? "," : "", i < 19 ? i : last);
	buf_puts(b, "}");
	return restjson_parse(d, b->data, b->len);
}

/* restjson: what restdecode relies on, and the refusals jansson made before it. */
static void test_restjson(void)
{
	restjson_t *d = restjson_create();
	const restjson_node_t *j = rj(d, "[{\"a\":\"x\\u00e9\\\"\",\"b\":[1,{}]},\"s\",null]");
	CHECK(restjson_is_array(j) && restjson_size(j) == 3);
	const restjson_node_t *o = restjson_at(j, 0);
	CHECK(restjson_is_object(o) && restjson_size(o) == 2);
	CHECK_STR(restjson_str(restjson_get(o, "a")), "x\xc3\xa9\"");
	CHECK_STR(restjson_key(o, 1), "b");
	CHECK(restjson_is_array(restjson_get(o, "b")) && restjson_size(restjson_get(o, "b")) == 2);
	CHECK(restjson_is_object(restjson_at(restjson_get(o, "b"), 1)));
	CHECK(restjson_get(o, "c") == NULL && restjson_at(j, 3) == NULL);
	CHECK_STR(restjson_str(restjson_at(j, 1)), "s");
	CHECK(!restjson_is_string(restjson_at(j, 2)) && restjson_str(restjson_at(j, 2)) == NULL);
	buf_t b;
	buf_init(&b);
	CHECK(rj_wide(d, &b, 19) != NULL);
	CHECK(rj_wide(d, &b, 3) == NULL); /* found by the sorted check */
	buf_reset(&b);
	for (int i = 0; i < 130; i++)
		buf_putc(&b, i < 65 ? '[' : ']');
	CHECK(restjson_parse(d, b.data, b.len) == NULL);         /* 65 deep */
	CHECK(restjson_parse(d, b.data + 1, b.len - 2) != NULL); /* 64 deep */
	CHECK(rj(d, "\"\xff\"") == NULL);                        /* not UTF-8 */
	CHECK(rj(d, "{\"a\\u0000\":\"1\"}") == NULL);            /* NUL in a key */
	CHECK(rj(d, "1 2") == NULL && rj(d, "") == NULL && rj(d, "[1,]") == NULL);
	CHECK(rj(d, "[\"a\\u0000b\"]") == NULL); /* NUL in a string */
	/* numbers are "something else"; one no double or 64-bit integer holds is refused */
	j = rj(d, "[-0.5,1e3,18446744073709551615,true,false,null]");
	CHECK(restjson_is_array(j) && restjson_size(j) == 6 && !restjson_is_string(restjson_at(j, 2)));
	CHECK(rj(d, "[1e400]") == NULL && rj(d, "[123456789012345678901234567890]") == NULL);
	/* restdiag reads numbers: their value, and whether written as an integer */
	double v = 0;
	j = rj(d, "[-0.5,7,\"7\",18446744073709551615]");
	CHECK(restjson_num(restjson_at(j, 0), &v) && v == -0.5 && !restjson_is_integer(restjson_at(j, 0)));
	CHECK(restjson_num(restjson_at(j, 1), &v) && v == 7 && restjson_is_integer(restjson_at(j, 1)));
	CHECK(!restjson_num(restjson_at(j, 2), &v) && !restjson_is_integer(restjson_at(j, 2)));
	CHECK(restjson_num(restjson_at(j, 3), &v) && v > 1.8e19 && restjson_is_integer(restjson_at(j, 3)));
	CHECK(!restjson_num(NULL, &v) && !restjson_is_integer(NULL));
	/* a reply beyond the room kept (256 KiB): parsed, then the next small one from fresh room,
	 * with the depth limit kept after the parser grew */
	buf_reset(&b);
	buf_puts(&b, "[");
	for (int i = 0; i < 20000; i++)
		buf_printf(&b, "%s{\"k\":\"%d\"}", i ? "," : "", i);
	buf_puts(&b, "]");
	j = restjson_parse(d, b.data, b.len);
	CHECK(b.len > 256 * 1024 && restjson_size(j) == 20000);
	CHECK_STR(restjson_str(restjson_get(restjson_at(j, 19999), "k")), "19999");
	CHECK_STR(restjson_str(restjson_at(rj(d, "[\"small\"]"), 0)), "small");
	buf_reset(&b);
	for (int i = 0; i < 300000; i++)
		buf_putc(&b, i < 65 ? '[' : i < 130 ? ']' : ' ');
	CHECK(restjson_parse(d, b.data, b.len) == NULL); /* 65 deep, in 300,000 bytes */
	memset(b.data, ' ', b.len);
	memset(b.data, '[', 64);
	memset(b.data + 64, ']', 64);
	CHECK(restjson_parse(d, b.data, b.len) != NULL); /* 64 deep */
	/* restjson_get's cursor: any order, a miss, wrapping, two objects in turn */
	j = rj(d, "[{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"},{\"c\":\"6\",\"a\":\"4\"}]");
	const restjson_node_t *x = restjson_at(j, 0), *y = restjson_at(j, 1);
	const char *const ask[] = { "c", "a", "z", "b", "b", "a", "c", "c" };
	const char *const want[] = { "3", "1", NULL, "2", "2", "1", "3", "3" };
	for (size_t i = 0; i < sizeof(ask) / sizeof(ask[0]); i++) {
		const char *got = restjson_str(restjson_get(x, ask[i]));
		CHECK(want[i] == NULL ? got == NULL : got != NULL && strcmp(got, want[i]) == 0);
		got = restjson_str(restjson_get(y, ask[i]));
		const char *wy = ask[i][0] == 'a' ? "4" : ask[i][0] == 'c' ? "6" : NULL;
		CHECK(wy == NULL ? got == NULL : got != NULL && strcmp(got, wy) == 0);
	}
	buf_free(&b);
	restjson_destroy(d);
}

int main(void)
{
	test_restjson();
	return unit_done("restjson_test");
}
