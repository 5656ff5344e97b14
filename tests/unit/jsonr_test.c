/* SPDX-License-Identifier: Apache-2.0 */
/* jsonr_test: the REST replies' JSON reader (lib/jsonr.h): what restdecode relies
 * on, the refusals, replies beyond the room it keeps. No I/O. */
#include "config.h"
#include "lib/jsonr.h"
#include "lib/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static const jsonr_node_t *rj(jsonr_t *d, const char *text)
{
	return jsonr_parse(d, text, strlen(text));
}

/* A 20-key object whose last key is kLAST: a repeat of k3, or a new one as k19. */
static const jsonr_node_t *rj_wide(jsonr_t *d, buf_t *b, int last)
{
	buf_reset(b);
	buf_puts(b, "{");
	for (int i = 0; i < 20; i++)
		buf_printf(b, "%s\"k%d\":\"v\"", i ? "," : "", i < 19 ? i : last);
	buf_puts(b, "}");
	return jsonr_parse(d, b->data, b->len);
}

/* jsonr: what restdecode relies on, and the refusals jansson made before it. */
static void test_jsonr(void)
{
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *j = rj(d, "[{\"a\":\"x\\u00e9\\\"\",\"b\":[1,{}]},\"s\",null]");
	CHECK(jsonr_is_array(j) && jsonr_size(j) == 3);
	const jsonr_node_t *o = jsonr_at(j, 0);
	CHECK(jsonr_is_object(o) && jsonr_size(o) == 2);
	CHECK_STR(jsonr_str(jsonr_get(o, "a")), "x\xc3\xa9\"");
	CHECK_STR(jsonr_key(o, 1), "b");
	CHECK(jsonr_is_array(jsonr_get(o, "b")) && jsonr_size(jsonr_get(o, "b")) == 2);
	CHECK(jsonr_is_object(jsonr_at(jsonr_get(o, "b"), 1)));
	CHECK(jsonr_get(o, "c") == NULL && jsonr_at(j, 3) == NULL);
	CHECK_STR(jsonr_str(jsonr_at(j, 1)), "s");
	CHECK(!jsonr_is_string(jsonr_at(j, 2)) && jsonr_str(jsonr_at(j, 2)) == NULL);
	buf_t b;
	buf_init(&b);
	CHECK(rj_wide(d, &b, 19) != NULL);
	CHECK(rj_wide(d, &b, 3) == NULL); /* found by the sorted check */
	buf_reset(&b);
	for (int i = 0; i < 130; i++)
		buf_putc(&b, i < 65 ? '[' : ']');
	CHECK(jsonr_parse(d, b.data, b.len) == NULL);         /* 65 deep */
	CHECK(jsonr_parse(d, b.data + 1, b.len - 2) != NULL); /* 64 deep */
	CHECK(rj(d, "\"\xff\"") == NULL);                     /* not UTF-8 */
	CHECK(rj(d, "{\"a\\u0000\":\"1\"}") == NULL);         /* NUL in a key */
	CHECK(rj(d, "1 2") == NULL && rj(d, "") == NULL && rj(d, "[1,]") == NULL);
	CHECK(rj(d, "[\"a\\u0000b\"]") == NULL); /* NUL in a string */
	/* numbers are "something else"; one no double or 64-bit integer holds is refused */
	j = rj(d, "[-0.5,1e3,18446744073709551615,true,false,null]");
	CHECK(jsonr_is_array(j) && jsonr_size(j) == 6 && !jsonr_is_string(jsonr_at(j, 2)));
	CHECK(rj(d, "[1e400]") == NULL && rj(d, "[123456789012345678901234567890]") == NULL);
	/* restdiag reads numbers: their value, and whether written as an integer */
	double v = 0;
	j = rj(d, "[-0.5,7,\"7\",18446744073709551615]");
	CHECK(jsonr_num(jsonr_at(j, 0), &v) && v == -0.5 && !jsonr_is_integer(jsonr_at(j, 0)));
	CHECK(jsonr_num(jsonr_at(j, 1), &v) && v == 7 && jsonr_is_integer(jsonr_at(j, 1)));
	CHECK(!jsonr_num(jsonr_at(j, 2), &v) && !jsonr_is_integer(jsonr_at(j, 2)));
	CHECK(jsonr_num(jsonr_at(j, 3), &v) && v > 1.8e19 && jsonr_is_integer(jsonr_at(j, 3)));
	CHECK(!jsonr_num(NULL, &v) && !jsonr_is_integer(NULL));
	/* the file readers' values: exact 64-bit integers, booleans, null */
	int64_t iv = 0;
	bool bv = false;
	j = rj(d, "[9007199254740993,-9223372036854775808,18446744073709551615,1.5,true,false,null,\"1\"]");
	CHECK(jsonr_int(jsonr_at(j, 0), &iv) && iv == 9007199254740993LL); /* beyond a double's 2^53 */
	CHECK(jsonr_int(jsonr_at(j, 1), &iv) && iv == INT64_MIN);
	CHECK(!jsonr_int(jsonr_at(j, 2), &iv) && jsonr_is_number(jsonr_at(j, 2))); /* beyond int64 */
	CHECK(!jsonr_int(jsonr_at(j, 3), &iv) && jsonr_is_number(jsonr_at(j, 3)));
	CHECK(jsonr_bool(jsonr_at(j, 4), &bv) && bv && jsonr_is_bool(jsonr_at(j, 4)));
	CHECK(jsonr_bool(jsonr_at(j, 5), &bv) && !bv && !jsonr_is_null(jsonr_at(j, 5)));
	CHECK(jsonr_is_null(jsonr_at(j, 6)) && !jsonr_bool(jsonr_at(j, 6), &bv) &&
		!jsonr_is_number(jsonr_at(j, 6)));
	CHECK(!jsonr_is_number(jsonr_at(j, 7)) && !jsonr_int(jsonr_at(j, 7), &iv) &&
		!jsonr_is_bool(jsonr_at(j, 7)));
	CHECK(!jsonr_is_null(NULL) && !jsonr_is_bool(NULL) && !jsonr_int(NULL, &iv) &&
		!jsonr_bool(NULL, &bv));
	/* each refusal says why, in words the file readers pass on */
	static const char *const why[][2] = { { "{\"a\":1,\"b\":2,\"a\":3}",
						      "an object with the key \"a\" twice" },
		{ "[\"\xff\"]", "not UTF-8" }, { "", "no JSON value" },
		{ "[1] [2]", "a bracket, brace, comma, colon or quote missing or misplaced" },
		{ "[\"a\\u0000\"]", "a NUL (\\u0000) in a string" },
		{ "{\"\\u0000\":1}", "a NUL (\\u0000) in a key" },
		{ "[1e400]", "a malformed number, or one beyond a double or 64 bits" },
		{ "[tru]", "a word that is not true, false or null" } };
	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		CHECK(rj(d, why[i][0]) == NULL);
		CHECK_STR(jsonr_error(d), why[i][1]);
	}
	CHECK(rj(d, "[{\"a\":{}}]") != NULL && strcmp(jsonr_error(d), "") == 0);
	CHECK(rj(d, "[1,]") == NULL && jsonr_error(d)[0] != '\0');
	/* a reply beyond the room kept (256 KiB): parsed, then the next small one from fresh room,
	 * with the depth limit kept after the parser grew */
	buf_reset(&b);
	buf_puts(&b, "[");
	for (int i = 0; i < 20000; i++)
		buf_printf(&b, "%s{\"k\":\"%d\"}", i ? "," : "", i);
	buf_puts(&b, "]");
	j = jsonr_parse(d, b.data, b.len);
	CHECK(b.len > 256 * 1024 && jsonr_size(j) == 20000);
	CHECK_STR(jsonr_str(jsonr_get(jsonr_at(j, 19999), "k")), "19999");
	CHECK_STR(jsonr_str(jsonr_at(rj(d, "[\"small\"]"), 0)), "small");
	buf_reset(&b);
	for (int i = 0; i < 300000; i++)
		buf_putc(&b, i < 65 ? '[' : i < 130 ? ']' : ' ');
	CHECK(jsonr_parse(d, b.data, b.len) == NULL); /* 65 deep, in 300,000 bytes */
	memset(b.data, ' ', b.len);
	memset(b.data, '[', 64);
	memset(b.data + 64, ']', 64);
	CHECK(jsonr_parse(d, b.data, b.len) != NULL); /* 64 deep */
	/* jsonr_get's cursor: any order, a miss, wrapping, two objects in turn */
	j = rj(d, "[{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"},{\"c\":\"6\",\"a\":\"4\"}]");
	const jsonr_node_t *x = jsonr_at(j, 0), *y = jsonr_at(j, 1);
	const char *const ask[] = { "c", "a", "z", "b", "b", "a", "c", "c" };
	const char *const want[] = { "3", "1", NULL, "2", "2", "1", "3", "3" };
	for (size_t i = 0; i < sizeof(ask) / sizeof(ask[0]); i++) {
		const char *got = jsonr_str(jsonr_get(x, ask[i]));
		CHECK(want[i] == NULL ? got == NULL : got != NULL && strcmp(got, want[i]) == 0);
		got = jsonr_str(jsonr_get(y, ask[i]));
		const char *wy = ask[i][0] == 'a' ? "4" : ask[i][0] == 'c' ? "6" : NULL;
		CHECK(wy == NULL ? got == NULL : got != NULL && strcmp(got, wy) == 0);
	}
	buf_free(&b);
	jsonr_destroy(d);
}

/* A refused text's place: the line and column where its grammar broke, as a person reads the
 * file (columns count characters); none for a refusal that is not the grammar's. */
static void test_jsonr_place(void)
{
	static const struct {
		const char *text;
		size_t line, col; /* 0: no place */
	} c[] = {
		{ "[\n  {\"a\": 1,},\n]", 2, 11 }, /* a comma before '}' */
		{ "[1,\n 2\n 3]", 3, 2 },          /* a comma missing */
		{ "{\"é\": tru}", 1, 10 },         /* a bad word, its end after a 2-byte character */
		{ "[\"a\tb\"]", 1, 4 },            /* a raw tab in a string */
		{ "[01]", 1, 3 },                  /* a leading zero */
		{ "[1] [2]", 1, 5 },               /* more than one value */
		{ "{\"a\":\n[1,\n2", 3, 2 },       /* not closed: the end of the text */
		{ "{\"a\":1,\"a\":2}", 0, 0 },     /* a key twice: not the grammar's */
		{ "[\"\xff\"]", 0, 0 },            /* not UTF-8 */
	};
	jsonr_t *d = jsonr_create();
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t line, col;
		CHECK(rj(d, c[i].text) == NULL);
		CHECK(jsonr_error_place(d, &line, &col) == (c[i].line > 0));
		CHECK_INT(line, c[i].line);
		CHECK_INT(col, c[i].col);
	}
	size_t line, col;
	CHECK(rj(d, "[1]") != NULL && !jsonr_error_place(d, &line, &col) && line == 0);
	jsonr_destroy(d);
}

int main(void)
{
	test_jsonr();
	test_jsonr_place();
	return unit_done("jsonr_test");
}
